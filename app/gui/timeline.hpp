// The timeline of a run (issue 5 item 5): per GPU a compute lane (task bars coloured by kind),
// a fetch lane and a prefetch lane (each load from issue to arrival), eviction ticks, and the
// memory in use as a curve against M. Painted with any QPainter like the tile figure; the
// widget zooms (wheel) and pans (drag) in time, and shares the selected task with the tile view.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "app/gui/run_data.hpp"
#include "formats/exports.hpp"

namespace tilelens::gui {

class TimelineFigure {
 public:
  explicit TimelineFigure(const RunData& run);
  // Paints the time window [begin, end) (ns) into `area`.
  void paint(QPainter& painter, const QRectF& area, std::int64_t begin, std::int64_t end, std::optional<TaskId> highlight,
             bool dark) const;
  std::optional<TaskId> task_at(const QRectF& area, std::int64_t begin, std::int64_t end, QPointF point) const;
  std::int64_t duration() const { return end_ns_; }

 private:
  struct Lanes {
    double label_width, axis_height, lane_height;
  };
  Lanes lanes(const QRectF& area) const;
  // A GPU worker has four lanes (compute, fetch, prefetch, memory), a CPU worker one (compute:
  // it computes from the host and loads nothing).
  int lane_count(GpuId worker) const { return run_.is_cpu(worker) ? 1 : 4; }

  const RunData& run_;
  std::vector<int> first_lane_;  // per worker
  int total_lanes_ = 0;
  std::int64_t end_ns_ = 1;
  std::vector<MemoryStep> memory_;
};

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(std::shared_ptr<const RunData> run, QWidget* parent = nullptr);
  void set_run(std::shared_ptr<const RunData> run);
  void set_highlight(std::optional<TaskId> task);
  void set_dark(bool dark);
  const TimelineFigure& figure() const { return *figure_; }
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
  QSize sizeHint() const override { return {900, 220}; }

 private:
  std::shared_ptr<const RunData> run_;
  std::unique_ptr<TimelineFigure> figure_;
  std::int64_t begin_ = 0, end_ = 1;
  std::optional<TaskId> highlight_;
  bool dark_ = false;
  std::optional<QPointF> drag_;
};

}  // namespace tilelens::gui
