// Painting the tile-order figure; see tile_figure.hpp for the conventions.
#include "app/gui/tile_figure.hpp"

#include <QFont>
#include <QFontMetricsF>
#include <QPen>
#include <algorithm>
#include <cmath>
#include <map>

namespace tilelens::gui {
namespace {

// GPU hues as in HFP.c's figures: red, green, a lighter blue, yellow, cyan, magenta, ...
const QColor kGpuHues[] = {QColor(220, 30, 30), QColor(30, 160, 60), QColor(73, 116, 255), QColor(220, 190, 0),
                           QColor(0, 190, 200), QColor(200, 40, 200), QColor(255, 128, 128), QColor(128, 200, 128)};
// darts Figs. 8-9: red, green, blue, yellow, magenta, cyan, orange.
const QColor kChunkHues[] = {QColor(220, 30, 30), QColor(30, 160, 60), QColor(40, 80, 230), QColor(230, 200, 0),
                             QColor(200, 40, 200), QColor(0, 190, 200), QColor(255, 140, 0)};
const QColor kLoadColor(255, 140, 0);

// From a pale tint (t = 0) to the full, darkened hue (t = 1).
QColor shade(const QColor& hue, double t) {
  t = std::clamp(t, 0.0, 1.0);
  const double pale = 0.85 * (1 - t);
  const double dark = 0.45 * t;
  auto mix = [&](int c) { return static_cast<int>(std::lround((c + (255 - c) * pale) * (1 - dark))); };
  return QColor(mix(hue.red()), mix(hue.green()), mix(hue.blue()));
}

bool is_dark(const QColor& c) { return 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue() < 128; }

}  // namespace

ColorMode default_color_mode(const RunData& run) {
  const std::string& name = run.workload.generator().name;
  return name.rfind("matmul", 0) == 0 || run.workload.task_count() < 1000 ? ColorMode::Order : ColorMode::Chunks;
}

TileFigure::TileFigure(const RunData& run) : run_(run) {
  std::map<std::int32_t, std::uint32_t> panel_index;
  for (const Task& task : run.workload.tasks()) panel_index.emplace(task.k, 0);
  for (auto& [k, index] : panel_index) {
    index = static_cast<std::uint32_t>(panel_k_.size());
    panel_k_.push_back(k);
  }
  panel_of_.reserve(run.workload.task_count());
  for (const Task& task : run.workload.tasks()) {
    panel_of_.push_back(panel_index[task.k]);
    rows_ = std::max(rows_, task.i + 1);
    cols_ = std::max(cols_, task.j + 1);
  }
  if (panel_k_.empty()) panel_k_.push_back(0);
}

std::size_t TileFigure::visible_ks(const TileOptions& options) const {
  return options.first_panels > 0 ? std::min<std::size_t>(options.first_panels, panel_k_.size()) : panel_k_.size();
}

std::size_t TileFigure::panel_count(const TileOptions& options) const {
  return visible_ks(options) * (split_by_gpu(options) ? run_.gpus : 1);
}

// With one panel set per GPU, GPU g's panels come after those of GPUs 0..g-1. A task of a
// layer beyond the visible ones has no panel (kNoId).
std::uint32_t TileFigure::panel_of(TaskId task, const TileOptions& options) const {
  const auto visible = static_cast<std::uint32_t>(visible_ks(options));
  if (panel_of_[task] >= visible) return kNoId;
  if (!split_by_gpu(options)) return panel_of_[task];
  return run_.gpu_of[task] * visible + panel_of_[task];
}

TileFigure::Geometry TileFigure::layout(const QRectF& area, const TileOptions& options) const {
  Geometry g;
  const double title_height = options.title ? std::clamp(area.height() * 0.05, 14.0, 28.0) : 0.0;
  g.title = QRectF(area.left(), area.top(), area.width(), title_height);
  const QRectF body(area.left(), area.top() + title_height, area.width(), area.height() - title_height);
  const std::size_t count = panel_count(options);
  const auto panel_cols = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(count) * body.width() / std::max(1.0, body.height()))));
  const std::size_t across = std::clamp<std::size_t>(panel_cols, 1, count);
  const std::size_t down = (count + across - 1) / across;
  const bool margins = count == 1 && options.loads;
  // Each panel: a margin for load marks (single panel) or a gap, then cols x rows tiles.
  const double gap_cells = margins ? 1.2 : count > 1 ? 1.5 : 0.6;  // room for the load marks or the "k = " labels
  const double cell_w = body.width() / (static_cast<double>(across) * (cols_ + gap_cells));
  const double cell_h = body.height() / (static_cast<double>(down) * (rows_ + gap_cells));
  g.cell = std::max(0.5, std::min(cell_w, cell_h));
  g.margin = g.cell * gap_cells;
  const double panel_w = g.cell * (cols_ + gap_cells), panel_h = g.cell * (rows_ + gap_cells);
  const double left = body.left() + (body.width() - panel_w * static_cast<double>(across)) / 2;
  const double top = body.top() + (body.height() - panel_h * static_cast<double>(down)) / 2;
  for (std::size_t p = 0; p < count; ++p) {
    const double x = left + panel_w * static_cast<double>(p % across) + g.margin;
    const double y = top + panel_h * static_cast<double>(p / across) + g.margin;
    g.panels.emplace_back(x, y, g.cell * cols_, g.cell * rows_);
  }
  return g;
}

