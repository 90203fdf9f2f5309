// The curves page.
#include "app/gui/curves_page.hpp"

#include <QChart>
#include <QCategoryAxis>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLegendMarker>
#include <QGraphicsLayout>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QSignalBlocker>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cmath>
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/runs.hpp"
#include "core/analysis.hpp"
#include "core/units.hpp"

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
  // What the sweep is, for the title: its workload family and what stays fixed.
  {
    const Platform& p = first->info.platform;
    const std::string family = first->info.workload_spec.substr(0, first->info.workload_spec.find(':'));
    std::string varied = curves.memory_axis ? first->info.workload_spec : family + " (" + std::to_string(workloads.size()) + " sizes)";
    curves.description = "sweep " + std::to_string(sweep_id) + ": " + varied + ", " +
                         (curves.memory_axis ? std::to_string(memories.size()) + " memories" : "M = " + format_binary_bytes(p.memory_bytes)) + ", " +
                         std::to_string(p.gpus) + " GPU" + (p.gpus == 1 ? "" : "s") + (p.name.empty() ? "" : " (" + p.name + ")");
  }
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

// A distinct style per policy, so that curves drawn on top of each other still tell apart:
// Okabe and Ito's colour-blind-safe colours, a dash pattern, and a marker shape, each cycling
// at its own period (7, 4 and 5), so that no two of the first 140 policies share all three.
const QColor kSeriesColors[] = {QColor(0, 114, 178), QColor(230, 159, 0), QColor(0, 158, 115), QColor(213, 94, 0),
                                QColor(204, 121, 167), QColor(86, 180, 233), QColor(120, 120, 120)};
const Qt::PenStyle kSeriesDashes[] = {Qt::SolidLine, Qt::DashLine, Qt::DashDotLine, Qt::DotLine};
enum class Marker { Circle, Square, Triangle, Diamond, Cross };

