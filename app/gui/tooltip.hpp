// A figure widget's hover text: QEvent::ToolTip answered with what the figure says lies under
// the pointer, the tip hidden where it says nothing.
#pragma once

#include <QEvent>
#include <QHelpEvent>
#include <QToolTip>
#include <QWidget>

namespace tilelens::gui {

// True when `event` was a tooltip request (answered with text_at(pointer) or hidden); false
// for any other event, which the widget passes on.
template <class TextAt>
bool answer_tooltip(QWidget* widget, QEvent* event, TextAt&& text_at) {
  if (event->type() != QEvent::ToolTip) return false;
  const auto* help = static_cast<const QHelpEvent*>(event);
  const QString text = text_at(help->pos());
  if (text.isEmpty()) {
    QToolTip::hideText();
  } else {
    QToolTip::showText(help->globalPos(), text, widget);
  }
  return true;
}

}  // namespace tilelens::gui