QColor TileFigure::task_color(TaskId task, const TileOptions& options) const {
  const std::uint32_t order = run_.order_of[task];
  if (order == kNoId) return options.dark ? QColor(60, 60, 60) : QColor(235, 235, 235);
  if (options.mode == ColorMode::Chunks) {
    const std::uint32_t chunk = std::max<std::uint32_t>(1, options.chunk);
    const QColor& hue = kChunkHues[(order / chunk) % std::size(kChunkHues)];
    return shade(hue, 0.15 + 0.85 * static_cast<double>(order % chunk) / chunk);
  }
  const GpuId gpu = run_.gpu_of[task];
  const QColor& hue = kGpuHues[gpu % std::size(kGpuHues)];
  const double total = std::max<std::uint32_t>(1, run_.gpu_tasks[gpu]);
  return shade(hue, static_cast<double>(run_.gpu_order_of[task]) / std::max(1.0, total - 1));
}

void TileFigure::paint(QPainter& painter, const QRectF& area, const TileOptions& options) const {
  painter.save();
  painter.setRenderHint(QPainter::Antialiasing, false);
  const QColor background = options.dark ? QColor(30, 30, 34) : QColor(Qt::white);
  const QColor ink = options.dark ? QColor(230, 230, 230) : QColor(20, 20, 20);
  painter.fillRect(area, background);
  const Geometry g = layout(area, options);
  if (options.title) {
    // The largest font up to 60% of the title band that fits the width, elided below 8 px.
    const QString title = QString::fromStdString(options.title_text.empty() ? run_.title() : options.title_text);
    QFont font = painter.font();
    int pixels = static_cast<int>(std::max(8.0, g.title.height() * 0.6));
    font.setPixelSize(pixels);
    while (pixels > 8 && QFontMetricsF(font).horizontalAdvance(title) > g.title.width() * 0.96) font.setPixelSize(--pixels);
    painter.setFont(font);
    painter.setPen(ink);
    painter.drawText(g.title, Qt::AlignCenter, QFontMetricsF(font).elidedText(title, Qt::ElideRight, g.title.width()));
  }
  const bool margins = panel_count(options) == 1 && options.loads;
  for (std::size_t p = 0; p < g.panels.size(); ++p) paint_panel(painter, g.panels[p], g.cell, p, margins, options);
  if (options.mode == ColorMode::Chunks && !g.panels.empty() && run_.workload.largest_data_bytes() > 0) {
    // darts Figs. 8-9: a black square in the first panel's top-right corner whose area is the
    // number of tiles that fit in one GPU's memory.
    const double tiles = run_.run.info.platform.memory_bytes / static_cast<double>(run_.workload.largest_data_bytes());
    const double side = std::min<double>(std::min(rows_, cols_), std::sqrt(std::max(0.0, tiles))) * g.cell;
    const QRectF& first = g.panels.front();
    painter.fillRect(QRectF(first.right() - side, first.top(), side, side), options.dark ? QColor(235, 235, 235) : QColor(Qt::black));
  }
  if (options.highlight) {
    const QRectF rect = tile_rect(area, *options.highlight, options);
    if (!rect.isEmpty()) {
      painter.setPen(QPen(options.dark ? QColor(Qt::white) : QColor(Qt::black), std::max(1.5, g.cell * 0.12)));
      painter.setBrush(Qt::NoBrush);
      painter.drawRect(rect);
    }
  }
  painter.restore();
}

