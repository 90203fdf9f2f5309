// Painting and interacting with the timeline.
#include "app/gui/timeline.hpp"

#include <QFontMetricsF>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "app/gui/worker_states.hpp"
#include "core/units.hpp"

namespace tilelens::gui {

QString time_tick_label(double t_ns, double step_ns) {
  const auto [unit_ns, unit] = step_ns >= 1e9   ? std::pair{1e9, "s"}
                               : step_ns >= 1e6 ? std::pair{1e6, "ms"}
                               : step_ns >= 1e3 ? std::pair{1e3, "us"}
                                                : std::pair{1.0, "ns"};
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step_ns / unit_ns) + 1e-9)));
  return QString::number(t_ns / unit_ns, 'f', decimals) + " " + unit;
}
namespace {

double x_of(std::int64_t t, std::int64_t begin, std::int64_t end, double left, double width) {
  return left + width * static_cast<double>(t - begin) / static_cast<double>(std::max<std::int64_t>(1, end - begin));
}

}  // namespace

void paint_time_axis(QPainter& painter, const QRectF& bounds, double left, double width, double y, std::int64_t begin, std::int64_t end,
                     const QColor& ink) {
  painter.setPen(QPen(ink, 1));
  painter.drawLine(QPointF(left, y), QPointF(left + width, y));
  const double raw = static_cast<double>(end - begin) / 8;
  const double magnitude = std::pow(10.0, std::floor(std::log10(std::max(1.0, raw))));
  const double step = raw / magnitude < 2 ? magnitude * 2 : raw / magnitude < 5 ? magnitude * 5 : magnitude * 10;
  for (double t = std::ceil(static_cast<double>(begin) / step) * step; t <= static_cast<double>(end); t += step) {
    const double x = x_of(static_cast<std::int64_t>(t), begin, end, left, width);
    painter.drawLine(QPointF(x, y), QPointF(x, y + 4));
    // Labels stay inside the figure: the last one is not cut at the right edge.
    const double label_left = std::clamp(x - 50, bounds.left(), bounds.right() - 100);
    painter.drawText(QRectF(label_left, y + 4, 100, 14), Qt::AlignHCenter | Qt::AlignTop, time_tick_label(t, step));
  }
}

namespace {

// Okabe and Ito's colour-blind-safe set: the task kinds take blue, bluish green, reddish
// purple, yellow, grey, black and orange; vermillion is the fetches' alone, sky blue the
// prefetches'.
const QColor kKindColors[] = {QColor(0, 114, 178), QColor(0, 158, 115), QColor(204, 121, 167), QColor(240, 228, 66),
                              QColor(120, 120, 120), QColor(20, 20, 20),  QColor(230, 159, 0)};
const QColor kFetchColor(213, 94, 0), kPrefetchColor(86, 180, 233), kMemoryColor(0, 158, 115);
const QColor kSelectedColor(255, 140, 0);
constexpr int kLanesPerGpu = 4;  // compute, fetch, prefetch, memory (eviction ticks on the memory lane)


}  // namespace

TimelineFigure::TimelineFigure(const RunData& run) : run_(run), curves_(run.gpus) {
  for (const MemoryStep& step : memory_in_use(run.workload, run.trace)) {  // in time order
    if (step.gpu >= run_.gpus) continue;
    MemoryCurve& curve = curves_[step.gpu];
    if (curve.times.size() % MemoryCurve::kBlock == 0) {
      curve.block_low.push_back(step.bytes);
      curve.block_high.push_back(step.bytes);
    }
    curve.block_low.back() = std::min(curve.block_low.back(), step.bytes);
    curve.block_high.back() = std::max(curve.block_high.back(), step.bytes);
    curve.times.push_back(step.time_ns);
    curve.bytes.push_back(step.bytes);
  }
  for (const TaskRecord& t : run.trace.tasks) end_ns_ = std::max(end_ns_, t.end_ns);
  for (const LoadRecord& l : run.trace.loads) end_ns_ = std::max(end_ns_, l.end_ns);
  for (GpuId g = 0; g < run_.gpus; ++g) {
    first_lane_.push_back(total_lanes_);
    total_lanes_ += lane_count(g);
  }
}

