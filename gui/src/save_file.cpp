#include "kvplan/gui/save_file.hpp"

#include <QSaveFile>

namespace kvplan::gui {

namespace {
bool failed(QString* error, const QString& message) {
  if (error != nullptr) *error = message;
  return false;
}
}  // namespace

bool saveFileAtomically(const QString& path, const QByteArray& bytes, QString* error) {
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
