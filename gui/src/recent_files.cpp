// File > Open Recent (recent_files.hpp).
#include "kvplan/gui/recent_files.hpp"

#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace kvplan::gui {

namespace {
const QString kKey = QStringLiteral("recent/files");
}

RecentFiles::RecentFiles(QMenu* menu, QObject* parent) : QObject(parent), menu_(menu) { changed(); }

void RecentFiles::load() {
  persist_ = true;
  files_ = QSettings().value(kKey).toStringList();
  files_.removeAll(QString());
  files_.removeDuplicates();
  while (files_.size() > kMax) files_.removeLast();
  changed();
}

void RecentFiles::add(const QString& path) {
  const QString abs = QFileInfo(path).absoluteFilePath();
  files_.removeAll(abs);
  files_.prepend(abs);
  while (files_.size() > kMax) files_.removeLast();
  changed();
}

void RecentFiles::remove(const QString& path) {
  if (files_.removeAll(path) > 0) changed();
}

// Rebuilds the menu ("&1 name", the full path as tooltip and status tip) and saves the list.
void RecentFiles::changed() {
  if (persist_) QSettings().setValue(kKey, files_);
  // deleteLater, not QMenu::clear(): this runs inside the triggered() of one of these actions.
  for (QAction* a : menu_->actions()) {
    menu_->removeAction(a);
    a->deleteLater();
  }
  for (qsizetype i = 0; i < files_.size(); ++i) {
    const QString path = files_[i];
    QAction* a = menu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()));
    a->setToolTip(path);
    a->setStatusTip(path);
    a->setData(path);
    connect(a, &QAction::triggered, this, [this, path] {
      if (QFileInfo::exists(path)) {
        Q_EMIT chosen(path);
      } else {
        remove(path);
        Q_EMIT missing(path);
      }
    });
  }
  if (!files_.isEmpty()) {
    menu_->addSeparator();
    menu_->addAction(QStringLiteral("&Clear the list"), this, [this] {
      files_.clear();
      changed();
    });
  }
  menu_->setEnabled(!files_.isEmpty());
}

}  // namespace kvplan::gui