std::pair<std::uint64_t, std::uint64_t> TimelineFigure::MemoryCurve::extremes(std::size_t first, std::size_t last) const {
  std::uint64_t low = bytes[first], high = bytes[first];
  const auto take = [&](std::uint64_t lo, std::uint64_t hi) {
    low = std::min(low, lo);
    high = std::max(high, hi);
  };
  std::size_t k = first;
  for (; k < last && k % kBlock != 0; ++k) take(bytes[k], bytes[k]);
  for (; k + kBlock <= last; k += kBlock) take(block_low[k / kBlock], block_high[k / kBlock]);
  for (; k < last; ++k) take(bytes[k], bytes[k]);
  return {low, high};
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
  // Labels are 12 px (9 pt) or absent: lanes too thin for one name each get one name per
  // worker, over its lanes, and the legend says the lanes' order.
  font.setPixelSize(12);
  painter.setFont(font);
  const bool per_lane = l.lane_height >= 13;
  static const char* names[kLanesPerGpu] = {"compute", "fetch", "prefetch", "memory"};
  for (std::uint32_t g = 0; g < run_.gpus; ++g) {
    for (int k = 0; k < lane_count(g); ++k) {
      const double y = area.top() + (first_lane_[g] + k) * l.lane_height;
      if (k == 0 && g > 0) {
        painter.setPen(QPen(ink, 1));
        painter.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
      }
      painter.fillRect(QRectF(left, y + 1, width, l.lane_height - 2), faint);
      if (!per_lane) continue;
      painter.setPen(ink);
      painter.drawText(QRectF(area.left() + 2, y, l.label_width - 6, l.lane_height), Qt::AlignVCenter | Qt::AlignRight,
                       QString("%1 %2").arg(QString::fromStdString(run_.worker_name(g))).arg(names[k]));
    }
    if (!per_lane) {
      painter.setPen(ink);
      const double y = area.top() + first_lane_[g] * l.lane_height;
      painter.drawText(QRectF(area.left() + 2, y, l.label_width - 6, l.lane_height * lane_count(g)), Qt::AlignVCenter | Qt::AlignRight,
                       QString::fromStdString(run_.worker_name(g)));
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
  // Idle time on the compute lanes, in the states of "where time went" (worker_states.hpp):
  // waiting for data hatched, the scheduler's cost cross-hatched, no ready task blank.
  // Intervals of one state less than a pixel apart are filled as one (a pattern fill is dear).
  {
    const QBrush brushes[] = {worker_state_brush(WorkerState::WaitingForData, dark), worker_state_brush(WorkerState::SchedulerCost, dark)};
    struct Pending {
      double x0 = 0, x1 = -1e300;
      int brush = -1;
    };
    std::vector<Pending> pending(run_.gpus);
    const auto flush = [&](GpuId g) {
      Pending& p = pending[g];
      if (p.brush < 0) return;
      const QRectF lane = lane_rect(g, 0);
      painter.fillRect(QRectF(p.x0, lane.top(), std::max(1.0, p.x1 - p.x0), lane.height()), brushes[p.brush]);
      p.brush = -1;
    };
    for (const StateInterval& idle : run_.time_split.idle) {
      if (idle.state == WorkerState::NoReadyTask || idle.worker >= run_.gpus || idle.end_ns < begin || idle.begin_ns > end) continue;
      const double x0 = x_of(idle.begin_ns, begin, end, left, width), x1 = x_of(idle.end_ns, begin, end, left, width);
      const int brush = idle.state == WorkerState::WaitingForData ? 0 : 1;
      Pending& p = pending[idle.worker];
      if (p.brush == brush && x0 <= p.x1 + 1) {
        p.x1 = std::max(p.x1, x1);
        continue;
      }
      flush(idle.worker);
      p = {x0, x1, brush};
    }
    for (GpuId g = 0; g < run_.gpus; ++g) flush(g);
  }
  // Tasks: one bar each (at least a pixel wide), coloured by kind.
  for (const TaskRecord& t : run_.trace.tasks) {
    if (t.end_ns < begin || t.start_ns > end) continue;
    const double x0 = x_of(t.start_ns, begin, end, left, width), x1 = x_of(t.end_ns, begin, end, left, width);
    const bool selected = highlight && *highlight == t.task;
    if (!claim(first_lane_[t.gpu], x0, x1) && !selected) continue;
    const QRectF lane = lane_rect(t.gpu, 0);
    const QColor colour = kKindColors[run_.workload.tasks()[t.task].kind % std::size(kKindColors)];
    painter.fillRect(QRectF(x0, lane.top(), std::max(1.0, x1 - x0 - 0.5), lane.height()), selected ? kSelectedColor : colour);
    if (selected) {
      // However short the task, a band across its worker's lanes, at least 5 px wide, and its
      // outline: a selection one can find.
      const QRectF lanes = lane_rect(t.gpu, 0).united(lane_rect(t.gpu, lane_count(t.gpu) - 1));
      const double band = std::max(5.0, x1 - x0);
      const QRectF marked((x0 + x1) / 2 - band / 2, lanes.top(), band, lanes.height());
      QColor wash = kSelectedColor;
      wash.setAlpha(70);
      painter.fillRect(marked, wash);
      painter.setPen(QPen(kSelectedColor, 2));
      painter.drawRect(marked);
    }
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
  for (GpuId g = 0; g < run_.gpus; ++g) {
    if (run_.is_cpu(g)) continue;
    const QRectF lane = lane_rect(g, 3);
    painter.setPen(QPen(faint.darker(130), 1, Qt::DashLine));
    painter.drawLine(QPointF(left, lane.top()), QPointF(left + width, lane.top()));
    if (lane.height() >= 24) {
      // The lane's scale where it has room: M at the top, half of it, 0 at the bottom.
      painter.setPen(QPen(faint.darker(160), 1, Qt::DotLine));
      painter.drawLine(QPointF(left, lane.center().y()), QPointF(left + width, lane.center().y()));
      painter.setPen(ink);
      for (const auto& [fraction, text] : {std::pair{1.0, "M"}, std::pair{0.5, "M/2"}, std::pair{0.0, "0"}}) {
        const double y = lane.bottom() - lane.height() * fraction;
        painter.drawText(QRectF(left + width - 40, y - 7, 38, 14), Qt::AlignRight | Qt::AlignVCenter, text);
      }
    }
  }
  painter.setPen(QPen(kMemoryColor, 1.5));
  const double last_column = std::floor(left + width);
  for (GpuId g = 0; g < run_.gpus; ++g) {
    const MemoryCurve& curve = curves_[g];
    if (run_.is_cpu(g) || curve.times.empty()) continue;
    const QRectF lane = lane_rect(g, 3);
    const auto level = [&](std::uint64_t bytes) { return lane.bottom() - lane.height() * std::min(1.0, static_cast<double>(bytes) / capacity); };
    // The pixel column of a step: those before the view gather in the first, those after it
    // in the last.
    const auto column_of = [&](std::size_t k) { return std::floor(std::clamp(x_of(curve.times[k], begin, end, left, width), left, left + width)); };
    double x = left, y = lane.bottom();  // the last point drawn
    for (std::size_t first = 0; first < curve.times.size();) {
      const double column = column_of(first);
      // The steps of this column: a binary search for the first of a later one.
      std::size_t low = first + 1, high = curve.times.size();
      while (low < high) {
        const std::size_t middle = low + (high - low) / 2;
        if (column_of(middle) > column) high = middle;
        else low = middle + 1;
      }
      const auto [least, most] = curve.extremes(first, low);
      painter.drawLine(QPointF(x, y), QPointF(column, y));
      painter.drawLine(QPointF(column, std::min(level(most), y)), QPointF(column, std::max(level(least), y)));
      x = column;
      y = level(curve.bytes[low - 1]);
      first = low;
      if (column >= last_column) break;  // every later step is in this column too
    }
    painter.drawLine(QPointF(x, y), QPointF(left + width, y));
  }
  painter.setClipping(false);
  const double axis_y = area.top() + total_lanes_ * l.lane_height;
  paint_time_axis(painter, area, left, width, axis_y + 2, begin, end, ink);
  // The legend: the run (so that an export names it), the task kinds that ran, the load
  // lanes, the memory curve against M. Where it does not fit on its line, the memory entry
  // says less, then the run's name (which the window's tab shows) goes, then the lanes' entry
  // says less.
  struct Entry {
    QBrush brush;
    QString text;
    bool line;
  };
  std::vector<Entry> entries;
  std::vector<bool> ran(run_.workload.kinds().size(), false);
  for (const TaskRecord& t : run_.trace.tasks) ran[run_.workload.tasks()[t.task].kind] = true;
  for (KindId k = 0; k < ran.size(); ++k) {
    if (ran[k]) entries.push_back({kKindColors[k % std::size(kKindColors)], QString::fromStdString(run_.workload.kinds()[k]), false});
  }
  entries.push_back({kFetchColor, "fetch", false});
  entries.push_back({kPrefetchColor, "prefetch", false});
  for (const WorkerState state : {WorkerState::WaitingForData, WorkerState::SchedulerCost}) {
    if (run_.time_split.all().of(state) > 0) entries.push_back({worker_state_brush(state, dark), to_string(state), false});
  }
  const QString memory = QString::fromStdString(format_binary_bytes(run_.run.info.platform.memory_bytes));
  const std::size_t memory_entry = entries.size();
  entries.push_back({kMemoryColor, QString("memory in use (lane top: M = %1)").arg(memory), true});
  entries.push_back({QColor(150, 150, 150), "eviction", true});
  if (!per_lane) entries.push_back({ink, "lanes per GPU: compute, fetch, prefetch, memory", true});
  const QFontMetricsF legend_metrics(painter.font());
  QString name = QString::fromStdString((run_.run.info.id > 0 ? "#" + std::to_string(run_.run.info.id) + " " : "") + run_.title());
  const auto legend_width = [&] {
    double w = name.isEmpty() ? 0 : legend_metrics.horizontalAdvance(name) + 20;
    for (const Entry& e : entries) w += 18 + legend_metrics.horizontalAdvance(e.text) + 14;
    return w;
  };
  const double room = area.width() - 8;
  if (legend_width() > room) entries[memory_entry].text = "memory (top: M = " + memory + ")";
  if (legend_width() > room) name.clear();
  if (legend_width() > room && !per_lane) entries.back().text = "lanes: compute, fetch, prefetch, memory";
  // Then the states say less (their tooltips on the lanes say it all).
  for (Entry& e : entries) {
    if (legend_width() > room && e.text == to_string(WorkerState::WaitingForData)) e.text = "data wait";
    if (legend_width() > room && e.text == to_string(WorkerState::SchedulerCost)) e.text = "sched. cost";
  }
  // Last, the entries a reader can do without: the evictions' ticks, then the lanes' order (the
  // tooltips name each lane).
  for (const char* optional : {"eviction", "lanes: compute, fetch, prefetch, memory"}) {
    if (legend_width() <= room) break;
    const auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.text == optional; });
    if (it != entries.end()) entries.erase(it);
  }
  double x = area.left() + 4;
  const double legend_y = axis_y + 22;
  const auto entry = [&](const QBrush& brush, const QString& text, bool line) {
    if (line) {
      painter.setPen(QPen(brush.color(), 2));
      painter.drawLine(QPointF(x, legend_y + 8), QPointF(x + 14, legend_y + 8));
    } else {
      painter.fillRect(QRectF(x, legend_y + 3, 14, 10), brush);
    }
    painter.setPen(ink);
    const double w = legend_metrics.horizontalAdvance(text);
    painter.drawText(QRectF(x + 18, legend_y, w + 2, 16), Qt::AlignVCenter | Qt::AlignLeft, text);
    x += 18 + w + 14;
  };
  if (!name.isEmpty()) {
    painter.setPen(ink);
    const double w = legend_metrics.horizontalAdvance(name);
    painter.drawText(QRectF(x, legend_y, w + 2, 16), Qt::AlignVCenter | Qt::AlignLeft, name);
    x += w + 20;
  }
  for (const Entry& e : entries) entry(e.brush, e.text, e.line);
  painter.restore();
}

std::int64_t TimelineFigure::time_at(const QRectF& area, std::int64_t begin, std::int64_t end, double x) const {
  const Lanes l = lanes(area);
  const double left = area.left() + l.label_width, width = std::max(1.0, area.width() - l.label_width - 4);
  return begin + static_cast<std::int64_t>(std::clamp((x - left) / width, 0.0, 1.0) * static_cast<double>(end - begin));
}

double TimelineFigure::x_at(const QRectF& area, std::int64_t begin, std::int64_t end, std::int64_t t) const {
  const Lanes l = lanes(area);
  return x_of(t, begin, end, area.left() + l.label_width, area.width() - l.label_width - 4);
}

std::optional<std::pair<GpuId, int>> TimelineFigure::lane_at(const QRectF& area, double y) const {
  const Lanes l = lanes(area);
  const auto lane = static_cast<int>(std::floor((y - area.top()) / l.lane_height));
  if (lane < 0 || lane >= total_lanes_) return std::nullopt;
  for (GpuId g = static_cast<GpuId>(first_lane_.size()); g-- > 0;) {
    if (lane >= first_lane_[g]) return std::pair{g, lane - first_lane_[g]};
  }
  return std::nullopt;
}

double TimelineFigure::memory_at(GpuId worker, std::int64_t t) const {
  if (worker >= curves_.size()) return 0;
  const MemoryCurve& curve = curves_[worker];
  const auto after = std::upper_bound(curve.times.begin(), curve.times.end(), t);  // the first step later than t
  return after == curve.times.begin() ? 0 : static_cast<double>(curve.bytes[static_cast<std::size_t>(after - curve.times.begin()) - 1]);
}

QString TimelineFigure::tooltip_at(const QRectF& area, std::int64_t begin, std::int64_t end, QPointF point) const {
  const auto lane = lane_at(area, point.y());
  const Lanes l = lanes(area);
  if (!lane || point.x() < area.left() + l.label_width) return {};
  const auto [worker, kind] = *lane;
  if (kind == 0) {
    if (const auto task = task_at(area, begin, end, point)) return QString::fromStdString(run_.task_tooltip(*task));
    const std::int64_t t = time_at(area, begin, end, point.x());
    for (const StateInterval& idle : run_.time_split.idle) {
      if (idle.worker != worker || t < idle.begin_ns || t >= idle.end_ns) continue;
      return QString("%1 %2 for %3 (%4 to %5): %6")
          .arg(QString::fromStdString(run_.worker_name(worker)))
          .arg(to_string(idle.state))
          .arg(QString::fromStdString(format_duration(idle.end_ns - idle.begin_ns)))
          .arg(QString::fromStdString(format_duration(idle.begin_ns)))
          .arg(QString::fromStdString(format_duration(idle.end_ns)))
          .arg(worker_state_meaning(idle.state));
    }
    return {};
  }
  const std::int64_t t = time_at(area, begin, end, point.x());
  const std::int64_t slack = (end - begin) / std::max<std::int64_t>(1, static_cast<std::int64_t>(area.width()));
  if (kind == 1 || kind == 2) {
    const LoadKind wanted = kind == 1 ? LoadKind::Fetch : LoadKind::Prefetch;
    for (const LoadRecord& load : run_.trace.loads) {
      if (load.gpu != worker || load.kind != wanted || t < load.issue_ns - slack || t > load.end_ns + slack) continue;
      const Data& data = run_.workload.data()[load.data];
      QString text = QString("%1 of %2, %3\nissued %4, arrived %5 (%6)")
                         .arg(kind == 1 ? "fetch" : "prefetch")
                         .arg(QString::fromStdString(data.name))
                         .arg(QString::fromStdString(format_binary_bytes(static_cast<double>(data.bytes))))
                         .arg(QString::fromStdString(format_duration(load.issue_ns)))
                         .arg(QString::fromStdString(format_duration(load.end_ns)))
                         .arg(QString::fromStdString(format_duration(load.end_ns - load.issue_ns)));
      if (load.task != kNoId && load.task < run_.workload.task_count()) {
        text += QString("\nfor %1").arg(QString::fromStdString(run_.workload.task_label(load.task)));
      }
      return text;
    }
    return {};
  }
  const double used = memory_at(worker, t), capacity = std::max(1.0, run_.run.info.platform.memory_bytes);
  return QString("%1 memory at %2: %3 of M = %4 (%5%)")
      .arg(QString::fromStdString(run_.worker_name(worker)))
      .arg(QString::fromStdString(format_duration(t)))
      .arg(QString::fromStdString(format_binary_bytes(used)))
      .arg(QString::fromStdString(format_binary_bytes(capacity)))
      .arg(100.0 * used / capacity, 0, 'f', 1);
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
  setFocusPolicy(Qt::StrongFocus);  // W/A/S/D
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
  // A task selected elsewhere (a tile clicked) that lies outside the window: the window pans to
  // centre it, keeping its zoom.
  if (task && *task < run_->order_of.size() && run_->order_of[*task] != kNoId) {
    const std::int64_t start = run_->start_of[*task], stop = run_->end_of[*task];
    if (stop < begin_ || start > end_) {
      const std::int64_t span = end_ - begin_, middle = start + (stop - start) / 2;
      begin_ = std::clamp<std::int64_t>(middle - span / 2, 0, std::max<std::int64_t>(0, figure_->duration() - span));
      end_ = begin_ + span;
    }
  }
  update();
}

void TimelineView::set_dark(bool dark) {
  dark_ = dark;
  update();
}

bool TimelineView::zoomed() const { return begin_ > 0 || end_ < figure_->duration(); }

QRectF TimelineView::plot_area() const {
  const QRectF whole(rect());
  return zoomed() ? whole.adjusted(0, kOverviewHeight, 0, 0) : whole;
}

QRectF TimelineView::overview_strip() const {
  if (!zoomed()) return {};
  const QRectF area = plot_area();
  const double left = figure_->x_at(area, 0, figure_->duration(), 0), right = figure_->x_at(area, 0, figure_->duration(), figure_->duration());
  return QRectF(left, 2, right - left, kOverviewHeight - 4);
}

QRectF TimelineView::overview_window() const {
  const QRectF strip = overview_strip();
  if (strip.isEmpty()) return {};
  const double duration = static_cast<double>(std::max<std::int64_t>(1, figure_->duration()));
  const double x0 = strip.left() + strip.width() * static_cast<double>(begin_) / duration;
  const double x1 = strip.left() + strip.width() * static_cast<double>(end_) / duration;
  return QRectF(x0, strip.top(), std::max(2.0, x1 - x0), strip.height());
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  const QRectF area = plot_area();
  figure_->paint(painter, area, begin_, end_, highlight_, dark_);
  const QColor ink = dark_ ? QColor(235, 235, 235) : QColor(20, 20, 20);
  if (zoomed()) {
    // The overview strip: the whole run, the window in view outlined.
    const QRectF strip = overview_strip(), window = overview_window();
    painter.fillRect(QRectF(0, 0, width(), area.top()), dark_ ? QColor(30, 30, 34) : QColor(Qt::white));
    painter.fillRect(strip, dark_ ? QColor(70, 70, 78) : QColor(220, 220, 220));
    painter.fillRect(window, QColor(255, 140, 0, 90));
    painter.setPen(QPen(QColor(255, 140, 0), 1.5));
    painter.drawRect(window);
  }
  if (measure_) {
    // The measured range: a band with its length.
    const double x0 = figure_->x_at(area, begin_, end_, measure_->first), x1 = figure_->x_at(area, begin_, end_, measure_->second);
    painter.fillRect(QRectF(std::min(x0, x1), area.top(), std::abs(x1 - x0), area.height() - 40), QColor(0, 114, 178, 50));
    painter.setPen(QPen(QColor(0, 114, 178), 1));
    painter.drawLine(QPointF(x0, area.top()), QPointF(x0, area.bottom() - 40));
    painter.drawLine(QPointF(x1, area.top()), QPointF(x1, area.bottom() - 40));
    const QString length = QString::fromStdString(format_duration(std::abs(measure_->second - measure_->first))) + "  (Z: zoom to it)";
    painter.setPen(ink);
    painter.drawText(QRectF(std::min(x0, x1) + 4, area.top() + 2, 260, 16), Qt::AlignLeft | Qt::AlignTop, length);
  }
  if (playhead_ && *playhead_ >= begin_ && *playhead_ <= end_) {
    const double x = figure_->x_at(area, begin_, end_, *playhead_);
    painter.setPen(QPen(QColor(213, 94, 0), 2));
    painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom() - 40));
  }
}

