// Painting and hovering the memory residency; see residency_view.hpp.
#include "app/gui/residency_view.hpp"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <tuple>

#include "app/gui/timeline.hpp"
#include "app/gui/tooltip.hpp"
#include "core/units.hpp"

namespace tilelens::gui {
namespace {

constexpr double kTitle = 20, kAxis = 20, kLegend = 22, kLabels = 72, kPanelGap = 6;
constexpr std::size_t kNoPanel = static_cast<std::size_t>(-1);

QColor matrix_colour(char matrix) {
  switch (matrix) {
    case 'A': return {0, 114, 178};
    case 'B': return {0, 158, 115};
    case 'C': return {230, 159, 0};
    default: return {120, 120, 120};
  }
}
const QColor kWroteBack(213, 94, 0), kInvalidated(204, 121, 167);

}  // namespace

ResidencyFigure::ResidencyFigure(const RunData& run) : run_(run) {
  for (const TaskRecord& t : run.trace.tasks) end_ns_ = std::max(end_ns_, t.end_ns);
  for (const LoadRecord& l : run.trace.loads) end_ns_ = std::max(end_ns_, l.end_ns);
  for (const EvictionRecord& e : run.trace.evictions) end_ns_ = std::max(end_ns_, e.time_ns);
  stays_ = residencies(run.trace, end_ns_);
  const std::size_t data = run.workload.data_count();
  for (const Residency& stay : stays_) {
    if (stay.gpu >= panel_of_gpu_.size()) panel_of_gpu_.resize(stay.gpu + 1, kNoPanel);
    if (panel_of_gpu_[stay.gpu] == kNoPanel) {
      panel_of_gpu_[stay.gpu] = panels_.size();
      panels_.push_back({stay.gpu, {}});
      row_of_.push_back(std::vector<std::uint32_t>(data, kNoId));
    }
    const std::size_t p = panel_of_gpu_[stay.gpu];
    if (stay.data < data && row_of_[p][stay.data] == kNoId) {
      row_of_[p][stay.data] = 0;
      panels_[p].rows.push_back(stay.data);
    }
  }
  // Panels by GPU, rows by matrix then tile position (the tiles' own order).
  std::vector<std::size_t> order(panels_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return panels_[a].gpu < panels_[b].gpu; });
  std::vector<Panel> sorted;
  std::vector<std::vector<std::uint32_t>> rows;
  for (std::size_t i : order) {
    sorted.push_back(std::move(panels_[i]));
    rows.push_back(std::move(row_of_[i]));
  }
  panels_ = std::move(sorted);
  row_of_ = std::move(rows);
  for (std::size_t p = 0; p < panels_.size(); ++p) {
    panel_of_gpu_[panels_[p].gpu] = p;
    auto& ids = panels_[p].rows;
    std::sort(ids.begin(), ids.end(), [&](DataId a, DataId b) {
      const Data& x = run.workload.data()[a];
      const Data& y = run.workload.data()[b];
      return std::tie(x.matrix, x.row, x.col, a) < std::tie(y.matrix, y.row, y.col, b);
    });
    for (std::uint32_t r = 0; r < ids.size(); ++r) row_of_[p][ids[r]] = r;
    total_rows_ += ids.size();
  }
}

ResidencyFigure::Layout ResidencyFigure::layout(const QRectF& area) const {
  Layout l;
  l.left = area.left() + kLabels;
  l.width = std::max(1.0, area.width() - kLabels - 8);
  l.top = area.top() + kTitle;
  const double room = area.height() - kTitle - kAxis - kLegend - kPanelGap * static_cast<double>(panels_.size());
  l.row_height = std::max(0.05, room / static_cast<double>(std::max<std::size_t>(1, total_rows_)));
  double y = l.top;
  for (const Panel& panel : panels_) {
    l.panel_top.push_back(y);
    y += l.row_height * static_cast<double>(panel.rows.size()) + kPanelGap;
  }
  return l;
}

double ResidencyFigure::x_of(const Layout& l, std::int64_t t) const {
  return l.left + l.width * static_cast<double>(t) / static_cast<double>(end_ns_);
}

QRectF ResidencyFigure::stay_rect(const QRectF& area, std::size_t index) const { return stay_rect(layout(area), index); }

