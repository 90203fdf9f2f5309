// Painting the tile-order figure; see tile_figure.hpp for the conventions.
#include "app/gui/tile_figure.hpp"

#include <QFont>
#include <QImage>
#include <QFontMetricsF>
#include <QPen>
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace tilelens::gui {
namespace {

// Okabe and Ito's colour-blind-safe hues; vermillion first, the fgcs figures' red.
const QColor kGpuHues[] = {QColor(213, 94, 0),   QColor(0, 114, 178), QColor(0, 158, 115), QColor(204, 121, 167),
                           QColor(86, 180, 233), QColor(230, 159, 0), QColor(240, 228, 66), QColor(110, 110, 110)};
// darts Figs. 8-9's red, green, blue, yellow, magenta, cyan, orange, as Okabe-Ito hues.
const QColor kChunkHues[] = {QColor(213, 94, 0),    QColor(0, 158, 115),  QColor(0, 114, 178), QColor(240, 228, 66),
                             QColor(204, 121, 167), QColor(86, 180, 233), QColor(230, 159, 0)};
constexpr int kLabelPixels = 12;  // 9 pt at 96 dpi: the smallest text a figure carries
const QColor kLoadColor(255, 140, 0);

// From a pale tint (t = 0) to the full, darkened hue (t = 1).
QColor shade(const QColor& hue, double t) {
  t = std::clamp(t, 0.0, 1.0);
  const double pale = 0.88 * (1 - t);
  const double dark = 0.35 * t;
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
  tasks_of_k_.assign(panel_index.size(), {});
  for (const Task& task : run.workload.tasks()) {
    tasks_of_k_[panel_index[task.k]].push_back(static_cast<TaskId>(panel_of_.size()));
    panel_of_.push_back(panel_index[task.k]);
    rows_ = std::max(rows_, task.i + 1);
    cols_ = std::max(cols_, task.j + 1);
  }
  if (panel_k_.empty()) panel_k_.push_back(0);
  if (tasks_of_k_.empty()) tasks_of_k_.emplace_back();
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
  const double title_height = options.title ? TileFigure::title_height(area.height()) : 0.0;
  const double legend_height = options.legend ? TileFigure::legend_height(area.width(), options) : 0.0;
  g.title = QRectF(area.left(), area.top(), area.width(), title_height);
  g.legend = QRectF(area.left(), area.bottom() - legend_height, area.width(), legend_height);
  constexpr double pad = 8;
  const QRectF body = QRectF(area.left(), area.top() + title_height, area.width(), area.height() - title_height - legend_height)
                          .adjusted(pad, pad, -pad, -pad);
  const std::size_t ks = visible_ks(options), sets = split_by_gpu(options) ? run_.gpus : 1, count = ks * sets;
  const bool margins = count == 1 && options.loads;
  g.label = count > 1 ? kLabelPixels + 4.0 : 0.0;
  double gap = count > 1 ? 10.0 : 0.0;
  const double margin_cells = margins ? 1.4 : 0.0;  // fgcs Fig. 4's marks left of and above the grid
  g.margin_cells = margin_cells;
  // One panel gets its row and column indices and the axes' names, in a band of their own,
  // where the figure is large enough to spare it (a thumbnail gives its tiles all the room).
  g.axes = count == 1 && std::min(body.width(), body.height()) >= 200 ? 2.0 * kLabelPixels + 14 : 0.0;
  // The number of panels across that gives the largest tiles; each GPU's set starts a row,
  // unless each set is one panel: then the GPUs sit side by side where that fits best (darts
  // Fig. 13 puts (a) and (b) in a row).
  const bool flat = !split_by_gpu(options) || ks == 1;
  std::size_t best_across = 1;
  double best_cell = 0;
  const auto choose = [&] {
    best_cell = 0;
    for (std::size_t across = 1; across <= std::max<std::size_t>(1, flat ? count : ks); ++across) {
      const std::size_t down = flat ? (count + across - 1) / across : sets * ((ks + across - 1) / across);
      const double w = (body.width() - g.axes - gap * static_cast<double>(across - 1)) / (static_cast<double>(across) * cols_ + margin_cells);
      const double h = (body.height() - g.axes - (g.label + gap) * static_cast<double>(down) + gap) / (static_cast<double>(down) * rows_ + margin_cells);
      const double cell = std::min(w, h);
      if (cell > best_cell) best_cell = cell, best_across = across;
    }
  };
  choose();
  if (best_cell < 1 && g.label > 0) {  // too small for labels and gaps: the tiles get the room
    g.label = 0;
    gap = 1;
    choose();
  }
  g.cell = std::max(0.05, best_cell >= 4 ? std::floor(best_cell) : best_cell);
  const std::size_t across = best_across, per_set = (ks + across - 1) / across, down = flat ? (count + across - 1) / across : sets * per_set;
  const double panel_w = g.cell * cols_, panel_h = g.cell * rows_;
  const double block_w = g.axes + panel_w * static_cast<double>(across) + gap * static_cast<double>(across - 1) + margin_cells * g.cell;
  const double block_h = g.axes + (panel_h + g.label) * static_cast<double>(down) + gap * static_cast<double>(down - 1) + margin_cells * g.cell;
  const double left = std::round(body.left() + (body.width() - block_w) / 2 + g.axes + margin_cells * g.cell);
  const double top = std::round(body.top() + (body.height() - block_h) / 2 + g.axes + margin_cells * g.cell);
  for (std::size_t p = 0; p < count; ++p) {
    const std::size_t set = p / ks, index = p % ks;
    const std::size_t row = flat ? p / across : set * per_set + index / across, column = flat ? p % across : index % across;
    const double x = std::round(left + (panel_w + gap) * static_cast<double>(column));
    const double y = std::round(top + (panel_h + g.label + gap) * static_cast<double>(row) + g.label);
    g.panels.emplace_back(x, y, panel_w, panel_h);
  }
  return g;
}

std::uint32_t TileFigure::chunk_size(const TileOptions& options) const {
  if (options.chunk > 0) return options.chunk;
  const double raw = std::ceil(static_cast<double>(std::max<std::size_t>(1, run_.trace.tasks.size())) / std::size(kChunkHues));
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw) return static_cast<std::uint32_t>(m * power);
  }
  return static_cast<std::uint32_t>(10 * power);
}

