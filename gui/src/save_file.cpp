#include "kvplan/gui/save_file.hpp"

#include <QFileInfo>
#include <QSaveFile>

namespace kvplan::gui {

namespace {
bool failed(QString* error, const QString& message) {
  if (error != nullptr) *error = message;
  return false;
}
}  // namespace

bool saveFileAtomically(const QString& path, const QByteArray& bytes, QString* error) {
  // The rename would replace whatever is at `path`: a device (/dev/null), a FIFO a reader waits on, a
  // socket. Only a regular file (or a link to one) is replaced; anything else is refused untouched.
  const QFileInfo target(path);
  if (target.exists() && !target.isFile()) {
    const QString what =
        target.isDir() ? QStringLiteral("is a folder") : QStringLiteral("is not a regular file");
    return failed(error, QStringLiteral("%1: cannot be written: %2").arg(path, what));
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return failed(error, QStringLiteral("%1: cannot be written: %2").arg(path, file.errorString()));
  if (file.write(bytes) != bytes.size()) {
    const QString why = file.errorString();
    file.cancelWriting();
    (void)file.commit();  // with writing cancelled: removes the temporary, keeps the old file
    return failed(error, QStringLiteral("%1: cannot be written: %2").arg(path, why));
  }
  // commit() flushes, syncs and renames; on failure it removes the temporary.
  if (!file.commit())
    return failed(error, QStringLiteral("%1: cannot be written: %2").arg(path, file.errorString()));
  return true;
}

}  // namespace kvplan::gui
