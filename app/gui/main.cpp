// tilelens-gui: the desktop app. With no argument it opens the built-in example (created on
// first start); with a database path it opens that. --export draws a figure straight to a
// file without opening a window (works with QT_QPA_PLATFORM=offscreen).
#include <QApplication>
#include <QFile>
#include <QImage>
#include <chrono>
#include <cstdio>
#include <QCommandLineParser>
#include <QDir>
#include <QPainter>
#include <QTimer>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "core/replay_request.hpp"
#include "app/gui/compare_page.hpp"
#include "app/gui/curves_page.hpp"
#include "app/gui/figure_export.hpp"
#include "app/gui/main_window.hpp"
#include "app/gui/paper_figure.hpp"
#include "app/gui/residency_view.hpp"
#include "app/gui/time_split_view.hpp"
#include "app/gui/timeline.hpp"
#include "core/presets.hpp"

using namespace tilelens;
using namespace tilelens::gui;

namespace {

int fail(const QString& message) {
  std::cerr << "tilelens-gui: " << message.toStdString() << "\n";
  return 2;
}

std::vector<std::int64_t> parse_ids(const QString& text, bool* ok) {
  std::vector<std::int64_t> ids;
  *ok = !text.isEmpty();
  for (const QString& part : text.split(',', Qt::SkipEmptyParts)) {
    bool good = false;
    const qlonglong id = part.trimmed().toLongLong(&good);
    if (!good || id <= 0) *ok = false;
    ids.push_back(id);
  }
  return ids;
}

// Writes `paint` at `size` to --out.
int write_export(const QCommandLineParser& args, const PaintFunction& paint, QSize size) {
  const QString error = export_figure(paint, size, args.value("out"));
  if (!error.isEmpty()) return fail(error);
  std::cerr << "wrote " << args.value("out").toStdString() << "\n";
  return 0;
}

using ExportRuns = std::vector<std::shared_ptr<const RunData>>;

// The runs of --run, loaded; empty after a failure, which `status` holds.
ExportRuns load_export_runs(const QCommandLineParser& args, const QString& database, int& status) {
  bool ok = false;
  const auto ids = parse_ids(args.value("run"), &ok);
  if (!ok) {
    status = fail("--run: expected run ids, as 3 or 1,2,3 (got '" + args.value("run") + "')");
    return {};
  }
  auto store = db::Store::open(database.toStdString(), db::Store::OpenMode::ReadOnlyUpgrading);
  if (!store) {
    status = fail(QString::fromStdString(store.error().message));
    return {};
  }
  ExportRuns runs;
  for (std::int64_t id : ids) {
    auto data = load_run_data(*store, id);
    if (!data) {
      status = fail("--run " + QString::number(id) + ": " + QString::fromStdString(data.error().message));
      return {};
    }
    runs.push_back(std::make_shared<const RunData>(std::move(*data)));
  }
  return runs;
}

// tile-order and side-by-side: the tile-order figure of each run, in a row.
int draw_tile_orders(const QCommandLineParser& args, const ExportRuns& runs, QSize size) {
  std::vector<std::unique_ptr<TileFigure>> figures;
  std::vector<FigurePanel> panels;
  for (const auto& run : runs) {
    figures.push_back(std::make_unique<TileFigure>(*run));
    TileOptions options;
    options.mode = default_color_mode(*run);
    options.dark = args.isSet("dark");
    options.per_gpu = args.isSet("per-gpu");
    panels.push_back({figures.back().get(), options});
  }
  return write_export(args, [&](QPainter& painter, const QRectF& area) { paint_side_by_side(painter, area, panels); }, size);
}

int draw_difference(const QCommandLineParser& args, const ExportRuns& runs, QSize size) {
  const bool dark = args.isSet("dark");
  return write_export(args, [&](QPainter& painter, const QRectF& area) { paint_difference(painter, area, *runs[0], *runs[1], dark); }, size);
}

int draw_timeline(const QCommandLineParser& args, const ExportRuns& runs, QSize size) {
  TimelineFigure timeline(*runs.front());
  if (!args.isSet("size")) size = QSize(1400, 60 + 120 * static_cast<int>(runs.front()->gpus));
  const bool dark = args.isSet("dark");
  return write_export(args, [&](QPainter& painter, const QRectF& area) { timeline.paint(painter, area, 0, timeline.duration(), std::nullopt, dark); },
                      size);
}

int draw_residency(const QCommandLineParser& args, const ExportRuns& runs, QSize size) {
  ResidencyFigure figure(*runs.front());
  if (!args.isSet("size")) size = QSize(1400, 700);
  const bool dark = args.isSet("dark");
  return write_export(args, [&](QPainter& painter, const QRectF& area) { figure.paint(painter, area, std::nullopt, dark); }, size);
}

int draw_time_split(const QCommandLineParser& args, const ExportRuns& runs, QSize size) {
  TimeSplitFigure figure(*runs.front());
  if (!args.isSet("size")) size = QSize(900, figure.height_for(26));
  const bool dark = args.isSet("dark");
  return write_export(args, [&](QPainter& painter, const QRectF& area) { figure.paint(painter, area, dark); }, size);
}

// The views --export draws, by name: the runs each takes (min to max; 0 and 0 for a sweep)
// and how it draws them. --export's help and its errors list them from here.
struct ExportView {
  const char* name;
  const char* takes;
  int min_runs, max_runs;
  bool panel_per_run;  // the default width is 900 pixels per run, else 900
  int (*draw)(const QCommandLineParser& args, const ExportRuns& runs, QSize size);
};
const std::vector<ExportView>& export_views() {
  static const std::vector<ExportView> views = {
      {"tile-order", "one run (--run ID)", 1, 1, false, draw_tile_orders},
      {"side-by-side", "runs (--run A,B,...)", 1, 1000, true, draw_tile_orders},
      {"difference", "two runs (--run A,B)", 2, 2, false, draw_difference},
      {"timeline", "one run (--run ID)", 1, 1, false, draw_timeline},
      {"time-split", "one run (--run ID): where each worker's time went", 1, 1, false, draw_time_split},
      {"residency", "one run (--run ID): which data each GPU held over time, and why each left", 1, 1, false, draw_residency},
      {"curves", "a sweep (--sweep ID)", 0, 0, false, nullptr},
  };
  return views;
}
QString export_view_names() {
  QString names;
  for (const ExportView& view : export_views()) names += (names.isEmpty() ? "" : ", ") + QString(view.name);
  return names;
}

// --export curves: a sweep's curves.
int draw_curves(const QCommandLineParser& args, const QString& database) {
  bool good = false;
  const qlonglong sweep = args.value("sweep").toLongLong(&good);
  if (!good || sweep <= 0) return fail("--export curves needs --sweep ID (got '" + args.value("sweep") + "')");
  auto store = db::Store::open(database.toStdString(), db::Store::OpenMode::ReadOnlyUpgrading);
  if (!store) return fail(QString::fromStdString(store.error().message));
  auto curves = sweep_curves(*store, sweep);
  if (!curves) return fail("--sweep " + QString::number(sweep) + ": " + QString::fromStdString(curves.error().message));
  const QString title = QString::fromStdString(curves->description);
  CurvesPage page(std::move(*curves), title);
  page.set_dark(args.isSet("dark"));
  page.set_throughput(args.isSet("throughput"));
  return write_export(args, page.paint_function(), page.figure_size());
}

int headless_export(const QCommandLineParser& args, const QString& database) {
  const QString name = args.value("export");
  if (name == "list") {
    for (const ExportView& view : export_views()) std::cout << view.name << "  " << view.takes << "\n";
    return 0;
  }
  const ExportView* view = nullptr;
  for (const ExportView& candidate : export_views()) {
    if (name == candidate.name) view = &candidate;
  }
  if (!view) return fail("--export: unknown view '" + name + "' (valid: " + export_view_names() + "; --export list says what each takes)");
  if (database.isEmpty()) return fail("--export needs a database (--db FILE or a path)");
  if (!args.isSet("out")) return fail("--export needs --out FILE.png|svg|pdf");
  if (!view->draw) return draw_curves(args, database);
  int status = 0;
  const ExportRuns runs = load_export_runs(args, database, status);
  if (runs.empty()) return status;
  if (static_cast<int>(runs.size()) < view->min_runs || static_cast<int>(runs.size()) > view->max_runs) {
    return fail("--export " + name + " takes " + view->takes + ", got " + QString::number(runs.size()) + " runs");
  }
  QSize size(900 * static_cast<int>(view->panel_per_run ? runs.size() : 1), 960);
  if (args.isSet("size")) {
    const QStringList parts = args.value("size").split('x');
    const int w = parts.size() == 2 ? parts[0].toInt() : 0, h = parts.size() == 2 ? parts[1].toInt() : 0;
    if (w < 50 || h < 50 || w > 20000 || h > 20000) return fail("--size: expected WIDTHxHEIGHT in pixels, 50 to 20000 (got '" + args.value("size") + "')");
    size = QSize(w, h);
  }
  return view->draw(args, runs, size);
}

// --figure NAME: a paper's figure from its preset, runs included (paper_figure.hpp).
int paper_figure(const QCommandLineParser& args, const QString& database) {
  const QString name = args.value("figure");
  if (name == "list") {
    for (const auto& preset : sweep_presets()) {
      std::cout << preset.name << "  " << preset.figure << (preset.order_figure ? " (order visualisation)" : " (curves)") << ": " << preset.title
                << "\n";
    }
    return 0;
  }
  const SweepPreset* preset = find_sweep_preset(name.toStdString());
  if (!preset) return fail("--figure: unknown preset '" + name + "'; --figure list shows them");
  if (database.isEmpty()) return fail("--figure needs a database to keep its runs in (--db FILE; created if absent)");
  const QString base = args.isSet("out") ? args.value("out") : QString::fromStdString(preset->name);
  if (base.endsWith(".png") || base.endsWith(".pdf") || base.endsWith(".svg")) {
    return fail("--figure writes BASE.png, BASE.pdf and BASE.svg: give --out without an extension (got '" + base + "')");
  }
  auto figure = make_paper_figure(*preset, database, base, args.isSet("dark"), [](const core::SweepProgress& p) {
    std::cerr << "[" << p.done << "/" << p.total << "] " << p.label << ": " << p.line << "\n";
  });
  if (!figure) return fail(QString::fromStdString(figure.error().message));
  for (const QString& file : figure->files) std::cerr << "wrote " << file.toStdString() << "\n";
  std::cerr << "its runs: sweep " << figure->sweep_id << " of " << database.toStdString() << "\n";
  return 0;
}

// Issue 5's benchmark: open a run of about 100,000 tasks from a database and repaint each of its
// views, timed (printed as figures against a 60 Hz frame; no target is asserted).
int bench(const QString& folder) {
  const QString db = folder + "/bench.db";
  QFile::remove(db);
  const auto begin_store = std::chrono::steady_clock::now();
  core::ReplayRequest request;
  request.workload = "matmul3d:N=47";
  request.platform.memory = SizeSpec{200 * 1048576.0, 0};
  auto outcome = core::run_replay(request, core::stored_in(db.toStdString()));
  if (!outcome || !outcome->error.empty()) return fail(QString::fromStdString(!outcome ? outcome.error().message : outcome->error));
  const double store_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_store).count();
  auto store = db::Store::open(db.toStdString(), db::Store::OpenMode::ReadOnlyUpgrading);
  if (!store) return fail(QString::fromStdString(store.error().message));
  const auto begin_open = std::chrono::steady_clock::now();
  auto run = load_run_data(*store, 1);
  if (!run) return fail(QString::fromStdString(run.error().message));
  const double open_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_open).count();
  // Each view of a run, repainted whole at 1600x1000.
  TileFigure tiles(*run);
  TileOptions options;
  options.mode = default_color_mode(*run);
  TimelineFigure timeline(*run);
  ResidencyFigure residency(*run);
  TimeSplitFigure time_split(*run);
  const std::vector<std::pair<const char*, PaintFunction>> views = {
      {"tile view (47 panels)", [&](QPainter& painter, const QRectF& area) { tiles.paint(painter, area, options); }},
      {"timeline", [&](QPainter& painter, const QRectF& area) { timeline.paint(painter, area, 0, timeline.duration(), std::nullopt, false); }},
      {"memory residency", [&](QPainter& painter, const QRectF& area) { residency.paint(painter, area, std::nullopt, false); }},
      {"where time went", [&](QPainter& painter, const QRectF& area) { time_split.paint(painter, area, false); }},
  };
  std::printf("gui bench: matmul3d N=47, %zu tasks, %zu loads (replayed and stored in %.2f s)\n", run->workload.task_count(),
              run->trace.loads.size(), store_s);
  std::printf("  open the run (run row, metrics, workload, trace, indexes): %.3f s\n", open_s);
  QImage image(1600, 1000, QImage::Format_ARGB32_Premultiplied);
  const int repaints = 5;
  for (const auto& [name, paint] : views) {
    double paint_s = 0;
    for (int k = 0; k < repaints; ++k) {
      const auto begin = std::chrono::steady_clock::now();
      QPainter painter(&image);
      paint(painter, QRectF(0, 0, 1600, 1000));
      painter.end();
      paint_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    }
    std::printf("  repaint the %s (1600x1000): %.1f ms per repaint (mean of %d), %.2fx a 60 Hz frame (16.7 ms, the target)\n", name,
                paint_s / repaints * 1e3, repaints, paint_s / repaints / (1.0 / 60));
  }
  QFile::remove(db);
  return 0;
}