// A processed task's hue (an index into the mode's palette) and its place from light to dark.
std::pair<std::size_t, double> TileFigure::color_key(TaskId task, const TileOptions& options, std::uint32_t chunk) const {
  const std::uint32_t order = run_.order_of[task];
  if (options.mode == ColorMode::Chunks) {
    return {(order / chunk) % std::size(kChunkHues), 0.15 + 0.85 * static_cast<double>(order % chunk) / chunk};
  }
  const GpuId gpu = run_.gpu_of[task];
  const double total = std::max<std::uint32_t>(1, run_.gpu_tasks[gpu]);
  return {gpu % std::size(kGpuHues), static_cast<double>(run_.gpu_order_of[task]) / std::max(1.0, total - 1)};
}

QColor TileFigure::task_color(TaskId task, const TileOptions& options) const {
  if (run_.order_of[task] == kNoId) return options.dark ? QColor(60, 60, 60) : QColor(235, 235, 235);
  const auto [hue, t] = color_key(task, options, chunk_size(options));
  return shade(options.mode == ColorMode::Chunks ? kChunkHues[hue] : kGpuHues[hue], t);
}

void TileFigure::paint(QPainter& painter, const QRectF& area, const TileOptions& options) const {
  painter.save();
  painter.setRenderHint(QPainter::Antialiasing, false);
  const QColor background = options.dark ? QColor(30, 30, 34) : QColor(Qt::white);
  painter.fillRect(area, background);
  const Geometry g = layout(area, options);
  if (options.title) paint_title(painter, g.title, options);
  const bool margins = panel_count(options) == 1 && options.loads;
  for (std::size_t p = 0; p < g.panels.size(); ++p) paint_panel(painter, g.panels[p], g.cell, g.label, p, margins, options);
  if (g.axes > 0) paint_axes(painter, g, options);
  if (options.mode == ColorMode::Chunks) paint_memory_square(painter, g, options);
  if (options.highlight) {
    const QRectF rect = tile_rect(area, *options.highlight, options);
    if (!rect.isEmpty()) {
      painter.setPen(QPen(options.dark ? QColor(Qt::white) : QColor(Qt::black), std::max(1.5, g.cell * 0.12)));
      painter.setBrush(Qt::NoBrush);
      painter.drawRect(rect);
    }
  }
  if (options.legend) paint_legend(painter, g.legend, options);
  painter.restore();
}

