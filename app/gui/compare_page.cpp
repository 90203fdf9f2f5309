// The comparison page.
#include "app/gui/compare_page.hpp"

#include <QToolTip>

#include <QHelpEvent>

#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/units.hpp"
#include "core/policies.hpp"

namespace tilelens::gui {
namespace {

bool same_workload(const RunData& a, const RunData& b) {
  return a.run.info.workload_id == b.run.info.workload_id && a.workload.task_count() == b.workload.task_count();
}

// Where paint_difference draws each part: the title lines, the grid of (i, j) tiles with its
// differences summed over the layers, and the scale. One computation for painting and for
// finding the tile under the pointer.
struct DifferenceLayout {
  std::int32_t rows = 1, cols = 1;
  std::vector<int> difference, first_loads, second_loads;  // per (i, j)
  int extreme = 1;
  double line = 16, cell = 1, left = 0, top = 0;
  QRectF grid() const { return {left, top, cell * cols, cell * rows}; }
  // The tile under `point`, as i * cols + j, or -1.
  int tile_at(const QPointF& point) const {
    if (!grid().contains(point)) return -1;
    const auto i = static_cast<std::int32_t>((point.y() - top) / cell), j = static_cast<std::int32_t>((point.x() - left) / cell);
    return i >= 0 && i < rows && j >= 0 && j < cols ? i * cols + j : -1;
  }
};

DifferenceLayout difference_layout(const QRectF& area, const RunData& a, const RunData& b, const QFontMetricsF& metrics) {
  DifferenceLayout l;
  const auto& tasks = a.workload.tasks();
  for (const Task& t : tasks) {
    l.rows = std::max(l.rows, t.i + 1);
    l.cols = std::max(l.cols, t.j + 1);
  }
  const std::size_t tiles = static_cast<std::size_t>(l.rows * l.cols);
  l.difference.assign(tiles, 0);
  l.first_loads.assign(tiles, 0);
  l.second_loads.assign(tiles, 0);
  for (TaskId t = 0; t < tasks.size() && t < b.workload.task_count(); ++t) {
    const auto tile = static_cast<std::size_t>(tasks[t].i * l.cols + tasks[t].j);
    l.first_loads[tile] += static_cast<int>(a.loads_of[t].size());
    l.second_loads[tile] += static_cast<int>(b.loads_of[t].size());
  }
  for (std::size_t k = 0; k < tiles; ++k) {
    l.difference[k] = l.second_loads[k] - l.first_loads[k];
    l.extreme = std::max(l.extreme, std::abs(l.difference[k]));
  }
  l.line = metrics.height() + 4;
  const double header = 2 * l.line + 4, scale_height = l.line + 6;
  // A margin all round (3% of the shorter side, at least 8 px): the map never touches the
  // figure's edges.
  const double margin = std::max(8.0, 0.03 * std::min(area.width(), area.height()));
  l.cell = std::max(0.1, std::min((area.width() - 2 * margin) / l.cols, (area.height() - header - scale_height - 2 * margin) / l.rows));
  l.left = area.left() + (area.width() - l.cell * l.cols) / 2;
  l.top = area.top() + header + margin;
  return l;
}

QFont difference_font(QFont font) {
  font.setPixelSize(12);
  return font;
}

class DifferenceView : public QWidget {
 public:
  DifferenceView(std::shared_ptr<const RunData> a, std::shared_ptr<const RunData> b) : a_(std::move(a)), b_(std::move(b)) {
    setMinimumSize(200, 200);
    setObjectName("difference_map");
    setToolTip("Loads attributed to each tile: second run minus first (blue: the second loads less, red: more)");
  }
  void set_dark(bool dark) {
    dark_ = dark;
    update();
  }
  // A tile's loads in both runs and their difference, as its tooltip says them.
  QString tile_text(const QPointF& point) const {
    const DifferenceLayout l = difference_layout(QRectF(rect()), *a_, *b_, QFontMetricsF(difference_font(font())));
    const int tile = l.tile_at(point);
    if (tile < 0) return {};
    const auto k = static_cast<std::size_t>(tile);
    const int d = l.difference[k];
    return QString("tile (%1, %2), summed over its layers\n#%3 %4: %5 loads\n#%6 %7: %8 loads\nsecond - first: %9")
        .arg(tile / l.cols)
        .arg(tile % l.cols)
        .arg(a_->run.info.id)
        .arg(QString::fromStdString(a_->policy_title()))
        .arg(l.first_loads[k])
        .arg(b_->run.info.id)
        .arg(QString::fromStdString(b_->policy_title()))
        .arg(l.second_loads[k])
        .arg(d > 0 ? QString("+%1").arg(d) : QString::number(d));
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter painter(this);
    paint_difference(painter, QRectF(rect()), *a_, *b_, dark_);
  }
  bool event(QEvent* event) override {
    if (event->type() == QEvent::ToolTip) {
      const auto* help = static_cast<QHelpEvent*>(event);
      const QString text = tile_text(help->pos());
      QToolTip::showText(help->globalPos(), text.isEmpty() ? toolTip() : text, this);
      return true;
    }
    return QWidget::event(event);
  }

