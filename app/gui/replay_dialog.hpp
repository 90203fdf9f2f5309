// Replay from the GUI: a dialog to pick a workload (a generator spec, with the generators and
// their parameters listed), one or more schedulers, an eviction policy, a platform preset and
// its memory, GPUs and bus; the form becomes one core::ReplayRequest per scheduler, replayed
// one after the other on a worker thread (core::run_replay, as `tilelens replay --db` does)
// with a progress bar counting tasks and a Cancel that stops the run in progress (nothing of
// it is stored), so the runs land in the database and the browser lists them. The form opens
// on the open run's settings, else on the last ones started. The scheduler list and the
// eviction choices include the plugins found in TILELENS_PLUGIN_PATH's folders and in the folder
// chosen with "Plugin folder..." (docs/plugins.md).
#pragma once

#include <QDialog>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "core/replay_request.hpp"

class QLineEdit;
class QListWidget;
class QComboBox;
class QSpinBox;
class QProgressBar;
class QPushButton;
class QLabel;
class QListWidgetItem;

namespace tilelens::gui {

class ReplayDialog : public QDialog {
  Q_OBJECT
 public:
  ReplayDialog(QString database, QWidget* parent = nullptr);
  ~ReplayDialog() override;

  // The replays the form describes, one per selected scheduler; an error names the field.
  Result<std::vector<core::ReplayRequest>> replay_requests() const;
  // The form set to an open run's settings (File > Replay with a run open).
  void prefill(const RunInfo& run);
  void set_workload(const QString& spec);
  void select_schedulers(const QStringList& names);
  void set_memory(const QString& memory);
  void start();
  bool running() const { return worker_.joinable() && !finished_; }

 signals:
  void run_stored();                   // after each stored run
  void finished_all(int done, int failed, bool cancelled);
  void progress(int done, int total, QString message);  // from the worker thread

 private:
  void finish(int done, int failed, bool cancelled);
  void remember_settings() const;
  void restore_settings();
  // Lists the plugins of TILELENS_PLUGIN_PATH's folders and the folder chosen in the dialog.
  void load_plugins();
  // A listed policy's spec: a plugin's path (kSpecRole), or a built-in's name.
  static QString spec_of(const QListWidgetItem* item);
  QString eviction_spec() const;
  void select_eviction(const QString& spec);
  static constexpr int kSpecRole = Qt::UserRole + 1, kHelpRole = Qt::UserRole + 2;

  QString database_;
  QLineEdit* workload_ = nullptr;
  QLabel* workload_help_ = nullptr;
  QListWidget* schedulers_ = nullptr;
  QLabel* scheduler_help_ = nullptr;  // what the current scheduler does, and its options
  QLabel* plugins_label_ = nullptr;   // how many plugins were found, and where
  QLineEdit* scheduler_options_ = nullptr;
  QComboBox* eviction_ = nullptr;
  QComboBox* platform_ = nullptr;
  QLineEdit* memory_ = nullptr;
  QSpinBox* gpus_ = nullptr;
  QLineEdit* bandwidth_ = nullptr;
  QSpinBox* buffer_ = nullptr;
  QComboBox* memory_model_ = nullptr;
  QLineEdit* scheduling_cost_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  QPushButton* run_ = nullptr;
  QPushButton* cancel_ = nullptr;
  std::thread worker_;
  std::atomic<bool> cancel_requested_{false};
  std::atomic<bool> finished_{false};
};

}  // namespace tilelens::gui
