// Side by side: two or more runs' tile-order figures with linked zoom and selection, a
// metrics table (with second - first for two runs), and for two runs of the same workload a
// difference map with the same sign: per tile, the loads attributed to it in the second run
// minus those in the first (blue: the second loads less, red: more), on a labelled scale; and
// for each run of the first one's workload, where its schedule parts from the first's.
#pragma once

#include <QLabel>
#include <QWidget>
#include <memory>

#include "app/gui/run_page.hpp"

namespace tilelens::gui {

// Paints the difference map of two runs of the same workload.
void paint_difference(QPainter& painter, const QRectF& area, const RunData& a, const RunData& b, bool dark);
// Paints several runs' figures side by side, each with its options (what a ComparePage
// exports, and tilelens-gui --export side-by-side).
struct FigurePanel {
  const TileFigure* figure;
  TileOptions options;
};
void paint_side_by_side(QPainter& painter, const QRectF& area, const std::vector<FigurePanel>& panels);
// "#1 and #2 part at task start 13 of 400: #1 starts ..., #2 .... Loads from there: ...": where
// the second run's schedule leaves the first's (analysis/divergence.hpp), counted from 1.
QString divergence_text(const RunData& first, const RunData& second, const Divergence& part);

class ComparePage : public QWidget, public FigurePage {
  Q_OBJECT
 public:
  ComparePage(std::vector<std::shared_ptr<const RunData>> runs, QWidget* parent = nullptr);
  PaintFunction paint_function() const override;
  QSize figure_size() const override { return {static_cast<int>(520 * views_.size()), 560}; }
  QString figure_name() const override;
  const std::vector<TileView*>& views() const { return views_; }
  // One line per run that parts from the first (same workload, traces stored), whose link
  // calls mark_divergence: the task each of the two runs started there is selected on its tiles.
  const std::vector<QLabel*>& divergences() const { return divergences_; }
  void mark_divergence(std::size_t index);
  void set_dark(bool dark);

 private:
  std::vector<std::shared_ptr<const RunData>> runs_;
  std::vector<TileView*> views_;
  TileControls* controls_ = nullptr;
  QWidget* difference_ = nullptr;
  std::vector<QLabel*> divergences_;
  std::vector<std::pair<std::size_t, Divergence>> divergence_marks_;  // the other run's index, and where it parts
};

}  // namespace tilelens::gui
