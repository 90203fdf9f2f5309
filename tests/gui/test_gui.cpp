// GUI tests (QtTest, offscreen platform): the tile figure's pixels say what the run says, the
// exports are real files of their format, and the main window opens a database, shows runs
// and compares them, and refuses a bad file without losing what it showed.
#include <QApplication>
#include <QSplitter>
#include <QHelpEvent>
#include <QToolTip>
#include <QCategoryAxis>
#include <QChartView>
#include <QLineSeries>
#include <QValueAxis>
#include <QFile>
#include <QFileInfo>
#include <QMouseEvent>
#include <QPushButton>
#include <QLabel>
#include <QStatusBar>
#include <QLineEdit>
#include <QListWidget>
#include <QAbstractItemModelTester>
#include <QImage>
#include <QPainter>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QSignalSpy>
#include <QtTest>

#include "core/imported_runs.hpp"
#include "core/sweep.hpp"
#include "app/gui/compare_page.hpp"
#include "app/gui/curves_page.hpp"
#include "app/gui/replay_dialog.hpp"
#include "app/gui/figure_export.hpp"
#include "app/gui/main_window.hpp"
#include "app/gui/paper_figure.hpp"
#include "app/gui/run_page.hpp"
#include "app/gui/residency_view.hpp"
#include "app/gui/time_split_view.hpp"
#include "app/gui/tile_view.hpp"
#include "app/gui/timeline.hpp"

using namespace tilelens;
using namespace tilelens::gui;

namespace {

// Stores one replay through the core, as the app's dialog does.
bool replay_into(const QString& db, core::ReplayRequest request) {
  auto outcome = core::run_replay(request, core::stored_in(db.toStdString()));
  return outcome && outcome->error.empty();
}

core::ReplayRequest replay_request(std::string workload, std::string scheduler, std::string eviction, std::string memory,
                                   std::uint32_t gpus = 1) {
  core::ReplayRequest request;
  request.workload = std::move(workload);
  request.scheduler = std::move(scheduler);
  request.eviction = std::move(eviction);
  request.platform.gpus = gpus;
  if (!core::find_platform_option("memory")->set(memory, request.platform)) request.workload = "invalid memory " + memory;
  return request;
}

// A sweep through the core, as `tilelens sweep --quiet` runs it.
bool sweep_into(const QString& db, std::string workloads, std::string schedulers, std::string memories) {
  core::SweepGrid grid;
  grid.workloads = std::move(workloads);
  grid.schedulers = std::move(schedulers);
  grid.memories = std::move(memories);
  core::SweepOptions options;
  options.database = db.toStdString();
  auto report = core::run_sweep(grid, options);
  return report && report->failed + report->invalid == 0;
}

double lightness(QRgb pixel) { return 0.299 * qRed(pixel) + 0.587 * qGreen(pixel) + 0.114 * qBlue(pixel); }

}  // namespace