void TimelineView::set_playhead(std::optional<std::int64_t> time) {
  if (playhead_ == time) return;
  playhead_ = time;
  update();
}

void TimelineView::zoom(double factor, double at) {
  const double span = static_cast<double>(end_ - begin_);
  const double pivot = static_cast<double>(begin_) + at * span;
  const double next = std::clamp(span * factor, 1000.0, static_cast<double>(figure_->duration()));
  begin_ = static_cast<std::int64_t>(std::max(0.0, pivot - at * next));
  end_ = std::min(figure_->duration(), begin_ + static_cast<std::int64_t>(next));
  update();
}

void TimelineView::zoom_to_measure() {
  if (!measure_) return;
  const auto [a, b] = *measure_;
  begin_ = std::max<std::int64_t>(0, std::min(a, b));
  end_ = std::min(figure_->duration(), std::max({a, b, begin_ + 1000}));
  update();
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  const QRectF area = plot_area();
  const double x0 = figure_->x_at(area, begin_, end_, begin_), x1 = figure_->x_at(area, begin_, end_, end_);
  zoom(event->angleDelta().y() > 0 ? 0.8 : 1.25, std::clamp((event->position().x() - x0) / std::max(1.0, x1 - x0), 0.0, 1.0));
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  const std::int64_t span = end_ - begin_;
  const auto pan = [&](double fraction) {
    const auto shift = static_cast<std::int64_t>(fraction * static_cast<double>(span));
    begin_ = std::clamp<std::int64_t>(begin_ + shift, 0, std::max<std::int64_t>(0, figure_->duration() - span));
    end_ = begin_ + span;
    update();
  };
  switch (event->key()) {
    case Qt::Key_W: zoom(0.8, 0.5); break;
    case Qt::Key_S: zoom(1.25, 0.5); break;
    case Qt::Key_A: pan(-0.2); break;
    case Qt::Key_D: pan(0.2); break;
    case Qt::Key_Z: zoom_to_measure(); break;
    case Qt::Key_Escape:
      measure_.reset();
      update();
      break;
    default: QWidget::keyPressEvent(event); return;
  }
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  setFocus();
  if (event->button() == Qt::LeftButton && zoomed() && event->position().y() < kOverviewHeight) {
    // A click on the overview strip centres the window there, keeping its span.
    const QRectF strip = overview_strip();
    const double fraction = std::clamp((event->position().x() - strip.left()) / std::max(1.0, strip.width()), 0.0, 1.0);
    const std::int64_t span = end_ - begin_, middle = static_cast<std::int64_t>(fraction * static_cast<double>(figure_->duration()));
    begin_ = std::clamp<std::int64_t>(middle - span / 2, 0, std::max<std::int64_t>(0, figure_->duration() - span));
    end_ = begin_ + span;
    update();
    return;
  }
  if (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier)) {
    // Shift-drag measures a range.
    const std::int64_t t = figure_->time_at(plot_area(), begin_, end_, event->position().x());
    measure_ = std::pair{t, t};
    measuring_ = true;
    update();
    return;
  }
  if (event->button() == Qt::LeftButton) {
    const auto task = figure_->task_at(plot_area(), begin_, end_, event->position());
    highlight_ = task;
    update();
    emit task_selected(task);
    drag_ = event->position();
  }
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (measuring_ && (event->buttons() & Qt::LeftButton)) {
    measure_->second = figure_->time_at(plot_area(), begin_, end_, event->position().x());
    update();
    return;
  }
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
  const QString tip = figure_->tooltip_at(plot_area(), begin_, end_, event->position());
  if (!tip.isEmpty()) QToolTip::showText(event->globalPosition().toPoint(), tip, this);
  else QToolTip::hideText();
}

void TimelineView::mouseReleaseEvent(QMouseEvent*) {
  drag_.reset();
  measuring_ = false;
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent*) {
  begin_ = 0;
  end_ = figure_->duration();
  update();
}

}  // namespace tilelens::gui
