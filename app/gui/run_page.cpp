// The run page and the tile controls.
#include "app/gui/run_page.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>
#include <cmath>

#include "core/policies.hpp"
#include "core/units.hpp"

namespace tilelens::gui {

QString metrics_line(const RunData& run) {
  if (!run.run.metrics) return "failed: " + QString::fromStdString(run.run.info.error);
  const ReplaySummary& s = run.run.metrics->summary;
  QString text = QString("%1 tasks; ").arg(s.tasks);
  if (run.run.info.transfers_recorded) {
    text += QString("%1 loads (%2 fetch, %3 prefetch) = %4; %5x the lower bound; ")
                .arg(s.loads)
                .arg(s.fetches)
                .arg(s.prefetches)
                .arg(QString::fromStdString(format_binary_bytes(s.bytes_loaded)))
                .arg(run.run.metrics->ratio_to_lower_bound(), 0, 'f', 2);
  }
  text += QString("%1 GFlop/s, makespan %2").arg(s.gflops, 0, 'f', 0).arg(QString::fromStdString(format_duration(s.makespan_ns)));
  // A measured run says where it was measured (tilelens execute, or an imported StarPU run).
  if (run.run.info.mode != RunMode::Replay) {
    text += QString("; measured (%1)").arg(QString::fromStdString(to_string(run.run.info.mode)));
    if (!run.run.info.gpu_name.empty()) text += " on " + QString::fromStdString(run.run.info.gpu_name);
  }
  return text;
}

QString import_report_summary(const ImportReport& report) {
  if (report.empty()) return {};
  const auto count = [](std::size_t n, const char* what) { return QString("%1 %2%3").arg(n).arg(what).arg(n == 1 ? "" : "s"); };
  return "import report: " + count(report.warnings.size(), "warning") + ", " + count(report.notes.size(), "note") +
         (report.records.empty() ? QString() : ", " + count(report.records.size(), "record"));
}

QString import_report_text(const ImportReport& report, bool every_record) {
  QStringList lines;
  for (const auto& warning : report.warnings) lines << "warning: " + QString::fromStdString(warning);
  for (const auto& note : report.notes) lines << "note: " + QString::fromStdString(note);
  if (!report.records.empty()) lines << "records: " + QString::fromStdString(records_summary(report));
  if (every_record) {
    for (const auto& record : report.records) lines << QString::fromStdString(record_line(record));
  }
  return lines.join("\n");
}

TileControls::TileControls(std::vector<TileView*> views, std::uint32_t tasks, QWidget* parent)
    : QWidget(parent), views_(std::move(views)) {
  if (!views_.empty()) options_ = views_.front()->options();
  // A tool bar, so that a narrow window keeps the controls that do not fit behind its ">>"
  // button instead of forcing its width.
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(2, 0, 2, 0);
  auto* bar = new QToolBar;
  bar->setIconSize(QSize(16, 16));
  layout->addWidget(bar);
  auto* mode = new QComboBox;
  mode->addItems({"order (fgcs)", "chunks (darts)"});
  mode->setCurrentIndex(options_.mode == ColorMode::Order ? 0 : 1);
  mode->setToolTip("Order: per-GPU hue, light to dark by processing order. Chunks: a colour per chunk of tasks.");
  auto* chunk = new QSpinBox;
  chunk->setRange(0, 1000000);
  chunk->setSpecialValueText("chunk: auto");  // 0: a round size needing at most seven colours
  chunk->setValue(static_cast<int>(options_.chunk));
  chunk->setPrefix("chunk ");
  chunk->setToolTip("Tasks per colour in chunk mode; auto picks a round size that needs at most seven colours");
  chunk->setEnabled(options_.mode == ColorMode::Chunks);
  auto* numbers = new QCheckBox("numbers");
  numbers->setChecked(options_.numbers);
  auto* loads = new QCheckBox("loads");
  loads->setChecked(options_.loads);
  auto* per_gpu = new QCheckBox("per GPU");
  per_gpu->setToolTip("One panel set per GPU (darts Fig. 13)");
  std::uint32_t most_gpus = 1;
  for (TileView* view : views_) most_gpus = std::max(most_gpus, view->run()->gpus);
  per_gpu->setEnabled(most_gpus > 1);
  auto* play = new QPushButton("Play");
  play->setToolTip("Replay the order step by step (Space)");
  play->setShortcut(Qt::Key_Space);
  slider_ = new QSlider(Qt::Horizontal);
  slider_->setRange(0, static_cast<int>(tasks));
  slider_->setValue(static_cast<int>(tasks));
  slider_->setToolTip("Tasks shown: the first N of the processing order");
  slider_->setMinimumWidth(80);
  slider_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  auto* shown = new QLabel(QString("%1 / %1").arg(tasks));
  shown->setMinimumWidth(90);
  timer_ = new QTimer(this);
  bar->addWidget(mode);
  bar->addWidget(chunk);
  bar->addWidget(numbers);
  bar->addWidget(loads);
  bar->addWidget(per_gpu);
  bar->addWidget(play);
  bar->addWidget(slider_);
  bar->addWidget(shown);

  connect(mode, &QComboBox::currentIndexChanged, this, [this, chunk](int index) {
    options_.mode = index == 0 ? ColorMode::Order : ColorMode::Chunks;
    chunk->setEnabled(index == 1);
    apply();
  });
  connect(chunk, &QSpinBox::valueChanged, this, [this](int value) {
    options_.chunk = static_cast<std::uint32_t>(value);
    apply();
  });
  connect(numbers, &QCheckBox::toggled, this, [this](bool on) {
    options_.numbers = on;
    apply();
  });
  connect(loads, &QCheckBox::toggled, this, [this](bool on) {
    options_.loads = on;
    apply();
  });
  connect(per_gpu, &QCheckBox::toggled, this, [this](bool on) {
    options_.per_gpu = on;
    apply();
  });
  connect(slider_, &QSlider::valueChanged, this, [this, shown, tasks](int value) {
    options_.limit = static_cast<std::uint32_t>(value) >= tasks ? UINT32_MAX : static_cast<std::uint32_t>(value);
    shown->setText(QString("%1 / %2").arg(value).arg(tasks));
    apply();
    emit limit_changed(options_.limit == UINT32_MAX ? std::nullopt : std::optional<std::uint32_t>(options_.limit));
  });
  // About ten seconds for the whole order, at most 50 frames per second.
  const int step = std::max(1, static_cast<int>(tasks) / 500);
  connect(timer_, &QTimer::timeout, this, [this, play, step] {
    if (slider_->value() >= slider_->maximum()) {
      timer_->stop();
      play->setText("Play");
      return;
    }
    slider_->setValue(std::min(slider_->maximum(), slider_->value() + step));
  });
  connect(play, &QPushButton::clicked, this, [this, play] {
    if (timer_->isActive()) {
      timer_->stop();
      play->setText("Play");
      return;
    }
    if (slider_->value() >= slider_->maximum()) slider_->setValue(0);
    timer_->start(20);
    play->setText("Pause");
  });
}

void TileControls::set_dark(bool dark) {
  options_.dark = dark;
  apply();
}

void TileControls::apply() {
  for (TileView* view : views_) {
    TileOptions options = options_;
    options.highlight = view->options().highlight;
    view->set_options(options);
  }
}

RunPage::RunPage(std::shared_ptr<const RunData> run, QWidget* parent) : QWidget(parent), run_(std::move(run)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  view_ = new TileView(run_);
  controls_ = new TileControls({view_}, static_cast<std::uint32_t>(run_->trace.tasks.size()));
  summary_ = new QLabel(metrics_line(*run_));
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setContentsMargins(6, 2, 6, 2);
  // "What if": the memory from a quarter to four times the run's, in steps of 2^(1/4).
  auto* what_if_row = new QWidget;
  auto* row = new QHBoxLayout(what_if_row);
  row->setContentsMargins(4, 0, 4, 0);
  auto* slider = new QSlider(Qt::Horizontal);
  slider->setRange(-8, 8);
  slider->setValue(0);
  slider->setPageStep(1);
  slider->setToolTip("Replay this run with another memory size (not stored); the middle is the stored run");
  const double memory = run_->run.info.platform.memory_bytes;
  memory_label_ = new QLabel(QString("what if M = %1 MiB (stored run)").arg(memory / 1048576.0, 0, 'f', 0));
  memory_label_->setMinimumWidth(180);
  row->addWidget(memory_label_);
  row->addWidget(slider, 1);
  // While a what-if replays, a busy bar, and the summary says its numbers are the old ones.
  busy_ = new QProgressBar;
  busy_->setRange(0, 0);
  busy_->setMaximumWidth(120);
  busy_->setTextVisible(false);
  busy_->hide();
  row->addWidget(busy_);
  // An imported run keeps what its import said: what was left out and decided (tilelens import
  // prints the same lines).
  if (const ImportReport& report = run_->run.import_report; !report.empty()) {
    auto* button = new QPushButton(import_report_summary(report));
    button->setObjectName("import_report");
    button->setToolTip(import_report_text(report, false));
    connect(button, &QPushButton::clicked, this, [this, report] {
      QMessageBox box(QMessageBox::Information, "Import report", import_report_summary(report), QMessageBox::Close, this);
      box.setDetailedText(import_report_text(report, true));
      box.setInformativeText("What the import of this run left out, and what it decided between records that disagreed.");
      box.exec();
    });
    row->addWidget(button);
  }
  if (!make_scheduler(run_->run.info.scheduler) || !make_eviction(run_->run.info.eviction)) {
    slider->setEnabled(false);
    slider->setToolTip("this run's scheduler or eviction is not one tilelens can replay");
  }
  auto* debounce = new QTimer(this);
  debounce->setSingleShot(true);
  debounce->setInterval(250);
  connect(slider, &QSlider::valueChanged, this, [this, debounce, memory](int value) {
    const double factor = std::pow(2.0, value / 4.0);
    memory_label_->setText(QString("what if M = %1 MiB%2").arg(memory * factor / 1048576.0, 0, 'f', 0).arg(value == 0 ? " (stored run)" : ""));
    if (value != 0) {
      busy_->show();
      summary_->setText(QString("replaying at M = %1 MiB... (the figures still show the previous memory)").arg(memory * factor / 1048576.0, 0, 'f', 0));
    }
    debounce->start();
  });
  connect(debounce, &QTimer::timeout, this, [this, slider] { what_if(std::pow(2.0, slider->value() / 4.0)); });
  // The tile view above the timeline; a task selected in one is highlighted in the other.
  timeline_ = new TimelineView(run_);
  // Beside the timeline, in a tab: which data each GPU held over time. A task selected in any
  // of the three is marked in the other two.
  residency_ = new ResidencyView(run_);
  connect(view_, &TileView::task_selected, timeline_, &TimelineView::set_highlight);
  connect(view_, &TileView::task_selected, residency_, &ResidencyView::set_highlight);
  const auto select_on_tiles = [this](std::optional<TaskId> task) {
    TileOptions options = view_->options();
    options.highlight = task;
    view_->set_options(options);
  };
  connect(timeline_, &TimelineView::task_selected, this, select_on_tiles);
  connect(timeline_, &TimelineView::task_selected, residency_, &ResidencyView::set_highlight);
  connect(residency_, &ResidencyView::task_selected, this, select_on_tiles);
  connect(residency_, &ResidencyView::task_selected, timeline_, &TimelineView::set_highlight);
  time_views_ = new QTabWidget;
  time_views_->setObjectName("time_views");
  time_views_->setDocumentMode(true);
  // Alt+T and Alt+M switch between them.
  time_views_->addTab(timeline_, "&timeline");
  time_views_->addTab(residency_, "&memory residency");
  // During Play, the timeline's playhead is at the start of the last task shown.
  connect(controls_, &TileControls::limit_changed, this, [this](std::optional<std::uint32_t> limit) {
    std::optional<std::int64_t> time;
    if (limit && *limit > 0 && *limit <= run_->trace.tasks.size()) time = run_->trace.tasks[*limit - 1].start_ns;
    timeline_->set_playhead(time);
  });
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->setObjectName("run_splitter");
  // Under the timeline, where each worker's time went, in the timeline's brushes.
  time_split_ = new TimeSplitView(run_);
  // A click on a segment of the bars selects the task it leads to, everywhere.
  connect(time_split_, &TimeSplitView::task_selected, this, [this](std::optional<TaskId> task) {
    TileOptions options = view_->options();
    options.highlight = task;
    view_->set_options(options);
    timeline_->set_highlight(task);
    residency_->set_highlight(task);
  });
  splitter->addWidget(view_);
  splitter->addWidget(time_views_);
  splitter->addWidget(time_split_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  splitter->setStretchFactor(2, 0);
  // The split the user last dragged holds for every run opened after it (a timeline made
  // taller to read two GPUs' rows stays tall).
  static QByteArray last_split;
  if (!last_split.isEmpty()) {
    splitter->restoreState(last_split);
  } else {
    // At first, once the splitter has its height: lanes of about 16 px in the timeline (a 2-GPU
    // run has 8 of them), bars of 16 px, the tiles the rest (at least half).
    QTimer::singleShot(0, splitter, [this, splitter] {
      const int height = splitter->height();
      const int bars = time_split_->figure().height_for(16);
      const int tabs = time_views_->tabBar()->sizeHint().height();
      const int lanes = std::min(tabs + 42 + 16 * timeline_->figure().lane_total(), std::max(140, height / 2 - bars));
      splitter->setSizes({std::max(1, height - lanes - bars), lanes, bars});
    });
  }
  connect(splitter, &QSplitter::splitterMoved, splitter, [splitter] { last_split = splitter->saveState(); });
  layout->addWidget(controls_);
  layout->addWidget(splitter, 1);
  layout->addWidget(what_if_row);
  layout->addWidget(summary_);
}

RunPage::~RunPage() {
  if (worker_.joinable()) worker_.join();
}

void RunPage::what_if(double factor) {
  if (worker_.joinable()) {
    pending_ = factor;  // the latest request wins once the running replay ends
    return;
  }
  start_what_if(factor);
}

void RunPage::show_run(const std::shared_ptr<const RunData>& run) {
  view_->set_run(run);
  timeline_->set_run(run);
  residency_->set_run(run);
  time_split_->set_run(run);
}

void RunPage::start_what_if(double factor) {
  if (factor == 1.0) {
    busy_->hide();
    show_run(run_);
    summary_->setText(metrics_line(*run_));
    emit what_if_shown(run_->run.info.platform.memory_bytes);
    return;
  }
  busy_->show();
  summary_->setText(QString("replaying at M = %1 MiB... (the figures still show the previous memory)")
                        .arg(run_->run.info.platform.memory_bytes * factor / 1048576.0, 0, 'f', 0));
  const std::shared_ptr<const RunData> base = run_;
  const double memory = base->run.info.platform.memory_bytes * factor;
  worker_ = std::thread([this, base, memory] {
    auto result = replay_with_memory(*base, memory);
    std::shared_ptr<const RunData> shown = result ? std::make_shared<const RunData>(std::move(*result)) : nullptr;
    const QString error = result ? QString() : QString::fromStdString(result.error().message);
    QMetaObject::invokeMethod(this, [this, shown, error, memory] {
      if (worker_.joinable()) worker_.join();
      if (!pending_) busy_->hide();
      if (shown) {
        show_run(shown);
        summary_->setText("what if: " + metrics_line(*shown));
        emit what_if_shown(memory);
      } else {
        summary_->setText("what if failed: " + error);
      }
      if (pending_) {
        const double next = *pending_;
        pending_.reset();
        start_what_if(next);
      }
    }, Qt::QueuedConnection);
  });
}

PaintFunction RunPage::paint_function() const {
  const TileView* view = view_;
  return [view](QPainter& painter, const QRectF& area) {
    TileOptions options = view->options();
    options.highlight.reset();  // the selection is the window's state, not the figure's
    view->figure().paint(painter, area, options);
  };
}

QString RunPage::figure_name() const { return QString("run-%1-tile-order").arg(run_->run.info.id); }

}  // namespace tilelens::gui