 private:
  std::shared_ptr<const RunData> a_, b_;
  bool dark_ = false;
};

}  // namespace

namespace {
// A colour-blind-safe diverging scale (Okabe-Ito blue to white to vermillion): t in [-1, 1].
QColor diverging(double t, bool dark) {
  const QColor low(0, 114, 178), high(213, 94, 0), mid = dark ? QColor(50, 50, 55) : QColor(247, 247, 247);
  const QColor& end = t < 0 ? low : high;
  const double w = std::min(1.0, std::abs(t));
  const auto mix = [&](int m, int e) { return static_cast<int>(std::lround(m + (e - m) * w)); };
  return QColor(mix(mid.red(), end.red()), mix(mid.green(), end.green()), mix(mid.blue(), end.blue()));
}
}  // namespace

// One sign everywhere (the table's column too): second minus first, so red is where the
// second run loads more.
void paint_difference(QPainter& painter, const QRectF& area, const RunData& a, const RunData& b, bool dark) {
  painter.save();
  const QColor ink = dark ? QColor(230, 230, 230) : QColor(20, 20, 20);
  painter.fillRect(area, dark ? QColor(30, 30, 34) : QColor(Qt::white));
  const QFont font = difference_font(painter.font());
  painter.setFont(font);
  const QFontMetricsF metrics(font);
  const DifferenceLayout l = difference_layout(area, a, b, metrics);
  const double line = l.line;
  // Two title lines: which run is second and which first (the policies, never cut), then what
  // both share (their workload and memory, cut at the end if it must be).
  const QString second = QString("#%1 %2").arg(b.run.info.id).arg(QString::fromStdString(b.policy_title()));
  const QString first = QString("#%1 %2").arg(a.run.info.id).arg(QString::fromStdString(a.policy_title()));
  const std::string title = a.title();
  const std::string shared = title.substr(std::min(title.size(), a.policy_title().size() + 2));  // past "RCM + LRU, "
  painter.setPen(ink);
  painter.drawText(QRectF(area.left(), area.top(), area.width(), line), Qt::AlignCenter,
                   metrics.elidedText("loads per tile: second " + second + " minus first " + first, Qt::ElideRight, area.width() - 8));
  painter.drawText(QRectF(area.left(), area.top() + line, area.width(), line), Qt::AlignCenter,
                   metrics.elidedText(QString::fromStdString(shared), Qt::ElideRight, area.width() - 8));
  const double cell = l.cell, left = l.left, top = l.top;
  const std::int32_t rows = l.rows, cols = l.cols;
  const int extreme = l.extreme;
  for (std::int32_t i = 0; i < rows; ++i) {
    for (std::int32_t j = 0; j < cols; ++j) {
      const int d = l.difference[static_cast<std::size_t>(i * cols + j)];
      painter.fillRect(QRectF(left + j * cell, top + i * cell, cell, cell).adjusted(0, 0, cell >= 4 ? -1 : 0, cell >= 4 ? -1 : 0),
                       diverging(static_cast<double>(d) / extreme, dark));
    }
  }
  // The labelled scale on one line: blue, the second run loads less; vermillion, more.
  const QString low = QString("second loads less: -%1").arg(extreme), high = QString("+%1: more").arg(extreme);
  const double bar_width = std::clamp(area.width() - metrics.horizontalAdvance(low) - metrics.horizontalAdvance(high) - 40, 60.0, 260.0);
  const double total = metrics.horizontalAdvance(low) + bar_width + metrics.horizontalAdvance(high) + 20;
  const double x0 = area.left() + std::max(4.0, (area.width() - total) / 2), y0 = top + cell * rows + 6;
  painter.setPen(ink);
  painter.drawText(QRectF(x0, y0, metrics.horizontalAdvance(low) + 2, line), Qt::AlignVCenter | Qt::AlignLeft, low);
  const double bar_left = x0 + metrics.horizontalAdvance(low) + 10;
  for (int step = 0; step < 64; ++step) {
    painter.fillRect(QRectF(bar_left + bar_width * step / 64, y0 + line * 0.2, bar_width / 64 + 0.5, line * 0.6), diverging(step / 31.5 - 1, dark));
  }
  painter.drawText(QRectF(bar_left + bar_width / 2 - 10, y0, 20, line), Qt::AlignCenter, "0");
  painter.drawText(QRectF(bar_left + bar_width + 10, y0, metrics.horizontalAdvance(high) + 2, line), Qt::AlignVCenter | Qt::AlignLeft, high);
  painter.restore();
}

void paint_side_by_side(QPainter& painter, const QRectF& area, const std::vector<FigurePanel>& panels) {
  if (panels.empty()) return;
  const double width = area.width() / static_cast<double>(panels.size());
  for (std::size_t k = 0; k < panels.size(); ++k) {
    const QRectF part(area.left() + width * static_cast<double>(k), area.top(), width, area.height());
    panels[k].figure->paint(painter, part, panels[k].options);
  }
}

QString divergence_text(const RunData& first, const RunData& second, const Divergence& part) {
  const QString a = QString("#%1").arg(first.run.info.id), b = QString("#%1").arg(second.run.info.id);
  if (part.identical) return b + " starts the same tasks as " + a + " on the same workers in the same order";
  const auto started = [](const RunData& run, const DivergenceSide& side) {
    if (side.task == kNoId) return QString("no more task");
    return QString::fromStdString(run.workload.task_label(side.task) + " on " + run.worker_name(side.worker));
  };
  const auto loads = [](const DivergenceSide& side) {
    return QString("%1 (%2)").arg(side.loads_after).arg(QString::fromStdString(format_binary_bytes(static_cast<double>(side.bytes_after))));
  };
  // Counted from 1, as the tiles and the slider count.
  return QString("%1 and %2 part at task start %3 of %4: %1 starts %5, %2 %6. Loads from there: %7 in %1, %8 in %2")
      .arg(a, b)
      .arg(part.rank + 1)
      .arg(std::max(first.trace.tasks.size(), second.trace.tasks.size()))
      .arg(started(first, part.first), started(second, part.second), loads(part.first), loads(part.second));
}

ComparePage::ComparePage(std::vector<std::shared_ptr<const RunData>> runs, QWidget* parent)
    : QWidget(parent), runs_(std::move(runs)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* figures = new QWidget;
  auto* row = new QHBoxLayout(figures);
  row->setContentsMargins(0, 0, 0, 0);
  std::uint32_t most = 0;
  for (const auto& run : runs_) {
    auto* view = new TileView(run);
    views_.push_back(view);
    row->addWidget(view, 1);
    most = std::max(most, static_cast<std::uint32_t>(run->trace.tasks.size()));
  }
  controls_ = new TileControls(views_, most);
  // Linked zoom for all; linked selection when the workloads are the same.
  for (TileView* view : views_) {
    connect(view, &TileView::view_changed, this, [this, view](double zoom, QPointF offset) {
      for (TileView* other : views_) {
        if (other != view) other->set_view(zoom, offset);
      }
    });
    connect(view, &TileView::task_selected, this, [this, view](std::optional<TaskId> task) {
      for (TileView* other : views_) {
        if (other == view || !same_workload(*view->run(), *other->run())) continue;
        TileOptions options = other->options();
        options.highlight = task;
        other->set_options(options);
      }
    });
  }

  auto* table = new QTableWidget;
  const bool pair = runs_.size() == 2;
  const QStringList metrics = {"loads", "fetches", "prefetches", "data loaded (MiB)", "ratio to lower bound", "evictions",
                               "GFlop/s", "makespan (ms)", "scheduler time (ms)"};
  table->setRowCount(static_cast<int>(metrics.size()));
  table->setColumnCount(static_cast<int>(runs_.size()) + (pair ? 1 : 0));
  table->setVerticalHeaderLabels(metrics);
  QStringList headers;
  for (const auto& run : runs_) headers << QString("#%1 %2").arg(run->run.info.id).arg(QString::fromStdString(short_scheduler_spec(run->run.info.scheduler)) + "/" + QString::fromStdString(run->run.info.eviction));
  if (pair) headers << "second - first";
  table->setHorizontalHeaderLabels(headers);
  auto values = [](const RunData& run) {
    std::vector<double> v(9, std::nan(""));
    if (!run.run.metrics) return v;
    const ReplaySummary& s = run.run.metrics->summary;
    v = {static_cast<double>(s.loads), static_cast<double>(s.fetches), static_cast<double>(s.prefetches), s.bytes_loaded / 1048576.0,
         run.run.metrics->ratio_to_lower_bound(), static_cast<double>(s.evictions), s.gflops, static_cast<double>(s.makespan_ns) / 1e6,
         static_cast<double>(s.scheduling_ns) / 1e6};
    return v;
  };
  std::vector<std::vector<double>> columns;
  for (const auto& run : runs_) columns.push_back(values(*run));
  if (pair) {
    std::vector<double> difference(9);
    for (std::size_t r = 0; r < 9; ++r) difference[r] = columns[1][r] - columns[0][r];
    columns.push_back(difference);
  }
  for (std::size_t c = 0; c < columns.size(); ++c) {
    for (std::size_t r = 0; r < 9; ++r) {
      const double v = columns[c][r];
      const int digits = r == 4 ? 3 : (r == 3 || r == 7 || r == 8) ? 1 : 0;
      QString text = std::isnan(v) ? "-" : QString::number(v, 'f', digits);
      if (pair && c == 2 && !std::isnan(v) && v > 0) text.prepend('+');
      auto* item = new QTableWidgetItem(text);
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table->setItem(static_cast<int>(r), static_cast<int>(c), item);
    }
  }
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);

