// The tile-order figure (DESIGN section 6; fgcs Figs. 4, 8-10, 12, 13; darts Figs. 8, 9, 13):
// one panel per layer or outer iteration k (a single panel for matmul2d), each an N x N grid
// of the tasks' (i, j) positions, shaded by processing order. Painted with any QPainter, so
// the widget, the PNG/SVG/PDF export and the tests draw the same picture.
//
// Colours, all from Okabe and Ito's colour-blind-safe set. Order mode (fgcs): each GPU has a
// hue (vermillion for the papers' red, then blue, bluish green, reddish purple, sky blue,
// orange, yellow, grey) and its tasks go from light (first) to dark (last). Chunk mode
// (darts): the first `chunk` tasks vermillion, the next bluish green, then blue, yellow,
// reddish purple, sky blue, orange (darts Figs. 8-9's red, green, blue, yellow, magenta,
// cyan, orange, in that order), cycling, lighter to darker inside a chunk; chunk 0 picks a
// round chunk that needs at most seven colours. Loads attributed to a task: the block-row or
// tile of A it loaded is an orange vertical line, that of B a horizontal one, C a small
// square; solid for a fetch, dotted for a prefetch; on a single-panel figure the margins mark
// the rows and columns loaded, in the colour of the task that loaded them (fgcs Fig. 4). In
// chunk mode the outline of a square with the area of the tiles one memory holds sits in the
// first panel's top-right corner when no tile is drawn there (darts Figs. 8, 9 fill it; an
// outline hides nothing), and the legend gives its size in any case.
//
// Layout: the title on top, the legend below, the panels between them with equal margins,
// as large as they fit, never clipped; one panel set per GPU starts its own row. Tiles of 4 px
// or more are snapped to whole pixels, their grid lines drawn as 1-unit rectangles so the PNG,
// SVG and PDF show the same grid.
#pragma once

#include <QColor>
#include <QPainter>
#include <QRectF>
#include <algorithm>
#include <optional>
#include <string>

#include "app/gui/run_data.hpp"

namespace tilelens::gui {

enum class ColorMode { Order, Chunks };

struct TileOptions {
  ColorMode mode = ColorMode::Order;
  std::uint32_t chunk = 0;  // tasks per colour; 0: a round size that needs at most seven colours
  bool numbers = true;        // order numbers in tiles large enough to hold them
  bool loads = true;          // load lines and margin marks
  bool title = true;
  bool legend = true;         // the colour scale and the load marks, under the panels
  std::uint32_t limit = UINT32_MAX;  // draw only the tasks of order < limit (step-by-step replay)
  std::optional<TaskId> highlight;
  bool dark = false;          // dark background palette
  bool per_gpu = false;       // one panel set per GPU (darts Fig. 13)
  std::uint32_t first_panels = 0;  // only the first K layers or iterations (darts Figs. 8, 9: 1 to 4); 0 for all
  std::string title_text;     // the title drawn; empty for the run's own (RunData::title)
};

// Default colour mode for a run: chunks for the task graphs (darts), order otherwise (fgcs).
ColorMode default_color_mode(const RunData& run);

class TileFigure {
 public:
  explicit TileFigure(const RunData& run);

  void paint(QPainter& painter, const QRectF& area, const TileOptions& options) const;
  // The task drawn under `point` when the figure fills `area`.
  std::optional<TaskId> task_at(const QRectF& area, QPointF point, const TileOptions& options) const;
  // The tile rectangle of a task (for highlighting), empty if the task is not drawn.
  QRectF tile_rect(const QRectF& area, TaskId task, const TileOptions& options) const;
  // The fill colour of a task's tile.
  QColor task_color(TaskId task, const TileOptions& options) const;

  std::size_t panels(const TileOptions& options = {}) const { return panel_count(options); }
  // The tasks per colour in chunk mode (options.chunk, or the automatic size for 0).
  std::uint32_t chunk_size(const TileOptions& options) const;
  // The legend of the figure as `options` draw it: the order's fade or the chunks' colours,
  // and the load lines, wrapped into rows; legend_height() is what it needs at `width`.
  void paint_legend(QPainter& painter, const QRectF& area, const TileOptions& options) const;
  // The figure's title alone, in `band` (a zoomed view keeps it in place).
  void paint_title(QPainter& painter, const QRectF& band, const TileOptions& options) const;
  // The title band's height at a figure's height (what layout() gives it).
  static double title_height(double figure_height) { return std::clamp(figure_height * 0.045, 22.0, 30.0); }
  double legend_height(double width, const TileOptions& options) const;
  const RunData& run() const { return run_; }

 private:
  struct Geometry {
    double cell = 0;  // side of one tile
    double label = 0;  // the band above each panel for its label
    double axes = 0;   // a single panel's band left of and above it: indices and axis names
    double margin_cells = 0;  // fgcs Fig. 4's margin marks, in tiles, between the axes and the grid
    QRectF title, legend;
    std::vector<QRectF> panels;  // the grid area of each panel
  };
  Geometry layout(const QRectF& area, const TileOptions& options) const;
  void paint_axes(QPainter& painter, const Geometry& g, const TileOptions& options) const;
  struct LegendItem;
  std::vector<LegendItem> legend_items(const TileOptions& options) const;
  bool split_by_gpu(const TileOptions& options) const { return options.per_gpu && run_.gpus > 1; }
  std::size_t panel_count(const TileOptions& options) const;
  std::size_t visible_ks(const TileOptions& options) const;
  std::uint32_t panel_of(TaskId task, const TileOptions& options) const;
  std::pair<std::size_t, double> color_key(TaskId task, const TileOptions& options, std::uint32_t chunk) const;
  void paint_panel(QPainter& painter, const QRectF& grid, double cell, double label, std::size_t panel, bool margins,
                   const TileOptions& options) const;
  void paint_memory_square(QPainter& painter, const Geometry& g, const TileOptions& options) const;

  const RunData& run_;
  std::int32_t rows_ = 1, cols_ = 1;      // grid size shared by all panels
  std::vector<std::int32_t> panel_k_;     // the k value of each panel
  std::vector<std::uint32_t> panel_of_;   // per task
  std::vector<std::vector<TaskId>> tasks_of_k_;  // per layer index: its tasks
};

}  // namespace tilelens::gui
