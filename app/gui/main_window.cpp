// The main window.
#include "app/gui/main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QUrl>
#include <QCoreApplication>
#include <QFile>
#include <QDir>
#include <QHeaderView>
#include <QItemSelection>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMap>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QStackedWidget>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTabWidget>
#include <QPointer>
#include <QThread>
#include <QTableView>
#include <QVBoxLayout>
#include <fstream>
#include <set>

#include "app/gui/compare_page.hpp"
#include "app/gui/curves_page.hpp"
#include "app/gui/example.hpp"
#include "app/gui/replay_dialog.hpp"
#include "app/gui/run_model.hpp"
#include "core/exports.hpp"

namespace tilelens::gui {

QString example_database_path() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/example.db";
}

MainWindow::MainWindow() {
  setWindowTitle("tilelens");
  setAcceptDrops(true);
  model_ = new RunModel(this);
  proxy_ = new RunFilter(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(Qt::UserRole);

  auto* browser = new QWidget;
  auto* layout = new QVBoxLayout(browser);
  layout->setContentsMargins(2, 2, 2, 2);
  filter_ = new QLineEdit;
  filter_->setPlaceholderText("filter runs: words in any column (hfp belady)");
  filter_->setClearButtonEnabled(true);
  filter_->installEventFilter(this);  // the window's shortcuts (Ctrl+E) work from the filter too
  table_ = new QTableView;
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(RunModel::Id, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setToolTip("Select a run to preview it; select two or more (Ctrl-click) to compare them; Enter keeps the selection in a tab");
  layout->addWidget(filter_);
  layout->addWidget(table_, 1);
  browser->setMinimumWidth(240);  // the list stays readable when the window narrows
  auto* dock = new QDockWidget("Runs", this);
  dock->setObjectName("runs");
  dock->setWidget(browser);
  runs_dock_ = dock;
  addDockWidget(Qt::LeftDockWidgetArea, dock);

  tabs_ = new QTabWidget;
  tabs_->setTabsClosable(true);
  tabs_->setDocumentMode(true);
  // With no tab open, the right side says what to do instead of staying blank.
  start_hint_ = new QLabel;
  start_hint_->setObjectName("start_hint");
  start_hint_->setAlignment(Qt::AlignCenter);
  start_hint_->setWordWrap(true);
  start_hint_->setMargin(40);
  start_hint_->setStyleSheet("color: gray; font-size: 14px");
  central_ = new QStackedWidget;
  central_->addWidget(start_hint_);
  central_->addWidget(tabs_);
  setCentralWidget(central_);
  status_ = new QLabel;
  statusBar()->addWidget(status_, 1);

  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    proxy_->set_words(text);
    update_status();
  });
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] { selection_changed(); });
  connect(table_, &QTableView::activated, this, [this] { keep_selection(); });  // Enter or double-click
  connect(tabs_, &QTabWidget::currentChanged, this, [this] {
    central_->setCurrentWidget(tabs_->count() > 0 ? static_cast<QWidget*>(tabs_) : start_hint_);
    follow_tab();
  });
  connect(tabs_, &QTabWidget::tabCloseRequested, this, [this](int index) {
    QWidget* page = tabs_->widget(index);
    tabs_->removeTab(index);
    page->deleteLater();
  });
  build_menus();

  QSettings settings;
  resize(1400, 900);
  restoreGeometry(settings.value("window/geometry").toByteArray());
  // At first the list ends at a column's edge (fit_runs_dock, once the runs are in).
  fit_dock_ = !restoreState(settings.value("window/state").toByteArray());
  if (fit_dock_) resizeDocks({dock}, {600}, Qt::Horizontal);
  set_dark(settings.value("view/dark", false).toBool());
  refresh_recent_menu();
}