  auto* bottom = new QWidget;
  auto* bottom_row = new QHBoxLayout(bottom);
  bottom_row->setContentsMargins(0, 0, 0, 0);
  bottom_row->addWidget(table, 1);
  if (pair && same_workload(*runs_[0], *runs_[1])) {
    auto* difference = new DifferenceView(runs_[0], runs_[1]);
    difference_ = difference;
    bottom_row->addWidget(difference, 1);
  }
  // Compact rows, and room for all of them: the table reads without scrolling.
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
  table->setMinimumHeight(table->horizontalHeader()->sizeHint().height() + table->rowCount() * (table->fontMetrics().height() + 8) + 4);
  // Where each run's schedule parts from the first one's (same workload, traces stored): a
  // line each, which marks the two tasks on the tiles when clicked.
  auto* parts = new QWidget;
  auto* parts_column = new QVBoxLayout(parts);
  parts_column->setContentsMargins(6, 0, 6, 0);
  parts_column->setSpacing(0);
  for (std::size_t i = 1; i < runs_.size(); ++i) {
    if (!same_workload(*runs_[0], *runs_[i]) || runs_[0]->trace.tasks.empty() || runs_[i]->trace.tasks.empty()) continue;
    const Divergence part = find_divergence(runs_[0]->trace, runs_[i]->trace);
    // A label that wraps (the line is long), with a link that marks the two tasks on the tiles.
    auto* line = new QLabel(divergence_text(*runs_[0], *runs_[i], part).toHtmlEscaped() +
                            (part.identical ? QString() : QString(" &nbsp;<a href=\"mark\">mark them on the tiles</a>")));
    line->setObjectName("divergence");
    line->setWordWrap(true);
    line->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
    const std::size_t index = divergence_marks_.size();
    divergence_marks_.push_back({i, part});
    connect(line, &QLabel::linkActivated, this, [this, index] { mark_divergence(index); });
    parts_column->addWidget(line);
    divergences_.push_back(line);
  }
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(figures);
  splitter->addWidget(bottom);
  // With a difference map, the bottom gets as much as the figures: the map is read tile by tile.
  splitter->setStretchFactor(0, difference_ ? 1 : 3);
  splitter->setStretchFactor(1, difference_ ? 1 : 2);
  if (difference_) splitter->setSizes({1000, 1000});  // proportions: half each from the start
  layout->addWidget(controls_);
  layout->addWidget(splitter, 1);
  if (!divergences_.empty()) layout->addWidget(parts);
}

