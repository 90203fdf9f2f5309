// The pages of the main window's tabs. A FigurePage can paint its figure anywhere (export).
// RunPage: one run's tile-order figure with its controls (colour mode, chunk size, numbers,
// loads, the order slider with play/pause for the step-by-step replay) and its metrics.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>
#include <thread>

#include "app/gui/figure_export.hpp"
#include "app/gui/residency_view.hpp"
#include "app/gui/tile_view.hpp"
#include "app/gui/time_split_view.hpp"
#include "app/gui/timeline.hpp"

class QSlider;
class QLabel;
class QProgressBar;
class QTabWidget;
class QTimer;
class QToolBar;

namespace tilelens::gui {

class FigurePage {
 public:
  virtual ~FigurePage() = default;
  virtual PaintFunction paint_function() const = 0;
  virtual QSize figure_size() const = 0;
  virtual QString figure_name() const = 0;  // a file name stem: "run-12-tile-order"
};

// The controls shared by the run and comparison pages, acting on a set of tile views.
class TileControls : public QWidget {
  Q_OBJECT
 public:
  TileControls(std::vector<TileView*> views, std::uint32_t tasks, QWidget* parent = nullptr);
  void set_dark(bool dark);

 signals:
  // The step-by-step position: the tasks shown so far (all of them: none).
  void limit_changed(std::optional<std::uint32_t> limit);

 public:

 private:
  void apply();
  std::vector<TileView*> views_;
  QSlider* slider_ = nullptr;
  QTimer* timer_ = nullptr;
  TileOptions options_;
};

class RunPage : public QWidget, public FigurePage {
  Q_OBJECT
 public:
  RunPage(std::shared_ptr<const RunData> run, QWidget* parent = nullptr);
  PaintFunction paint_function() const override;
  QSize figure_size() const override { return {900, 960}; }
  QString figure_name() const override;
  TileView* view() const { return view_; }
  TimelineView* timeline() const { return timeline_; }
  TimeSplitView* time_split() const { return time_split_; }
  ResidencyView* residency() const { return residency_; }
  const RunData& run() const { return *run_; }
  ~RunPage() override;
  void set_dark(bool dark) {
    controls_->set_dark(dark);
    timeline_->set_dark(dark);
    time_split_->set_dark(dark);
    residency_->set_dark(dark);
  }
  // Replays the run at `factor` times its memory on a worker thread and shows the result
  // (factor 1 shows the stored run again).
  void what_if(double factor);
  bool what_if_running() const { return worker_.joinable(); }

 signals:
  void what_if_shown(double memory_bytes);

 private:
  void start_what_if(double factor);
  // The stored run or a what-if replay, in every view of the page.
  void show_run(const std::shared_ptr<const RunData>& run);
  std::shared_ptr<const RunData> run_;
  TileView* view_ = nullptr;
  TimelineView* timeline_ = nullptr;
  TimeSplitView* time_split_ = nullptr;
  ResidencyView* residency_ = nullptr;
  QTabWidget* time_views_ = nullptr;  // the timeline and the memory residency
  TileControls* controls_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* memory_label_ = nullptr;
  QProgressBar* busy_ = nullptr;  // shown while a what-if replays
  std::thread worker_;
  std::optional<double> pending_;
};

// One line of metrics for a run: loads (fetch / prefetch), bytes, ratio to the bound, GFlop/s.
QString metrics_line(const RunData& run);
// An imported run's import report: "import report: 2 warnings, 5 notes" (empty when it has
// none), and its lines, warnings first, as tilelens import prints them.
QString import_report_summary(const ImportReport& report);
// The warnings and notes, the records' summary, and with `every_record` each record (the dialog;
// the tooltip leaves them out).
QString import_report_text(const ImportReport& report, bool every_record);

}  // namespace tilelens::gui