MainWindow::~MainWindow() = default;

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open database...", QKeySequence::Open, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, "Open a tilelens database", QFileInfo(path_).absolutePath(),
                                                      "tilelens databases (*.db *.sqlite);;All files (*)");
    if (!path.isEmpty()) open_database(path);
  });
  recent_menu_ = file->addMenu("Open &recent");
  file->addAction("Open the &example", this, [this] { open_example(example_database_path()); });
  file->addAction("&Replay...", QKeySequence(Qt::CTRL | Qt::Key_R), this, [this] { open_replay_dialog(); });
  file->addSeparator();
  file->addAction("&Export view...", QKeySequence(Qt::CTRL | Qt::Key_E), this, [this] {
    auto* page = dynamic_cast<FigurePage*>(tabs_->currentWidget());
    if (!page) {
      QMessageBox::information(this, "tilelens", "Open a run first: there is no figure to export.");
      return;
    }
    const QString path = QFileDialog::getSaveFileName(this, "Export the figure", page->figure_name() + ".png",
                                                      "PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)");
    if (!path.isEmpty()) export_current(path);
  });
  file->addAction("Export r&un...", this, [this] {
    auto* page = dynamic_cast<RunPage*>(tabs_->currentWidget());
    if (!page) {
      QMessageBox::information(this, "tilelens", "Open one run first: its trace is what this exports.");
      return;
    }
    const auto& exporters = run_exporters();
    QStringList filters;
    for (const auto& exporter : exporters) {
      filters << QString::fromStdString(exporter.format + ", " + exporter.name + ": " + exporter.summary + " (*" + exporter.extension + ")");
    }
    // Paje first offered (ViTE reads it), its filter selected to match the proposed name.
    const RunExporter* preferred = find_run_exporter("paje");
    if (!preferred) preferred = &exporters.front();
    QString chosen = filters[preferred - exporters.data()];
    const QString stem = QString("run-%1").arg(page->run().run.info.id);
    const QString path = QFileDialog::getSaveFileName(this, "Export the run", stem + QString::fromStdString(preferred->extension),
                                                      filters.join(";;"), &chosen);
    if (path.isEmpty()) return;
    const auto index = static_cast<std::size_t>(std::max<qsizetype>(0, filters.indexOf(chosen)));
    const RunExporter& exporter = run_exporter_for_path(path.toStdString(), exporters[index]);
    if (const QString error = export_run(path, exporter.name); !error.isEmpty()) QMessageBox::warning(this, "tilelens", error);
  });
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);

  QMenu* view = menuBar()->addMenu("&View");
  QAction* dark = view->addAction("&Dark palette", QKeySequence(Qt::CTRL | Qt::Key_D), this, [this](bool on) { set_dark(on); });
  dark->setCheckable(true);
  dark->setObjectName("dark");
  view->addAction("&Reload runs", QKeySequence::Refresh, this, [this] { reload_runs(); });
  view->addAction("&Close tab", QKeySequence::Close, this, [this] {
    if (QWidget* page = tabs_->currentWidget()) {
      tabs_->removeTab(tabs_->currentIndex());
      page->deleteLater();
    }
  });
  view->addAction("&Find run", QKeySequence::Find, this, [this] { filter_->setFocus(); });
  view->addAction("&Keep the selection in a tab", QKeySequence(Qt::Key_Return), this, [this] { keep_selection(); })
      ->setShortcutContext(Qt::WidgetShortcut);  // Enter in the list (QTableView::activated) does it
  view->addSeparator();
  QAction* runs = runs_dock_->toggleViewAction();
  runs->setText("&Runs");
  runs->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
  view->addAction(runs);
  sweeps_menu_ = menuBar()->addMenu("&Sweeps");
  sweeps_menu_->setToolTipsVisible(true);
}

namespace {
bool report(QWidget* parent, const std::string& message, QString* error) {
  if (error) *error = QString::fromStdString(message);
  else QMessageBox::warning(parent, "tilelens", QString::fromStdString(message));
  return false;
}
}  // namespace

bool MainWindow::open_example(const QString& path, QString* error) {
  if (auto status = ensure_example_database(path.toStdString()); !status) return report(this, status.error().message, error);
  if (!open_database(path, error)) return false;
  show_runs(kExampleComparison);
  return true;
}

bool MainWindow::open_database(const QString& path, QString* error) {
  auto store = db::Store::open(path.toStdString(), db::Store::OpenMode::ReadOnlyUpgrading);
  if (!store) return report(this, store.error().message, error);
  store_.emplace(std::move(*store));
  path_ = path;
  cache_.clear();
  filter_->clear();  // a filter belongs to the database it was typed for
  while (tabs_->count() > 0) {
    QWidget* page = tabs_->widget(0);
    tabs_->removeTab(0);
    page->deleteLater();
  }
  setWindowTitle("tilelens - " + QFileInfo(path).fileName());
  reload_runs();
  remember_recent(path);
  return true;
}

