#include <QBuffer>
#include <QPixmap>

#include "kvplan/gui/save_file.hpp"

namespace kvplan::gui {

bool savePngAtomically(const QPixmap& pixmap, const QString& path, QString* error) {
  const auto fail = [error](const QString& message) {
    if (error != nullptr) *error = message;
    return false;
  };
  if (pixmap.isNull()) return fail(QStringLiteral("%1: nothing to save (empty image)").arg(path));
  // Encode in memory first: the file is opened only with the whole PNG in hand.
  QByteArray png;
  QBuffer buffer(&png);
  buffer.open(QIODevice::WriteOnly);
  if (!pixmap.save(&buffer, "PNG"))
    return fail(QStringLiteral("%1: the image cannot be encoded as PNG").arg(path));
  return saveFileAtomically(path, png, error);
}

}  // namespace kvplan::gui