QImage marker_image(Marker shape, const QColor& colour) {
  QImage image(14, 14, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setPen(QPen(colour.darker(130), 1));
  painter.setBrush(colour);
  const QRectF box(2, 2, 10, 10);
  switch (shape) {
    case Marker::Circle: painter.drawEllipse(box); break;
    case Marker::Square: painter.drawRect(box.adjusted(0.5, 0.5, -0.5, -0.5)); break;
    case Marker::Triangle: painter.drawPolygon(QPolygonF({QPointF(7, 1.5), QPointF(12.5, 12), QPointF(1.5, 12)})); break;
    case Marker::Diamond: painter.drawPolygon(QPolygonF({QPointF(7, 1), QPointF(13, 7), QPointF(7, 13), QPointF(1, 7)})); break;
    case Marker::Cross:
      painter.setPen(QPen(colour, 2.5));
      painter.drawLine(QPointF(2.5, 2.5), QPointF(11.5, 11.5));
      painter.drawLine(QPointF(11.5, 2.5), QPointF(2.5, 11.5));
      break;
  }
  return image;
}

// Zooms around the pointer with the wheel (the rubber band and right-click come with QChartView).
class ZoomingChartView : public QChartView {
 protected:
  void wheelEvent(QWheelEvent* event) override {
    if (!chart()) return;
    chart()->zoom(event->angleDelta().y() > 0 ? 1.25 : 0.8);
    event->accept();
  }
};

// A round step of about a sixth of `span`: 1, 2 or 5 times a power of ten.
double round_step(double span) {
  const double raw = std::max(span, 1e-12) / 6, power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

// Round ticks on a linear axis from 0 (or the data's start) to just past the data.
void round_ticks(QValueAxis* axis, double low, double high) {
  const double step = round_step(high - low);
  axis->setRange(low, high);
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(0);
  axis->setTickInterval(step);
  axis->setLabelFormat(step >= 1 ? "%.0f" : step >= 0.1 ? "%.1f" : "%.2f");
}

}  // namespace

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;  // the data axis's unit

QString curve_point_tooltip(const CurveSeries& series, const CurvePoint& point, bool throughput, bool memory_axis) {
  return QString("%1\n%2 = %3 MiB\n%4\nrun #%5 (click to open)")
      .arg(QString::fromStdString(series.label))
      .arg(memory_axis ? "M" : "working set")
      .arg(point.x, 0, 'f', 0)
      .arg(throughput ? QString("%1 GFlop/s").arg(point.gflops, 0, 'f', 0) : QString("%1 GiB loaded").arg(point.bytes / kGiB, 0, 'f', 2))
      .arg(point.run_id);
}

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
  view_ = new ZoomingChartView;
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
  chart->setTitle(title_ + (throughput ? ": throughput" : ": data transferred"));
  chart->setMargins(QMargins(16, 12, 16, 8));  // room between the title, the top tick label and the edges
  chart->legend()->setAlignment(Qt::AlignRight);
  chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);  // line style and marker, not a square
  QFont legend_font = chart->legend()->font();
  legend_font.setPointSizeF(std::max(9.0, legend_font.pointSizeF() * 0.9));
  chart->legend()->setFont(legend_font);
  const QString x_title = curves_.memory_axis ? "memory per GPU (MiB)" : "working set (MiB)";
  // Sizes in powers of 1024 on both axes, as the memories are given (the paper figures keep
  // their GB: paper_figure.cpp).
  const QString y_title = throughput ? "throughput (GFlop/s)" : "data transferred (GiB)";
  // On a log axis the points are drawn at log10 of their value, so that the axis can be
  // labelled at 1-2-5 steps (QLogValueAxis labels whole decades only).
  const auto plotted = [log](double y) { return log ? std::log10(std::max(y, 1e-12)) : y; };
  double x_min = 1e300, x_max = 0, y_min = 1e300, y_max = 0;
  auto extend = [&](double x, double y) {
    x_min = std::min(x_min, x);
    x_max = std::max(x_max, x);
    if (y > 0) y_min = std::min(y_min, y);
    y_max = std::max(y_max, y);
  };
  std::vector<QLineSeries*> all;
  std::size_t style = 0;
  for (const CurveSeries& curve : curves_.series) {
    auto* series = new QLineSeries;
    series->setName(QString::fromStdString(curve.label));
    const QColor colour = kSeriesColors[style % std::size(kSeriesColors)];
    series->setPen(QPen(colour, 2, kSeriesDashes[style % std::size(kSeriesDashes)]));
    series->setMarkerSize(11);
    series->setLightMarker(marker_image(static_cast<Marker>(style % 5), colour));
    series->setPointsVisible(true);
    ++style;
    QList<QPointF> points;
    for (const CurvePoint& p : curve.points) {
      const double y = throughput ? p.gflops : p.bytes / kGiB;
      points.append({p.x, plotted(y)});
      extend(p.x, y);
    }
    series->replace(points);
    const CurveSeries* source = &curve;
    connect(series, &QLineSeries::hovered, this, [this, source, throughput](const QPointF& point, bool state) {
      if (!state) return QToolTip::hideText();
      const CurvePoint* nearest = nearest_point(*source, point.x());
      if (!nearest) return;
      QToolTip::showText(QCursor::pos(), curve_point_tooltip(*source, *nearest, throughput, curves_.memory_axis));
    });
    connect(series, &QLineSeries::clicked, this, [this, source](const QPointF& point) {
      if (const CurvePoint* nearest = nearest_point(*source, point.x())) emit run_clicked(nearest->run_id);
    });
    all.push_back(series);
  }
  const QColor ink = dark_ ? QColor(235, 235, 235) : QColor(Qt::black);
  auto reference = [&](const QString& name, const std::vector<std::pair<double, double>>& values, Qt::PenStyle dashes) {
    auto* series = new QLineSeries;
    series->setName(name);
    series->setPen(QPen(ink, 2, dashes));
    QList<QPointF> points;
    for (const auto& [x, value] : values) {
      const double y = throughput ? value / 1e9 : value / kGiB;
      points.append({x, plotted(y)});
      extend(x, y);
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
  // The memory marks extend the x axis when they lie near the data, so that each one in the
  // legend is on the plot too.
  std::vector<std::pair<QString, std::pair<double, QColor>>> marks;
  for (const auto& [name, x, colour_of_mark] : {std::tuple{QString("M holds one input"), curves_.red, QColor(220, 30, 30)},
                                                std::tuple{QString("M holds both inputs"), curves_.orange, QColor(255, 140, 0)},
                                                std::tuple{QString("M holds the working set"), curves_.green, QColor(30, 160, 60)}}) {
    if (x <= 0 || x < x_min * 0.5 || x > x_max * 1.5) continue;
    // Two marks at one memory (matmul2d: both inputs are the working set) are one line with
    // both names, not one line hidden under the other.
    const auto same = std::find_if(marks.begin(), marks.end(), [&](const auto& m) { return std::fabs(m.second.first - x) <= 0.005 * x; });
    if (same != marks.end()) {
      same->first = "M = " + same->first.mid(QString("M holds ").size()) + " = " + name.mid(QString("M holds the ").size());
      continue;
    }
    marks.push_back({name, {x, colour_of_mark}});
  }
  for (const auto& mark : marks) {
    x_min = std::min(x_min, mark.second.first);
    x_max = std::max(x_max, mark.second.first);
  }
  // Log: from the 1-2-5 step below the data to the one above; linear: from 0 to just past it.
  const auto step_below = [](double v) {
    const double decade = std::pow(10.0, std::floor(std::log10(v)));
    for (double m : {5.0, 2.0, 1.0}) {
      if (m * decade <= v * 1.0000001) return m * decade;
    }
    return decade;
  };
  const auto step_above = [](double v) {
    const double decade = std::pow(10.0, std::floor(std::log10(v)));
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
      if (m * decade >= v * 0.9999999) return m * decade;
    }
    return 10 * decade;
  };
  const double bottom = log ? step_below(std::max(y_min, 1e-6)) : 0;
  const double top = log ? step_above(y_max * 1.05) : y_max * 1.05;
  for (const auto& [name, where] : marks) {
    auto* series = new QLineSeries;
    series->setName(name);
    series->setPen(QPen(where.second, 2, Qt::DashLine));
    series->replace(QList<QPointF>{{where.first, plotted(bottom)}, {where.first, plotted(top)}});
    all.push_back(series);
  }

  // The x axis ends just past the data (not at the next round number), its ticks round.
  auto* x_axis = new QValueAxis;
  x_axis->setTitleText(x_title);
  const double x_span = std::max(1e-9, x_max - x_min);
  round_ticks(x_axis, std::max(0.0, x_min - x_span * 0.02), x_max + x_span * 0.02);
  QAbstractAxis* y_axis = nullptr;
  if (log) {
    // Labels at 1, 2, 5 of each decade (every value readable), as plain numbers: 0.2, 0.5, 1.
    auto* axis = new QCategoryAxis;
    axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    axis->setRange(plotted(bottom), plotted(top));
    for (double decade = std::pow(10.0, std::floor(std::log10(bottom))); decade <= top; decade *= 10) {
      for (double m : {1.0, 2.0, 5.0}) {
        const double value = m * decade;
        if (value < bottom * 0.9999999 || value > top * 1.0000001) continue;
        axis->append(QString::number(value, 'g', 3), plotted(value));
      }
    }
    y_axis = axis;
  } else {
    auto* axis = new QValueAxis;
    round_ticks(axis, bottom, top);
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
  // Zoom with the mouse: drag a rectangle to zoom in, right-click to zoom out, wheel to zoom
  // around the pointer.
  view_->setRubberBand(QChartView::RectangleRubberBand);
}

PaintFunction CurvesPage::paint_function() const {
  QChartView* view = view_;
  return [view](QPainter& painter, const QRectF& area) {
    // The chart laid out at the export's size and its scene drawn directly: a view that is
    // not on screen keeps its last layout (half the width) and never gets the event that
    // would lay it out again.
    QChart* chart = view->chart();
    const QRectF before = chart->geometry();
    const QRectF page(QPointF(0, 0), area.size());
    chart->setGeometry(page);
    if (chart->layout()) chart->layout()->activate();
    chart->scene()->render(&painter, area, page);
    chart->setGeometry(before);
    if (chart->layout()) chart->layout()->activate();
  };
}

}  // namespace tilelens::gui
