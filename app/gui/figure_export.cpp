// PNG through QImage, SVG through QSvgGenerator, PDF through QPdfWriter (one page sized to
// the figure).
#include "app/gui/figure_export.hpp"

#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>

namespace tilelens::gui {

QString export_figure(const PaintFunction& paint, QSize size, const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  const QRectF area(0, 0, size.width(), size.height());
  if (suffix == "png") {
    QImage image(size, QImage::Format_ARGB32);
    image.fill(Qt::white);
    {
      QPainter painter(&image);
      paint(painter, area);
    }
    if (!image.save(path, "PNG")) return "cannot write '" + path + "'";
    return {};
  }
  if (suffix == "svg") {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(size);
    generator.setViewBox(area);
    generator.setTitle("tilelens figure");
    QPainter painter;
    if (!painter.begin(&generator)) return "cannot write '" + path + "'";
    paint(painter, area);
    painter.end();
    return {};
  }
  if (suffix == "pdf") {
    QPdfWriter writer(path);
    writer.setResolution(96);
    writer.setPageSize(QPageSize(QSizeF(size.width() * 72.0 / 96.0, size.height() * 72.0 / 96.0), QPageSize::Point));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    QPainter painter;
    if (!painter.begin(&writer)) return "cannot write '" + path + "'";
    paint(painter, area);
    painter.end();
    return {};
  }
  return "'" + path + "': unknown format '" + suffix + "' (use .png, .svg or .pdf)";
}

}  // namespace tilelens::gui
