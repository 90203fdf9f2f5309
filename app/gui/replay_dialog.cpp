// The replay dialog.
#include "app/gui/replay_dialog.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>
#include <functional>
#include <sstream>

#include "core/policies.hpp"
#include "core/units.hpp"
#include "core/presets.hpp"

namespace tilelens::gui {
namespace {

// A core error as this dialog words it: a field's problem under the form's label for it.
std::string form_message(const Error& error) {
  static const std::pair<const char*, const char*> kLabels[] = {
      {"workload", "Workload"},          {"scheduler", "Schedulers"},   {"eviction", "Eviction"},
      {"platform", "Platform"},          {"memory", "Memory per GPU"}, {"gpus", "GPUs"},
      {"bandwidth", "Bus bandwidth"},    {"buffer", "Task buffer"},     {"memory-model", "Memory model"},
      {"scheduling-cost", "Scheduling cost"}};
  if (error.field.empty()) return error.message;
  for (const auto& [field, label] : kLabels) {
    if (error.field == field) return std::string(label) + ": " + error.message;
  }
  return error.field + ": " + error.message;  // a field this form does not show
}

}  // namespace

ReplayDialog::ReplayDialog(QString database, QWidget* parent) : QDialog(parent), database_(std::move(database)) {
  setWindowTitle("Replay into " + database_);
  auto* form = new QFormLayout;
  workload_ = new QLineEdit("matmul2d:N=20");
  workload_->setToolTip("A generator spec, as tilelens replay --workload takes it");
  auto* generators = new QComboBox;
  generators->addItem("generators...");
  for (const auto& generator : workload_generators()) generators->addItem(QString::fromStdString(generator.name));
  workload_help_ = new QLabel;
  workload_help_->setWordWrap(true);
  workload_help_->setStyleSheet("color: gray");
  auto* workload_row = new QHBoxLayout;
  workload_row->addWidget(workload_, 1);
  workload_row->addWidget(generators);
  form->addRow("Workload", workload_row);
  form->addRow("", workload_help_);
  connect(generators, &QComboBox::currentIndexChanged, this, [this, generators](int index) {
    if (index <= 0) return;
    const auto& generator = workload_generators()[static_cast<std::size_t>(index - 1)];
    workload_->setText(QString::fromStdString(generator.name));
    QString help = QString::fromStdString(generator.summary) + "; parameters:";
    for (const auto& param : generator.params) help += QString(" %1=%2").arg(QString::fromStdString(param.key), QString::fromStdString(param.default_value));
    workload_help_->setText(help);
    generators->setCurrentIndex(0);
  });

  schedulers_ = new QListWidget;
  schedulers_->setSelectionMode(QAbstractItemView::MultiSelection);
  for (const auto& info : scheduler_registry()) {
    auto* item = new QListWidgetItem(QString::fromStdString(info.name));
    item->setToolTip(QString::fromStdString(info.summary));
    QString help = QString::fromStdString(info.name + ": " + info.summary);
    if (!info.params.empty()) {
      help += "; options:";
      for (const auto& param : info.params) help += QString(" %1=%2").arg(QString::fromStdString(param.key), QString::fromStdString(param.default_value));
    }
    item->setData(kHelpRole, help);
    schedulers_->addItem(item);
  }
  // Under the list, what the current scheduler does and the options it takes (load_plugins
  // sizes the list to show every entry, the plugins' included).
  form->addRow("Schedulers", schedulers_);
  scheduler_help_ = new QLabel;
  scheduler_help_->setObjectName("scheduler_help");
  scheduler_help_->setWordWrap(true);
  scheduler_help_->setStyleSheet("color: gray");
  // Room for the longest help (four lines at the dialog's width), from the top: a text taller
  // than its row would otherwise spill over the list above it.
  scheduler_help_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  scheduler_help_->setMinimumHeight(4 * scheduler_help_->fontMetrics().lineSpacing());
  form->addRow("", scheduler_help_);
  // Plugins (docs/plugins.md) from the folders of TILELENS_PLUGIN_PATH and the one chosen here.
  auto* plugin_row = new QHBoxLayout;
  plugins_label_ = new QLabel;
  plugins_label_->setObjectName("plugins_found");
  plugins_label_->setStyleSheet("color: gray");
  auto* plugin_folder = new QPushButton("Plugin folder...");
  plugin_row->addWidget(plugins_label_, 1);
  plugin_row->addWidget(plugin_folder);
  form->addRow("Plugins", plugin_row);
  connect(plugin_folder, &QPushButton::clicked, this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(this, "Folder of scheduler and eviction plugins", QSettings().value("plugins/folder").toString());
    if (folder.isEmpty()) return;
    QSettings().setValue("plugins/folder", folder);
    load_plugins();
  });
  connect(schedulers_, &QListWidget::currentRowChanged, this, [this](int row) {
    if (row < 0) return scheduler_help_->clear();
    scheduler_help_->setText(schedulers_->item(row)->data(kHelpRole).toString());
  });
  scheduler_options_ = new QLineEdit;
  scheduler_options_->setPlaceholderText("e.g. flip=0,ready=0 (each goes to the schedulers that take it)");
  form->addRow("Scheduler options", scheduler_options_);
  eviction_ = new QComboBox;
  for (const auto& info : eviction_registry()) eviction_->addItem(QString::fromStdString(info.name));
  form->addRow("Eviction", eviction_);
  platform_ = new QComboBox;
  for (const auto& preset : platform_presets()) {
    platform_->addItem(QString::fromStdString(preset.name));
    platform_->setItemData(platform_->count() - 1, QString::fromStdString(preset.summary), Qt::ToolTipRole);
  }
  form->addRow("Platform", platform_);
  memory_ = new QLineEdit("250MiB");
  memory_->setToolTip("500MiB, 2GB, or a count of data items: 4items");
  form->addRow("Memory per GPU", memory_);
  gpus_ = new QSpinBox;
  gpus_->setRange(1, 64);
  form->addRow("GPUs", gpus_);
  bandwidth_ = new QLineEdit;
  bandwidth_->setPlaceholderText("the preset's (e.g. 12GB/s)");
  form->addRow("Bus bandwidth", bandwidth_);
  buffer_ = new QSpinBox;
  buffer_->setRange(1, 1000);
  buffer_->setValue(4);
  form->addRow("Task buffer", buffer_);
  memory_model_ = new QComboBox;
  memory_model_->setEditable(true);  // a base with overrides: starpu:idle_writeback=0
  memory_model_->addItems({"starpu", "fgcs"});
  memory_model_->setToolTip(
      "How memory serves requests: starpu (StarPU 1.3's memory manager, optionally with key=value overrides "
      "of its rules; docs/replay.md lists them) or fgcs (the papers' model)");
  form->addRow("Memory model", memory_model_);
  scheduling_cost_ = new QLineEdit;
  scheduling_cost_->setPlaceholderText("free (e.g. push=3us,pop=1us,pop_per_task=20ns)");
  scheduling_cost_->setToolTip(
      "What each push and pop of the scheduler costs on the replay clock, as tilelens calibrate prints it; "
      "empty: decisions are free (docs/replay.md, Scheduling cost)");
  form->addRow("Scheduling cost", scheduling_cost_);