bool MainWindow::open_databases(const QStringList& paths, QString* error) {
  QStringList files;
  for (const QString& path : paths) {
    if (QFileInfo(path).isDir()) {
      for (const QFileInfo& entry : QDir(path).entryInfoList({"*.db"}, QDir::Files, QDir::Name)) files << entry.absoluteFilePath();
    } else {
      files << path;
    }
  }
  if (files.isEmpty()) return report(this, "no database (*.db) in " + paths.join(", ").toStdString(), error);
  if (files.size() == 1) return open_database(files.front(), error);
  const QString folder = QStandardPaths::writableLocation(QStandardPaths::CacheLocation);
  QDir().mkpath(folder);
  const QString merged = folder + "/merged-" + QString::number(QCoreApplication::applicationPid()) + ".db";
  for (const char* suffix : {"", "-wal", "-shm"}) QFile::remove(merged + suffix);
  {
    auto store = db::Store::open(merged.toStdString());
    if (!store) return report(this, store.error().message, error);
    std::vector<std::string> inputs;
    for (const QString& file : files) {
      if (QFileInfo(file).absoluteFilePath() != QFileInfo(merged).absoluteFilePath()) inputs.push_back(file.toStdString());
    }
    if (auto added = store->merge_all(inputs); !added) return report(this, added.error().message, error);
  }
  if (!open_database(merged, error)) return false;
  setWindowTitle(QString("tilelens - %1 databases merged (%2)").arg(files.size()).arg(paths.join(", ")));
  return true;
}

QString sweep_menu_label(std::int64_t id, const QString& spec) {
  // The spec is the sweep's grid as flags (--workload=... --scheduler=...): its values, named
  // as a reader names them; what the sweep does not set is left out.
  QMap<QString, QString> values;
  for (const QString& token : spec.split(' ', Qt::SkipEmptyParts)) {
    const qsizetype equals = token.indexOf('=');
    if (token.startsWith("--") && equals > 2) values[token.mid(2, equals - 2)] = token.mid(equals + 1);
  }
  QStringList parts;
  if (values.contains("workload")) parts << values["workload"];
  if (values.contains("scheduler")) {
    QString policies = values["scheduler"];
    policies.replace(",", ", ");
    if (values.contains("eviction")) policies += " (" + values["eviction"] + ")";
    parts << policies;
  }
  if (values.contains("memory")) parts << "M = " + values["memory"].replace(",", ", ");
  if (values.contains("gpus") && values["gpus"] != "1") parts << values["gpus"] + " GPUs";
  if (parts.isEmpty()) parts << spec;
  const QString text = QString("Curves of sweep %1: %2").arg(id).arg(parts.join("; "));
  // Elided at the end, never in the middle of a value.
  return text.size() > 120 ? text.left(119) + QChar(0x2026) : text;
}

void MainWindow::reload_runs() {
  if (!store_) return;
  auto runs = store_->load_runs({});
  if (!runs) {
    QMessageBox::warning(this, "tilelens", QString::fromStdString(runs.error().message));
    return;
  }
  model_->set_runs(std::move(*runs));
  update_status();
  if (fit_dock_ && model_->rowCount() > 0) {
    // As many whole columns as fit in 36% of the window: no column cut in the middle.
    fit_dock_ = false;
    table_->resizeColumnsToContents();
    const int room = width() * 36 / 100;
    int shown = 2 * table_->frameWidth() + 4;
    for (int column = 0; column < model_->columnCount(); ++column) {
      const int next = shown + table_->horizontalHeader()->sectionSize(column);
      if (next > room && column > 0) break;
      shown = next;
    }
    resizeDocks({runs_dock_}, {shown}, Qt::Horizontal);
  }
  start_hint_->setText(model_->rowCount() == 0
                           ? "This database has no run yet.\n\nFile > Replay (Ctrl+R) replays a workload into it, as tilelens replay --db "
                             "and tilelens sweep --db do from the command line."
                           : "Select a run in the list to see the order of its tiles, its timeline, its memory residency and where "
                             "its time went.\n\nCtrl-click a second run to compare them side by side; Enter keeps the selection in "
                             "a tab of its own.\n\nFile > Replay (Ctrl+R) replays a workload into this database; the Sweeps menu "
                             "draws a sweep's curves.");
  sweeps_menu_->clear();
  if (auto sweeps = store_->list_sweeps(); sweeps && !sweeps->empty()) {
    for (const auto& sweep : *sweeps) {
      const std::int64_t id = sweep.id;
      const QString text = sweep_menu_label(id, QString::fromStdString(sweep.spec));
      QAction* action = sweeps_menu_->addAction(text, this, [this, id] { show_sweep(id); });
      action->setToolTip(QString::fromStdString(sweep.spec));
    }
  } else {
    sweeps_menu_->addAction("no sweep in this database (tilelens sweep --db ...)")->setEnabled(false);
  }
}

