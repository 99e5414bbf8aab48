// kvplan-gui: explore KV-cache configurations. `--screenshot FILE.png [--scenario FILE.json]` renders
// the main window offscreen and exits (how the README's screenshot is made).
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QPixmap>
#include <QRegularExpression>
#include <cstdio>
#include <filesystem>
#include <string_view>
#include <vector>

#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/main_window.hpp"
#include "kvplan/presets.hpp"

namespace {
void settle(int ms) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

void fail(const QString& message) { std::fprintf(stderr, "kvplan-gui: error: %s\n", qPrintable(message)); }
}  // namespace

int main(int argc, char** argv) {
  // A screenshot needs no display: pick the offscreen platform before QApplication exists.
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if ((a == "--screenshot" || a.starts_with("--screenshot=")) &&
        qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
      qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("kvplan-gui"));
  QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("kvplan-gui: explore KV-cache configurations"));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                      QStringLiteral("render the main window offscreen to FILE.png and exit"),
                                      QStringLiteral("FILE.png"));
  const QCommandLineOption scenario(QStringLiteral("scenario"), QStringLiteral("open a scenario"),
                                    QStringLiteral("FILE.json"));
  const QCommandLineOption size(QStringLiteral("size"),
                                QStringLiteral("window size for --screenshot (default 1800x1100)"),
                                QStringLiteral("WxH"), QStringLiteral("1800x1100"));
  const QCommandLineOption presets_dir(
      QStringLiteral("presets"),
      QStringLiteral("a folder of your presets (models/*.json, gpus/*.json), searched before "
                     "$KVPLAN_PRESETS, $XDG_DATA_HOME/kvplan and the built-in ones; repeatable"),
      QStringLiteral("DIR"));
  parser.addOption(presets_dir);
  parser.addOption(screenshot);
  parser.addOption(scenario);
  parser.addOption(size);
  parser.addPositionalArgument(QStringLiteral("file"),
                               QStringLiteral("a preset, config.json or scenario to open"),
                               QStringLiteral("[FILE]"));
  parser.process(app);
  std::vector<std::filesystem::path> dirs;
  for (const QString& d : parser.values(presets_dir)) dirs.emplace_back(d.toStdString());
  kvplan::presets::set_option_preset_dirs(std::move(dirs));

  kvplan::gui::Controller controller;
  kvplan::gui::MainWindow window(&controller);
  const bool shot = parser.isSet(screenshot);
  if (shot && !controller.errorMessage().isEmpty()) {
    fail(controller.errorMessage());
    return 2;
  }
  QStringList files = parser.positionalArguments();
  if (parser.isSet(scenario)) files.prepend(parser.value(scenario));
  for (const QString& f : files)
    if (!controller.openFile(f) && shot) {
      fail(controller.errorMessage());
      return 2;
    }

  if (!shot) {
    window.show();
    return QApplication::exec();
  }
  const auto m = QRegularExpression(QStringLiteral("^(\\d+)x(\\d+)$")).match(parser.value(size));
  if (!m.hasMatch()) {
    fail(QStringLiteral("--size: expected WxH, got '%1'").arg(parser.value(size)));
    return 2;
  }
  window.resize(m.captured(1).toInt(), m.captured(2).toInt());
  window.show();
  settle(300);
  const QPixmap pixmap = window.grab();
  if (pixmap.isNull() || !pixmap.save(parser.value(screenshot), "PNG")) {
    fail(parser.value(screenshot) + QStringLiteral(": cannot be written"));
    return 2;
  }
  return 0;
}