  load_plugins();
  restore_settings();
  // A form that can run at once: with nothing remembered, EAGER is chosen (the first scheduler,
  // the papers' baseline).
  if (schedulers_->selectedItems().isEmpty()) select_schedulers({spec_of(schedulers_->item(0))});
  setMinimumWidth(640);

  progress_ = new QProgressBar;
  progress_->setRange(0, 1);
  progress_->setValue(0);
  status_ = new QLabel("Select one or more schedulers, then Run.");
  status_->setWordWrap(true);
  run_ = new QPushButton("Run");
  run_->setDefault(true);
  cancel_ = new QPushButton("Close");
  auto* buttons = new QHBoxLayout;
  buttons->addStretch(1);
  buttons->addWidget(run_);
  buttons->addWidget(cancel_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(progress_);
  layout->addWidget(status_);
  layout->addLayout(buttons);

  connect(run_, &QPushButton::clicked, this, &ReplayDialog::start);
  connect(cancel_, &QPushButton::clicked, this, [this] {
    if (running()) {
      cancel_requested_ = true;  // the replay in progress stops at its next event
      status_->setText("Cancelling...");
    } else {
      reject();
    }
  });
  connect(this, &ReplayDialog::progress, this, [this](int done, int total, QString message) {
    progress_->setRange(0, total);
    progress_->setValue(done);
    status_->setText(message);
  }, Qt::QueuedConnection);
}

ReplayDialog::~ReplayDialog() {
  cancel_requested_ = true;
  if (worker_.joinable()) worker_.join();
}

// The form as last started, so that the next dialog opens where the user left it.
void ReplayDialog::remember_settings() const {
  QSettings settings;
  settings.beginGroup("replay");
  settings.setValue("workload", workload_->text());
  QStringList selected;
  for (int row = 0; row < schedulers_->count(); ++row) {
    if (schedulers_->item(row)->isSelected()) selected << spec_of(schedulers_->item(row));
  }
  settings.setValue("schedulers", selected);
  settings.setValue("scheduler_options", scheduler_options_->text());
  settings.setValue("eviction", eviction_spec());
  settings.setValue("platform", platform_->currentText());
  settings.setValue("memory", memory_->text());
  settings.setValue("gpus", gpus_->value());
  settings.setValue("bandwidth", bandwidth_->text());
  settings.setValue("buffer", buffer_->value());
  settings.setValue("memory_model", memory_model_->currentText());
  settings.setValue("scheduling_cost", scheduling_cost_->text());
}

void ReplayDialog::restore_settings() {
  QSettings settings;
  settings.beginGroup("replay");
  if (!settings.contains("workload")) return;
  workload_->setText(settings.value("workload").toString());
  select_schedulers(settings.value("schedulers").toStringList());
  scheduler_options_->setText(settings.value("scheduler_options").toString());
  select_eviction(settings.value("eviction").toString());
  platform_->setCurrentText(settings.value("platform").toString());
  memory_->setText(settings.value("memory").toString());
  gpus_->setValue(settings.value("gpus", 1).toInt());
  bandwidth_->setText(settings.value("bandwidth").toString());
  buffer_->setValue(settings.value("buffer", 4).toInt());
  memory_model_->setCurrentText(settings.value("memory_model", "starpu").toString());
  scheduling_cost_->setText(settings.value("scheduling_cost").toString());
}

void ReplayDialog::prefill(const RunInfo& run) {
  workload_->setText(QString::fromStdString(run.workload_spec));
  const std::string scheduler = run.scheduler.substr(0, run.scheduler.find(':'));
  select_schedulers({QString::fromStdString(scheduler)});
  select_eviction(QString::fromStdString(run.eviction.substr(0, run.eviction.find(':'))));
  if (platform_->findText(QString::fromStdString(run.platform.name)) >= 0) platform_->setCurrentText(QString::fromStdString(run.platform.name));
  memory_->setText(QString::fromStdString(format_fixed(run.platform.memory_bytes / 1048576.0, 2)) + "MiB");
  gpus_->setValue(static_cast<int>(run.platform.gpus));
  bandwidth_->setText(QString::fromStdString(format_fixed(run.platform.bus_bandwidth / 1e9, 3)) + "GB/s");
  buffer_->setValue(static_cast<int>(run.buffer_depth));
  // The model as its short spec: only the rules that differ from its defaults.
  if (!run.memory_model.empty()) memory_model_->setCurrentText(QString::fromStdString(short_memory_model_spec(run.memory_model)));
  scheduling_cost_->setText(QString::fromStdString(run.scheduling_cost));
}

QString ReplayDialog::spec_of(const QListWidgetItem* item) {
  const QVariant spec = item->data(kSpecRole);
  return spec.isValid() ? spec.toString() : item->text();
}

QString ReplayDialog::eviction_spec() const {
  const QVariant spec = eviction_->currentData(kSpecRole);
  return spec.isValid() ? spec.toString() : eviction_->currentText();
}

void ReplayDialog::select_eviction(const QString& spec) {
  for (int index = 0; index < eviction_->count(); ++index) {
    const QVariant own = eviction_->itemData(index, kSpecRole);
    if ((own.isValid() ? own.toString() : eviction_->itemText(index)) == spec) eviction_->setCurrentIndex(index);
  }
}

void ReplayDialog::load_plugins() {
  // Forget the plugins listed before, then list every *.so of the folders that loads as one.
  for (int row = schedulers_->count() - 1; row >= 0; --row) {
    if (schedulers_->item(row)->data(kSpecRole).isValid()) delete schedulers_->takeItem(row);
  }
  for (int index = eviction_->count() - 1; index >= 0; --index) {
    if (eviction_->itemData(index, kSpecRole).isValid()) eviction_->removeItem(index);
  }
  QStringList folders = qEnvironmentVariable("TILELENS_PLUGIN_PATH").split(':', Qt::SkipEmptyParts);
  if (const QString chosen = QSettings().value("plugins/folder").toString(); !chosen.isEmpty()) folders << chosen;
  int found = 0;
  for (const QString& folder : folders) {
    for (const QFileInfo& file : QDir(folder).entryInfoList({"*.so"}, QDir::Files, QDir::Name)) {
      const std::string path = file.absoluteFilePath().toStdString();
      if (auto made = make_scheduler(path)) {
        auto* item = new QListWidgetItem(QString::fromStdString(short_scheduler_spec(made->spec)) + " (plugin)");
        item->setData(kSpecRole, file.absoluteFilePath());
        item->setData(kHelpRole, QString("%1: a scheduler plugin, %2").arg(item->text(), file.absoluteFilePath()));
        item->setToolTip(file.absoluteFilePath());
        schedulers_->addItem(item);
        ++found;
      }
      if (auto made = make_eviction(path)) {
        eviction_->addItem(QString::fromStdString(short_eviction_spec(made->spec)) + " (plugin)");
        eviction_->setItemData(eviction_->count() - 1, file.absoluteFilePath(), kSpecRole);
        eviction_->setItemData(eviction_->count() - 1, file.absoluteFilePath(), Qt::ToolTipRole);
        ++found;
      }
    }
  }
  plugins_label_->setText(folders.isEmpty() ? QString("none: set TILELENS_PLUGIN_PATH or choose a folder")
                                            : QString("%1 found in %2").arg(found).arg(folders.join(", ")));
  // Every scheduler in view at once: no name cut at the bottom.
  schedulers_->setMinimumHeight(schedulers_->sizeHintForRow(0) * schedulers_->count() + 2 * schedulers_->frameWidth() + 2);
  schedulers_->setMaximumHeight(schedulers_->minimumHeight());
}

void ReplayDialog::set_workload(const QString& spec) { workload_->setText(spec); }
void ReplayDialog::set_memory(const QString& memory) { memory_->setText(memory); }
void ReplayDialog::select_schedulers(const QStringList& names) {
  int first = -1;
  for (int row = 0; row < schedulers_->count(); ++row) {
    const bool selected = names.contains(spec_of(schedulers_->item(row)));
    schedulers_->item(row)->setSelected(selected);
    if (selected && first < 0) first = row;
  }
  // The help under the list describes the first one chosen.
  if (first >= 0) schedulers_->setCurrentRow(first, QItemSelectionModel::NoUpdate);
}

Result<std::vector<core::ReplayRequest>> ReplayDialog::replay_requests() const {
  core::ReplayRequest base;
  base.workload = workload_->text().trimmed().toStdString();
  base.eviction = eviction_spec().toStdString();
  base.platform.base = platform_->currentText().toStdString();
  base.platform.gpus = static_cast<std::uint32_t>(gpus_->value());
  base.buffer_depth = static_cast<std::uint32_t>(buffer_->value());
  base.memory_model = memory_model_->currentText().trimmed().toStdString();
  base.scheduling_cost = scheduling_cost_->text().trimmed().toStdString();
  // The fields that take the command line's units go through the same platform options.
  for (const auto& [name, field] : {std::pair{"memory", memory_}, std::pair{"bandwidth", bandwidth_}}) {
    const std::string text = field->text().trimmed().toStdString();
    if (text.empty()) continue;
    if (auto status = core::find_platform_option(name)->set(text, base.platform); !status) return status.error();
  }
  std::vector<core::ReplayRequest> requests;
  const std::string options = scheduler_options_->text().trimmed().toStdString();
  for (int row = 0; row < schedulers_->count(); ++row) {
    if (!schedulers_->item(row)->isSelected()) continue;
    core::ReplayRequest request = base;
    request.scheduler = spec_of(schedulers_->item(row)).toStdString();
    if (!options.empty()) {
      // Only the options this scheduler declares: "flip=0" goes to hfp, not to eager.
      std::string kept;
      for (const auto& info : scheduler_registry()) {
        if (info.name != request.scheduler) continue;
        std::stringstream list(options);
        std::string pair;
        while (std::getline(list, pair, ',')) {
          const std::string key = pair.substr(0, pair.find('='));
          for (const auto& param : info.params) {
            if (param.key == key) kept += (kept.empty() ? "" : ",") + pair;
          }
        }
      }
      if (!kept.empty()) request.scheduler += ":" + kept;
    }
    requests.push_back(std::move(request));
  }
  return requests;
}

void ReplayDialog::start() {
  if (running()) return;
  if (worker_.joinable()) worker_.join();
  auto requests = replay_requests();
  if (!requests) {
    status_->setText(QString::fromStdString(form_message(requests.error())));
    return;
  }
  if (requests->empty()) {
    status_->setText("Select at least one scheduler.");
    return;
  }
  remember_settings();
  cancel_requested_ = false;
  finished_ = false;
  run_->setEnabled(false);
  cancel_->setText("Cancel");
  // The bar counts tasks: each run is kSteps steps, advanced as its tasks start.
  constexpr int kSteps = 1000;
  progress_->setRange(0, static_cast<int>(requests->size()) * kSteps);
  progress_->setValue(0);
  status_->setText("Replaying...");
  worker_ = std::thread([this, requests = std::move(*requests), database = database_.toStdString()] {
    int done = 0, failed = 0;
    std::string last_error;
    const int total = static_cast<int>(requests.size());
    // Counts the tasks of the run in progress, and reports each thousandth of them.
    struct TaskCounter final : ReplayObserver {
      std::function<void(double)> report;
      std::size_t tasks = 1, started = 0;
      int shown = -1;
      void on_start(const Workload& workload) override {
        tasks = std::max<std::size_t>(1, workload.task_count());
        started = 0;
        shown = -1;
      }
      void on_task(const TaskRecord&) override {
        const int step = static_cast<int>(kSteps * ++started / tasks);
        if (step != shown) report(static_cast<double>(shown = step) / kSteps);
      }
    } counter;
    for (const auto& request : requests) {
      if (cancel_requested_) break;
      const QString name = QString::fromStdString(request.scheduler);
      counter.report = [&](double fraction) {
        emit progress(done * kSteps + static_cast<int>(fraction * kSteps), total * kSteps,
                      QString("Replaying %1 (%2 of %3): %4% of its tasks...").arg(name).arg(done + 1).arg(total).arg(static_cast<int>(fraction * 100)));
      };
      counter.report(0);
      core::RunOutputs outputs = core::stored_in(database);
      outputs.observer = &counter;
      outputs.cancel = &cancel_requested_;
      auto outcome = core::run_replay(request, outputs);
      if (outcome && outcome->cancelled) break;
      if (!outcome || !outcome->error.empty()) {
        ++failed;
        last_error = !outcome ? form_message(outcome.error()) : outcome->error;
      } else {
        emit run_stored();
      }
      ++done;
    }
    const bool cancelled = cancel_requested_;
    emit progress(done * kSteps, total * kSteps,
                  failed ? QString("%1 of %2 failed: %3").arg(failed).arg(total).arg(QString::fromStdString(last_error).trimmed())
                         : QString("%1 run%2 stored%3.").arg(done - failed).arg(done - failed == 1 ? "" : "s").arg(cancelled ? " (cancelled)" : ""));
    QMetaObject::invokeMethod(this, [this, done, failed, cancelled] { finish(done, failed, cancelled); }, Qt::QueuedConnection);
  });
}

void ReplayDialog::finish(int done, int failed, bool cancelled) {
  finished_ = true;
  if (worker_.joinable()) worker_.join();
  run_->setEnabled(true);
  cancel_->setText("Close");
  emit finished_all(done, failed, cancelled);
}

}  // namespace tilelens::gui
