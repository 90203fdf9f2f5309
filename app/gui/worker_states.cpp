// The brushes and words of the worker states; see worker_states.hpp.
#include "app/gui/worker_states.hpp"

namespace tilelens::gui {

QBrush worker_state_brush(WorkerState state, bool dark) {
  switch (state) {
    case WorkerState::Busy: return QBrush(QColor(0, 114, 178));
    case WorkerState::WaitingForData: return QBrush(QColor(213, 94, 0), Qt::BDiagPattern);
    case WorkerState::NoReadyTask: return QBrush(dark ? QColor(60, 60, 66) : QColor(235, 235, 235));
    case WorkerState::SchedulerCost: return QBrush(QColor(204, 121, 167), Qt::DiagCrossPattern);
  }
  return {};
}

QString worker_state_meaning(WorkerState state) {
  switch (state) {
    case WorkerState::Busy: return "executing a task";
    case WorkerState::WaitingForData: return "holding its next task, whose data are not all there yet";
    case WorkerState::NoReadyTask: return "holding no task: the scheduler had none for it";
    case WorkerState::SchedulerCost: return "the scheduler's charged preparation, before any task starts";
  }
  return {};
}

}  // namespace tilelens::gui