QRectF ResidencyFigure::stay_rect(const Layout& l, std::size_t index) const {
  const Residency& stay = stays_[index];
  const std::size_t p = panel_of_gpu_[stay.gpu];
  const std::uint32_t row = stay.data < row_of_[p].size() ? row_of_[p][stay.data] : kNoId;
  if (row == kNoId) return {};
  const double x0 = x_of(l, stay.resident_ns), x1 = x_of(l, stay.until_ns);
  // Rows of 4 px or more keep a pixel between them, so that neighbours of one matrix stay apart.
  const double height = l.row_height >= 4 ? l.row_height - 1 : std::max(1.0, l.row_height);
  return QRectF(x0, l.panel_top[p] + row * l.row_height, std::max(1.0, x1 - x0), height);
}

void ResidencyFigure::paint(QPainter& painter, const QRectF& area, std::optional<TaskId> highlight, bool dark) const {
  painter.save();
  const QColor background = dark ? QColor(30, 30, 34) : QColor(Qt::white);
  const QColor ink = dark ? QColor(225, 225, 225) : QColor(30, 30, 30);
  const QColor faint = dark ? QColor(50, 50, 56) : QColor(244, 244, 244);
  painter.fillRect(area, background);
  QFont font = painter.font();
  font.setPixelSize(12);
  painter.setFont(font);
  const QFontMetricsF metrics(font);
  painter.setPen(ink);
  const QString title = QString("memory residency, one row per datum each GPU held: %1")
                            .arg(QString::fromStdString((run_.run.info.id > 0 ? "#" + std::to_string(run_.run.info.id) + " " : "") + run_.title()));
  painter.drawText(QRectF(area.left() + 6, area.top(), area.width() - 12, kTitle), Qt::AlignVCenter | Qt::AlignLeft,
                   metrics.elidedText(title, Qt::ElideRight, area.width() - 12));
  const Layout l = layout(area);
  if (panels_.empty()) {
    painter.drawText(area, Qt::AlignCenter, "no data was loaded or allocated on a GPU in this run");
    painter.restore();
    return;
  }
  // Panels: their background, the GPU's name, and each matrix's rows named where they have room.
  for (std::size_t p = 0; p < panels_.size(); ++p) {
    const double top = l.panel_top[p], height = l.row_height * static_cast<double>(panels_[p].rows.size());
    painter.fillRect(QRectF(l.left, top, l.width, height), faint);
    painter.setPen(ink);
    painter.drawText(QRectF(area.left() + 2, top, kLabels - 26, std::max(14.0, height)), Qt::AlignTop | Qt::AlignRight,
                     QString::fromStdString(run_.worker_name(panels_[p].gpu)));
    const auto& rows = panels_[p].rows;
    for (std::size_t r = 0; r < rows.size();) {
      const char matrix = run_.workload.data()[rows[r]].matrix;
      std::size_t end = r;
      while (end < rows.size() && run_.workload.data()[rows[end]].matrix == matrix) ++end;
      const double y0 = top + l.row_height * static_cast<double>(r), y1 = top + l.row_height * static_cast<double>(end);
      painter.fillRect(QRectF(l.left - 6, y0, 4, std::max(1.0, y1 - y0)), matrix_colour(matrix));
      if (y1 - y0 >= 14 && matrix != '-') {
        painter.setPen(ink);
        painter.drawText(QRectF(l.left - 24, y0, 16, y1 - y0), Qt::AlignCenter, QString(matrix));
      }
      r = end;
    }
  }
  // A selected task: its data's rows in a band, its start and end as lines.
  std::vector<char> marked(run_.workload.data_count(), 0);
  if (highlight && *highlight < run_.workload.task_count()) {
    for (const Access& access : run_.workload.accesses(*highlight)) marked[access.data] = 1;
  }
  // The stays: loading pale, resident in the matrix's colour; then where each left, and why.
  // Each pixel row is filled once per pixel column at most, whatever the run's length and
  // however many data share a pixel row: a stay is drawn from where its pixel row was filled
  // to; below 1.5 px a row, loads in flight are not shaded and departures are marked at most
  // one per 4 px (hover still tells each stay).
  const bool compact = l.row_height < 1.5;
  const double mark_height = std::max(3.0, l.row_height);
  std::vector<double> filled_to(static_cast<std::size_t>(std::max(1.0, area.height())) + 2, -1e300);
  std::vector<double> marked_at(filled_to.size(), -1e300);
  for (std::size_t i = 0; i < stays_.size(); ++i) {
    const Residency& stay = stays_[i];
    QRectF resident = stay_rect(l, i);
    if (resident.isEmpty()) continue;
    const auto pixel_row = static_cast<std::size_t>(std::clamp(resident.top() - area.top(), 0.0, static_cast<double>(filled_to.size() - 1)));
    double& reached = filled_to[pixel_row];
    if (resident.right() < reached + 1) continue;
    const QColor colour = matrix_colour(run_.workload.data()[stay.data].matrix);
    if (!compact && stay.resident_ns > stay.from_ns) {
      QColor loading = colour;
      loading.setAlpha(70);
      const double x0 = std::max(reached, x_of(l, stay.from_ns));
      if (x0 < resident.left()) painter.fillRect(QRectF(x0, resident.top(), std::max(0.5, resident.left() - x0), resident.height()), loading);
    }
    if (resident.left() < reached) resident.setLeft(reached);
    reached = resident.right();
    painter.fillRect(resident, colour);
    if (stay.eviction == kNoRecord) continue;
    if (compact && resident.right() < marked_at[pixel_row] + 4) continue;
    marked_at[pixel_row] = resident.right();
    const EvictionRecord& eviction = run_.trace.evictions[stay.eviction];
    const QColor why = eviction.cause == EvictionCause::Invalidated ? kInvalidated : eviction.wrote_back ? kWroteBack : ink;
    painter.fillRect(QRectF(resident.right() - 1, resident.center().y() - mark_height / 2, 2, mark_height), why);
  }
  if (highlight && *highlight < run_.workload.task_count() && run_.order_of[*highlight] != kNoId) {
    QColor band = QColor(255, 140, 0, 60);
    for (std::size_t p = 0; p < panels_.size(); ++p) {
      for (std::uint32_t r = 0; r < panels_[p].rows.size(); ++r) {
        if (!marked[panels_[p].rows[r]]) continue;
        painter.fillRect(QRectF(l.left, l.panel_top[p] + r * l.row_height - 1, l.width, std::max(3.0, l.row_height) + 2), band);
      }
    }
    painter.setPen(QPen(QColor(255, 140, 0), 1.5));
    for (const std::int64_t t : {run_.start_of[*highlight], run_.end_of[*highlight]}) {
      const double x = x_of(l, t);
      painter.drawLine(QPointF(x, l.top), QPointF(x, l.panel_top.back() + l.row_height * static_cast<double>(panels_.back().rows.size())));
    }
  }
  const double axis_y = l.panel_top.back() + l.row_height * static_cast<double>(panels_.back().rows.size()) + 2;
  paint_time_axis(painter, area, l.left, l.width, axis_y, 0, end_ns_, ink);
  // The legend.
  double x = area.left() + 6;
  const double legend_y = axis_y + kAxis;
  const auto swatch = [&](const QColor& colour, double w, const QString& text) {
    painter.fillRect(QRectF(x, legend_y + 3, w, 10), colour);
    painter.setPen(ink);
    const double tw = metrics.horizontalAdvance(text);
    painter.drawText(QRectF(x + w + 4, legend_y, tw + 2, 16), Qt::AlignVCenter | Qt::AlignLeft, text);
    x += w + 4 + tw + 14;
  };
  bool shown[4] = {false, false, false, false};
  for (const Data& data : run_.workload.data()) shown[data.matrix == 'A' ? 0 : data.matrix == 'B' ? 1 : data.matrix == 'C' ? 2 : 3] = true;
  const char* names[4] = {"A", "B", "C", "data"};
  const char matrices[4] = {'A', 'B', 'C', '-'};
  for (int m = 0; m < 4; ++m) {
    if (shown[m]) swatch(matrix_colour(matrices[m]), 14, QString("resident: %1").arg(names[m]));
  }
  QColor loading = matrix_colour(shown[0] ? 'A' : '-');
  loading.setAlpha(70);
  swatch(loading, 14, "loading");
  swatch(ink, 3, "left for room (clean)");
  swatch(kWroteBack, 3, "written back first");
  swatch(kInvalidated, 3, "invalidated by a write");
  painter.restore();
}

