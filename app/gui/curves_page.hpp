// Load and throughput curves of a sweep (fgcs Figs. 5-7, 11; darts Figs. 6, 12, 14), drawn
// with Qt Charts: data transferred (or GFlop/s) against the working set, or against the memory
// when the sweep varies the memory; one series per policy; the lower bound (solid black), the
// bus limit (dotted black), the peak throughput (dotted black, GFlop/s view) and the memory
// marks (red: M holds one input matrix, orange: both, green: the whole working set, dotted
// verticals). Hover a point for its run; click it to open the run.
#pragma once

#include <QWidget>
#include <vector>

#include "app/gui/run_page.hpp"
#include "core/store.hpp"

class QChartView;
class QComboBox;
class QCheckBox;

namespace tilelens::gui {

// The curves' data, computed from the runs of a sweep (no Qt): what the chart and its tests use.
struct CurvePoint {
  double x = 0, bytes = 0, gflops = 0;
  std::int64_t run_id = 0;
};
struct CurveSeries {
  std::string label;  // "hfp/belady"
  std::vector<CurvePoint> points;  // by x
};
struct SweepCurves {
  bool memory_axis = false;  // x is the memory per GPU, else the working set
  std::vector<CurveSeries> series;
  std::vector<std::pair<double, double>> lower_bound, bus_limit;  // (x, bytes)
  double peak_gflops = 0;
  // Memory marks on the x axis (0 when unknown): one input matrix, both, the working set.
  double red = 0, orange = 0, green = 0;
  std::string description;  // "sweep 3: matmul2d (18 sizes), M = 500 MiB, 1 GPU (v100-fgcs)", for titles
};
Result<SweepCurves> sweep_curves(db::Store& store, std::int64_t sweep_id);
// What hovering a point says: its series, its x (the memory or the working set), its value and
// its run.
QString curve_point_tooltip(const CurveSeries& series, const CurvePoint& point, bool throughput, bool memory_axis);

class CurvesPage : public QWidget, public FigurePage {
  Q_OBJECT
 public:
  CurvesPage(SweepCurves curves, QString title, QWidget* parent = nullptr);
  PaintFunction paint_function() const override;
  QSize figure_size() const override { return {1100, 700}; }
  QString figure_name() const override { return "sweep-curves"; }
  void set_dark(bool dark);
  void set_throughput(bool throughput);

 signals:
  void run_clicked(std::int64_t run_id);

 private:
  void rebuild();
  SweepCurves curves_;
  QString title_;
  QChartView* view_ = nullptr;
  QComboBox* metric_ = nullptr;
  QCheckBox* log_ = nullptr;
  bool dark_ = false;
};

}  // namespace tilelens::gui