int MainWindow::run_count() const { return model_->rowCount(); }

std::vector<std::int64_t> MainWindow::selected_ids() const {
  std::set<std::int64_t> ids;
  for (const QModelIndex& index : table_->selectionModel()->selectedRows()) {
    ids.insert(model_->run_at(proxy_->mapToSource(index).row()).info.id);
  }
  return {ids.begin(), ids.end()};
}

void MainWindow::selection_changed() {
  if (!following_tab_) preview_selection();
}

void MainWindow::preview_selection() {
  const auto ids = selected_ids();
  if (ids.empty() || ids.size() > 6) return;
  show_runs(ids, true);
}

void MainWindow::keep_selection() {
  const auto ids = selected_ids();
  if (ids.empty() || ids.size() > 6) return;
  show_runs(ids, false);
}

namespace {
QString runs_name(const std::vector<std::int64_t>& ids) {
  QString name;
  for (std::int64_t id : ids) name += (name.isEmpty() ? "#" : " | #") + QString::number(id);
  return name;
}
QVariantList id_list(const std::vector<std::int64_t>& ids) {
  QVariantList list;
  for (std::int64_t id : ids) list << QVariant::fromValue<qlonglong>(id);
  return list;
}
}  // namespace

void MainWindow::place_page(QWidget* page, const QString& name, bool preview) {
  page->setProperty("preview", preview);
  int index = -1;
  if (preview) {
    for (int t = 0; t < tabs_->count(); ++t) {
      if (tabs_->widget(t)->property("preview").toBool()) index = t;
    }
  }
  if (index >= 0) {
    QWidget* old = tabs_->widget(index);
    tabs_->insertTab(index, page, name);
    tabs_->removeTab(index + 1);
    old->deleteLater();
  } else {
    index = tabs_->addTab(page, name);
  }
  tabs_->setTabToolTip(index, preview ? "Preview: replaced when the selection changes (Enter keeps it in a tab)" : name);
  tabs_->setCurrentIndex(index);
}

void MainWindow::show_runs(const std::vector<std::int64_t>& ids, bool preview) {
  const QString name = runs_name(ids);
  const QString key = "runs" + name;  // the page's identity, whatever its tab text says
  for (int t = 0; t < tabs_->count(); ++t) {
    QWidget* page = tabs_->widget(t);
    if (page->objectName() != key) continue;
    if (!preview && page->property("preview").toBool()) {
      // Keeping what the preview shows: the preview tab becomes a tab of its own.
      page->setProperty("preview", false);
      tabs_->setTabText(t, tabs_->tabText(t).remove(0, QString("preview ").size()));
      tabs_->setTabToolTip(t, name);
    }
    tabs_->setCurrentIndex(t);
    return;
  }
  std::vector<std::int64_t> missing;
  for (std::int64_t id : ids) {
    if (!cache_.count(id)) missing.push_back(id);
  }
  if (missing.empty()) {
    add_run_page(ids, key, name, preview);
    return;
  }
  // Runs are read on a worker thread with its own connection; a placeholder tab holds the
  // place and the page replaces it when the runs arrive.
  QPointer<QLabel> placeholder = new QLabel("Loading " + name + "...");
  placeholder->setAlignment(Qt::AlignCenter);
  placeholder->setObjectName(key);
  placeholder->setProperty("run_ids", id_list(ids));
  place_page(placeholder, (preview ? "preview " : "") + name, preview);
  auto loaded = std::make_shared<std::vector<std::shared_ptr<const RunData>>>();
  auto error = std::make_shared<std::string>();
  const std::string path = path_.toStdString();
  QThread* worker = QThread::create([path, missing, loaded, error] {
    auto store = db::Store::open(path, db::Store::OpenMode::ReadOnly);
    if (!store) {
      *error = store.error().message;
      return;
    }
    for (std::int64_t id : missing) {
      auto run = load_run_data(*store, id);
      if (!run) {
        *error = run.error().message;
        return;
      }
      loaded->push_back(std::make_shared<const RunData>(std::move(*run)));
    }
  });
  ++loading_;
  connect(worker, &QThread::finished, this, [this, worker, loaded, error, ids, key, name, placeholder, path] {
    worker->deleteLater();
    --loading_;
    // The user may have closed the placeholder, or a newer preview replaced it.
    const int index = placeholder ? tabs_->indexOf(placeholder) : -1;
    const bool still_preview = placeholder && placeholder->property("preview").toBool();
    if (path != path_.toStdString()) return;  // another database was opened meanwhile
    for (const auto& run : *loaded) cache_[run->run.info.id] = run;
    if (!error->empty()) {
      if (index >= 0) {
        tabs_->removeTab(index);
        placeholder->deleteLater();
      }
      QMessageBox::warning(this, "tilelens", QString::fromStdString(*error));
      return;
    }
    if (index < 0) return;
    if (!still_preview) {
      tabs_->removeTab(index);
      placeholder->deleteLater();
    }
    add_run_page(ids, key, name, still_preview);
  });
  worker->start();
}