// Without a display Qt's xcb plugin aborts, and a signal is no answer to --help. Commands that
// draw nothing on screen run offscreen; the window itself needs a display, and says so.
// (X11 and Wayland only: elsewhere a display needs no variable.)
std::optional<int> without_display(int argc, char** argv) {
#ifndef Q_OS_LINUX
  return std::nullopt;
#endif
  const auto set = [](const char* name) { return !qEnvironmentVariableIsEmpty(name); };
  if (set("DISPLAY") || set("WAYLAND_DISPLAY") || set("QT_QPA_PLATFORM")) return std::nullopt;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "-platform" || arg == "--platform") return std::nullopt;  // Qt's own choice of platform plugin
    for (const std::string_view offscreen : {"-h", "--help", "--help-all", "-v", "--version", "--export", "--figure", "--bench"}) {
      if (arg == offscreen || (arg.size() > offscreen.size() && arg.substr(0, offscreen.size() + 1) == std::string(offscreen) + "=")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        return std::nullopt;
      }
    }
  }
  std::cerr << "tilelens-gui: no display (DISPLAY and WAYLAND_DISPLAY are unset): run it in a desktop session or under "
               "xvfb-run, or draw a figure without a window with --export (see --help)\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (const auto status = without_display(argc, argv)) return *status;
  QApplication app(argc, argv);
  QApplication::setApplicationName("tilelens");
  QApplication::setOrganizationName("tilelens");
  QApplication::setApplicationVersion(core::kVersion);
  QCommandLineParser args;
  args.setApplicationDescription(
      "tilelens-gui: see the order in which a scheduler processed the tiles, the data it loaded, and compare runs.\n"
      "With no argument it opens a built-in example (matmul2d N=20, M = 250 MiB: RCM, DMDAR and HFP side by side,\n"
      "as fgcs Figs. 8-10). Export a figure without a window:\n"
      "  tilelens-gui --db runs.db --export tile-order --run 3 --out hfp.png\n"
      "  tilelens-gui --db runs.db --export side-by-side --run 1,2,3 --out fig8-10.svg\n"
      "  tilelens-gui --db runs.db --export difference --run 2,3 --out diff.pdf\n"
      "  tilelens-gui --db runs.db --export timeline --run 5 --out timeline.png\n"
      "  tilelens-gui --db runs.db --export time-split --run 5 --out where-time-went.png\n"
      "  tilelens-gui --db runs.db --export residency --run 5 --out residency.png\n"
      "  tilelens-gui --db fgcs.db --export curves --sweep 1 [--throughput] --out fig7.png\n"
      "A paper's figure, its runs replayed into the database where missing (--figure list shows them):\n"
      "  tilelens-gui --db figs.db --figure fgcs-fig13 --out fig13      # fig13.png, .pdf and .svg");
  args.addHelpOption();
  args.addVersionOption();
  args.addPositionalArgument("database", "a tilelens database to open; several, or a folder of shard databases, open as one (merged)");
  args.addOption({"db", "the database (same as the positional argument)", "FILE"});
  args.addOption({"export", "draw VIEW (" + export_view_names() + ") to --out and exit; list: the views and what each takes", "VIEW"});
  args.addOption({"figure", "replay a paper's preset into --db where needed and draw its figure to --out BASE (.png, .pdf and .svg); 'list' names them", "PRESET"});
  args.addOption({"run", "the run id(s) for --export: 3 or 1,2,3", "IDS"});
  args.addOption({"sweep", "the sweep for --export curves", "ID"});
  args.addOption({"throughput", "--export curves: GFlop/s instead of data transferred"});
  args.addOption({"out", "the file --export writes: .png, .svg or .pdf; for --figure, the file name without extension", "FILE"});
  args.addOption({"size", "the exported figure's size in pixels (default 900x960 per run)", "WxH"});
  args.addOption({"dark", "dark palette (windows and exports)"});
  args.addOption({"per-gpu", "--export tile-order/side-by-side: one panel set per GPU (darts Fig. 13)"});
  args.addOption({"example-db", "where the example database is (default: the user's data folder)", "FILE"});
  args.addOption({"screenshot", "show the window, save a screenshot of it to FILE, and exit", "FILE"});
  args.addOption({"show", "open these runs at start: 3, or 2,3 side by side", "IDS"});
  args.addOption({"bench", "time opening a 100,000-task run and repainting each of its views, then exit"});
  args.process(app);

  QString database = args.value("db");
  if (database.isEmpty() && !args.positionalArguments().isEmpty()) database = args.positionalArguments().front();
  if (args.isSet("export")) return headless_export(args, database);
  if (args.isSet("figure")) return paper_figure(args, database);
  if (args.isSet("bench")) return bench(QDir::tempPath());

  MainWindow window;
  if (args.isSet("dark")) window.set_dark(true);
  QString error;
  if (database.isEmpty()) {
    const QString example = args.isSet("example-db") ? args.value("example-db") : example_database_path();
    if (!window.open_example(example, &error)) return fail(error);
  } else if (!window.open_databases(args.positionalArguments().size() > 1 && !args.isSet("db") ? args.positionalArguments()
                                                                                                : QStringList{database},
                                     &error)) {
    return fail(error);
  }
  if (args.isSet("show")) {
    bool ok = false;
    const auto ids = parse_ids(args.value("show"), &ok);
    if (!ok) return fail("--show: expected run ids, as 3 or 2,3 (got '" + args.value("show") + "')");
    window.show_runs(ids);
  }
  window.show();
  if (args.isSet("screenshot")) {
    const QString path = args.value("screenshot");
    QTimer::singleShot(800, &window, [&window, path] {
      const bool saved = window.grab().save(path);
      std::cerr << (saved ? "wrote " : "cannot write ") << path.toStdString() << "\n";
      QApplication::exit(saved ? 0 : 1);
    });
  }
  return QApplication::exec();
}
