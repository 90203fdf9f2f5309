// The runs of a database as a table (the run browser): workload, scheduler, eviction, memory,
// GPUs, mode, loads, ratio to the lower bound, GFlop/s, makespan. Sorting uses the numbers,
// not their text (Qt::UserRole).
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QStringList>
#include <vector>

#include "core/store.hpp"

namespace tilelens::gui {

class RunModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Id, Workload, Scheduler, Eviction, Memory, Gpus, Mode, Loads, Ratio, Gflops, Makespan, Status, ColumnCount };

  explicit RunModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void set_runs(std::vector<StoredRun> runs);
  const StoredRun& run_at(int row) const { return runs_[static_cast<std::size_t>(row)]; }

  int rowCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : static_cast<int>(runs_.size()); }
  int columnCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : ColumnCount; }
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<StoredRun> runs_;
};

// The browser's filter: every word typed must appear in some column of the run (any order,
// any case), so "hfp belady" keeps the runs of HFP with Belady.
class RunFilter : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;
  void set_words(const QString& text);

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

 private:
  QStringList words_;
};

}  // namespace tilelens::gui
