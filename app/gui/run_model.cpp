// The run browser's model.
#include "app/gui/run_model.hpp"

#include "core/units.hpp"
#include "core/policies.hpp"

namespace tilelens::gui {

void RunModel::set_runs(std::vector<StoredRun> runs) {
  beginResetModel();
  runs_ = std::move(runs);
  endResetModel();
}

QVariant RunModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const StoredRun& run = runs_[static_cast<std::size_t>(index.row())];
  const RunInfo& info = run.info;
  const auto* metrics = run.metrics ? &*run.metrics : nullptr;
  const bool sort = role == Qt::UserRole;
  if (role == Qt::TextAlignmentRole) {
    return index.column() >= Memory && index.column() != Mode && index.column() != Status
               ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
               : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  }
  if (role == Qt::ToolTipRole && index.column() == Workload) return QString::fromStdString(info.workload_spec);
  if (role != Qt::DisplayRole && !sort) return {};
  switch (index.column()) {
    case Id: return QVariant::fromValue<qlonglong>(info.id);
    case Workload: return QString::fromStdString(info.workload_spec.substr(0, info.workload_spec.find(",b=")));
    case Scheduler: return QString::fromStdString(short_scheduler_spec(info.scheduler));
    case Eviction: return QString::fromStdString(short_eviction_spec(info.eviction));
    case Memory:
      if (sort) return info.platform.memory_bytes;
      return QString::number(info.platform.memory_bytes / 1048576.0, 'f', 0) + " MiB";
    case Gpus: return info.platform.gpus;
    case Mode: return QString(to_string(info.mode));
    case Loads:
      if (!metrics || !info.transfers_recorded) return sort ? QVariant(-1.0) : QVariant("-");
      return QVariant::fromValue<qulonglong>(metrics->summary.loads);
    case Ratio:
      if (!metrics || !info.transfers_recorded) return sort ? QVariant(-1.0) : QVariant("-");
      if (sort) return metrics->ratio_to_lower_bound();
      return QString::number(metrics->ratio_to_lower_bound(), 'f', 2) + "x";
    case Gflops:
      if (!metrics) return sort ? QVariant(-1.0) : QVariant("-");
      if (sort) return metrics->summary.gflops;
      return QString::number(metrics->summary.gflops, 'f', 0);
    case Makespan:
      if (!metrics) return sort ? QVariant(-1.0) : QVariant("-");
      if (sort) return QVariant::fromValue<qlonglong>(metrics->summary.makespan_ns);
      return QString::fromStdString(format_duration(metrics->summary.makespan_ns));
    case Status: return QString(to_string(info.status));
    default: return {};
  }
}

QVariant RunModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
  static const char* names[] = {"id", "workload", "scheduler", "eviction", "memory", "GPUs", "mode", "loads", "ratio to LB", "GFlop/s", "makespan", "status"};
  return section >= 0 && section < ColumnCount ? QString(names[section]) : QVariant();
}

void RunFilter::set_words(const QString& text) {
  words_ = text.split(' ', Qt::SkipEmptyParts);
  invalidateRowsFilter();
}

bool RunFilter::filterAcceptsRow(int row, const QModelIndex& parent) const {
  if (words_.isEmpty()) return true;
  const QAbstractItemModel* model = sourceModel();
  QString text;
  for (int column = 0; column < model->columnCount(parent); ++column) {
    text += model->data(model->index(row, column, parent), Qt::DisplayRole).toString() + ' ';
    text += model->data(model->index(row, column, parent), Qt::ToolTipRole).toString() + ' ';
  }
  for (const QString& word : words_) {
    if (!text.contains(word, Qt::CaseInsensitive)) return false;
  }
  return true;
}

}  // namespace tilelens::gui