// The largest font up to 60% of the title band that fits the width, elided below 12 px. The
// run's own title names it by id (a stored run) so that an export says which run it is.
void TileFigure::paint_title(QPainter& painter, const QRectF& band, const TileOptions& options) const {
  painter.save();
  const std::string own = (run_.run.info.id > 0 ? "#" + std::to_string(run_.run.info.id) + " " : "") + run_.title();
  const QString title = QString::fromStdString(options.title_text.empty() ? own : options.title_text);
  QFont font = painter.font();
  int pixels = static_cast<int>(std::max<double>(kLabelPixels, band.height() * 0.6));
  font.setPixelSize(pixels);
  while (pixels > kLabelPixels && QFontMetricsF(font).horizontalAdvance(title) > band.width() * 0.96) font.setPixelSize(--pixels);
  painter.setFont(font);
  painter.setPen(options.dark ? QColor(230, 230, 230) : QColor(20, 20, 20));
  painter.drawText(band, Qt::AlignCenter, QFontMetricsF(font).elidedText(title, Qt::ElideRight, band.width()));
  painter.restore();
}

// A single panel's indices (the tiles' i and j from 0, as the data are named: A(3,1)), every
// tile where they fit, else every 2nd, 5th, 10th, ...; and the axes' names: the rows of A and
// the columns of B for a product, i and j otherwise.
void TileFigure::paint_axes(QPainter& painter, const Geometry& g, const TileOptions& options) const {
  if (g.panels.empty()) return;
  const QRectF& grid = g.panels.front();
  painter.save();
  QFont font = painter.font();
  font.setPixelSize(kLabelPixels);
  painter.setFont(font);
  const QFontMetricsF metrics(font);
  painter.setPen(options.dark ? QColor(200, 200, 200) : QColor(70, 70, 70));
  const double widest = metrics.horizontalAdvance(QString::number(std::max(rows_, cols_) - 1)) + 6;
  std::int32_t step = 1;
  for (const std::int32_t candidate : {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000}) {
    step = candidate;
    if (g.cell * candidate >= std::max(widest, 14.0)) break;
  }
  const double margin = g.margin_cells * g.cell;
  const double number_band = kLabelPixels + 2;
  for (std::int32_t j = 0; j < cols_; j += step) {
    const QRectF box(grid.left() + j * g.cell, grid.top() - margin - number_band, g.cell, number_band);
    painter.drawText(box.adjusted(-20, 0, 20, 0), Qt::AlignHCenter | Qt::AlignBottom, QString::number(j));
  }
  for (std::int32_t i = 0; i < rows_; i += step) {
    const QRectF box(grid.left() - margin - widest - 2, grid.top() + i * g.cell, widest, g.cell);
    painter.drawText(box, Qt::AlignRight | Qt::AlignVCenter, QString::number(i));
  }
  bool a = false, b = false;
  for (const Data& data : run_.workload.data()) a = a || data.matrix == 'A', b = b || data.matrix == 'B';
  const QString across = a && b ? "columns of B (j) \u2192" : "j \u2192";
  const QString down = a && b ? "rows of A (i) \u2192" : "i \u2192";
  const double names_top = grid.top() - margin - number_band - kLabelPixels - 4;
  painter.drawText(QRectF(grid.left(), names_top, grid.width(), kLabelPixels + 2), Qt::AlignLeft | Qt::AlignBottom, across);
  // The rows' name reads downwards along the left side.
  painter.translate(grid.left() - margin - widest - 6, grid.top());
  painter.rotate(90);
  painter.drawText(QRectF(0, 0, grid.height(), kLabelPixels + 2), Qt::AlignLeft | Qt::AlignTop, down);
  painter.restore();
}

