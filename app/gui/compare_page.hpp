// Side by side: two or more runs' tile-order figures with linked zoom and selection, a
// metrics table (with second - first for two runs), and for two runs of the same workload a
// difference map with the same sign: per tile, the loads attributed to it in the second run
// minus those in the first (blue: the second loads less, red: more), on a labelled scale.
#pragma once

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

class ComparePage : public QWidget, public FigurePage {
  Q_OBJECT
 public:
  ComparePage(std::vector<std::shared_ptr<const RunData>> runs, QWidget* parent = nullptr);
  PaintFunction paint_function() const override;
  QSize figure_size() const override { return {static_cast<int>(520 * views_.size()), 560}; }
  QString figure_name() const override;
  const std::vector<TileView*>& views() const { return views_; }
  void set_dark(bool dark);

 private:
  std::vector<std::shared_ptr<const RunData>> runs_;
  std::vector<TileView*> views_;
  TileControls* controls_ = nullptr;
  QWidget* difference_ = nullptr;
};

}  // namespace tilelens::gui