void MainWindow::add_run_page(const std::vector<std::int64_t>& ids, const QString& key, QString name, bool preview) {
  std::vector<std::shared_ptr<const RunData>> runs;
  for (std::int64_t id : ids) runs.push_back(cache_.at(id));
  QWidget* page = nullptr;
  if (runs.size() == 1) {
    auto* run_page = new RunPage(runs.front());
    run_page->set_dark(dark_);
    page = run_page;
    name += " " + QString::fromStdString(runs.front()->title());
  } else {
    auto* compare = new ComparePage(runs);
    compare->set_dark(dark_);
    page = compare;
  }
  page->setObjectName(key);
  page->setProperty("run_ids", id_list(ids));
  place_page(page, (preview ? "preview " : "") + name, preview);
}

void MainWindow::follow_tab() {
  QWidget* page = tabs_->currentWidget();
  if (!page || !page->property("run_ids").isValid()) return;
  std::set<std::int64_t> ids;
  for (const QVariant& id : page->property("run_ids").toList()) ids.insert(id.toLongLong());
  if (ids == [&] {
        auto selected = selected_ids();
        return std::set<std::int64_t>(selected.begin(), selected.end());
      }()) {
    return;
  }
  following_tab_ = true;
  QItemSelection selection;
  for (int row = 0; row < proxy_->rowCount(); ++row) {
    const auto id = model_->run_at(proxy_->mapToSource(proxy_->index(row, 0)).row()).info.id;
    if (ids.count(id)) selection.select(proxy_->index(row, 0), proxy_->index(row, proxy_->columnCount() - 1));
  }
  table_->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
  following_tab_ = false;
}

void MainWindow::update_status() {
  if (path_.isEmpty()) return;
  const int shown = proxy_->rowCount(), total = model_->rowCount();
  status_->setText(shown == total ? QString("%1: %2 runs").arg(path_).arg(total) : QString("%1: %2 of %3 runs").arg(path_).arg(shown).arg(total));
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  // A line edit claims Ctrl+E (end of line) and other Ctrl keys before the window's shortcuts
  // see them; the window's own shortcuts win while the filter has focus.
  if (watched == filter_ && event->type() == QEvent::ShortcutOverride) {
    const auto* key = static_cast<QKeyEvent*>(event);
    if (key->modifiers() == Qt::ControlModifier &&
        (key->key() == Qt::Key_E || key->key() == Qt::Key_R || key->key() == Qt::Key_D || key->key() == Qt::Key_W || key->key() == Qt::Key_O)) {
      return true;  // not accepted: the shortcut fires
    }
  }
  return QMainWindow::eventFilter(watched, event);
}

