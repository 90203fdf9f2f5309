// Painting and interacting with the timeline.
#include "app/gui/timeline.hpp"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "model/units.hpp"

namespace tilelens::gui {
namespace {

// Okabe and Ito's colour-blind-safe set: the task kinds take blue, bluish green, reddish
// purple, yellow, grey, black and orange; vermillion is the fetches' alone, sky blue the
// prefetches'.
const QColor kKindColors[] = {QColor(0, 114, 178), QColor(0, 158, 115), QColor(204, 121, 167), QColor(240, 228, 66),
                              QColor(120, 120, 120), QColor(20, 20, 20),  QColor(230, 159, 0)};
const QColor kFetchColor(213, 94, 0), kPrefetchColor(86, 180, 233), kMemoryColor(0, 158, 115);
const QColor kSelectedColor(255, 140, 0);
constexpr int kLanesPerGpu = 4;  // compute, fetch, prefetch, memory (eviction ticks on the memory lane)

double x_of(std::int64_t t, std::int64_t begin, std::int64_t end, double left, double width) {
  return left + width * static_cast<double>(t - begin) / static_cast<double>(std::max<std::int64_t>(1, end - begin));
}

}  // namespace

TimelineFigure::TimelineFigure(const RunData& run) : run_(run), memory_(memory_in_use(run.workload, run.trace)) {
  for (const TaskRecord& t : run.trace.tasks) end_ns_ = std::max(end_ns_, t.end_ns);
  for (const LoadRecord& l : run.trace.loads) end_ns_ = std::max(end_ns_, l.end_ns);
  for (GpuId g = 0; g < run_.gpus; ++g) {
    first_lane_.push_back(total_lanes_);
    total_lanes_ += lane_count(g);
  }
}

TimelineFigure::Lanes TimelineFigure::lanes(const QRectF& area) const {
  const double axis = 22 + 20;  // the time axis, then the legend
  const double lane = (area.height() - axis) / std::max(1, total_lanes_);
  return {std::min(110.0, area.width() * 0.15), axis, lane};
}

void TimelineFigure::paint(QPainter& painter, const QRectF& area, std::int64_t begin, std::int64_t end,
                           std::optional<TaskId> highlight, bool dark) const {
  painter.save();
  const QColor background = dark ? QColor(30, 30, 34) : QColor(Qt::white);
  const QColor ink = dark ? QColor(225, 225, 225) : QColor(30, 30, 30);
  const QColor faint = dark ? QColor(60, 60, 66) : QColor(235, 235, 235);
  painter.fillRect(area, background);
  const Lanes l = lanes(area);
  const double left = area.left() + l.label_width, width = area.width() - l.label_width - 4;
  QFont font = painter.font();
  font.setPixelSize(static_cast<int>(std::clamp(l.lane_height * 0.6, 8.0, 12.0)));
  painter.setFont(font);
  static const char* names[kLanesPerGpu] = {"compute", "fetch", "prefetch", "memory"};
  for (std::uint32_t g = 0; g < run_.gpus; ++g) {
    for (int k = 0; k < lane_count(g); ++k) {
      const double y = area.top() + (first_lane_[g] + k) * l.lane_height;
      if (k == 0 && g > 0) {
        painter.setPen(QPen(ink, 1));
        painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
      }
      painter.fillRect(QRectF(left, y + 1, width, l.lane_height - 2), faint);
      painter.setPen(ink);
      painter.drawText(QRectF(area.left() + 2, y, l.label_width - 6, l.lane_height), Qt::AlignVCenter | Qt::AlignRight,
                       QString("%1 %2").arg(QString::fromStdString(run_.worker_name(g))).arg(names[k]));
    }
  }
  const auto lane_rect = [&](GpuId g, int k) {
    return QRectF(left, area.top() + (first_lane_[g] + k) * l.lane_height + 2, width, l.lane_height - 4);
  };
  painter.setClipRect(QRectF(left, area.top(), width, area.height()));
  // Decimation, so that a repaint costs about one draw per pixel column and lane whatever the
  // run's size: an item narrower than two pixels is skipped when its columns are painted
  // already on its lane (the first item of a column gives the column its colour).
  std::vector<std::vector<char>> painted(static_cast<std::size_t>(total_lanes_));
  const auto pixel_width = static_cast<std::size_t>(std::max(1.0, std::ceil(width)) + 2);
  const auto claim = [&](int lane_index, double x0, double x1) {
    if (x1 - x0 >= 2) return true;
    auto& columns = painted[static_cast<std::size_t>(lane_index)];
    if (columns.empty()) columns.assign(pixel_width, 0);
    const auto first = static_cast<std::size_t>(std::clamp(x0 - left, 0.0, static_cast<double>(pixel_width - 1)));
    const auto last = static_cast<std::size_t>(std::clamp(x1 - left, 0.0, static_cast<double>(pixel_width - 1)));
    bool fresh = false;
    for (std::size_t c = first; c <= last; ++c) {
      fresh = fresh || !columns[c];
      columns[c] = 1;
    }
    return fresh;
  };
  // Tasks: one bar each (at least a pixel wide), coloured by kind.
  for (const TaskRecord& t : run_.trace.tasks) {
    if (t.end_ns < begin || t.start_ns > end) continue;
    const double x0 = x_of(t.start_ns, begin, end, left, width), x1 = x_of(t.end_ns, begin, end, left, width);
    const bool selected = highlight && *highlight == t.task;
    if (!claim(first_lane_[t.gpu], x0, x1) && !selected) continue;
    const QRectF lane = lane_rect(t.gpu, 0);
    const QColor colour = kKindColors[run_.workload.tasks()[t.task].kind % std::size(kKindColors)];
    painter.fillRect(QRectF(x0, lane.top(), std::max(1.0, x1 - x0 - 0.5), lane.height()), selected ? kSelectedColor : colour);
  }
  // Loads: from issue to arrival, on the fetch or prefetch lane.
  for (const LoadRecord& load : run_.trace.loads) {
    if (load.end_ns < begin || load.issue_ns > end || load.kind == LoadKind::Unused || run_.is_cpu(load.gpu)) continue;
    const int k = load.kind == LoadKind::Fetch ? 1 : 2;
    const double x0 = x_of(load.issue_ns, begin, end, left, width), x1 = x_of(load.end_ns, begin, end, left, width);
    const bool selected = highlight && *highlight == load.task;
    if (!claim(first_lane_[load.gpu] + k, x0, x1) && !selected) continue;
    const QRectF lane = lane_rect(load.gpu, k);
    painter.fillRect(QRectF(x0, lane.top() + lane.height() * 0.15, std::max(1.0, x1 - x0), lane.height() * 0.7),
                     selected ? kSelectedColor : load.kind == LoadKind::Fetch ? kFetchColor : kPrefetchColor);
  }
  // Evictions as faint ticks along the memory lane's top, one per pixel column, under the curve
  // that is drawn next (it stays visible where the memory is full).
  painter.setPen(QPen(dark ? QColor(150, 150, 150) : QColor(150, 150, 150), 1));
  std::vector<double> last_tick(run_.gpus, -1);
  for (const EvictionRecord& e : run_.trace.evictions) {
    if (e.time_ns < begin || e.time_ns > end || e.gpu >= run_.gpus || run_.is_cpu(e.gpu)) continue;
    const double x = std::floor(x_of(e.time_ns, begin, end, left, width));
    if (x == last_tick[e.gpu]) continue;
    last_tick[e.gpu] = x;
    const QRectF lane = lane_rect(e.gpu, 3);
    painter.drawLine(QPointF(x, lane.top()), QPointF(x, lane.top() + lane.height() * 0.3));
  }
  // Memory in use, a step curve against M, with M marked at the lane's top: one vertical stroke per pixel column spanning the
  // levels reached there, joined by horizontal steps.
  const double capacity = std::max(1.0, run_.run.info.platform.memory_bytes);
  struct Curve {
    bool started = false;
    double x = 0, y = 0;      // the last point drawn
    double column = -1;       // the pixel column being gathered
    double low = 0, high = 0, end_y = 0;  // its extent and its last level
  };
  std::vector<Curve> curves(run_.gpus);
  for (GpuId g = 0; g < run_.gpus; ++g) {
    if (run_.is_cpu(g)) continue;
    const QRectF lane = lane_rect(g, 3);
    painter.setPen(QPen(faint.darker(130), 1, Qt::DashLine));
    painter.drawLine(QPointF(left, lane.top()), QPointF(left + width, lane.top()));
  }
  painter.setPen(QPen(kMemoryColor, 1.5));
  const auto flush = [&](Curve& c) {
    if (c.column < 0) return;
    painter.drawLine(QPointF(c.x, c.y), QPointF(c.column, c.y));
    painter.drawLine(QPointF(c.column, std::min(c.low, c.y)), QPointF(c.column, std::max(c.high, c.y)));
    c.x = c.column;
    c.y = c.end_y;
    c.column = -1;
  };
  for (const MemoryStep& step : memory_) {
    if (step.gpu >= run_.gpus || run_.is_cpu(step.gpu)) continue;
    const QRectF lane = lane_rect(step.gpu, 3);
    Curve& c = curves[step.gpu];
    if (!c.started) {
      c = {true, left, lane.bottom(), -1, 0, 0, 0};
    }
    const double x = std::floor(std::clamp(x_of(step.time_ns, begin, end, left, width), left, left + width));
    const double y = lane.bottom() - lane.height() * std::min(1.0, static_cast<double>(step.bytes) / capacity);
    if (x != c.column) {
      flush(c);
      c.column = x;
      c.low = c.high = y;
    }
    c.low = std::min(c.low, y);
    c.high = std::max(c.high, y);
    c.end_y = y;
  }
  for (Curve& c : curves) {
    if (!c.started) continue;
    flush(c);
    painter.drawLine(QPointF(c.x, c.y), QPointF(left + width, c.y));
  }
  painter.setClipping(false);
  // Time axis.
  const double axis_y = area.top() + total_lanes_ * l.lane_height;
  painter.setPen(QPen(ink, 1));
  painter.drawLine(QPointF(left, axis_y + 2), QPointF(left + width, axis_y + 2));
  const double span = static_cast<double>(end - begin);
  const double raw = span / 8;
  const double magnitude = std::pow(10.0, std::floor(std::log10(std::max(1.0, raw))));
  const double step = raw / magnitude < 2 ? magnitude * 2 : raw / magnitude < 5 ? magnitude * 5 : magnitude * 10;
  for (double t = std::ceil(static_cast<double>(begin) / step) * step; t <= static_cast<double>(end); t += step) {
    const double x = x_of(static_cast<std::int64_t>(t), begin, end, left, width);
    painter.drawLine(QPointF(x, axis_y + 2), QPointF(x, axis_y + 6));
    // Labels stay inside the figure: the last one is not cut at the right edge.
    const double label_left = std::clamp(x - 50, area.left(), area.right() - 100);
    painter.drawText(QRectF(label_left, axis_y + 6, 100, 14), Qt::AlignHCenter | Qt::AlignTop,
                     QString::fromStdString(format_duration(static_cast<std::int64_t>(t))));
  }
  // The legend: the task kinds that ran, the load lanes, the memory curve against M.
  double x = left;
  const double legend_y = axis_y + 22;
  const auto entry = [&](const QColor& colour, const QString& text, bool line) {
    if (line) {
      painter.setPen(QPen(colour, 2));
      painter.drawLine(QPointF(x, legend_y + 8), QPointF(x + 14, legend_y + 8));
    } else {
      painter.fillRect(QRectF(x, legend_y + 3, 14, 10), colour);
    }
    painter.setPen(ink);
    const double w = QFontMetricsF(painter.font()).horizontalAdvance(text);
    painter.drawText(QRectF(x + 18, legend_y, w + 2, 16), Qt::AlignVCenter | Qt::AlignLeft, text);
    x += 18 + w + 14;
  };
  std::vector<bool> ran(run_.workload.kinds().size(), false);
  for (const TaskRecord& t : run_.trace.tasks) ran[run_.workload.tasks()[t.task].kind] = true;
  for (KindId k = 0; k < ran.size(); ++k) {
    if (ran[k]) entry(kKindColors[k % std::size(kKindColors)], QString::fromStdString(run_.workload.kinds()[k]), false);
  }
  entry(kFetchColor, "fetch", false);
  entry(kPrefetchColor, "prefetch", false);
  entry(kMemoryColor, QString("memory in use (lane top: M = %1)")
                          .arg(QString::fromStdString(format_bytes(run_.run.info.platform.memory_bytes))), true);
  entry(QColor(150, 150, 150), "eviction", true);
  painter.restore();
}

std::optional<TaskId> TimelineFigure::task_at(const QRectF& area, std::int64_t begin, std::int64_t end, QPointF point) const {
  const Lanes l = lanes(area);
  const double left = area.left() + l.label_width, width = area.width() - l.label_width - 4;
  if (point.x() < left || point.x() > left + width) return std::nullopt;
  const auto lane = static_cast<int>((point.y() - area.top()) / l.lane_height);
  const auto at = std::find(first_lane_.begin(), first_lane_.end(), lane);  // a compute lane starts each worker
  if (lane < 0 || at == first_lane_.end()) return std::nullopt;
  const auto gpu = static_cast<GpuId>(at - first_lane_.begin());
  const double t = static_cast<double>(begin) + (point.x() - left) / width * static_cast<double>(end - begin);
  const double slack = static_cast<double>(end - begin) / width;  // one pixel
  for (const TaskRecord& r : run_.trace.tasks) {
    if (r.gpu == gpu && static_cast<double>(r.start_ns) - slack <= t && t <= static_cast<double>(r.end_ns) + slack) return r.task;
  }
  return std::nullopt;
}

TimelineView::TimelineView(std::shared_ptr<const RunData> run, QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumHeight(120);
  set_run(std::move(run));
}

void TimelineView::set_run(std::shared_ptr<const RunData> run) {
  figure_ = std::make_unique<TimelineFigure>(*run);
  run_ = std::move(run);
  begin_ = 0;
  end_ = figure_->duration();
  update();
}

void TimelineView::set_highlight(std::optional<TaskId> task) {
  highlight_ = task;
  update();
}

void TimelineView::set_dark(bool dark) {
  dark_ = dark;
  update();
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  figure_->paint(painter, QRectF(rect()), begin_, end_, highlight_, dark_);
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  const double factor = event->angleDelta().y() > 0 ? 0.8 : 1.25;
  const QRectF area(rect());
  const double left = area.left() + std::min(110.0, area.width() * 0.15), width = area.width() - (left - area.left()) - 4;
  const double at = std::clamp((event->position().x() - left) / width, 0.0, 1.0);
  const double span = static_cast<double>(end_ - begin_);
  const double pivot = static_cast<double>(begin_) + at * span;
  const double next = std::clamp(span * factor, 1000.0, static_cast<double>(figure_->duration()));
  begin_ = static_cast<std::int64_t>(std::max(0.0, pivot - at * next));
  end_ = std::min(figure_->duration(), begin_ + static_cast<std::int64_t>(next));
  update();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    const auto task = figure_->task_at(QRectF(rect()), begin_, end_, event->position());
    highlight_ = task;
    update();
    emit task_selected(task);
    drag_ = event->position();
  }
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (drag_ && (event->buttons() & Qt::LeftButton)) {
    const double width = std::max(1.0, rect().width() - std::min(110.0, rect().width() * 0.15) - 4);
    const auto shift = static_cast<std::int64_t>((drag_->x() - event->position().x()) / width * static_cast<double>(end_ - begin_));
    const std::int64_t span = end_ - begin_;
    begin_ = std::clamp<std::int64_t>(begin_ + shift, 0, std::max<std::int64_t>(0, figure_->duration() - span));
    end_ = begin_ + span;
    drag_ = event->position();
    update();
    return;
  }
  const auto task = figure_->task_at(QRectF(rect()), begin_, end_, event->position());
  if (task) QToolTip::showText(event->globalPosition().toPoint(), QString::fromStdString(run_->task_tooltip(*task)), this);
  else QToolTip::hideText();
}

void TimelineView::mouseReleaseEvent(QMouseEvent*) { drag_.reset(); }

void TimelineView::mouseDoubleClickEvent(QMouseEvent*) {
  begin_ = 0;
  end_ = figure_->duration();
  update();
}

}  // namespace tilelens::gui