// darts Figs. 8-9's memory square, as an outline in the first panel's top-right corner when
// no drawn tile lies under it.
void TileFigure::paint_memory_square(QPainter& painter, const Geometry& g, const TileOptions& options) const {
  if (g.panels.empty() || run_.workload.largest_data_bytes() == 0) return;
  const double tiles = run_.run.info.platform.memory_bytes / static_cast<double>(run_.workload.largest_data_bytes());
  const auto side = static_cast<std::int32_t>(std::ceil(std::sqrt(std::max(0.0, tiles))));
  if (side <= 0 || side >= std::min(rows_, cols_)) return;
  const auto& tasks = run_.workload.tasks();
  for (TaskId t : tasks_of_k_.front()) {
    if (panel_of(t, options) == 0 && tasks[t].i < side && tasks[t].j >= cols_ - side) return;  // would cover data
  }
  const double edge = std::sqrt(tiles) * g.cell;
  const QRectF& first = g.panels.front();
  painter.save();
  painter.setRenderHint(QPainter::Antialiasing, true);
  painter.setPen(QPen(options.dark ? QColor(235, 235, 235) : QColor(Qt::black), std::max(1.5, g.cell * 0.15)));
  painter.setBrush(Qt::NoBrush);
  painter.drawRect(QRectF(first.right() - edge, first.top(), edge, edge).adjusted(1, 1, -1, -1));
  painter.restore();
}

