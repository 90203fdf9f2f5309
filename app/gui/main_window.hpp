// The main window: a run browser (filterable, sortable table of a database's runs) docked on
// the left, and tabs on the right: one run's tile-order figure, or two and more runs side by
// side. Selecting runs shows them in one preview tab, replaced as the selection changes;
// Enter (View > Keep in a tab) keeps the selection in a tab of its own; the list follows the
// active tab. File > Open, recent files and drag and drop open a database; File > Export writes the
// current tab's figure to PNG, SVG or PDF. Layout, recent files and the palette are kept in
// QSettings.
#pragma once

#include <QMainWindow>
#include <memory>
#include <optional>

#include "app/gui/run_data.hpp"

class QTableView;
class QLineEdit;
class QTabWidget;
class QStackedWidget;
class QSortFilterProxyModel;
class QMenu;
class QLabel;
class QDockWidget;

namespace tilelens::gui {

class RunModel;
class RunFilter;

// A sweep's entry in the Sweeps menu: "Curves of sweep 3: matmul2d:N=5..40:5; eager, rcm, dmdar,
// hfp/belady (lru); M = 250MiB", from its spec (the grid as flags), elided at the end.
QString sweep_menu_label(std::int64_t id, const QString& spec);

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  MainWindow();
  ~MainWindow() override;

  // Opens a database and lists its runs. On error returns false with the message in `error`,
  // or in a message box when `error` is null.
  bool open_database(const QString& path, QString* error = nullptr);
  // Several databases, or a folder of them (a sweep's shards, docs/cluster.md), opened as one:
  // merged into a fresh file of the user's cache (tilelens db merge's rules), which is opened.
  // One file opens as itself.
  bool open_databases(const QStringList& paths, QString* error = nullptr);
  // Builds the example database at `path` if needed, opens it and shows its comparison.
  bool open_example(const QString& path, QString* error = nullptr);
  // Opens one run in a tab, or several side by side: in a tab of their own, or in the
  // preview tab (replacing what it showed).
  void show_runs(const std::vector<std::int64_t>& ids, bool preview = false);
  // Opens the load and throughput curves of a sweep.
  void show_sweep(std::int64_t sweep_id);
  // File > Replay: replays into the open database (or a new one) and lists the runs as they land.
  void open_replay_dialog();
  int run_count() const;
  // Runs being read on worker threads (their tabs show a placeholder meanwhile).
  int loading() const { return loading_; }
  QTabWidget* tabs() const { return tabs_; }
  QTableView* run_table() const { return table_; }
  void set_dark(bool dark);
  bool export_current(const QString& path);
  // Writes the current tab's run through the exporter `name` (formats/exports.hpp, the
  // registry `tilelens export` uses); the error, or an empty string.
  QString export_run(const QString& path, const std::string& name);

 protected:
  void closeEvent(QCloseEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void build_menus();
  void reload_runs();
  void selection_changed();
  void remember_recent(const QString& path);
  void refresh_recent_menu();
  void add_run_page(const std::vector<std::int64_t>& ids, const QString& key, QString name, bool preview);
  // Puts `page` in the preview tab's place (or a new tab), and makes it current.
  void place_page(QWidget* page, const QString& name, bool preview);
  // The runs of the selection in the preview tab (replaced as the selection changes), or in a
  // tab of their own (kept).
  void preview_selection();
  void keep_selection();
  std::vector<std::int64_t> selected_ids() const;
  // Selects the current tab's runs in the list, without previewing them again.
  void follow_tab();
  void update_status();

  std::optional<db::Store> store_;
  QString path_;
  RunModel* model_ = nullptr;
  RunFilter* proxy_ = nullptr;
  QTableView* table_ = nullptr;
  QLineEdit* filter_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QLabel* start_hint_ = nullptr;       // shown while no tab is open
  QStackedWidget* central_ = nullptr;  // the hint or the tabs
  bool fit_dock_ = false;              // no saved layout: the list's width is fitted to its columns once
  QMenu* recent_menu_ = nullptr;
  QMenu* sweeps_menu_ = nullptr;
  QLabel* status_ = nullptr;
  QDockWidget* runs_dock_ = nullptr;
  bool dark_ = false;
  bool following_tab_ = false;  // the list is being set from the tab: no preview
  int loading_ = 0;
  std::map<std::int64_t, std::shared_ptr<const RunData>> cache_;
};

// Where the example database lives (the user's data folder).
QString example_database_path();

}  // namespace tilelens::gui
