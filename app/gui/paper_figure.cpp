// A paper's figure from its preset; see paper_figure.hpp.
#include "app/gui/paper_figure.hpp"

#include <QFont>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "app/gui/curves_page.hpp"
#include "app/gui/figure_export.hpp"
#include "app/gui/tile_figure.hpp"
#include "core/units.hpp"

namespace tilelens::gui {
namespace {

Status write_all_formats(const PaintFunction& paint, QSize size, const QString& stem, PaperFigure& figure) {
  for (const char* extension : {".png", ".pdf", ".svg"}) {
    const QString path = stem + extension;
    const QString error = export_figure(paint, size, path);
    if (!error.isEmpty()) return make_error(error.toStdString());
    figure.files << path;
  }
  return Status::success();
}

// The runs side by side as tile-order panels, one per policy, the legend below them.
Status draw_orders(db::Store& store, const SweepPreset& preset, const std::vector<core::PresetRun>& runs, const QString& base,
                   bool dark, PaperFigure& figure) {
  const OrderFigure& layout = *preset.order_figure;
  std::vector<std::unique_ptr<RunData>> data;
  std::vector<std::unique_ptr<TileFigure>> figures;
  std::vector<TileOptions> options;
  for (const auto& [policy, x, run] : runs) {
    auto loaded = load_run_data(store, run.info.id);
    if (!loaded) return make_error("run " + std::to_string(run.info.id) + ": " + loaded.error().message);
    if (loaded->trace.tasks.empty()) return make_error("run " + std::to_string(run.info.id) + " has no trace (a --metrics-only sweep)");
    data.push_back(std::make_unique<RunData>(std::move(*loaded)));
    figures.push_back(std::make_unique<TileFigure>(*data.back()));
    TileOptions option;
    option.mode = layout.chunks ? ColorMode::Chunks : ColorMode::Order;
    option.chunk = layout.chunk;
    option.first_panels = layout.first_panels;
    option.per_gpu = layout.per_gpu;
    option.loads = layout.loads;
    option.numbers = !layout.chunks;  // darts numbers no task
    option.legend = false;            // one legend under all the runs
    option.dark = dark;
    // "(a) DMDAR + LRU": the caption's letter, then the run's policies.
    std::string caption = policy < layout.captions.size() ? layout.captions[policy] : preset.policies[policy].label;
    if (caption.rfind("(", 0) == 0 && caption.find(')') != std::string::npos) caption = caption.substr(0, caption.find(')') + 1);
    option.title_text = caption + " " + data.back()->policy_title();
    options.push_back(option);
  }
  if (figures.empty()) return make_error("the sweep holds no run of the preset's policies");
  // What the runs share (workload, memory, GPUs) is said once, above them; runs that differ in
  // it keep their whole titles.
  const auto shared_part = [](const RunData& run) { return run.title().substr(std::min(run.title().size(), run.policy_title().size() + 2)); };
  std::string header = shared_part(*data.front());
  for (const auto& run : data) {
    if (shared_part(*run) != header) header.clear();
  }
  if (header.empty()) {
    for (std::size_t k = 0; k < options.size(); ++k) options[k].title_text += ", " + shared_part(*data[k]);
  }
  const double header_height = header.empty() ? 0 : 34;
  // One panel is 900 x 900; several (layers, iterations) share a squarer 800 x 900, which
  // lays four out 2 x 2 as darts Figs. 8-9; a per-GPU figure puts each GPU's panels side by side.
  const std::size_t panels = figures.front()->panels(options.front());
  const int per_run_width = layout.per_gpu ? static_cast<int>(900 * panels) : panels > 1 ? 800 : 900;
  const int width = per_run_width * static_cast<int>(figures.size());
  const double legend = figures.front()->legend_height(width, options.front());
  const int height = static_cast<int>(900 + legend + header_height);
  const PaintFunction paint = [&](QPainter& painter, const QRectF& area) {
    painter.fillRect(area, dark ? QColor(30, 30, 34) : QColor(Qt::white));
    if (!header.empty()) {
      QFont font = painter.font();
      font.setPixelSize(20);
      painter.setFont(font);
      painter.setPen(dark ? QColor(230, 230, 230) : QColor(20, 20, 20));
      painter.drawText(QRectF(area.left(), area.top(), area.width(), header_height), Qt::AlignCenter,
                       QString::fromStdString(preset.figure + ": " + header));
    }
    const double part = area.width() / static_cast<double>(figures.size());
    const double body = area.height() - legend - header_height;
    for (std::size_t k = 0; k < figures.size(); ++k) {
      figures[k]->paint(painter, QRectF(area.left() + part * static_cast<double>(k), area.top() + header_height, part, body), options[k]);
    }
    figures.front()->paint_legend(painter, QRectF(area.left(), area.top() + header_height + body, area.width(), legend), options.front());
  };
  return write_all_formats(paint, QSize(width, height), base, figure);
}

// The curves of an N or memory sweep, the preset's legend names on the series.
Status draw_curves(db::Store& store, const SweepPreset& preset, const std::vector<core::PresetRun>& runs, std::int64_t sweep_id,
                   const QString& base, bool dark, PaperFigure& figure) {
  auto curves = sweep_curves(store, sweep_id);
  if (!curves) return curves.error();
  std::map<std::int64_t, std::string> label_of;
  for (const auto& run : runs) label_of[run.run.info.id] = preset.policies[run.policy].label;
  for (auto& series : curves->series) {
    if (series.points.empty()) continue;
    const auto label = label_of.find(series.points.front().run_id);
    if (label != label_of.end()) series.label = label->second;
  }
  const QString title = QString::fromStdString(preset.figure + ": " + preset.title);
  CurvesPage page(std::move(*curves), title);
  page.set_dark(dark);
  page.set_throughput(false);
  if (auto status = write_all_formats(page.paint_function(), page.figure_size(), base + "-transfers", figure); !status) return status;
  page.set_throughput(true);
  return write_all_formats(page.paint_function(), page.figure_size(), base + "-gflops", figure);
}

// lahp Figs. 5-8's bar panels: one group of bars per size, a bar per policy.
struct BarPanel {
  QString title, unit;
  std::vector<QString> series;               // the bars of a group, by policy
  std::vector<std::vector<double>> values;   // [series][group]; NaN where unknown
};

// Okabe-Ito's colour-blind-safe palette, then greys.
QColor bar_color(std::size_t k) {
  static const QColor colors[] = {QColor(230, 159, 0),  QColor(86, 180, 233), QColor(0, 158, 115), QColor(240, 228, 66),
                                  QColor(0, 114, 178),  QColor(213, 94, 0),   QColor(204, 121, 167), QColor(0, 0, 0),
                                  QColor(120, 120, 120), QColor(190, 190, 190)};
  return colors[k % std::size(colors)];
}

// A round step of about a fifth of `top`: 1, 2 or 5 times a power of ten.
double round_step(double top) {
  const double raw = top / 5, power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}

void paint_bars(QPainter& painter, const QRectF& area, const BarPanel& panel, const std::vector<QString>& groups, bool dark) {
  const QColor ink = dark ? QColor(230, 230, 230) : QColor(20, 20, 20), grid = dark ? QColor(70, 70, 78) : QColor(225, 225, 225);
  QFont font = painter.font();
  font.setPixelSize(14);
  painter.setFont(font);
  painter.setPen(ink);
  painter.drawText(QRectF(area.left(), area.top(), area.width(), 26), Qt::AlignCenter, panel.title);
  const QRectF plot(area.left() + 64, area.top() + 34, area.width() - 80, area.height() - 34 - 40);
  double top = 0;
  for (const auto& row : panel.values) {
    for (double v : row) {
      if (std::isfinite(v)) top = std::max(top, v);
    }
  }
  if (top <= 0) top = 1;
  const double step = round_step(top);
  top = std::ceil(top / step) * step;
  for (double tick = 0; tick <= top * 1.0001; tick += step) {
    const double y = plot.bottom() - plot.height() * tick / top;
    painter.setPen(QPen(grid, 1));
    painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    painter.setPen(ink);
    painter.drawText(QRectF(area.left(), y - 10, 58, 20), Qt::AlignRight | Qt::AlignVCenter, QString::number(tick, 'g', 4));
  }
  painter.save();
  painter.translate(area.left() + 12, plot.center().y());
  painter.rotate(-90);
  painter.drawText(QRectF(-plot.height() / 2, -10, plot.height(), 20), Qt::AlignCenter, panel.unit);
  painter.restore();
  const double group_width = plot.width() / static_cast<double>(std::max<std::size_t>(1, groups.size()));
  const double bar = group_width * 0.8 / static_cast<double>(std::max<std::size_t>(1, panel.series.size()));
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const double left = plot.left() + group_width * static_cast<double>(g) + group_width * 0.1;
    for (std::size_t k = 0; k < panel.series.size(); ++k) {
      const double v = panel.values[k][g];
      if (!std::isfinite(v)) continue;
      const double h = plot.height() * v / top;
      painter.fillRect(QRectF(left + bar * static_cast<double>(k), plot.bottom() - h, bar * 0.92, h), bar_color(k));
    }
    painter.setPen(ink);
    painter.drawText(QRectF(left, plot.bottom() + 4, group_width * 0.8, 20), Qt::AlignCenter, groups[g]);
  }
  painter.setPen(QPen(ink, 1));
  painter.drawLine(plot.bottomLeft(), plot.bottomRight());
  painter.drawLine(plot.bottomLeft(), plot.topLeft());
}

// lahp Figs. 6-8 (A-F) and 5 as bar panels: the speedup over the reference, the data moved
// and, where the scheduler counts it, the BMD, per size and policy.
Status draw_bars(const SweepPreset& preset, const std::vector<core::PresetRun>& runs, const QString& base, bool dark, PaperFigure& figure) {
  std::vector<double> xs;
  for (const auto& run : runs) {
    if (std::find(xs.begin(), xs.end(), run.x) == xs.end()) xs.push_back(run.x);
  }
  std::sort(xs.begin(), xs.end());
  std::vector<QString> groups;
  for (double x : xs) groups.push_back(QString::fromStdString((preset.x_param == "N" ? "N = " : "M = ") + format_fixed(x, 0)));
  const auto group_of = [&](double x) { return static_cast<std::size_t>(std::find(xs.begin(), xs.end(), x) - xs.begin()); };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::vector<double>> gflops(preset.policies.size(), std::vector<double>(xs.size(), nan));
  std::vector<std::vector<double>> bytes = gflops, bmd = gflops;
  for (const auto& run : runs) {
    if (!run.run.metrics) continue;
    const auto& s = run.run.metrics->summary;
    gflops[run.policy][group_of(run.x)] = s.gflops;
    bytes[run.policy][group_of(run.x)] = s.bytes_loaded / 1e9;
    if (const auto value = s.scheduler_counter("bmd"); value && s.tasks > 0) {
      bmd[run.policy][group_of(run.x)] = 100.0 * static_cast<double>(*value) / static_cast<double>(s.tasks);
    }
  }
  std::vector<BarPanel> panels;
  std::size_t reference = preset.policies.size();
  for (std::size_t p = 0; p < preset.policies.size(); ++p) {
    if (preset.policies[p].label == preset.speedup_over) reference = p;
  }
  if (reference < preset.policies.size()) {
    BarPanel speedup{"Speedup over " + QString::fromStdString(preset.speedup_over), "speedup", {}, {}};
    for (std::size_t p = 0; p < preset.policies.size(); ++p) {
      if (p == reference) continue;
      speedup.series.push_back(QString::fromStdString(preset.policies[p].label));
      std::vector<double> row(xs.size(), nan);
      for (std::size_t g = 0; g < xs.size(); ++g) row[g] = gflops[reference][g] > 0 ? gflops[p][g] / gflops[reference][g] : nan;
      speedup.values.push_back(row);
    }
    panels.push_back(std::move(speedup));
  }
  BarPanel moved{"Memory transfer", "GB", {}, bytes};
  for (const auto& policy : preset.policies) moved.series.push_back(QString::fromStdString(policy.label));
  panels.push_back(std::move(moved));
  if (preset.counters) {
    BarPanel differences{"BMD: tasks whose push rule changed its node by their pop", "% of the tasks", {}, bmd};
    for (const auto& policy : preset.policies) differences.series.push_back(QString::fromStdString(policy.label));
    panels.push_back(std::move(differences));
  }
  const int panel_height = 380, legend_rows = static_cast<int>((preset.policies.size() + 4) / 5);
  const QSize size(1200, 50 + panel_height * static_cast<int>(panels.size()) + 26 * legend_rows + 10);
  const PaintFunction paint = [&](QPainter& painter, const QRectF& area) {
    painter.fillRect(area, dark ? QColor(30, 30, 34) : QColor(Qt::white));
    painter.setRenderHint(QPainter::Antialiasing, false);
    QFont font = painter.font();
    font.setPixelSize(16);
    painter.setFont(font);
    painter.setPen(dark ? QColor(230, 230, 230) : QColor(20, 20, 20));
    painter.drawText(QRectF(area.left(), area.top(), area.width(), 40), Qt::AlignCenter,
                     QString::fromStdString(preset.figure + ": " + preset.title));
    for (std::size_t k = 0; k < panels.size(); ++k) {
      const QRectF part(area.left(), area.top() + 50 + panel_height * static_cast<double>(k), area.width(), panel_height);
      paint_bars(painter, part, panels[k], groups, dark);
    }
    // One legend for all panels: a policy keeps its colour across them (the speedup panel
    // leaves the reference out, so its colours start one later).
    font.setPixelSize(14);
    painter.setFont(font);
    const double top = area.top() + 50 + panel_height * static_cast<double>(panels.size());
    for (std::size_t p = 0; p < preset.policies.size(); ++p) {
      const double x = area.left() + 70 + 220 * static_cast<double>(p % 5), y = top + 26 * static_cast<double>(p / 5);
      painter.fillRect(QRectF(x, y + 5, 16, 16), bar_color(p));
      painter.drawText(QRectF(x + 22, y, 190, 26), Qt::AlignVCenter | Qt::AlignLeft, QString::fromStdString(preset.policies[p].label));
    }
  };
  return write_all_formats(paint, size, base + "-panels", figure);
}

}  // namespace