void TileFigure::paint_panel(QPainter& painter, const QRectF& grid, double cell, std::size_t panel, bool margins,
                             const TileOptions& options) const {
  const QColor empty = options.dark ? QColor(45, 45, 50) : QColor(248, 248, 248);
  const QColor line = options.dark ? QColor(70, 70, 78) : QColor(215, 215, 215);
  painter.fillRect(grid, empty);
  painter.setPen(QPen(line, 0));
  if (cell >= 4) {
    for (std::int32_t r = 0; r <= rows_; ++r) painter.drawLine(QPointF(grid.left(), grid.top() + r * cell), QPointF(grid.right(), grid.top() + r * cell));
    for (std::int32_t c = 0; c <= cols_; ++c) painter.drawLine(QPointF(grid.left() + c * cell, grid.top()), QPointF(grid.left() + c * cell, grid.bottom()));
  }
  if (panel_count(options) > 1 && cell * rows_ > 40) {
    QFont font = painter.font();
    font.setPixelSize(static_cast<int>(std::clamp(cell * 0.9, 7.0, 14.0)));
    painter.setFont(font);
    painter.setPen(options.dark ? QColor(200, 200, 200) : QColor(80, 80, 80));
    painter.drawText(QRectF(grid.left(), grid.top() - cell * 1.3, grid.width(), cell * 1.2), Qt::AlignLeft | Qt::AlignBottom,
                     split_by_gpu(options) ? QString("%1, k = %2")
                                                               .arg(QString::fromStdString(run_.worker_name(static_cast<GpuId>(panel / visible_ks(options)))))
                                                               .arg(panel_k_[panel % visible_ks(options)])
                                           : QString("k = %1").arg(panel_k_[panel]));
  }
  const auto& tasks = run_.workload.tasks();
  const bool numbers = options.numbers && cell >= 18;
  QFont number_font = painter.font();
  number_font.setPixelSize(static_cast<int>(std::max(7.0, cell * 0.32)));
  const double stroke = std::max(1.0, cell * 0.07);
  for (TaskId t = 0; t < tasks.size(); ++t) {
    if (panel_of(t, options) != panel) continue;
    const std::uint32_t order = run_.order_of[t];
    if (order == kNoId || order >= options.limit) continue;
    const QRectF tile(grid.left() + tasks[t].j * cell, grid.top() + tasks[t].i * cell, cell, cell);
    const QColor fill = task_color(t, options);
    painter.fillRect(tile.adjusted(cell >= 4 ? 0.5 : 0, cell >= 4 ? 0.5 : 0, 0, 0), fill);
    if (options.loads && cell >= 6) {
      int vertical = 0, horizontal = 0;
      for (std::uint32_t index : run_.loads_of[t]) {
        const LoadRecord& load = run_.trace.loads[index];
        const Data& data = run_.workload.data()[load.data];
        QPen pen(kLoadColor, stroke, load.kind == LoadKind::Prefetch ? Qt::DotLine : Qt::SolidLine, Qt::FlatCap);
        painter.setPen(pen);
        if (data.matrix == 'A') {
          const double x = tile.left() + cell * (0.5 + 0.18 * vertical++);
          painter.drawLine(QPointF(x, tile.top() + cell * 0.12), QPointF(x, tile.bottom() - cell * 0.12));
        } else if (data.matrix == 'B') {
          const double y = tile.top() + cell * (0.5 + 0.18 * horizontal++);
          painter.drawLine(QPointF(tile.left() + cell * 0.12, y), QPointF(tile.right() - cell * 0.12, y));
        } else {
          painter.setBrush(Qt::NoBrush);
          painter.drawRect(tile.adjusted(cell * 0.3, cell * 0.3, -cell * 0.3, -cell * 0.3));
        }
        if (margins) {
          // fgcs Fig. 4: rows of A loaded are marked on the left margin, columns of B on the top.
          painter.setPen(QPen(fill, std::max(2.0, cell * 0.2), Qt::SolidLine, Qt::FlatCap));
          if (data.matrix == 'A') {
            const double y = grid.top() + (data.row >= 0 ? data.row : tasks[t].i) * cell;
            const double x = grid.left() - cell * 0.35 - cell * 0.22 * (vertical - 1);
            painter.drawLine(QPointF(x, y + cell * 0.1), QPointF(x, y + cell * 0.9));
          } else if (data.matrix == 'B') {
            const double x = grid.left() + (data.col >= 0 ? data.col : tasks[t].j) * cell;
            const double y = grid.top() - cell * 0.35 - cell * 0.22 * (horizontal - 1);
            painter.drawLine(QPointF(x + cell * 0.1, y), QPointF(x + cell * 0.9, y));
          }
        }
      }
    }
    if (numbers) {
      painter.setFont(number_font);
      painter.setPen(is_dark(fill) ? QColor(Qt::white) : QColor(Qt::black));
      painter.drawText(tile, Qt::AlignCenter, QString::number(order));
    }
  }
}

double TileFigure::legend_height(double width) { return std::clamp(width * 0.05, 28.0, 44.0); }