class GuiTests : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString db_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    db_ = dir_.filePath("runs.db");
    // Run 1: fgcs Fig. 4's setting (matmul2d N=4, 4 rows or columns, no prefetch window).
    auto one_at_a_time = [](core::ReplayRequest request) {
      request.buffer_depth = 1;
      return request;
    };
    QVERIFY(replay_into(db_, one_at_a_time(replay_request("matmul2d:N=4", "eager", "lru", "4items"))));
    QVERIFY(replay_into(db_, one_at_a_time(replay_request("matmul2d:N=4", "hfp", "belady", "4items"))));
    QVERIFY(replay_into(db_, replay_request("cholesky:N=6", "dmdas", "lru", "20items", 2)));
  }

  void tile_figure_pixels_follow_the_run() {
    auto store = db::Store::open(db_.toStdString(), db::Store::OpenMode::ReadOnly);
    QVERIFY(store.ok());
    auto run = load_run_data(*store, 1);
    QVERIFY(run.ok());
    TileFigure figure(*run);
    TileOptions options;
    options.numbers = false;
    QImage image(400, 440, QImage::Format_ARGB32);
    image.fill(Qt::white);
    const QRectF area(0, 0, 400, 440);
    {
      QPainter painter(&image);
      figure.paint(painter, area, options);
    }
    TaskId first = kNoId, last = kNoId;
    for (TaskId t = 0; t < run->workload.task_count(); ++t) {
      if (run->order_of[t] == 0) first = t;
      if (run->order_of[t] == run->workload.task_count() - 1) last = t;
    }
    QVERIFY(first != kNoId && last != kNoId);
    const QRectF a = figure.tile_rect(area, first, options), b = figure.tile_rect(area, last, options);
    QVERIFY(a.width() > 20);
    // The first processed tile is the lightest, the last the darkest (corners avoid the load lines).
    const QRgb light = image.pixel(static_cast<int>(a.left() + 3), static_cast<int>(a.top() + 3));
    const QRgb dark = image.pixel(static_cast<int>(b.left() + 3), static_cast<int>(b.top() + 3));
    QVERIFY2(lightness(light) > lightness(dark) + 60, qPrintable(QString("%1 vs %2").arg(lightness(light)).arg(lightness(dark))));
    // A fetched row of A draws a solid orange vertical line through the middle of its tile.
    bool checked = false;
    for (TaskId t = 0; t < run->workload.task_count() && !checked; ++t) {
      for (std::uint32_t index : run->loads_of[t]) {
        const LoadRecord& load = run->trace.loads[index];
        if (load.kind != LoadKind::Fetch || run->workload.data()[load.data].matrix != 'A') continue;
        const QRectF tile = figure.tile_rect(area, t, options);
        const QRgb pixel = image.pixel(static_cast<int>(tile.left() + tile.width() * 0.5), static_cast<int>(tile.top() + tile.height() * 0.3));
        QVERIFY2(qRed(pixel) > 200 && qGreen(pixel) > 90 && qGreen(pixel) < 190 && qBlue(pixel) < 80,
                 qPrintable(QString("pixel %1,%2,%3").arg(qRed(pixel)).arg(qGreen(pixel)).arg(qBlue(pixel))));
        checked = true;
        break;
      }
    }
    QVERIFY(checked);
    // A single panel carries its indices: ink left of the grid beside each row, beyond the
    // margin bars, and none there when the figure is too small to spare the band.
    {
      TaskId row0 = kNoId;
      for (TaskId t = 0; t < run->workload.task_count(); ++t) {
        if (run->workload.tasks()[t].i == 0 && run->workload.tasks()[t].j == 0) row0 = t;
      }
      QVERIFY(row0 != kNoId);
      const QRectF corner = figure.tile_rect(area, row0, options);
      int inked = 0;
      for (int x = static_cast<int>(corner.left() - 1.4 * corner.width()) - 30; x < static_cast<int>(corner.left() - 1.4 * corner.width()); ++x) {
        for (int y = static_cast<int>(corner.top()); y < static_cast<int>(corner.bottom()); ++y) inked += lightness(image.pixel(x, y)) < 160;
      }
      QVERIFY2(inked > 5, qPrintable(QString("%1 dark pixels where row 0's index belongs").arg(inked)));
    }
    // Hit testing finds the tile's task.
    QCOMPARE(*figure.task_at(area, a.center(), options), first);
    // The step-by-step limit hides the tiles processed later.
    options.limit = 1;
    QVERIFY(figure.task_at(area, b.center(), options) == std::nullopt);
  }

  void timeline_bars_are_the_tasks() {
    auto store = db::Store::open(db_.toStdString(), db::Store::OpenMode::ReadOnly);
    auto run = load_run_data(*store, 3);  // two GPUs
    QVERIFY(run.ok());
    TimelineFigure timeline(*run);
    const QRectF area(0, 0, 1200, 400);
    const std::int64_t end = timeline.duration();
    QImage image(1200, 400, QImage::Format_ARGB32);
    {
      QPainter painter(&image);
      timeline.paint(painter, area, 0, end, std::nullopt, false);
    }
    // The longest task of each GPU is found under the middle of its bar on that GPU's compute lane.
    for (GpuId gpu : {0u, 1u}) {
      const TaskRecord* longest = nullptr;
      for (const TaskRecord& r : run->trace.tasks) {
        if (r.gpu == gpu && (!longest || r.end_ns - r.start_ns > longest->end_ns - longest->start_ns)) longest = &r;
      }
      QVERIFY(longest != nullptr);
      const double left = std::min(110.0, area.width() * 0.15), width = area.width() - left - 4;
      const double x = left + width * (static_cast<double>(longest->start_ns + longest->end_ns) / 2) / static_cast<double>(end);
      const double lane = (area.height() - 42) / (run->gpus * 4);  // under the lanes: the axis and the legend
      const auto found = timeline.task_at(area, 0, end, QPointF(x, (gpu * 4 + 0.5) * lane));
      QVERIFY(found.has_value());
      QCOMPARE(*found, longest->task);
      // Not on the fetch lane below it.
      QVERIFY(!timeline.task_at(area, 0, end, QPointF(x, (gpu * 4 + 1.5) * lane)).has_value());
      // The memory lane tells the memory in use against M.
      QVERIFY(timeline.tooltip_at(area, 0, end, QPointF(x, (gpu * 4 + 3.5) * lane)).contains("of M = "));
    }
    // A fetch's tooltip names its data, its size, its times and the task it serves.
    const double lane = (area.height() - 42) / (run->gpus * 4);
    bool found_fetch = false;
    for (const LoadRecord& load : run->trace.loads) {
      if (load.kind != LoadKind::Fetch || load.task == kNoId) continue;
      const double x = timeline.x_at(area, 0, end, (load.issue_ns + load.end_ns) / 2);
      const QString tip = timeline.tooltip_at(area, 0, end, QPointF(x, (load.gpu * 4 + 1.5) * lane));
      QVERIFY2(tip.startsWith("fetch of ") && tip.contains("issued") && tip.contains("for "), qPrintable(tip));
      found_fetch = true;
      break;
    }
    QVERIFY(found_fetch);
    // The view: W zooms in, A and D pan, Shift-drag measures, Z zooms to the measure.
    TimelineView view(std::make_shared<const RunData>(*run));
    view.resize(1200, 300);
    const std::int64_t whole = view.window_end() - view.window_begin();
    QVERIFY(!view.zoomed() && view.overview_strip().isEmpty());
    QTest::keyClick(&view, Qt::Key_W);
    QVERIFY(view.window_end() - view.window_begin() < whole);
    // Zoomed: the overview strip shows the window's share of the run.
    QVERIFY(view.zoomed());
    QVERIFY(view.overview_strip().contains(view.overview_window().center()));
    QVERIFY(std::abs(view.overview_window().width() / view.overview_strip().width() - 0.8) < 0.02);
    const std::int64_t begin = view.window_begin();
    QTest::keyClick(&view, Qt::Key_D);
    QVERIFY(view.window_begin() > begin);
    // A click at the strip's left end brings the window back to the run's start.
    QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(static_cast<int>(view.overview_strip().left()) + 1, 6));
    QCOMPARE(view.window_begin(), std::int64_t{0});
    QTest::mouseDClick(&view, Qt::LeftButton, {}, QPoint(600, 20));
    QCOMPARE(view.window_end() - view.window_begin(), whole);
    QTest::mousePress(&view, Qt::LeftButton, Qt::ShiftModifier, QPoint(400, 20));
    QTest::mouseMove(&view, QPoint(800, 20));
    QMouseEvent move(QEvent::MouseMove, QPointF(800, 20), QPointF(800, 20), Qt::NoButton, Qt::LeftButton, Qt::ShiftModifier);
    QApplication::sendEvent(&view, &move);
    QTest::mouseRelease(&view, Qt::LeftButton, Qt::ShiftModifier, QPoint(800, 20));
    QVERIFY(view.measured().has_value());
    const auto [from, to] = *view.measured();
    QVERIFY(to > from);
    QTest::keyClick(&view, Qt::Key_Z);
    QCOMPARE(view.window_begin(), from);
    QCOMPARE(view.window_end(), to);
  }

  void cpu_workers_have_one_lane_each() {
    // One GPU and three CPU cores at equal rates: Heteroprio gives the cores work.
    const QString db = dir_.filePath("hetero.db");
    auto request = replay_request("cholesky:N=8", "heteroprio", "lru", "20items");
    request.platform.cpus = 3;
    request.platform.cpu_rate = core::RateChoice{13393, {}};
    QVERIFY(replay_into(db, request));
    auto store = db::Store::open(db.toStdString(), db::Store::OpenMode::ReadOnly);
    auto run = load_run_data(*store, 1);
    QVERIFY(run.ok());
    QCOMPARE(run->gpus, 4u);
    QVERIFY(run->is_cpu(1) && !run->is_cpu(0));
    QCOMPARE(run->worker_name(3), std::string("CPU 2"));
    TimelineFigure timeline(*run);
    const QRectF area(0, 0, 1200, 400);
    const std::int64_t end = timeline.duration();
    const double lane = (area.height() - 22) / (4 + 3);  // the GPU's four lanes, one per core
    const double left = std::min(110.0, area.width() * 0.15), width = area.width() - left - 4;
    int found_on_cpus = 0;
    for (GpuId cpu : {1u, 2u, 3u}) {
      const TaskRecord* longest = nullptr;
      for (const TaskRecord& r : run->trace.tasks) {
        if (r.gpu == cpu && (!longest || r.end_ns - r.start_ns > longest->end_ns - longest->start_ns)) longest = &r;
      }
      if (!longest) continue;
      const double x = left + width * (static_cast<double>(longest->start_ns + longest->end_ns) / 2) / static_cast<double>(end);
      const auto found = timeline.task_at(area, 0, end, QPointF(x, (4 + (cpu - 1) + 0.5) * lane));
      QVERIFY(found.has_value());
      QCOMPARE(*found, longest->task);
      ++found_on_cpus;
    }
    QVERIFY(found_on_cpus > 0);
  }

  void exports_are_files_of_their_format() {
    auto store = db::Store::open(db_.toStdString(), db::Store::OpenMode::ReadOnly);
    auto run = load_run_data(*store, 3);
    QVERIFY(run.ok());
    TileFigure figure(*run);
    QCOMPARE(figure.panels(), std::size_t{6});  // one per Cholesky iteration
    TileOptions split;
    split.per_gpu = true;
    QCOMPARE(figure.panels(split), std::size_t{12});  // and one set per GPU (two GPUs)
    {
      // Small tiles are set as pixels on a raster device: each shows its task's colour.
      const QRectF small(0, 0, 32, 32);  // one panel of tiles about 2.5 px wide
      TileOptions plain;
      plain.title = plain.legend = false;
      plain.first_panels = 1;
      QImage pixels(32, 32, QImage::Format_ARGB32_Premultiplied);
      pixels.fill(Qt::white);
      {
        QPainter painter(&pixels);
        figure.paint(painter, small, plain);
      }
      int checked = 0;
      for (TaskId t = 0; t < run->workload.task_count() && checked < 20; ++t) {
        const QRectF tile = figure.tile_rect(small, t, plain);
        if (tile.isEmpty() || run->order_of[t] == kNoId) continue;
        QVERIFY(tile.width() < 4);
        const QRgb pixel = pixels.pixel(static_cast<int>(tile.center().x()), static_cast<int>(tile.center().y()));
        const QColor want = figure.task_color(t, plain);  // within the 256-step shade table's rounding
        QVERIFY2(std::abs(qRed(pixel) - want.red()) <= 2 && std::abs(qGreen(pixel) - want.green()) <= 2 && std::abs(qBlue(pixel) - want.blue()) <= 2,
                 qPrintable(QColor(pixel).name() + " against " + want.name()));
        ++checked;
      }
      QVERIFY(checked > 0);
    }
    TileOptions first_two;
    first_two.first_panels = 2;  // darts Figs. 8, 9 draw the first iterations only
    QCOMPARE(figure.panels(first_two), std::size_t{2});
    first_two.per_gpu = true;
    QCOMPARE(figure.panels(first_two), std::size_t{4});
    {
      // One panel per GPU (darts Fig. 13): on a wide page the two GPUs sit side by side.
      TileOptions first_only;
      first_only.first_panels = 1;
      first_only.per_gpu = true;
      const QRectF wide(0, 0, 1800, 928);
      // Each GPU's panel origin: a drawn tile's corner less its (i, j) in tiles.
      std::optional<QPointF> origin[2];
      for (TaskId t = 0; t < run->workload.task_count(); ++t) {
        const Task& task = run->workload.tasks()[t];
        if (task.k != 0 || run->order_of[t] == kNoId || origin[run->gpu_of[t]]) continue;
        const QRectF tile = figure.tile_rect(wide, t, first_only);
        origin[run->gpu_of[t]] = tile.topLeft() - QPointF(task.j * tile.width(), task.i * tile.height());
      }
      QVERIFY(origin[0] && origin[1]);
      QVERIFY2(std::abs(origin[0]->y() - origin[1]->y()) < 2 && origin[1]->x() > origin[0]->x() + 100,
               qPrintable(QString("GPU 0 at %1,%2, GPU 1 at %3,%4").arg(origin[0]->x()).arg(origin[0]->y()).arg(origin[1]->x()).arg(origin[1]->y())));
    }
    for (TaskId t = 0; t < run->workload.task_count(); ++t) {  // a later iteration's task is not drawn
      if (run->workload.tasks()[t].k < 2) continue;
      QVERIFY(figure.tile_rect(QRectF(0, 0, 1200, 600), t, first_two).isEmpty());
      break;
    }
    // A task of GPU 1 is drawn in GPU 1's set, the second half of the panels.
    for (TaskId t = 0; t < run->workload.task_count(); ++t) {
      if (run->gpu_of[t] != 1 || run->order_of[t] == kNoId) continue;
      const QRectF area(0, 0, 1200, 600);
      const QRectF rect = figure.tile_rect(area, t, split);
      QCOMPARE(*figure.task_at(area, rect.center(), split), t);
      break;
    }
    const PaintFunction paint = [&](QPainter& painter, const QRectF& area) { figure.paint(painter, area, TileOptions{}); };
    const QString png = dir_.filePath("f.png"), svg = dir_.filePath("f.svg"), pdf = dir_.filePath("f.pdf");
    QCOMPARE(export_figure(paint, QSize(640, 480), png), QString());
    QCOMPARE(export_figure(paint, QSize(640, 480), svg), QString());
    QCOMPARE(export_figure(paint, QSize(640, 480), pdf), QString());
    QCOMPARE(QImage(png).size(), QSize(640, 480));
    QFile svg_file(svg), pdf_file(pdf);
    QVERIFY(svg_file.open(QIODevice::ReadOnly) && pdf_file.open(QIODevice::ReadOnly));
    QVERIFY(svg_file.readAll().contains("<svg"));
    QVERIFY(pdf_file.read(4) == "%PDF");
    QVERIFY(export_figure(paint, QSize(640, 480), dir_.filePath("f.bmpx")).contains("unknown format"));
  }

  void paper_figure_replays_its_preset_and_draws_it() {
    // fgcs Fig. 13: DMDAR and HFP on the random order, side by side, as PNG and PDF.
    const QString db = dir_.filePath("paper.db"), base = dir_.filePath("fig13");
    const SweepPreset* preset = find_sweep_preset("fgcs-fig13");
    QVERIFY(preset && preset->order_figure);
    auto figure = make_paper_figure(*preset, db, base, false);
    QVERIFY2(figure.ok(), figure.ok() ? "" : figure.error().message.c_str());
    QCOMPARE(figure->files, QStringList({base + ".png", base + ".pdf", base + ".svg"}));
    const QImage image(base + ".png");
    QCOMPARE(image.width(), 900 * 2);  // one panel per policy
    QFile pdf(base + ".pdf");
    QVERIFY(pdf.open(QIODevice::ReadOnly) && pdf.read(4) == "%PDF");
    // Its runs are the preset's, one per policy; a second figure reuses them.
    auto store = db::Store::open(db.toStdString(), db::Store::OpenMode::ReadOnly);
    QVERIFY(store.ok());
    auto runs = core::preset_runs(*store, *preset, figure->sweep_id);
    QVERIFY(runs.ok());
    QCOMPARE(runs->size(), preset->policies.size());
    QCOMPARE(runs->front().run.info.scheduler.substr(0, 5), std::string("dmdar"));
    auto again = make_paper_figure(*preset, db, base, true);
    QVERIFY(again.ok());
    QCOMPARE(again->sweep_id, figure->sweep_id);
    QCOMPARE(store->list_runs()->size(), preset->policies.size());
    // An N sweep gives its curves instead, the preset's legend names on them: transfers and
    // GFlop/s (a copy of fgcs 4.1's preset at two sizes, to stay quick).
    SweepPreset small = *find_sweep_preset("fgcs-cm-rcm");
    QVERIFY(!small.order_figure);
    for (auto& [option, value] : small.options) {
      if (option == "workload") value = "matmul2d:N=5|10";
    }
    auto curves = make_paper_figure(small, db, dir_.filePath("cm"), false);
    QVERIFY2(curves.ok(), curves.ok() ? "" : curves.error().message.c_str());
    QCOMPARE(curves->files.size(), 6);
    QVERIFY(curves->files.contains(dir_.filePath("cm-transfers.png")) && curves->files.contains(dir_.filePath("cm-gflops.pdf")));
    QVERIFY(!QImage(dir_.filePath("cm-gflops.png")).isNull());
  }

  void main_window_opens_shows_and_compares() {
    MainWindow window;
    QString error;
    QVERIFY(window.open_database(db_, &error));
    QCOMPARE(window.run_count(), 3);
    // Nothing open yet: the right side says what to do, not a blank pane.
    auto* hint = window.findChild<QLabel*>("start_hint");
    QVERIFY(hint != nullptr);
    QVERIFY(hint->isVisibleTo(&window));
    QVERIFY2(hint->text().startsWith("Select a run in the list"), qPrintable(hint->text()));
    QVERIFY(!window.tabs()->isVisibleTo(&window));
    window.show_runs({1});
    // Runs load on a worker thread: a placeholder first, the page once they arrive.
    QTRY_VERIFY(window.loading() == 0);
    QVERIFY(dynamic_cast<RunPage*>(window.tabs()->currentWidget()) != nullptr);
    QVERIFY(window.tabs()->isVisibleTo(&window));
    QVERIFY(!hint->isVisibleTo(&window));
    // File > Export run goes through the exporters `tilelens export` uses.
    const QString paje = dir_.filePath("run1.paje");
    QCOMPARE(window.export_run(paje, "paje"), QString());
    QFile written(paje);
    QVERIFY(written.open(QIODevice::ReadOnly));
    QVERIFY(written.readLine().startsWith("%EventDef"));
    QVERIFY(!window.export_run(paje, "no-such-exporter").isEmpty());
    window.show_runs({1, 2});
    QTRY_VERIFY(window.loading() == 0);
    auto* compare = dynamic_cast<ComparePage*>(window.tabs()->currentWidget());
    QVERIFY(compare != nullptr);
    QCOMPARE(compare->views().size(), std::size_t{2});
    QCOMPARE(window.tabs()->count(), 2);
    window.show_runs({1});  // already open: no new tab
    QCOMPARE(window.tabs()->count(), 2);
    const QString out = dir_.filePath("window.svg");
    QVERIFY(window.export_current(out));
    QVERIFY(QFile(out).size() > 1000);
    // A file that is not a database is refused; the open database stays.
    const QString junk = dir_.filePath("junk.db");
    QFile file(junk);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("not a database at all, just text that is long enough to have a header...");
    file.close();
    QVERIFY(!window.open_database(junk, &error));
    QVERIFY(error.contains("junk.db"));
    QCOMPARE(window.run_count(), 3);
    QCOMPARE(window.tabs()->count(), 2);
  }

  void sweep_curves_follow_the_sweep() {
    const QString db = dir_.filePath("sweeps.db");
    QVERIFY(sweep_into(db, "matmul2d:N=4..8:4", "eager/lru,hfp/belady", "3items"));
    QVERIFY(sweep_into(db, "matmul2d:N=8", "eager", "3items,5items,7items"));
    auto store = db::Store::open(db.toStdString(), db::Store::OpenMode::ReadOnly);
    QVERIFY(store.ok());
    auto by_size = sweep_curves(*store, 1);
    QVERIFY2(by_size.ok(), by_size.ok() ? "" : by_size.error().message.c_str());
    QVERIFY(!by_size->memory_axis);
    QCOMPARE(by_size->series.size(), std::size_t{2});
    QCOMPARE(by_size->series[0].label, std::string("eager/lru"));
    QCOMPARE(by_size->series[1].label, std::string("hfp/belady"));
    QCOMPARE(by_size->series[0].points.size(), std::size_t{2});
    QCOMPARE(by_size->lower_bound.size(), std::size_t{2});
    QVERIFY(by_size->series[0].points[0].x < by_size->series[0].points[1].x);
    for (const auto& series : by_size->series) {
      for (std::size_t k = 0; k < series.points.size(); ++k) QVERIFY(series.points[k].bytes >= by_size->lower_bound[k].second);
    }
    QVERIFY(by_size->green > 0 && by_size->red > by_size->green);  // one input fits later than the working set
    auto by_memory = sweep_curves(*store, 2);
    QVERIFY(by_memory.ok());
    QVERIFY(by_memory->memory_axis);
    QCOMPARE(by_memory->series.front().points.size(), std::size_t{3});
    // More memory never costs the same order more loads here.
    QVERIFY(by_memory->series.front().points.front().bytes >= by_memory->series.front().points.back().bytes);
    CurvesPage page(*by_size, "test");
    {
      // Sizes in GiB on a log axis labelled at 1-2-5 steps, and every memory mark named in the
      // legend drawn inside the x axis.
      auto* view = page.findChild<QChartView*>();
      QVERIFY(view != nullptr);
      auto* y = qobject_cast<QCategoryAxis*>(view->chart()->axes(Qt::Vertical).front());
      QVERIFY(y != nullptr);
      QVERIFY(y->titleText().contains("GiB"));
      QVERIFY(y->categoriesLabels().size() >= 3);
      bool two_or_five = false;
      for (const QString& label : y->categoriesLabels()) two_or_five = two_or_five || label.startsWith('2') || label.startsWith('5') || label.startsWith("0.2") || label.startsWith("0.5");
      QVERIFY(two_or_five);
      auto* x = qobject_cast<QValueAxis*>(view->chart()->axes(Qt::Horizontal).front());
      QVERIFY(x != nullptr);
      for (QAbstractSeries* series : view->chart()->series()) {
        if (!series->name().startsWith("M ")) continue;
        const double at = static_cast<QLineSeries*>(series)->at(0).x();
        QVERIFY2(at >= x->min() && at <= x->max(), qPrintable(series->name()));
      }
    }
    {
      // A point says its values when hovered, and a click on it asks for its run.
      const CurveSeries& hfp = by_size->series[1];
      const QString tip = curve_point_tooltip(hfp, hfp.points[1], false, false);
      QVERIFY2(tip.startsWith("hfp/belady\nworking set = ") && tip.contains(QString("run #%1").arg(hfp.points[1].run_id)), qPrintable(tip));
      QVERIFY(curve_point_tooltip(hfp, hfp.points[1], true, true).contains("\nM = "));
      QVERIFY(curve_point_tooltip(hfp, hfp.points[1], true, true).contains("GFlop/s"));
      QSignalSpy clicked(&page, &CurvesPage::run_clicked);
      QLineSeries* line = nullptr;
      for (QAbstractSeries* series : page.findChild<QChartView*>()->chart()->series()) {
        if (series->name() == "hfp/belady") line = static_cast<QLineSeries*>(series);
      }
      QVERIFY(line != nullptr);
      emit line->clicked(line->at(1));
      QCOMPARE(clicked.count(), 1);
      QCOMPARE(clicked.front().front().toLongLong(), static_cast<qlonglong>(hfp.points[1].run_id));
    }
    // The Sweeps menu names a sweep by its values, not its flags.
    QCOMPARE(sweep_menu_label(1, "--workload=matmul2d:N=5..40:5 --scheduler=eager,rcm --eviction=lru --platform=v100-fgcs --memory=250MiB --buffer=4"),
             QString("Curves of sweep 1: matmul2d:N=5..40:5; eager, rcm (lru); M = 250MiB"));
    QVERIFY(!sweep_menu_label(2, "--workload=" + QString(200, 'x')).contains("--"));
    QVERIFY(sweep_menu_label(2, "--workload=" + QString(200, 'x')).size() <= 120);
    const QString png = dir_.filePath("curves.png");
    QCOMPARE(export_figure(page.paint_function(), page.figure_size(), png), QString());
    QCOMPARE(QImage(png).size(), page.figure_size());
    {
      // The export lays the chart out at its own size: the curves fill the band from 60% to
      // 75% of the width (a chart left at a hidden window's size used half of it, its legend
      // beside).
      const QImage image(png);
      int far = 0;
      for (int x = image.width() * 6 / 10; x < image.width() * 3 / 4; ++x) {
        for (int y = 0; y < image.height(); ++y) {
          const QColor c = image.pixelColor(x, y);
          far += c.saturation() > 120 && c.value() > 80;  // a series' colour, not text or grid
        }
      }
      // Measured: 644 laid out at the export's size, 266 (the legend's markers) at half width.
      QVERIFY2(far > 450, qPrintable(QString("%1 coloured pixels between 60% and 75% of the width").arg(far)));
    }
    QVERIFY(!sweep_curves(*store, 99).ok());
  }

  // The difference map says which run is which in its title, and each tile's loads in both
  // runs when hovered.
  void difference_map_names_runs_and_tiles() {
    auto store = db::Store::open(db_.toStdString(), db::Store::OpenMode::ReadOnly);
    QVERIFY(store.ok());
    auto first = load_run_data(*store, 1), second = load_run_data(*store, 2);
    QVERIFY(first.ok() && second.ok());
    ComparePage page({std::make_shared<const RunData>(std::move(*first)), std::make_shared<const RunData>(std::move(*second))});
    page.resize(1400, 900);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    auto* map = page.findChild<QWidget*>("difference_map");
    QVERIFY(map != nullptr);
    QVERIFY2(map->height() >= 250, qPrintable(QString::number(map->height())));
    QImage image(map->size(), QImage::Format_ARGB32);
    map->render(&image);
    // Hover the middle of the map: a tile of matmul2d N=4's 4 x 4 grid.
    const QPoint middle(map->width() / 2, map->height() / 2);
    QHelpEvent help(QEvent::ToolTip, middle, map->mapToGlobal(middle));
    QApplication::sendEvent(map, &help);
    const QString text = QToolTip::text();
    QVERIFY2(text.contains("tile (") && text.contains("#1 EAGER + LRU") && text.contains("#2 HFP + BELADY") && text.contains("second - first"),
             qPrintable(text));
    QToolTip::hideText();
    // An export keeps a margin (3% of its shorter side): nothing but the background along its edges.
    QImage exported(600, 700, QImage::Format_ARGB32);
    {
      QPainter painter(&exported);
      paint_difference(painter, QRectF(0, 0, 600, 700), *page.views()[0]->run(), *page.views()[1]->run(), false);
    }
    int touched = 0;  // within 16 px of the left or right edge (it was 8 before the margin)
    for (int y = 0; y < exported.height(); ++y) {
      for (int x = 0; x < 16; ++x) touched += (lightness(exported.pixel(x, y)) < 240) + (lightness(exported.pixel(exported.width() - 1 - x, y)) < 240);
    }
    QCOMPARE(touched, 0);
  }

  // A split dragged on one run's page holds for the next run opened.
  void run_split_is_kept_across_runs() {
    auto store = db::Store::open(db_.toStdString(), db::Store::OpenMode::ReadOnly);
    QVERIFY(store.ok());
    auto first = load_run_data(*store, 1), second = load_run_data(*store, 3);
    QVERIFY(first.ok() && second.ok());
    RunPage one(std::make_shared<const RunData>(std::move(*first)));
    one.resize(1200, 900);
    one.show();
    QVERIFY(QTest::qWaitForWindowExposed(&one));
    auto* split = one.findChild<QSplitter*>("run_splitter");
    QVERIFY(split != nullptr);
    split->setSizes({300, 500});
    const QList<int> dragged = split->sizes();
    emit split->splitterMoved(dragged[0], 1);  // as a drag of the handle reports it
    RunPage two(std::make_shared<const RunData>(std::move(*second)));
    two.resize(1200, 900);
    two.show();
    QVERIFY(QTest::qWaitForWindowExposed(&two));
    QCOMPARE(two.findChild<QSplitter*>("run_splitter")->sizes(), dragged);
  }

  // A task selected elsewhere that lies outside a zoomed timeline brings the window to it.
  void timeline_pans_to_a_selected_task() {
    auto store = db::Store::open(db_.toStdString(), db::Store::OpenMode::ReadOnly);
    QVERIFY(store.ok());
    auto run = load_run_data(*store, 3);
    QVERIFY(run.ok());
    auto shared = std::make_shared<const RunData>(std::move(*run));
    TimelineView view(shared);
    view.resize(900, 300);
    for (int i = 0; i < 12; ++i) QTest::keyClick(&view, Qt::Key_W);  // zoomed in around the middle
    const std::int64_t span = view.window_end() - view.window_begin();
    QVERIFY(span < view.figure().duration() / 4);
    const TaskRecord& last = shared->trace.tasks.back();
    QVERIFY(last.start_ns > view.window_end());
    view.set_highlight(last.task);
    QVERIFY(view.window_begin() <= last.start_ns && last.start_ns <= view.window_end());
    QCOMPARE(view.window_end() - view.window_begin(), span);
  }

  // Where time went: each worker's bar is split in proportion to its states, the hover names
  // the state and its time, the timeline's compute lane shows and names the waits, and the run
  // page carries the bars under its timeline.
  void time_split_bars_follow_the_trace() {
    auto store = db::Store::open(db_.toStdString(), db::Store::OpenMode::ReadOnly);
    auto run = load_run_data(*store, 3);  // two GPUs
    QVERIFY(run.ok());
    const TimeSplit& split = run->time_split;
    QCOMPARE(split.workers.size(), std::size_t{2});
    TimeSplitFigure figure(*run);
    QCOMPARE(figure.rows(), std::size_t{3});  // two GPUs, then all workers
    const QRectF area(0, 0, 900, figure.height_for(26));
    for (std::size_t row = 0; row < 2; ++row) {
      const WorkerTime& time = split.workers[row];
      QCOMPARE(time.total(), split.span_ns);
      double widths = 0;
      for (WorkerState state : {WorkerState::Busy, WorkerState::WaitingForData, WorkerState::NoReadyTask, WorkerState::SchedulerCost}) {
        const QRectF segment = figure.segment_rect(area, row, state);
        QCOMPARE(segment.isEmpty(), time.of(state) == 0);
        widths += segment.width();
      }
      const double busy = figure.segment_rect(area, row, WorkerState::Busy).width();
      QVERIFY(std::abs(busy / widths - static_cast<double>(time.of(WorkerState::Busy)) / static_cast<double>(time.total())) < 1e-9);
      const QString tip = figure.tooltip_at(area, figure.segment_rect(area, row, WorkerState::Busy).center());
      QVERIFY2(tip.startsWith(QString("GPU %1: busy, ").arg(row)) && tip.contains("% of "), qPrintable(tip));
    }
    QVERIFY(figure.tooltip_at(area, QPointF(2, 2)).isEmpty());
    // A wait for data on the timeline's compute lane is named by its tooltip.
    TimelineFigure timeline(*run);
    const QRectF lanes(0, 0, 1200, 400);
    const double lane = (lanes.height() - 42) / (run->gpus * 4);
    bool found = false;
    for (const StateInterval& idle : split.idle) {
      if (idle.state != WorkerState::WaitingForData) continue;
      const double x = timeline.x_at(lanes, 0, timeline.duration(), (idle.begin_ns + idle.end_ns) / 2);
      const QString tip = timeline.tooltip_at(lanes, 0, timeline.duration(), QPointF(x, (idle.worker * 4 + 0.5) * lane));
      if (tip.isEmpty() || !tip.contains("waiting for data for ")) continue;  // a task bar can cover a short wait at this scale
      QVERIFY2(tip.startsWith(QString::fromStdString(run->worker_name(idle.worker))), qPrintable(tip));
      found = true;
      break;
    }
    QVERIFY(found);
    // A click on a segment selects the task it leads to: the worker's longest task for busy, the
    // task its longest wait for data held back.
    const StateInterval* longest = nullptr;
    for (const StateInterval& idle : split.idle) {
      if (idle.state == WorkerState::WaitingForData && idle.worker == 0 && (!longest || idle.end_ns - idle.begin_ns > longest->end_ns - longest->begin_ns)) longest = &idle;
    }
    QVERIFY(longest != nullptr);
    const TaskRecord* held_back = nullptr;
    for (const TaskRecord& t : run->trace.tasks) {
      if (t.gpu == 0 && t.start_ns >= longest->end_ns && (!held_back || t.start_ns < held_back->start_ns)) held_back = &t;
    }
    QVERIFY(held_back != nullptr);
    QCOMPARE(held_back->start_ns, longest->end_ns);  // the wait ends when the task it held back starts
    QCOMPARE(figure.task_of(0, WorkerState::WaitingForData), std::optional<TaskId>(held_back->task));
    const TaskRecord* longest_task = &*std::max_element(run->trace.tasks.begin(), run->trace.tasks.end(), [](const TaskRecord& a, const TaskRecord& b) {
      return (a.gpu == 1 ? a.end_ns - a.start_ns : -1) < (b.gpu == 1 ? b.end_ns - b.start_ns : -1);
    });
    QCOMPARE(figure.task_of(1, WorkerState::Busy), std::optional<TaskId>(longest_task->task));
    QVERIFY(figure.tooltip_at(area, figure.segment_rect(area, 0, WorkerState::WaitingForData).center()).contains("click: mark the task"));
    RunPage page(std::make_shared<const RunData>(*run));
    QVERIFY(page.time_split() != nullptr);
    QCOMPARE(page.time_split()->figure().rows(), std::size_t{3});
    TimeSplitView& bars = *page.time_split();
    bars.resize(900, bars.figure().height_for(26));
    QSignalSpy selected(&bars, &TimeSplitView::task_selected);
    QTest::mouseClick(&bars, Qt::LeftButton, {}, bars.figure().segment_rect(QRectF(bars.rect()), 0, WorkerState::WaitingForData).center().toPoint());
    QCOMPARE(selected.count(), 1);
    QCOMPARE(page.view()->options().highlight, std::optional<TaskId>(held_back->task));  // marked on the tiles
  }

  // A comparison of two runs of one workload says where their schedules part, and marks the
  // two tasks started there on the tiles.
  void comparison_says_where_schedules_part() {
    auto store = db::Store::open(db_.toStdString(), db::Store::OpenMode::ReadOnly);
    auto eager = load_run_data(*store, 1), hfp = load_run_data(*store, 2), other = load_run_data(*store, 3);
    QVERIFY(eager.ok() && hfp.ok() && other.ok());
    const auto first = std::make_shared<const RunData>(std::move(*eager)), second = std::make_shared<const RunData>(std::move(*hfp));
    ComparePage page({first, second, std::make_shared<const RunData>(std::move(*other))});
    QCOMPARE(page.divergences().size(), std::size_t{1});  // run 3 is another workload
    std::uint32_t rank = 0;
    while (first->trace.tasks[rank].task == second->trace.tasks[rank].task) ++rank;
    const QString text = page.divergences().front()->text();
    QVERIFY2(text.contains(QString("#1 and #2 part at task start %1 of 16").arg(rank + 1)) && text.contains("Loads from there: "), qPrintable(text));
    QVERIFY(text.contains(QString::fromStdString(first->workload.task_label(first->trace.tasks[rank].task)).toHtmlEscaped()));
    page.mark_divergence(0);
    QCOMPARE(page.views()[0]->options().highlight, std::optional<TaskId>(first->trace.tasks[rank].task));
    QCOMPARE(page.views()[1]->options().highlight, std::optional<TaskId>(second->trace.tasks[rank].task));
    QVERIFY(!page.views()[2]->options().highlight.has_value());
    // A run compared with itself never parts.
    ComparePage same({first, first});
    QVERIFY(same.divergences().front()->text().contains("starts the same tasks as #1"));
  }

  // Memory residency: a stay is found and told under its bar, a click on it selects the task
  // it was loaded for, and the run page links it both ways with the tiles and the timeline.
  void residency_shows_stays_and_links_tasks() {
    auto store = db::Store::open(db_.toStdString(), db::Store::OpenMode::ReadOnly);
    auto loaded = load_run_data(*store, 3);  // two GPUs
    QVERIFY(loaded.ok());
    const auto run = std::make_shared<const RunData>(std::move(*loaded));
    ResidencyFigure figure(*run);
    QCOMPARE(figure.stays().size(), run->trace.loads.size() + run->trace.allocations.size());
    const QRectF area(0, 0, 1000, 400);
    std::size_t checked = 0;
    for (std::size_t i = 0; i < figure.stays().size() && checked < 5; ++i) {
      const Residency& stay = figure.stays()[i];
      const QRectF bar = figure.stay_rect(area, i);
      if (bar.width() < 6 || stay.load == kNoRecord) continue;
      QCOMPARE(figure.stay_at(area, bar.center()), std::optional<std::size_t>(i));
      const QString tip = figure.tooltip_at(area, bar.center());
      const QString name = QString::fromStdString(run->workload.data()[stay.data].name);
      QVERIFY2(tip.startsWith(name + " on " + QString::fromStdString(run->worker_name(stay.gpu))), qPrintable(tip));
      QVERIFY2(tip.contains(stay.eviction == kNoRecord ? "stayed to the end" : run->trace.evictions[stay.eviction].cause == EvictionCause::Invalidated ? "invalidated at" : "evicted at"), qPrintable(tip));
      ++checked;
    }
    QVERIFY(checked > 0);
    // A click selects the stay's task.
    ResidencyView view(run);
    view.resize(1000, 400);
    std::size_t stay = 0;
    while (stay < figure.stays().size() && (figure.stay_rect(QRectF(view.rect()), stay).width() < 6 || !figure.task_of(stay))) ++stay;
    QVERIFY(stay < figure.stays().size());
    QSignalSpy selected(&view, &ResidencyView::task_selected);
    QTest::mouseClick(&view, Qt::LeftButton, {}, figure.stay_rect(QRectF(view.rect()), stay).center().toPoint());
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.front().front().value<std::optional<TaskId>>(), figure.task_of(stay));
    // On the run page: a task chosen in the residency is selected on the tiles and the
    // timeline, and one chosen on the tiles is marked in the residency.
    RunPage page(run);
    QVERIFY(page.residency() != nullptr);
    emit page.residency()->task_selected(figure.task_of(stay));
    QCOMPARE(page.view()->options().highlight, figure.task_of(stay));
    const QString png = dir_.filePath("residency.png");
    QCOMPARE(export_figure([&](QPainter& painter, const QRectF& where) { figure.paint(painter, where, figure.task_of(stay), false); }, QSize(900, 500), png), QString());
    QCOMPARE(QImage(png).size(), QSize(900, 500));
  }

  // Zoomed tiles keep their title and legend in place and show an overview with the part in
  // view outlined; a click on the overview centres the view there.
  void zoomed_tiles_keep_title_legend_and_overview() {
    auto store = db::Store::open(db_.toStdString(), db::Store::OpenMode::ReadOnly);
    auto run = load_run_data(*store, 1);
    QVERIFY(run.ok());
    TileView view(std::make_shared<const RunData>(std::move(*run)));
    view.resize(600, 640);
    QVERIFY(view.overview_rect().isEmpty());  // not zoomed: no overview
    const auto render = [&] {
      QImage image(view.size(), QImage::Format_ARGB32);
      view.render(&image);
      return image;
    };
    const auto inked = [&](const QImage& image, int y0, int y1) {
      int count = 0;
      for (int y = y0; y < y1; ++y) {
        for (int x = 0; x < image.width(); ++x) count += lightness(image.pixel(x, y)) < 128;
      }
      return count;
    };
    const QImage whole = render();
    view.set_view(4, QPointF(-600, -640));  // zoomed 4x on the figure's middle
    const QImage zoomed = render();
    // The title band and the legend band carry the same ink as before the zoom.
    QVERIFY(inked(zoomed, 0, 20) > 20);
    QCOMPARE(inked(zoomed, 0, 20), inked(whole, 0, 20));
    QCOMPARE(inked(zoomed, 600, 640), inked(whole, 600, 640));
    const QRectF overview = view.overview_rect(), window = view.overview_window();
    QVERIFY(!overview.isEmpty() && QRectF(view.rect()).contains(overview));
    QVERIFY(overview.contains(window));
    QVERIFY(std::abs(window.width() - overview.width() / 4) < 2);
    QSignalSpy changed(&view, &TileView::view_changed);
    QTest::mouseClick(&view, Qt::LeftButton, {}, overview.topLeft().toPoint() + QPoint(3, 3));
    QCOMPARE(changed.count(), 1);
    QVERIFY(view.overview_window().left() < window.left());  // the view moved towards the corner clicked
  }

  // The replay dialog lists the plugins of TILELENS_PLUGIN_PATH, replays with them and stores
  // their runs, which show like built-in ones.
  void replay_dialog_lists_and_runs_plugins() {
    const QString folder = QFileInfo(TILELENS_EAGER_PLUGIN).absolutePath();
    qputenv("TILELENS_PLUGIN_PATH", folder.toUtf8());
    const QString db = dir_.filePath("plugins.db");
    ReplayDialog dialog(db);
    qunsetenv("TILELENS_PLUGIN_PATH");
    auto* list = dialog.findChild<QListWidget*>();
    QVERIFY(list != nullptr);
    QVERIFY(!list->findItems("eager-example (plugin)", Qt::MatchExactly).isEmpty());
    auto* found = dialog.findChild<QLabel*>("plugins_found");
    QVERIFY2(found->text().startsWith("2 found in"), qPrintable(found->text()));  // the EAGER scheduler and the LRU policy
    dialog.set_workload("matmul2d:N=5");
    dialog.set_memory("4items");
    dialog.select_schedulers({QFileInfo(TILELENS_EAGER_PLUGIN).absoluteFilePath()});
    const auto requests = dialog.replay_requests();
    QVERIFY(requests.ok());
    QCOMPARE(requests->size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(requests->front().scheduler), QFileInfo(TILELENS_EAGER_PLUGIN).absoluteFilePath());
    QSignalSpy done(&dialog, &ReplayDialog::finished_all);
    dialog.start();
    QVERIFY(done.wait(20000));
    QCOMPARE(done.front().at(0).toInt(), 1);
    auto store = db::Store::open(db.toStdString(), db::Store::OpenMode::ReadOnly);
    auto run = load_run_data(*store, 1);
    QVERIFY(run.ok());
    QVERIFY2(run->title().starts_with("EAGER-EXAMPLE + LRU"), run->title().c_str());
  }

  // A time axis keeps one unit and the decimals its step needs.
  void timeline_ticks_share_one_unit() {
    QCOMPARE(time_tick_label(0, 5e7), QString("0 ms"));
    QCOMPARE(time_tick_label(5e7, 5e7), QString("50 ms"));
    QCOMPARE(time_tick_label(2e5, 2e5), QString("200 us"));
    QCOMPARE(time_tick_label(0, 2e5), QString("0 us"));
    QCOMPARE(time_tick_label(1.5e9, 5e8), QString("1500 ms"));
    QCOMPARE(time_tick_label(3e9, 1e9), QString("3 s"));
    QCOMPARE(time_tick_label(500, 100), QString("500 ns"));
  }

  void replay_dialog_stores_runs_on_a_worker() {
    const QString db = dir_.filePath("dialog.db");
    ReplayDialog dialog(db);
    // Wide enough for its placeholders, every scheduler in view, one of them chosen, and what
    // the first chosen does said under the list.
    QVERIFY(dialog.minimumWidth() >= 640);
    auto* list = dialog.findChild<QListWidget*>();
    QVERIFY(list != nullptr);
    QVERIFY(list->height() >= list->sizeHintForRow(0) * list->count());
    QVERIFY(!list->selectedItems().isEmpty());
    auto* help = dialog.findChild<QLabel*>("scheduler_help");
    QVERIFY(help != nullptr);
    dialog.select_schedulers({"hfp", "dmdar"});
    QVERIFY2(help->text().startsWith("dmdar: "), qPrintable(help->text()));  // dmdar comes first in the list
    dialog.select_schedulers({"hfp"});
    QVERIFY2(help->text().startsWith("hfp: Hierarchical Fair Packing") && help->text().contains("options: flip=1"), qPrintable(help->text()));
    dialog.set_workload("matmul2d:N=6");
    dialog.select_schedulers({"eager", "hfp"});
    dialog.set_memory("3items");
    const auto requests = dialog.replay_requests();
    QVERIFY(requests.ok());
    QCOMPARE(requests->size(), std::size_t{2});
    QCOMPARE((*requests)[0].scheduler, std::string("eager"));
    QCOMPARE((*requests)[1].scheduler, std::string("hfp"));
    QCOMPARE((*requests)[1].platform.memory->items, std::uint64_t{3});
    QSignalSpy done(&dialog, &ReplayDialog::finished_all);
    QSignalSpy stored(&dialog, &ReplayDialog::run_stored);
    dialog.start();
    QVERIFY(done.wait(20000));
    QCOMPARE(done.front().at(0).toInt(), 2);  // done
    QCOMPARE(done.front().at(1).toInt(), 0);  // failed
    QCOMPARE(stored.count(), 2);
    auto store = db::Store::open(db.toStdString(), db::Store::OpenMode::ReadOnly);
    QVERIFY(store.ok());
    QCOMPARE(store->list_runs()->size(), std::size_t{2});
    // A bad workload fails the run with the CLI's message, and nothing is stored.
    dialog.set_workload("matmul2d:N=-3");
    dialog.select_schedulers({"eager"});
    QSignalSpy failed(&dialog, &ReplayDialog::finished_all);
    dialog.start();
    QVERIFY(failed.wait(20000));
    QCOMPARE(failed.front().at(1).toInt(), 1);
    QCOMPARE(store->list_runs()->size(), std::size_t{2});
    // Cancel stops the run in progress: nothing of it is stored.
    dialog.set_workload("matmul2d:N=150");
    dialog.select_schedulers({"dmdar", "hfp"});
    dialog.set_memory("500MiB");
    QSignalSpy cancelled(&dialog, &ReplayDialog::finished_all);
    dialog.start();
    QTest::qWait(50);
    for (QPushButton* button : dialog.findChildren<QPushButton*>()) {
      if (button->text() == "Cancel") button->click();
    }
    QVERIFY(cancelled.wait(20000));
    QVERIFY(cancelled.front().at(2).toBool());
    QVERIFY(store->list_runs()->size() < 4);  // at most the first run, if it ended before Cancel
    // A dialog opened on a run takes its settings.
    ReplayDialog again(db);
    auto run = store->list_runs()->front();
    again.prefill(run);
    const auto prefilled = again.replay_requests();
    QVERIFY(prefilled.ok());
    QCOMPARE(prefilled->size(), std::size_t{1});
    QCOMPARE(prefilled->front().workload, run.workload_spec);
    QCOMPARE(prefilled->front().scheduler, std::string("eager"));
    QCOMPARE(prefilled->front().buffer_depth, run.buffer_depth);
  }

  void what_if_replays_at_another_memory() {
    auto store = db::Store::open(db_.toStdString(), db::Store::OpenMode::ReadOnly);
    auto run = load_run_data(*store, 1);  // EAGER + LRU, one task at a time: LRU has no anomaly
    QVERIFY(run.ok());
    auto shared = std::make_shared<const RunData>(std::move(*run));
    RunPage page(shared);
    QSignalSpy shown(&page, &RunPage::what_if_shown);
    page.what_if(2.0);
    QVERIFY(shown.wait(20000));
    const RunData& bigger = page.view()->figure().run();
    QCOMPARE(bigger.run.info.platform.memory_bytes, 2 * shared->run.info.platform.memory_bytes);
    QVERIFY(bigger.run.metrics->summary.loads <= shared->run.metrics->summary.loads);
    QCOMPARE(bigger.run.info.id, std::int64_t{0});
    page.what_if(1.0);
    QCOMPARE(&page.view()->figure().run(), shared.get());
  }

  // An imported run shows what its import said, on a button that opens the whole report.
  void imported_run_shows_its_import_report() {
    const QString db = dir_.filePath("imported.db");
    core::StarpuImportRequest request;
    const std::string fixture = std::string(TILELENS_SOURCE_DIR) + "/tests/starpu/fixtures/lu-out-of-core/";
    request.tasks_file = fixture + "tasks.rec";
    request.data_file = fixture + "data.rec";
    request.paje_file = fixture + "paje.trace";
    request.scheduler = "dmdar";
    request.database = db.toStdString();
    auto imported = core::import_starpu_run(request);
    QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().message.c_str());
    const ImportReport& said = imported->execution.report;
    QVERIFY(!said.empty());
    auto store = db::Store::open(db.toStdString(), db::Store::OpenMode::ReadOnly);
    QVERIFY(store.ok());
    auto run = load_run_data(*store, imported->run_id);
    QVERIFY(run.ok());
    RunPage page(std::make_shared<const RunData>(std::move(*run)));
    auto* button = page.findChild<QPushButton*>("import_report");
    QVERIFY(button != nullptr);
    QVERIFY(button->text().contains(QString("%1 note").arg(said.notes.size())));
    for (const auto& note : said.notes) QVERIFY(button->toolTip().contains(QString::fromStdString(note)));
    for (const auto& warning : said.warnings) QVERIFY(button->toolTip().contains(QString::fromStdString(warning)));
    // A replay has no import report, and no button.
    auto replays = db::Store::open(db_.toStdString(), db::Store::OpenMode::ReadOnly);
    QVERIFY(replays.ok());
    auto replayed = load_run_data(*replays, 1);
    QVERIFY(replayed.ok());
    RunPage plain(std::make_shared<const RunData>(std::move(*replayed)));
    QVERIFY(plain.findChild<QPushButton*>("import_report") == nullptr);
  }

  void selecting_rows_opens_runs() {
    MainWindow window;
    QString error;
    QVERIFY(window.open_database(db_, &error));
    window.run_table()->selectRow(0);
    QTRY_VERIFY(window.loading() == 0);
    QCOMPARE(window.tabs()->count(), 1);
    QVERIFY(dynamic_cast<RunPage*>(window.tabs()->currentWidget()) != nullptr);
    // Ctrl-clicking more rows, or walking the list, replaces the one preview tab.
    QTableView* table = window.run_table();
    table->selectionModel()->select(table->model()->index(1, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QTRY_VERIFY(window.loading() == 0);
    table->selectionModel()->select(table->model()->index(2, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QTRY_VERIFY(window.loading() == 0);
    QCOMPARE(window.tabs()->count(), 1);
    auto* compare = dynamic_cast<ComparePage*>(window.tabs()->currentWidget());
    QVERIFY(compare && compare->views().size() == 3);
    for (int row : {0, 1, 2}) {
      table->selectRow(row);
      QTRY_VERIFY(window.loading() == 0);
    }
    QCOMPARE(window.tabs()->count(), 1);
    // Enter keeps the selection: the preview becomes a tab of its own, the next selection
    // previews in a new preview tab.
    table->setFocus();
    QTest::keyClick(table, Qt::Key_Return);
    QCOMPARE(window.tabs()->count(), 1);
    QVERIFY(!window.tabs()->widget(0)->property("preview").toBool());
    table->selectRow(0);
    QTRY_VERIFY(window.loading() == 0);
    QCOMPARE(window.tabs()->count(), 2);
    // The list follows the active tab.
    window.tabs()->setCurrentIndex(0);
    const auto rows = table->selectionModel()->selectedRows();
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.front().row(), 2);
    QCOMPARE(window.tabs()->count(), 2);  // following the tab opened nothing
  }

  void a_folder_of_shards_opens_as_one_database() {
    // Two sweeps' databases in a folder open as one: their runs, each once.
    QTemporaryDir folder;
    QVERIFY(folder.isValid());
    for (const char* name : {"shard-1.db", "shard-2.db"}) QVERIFY(QFile::copy(db_, folder.filePath(name)));
    MainWindow window;
    QString error;
    QVERIFY2(window.open_databases({folder.path()}, &error), qPrintable(error));
    QCOMPARE(window.run_count(), 3);  // the same runs in both: stored once
    QVERIFY(window.windowTitle().contains("2 databases merged"));
    QTemporaryDir empty;
    QVERIFY(!window.open_databases({empty.path()}, &error));
    QVERIFY(error.contains("no database"));
  }

  void filter_takes_words_and_the_model_is_sound() {
    MainWindow window;
    QString error;
    QVERIFY(window.open_database(db_, &error));
    auto* filter = window.findChild<QLineEdit*>();
    QVERIFY(filter);
    QAbstractItemModelTester tester(window.run_table()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    // The runs: eager/lru and hfp/belady on matmul2d, dmdas/lru on cholesky.
    filter->setText("lru");
    QCOMPARE(window.run_table()->model()->rowCount(), 2);
    filter->setText("LRU cholesky");  // every word, in any column, any case
    QCOMPARE(window.run_table()->model()->rowCount(), 1);
    filter->setText("belady hfp");
    QCOMPARE(window.run_table()->model()->rowCount(), 1);
    filter->setText("no-such-word hfp");
    QCOMPARE(window.run_table()->model()->rowCount(), 0);
    QVERIFY(window.findChild<QStatusBar*>()->findChild<QLabel*>()->text().contains("0 of 3 runs"));
    // Opening a database clears the filter.
    QVERIFY(window.open_database(db_, &error));
    QCOMPARE(filter->text(), QString());
    QCOMPARE(window.run_table()->model()->rowCount(), 3);
  }
};

QTEST_MAIN(GuiTests)
#include "test_gui.moc"
