#pragma once
/// @file recent_files.hpp
/// File > Open Recent: the files last opened or saved, newest first, at most kMax, kept in QSettings.

#include <QObject>
#include <QStringList>

class QMenu;

namespace kvplan::gui {

/// The Open Recent menu's list. Paths are kept absolute, newest first, without repeats, at most kMax.
/// It reads and writes QSettings (key "recent/files") only after load(): the app calls it, the tests
/// and --screenshot need not, so they leave the user's list alone.
class RecentFiles : public QObject {
  Q_OBJECT

 public:
  /// How many files the menu lists.
  static constexpr int kMax = 8;

  /// Fills `menu` (owned by the caller, who must keep it alive) and rebuilds it on each change.
  explicit RecentFiles(QMenu* menu, QObject* parent = nullptr);

  /// Reads the list saved in QSettings and saves every change from now on.
  void load();
  /// Puts `path` (made absolute) first; the oldest beyond kMax drops off.
  void add(const QString& path);
  /// Takes `path` off the list.
  void remove(const QString& path);
  [[nodiscard]] const QStringList& files() const { return files_; }

 Q_SIGNALS:
  /// An entry was chosen whose file (or folder) is still there.
  void chosen(const QString& path);
  /// An entry was chosen whose file is gone: it has already been taken off the list.
  void missing(const QString& path);

 private:
  void changed();
  QMenu* menu_;
  QStringList files_;
  bool persist_ = false;
};

}  // namespace kvplan::gui
