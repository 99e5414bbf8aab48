#pragma once
/// @file save_file.hpp
/// Every file the GUI writes (screenshots, chart exports, scenarios) goes through a temporary file in
/// the same folder and a rename (QSaveFile): a failed write (a full disk, a missing folder) leaves the
/// previous file as it was and no partial or temporary file behind.

#include <QByteArray>
#include <QString>

class QPixmap;

namespace kvplan::gui {

/// Writes `bytes` to `path` whole or not at all. On failure returns false and sets *error (when given)
/// to one line naming the path and the reason. An existing `path` that is not a regular file (a
/// folder, a device such as /dev/null, a FIFO, a socket) is refused and left as it was.
bool saveFileAtomically(const QString& path, const QByteArray& bytes, QString* error);

/// Encodes `pixmap` as PNG and writes it as saveFileAtomically does; a null pixmap or a failed encoding
/// is an error too. (In save_png.cpp: Qt Gui; saveFileAtomically needs Qt Core only.)
bool savePngAtomically(const QPixmap& pixmap, const QString& path, QString* error);

}  // namespace kvplan::gui
