// How the app draws a worker's states (analysis/time_split.hpp), the same in the timeline's
// compute lanes and in the "where time went" bars: busy in blue, waiting for data hatched in the
// fetches' vermillion (StarPU's FetchingInput), no ready task blank, the scheduler's cost
// cross-hatched in reddish purple.
#pragma once

#include <QBrush>
#include <QString>

#include "core/analysis.hpp"

namespace tilelens::gui {

QBrush worker_state_brush(WorkerState state, bool dark);
// What each state means, for legends' tooltips and the bars' hover text.
QString worker_state_meaning(WorkerState state);

}  // namespace tilelens::gui