void TileFigure::paint_legend(QPainter& painter, const QRectF& area, const TileOptions& options) const {
  painter.save();
  painter.setRenderHint(QPainter::Antialiasing, true);
  const QColor ink = options.dark ? QColor(230, 230, 230) : QColor(20, 20, 20);
  QFont font = painter.font();
  // Laid out twice: once to measure at the largest size, then drawn at the size that fits.
  const auto lay_out = [&](bool draw, int pixels) {
    font.setPixelSize(pixels);
    painter.setFont(font);
    const QFontMetricsF metrics(font);
    const double swatch = metrics.height();
    const double y = area.center().y();
    double x = area.left() + swatch * 0.5;
    const auto label = [&](const QString& text) {
      if (draw) {
        painter.setPen(ink);
        painter.drawText(QRectF(x, area.top(), metrics.horizontalAdvance(text) + 2, area.height()), Qt::AlignVCenter | Qt::AlignLeft, text);
      }
      x += metrics.horizontalAdvance(text) + swatch * 0.9;
    };
    // The fade from first to last task, or the chunks' colours.
    const auto ramp = [&](const QColor& hue, double width) {
      for (int step = 0; draw && step < 16; ++step) {
        painter.fillRect(QRectF(x + width * step / 16, y - swatch * 0.4, width / 16 + 0.5, swatch * 0.8), shade(hue, step / 15.0));
      }
      x += width + swatch * 0.3;
    };
    if (options.mode == ColorMode::Chunks) {
      const std::uint32_t chunk = std::max<std::uint32_t>(1, options.chunk);
      const auto tasks = static_cast<std::uint32_t>(run_.trace.tasks.size());
      const std::uint32_t chunks = (tasks + chunk - 1) / chunk;
      const std::size_t shown = std::min<std::size_t>(std::size(kChunkHues), chunks);
      label(QString("tasks in order, %1 per colour, lighter first:").arg(chunk));
      for (std::size_t c = 0; c < shown; ++c) ramp(kChunkHues[c], swatch * 1.6);
      if (chunks > shown) label("then again");
      if (run_.workload.largest_data_bytes() > 0) {
        if (draw) painter.fillRect(QRectF(x, y - swatch * 0.4, swatch * 0.8, swatch * 0.8), options.dark ? QColor(235, 235, 235) : QColor(Qt::black));
        x += swatch * 1.1;
        label("area of the tiles one memory holds");
      }
    } else {
      const std::uint32_t workers = std::min<std::uint32_t>(run_.gpus, static_cast<std::uint32_t>(std::size(kGpuHues)));
      for (std::uint32_t g = 0; g < workers; ++g) {
        if (run_.gpu_tasks.size() > g && run_.gpu_tasks[g] == 0) continue;
        label(QString::fromStdString(run_.worker_name(g)) + ": first");
        ramp(kGpuHues[g], swatch * 4);
        label("last");
      }
    }
    if (options.loads) {
      // The load marks: orange lines, solid for a fetch, dotted for a prefetch.
      const double stroke = std::max(1.5, swatch * 0.12);
      for (const auto& [style, text] : {std::pair{Qt::SolidLine, "fetch"}, std::pair{Qt::DotLine, "prefetch"}}) {
        if (draw) {
          painter.setPen(QPen(kLoadColor, stroke, style, Qt::FlatCap));
          painter.drawLine(QPointF(x, y), QPointF(x + swatch * 1.6, y));
        }
        x += swatch * 2;
        label(text);
      }
      label(run_.workload.generator().name.rfind("matmul", 0) == 0 ? "(vertical: A, horizontal: B, square: C)" : "(a square per tile loaded)");
    }
    return x - area.left();
  };
  const int largest = static_cast<int>(std::clamp(area.height() * 0.42, 12.0, 18.0));
  const double needed = lay_out(false, largest);
  const int pixels = needed <= area.width() ? largest : std::max(7, static_cast<int>(largest * area.width() / needed));
  lay_out(true, pixels);
  painter.restore();
}

std::optional<TaskId> TileFigure::task_at(const QRectF& area, QPointF point, const TileOptions& options) const {
  const Geometry g = layout(area, options);
  for (std::size_t p = 0; p < g.panels.size(); ++p) {
    const QRectF& grid = g.panels[p];
    if (!grid.contains(point)) continue;
    const auto j = static_cast<std::int32_t>((point.x() - grid.left()) / g.cell);
    const auto i = static_cast<std::int32_t>((point.y() - grid.top()) / g.cell);
    const auto& tasks = run_.workload.tasks();
    for (TaskId t = 0; t < tasks.size(); ++t) {
      if (panel_of(t, options) == p && tasks[t].i == i && tasks[t].j == j && run_.order_of[t] != kNoId && run_.order_of[t] < options.limit) return t;
    }
  }
  return std::nullopt;
}

QRectF TileFigure::tile_rect(const QRectF& area, TaskId task, const TileOptions& options) const {
  if (task >= panel_of_.size() || panel_of(task, options) == kNoId) return {};
  const Geometry g = layout(area, options);
  const QRectF& grid = g.panels[panel_of(task, options)];
  const Task& t = run_.workload.tasks()[task];
  return QRectF(grid.left() + t.j * g.cell, grid.top() + t.i * g.cell, g.cell, g.cell);
}

}  // namespace tilelens::gui
