// A widget showing one run's tile-order figure: hover shows the task (order, times, loads),
// a click selects it, the wheel zooms around the cursor, dragging pans, double-click resets.
// Zoomed, the title and the legend stay in place and an overview in the corner shows the
// whole figure with the part in view outlined; a click there centres the view on that point.
#pragma once

#include <QWidget>
#include <memory>

#include "app/gui/tile_figure.hpp"

namespace tilelens::gui {

class TileView : public QWidget {
  Q_OBJECT
 public:
  TileView(std::shared_ptr<const RunData> run, QWidget* parent = nullptr);

  const TileOptions& options() const { return options_; }
  void set_options(const TileOptions& options);
  const TileFigure& figure() const { return *figure_; }
  // Shows another run in the same view (the "what if" replays), keeping zoom and options.
  void set_run(std::shared_ptr<const RunData> run);
  std::shared_ptr<const RunData> run() const { return run_; }
  // Zoom and pan shared with another view (side by side).
  void set_view(double zoom, QPointF offset);
  double zoom() const { return zoom_; }
  QPointF offset() const { return offset_; }
  // Where the overview sits while zoomed (empty otherwise), and the part in view drawn in it.
  QRectF overview_rect() const;
  QRectF overview_window() const;

 signals:
  void task_selected(std::optional<TaskId> task);
  void view_changed(double zoom, QPointF offset);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  QSize sizeHint() const override { return {520, 560}; }

 private:
  bool zoomed() const { return zoom_ > 1; }
  // Where the figure's panels may be drawn: the whole widget, or between the fixed title and
  // legend when zoomed.
  QRectF body() const;
  QRectF figure_area() const;
  TileOptions drawn_options() const;  // zoomed: without the title and legend, drawn apart

  std::shared_ptr<const RunData> run_;
  std::unique_ptr<TileFigure> figure_;
  TileOptions options_;
  double zoom_ = 1;
  QPointF offset_;
  QPointF drag_from_;
  bool dragging_ = false;
};

}  // namespace tilelens::gui
