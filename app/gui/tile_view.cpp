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

QRectF TileView::body() const {
  const QRectF whole(rect());
  if (!zoomed()) return whole;
  const double title = options_.title ? TileFigure::title_height(whole.height()) : 0.0;
  const double legend = options_.legend ? figure_->legend_height(whole.width(), options_) : 0.0;
  return QRectF(whole.left(), whole.top() + title, whole.width(), std::max(1.0, whole.height() - title - legend));
}

QRectF TileView::figure_area() const {
  const QRectF base = body();
  return QRectF(base.left() + offset_.x(), base.top() + offset_.y(), base.width() * zoom_, base.height() * zoom_);
}

TileOptions TileView::drawn_options() const {
  TileOptions options = options_;
  if (zoomed()) options.title = options.legend = false;
  return options;
}

QRectF TileView::overview_rect() const {
  if (!zoomed()) return {};
  const QRectF b = body();
  const double w = std::clamp(b.width() * 0.22, 90.0, 220.0), h = w * b.height() / std::max(1.0, b.width());
  return QRectF(b.right() - w - 8, b.bottom() - h - 8, w, h);
}

QRectF TileView::overview_window() const {
  const QRectF overview = overview_rect(), area = figure_area(), b = body();
  if (overview.isEmpty()) return {};
  const auto fraction_x = [&](double x) { return overview.left() + overview.width() * (x - area.left()) / area.width(); };
  const auto fraction_y = [&](double y) { return overview.top() + overview.height() * (y - area.top()) / area.height(); };
  return QRectF(QPointF(fraction_x(b.left()), fraction_y(b.top())), QPointF(fraction_x(b.right()), fraction_y(b.bottom()))).intersected(overview);
}

void TileView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  const QColor background = options_.dark ? QColor(30, 30, 34) : QColor(Qt::white);
  painter.fillRect(rect(), background);
  if (!zoomed()) {
    figure_->paint(painter, figure_area(), options_);
    return;
  }
  const QRectF b = body();
  painter.save();
  painter.setClipRect(b);
  figure_->paint(painter, figure_area(), drawn_options());
  painter.restore();
  // The title and the legend where they were before the zoom.
  if (options_.title) figure_->paint_title(painter, QRectF(0, 0, width(), b.top()), options_);
  if (options_.legend) figure_->paint_legend(painter, QRectF(0, b.bottom(), width(), height() - b.bottom()), options_);
  // The overview: the whole figure, small, with the part in view outlined.
  const QRectF overview = overview_rect();
  TileOptions small = drawn_options();
  small.numbers = small.loads = false;
  small.highlight.reset();
  painter.fillRect(overview.adjusted(-2, -2, 2, 2), background);
  figure_->paint(painter, overview, small);
  painter.setPen(QPen(options_.dark ? QColor(200, 200, 200) : QColor(90, 90, 90), 1));
  painter.setBrush(Qt::NoBrush);
  painter.drawRect(overview.adjusted(-2, -2, 2, 2));
  painter.setPen(QPen(QColor(255, 140, 0), 2));
  painter.drawRect(overview_window());
}

void TileView::mouseMoveEvent(QMouseEvent* event) {
  if (dragging_) {
    offset_ += event->position() - drag_from_;
    drag_from_ = event->position();
    update();
    emit view_changed(zoom_, offset_);
    return;
  }
  const auto task = overview_rect().contains(event->position()) ? std::nullopt : figure_->task_at(figure_area(), event->position(), drawn_options());
  if (task) QToolTip::showText(event->globalPosition().toPoint(), QString::fromStdString(run_->task_tooltip(*task)), this);
  else QToolTip::hideText();
}

void TileView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && overview_rect().contains(event->position())) {
    // A click on the overview centres the view on that point of the figure.
    const QRectF overview = overview_rect(), b = body();
    const double fx = (event->position().x() - overview.left()) / overview.width();
    const double fy = (event->position().y() - overview.top()) / overview.height();
    offset_ = QPointF(b.width() / 2 - fx * b.width() * zoom_, b.height() / 2 - fy * b.height() * zoom_);
    update();
    emit view_changed(zoom_, offset_);
    return;
  }
  if (event->button() == Qt::LeftButton) {
    drag_from_ = event->position();
    dragging_ = false;
    const auto task = figure_->task_at(figure_area(), event->position(), drawn_options());
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
  const QPointF at = event->position() - body().topLeft();
  // Keep the point under the cursor fixed (in the body's coordinates, where the offset lives).
  offset_ = at - (at - offset_) * (zoom / zoom_);
  zoom_ = zoom;
  if (zoom_ == 1) offset_ = {};
  update();
  emit view_changed(zoom_, offset_);
}

}  // namespace tilelens::gui