void TileFigure::paint_panel(QPainter& painter, const QRectF& grid, double cell, double label, std::size_t panel, bool margins,
                             const TileOptions& options) const {
  const QColor empty = options.dark ? QColor(45, 45, 50) : QColor(248, 248, 248);
  const QColor line = options.dark ? QColor(70, 70, 78) : QColor(215, 215, 215);
  painter.fillRect(grid, empty);
  // Grid lines as 1-unit rectangles on whole pixels (tiles of 4 px or more are whole pixels):
  // even at any size, and the same in every format.
  if (cell >= 4) {
    for (std::int32_t r = 0; r <= rows_; ++r) painter.fillRect(QRectF(grid.left(), grid.top() + r * cell, grid.width() + 1, 1), line);
    for (std::int32_t c = 0; c <= cols_; ++c) painter.fillRect(QRectF(grid.left() + c * cell, grid.top(), 1, grid.height() + 1), line);
  }
  if (label > 0) {
    QFont font = painter.font();
    font.setPixelSize(kLabelPixels);
    painter.setFont(font);
    painter.setPen(options.dark ? QColor(200, 200, 200) : QColor(70, 70, 70));
    painter.drawText(QRectF(grid.left(), grid.top() - label, grid.width(), label - 2), Qt::AlignLeft | Qt::AlignBottom,
                     split_by_gpu(options) ? QString("%1, k = %2")
                                                               .arg(QString::fromStdString(run_.worker_name(static_cast<GpuId>(panel / visible_ks(options)))))
                                                               .arg(panel_k_[panel % visible_ks(options)])
                                           : QString("k = %1").arg(panel_k_[panel]));
  }
  const auto& tasks = run_.workload.tasks();
  // Tiles under 4 px carry no grid, line or number: on a raster device (the window, a PNG)
  // they are set as the pixels of a rows x cols image drawn over the panel, far cheaper than
  // a rectangle each (a 100,000-task figure repaints within a frame). Vector outputs keep
  // their rectangles.
  const int device = painter.device() ? painter.device()->devType() : 0;
  if (cell < 4 && (device == QInternal::Image || device == QInternal::Widget || device == QInternal::Pixmap)) {
    // At the panel's own pixel size (the grid's corner is on a whole pixel), each tile the
    // block of pixels its rectangle covers: the same tiles as tile_rect() and the vector path.
    const int width = static_cast<int>(std::ceil(grid.width())), height = static_cast<int>(std::ceil(grid.height()));
    QImage pixels(std::max(1, width), std::max(1, height), QImage::Format_ARGB32_Premultiplied);
    pixels.fill(Qt::transparent);
    // The shades as a table of 256 steps per hue, filled as hues appear.
    const bool chunks = options.mode == ColorMode::Chunks;
    const std::uint32_t chunk = chunk_size(options);
    std::vector<std::vector<QRgb>> shades(chunks ? std::size(kChunkHues) : std::size(kGpuHues));
    for (TaskId t : tasks_of_k_[panel % visible_ks(options)]) {
      if (panel_of(t, options) != panel) continue;
      const std::uint32_t order = run_.order_of[t];
      if (order == kNoId || order >= options.limit) continue;
      const auto [hue, level] = color_key(t, options, chunk);
      auto& table = shades[hue];
      if (table.empty()) {
        for (int step = 0; step < 256; ++step) table.push_back(shade(chunks ? kChunkHues[hue] : kGpuHues[hue], step / 255.0).rgba());
      }
      const QRgb colour = table[static_cast<std::size_t>(std::lround(std::clamp(level, 0.0, 1.0) * 255))];
      const int x0 = static_cast<int>(tasks[t].j * cell), x1 = std::min(width, std::max(x0 + 1, static_cast<int>((tasks[t].j + 1) * cell)));
      const int y0 = static_cast<int>(tasks[t].i * cell), y1 = std::min(height, std::max(y0 + 1, static_cast<int>((tasks[t].i + 1) * cell)));
      for (int y = y0; y < y1; ++y) {
        QRgb* row = reinterpret_cast<QRgb*>(pixels.scanLine(y));
        for (int x = x0; x < x1; ++x) row[x] = colour;
      }
    }
    painter.save();
    painter.drawImage(grid.topLeft(), pixels);
    painter.restore();
    return;
  }
  const bool numbers = options.numbers && cell >= 18;
  QFont number_font = painter.font();
  number_font.setPixelSize(static_cast<int>(std::max(7.0, cell * 0.32)));
  const double stroke = std::max(1.0, cell * 0.07);
  // Only the tasks of this panel's layer: a repaint visits each task once, whatever the panels.
  for (TaskId t : tasks_of_k_[panel % visible_ks(options)]) {
    if (panel_of(t, options) != panel) continue;
    const std::uint32_t order = run_.order_of[t];
    if (order == kNoId || order >= options.limit) continue;
    const QRectF tile(grid.left() + tasks[t].j * cell, grid.top() + tasks[t].i * cell, cell, cell);
    const QColor fill = task_color(t, options);
    painter.fillRect(tile.adjusted(cell >= 4 ? 1 : 0, cell >= 4 ? 1 : 0, 0, 0), fill);
    if (options.loads && cell >= 6) {
      painter.setRenderHint(QPainter::Antialiasing, true);  // the lines' true width, in PNG as in PDF
      int vertical = 0, horizontal = 0;
      for (std::uint32_t index : run_.loads_of[t]) {
        const LoadRecord& load = run_.trace.loads[index];
        const Data& data = run_.workload.data()[load.data];
        QPen pen(kLoadColor, stroke, load.kind == LoadKind::Prefetch ? Qt::DotLine : Qt::SolidLine, Qt::FlatCap);
        // On mid-tone and dark tiles orange alone reads poorly: there each mark is drawn over a
        // thin light halo, dash for dash; light tiles need none.
        const bool haloed = qGray(fill.rgb()) < 200;
        QPen halo(QColor(255, 255, 255, 190), stroke * 1.8, Qt::SolidLine, Qt::FlatCap);
        if (load.kind == LoadKind::Prefetch) {
          halo.setDashPattern({1.3 / 1.8, 1.7 / 1.8});  // in halo widths: a dot of 1.3 strokes every 3
          halo.setDashOffset(0.15 / 1.8);
        }
        const auto stroke_twice = [&](auto&& draw) {
          if (haloed) {
            painter.setPen(halo);
            draw();
          }
          painter.setPen(pen);
          draw();
        };
        if (data.matrix == 'A') {
          const double x = tile.left() + cell * (0.5 + 0.18 * vertical++);
          stroke_twice([&] { painter.drawLine(QPointF(x, tile.top() + cell * 0.12), QPointF(x, tile.bottom() - cell * 0.12)); });
        } else if (data.matrix == 'B') {
          const double y = tile.top() + cell * (0.5 + 0.18 * horizontal++);
          stroke_twice([&] { painter.drawLine(QPointF(tile.left() + cell * 0.12, y), QPointF(tile.right() - cell * 0.12, y)); });
        } else {
          painter.setBrush(Qt::NoBrush);
          stroke_twice([&] { painter.drawRect(tile.adjusted(cell * 0.3, cell * 0.3, -cell * 0.3, -cell * 0.3)); });
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
    painter.setRenderHint(QPainter::Antialiasing, false);
    if (numbers) {
      painter.setFont(number_font);
      painter.setPen(is_dark(fill) ? QColor(Qt::white) : QColor(Qt::black));
      // Counted from 1, as the legend ("task 1 ... N") and the slider ("N / N") count.
      painter.drawText(tile, Qt::AlignCenter, QString::number(order + 1));
    }
  }
}

// The legend is a list of groups (a swatch and its words), laid out in rows that break only
// between groups, in 12 px text: it wraps on a narrow figure instead of shrinking or clipping.
struct TileFigure::LegendItem {
  double width = 0;
  std::function<void(QPainter&, double x, double y, double height)> draw;
};

std::vector<TileFigure::LegendItem> TileFigure::legend_items(const TileOptions& options) const {
  const QColor ink = options.dark ? QColor(230, 230, 230) : QColor(20, 20, 20);
  QFont font;
  font.setPixelSize(kLabelPixels);
  const QFontMetricsF metrics(font);
  const double swatch = metrics.height();
  std::vector<LegendItem> items;
  const auto text_item = [&](QString text, double lead, std::function<void(QPainter&, double, double, double)> mark) {
    const double width = lead + metrics.horizontalAdvance(text) + swatch * 0.8;
    items.push_back({width, [=](QPainter& painter, double x, double y, double height) {
                       if (mark) mark(painter, x, y, height);
                       QFont f = painter.font();
                       f.setPixelSize(kLabelPixels);
                       painter.setFont(f);
                       painter.setPen(ink);
                       painter.drawText(QRectF(x + lead, y, width - lead, height), Qt::AlignVCenter | Qt::AlignLeft, text);
                     }});
  };
  if (options.mode == ColorMode::Chunks) {
    const std::uint32_t chunk = chunk_size(options);
    const auto tasks = static_cast<std::uint32_t>(run_.trace.tasks.size());
    const std::uint32_t chunks = (tasks + chunk - 1) / chunk;
    const std::size_t shown = std::min<std::size_t>(std::size(kChunkHues), chunks);
    const double bar = swatch * 1.6;
    text_item(QString("%1 tasks per colour, in order, lighter first:").arg(chunk), 0, {});
    items.push_back({bar * static_cast<double>(shown) + swatch * 0.8, [=](QPainter& painter, double x, double y, double height) {
                       for (std::size_t c = 0; c < shown; ++c) {
                         for (int step = 0; step < 16; ++step) {
                           painter.fillRect(QRectF(x + bar * static_cast<double>(c) + bar * 0.9 * step / 16, y + height / 2 - swatch * 0.4,
                                                   bar * 0.9 / 16 + 0.5, swatch * 0.8),
                                            shade(kChunkHues[c], step / 15.0));
                         }
                       }
                     }});
    if (chunks > shown) text_item("then again", 0, {});
    if (run_.workload.largest_data_bytes() > 0) {
      const double tiles = run_.run.info.platform.memory_bytes / static_cast<double>(run_.workload.largest_data_bytes());
      const QColor square = options.dark ? QColor(235, 235, 235) : QColor(Qt::black);
      text_item(QString("one memory holds %1 tiles").arg(static_cast<long long>(std::floor(tiles))), swatch * 1.2,
                [=](QPainter& painter, double x, double y, double height) {
                  painter.setPen(QPen(square, 1.5));
                  painter.setBrush(Qt::NoBrush);
                  painter.drawRect(QRectF(x + 1, y + height / 2 - swatch * 0.4, swatch * 0.8, swatch * 0.8));
                });
    }
  } else {
    const std::uint32_t workers = std::min<std::uint32_t>(run_.gpus, static_cast<std::uint32_t>(std::size(kGpuHues)));
    for (std::uint32_t g = 0; g < workers; ++g) {
      const std::uint32_t count = run_.gpu_tasks.size() > g ? run_.gpu_tasks[g] : 0;
      if (count == 0) continue;
      const QString head = QString::fromStdString(run_.worker_name(g)) + ": task 1 ";
      const double lead = metrics.horizontalAdvance(head), bar = swatch * 4;
      const QColor hue = kGpuHues[g];
      const QString tail = QString(" %1").arg(count);
      const double width = lead + bar + metrics.horizontalAdvance(tail) + swatch * 0.8;
      items.push_back({width, [=](QPainter& painter, double x, double y, double height) {
                         QFont f = painter.font();
                         f.setPixelSize(kLabelPixels);
                         painter.setFont(f);
                         painter.setPen(ink);
                         painter.drawText(QRectF(x, y, lead, height), Qt::AlignVCenter | Qt::AlignLeft, head);
                         for (int step = 0; step < 16; ++step) {
                           painter.fillRect(QRectF(x + lead + bar * step / 16, y + height / 2 - swatch * 0.4, bar / 16 + 0.5, swatch * 0.8),
                                            shade(hue, step / 15.0));
                         }
                         painter.drawText(QRectF(x + lead + bar, y, width - lead - bar, height), Qt::AlignVCenter | Qt::AlignLeft, tail);
                       }});
    }
  }
  if (options.loads) {
    // The load marks: orange lines, solid for a fetch, dotted for a prefetch.
    for (const auto& [style, text] : {std::pair{Qt::SolidLine, "fetch"}, std::pair{Qt::DotLine, "prefetch"}}) {
      const Qt::PenStyle pen_style = style;
      text_item(text, swatch * 2, [=](QPainter& painter, double x, double y, double height) {
        painter.setRenderHint(QPainter::Antialiasing, true);
        painter.setPen(QPen(kLoadColor, std::max(1.5, swatch * 0.12), pen_style, Qt::FlatCap));
        painter.drawLine(QPointF(x, y + height / 2), QPointF(x + swatch * 1.6, y + height / 2));
        painter.setRenderHint(QPainter::Antialiasing, false);
      });
    }
    bool a = false, b = false;
    for (const Data& data : run_.workload.data()) a = a || data.matrix == 'A', b = b || data.matrix == 'B';
    text_item(a && b ? "(vertical: A, horizontal: B, square: C)" : a ? "(a vertical line per tile loaded)" : "(a square per data loaded)", 0, {});
    // fgcs Fig. 4's margin bars, where a single panel has them.
    if (a && b && panel_count(options) == 1) {
      const QColor bar = shade(kGpuHues[0], 0.6);
      text_item("bars beside the grid: each row of A and column of B loaded, in its task's colour", swatch * 1.2,
                [=](QPainter& painter, double x, double y, double height) {
                  painter.fillRect(QRectF(x + swatch * 0.1, y + height / 2 - swatch * 0.15, swatch * 0.9, swatch * 0.3), bar);
                });
    }
  }
  return items;
}

double TileFigure::legend_height(double width, const TileOptions& options) const {
  const double row = kLabelPixels * 1.9;
  double x = 0;
  int rows = 1;
  for (const LegendItem& item : legend_items(options)) {
    if (x > 0 && x + item.width > width - 16) {
      ++rows;
      x = 0;
    }
    x += item.width;
  }
  return row * rows + 6;
}

void TileFigure::paint_legend(QPainter& painter, const QRectF& area, const TileOptions& options) const {
  painter.save();
  const double row = kLabelPixels * 1.9;
  double x = area.left() + 8, y = area.top() + 3;
  for (const LegendItem& item : legend_items(options)) {
    if (x > area.left() + 8 && x + item.width > area.right() - 8) {
      x = area.left() + 8;
      y += row;
    }
    item.draw(painter, x, y, row);
    x += item.width;
  }
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
    for (TaskId t : tasks_of_k_[p % visible_ks(options)]) {
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