std::optional<std::size_t> ResidencyFigure::stay_at(const QRectF& area, QPointF point) const {
  const Layout l = layout(area);
  if (point.x() < l.left || point.x() > l.left + l.width) return std::nullopt;
  const std::int64_t t = static_cast<std::int64_t>((point.x() - l.left) / l.width * static_cast<double>(end_ns_));
  const std::int64_t slack = static_cast<std::int64_t>(static_cast<double>(end_ns_) / l.width);  // a pixel
  for (std::size_t p = 0; p < panels_.size(); ++p) {
    const double rows = static_cast<double>(panels_[p].rows.size());
    if (point.y() < l.panel_top[p] || point.y() >= l.panel_top[p] + rows * l.row_height) continue;
    const auto row = static_cast<std::size_t>((point.y() - l.panel_top[p]) / l.row_height);
    if (row >= panels_[p].rows.size()) return std::nullopt;
    const DataId data = panels_[p].rows[row];
    for (std::size_t i = 0; i < stays_.size(); ++i) {
      const Residency& stay = stays_[i];
      if (stay.gpu == panels_[p].gpu && stay.data == data && stay.from_ns - slack <= t && t <= stay.until_ns + slack) return i;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<TaskId> ResidencyFigure::task_of(std::size_t index) const {
  const Residency& stay = stays_[index];
  TaskId task = kNoId;
  if (stay.load != kNoRecord) task = run_.trace.loads[stay.load].task;
  if (stay.allocation != kNoRecord) task = run_.trace.allocations[stay.allocation].task;
  if (task == kNoId || task >= run_.workload.task_count()) return std::nullopt;
  return task;
}

QString ResidencyFigure::tooltip_at(const QRectF& area, QPointF point) const {
  const auto index = stay_at(area, point);
  if (!index) return {};
  const Residency& stay = stays_[*index];
  const Workload& w = run_.workload;
  const auto time = [](std::int64_t ns) { return QString::fromStdString(format_duration(ns)); };
  QString text = QString("%1 on %2, %3").arg(QString::fromStdString(w.data()[stay.data].name), QString::fromStdString(run_.worker_name(stay.gpu)),
                                              QString::fromStdString(format_binary_bytes(static_cast<double>(w.data()[stay.data].bytes))));
  if (stay.load != kNoRecord) {
    const LoadRecord& load = run_.trace.loads[stay.load];
    text += QString("\n%1 issued %2, there at %3").arg(to_string(load.kind), time(stay.from_ns), time(stay.resident_ns));
    text += load.task != kNoId && load.task < w.task_count() ? QString(" for %1").arg(QString::fromStdString(w.task_label(load.task)))
                                                              : QString(" (no task used it)");
  } else if (stay.allocation != kNoRecord) {
    const AllocationRecord& allocation = run_.trace.allocations[stay.allocation];
    text += QString("\nallocated at %1 for %2 (an output, no transfer)").arg(time(stay.from_ns), QString::fromStdString(w.task_label(allocation.task)));
  } else {
    text += "\nthere when the trace begins";
  }
  if (stay.eviction == kNoRecord) return text + QString("\nstayed to the end (%1)").arg(time(stay.until_ns));
  const EvictionRecord& eviction = run_.trace.evictions[stay.eviction];
  const QString for_task = eviction.for_task != kNoId && eviction.for_task < w.task_count() ? QString::fromStdString(w.task_label(eviction.for_task)) : QString("?");
  if (eviction.cause == EvictionCause::Invalidated) {
    text += QString("\ninvalidated at %1: %2 wrote it elsewhere").arg(time(stay.until_ns), for_task);
  } else {
    text += QString("\nevicted at %1 to make room for %2, the %3 policy's victim%4")
                .arg(time(stay.until_ns), for_task, QString::fromStdString(run_.run.info.eviction),
                     eviction.wrote_back ? QString(", written back first (its only valid copy)") : QString(", clean"));
  }
  return text;
}

ResidencyView::ResidencyView(std::shared_ptr<const RunData> run, QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumHeight(120);
  set_run(std::move(run));
}

void ResidencyView::set_run(std::shared_ptr<const RunData> run) {
  figure_ = std::make_unique<ResidencyFigure>(*run);
  run_ = std::move(run);
  update();
}

void ResidencyView::set_highlight(std::optional<TaskId> task) {
  highlight_ = task;
  update();
}

void ResidencyView::set_dark(bool dark) {
  dark_ = dark;
  update();
}

void ResidencyView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  figure_->paint(painter, QRectF(rect()), highlight_, dark_);
}

void ResidencyView::mousePressEvent(QMouseEvent* event) {
  const auto stay = figure_->stay_at(QRectF(rect()), event->position());
  highlight_ = stay ? figure_->task_of(*stay) : std::nullopt;
  update();
  emit task_selected(highlight_);
}

bool ResidencyView::event(QEvent* event) {
  return answer_tooltip(this, event, [&](QPoint at) { return figure_->tooltip_at(QRectF(rect()), at); }) || QWidget::event(event);
}

}  // namespace tilelens::gui
