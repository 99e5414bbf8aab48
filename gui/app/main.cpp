// kvplan-gui: explore KV-cache configurations. `--screenshot FILE.png [--scenario FILE.json]` renders
// the main window offscreen and exits (how the screenshot in README.md and docs/gui.md is made).
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QPixmap>
#include <QRegularExpression>
#include <cstdio>
#include <filesystem>
#include <string_view>
#include <vector>

#include "kvplan/gui/charts.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/main_window.hpp"
#include "kvplan/gui/save_file.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/version.hpp"

namespace {
void settle(int ms) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

/// Bounds of --size (pixels per side).
constexpr int kMinSide = 100;
constexpr int kMaxSide = 4096;

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
  QApplication::setOrganizationName(QStringLiteral("kvplan"));  // QSettings: ~/.config/kvplan/kvplan-gui.conf
  QApplication::setApplicationName(QStringLiteral("kvplan-gui"));
  QApplication::setApplicationVersion(QString::fromLatin1(kvplan::kVersion));

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
  parser.addPositionalArgument(
      QStringLiteral("file"),
      QStringLiteral("a preset file, config.json, .gguf file, model folder or scenario to open"),
      QStringLiteral("[FILE]"));
  // Parsed here rather than by process(), which exits 1 with Qt's words: every command-line mistake is
  // one "kvplan-gui: error:" line and exit 2, as the CLI's are.
  if (!parser.parse(QApplication::arguments())) {
    const QStringList unknown = parser.unknownOptionNames();
    // Qt's "Missing value after '--screenshot'." in kvplan's words.
    const auto missing =
        QRegularExpression(QStringLiteral("^Missing value after '(-+[^']+)'")).match(parser.errorText());
    if (missing.hasMatch()) {
      fail(QStringLiteral("%1: needs a value (kvplan-gui --help)").arg(missing.captured(1)));
      return 2;
    }
    fail(unknown.isEmpty()
             ? parser.errorText()
             : QStringLiteral("%1%2: not an option of kvplan-gui (kvplan-gui --help)")
                   .arg(unknown.front().size() == 1 ? QStringLiteral("-") : QStringLiteral("--"),
                        unknown.front()));
    return 2;
  }
  if (parser.isSet(QStringLiteral("help"))) parser.showHelp(0);
  if (parser.isSet(QStringLiteral("version"))) parser.showVersion();
  for (const QCommandLineOption* o : {&screenshot, &scenario, &size})
    if (const auto n = parser.values(*o).size(); n > 1) {
      fail(QStringLiteral("--%1: given %2 times; give it once").arg(o->names().front()).arg(n));
      return 2;
    }
  if (parser.positionalArguments().size() > 1) {
    fail(QStringLiteral("%1 files given (%2); give one")
             .arg(parser.positionalArguments().size())
             .arg(parser.positionalArguments().join(QStringLiteral(", "))));
    return 2;
  }
  if (parser.isSet(scenario) && !parser.positionalArguments().isEmpty()) {
    fail(QStringLiteral("--scenario: give --scenario FILE or FILE, not both"));
    return 2;
  }
  if (parser.isSet(size) && !parser.isSet(screenshot)) {
    fail(QStringLiteral("--size: only with --screenshot (the window remembers its own size)"));
    return 2;
  }
  for (const QCommandLineOption* o : {&screenshot, &scenario})
    if (parser.isSet(*o) && parser.value(*o).isEmpty()) {
      fail(QStringLiteral("--%1: needs a file name, got ''").arg(o->names().front()));
      return 2;
    }
  if (parser.isSet(screenshot) &&
      !parser.value(screenshot).endsWith(QStringLiteral(".png"), Qt::CaseInsensitive)) {
    fail(QStringLiteral("--screenshot: %1: the image is PNG; give a name ending in .png")
             .arg(parser.value(screenshot)));
    return 2;
  }
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
  if (!shot) {
    window.restoreSettings();
    window.show();
    // As File > Open: a scenario whose repo id comes from the Hub loads in the background; a file that
    // fails shows in the banner; each one loaded goes to File > Open Recent.
    for (const QString& f : files) window.openPath(f);
    return QApplication::exec();
  }
  for (const QString& f : files)
    if (!controller.openFile(f)) {
      fail(controller.errorMessage());
      return 2;
    }
  const auto m = QRegularExpression(QStringLiteral("^(\\d+)x(\\d+)$")).match(parser.value(size));
  if (!m.hasMatch()) {
    fail(QStringLiteral("--size: expected WxH, got '%1'").arg(parser.value(size)));
    return 2;
  }
  // Bounded: a 30000x30000 window took 6.9 GB, 100000x100000 crashed; 4096 x 4096 x 4 B is 64 MiB.
  bool ok_w = false, ok_h = false;
  const qlonglong w = m.captured(1).toLongLong(&ok_w), h = m.captured(2).toLongLong(&ok_h);
  if (!ok_w || !ok_h || w < kMinSide || h < kMinSide || w > kMaxSide || h > kMaxSide) {
    fail(QStringLiteral("--size: width and height must be %1 to %2 pixels, got '%3'")
             .arg(kMinSide)
             .arg(kMaxSide)
             .arg(parser.value(size)));
    return 2;
  }
  window.resize(static_cast<int>(w), static_cast<int>(h));
  window.show();
  settle(300);
  // The window does not shrink below its minimum: a smaller --size gave an image of another size.
  if (window.width() != w || window.height() != h) {
    fail(QStringLiteral("--size: %1 is smaller than the window's minimum %2x%3 pixels")
             .arg(parser.value(size))
             .arg(window.minimumSizeHint().expandedTo(window.minimumSize()).width())
             .arg(window.minimumSizeHint().expandedTo(window.minimumSize()).height()));
    return 2;
  }
  // Charts off screen at this size refresh only when shown: draw them all before grabbing the window.
  window.charts()->refreshNow();
  settle(50);
  QString error;
  if (!kvplan::gui::savePngAtomically(window.grab(), parser.value(screenshot), &error)) {
    fail(error);
    return 2;
  }
  return 0;
}
