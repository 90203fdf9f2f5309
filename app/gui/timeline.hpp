// The timeline of a run (issue 5 item 5): per GPU a compute lane (task bars coloured by kind),
// a fetch lane and a prefetch lane (each load from issue to arrival), eviction ticks, and the
// memory in use as a curve against M, and a legend. Painted with any QPainter like the tile
// figure; the widget zooms (wheel, W/S) and pans (drag, A/D) in time, measures a range
// (Shift-drag) and zooms to it (Z), shows what lies under the pointer (tasks, loads, memory),
// draws the playhead during Play, and shares the selected task with the tile view.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "app/gui/run_data.hpp"
#include "core/exports.hpp"

namespace tilelens::gui {

class TimelineFigure {
 public:
  explicit TimelineFigure(const RunData& run);
  // Paints the time window [begin, end) (ns) into `area`.
  void paint(QPainter& painter, const QRectF& area, std::int64_t begin, std::int64_t end, std::optional<TaskId> highlight,
             bool dark) const;
  std::optional<TaskId> task_at(const QRectF& area, std::int64_t begin, std::int64_t end, QPointF point) const;
  // What lies under `point`, as a tooltip: a task, a fetch or prefetch (its data, size, times
  // and the task it serves), or the memory in use against M; empty for nothing.
  QString tooltip_at(const QRectF& area, std::int64_t begin, std::int64_t end, QPointF point) const;
  // The time under the x coordinate `x`, and the x of a time (the plot's own coordinates).
  std::int64_t time_at(const QRectF& area, std::int64_t begin, std::int64_t end, double x) const;
  double x_at(const QRectF& area, std::int64_t begin, std::int64_t end, std::int64_t t) const;
  // The memory in use on a worker's memory at time t, bytes.
  double memory_at(GpuId worker, std::int64_t t) const;
  std::int64_t duration() const { return end_ns_; }
  int lane_total() const { return total_lanes_; }

 private:
  struct Lanes {
    double label_width, axis_height, lane_height;
  };
  Lanes lanes(const QRectF& area) const;
  // The worker and lane (0 compute, 1 fetch, 2 prefetch, 3 memory) under a y, if any.
  std::optional<std::pair<GpuId, int>> lane_at(const QRectF& area, double y) const;
  // A GPU worker has four lanes (compute, fetch, prefetch, memory), a CPU worker one (compute:
  // it computes from the host and loads nothing).
  int lane_count(GpuId worker) const { return run_.is_cpu(worker) ? 1 : 4; }

  const RunData& run_;
  std::vector<int> first_lane_;  // per worker
  int total_lanes_ = 0;
  std::int64_t end_ns_ = 1;
  // Each worker's memory in use, its steps in time order, with the extremes of each block of
  // kBlock steps: the curve reads a pixel column's lowest and highest level without visiting
  // every step (a 100,000-task run has about 400,000), and a tooltip finds its level by search.
  struct MemoryCurve {
    static constexpr std::size_t kBlock = 64;
    std::vector<std::int64_t> times;
    std::vector<std::uint64_t> bytes;
    std::vector<std::uint64_t> block_low, block_high;
    // The lowest and highest level among steps [first, last), first < last.
    std::pair<std::uint64_t, std::uint64_t> extremes(std::size_t first, std::size_t last) const;
  };
  std::vector<MemoryCurve> curves_;  // per worker
};

inline constexpr double kOverviewHeight = 12;  // the zoomed timeline's overview strip

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(std::shared_ptr<const RunData> run, QWidget* parent = nullptr);
  void set_run(std::shared_ptr<const RunData> run);
  void set_highlight(std::optional<TaskId> task);
  void set_dark(bool dark);
  // The replay's current time during Play (a vertical line), or none.
  void set_playhead(std::optional<std::int64_t> time);
  // The range measured by a Shift-drag, or none; zoom_to_measure() shows just that range.
  std::optional<std::pair<std::int64_t, std::int64_t>> measured() const { return measure_; }
  void zoom_to_measure();
  const TimelineFigure& figure() const { return *figure_; }
  // Zoomed in time, a strip over the lanes shows the whole run with the window in view
  // outlined (a click there centres the window); the lanes sit below it.
  bool zoomed() const;
  QRectF overview_strip() const;
  QRectF overview_window() const;
  std::int64_t window_begin() const { return begin_; }
  std::int64_t window_end() const { return end_; }

 signals:
  void task_selected(std::optional<TaskId> task);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  // W/S zoom in and out around the middle, A/D pan (as Perfetto), Z zooms to the measured
  // range, Escape clears it.
  void keyPressEvent(QKeyEvent* event) override;
  QSize sizeHint() const override { return {900, 220}; }

 private:
  QRectF plot_area() const;  // the figure's area: the widget, less the overview strip when zoomed
  std::shared_ptr<const RunData> run_;
  std::unique_ptr<TimelineFigure> figure_;
  std::int64_t begin_ = 0, end_ = 1;
  std::optional<TaskId> highlight_;
  bool dark_ = false;
  std::optional<QPointF> drag_;
  bool measuring_ = false;
  std::optional<std::pair<std::int64_t, std::int64_t>> measure_;
  std::optional<std::int64_t> playhead_;
  void zoom(double factor, double at);  // at: the fixed point, a fraction of the window
};

// A time axis tick at t_ns, in the unit of the ticks' step with the decimals that step needs:
// every tick of one axis in one unit ("0 ms", "50 ms"; "1500 ms"), never "0 ns" beside
// "50.000 ms".
QString time_tick_label(double t_ns, double step_ns);
// A time axis for the window [begin, end) drawn over [left, left + width] at height y, in ink:
// the line, round ticks (about eight to the window) and their labels under it, in one unit,
// none cut at the edges of `bounds`. The timeline and the memory residency share it.
void paint_time_axis(QPainter& painter, const QRectF& bounds, double left, double width, double y, std::int64_t begin, std::int64_t end,
                     const QColor& ink);

}  // namespace tilelens::gui
