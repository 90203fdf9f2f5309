// Painting and hovering the "where time went" bars; see time_split_view.hpp.
#include "app/gui/time_split_view.hpp"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>

#include "app/gui/tooltip.hpp"
#include "app/gui/worker_states.hpp"
#include "core/units.hpp"

namespace tilelens::gui {
namespace {

constexpr double kTitleHeight = 22, kLegendHeight = 24, kLabelWidth = 110;
constexpr WorkerState kStates[] = {WorkerState::Busy, WorkerState::WaitingForData, WorkerState::NoReadyTask, WorkerState::SchedulerCost};

}  // namespace

std::size_t TimeSplitFigure::rows() const {
  const std::size_t workers = run_.time_split.workers.size();
  return workers > 1 ? workers + 1 : workers;
}

int TimeSplitFigure::height_for(int bar) const {
  return static_cast<int>(kTitleHeight + kLegendHeight) + 8 + static_cast<int>(rows()) * (bar + 4);
}

TimeSplitFigure::Layout TimeSplitFigure::layout(const QRectF& area) const {
  const double rows_height = std::max(1.0, area.height() - kTitleHeight - kLegendHeight - 8);
  const double row = std::min(30.0, rows_height / static_cast<double>(std::max<std::size_t>(1, rows())));
  return {area.top() + kTitleHeight, area.left() + kLabelWidth, std::max(1.0, area.width() - kLabelWidth - 12), row};
}

const WorkerTime& TimeSplitFigure::row_time(std::size_t row, WorkerTime& scratch) const {
  if (row < run_.time_split.workers.size()) return run_.time_split.workers[row];
  scratch = run_.time_split.all();
  return scratch;
}

QString TimeSplitFigure::row_name(std::size_t row) const {
  if (row < run_.time_split.workers.size()) return QString::fromStdString(run_.worker_name(static_cast<GpuId>(row)));
  return "all workers";
}

QRectF TimeSplitFigure::segment_rect(const QRectF& area, std::size_t row, WorkerState state) const {
  const Layout l = layout(area);
  WorkerTime scratch;
  const WorkerTime& time = row_time(row, scratch);
  const double total = static_cast<double>(std::max<std::int64_t>(1, time.total()));
  double x = l.left;
  for (const WorkerState s : kStates) {
    const double w = l.width * static_cast<double>(time.of(s)) / total;
    if (s == state) return w > 0 ? QRectF(x, l.top + static_cast<double>(row) * l.row_height + 2, w, l.row_height - 4) : QRectF();
    x += w;
  }
  return {};
}

void TimeSplitFigure::paint(QPainter& painter, const QRectF& area, bool dark) const {
  painter.save();
  const QColor background = dark ? QColor(30, 30, 34) : QColor(Qt::white);
  const QColor ink = dark ? QColor(225, 225, 225) : QColor(30, 30, 30);
  painter.fillRect(area, background);
  QFont font = painter.font();
  font.setPixelSize(12);
  painter.setFont(font);
  const QFontMetricsF metrics(font);
  painter.setPen(ink);
  const QString title = QString("where time went, 0 to %1: %2")
                            .arg(QString::fromStdString(format_duration(run_.time_split.span_ns)))
                            .arg(QString::fromStdString((run_.run.info.id > 0 ? "#" + std::to_string(run_.run.info.id) + " " : "") + run_.title()));
  painter.drawText(QRectF(area.left() + 6, area.top(), area.width() - 12, kTitleHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   metrics.elidedText(title, Qt::ElideRight, area.width() - 12));
  const Layout l = layout(area);
  for (std::size_t row = 0; row < rows(); ++row) {
    const double y = l.top + static_cast<double>(row) * l.row_height;
    painter.setPen(ink);
    painter.drawText(QRectF(area.left() + 4, y, kLabelWidth - 10, l.row_height), Qt::AlignVCenter | Qt::AlignRight, row_name(row));
    WorkerTime scratch;
    const WorkerTime& time = row_time(row, scratch);
    for (const WorkerState state : kStates) {
      const QRectF segment = segment_rect(area, row, state);
      if (segment.isEmpty()) continue;
      // A hatched brush leaves gaps: the lane's background shows through, as in the timeline.
      painter.fillRect(segment, worker_state_brush(WorkerState::NoReadyTask, dark));
      painter.fillRect(segment, worker_state_brush(state, dark));
      const double share = 100.0 * static_cast<double>(time.of(state)) / static_cast<double>(std::max<std::int64_t>(1, time.total()));
      const QString text = QString::number(share, 'f', share < 10 ? 1 : 0) + "%";
      if (metrics.horizontalAdvance(text) + 6 > segment.width() || segment.height() < 12) continue;
      // The share on a plate of the background, readable over any hatch.
      const double w = metrics.horizontalAdvance(text) + 4;
      const QRectF plate(segment.center().x() - w / 2, segment.center().y() - 7, w, 14);
      painter.fillRect(plate, state == WorkerState::Busy ? worker_state_brush(state, dark).color() : background);
      painter.setPen(state == WorkerState::Busy ? QColor(Qt::white) : ink);
      painter.drawText(plate, Qt::AlignCenter, text);
    }
  }
  // The legend, in the order of the bars.
  double x = area.left() + kLabelWidth;
  const double legend_y = l.top + static_cast<double>(rows()) * l.row_height + 6;
  for (const WorkerState state : kStates) {
    const QRectF swatch(x, legend_y + 3, 14, 10);
    painter.fillRect(swatch, worker_state_brush(WorkerState::NoReadyTask, dark));
    painter.fillRect(swatch, worker_state_brush(state, dark));
    painter.setPen(QPen(ink, 0.5));
    painter.drawRect(swatch);
    const QString text = to_string(state);
    const double w = metrics.horizontalAdvance(text);
    painter.setPen(ink);
    painter.drawText(QRectF(x + 18, legend_y, w + 2, 16), Qt::AlignVCenter | Qt::AlignLeft, text);
    x += 18 + w + 16;
  }
  painter.restore();
}

std::optional<std::pair<std::size_t, WorkerState>> TimeSplitFigure::segment_at(const QRectF& area, QPointF point) const {
  for (std::size_t row = 0; row < rows(); ++row) {
    for (const WorkerState state : kStates) {
      if (segment_rect(area, row, state).contains(point)) return std::pair{row, state};
    }
  }
  return std::nullopt;
}

std::optional<TaskId> TimeSplitFigure::task_of(std::size_t row, WorkerState state) const {
  const bool every_worker = row >= run_.time_split.workers.size();
  const auto on_row = [&](GpuId worker) { return every_worker || worker == row; };
  if (state == WorkerState::Busy) {
    const TaskRecord* longest = nullptr;
    for (const TaskRecord& t : run_.trace.tasks) {
      if (on_row(t.gpu) && (!longest || t.end_ns - t.start_ns > longest->end_ns - longest->start_ns)) longest = &t;
    }
    return longest ? std::optional<TaskId>(longest->task) : std::nullopt;
  }
  const StateInterval* longest = nullptr;
  for (const StateInterval& idle : run_.time_split.idle) {
    if (idle.state == state && on_row(idle.worker) && (!longest || idle.end_ns - idle.begin_ns > longest->end_ns - longest->begin_ns)) {
      longest = &idle;
    }
  }
  if (!longest) return std::nullopt;
  const TaskRecord* next = nullptr;  // the worker's first task to start once the wait ended
  for (const TaskRecord& t : run_.trace.tasks) {
    if (t.gpu == longest->worker && t.start_ns >= longest->end_ns && (!next || t.start_ns < next->start_ns)) next = &t;
  }
  return next ? std::optional<TaskId>(next->task) : std::nullopt;
}

QString TimeSplitFigure::tooltip_at(const QRectF& area, QPointF point) const {
  const auto segment = segment_at(area, point);
  if (!segment) return {};
  const auto [row, state] = *segment;
  WorkerTime scratch;
  const WorkerTime& time = row_time(row, scratch);
  const double share = 100.0 * static_cast<double>(time.of(state)) / static_cast<double>(std::max<std::int64_t>(1, time.total()));
  const auto task = task_of(row, state);
  const QString click = !task                          ? QString()
                        : state == WorkerState::Busy ? QString("\nclick: mark the longest task, %1").arg(QString::fromStdString(run_.workload.task_label(*task)))
                                                       : QString("\nclick: mark the task the longest such wait held back, %1")
                                                             .arg(QString::fromStdString(run_.workload.task_label(*task)));
  return QString("%1: %2, %3 (%4% of %5)\n%6%7")
      .arg(row_name(row))
      .arg(to_string(state))
      .arg(QString::fromStdString(format_duration(time.of(state))))
      .arg(share, 0, 'f', 1)
      .arg(QString::fromStdString(format_duration(time.total())))
      .arg(worker_state_meaning(state))
      .arg(click);
}

TimeSplitView::TimeSplitView(std::shared_ptr<const RunData> run, QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumHeight(70);
  set_run(std::move(run));
}

void TimeSplitView::set_run(std::shared_ptr<const RunData> run) {
  figure_ = std::make_unique<TimeSplitFigure>(*run);
  run_ = std::move(run);
  updateGeometry();
  update();
}

void TimeSplitView::set_dark(bool dark) {
  dark_ = dark;
  update();
}

QSize TimeSplitView::sizeHint() const { return {600, std::min(260, figure_->height_for(16))}; }

void TimeSplitView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  figure_->paint(painter, QRectF(rect()), dark_);
}

void TimeSplitView::mousePressEvent(QMouseEvent* event) {
  const auto segment = figure_->segment_at(QRectF(rect()), event->position());
  if (!segment) return QWidget::mousePressEvent(event);
  if (const auto task = figure_->task_of(segment->first, segment->second)) emit task_selected(task);
}

bool TimeSplitView::event(QEvent* event) {
  return answer_tooltip(this, event, [&](QPoint at) { return figure_->tooltip_at(QRectF(rect()), at); }) || QWidget::event(event);
}

}  // namespace tilelens::gui
