// The curves page.
#include "app/gui/curves_page.hpp"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QSignalBlocker>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>
#include <map>
#include <set>

#include "core/runs.hpp"
#include "analysis/bounds.hpp"

namespace tilelens::gui {

Result<SweepCurves> sweep_curves(db::Store& store, std::int64_t sweep_id) {
  db::RunFilter filter;
  filter.sweep_id = sweep_id;
  auto runs = store.load_runs(filter);
  if (!runs) return runs.error();
  SweepCurves curves;
  std::set<double> memories;
  std::set<std::string> workloads;
  for (const auto& run : *runs) {
    if (!run.metrics) continue;
    memories.insert(run.info.platform.memory_bytes);
    workloads.insert(run.info.workload_spec);
  }
  if (workloads.empty()) return make_error("sweep " + std::to_string(sweep_id) + " has no complete run");
  curves.memory_axis = memories.size() > 1 && workloads.size() == 1;
  std::map<std::string, CurveSeries> by_label;
  std::map<double, double> lower, bus;
  const StoredRun* first = nullptr;
  for (const auto& run : *runs) {
    if (!run.metrics || !run.info.transfers_recorded) continue;
    if (!first) first = &run;
    const double x = (curves.memory_axis ? run.info.platform.memory_bytes : static_cast<double>(run.info.working_set_bytes)) / 1048576.0;
    const std::string label = core::policy_label(run.info);
    CurveSeries& series = by_label[label];
    series.label = label;
    series.points.push_back({x, run.metrics->summary.bytes_loaded, run.metrics->summary.gflops, run.info.id});
    lower[x] = run.metrics->lower_bound_bytes;
    bus[x] = run.metrics->bus_limit_bytes;
    curves.peak_gflops = std::max(curves.peak_gflops, run.info.platform.total_peak_gflops());
  }
  if (!first) return make_error("sweep " + std::to_string(sweep_id) + " has no run with recorded transfers");
  for (auto& [label, series] : by_label) {
    std::sort(series.points.begin(), series.points.end(), [](const CurvePoint& a, const CurvePoint& b) { return a.x < b.x; });
    curves.series.push_back(std::move(series));
  }
  // Keep the sweep's policy order (the order of the first runs), not alphabetical.
  std::map<std::string, std::int64_t> first_id;
  for (const auto& series : curves.series) first_id[series.label] = series.points.front().run_id;
  std::sort(curves.series.begin(), curves.series.end(),
            [&](const CurveSeries& a, const CurveSeries& b) { return first_id[a.label] < first_id[b.label]; });
  curves.lower_bound.assign(lower.begin(), lower.end());
  curves.bus_limit.assign(bus.begin(), bus.end());

  auto workload = store.load_workload(first->info.workload_id);
  if (workload) {
    const ReferenceCurves reference = reference_curves(*workload, first->info.platform);
    const double memory = first->info.platform.memory_bytes * first->info.platform.gpus;
    if (curves.memory_axis) {
      curves.red = reference.one_input_bytes / 1048576.0;
      curves.orange = reference.both_inputs_bytes / 1048576.0;
      curves.green = reference.working_set_bytes / 1048576.0;
    } else if (reference.working_set_bytes > 0) {
      // The working-set size at which M holds one input matrix, both, everything.
      if (reference.one_input_bytes > 0) curves.red = memory * reference.working_set_bytes / reference.one_input_bytes / 1048576.0;
      if (reference.both_inputs_bytes > 0) curves.orange = memory * reference.working_set_bytes / reference.both_inputs_bytes / 1048576.0;
      curves.green = memory / 1048576.0;
    }
  }
  return curves;
}

namespace {

const CurvePoint* nearest_point(const CurveSeries& series, double x) {
  const CurvePoint* nearest = nullptr;
  for (const CurvePoint& p : series.points) {
    if (!nearest || std::abs(p.x - x) < std::abs(nearest->x - x)) nearest = &p;
  }
  return nearest;
}

const QColor kSeriesColors[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44), QColor(214, 39, 40),
                                QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127),
                                QColor(188, 189, 34), QColor(23, 190, 207)};

}  // namespace

CurvesPage::CurvesPage(SweepCurves curves, QString title, QWidget* parent)
    : QWidget(parent), curves_(std::move(curves)), title_(std::move(title)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* bar = new QWidget;
  auto* row = new QHBoxLayout(bar);
  row->setContentsMargins(4, 2, 4, 2);
  metric_ = new QComboBox;
  metric_->addItems({"data transferred", "throughput"});
  log_ = new QCheckBox("log scale");
  log_->setChecked(true);
  row->addWidget(metric_);
  row->addWidget(log_);
  row->addStretch(1);
  view_ = new QChartView;
  view_->setRenderHint(QPainter::Antialiasing);
  layout->addWidget(bar);
  layout->addWidget(view_, 1);
  connect(metric_, &QComboBox::currentIndexChanged, this, [this](int index) {
    const QSignalBlocker quiet(log_);
    log_->setChecked(index == 0);  // transfers span decades; throughput reads better linear
    rebuild();
  });
  connect(log_, &QCheckBox::toggled, this, [this] { rebuild(); });
  rebuild();
}

void CurvesPage::set_dark(bool dark) {
  dark_ = dark;
  rebuild();
}

void CurvesPage::set_throughput(bool throughput) { metric_->setCurrentIndex(throughput ? 1 : 0); }

