// A paper's figure in one command (`tilelens-gui --figure NAME --db FILE --out BASE`): the
// preset's runs (presets/experiments.hpp), replayed into the database through the core API
// where they are missing, then drawn as the paper lays the figure out, to BASE.png, BASE.pdf
// and BASE.svg. The order visualisations (fgcs Figs. 8-10, 12, 13; darts Figs. 8, 9, 13) are
// tile-order panels side by side, one per policy, with the paper's sub-captions and a
// legend; every other preset gives its curves: data transferred (BASE-transfers) and GFlop/s
// (BASE-gflops). The lahp presets add lahp's bar panels (BASE-panels, Figs. 5-8): the speedup
// over Heteroprio, the data moved and the BMD, per size and policy.
#pragma once

#include <QString>
#include <QStringList>
#include <functional>

#include "core/sweep.hpp"

namespace tilelens::gui {

struct PaperFigure {
  std::int64_t sweep_id = 0;
  QStringList files;  // what was written
};

Result<PaperFigure> make_paper_figure(const SweepPreset& preset, const QString& database, const QString& base, bool dark,
                                      const std::function<void(const core::SweepProgress&)>& progress = {});

}  // namespace tilelens::gui