void ComparePage::mark_divergence(std::size_t index) {
  const auto& [other, part] = divergence_marks_.at(index);
  const std::pair<std::size_t, TaskId> marks[] = {{0, part.first.task}, {other, part.second.task}};
  for (const auto& [view, task] : marks) {
    TileOptions options = views_[view]->options();
    options.highlight = task == kNoId ? std::nullopt : std::optional<TaskId>(task);
    views_[view]->set_options(options);
  }
}

void ComparePage::set_dark(bool dark) {
  controls_->set_dark(dark);
  if (auto* difference = dynamic_cast<DifferenceView*>(difference_)) difference->set_dark(dark);
}

PaintFunction ComparePage::paint_function() const {
  std::vector<const TileView*> views(views_.begin(), views_.end());
  return [views](QPainter& painter, const QRectF& area) {
    std::vector<FigurePanel> panels;
    for (const TileView* view : views) {
      TileOptions options = view->options();  // as shown now, without the selection
      options.highlight.reset();
      panels.push_back({&view->figure(), options});
    }
    paint_side_by_side(painter, area, panels);
  };
}

QString ComparePage::figure_name() const {
  QString name = "runs";
  for (const auto& run : runs_) name += QString("-%1").arg(run->run.info.id);
  return name;
}

}  // namespace tilelens::gui