void CurvesPage::rebuild() {
  const bool throughput = metric_->currentIndex() == 1;
  const bool log = log_->isChecked();
  auto* chart = new QChart;
  chart->setTheme(dark_ ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  chart->setTitle(title_ + (throughput ? " - throughput" : " - data transferred"));
  chart->legend()->setAlignment(Qt::AlignRight);
  QFont legend_font = chart->legend()->font();
  legend_font.setPointSizeF(legend_font.pointSizeF() * 0.85);
  chart->legend()->setFont(legend_font);
  const QString x_title = curves_.memory_axis ? "memory per GPU (MiB)" : "working set (MiB)";
  const QString y_title = throughput ? "throughput (GFlop/s)" : "data transferred (GB)";
  double x_min = 1e300, x_max = 0, y_min = 1e300, y_max = 0;
  auto extend = [&](double x, double y) {
    x_min = std::min(x_min, x);
    x_max = std::max(x_max, x);
    if (y > 0) y_min = std::min(y_min, y);
    y_max = std::max(y_max, y);
  };
  std::vector<QLineSeries*> all;
  std::size_t colour = 0;
  for (const CurveSeries& curve : curves_.series) {
    auto* series = new QLineSeries;
    series->setName(QString::fromStdString(curve.label));
    series->setPointsVisible(true);
    series->setPen(QPen(kSeriesColors[colour++ % std::size(kSeriesColors)], 2));
    QList<QPointF> points;
    for (const CurvePoint& p : curve.points) {
      const double y = throughput ? p.gflops : p.bytes / 1e9;
      points.append({p.x, y});
      extend(p.x, y);
    }
    series->replace(points);
    const CurveSeries* source = &curve;
    connect(series, &QLineSeries::hovered, this, [source, throughput](const QPointF& point, bool state) {
      if (!state) return QToolTip::hideText();
      const CurvePoint* nearest = nearest_point(*source, point.x());
      if (!nearest) return;
      QToolTip::showText(QCursor::pos(), QString("%1\nx = %2 MiB\n%3\nrun #%4 (click to open)")
                                             .arg(QString::fromStdString(source->label))
                                             .arg(nearest->x, 0, 'f', 0)
                                             .arg(throughput ? QString("%1 GFlop/s").arg(nearest->gflops, 0, 'f', 0)
                                                             : QString("%1 GB").arg(nearest->bytes / 1e9, 0, 'f', 2))
                                             .arg(nearest->run_id));
    });
    connect(series, &QLineSeries::clicked, this, [this, source](const QPointF& point) {
      if (const CurvePoint* nearest = nearest_point(*source, point.x())) emit run_clicked(nearest->run_id);
    });
    all.push_back(series);
  }
  const QColor ink = dark_ ? QColor(235, 235, 235) : QColor(Qt::black);
  auto reference = [&](const QString& name, const std::vector<std::pair<double, double>>& values, Qt::PenStyle style) {
    auto* series = new QLineSeries;
    series->setName(name);
    series->setPen(QPen(ink, 2, style));
    QList<QPointF> points;
    for (const auto& [x, bytes] : values) {
      points.append({x, bytes / 1e9});
      extend(x, bytes / 1e9);
    }
    series->replace(points);
    all.push_back(series);
  };
  if (!throughput) {
    reference("lower bound", curves_.lower_bound, Qt::SolidLine);
    reference("bus limit", curves_.bus_limit, Qt::DotLine);
  } else if (curves_.peak_gflops > 0 && x_max > 0) {
    reference("peak", {{x_min, curves_.peak_gflops * 1e9}, {x_max, curves_.peak_gflops * 1e9}}, Qt::DotLine);
  }
  if (x_max <= 0) x_max = 1;
  if (y_max <= 0) y_max = 1;
  if (y_min > y_max) y_min = y_max / 10;
  const double bottom = log ? std::max(y_min / 1.5, 1e-6) : 0;
  const double top = log ? y_max * 1.5 : y_max * 1.08;
  auto mark = [&](const QString& name, double x, const QColor& colour_of_mark) {
    if (x <= 0 || x < x_min * 0.5 || x > x_max * 1.5) return;
    auto* series = new QLineSeries;
    series->setName(name);
    series->setPen(QPen(colour_of_mark, 2, Qt::DashLine));
    series->replace(QList<QPointF>{{x, bottom}, {x, top}});
    all.push_back(series);
  };
  mark("M holds one input", curves_.red, QColor(220, 30, 30));
  mark("M holds both inputs", curves_.orange, QColor(255, 140, 0));
  mark("M holds the working set", curves_.green, QColor(30, 160, 60));

  auto* x_axis = new QValueAxis;
  x_axis->setTitleText(x_title);
  x_axis->setRange(x_min, x_max);
  x_axis->setLabelFormat("%.0f");
  x_axis->applyNiceNumbers();
  QAbstractAxis* y_axis = nullptr;
  if (log) {
    auto* axis = new QLogValueAxis;
    axis->setBase(10);
    axis->setRange(bottom, top);
    axis->setLabelFormat(throughput ? "%.0f" : "%.2g");
    y_axis = axis;
  } else {
    auto* axis = new QValueAxis;
    axis->setRange(bottom, top);
    axis->setLabelFormat(throughput ? "%.0f" : "%.1f");
    y_axis = axis;
  }
  y_axis->setTitleText(y_title);
  chart->addAxis(x_axis, Qt::AlignBottom);
  chart->addAxis(y_axis, Qt::AlignLeft);
  for (QLineSeries* series : all) {
    chart->addSeries(series);
    series->attachAxis(x_axis);
    series->attachAxis(y_axis);
  }
  QChart* old = view_->chart();
  view_->setChart(chart);
  delete old;
}

PaintFunction CurvesPage::paint_function() const {
  QChartView* view = view_;
  return [view](QPainter& painter, const QRectF& area) {
    const QSize before = view->size();
    view->resize(area.size().toSize());
    view->render(&painter, area);
    view->resize(before);
  };
}

}  // namespace tilelens::gui