void MainWindow::open_replay_dialog() {
  QString database = path_;
  if (database.isEmpty()) {
    database = QFileDialog::getSaveFileName(this, "Replay into a new database", "runs.db", "tilelens databases (*.db)");
    if (database.isEmpty()) return;
    auto created = db::Store::open(database.toStdString());
    if (!created) {
      QMessageBox::warning(this, "tilelens", QString::fromStdString(created.error().message));
      return;
    }
  }
  auto* dialog = new ReplayDialog(database, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  if (auto* page = dynamic_cast<RunPage*>(tabs_->currentWidget())) dialog->prefill(page->run().run.info);
  connect(dialog, &ReplayDialog::run_stored, this, [this, database] {
    if (path_ != database) open_database(database);
    else reload_runs();
  }, Qt::QueuedConnection);
  dialog->show();
}

void MainWindow::show_sweep(std::int64_t sweep_id) {
  if (!store_) return;
  const QString key = QString("sweep%1").arg(sweep_id);
  for (int t = 0; t < tabs_->count(); ++t) {
    if (tabs_->widget(t)->objectName() == key) {
      tabs_->setCurrentIndex(t);
      return;
    }
  }
  auto curves = sweep_curves(*store_, sweep_id);
  if (!curves) {
    QMessageBox::warning(this, "tilelens", QString::fromStdString(curves.error().message));
    return;
  }
  const QString title = QString::fromStdString(curves->description);
  auto* page = new CurvesPage(std::move(*curves), title);
  page->set_dark(dark_);
  page->setObjectName(key);
  connect(page, &CurvesPage::run_clicked, this, [this](std::int64_t id) { show_runs({id}); });
  tabs_->setCurrentIndex(tabs_->addTab(page, QString("sweep %1 curves").arg(sweep_id)));
}

bool MainWindow::export_current(const QString& path) {
  auto* page = dynamic_cast<FigurePage*>(tabs_->currentWidget());
  if (!page) return false;
  const QString error = export_figure(page->paint_function(), page->figure_size(), path);
  if (!error.isEmpty()) {
    QMessageBox::warning(this, "tilelens", error);
    return false;
  }
  statusBar()->showMessage("wrote " + path, 5000);
  return true;
}

QString MainWindow::export_run(const QString& path, const std::string& name) {
  auto* page = dynamic_cast<RunPage*>(tabs_->currentWidget());
  if (!page) return "no run is open in the current tab";
  const RunExporter* exporter = find_run_exporter(name);
  if (!exporter) return QString::fromStdString("no exporter '" + name + "'");
  const RunData& run = page->run();
  std::ofstream file(path.toStdString(), std::ios::binary);
  if (file) exporter->write({run.workload, run.run.info, run.trace}, file);
  file.close();
  if (!file) return "cannot write " + path;
  statusBar()->showMessage("wrote " + path, 5000);
  return {};
}

void MainWindow::set_dark(bool dark) {
  dark_ = dark;
  QPalette palette;
  if (dark) {
    palette.setColor(QPalette::Window, QColor(40, 40, 44));
    palette.setColor(QPalette::WindowText, QColor(230, 230, 230));
    palette.setColor(QPalette::Base, QColor(30, 30, 34));
    palette.setColor(QPalette::AlternateBase, QColor(45, 45, 50));
    palette.setColor(QPalette::Text, QColor(230, 230, 230));
    palette.setColor(QPalette::Button, QColor(50, 50, 56));
    palette.setColor(QPalette::ButtonText, QColor(230, 230, 230));
    palette.setColor(QPalette::Highlight, QColor(70, 110, 200));
    palette.setColor(QPalette::HighlightedText, Qt::white);
    palette.setColor(QPalette::ToolTipBase, QColor(50, 50, 56));
    palette.setColor(QPalette::ToolTipText, QColor(230, 230, 230));
    for (auto role : {QPalette::Text, QPalette::WindowText, QPalette::ButtonText}) palette.setColor(QPalette::Disabled, role, QColor(120, 120, 125));
  } else {
    palette = QApplication::style()->standardPalette();
  }
  QApplication::setPalette(palette);
  for (int t = 0; t < tabs_->count(); ++t) {
    if (auto* run = dynamic_cast<RunPage*>(tabs_->widget(t))) run->set_dark(dark);
    if (auto* compare = dynamic_cast<ComparePage*>(tabs_->widget(t))) compare->set_dark(dark);
    if (auto* curves = dynamic_cast<CurvesPage*>(tabs_->widget(t))) curves->set_dark(dark);
  }
  if (auto* action = findChild<QAction*>("dark")) action->setChecked(dark);
}

void MainWindow::remember_recent(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value("files/recent").toStringList();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  recent.removeAll(absolute);
  recent.prepend(absolute);
  while (recent.size() > 8) recent.removeLast();
  settings.setValue("files/recent", recent);
  refresh_recent_menu();
}

void MainWindow::refresh_recent_menu() {
  recent_menu_->clear();
  const QStringList recent = QSettings().value("files/recent").toStringList();
  for (const QString& path : recent) recent_menu_->addAction(path, this, [this, path] { open_database(path); });
  recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  settings.setValue("view/dark", dark_);
  event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  QStringList paths;
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile()) paths << url.toLocalFile();
  }
  if (!paths.isEmpty()) open_databases(paths);
}

}  // namespace tilelens::gui