Result<PaperFigure> make_paper_figure(const SweepPreset& preset, const QString& database, const QString& base, bool dark,
                                      const std::function<void(const core::SweepProgress&)>& progress) {
  core::SweepGrid grid;
  if (auto status = core::apply_sweep_preset(grid, preset, {}); !status) return status.error();
  core::SweepOptions options;
  options.database = database.toStdString();
  options.on_progress = progress;
  auto report = core::run_sweep(grid, options);
  if (!report) return report.error();
  if (report->failed + report->invalid > 0) {
    return make_error("preset " + preset.name + ": " + std::to_string(report->failed + report->invalid) + " runs failed; first: " + report->first_problem);
  }
  auto store = db::Store::open(options.database, db::Store::OpenMode::ReadOnlyUpgrading);
  if (!store) return store.error();
  auto runs = core::preset_runs(*store, preset, report->sweep_id);
  if (!runs) return runs.error();
  PaperFigure figure;
  figure.sweep_id = report->sweep_id;
  const Status drawn = preset.order_figure ? draw_orders(*store, preset, *runs, base, dark, figure)
                                           : draw_curves(*store, preset, *runs, report->sweep_id, base, dark, figure);
  if (!drawn) return drawn.error();
  if (!preset.speedup_over.empty() || preset.counters) {
    if (auto bars = draw_bars(preset, *runs, base, dark, figure); !bars) return bars.error();
  }
  return figure;
}

}  // namespace tilelens::gui
