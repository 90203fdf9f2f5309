// A paper's figure from its preset; see paper_figure.hpp.
#include "app/gui/paper_figure.hpp"

#include <QPainter>
#include <map>
#include <memory>

#include "app/gui/curves_page.hpp"
#include "app/gui/figure_export.hpp"
#include "app/gui/tile_figure.hpp"

namespace tilelens::gui {
namespace {

Status write_both(const PaintFunction& paint, QSize size, const QString& stem, PaperFigure& figure) {
  for (const char* extension : {".png", ".pdf"}) {
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
    option.dark = dark;
    option.title_text = policy < layout.captions.size() ? layout.captions[policy] : preset.policies[policy].label;
    option.title_text += ": " + data.back()->title();
    options.push_back(option);
  }
  if (figures.empty()) return make_error("the sweep holds no run of the preset's policies");
  // One panel is 900 x 900; several (layers, iterations) share a squarer 800 x 900, which
  // lays four out 2 x 2 as darts Figs. 8-9; a per-GPU figure puts each GPU's panels side by side.
  const std::size_t panels = figures.front()->panels(options.front());
  const int per_run_width = layout.per_gpu ? static_cast<int>(900 * panels) : panels > 1 ? 800 : 900;
  const int width = per_run_width * static_cast<int>(figures.size());
  const double legend = TileFigure::legend_height(width);
  const int height = static_cast<int>(900 + legend);
  const PaintFunction paint = [&](QPainter& painter, const QRectF& area) {
    painter.fillRect(area, dark ? QColor(30, 30, 34) : QColor(Qt::white));
    const double part = area.width() / static_cast<double>(figures.size());
    const double body = area.height() - legend;
    for (std::size_t k = 0; k < figures.size(); ++k) {
      figures[k]->paint(painter, QRectF(area.left() + part * static_cast<double>(k), area.top(), part, body), options[k]);
    }
    figures.front()->paint_legend(painter, QRectF(area.left(), area.top() + body, area.width(), legend), options.front());
  };
  return write_both(paint, QSize(width, height), base, figure);
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
  if (auto status = write_both(page.paint_function(), page.figure_size(), base + "-transfers", figure); !status) return status;
  page.set_throughput(true);
  return write_both(page.paint_function(), page.figure_size(), base + "-gflops", figure);
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
  return figure;
}

}  // namespace tilelens::gui
