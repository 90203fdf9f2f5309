// The tile-order widget.
#include "app/gui/tile_view.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

namespace tilelens::gui {

TileView::TileView(std::shared_ptr<const RunData> run, QWidget* parent)
    : QWidget(parent), run_(std::move(run)), figure_(std::make_unique<TileFigure>(*run_)) {
  options_.mode = default_color_mode(*run_);
  setMouseTracking(true);
  setMinimumSize(80, 80);  // side by side in a narrow window: the figure shrinks, the window does not grow
  setFocusPolicy(Qt::ClickFocus);
}

void TileView::set_run(std::shared_ptr<const RunData> run) {
  auto figure = std::make_unique<TileFigure>(*run);
  figure_ = std::move(figure);
  run_ = std::move(run);
  options_.highlight.reset();
  update();
}

void TileView::set_options(const TileOptions& options) {
  options_ = options;
  update();
}

void TileView::set_view(double zoom, QPointF offset) {
  if (zoom == zoom_ && offset == offset_) return;
  zoom_ = zoom;
  offset_ = offset;
  update();
}

QRectF TileView::figure_area() const {
  const QRectF base(rect());
  return QRectF(base.left() + offset_.x(), base.top() + offset_.y(), base.width() * zoom_, base.height() * zoom_);
}

void TileView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(rect(), options_.dark ? QColor(30, 30, 34) : QColor(Qt::white));
  figure_->paint(painter, figure_area(), options_);
}

void TileView::mouseMoveEvent(QMouseEvent* event) {
  if (dragging_) {
    offset_ += event->position() - drag_from_;
    drag_from_ = event->position();
    update();
    emit view_changed(zoom_, offset_);
    return;
  }
  const auto task = figure_->task_at(figure_area(), event->position(), options_);
  if (task) QToolTip::showText(event->globalPosition().toPoint(), QString::fromStdString(run_->task_tooltip(*task)), this);
  else QToolTip::hideText();
}

void TileView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    drag_from_ = event->position();
    dragging_ = false;
    const auto task = figure_->task_at(figure_area(), event->position(), options_);
    options_.highlight = task;
    update();
    emit task_selected(task);
  } else if (event->button() == Qt::MiddleButton || event->button() == Qt::RightButton) {
    drag_from_ = event->position();
    dragging_ = true;
  }
}

void TileView::mouseReleaseEvent(QMouseEvent*) { dragging_ = false; }

void TileView::mouseDoubleClickEvent(QMouseEvent*) {
  zoom_ = 1;
  offset_ = {};
  update();
  emit view_changed(zoom_, offset_);
}

void TileView::wheelEvent(QWheelEvent* event) {
  const double factor = event->angleDelta().y() > 0 ? 1.25 : 0.8;
  const double zoom = std::clamp(zoom_ * factor, 1.0, 40.0);
  const QPointF at = event->position();
  // Keep the point under the cursor fixed.
  offset_ = at - (at - offset_) * (zoom / zoom_);
  zoom_ = zoom;
  if (zoom_ == 1) offset_ = {};
  update();
  emit view_changed(zoom_, offset_);
}

}  // namespace tilelens::gui
