// "Where time went": per worker, a bar of its span split into busy, waiting for data, no ready
// task and scheduler cost (analysis/time_split.hpp), in the timeline's own brushes, with an
// "all workers" bar when there are several; each segment's share is written in it where it
// fits and given on hover. A click on a segment selects the task it leads to (the row's
// longest task, or the one its longest wait of that state held back), which the run page marks
// on the tiles, the timeline and the memory residency. Painted with any QPainter (the window,
// --export time-split).
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "app/gui/run_data.hpp"

namespace tilelens::gui {

class TimeSplitFigure {
 public:
  explicit TimeSplitFigure(const RunData& run) : run_(run) {}
  void paint(QPainter& painter, const QRectF& area, bool dark) const;
  // The bars: one per worker, then the sum over workers when there are several.
  std::size_t rows() const;
  // Where a row's segment of `state` lies in `area` (empty when the state took no time).
  QRectF segment_rect(const QRectF& area, std::size_t row, WorkerState state) const;
  // What lies under `point`: the row's name, the state, its time and share; empty for nothing.
  QString tooltip_at(const QRectF& area, QPointF point) const;
  // The segment under `point`, as (row, state).
  std::optional<std::pair<std::size_t, WorkerState>> segment_at(const QRectF& area, QPointF point) const;
  // The task a segment leads to: busy, the row's longest task; a wait, the task that started
  // when the row's longest interval of that state ended (the one it held back). None when the
  // state took no time, or no task started after it.
  std::optional<TaskId> task_of(std::size_t row, WorkerState state) const;
  // The height that gives each bar `bar` pixels.
  int height_for(int bar) const;

 private:
  struct Layout {
    double top, left, width, row_height;
  };
  Layout layout(const QRectF& area) const;
  const WorkerTime& row_time(std::size_t row, WorkerTime& scratch) const;
  QString row_name(std::size_t row) const;

  const RunData& run_;
};

class TimeSplitView : public QWidget {
  Q_OBJECT
 public:
  explicit TimeSplitView(std::shared_ptr<const RunData> run, QWidget* parent = nullptr);
  void set_run(std::shared_ptr<const RunData> run);
  void set_dark(bool dark);
  const TimeSplitFigure& figure() const { return *figure_; }
  QSize sizeHint() const override;

 signals:
  void task_selected(std::optional<TaskId> task);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;  // tooltips

 private:
  std::shared_ptr<const RunData> run_;
  std::unique_ptr<TimeSplitFigure> figure_;
  bool dark_ = false;
};

}  // namespace tilelens::gui
