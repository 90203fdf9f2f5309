// Writing a figure to PNG, SVG or PDF (chosen by the file's extension), from the same paint
// function the widgets use. Works without a display (QT_QPA_PLATFORM=offscreen).
#pragma once

#include <QSize>
#include <QString>
#include <functional>

class QPainter;
class QRectF;

namespace tilelens::gui {

using PaintFunction = std::function<void(QPainter&, const QRectF&)>;

// Returns an empty string on success, else what went wrong (naming the file).
QString export_figure(const PaintFunction& paint, QSize size, const QString& path);

}  // namespace tilelens::gui
