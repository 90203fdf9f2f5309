// Memory residency (StarVZ's memory panel, Nsight's memory rows): per GPU, one row per datum it
// ever held, grouped by matrix, and along time each stay (analysis/residency.hpp): loading in a
// pale shade, resident in the datum's matrix colour, and a mark where it left saying why
// (evicted clean for room, written back first, or invalidated by a write elsewhere). Hover a stay
// for its story; click it to select the task it was loaded for, on the tiles and the timeline;
// a task selected elsewhere marks its data's rows and its start. Painted with any QPainter
// (the window, --export residency).
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "app/gui/run_data.hpp"

namespace tilelens::gui {

class ResidencyFigure {
 public:
  explicit ResidencyFigure(const RunData& run);
  void paint(QPainter& painter, const QRectF& area, std::optional<TaskId> highlight, bool dark) const;
  // The stay under `point` (an index in stays()), if any.
  std::optional<std::size_t> stay_at(const QRectF& area, QPointF point) const;
  QString tooltip_at(const QRectF& area, QPointF point) const;
  // The task a stay's data came for (the load's or allocation's task), if the trace says.
  std::optional<TaskId> task_of(std::size_t stay) const;
  // Where a stay's resident part lies (its loading part is to its left).
  QRectF stay_rect(const QRectF& area, std::size_t stay) const;
  const std::vector<Residency>& stays() const { return stays_; }
  std::int64_t duration() const { return end_ns_; }

 private:
  struct Panel {
    GpuId gpu;
    std::vector<DataId> rows;  // by matrix, then tile position, then id
  };
  struct Layout {
    double left, width, top;
    std::vector<double> panel_top;  // per panel: the y of its first row
    double row_height;
  };
  Layout layout(const QRectF& area) const;
  QRectF stay_rect(const Layout& l, std::size_t stay) const;
  double x_of(const Layout& l, std::int64_t t) const;

  const RunData& run_;
  std::vector<Residency> stays_;
  std::vector<Panel> panels_;
  std::vector<std::size_t> panel_of_gpu_;   // per GPU: its panel, or npos
  std::vector<std::vector<std::uint32_t>> row_of_;  // per panel, per datum: its row (kNoId if never there)
  std::int64_t end_ns_ = 1;
  std::size_t total_rows_ = 0;
};

class ResidencyView : public QWidget {
  Q_OBJECT
 public:
  explicit ResidencyView(std::shared_ptr<const RunData> run, QWidget* parent = nullptr);
  void set_run(std::shared_ptr<const RunData> run);
  void set_highlight(std::optional<TaskId> task);
  void set_dark(bool dark);
  const ResidencyFigure& figure() const { return *figure_; }

 signals:
  void task_selected(std::optional<TaskId> task);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;  // tooltips

 private:
  std::shared_ptr<const RunData> run_;
  std::unique_ptr<ResidencyFigure> figure_;
  std::optional<TaskId> highlight_;
  bool dark_ = false;
};

}  // namespace tilelens::gui
