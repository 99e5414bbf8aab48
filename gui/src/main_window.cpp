#include "kvplan/gui/main_window.hpp"

#include <QAbstractScrollArea>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFocusEvent>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <utility>

#include "kvplan/format.hpp"
#include "kvplan/gui/baseline.hpp"
#include "kvplan/gui/chart_data.hpp"
#include "kvplan/gui/charts.hpp"
#include "kvplan/gui/fit_view.hpp"
#include "kvplan/gui/hub_loader.hpp"
#include "kvplan/gui/inputs_panel.hpp"
#include "kvplan/gui/recent_files.hpp"
#include "kvplan/gui/results_panel.hpp"
#include "kvplan/gui/tables.hpp"
#include "kvplan/hf_hub.hpp"
#include "kvplan/hub_fetch.hpp"

namespace kvplan::gui {

namespace {

/// Sends the mouse wheel to a combo, spin box or slider only when the user clicked it and it still has
/// the focus; otherwise the wheel goes on to the scroll area around it. Focus alone was not enough: a
/// box clicked earlier kept the focus, the wheel scrolled the panel until that box came under the
/// pointer, and the next notch edited it (32 became 27). A click arms one box; its focus leaving, or a
/// wheel notch that scrolls a panel, disarms it.
class WheelGuard : public QObject {
 public:
  using QObject::QObject;
  /// Guards `box`; presses on its children (a spin box's line edit) arm it too.
  void guard(QWidget* box) {
    box->setFocusPolicy(Qt::StrongFocus);
    owner_.insert(box, box);
    box->installEventFilter(this);
    for (QWidget* child : box->findChildren<QWidget*>()) {
      owner_.insert(child, box);
      child->installEventFilter(this);
    }
  }
  /// A scroll area's viewport: the wheel reaching it scrolls the panel and disarms the armed box.
  void watchPanel(QWidget* viewport) { viewport->installEventFilter(this); }
  bool eventFilter(QObject* watched, QEvent* event) override {
    QWidget* box = owner_.value(watched, nullptr);
    switch (event->type()) {
      case QEvent::MouseButtonPress:
      case QEvent::MouseButtonDblClick:
        if (box != nullptr) armed_ = box;
        break;
      case QEvent::FocusOut:
        if (box != nullptr && watched == box && armed_ == box &&
            static_cast<QFocusEvent*>(event)->reason() != Qt::PopupFocusReason)
          armed_ = nullptr;
        break;
      case QEvent::Wheel:
        if (box == nullptr) {  // a panel's viewport: the wheel scrolls it
          armed_ = nullptr;
          break;
        }
        if (watched == box && (armed_ != box || !box->hasFocus())) {
          event->ignore();  // the parent (the scroll area) gets it
          return true;
        }
        break;
      default: break;
    }
    return QObject::eventFilter(watched, event);
  }

 private:
  QHash<QObject*, QWidget*> owner_;  ///< a guarded box, or a child of one -> the box
  QPointer<QWidget> armed_;          ///< the box the user clicked last
};

/// Every combo box, spin box and slider under `root` takes focus by click or Tab only (not by the
/// wheel) and takes the wheel only when clicked and focused (WheelGuard).
void guard_wheel(QWidget* root) {
  auto* guard = new WheelGuard(root);
  QList<QWidget*> boxes;
  for (QComboBox* w : root->findChildren<QComboBox*>()) boxes << w;
  for (QAbstractSpinBox* w : root->findChildren<QAbstractSpinBox*>()) boxes << w;
  for (QAbstractSlider* w : root->findChildren<QSlider*>()) boxes << w;
  for (QWidget* w : boxes) guard->guard(w);
  for (QAbstractScrollArea* a : root->findChildren<QAbstractScrollArea*>()) guard->watchPanel(a->viewport());
}
}  // namespace

MainWindow::MainWindow(Controller* controller, QWidget* parent)
    : QMainWindow(parent), controller_(controller) {
  setWindowTitle(QStringLiteral("kvplan: KV-cache planner[*]"));
  setAcceptDrops(true);

  results_ = new ResultsModel(controller_, this);
  baseline_ = new Baseline(controller_, this);
  hub_ = new HubLoader(this);
  results_->setBaseline(baseline_);

  // The panels (inputs_panel.cpp, results_panel.cpp, charts.cpp); the menus are in main_window_menus.cpp.
  inputs_ = new InputsPanel(controller_);
  connect(inputs_, &InputsPanel::presetPicked, this, [this](const QString& id) {
    if (!mayDropEdits(false)) {
      inputs_->sync();  // the list shows the model kept
      return;
    }
    controller_->selectModel(id);
  });
  connect(inputs_, &InputsPanel::searchSubmitted, this, &MainWindow::searchEntered);
  connect(inputs_, &InputsPanel::openRequested, this, &MainWindow::openDialog);
  connect(hub_, &HubLoader::finished, this, &MainWindow::hubFinished);

  auto* right = new QWidget;
  auto* right_layout = new QVBoxLayout(right);
  right_layout->setContentsMargins(4, 4, 4, 4);
  error_banner_ = new QLabel;
  error_banner_->setObjectName(QStringLiteral("error"));
  error_banner_->setWordWrap(true);
  error_banner_->setStyleSheet(QStringLiteral(
      "QLabel { background: #fbe3e4; color: #8a1f11; border: 1px solid #e8a3a6; padding: 6px; }"));
  error_banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_banner_->hide();
  // The error and the notice share one slot of fixed height, there whether they show or not: a banner
  // appearing moved the results and charts down (issue 27). A longer text is whole in its tooltip and
  // the status bar.
  auto* banner_slot = new QWidget;
  banner_slot->setObjectName(QStringLiteral("banner_slot"));
  auto* banner_layout = new QVBoxLayout(banner_slot);
  banner_layout->setContentsMargins(0, 0, 0, 0);
  banner_layout->setSpacing(2);
  banner_layout->addWidget(error_banner_);
  notice_ = new QLabel;
  notice_->setObjectName(QStringLiteral("notice"));
  notice_->setWordWrap(true);
  notice_->setTextFormat(Qt::PlainText);
  notice_->setFrameShape(QFrame::StyledPanel);
  notice_->setMargin(4);
  notice_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  notice_->hide();
  banner_layout->addWidget(notice_);
  banner_layout->addStretch(1);
  banner_slot->setFixedHeight(fontMetrics().lineSpacing() * 2 + 18);
  right_layout->addWidget(banner_slot);
  // Results above, charts below, each scrolling in its own pane: the window fits a 1280 x 720 screen
  // and the splitter gives either pane the room.
  auto* results_scroll = new QScrollArea;
  results_scroll->setObjectName(QStringLiteral("results_scroll"));
  results_panel_ = new ResultsPanel(controller_, results_);
  connect(results_panel_, &ResultsPanel::copyRequested, this, &MainWindow::copyCommand);
  results_scroll->setWidget(results_panel_);
  results_scroll->setWidgetResizable(true);
  results_scroll->setFrameShape(QFrame::NoFrame);
  results_scroll->setMinimumHeight(120);
  charts_ = new ChartPanel;
  charts_->setObjectName(QStringLiteral("charts"));
  auto* charts_scroll = new QScrollArea;
  charts_scroll->setObjectName(QStringLiteral("charts_scroll"));
  charts_scroll->setWidget(charts_);
  charts_scroll->setWidgetResizable(true);
  charts_scroll->setFrameShape(QFrame::NoFrame);
  charts_scroll->setMinimumHeight(160);
  auto* right_split = new QSplitter(Qt::Vertical);
  right_split->setObjectName(QStringLiteral("right_split"));
  right_split->addWidget(results_scroll);
  right_split->addWidget(charts_scroll);
  right_split->setStretchFactor(0, 0);
  right_split->setStretchFactor(1, 1);
  right_split->setChildrenCollapsible(false);
  right_layout->addWidget(buildStreamingRow());
  right_layout->addWidget(right_split, 1);

  auto* split = new QSplitter(Qt::Horizontal);
  split->setObjectName(QStringLiteral("main_split"));
  split->setChildrenCollapsible(false);
  split->addWidget(inputs_);
  split->addWidget(right);
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  setCentralWidget(split);
  buildMenus();
  buildFitDock();
  guard_wheel(this);

  connect(controller_, &Controller::planChanged, this, &MainWindow::showPlan);
  connect(baseline_, &Baseline::changed, this, &MainWindow::showPlan);
  connect(controller_, &Controller::inputsChanged, results_panel_, &ResultsPanel::showInputs);
  connect(controller_, &Controller::errorOccurred, this, &MainWindow::showError);
  // Last of the slots an input runs (the panels' are connected before): the layouts the change asked for
  // (the results table's height follows its rows; the engine's option rows) are done now, before the
  // first paint. Left to the event loop, the window was painted with the old layout and then again with
  // the new one, the results table twice (1.1-1.4 ms each under an engine switch).
  connect(controller_, &Controller::inputsChanged, this,
          [] { QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest); });
  // The title: the scenario file, and "*" while the scenario differs from it (or from the start).
  const auto title = [this] {
    const QString file = controller_->scenarioPath();
    setWindowTitle((file.isEmpty() ? QStringLiteral("untitled") : QFileInfo(file).fileName()) +
                   QStringLiteral("[*] - kvplan: KV-cache planner"));
    setWindowModified(!controller_->undoStack()->isClean());
  };
  connect(controller_->undoStack(), &QUndoStack::cleanChanged, this, title);
  connect(controller_, &Controller::planChanged, this, title);
  title();
  results_panel_->showInputs();
  showPlan();
  if (!controller_->errorMessage().isEmpty()) showError(controller_->errorMessage());
  // Within the screen: at most 1600 x 1000, at most 92% of the space the screen leaves free.
  const QRect screen =
      this->screen() != nullptr ? this->screen()->availableGeometry() : QRect(0, 0, 1366, 768);
  resize(std::min(1600, screen.width() * 92 / 100), std::min(1000, screen.height() * 92 / 100));
  move(screen.center() - rect().center());
}

void MainWindow::restoreSettings() {
  remember_ = true;
  recent_->load();
  const QSettings settings;
  const QByteArray geometry = settings.value(QStringLiteral("window/geometry")).toByteArray();
  // restoreGeometry moves a window saved on a screen that is gone back onto one that is there.
  if (!geometry.isEmpty()) restoreGeometry(geometry);
  // The byte unit of the last session (View > Sizes in GB), for a new scenario; a file opened says its own.
  if (settings.value(QStringLiteral("view/units")).toString() == QLatin1String("GB"))
    controller_->setUnits(UnitSystem::si, false);
  const QByteArray state = settings.value(QStringLiteral("window/splitters")).toByteArray();
  if (auto* split = findChild<QSplitter*>(QStringLiteral("main_split")); split != nullptr && !state.isEmpty())
    split->restoreState(state);
}

bool MainWindow::askToSave() {
  const auto answer = QMessageBox::question(
      this, QStringLiteral("kvplan"),
      QStringLiteral("The scenario has changes that are not saved. Save them?"),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save) {
    saveDialog();
    return !isWindowModified();  // false: the dialog was cancelled or the file not written
  }
  return true;
}

bool MainWindow::mayDropEdits(bool whole_scenario) {
  if (!isWindowModified()) return true;
  const PlanInputs& in = controller_->inputs();
  const bool lost = whole_scenario ? controller_->undoStack()->index() != controller_->loadedAt()
                                   : !(in.model == controller_->scenario().base) || in.deployment.weights;
  return !lost || askToSave();
}

bool MainWindow::openPath(const QString& path) {
  if (!mayDropEdits(true)) return false;
  PreparedScenario file;
  if (!controller_->prepareScenario(path, file)) return false;
  if (file.repo.isEmpty()) {
    if (!controller_->openFile(path)) return false;
    recent_->add(path);
    return true;
  }
  if (hub_->busy()) {
    statusBar()->showMessage(QStringLiteral("Still fetching %1: one repo at a time, open %2 when it is done")
                                 .arg(hub_->repo(), QFileInfo(path).fileName()),
                             8000);
    return false;
  }
  hub_file_ = file;
  hub_scenario_ = controller_->scenario();
  startFetch(file.repo, QStringLiteral("Fetching %1 for %2 from the Hugging Face Hub (or its cache)...")
                            .arg(file.repo, QFileInfo(path).fileName()));
  return true;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (isWindowModified() && !askToSave()) {
    event->ignore();
    return;
  }
  if (remember_) {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    if (auto* split = findChild<QSplitter*>(QStringLiteral("main_split")))
      settings.setValue(QStringLiteral("window/splitters"), split->saveState());
  }
  QMainWindow::closeEvent(event);
}

MainWindow::~MainWindow() = default;

void MainWindow::showPlan() {
  error_banner_->hide();
  error_banner_->clear();
  results_panel_->showPlan();
  const QString notice = controller_->notice().isEmpty()
                             ? QString()
                             : QStringLiteral("Changed to match: ") + controller_->notice();
  if (notice_->text() != notice) {
    notice_->setText(notice);
    notice_->setToolTip(notice);
    notice_->setVisible(!notice.isEmpty());
  }
  const UnitSystem units = controller_->units();
  ChartsData charts = describe_charts(controller_->figures(), controller_->modelTitle(), units);
  for (int i = 0; i < baseline_->count(); ++i) add_baseline_lines(charts, *baseline_->figuresAt(i), units, i);
  charts_->display(charts);
}

void MainWindow::showError(const QString& message) {
  error_banner_->setText(message);
  error_banner_->setToolTip(message);
  error_banner_->setVisible(!message.isEmpty());
  if (!message.isEmpty()) statusBar()->showMessage(message, 8000);
}

QString MainWindow::shownError() const {
  return error_banner_->isVisible() ? error_banner_->text() : QString();
}

void MainWindow::copyCommand() {
  QString why;
  const QString line = controller_->commandLine(&why);
  if (line.isEmpty()) {
    showError(QStringLiteral("Copy as command: ") + why);
    return;
  }
  QApplication::clipboard()->setText(line);
  statusBar()->showMessage(QStringLiteral("Copied: ") + line, 8000);
}

void MainWindow::openDialog() {
  const QString path =
      QFileDialog::getOpenFileName(this, QStringLiteral("Open a preset, config.json or scenario"), QString(),
                                   QStringLiteral("JSON (*.json);;All files (*)"));
  if (!path.isEmpty()) openPath(path);
}

void MainWindow::saveDialog() {
  const QString path =
      QFileDialog::getSaveFileName(this, QStringLiteral("Save scenario"), QStringLiteral("scenario.json"),
                                   QStringLiteral("JSON (*.json)"));
  if (!path.isEmpty() && controller_->saveScenario(path)) {
    recent_->add(path);
    statusBar()->showMessage(QStringLiteral("Saved ") + path, 5000);
  }
}

void MainWindow::measuredDialog() {
  const QString path =
      QFileDialog::getOpenFileName(this, QStringLiteral("Measured prefill points"), QString(),
                                   QStringLiteral("JSON (*.json);;All files (*)"));
  if (!path.isEmpty()) controller_->loadMeasuredPrefill(path);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const QMimeData* m = event->mimeData();
  if (m->hasUrls() && !m->urls().isEmpty() && m->urls().first().isLocalFile()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QMimeData* m = event->mimeData();
  if (!m->hasUrls() || m->urls().isEmpty() || !m->urls().first().isLocalFile()) return;
  event->acceptProposedAction();
  openPath(m->urls().first().toLocalFile());
}

void MainWindow::showFitView() {
  fit_dock_->show();
  fit_dock_->raise();
}

void MainWindow::loadFitRow(const Scenario& scenario) {
  if (controller_->applyScenario(scenario))
    statusBar()->showMessage(QStringLiteral("Loaded the deployment from Fit"), 5000);
}

// StreamingLLM's sinks + recent window for the KV chart's curve (Controller::setStreamingWindow).
QWidget* MainWindow::buildStreamingRow() {
  auto* row = new QWidget;
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* sinks = number_spin_box("streaming_sinks", 0, 1 << 20);
  auto* recent = number_spin_box("streaming_recent", 1, 1 << 30);
  for (QSpinBox* s : {sinks, recent}) s->setKeyboardTracking(false);
  // Short labels, the whole sentence in the tooltips: the row's width is the window's least width, and
  // the sentence in full made the window 1,426 px wide on a 1,366 or 1,280 px screen.
  const QString whole = QStringLiteral(
      "The StreamingLLM curve on the KV chart: each full-attention layer keeps its first tokens (the "
      "attention "
      "sinks) and the most recent window, and drops the rest (Xiao et al. 2023, StreamingLLM)");
  auto* title = new QLabel(QStringLiteral("StreamingLLM curve: sinks"));
  auto* plus = new QLabel(QStringLiteral("+ recent"));
  auto* unit = new QLabel(QStringLiteral("tokens per full-attention layer"));
  // The unit takes its width where there is room, and shrinks on a narrow window without setting the
  // row's least width (a minimum of 1 px over its size hint); the tooltip keeps it whole.
  unit->setMinimumWidth(1);
  for (QWidget* w : std::initializer_list<QWidget*>{title, sinks, plus, recent, unit}) {
    w->setToolTip(whole);
    layout->addWidget(w);
  }
  layout->addStretch(1);
  const auto show = [this, sinks, recent] {
    const QSignalBlocker block_sinks(sinks), block_recent(recent);
    sinks->setValue(clamp_to_int(controller_->streamingSinkTokens()));
    recent->setValue(clamp_to_int(controller_->streamingRecentWindow()));
  };
  show();
  connect(controller_, &Controller::inputsChanged, row, show);
  const auto send = [this, sinks, recent] {
    controller_->setStreamingWindow(static_cast<std::uint64_t>(sinks->value()),
                                    static_cast<std::uint64_t>(recent->value()));
  };
  connect(sinks, &QSpinBox::valueChanged, row, send);
  connect(recent, &QSpinBox::valueChanged, row, send);
  return row;
}

// Model sources beyond presets: a GGUF file, a model folder, a Hugging Face repo id typed in the search box.
void MainWindow::openModelDialog() {
  const QString path = QFileDialog::getOpenFileName(this, QStringLiteral("Open a model"), QString(),
                                                    QStringLiteral("Models (*.gguf *.json);;All files (*)"));
  if (!path.isEmpty()) openPath(path);
}

void MainWindow::openFolderDialog() {
  const QString dir = QFileDialog::getExistingDirectory(
      this, QStringLiteral("Open a model folder (config.json and safetensors)"));
  if (!dir.isEmpty()) openPath(dir);  // Controller::openFile takes a folder as a model folder
}

void MainWindow::searchEntered() {
  const QString text = inputs_->searchText();
  const bool repo = presets::is_hf_repo_id(text.toStdString());
  // One preset listed: the list's own Enter handler (InputsPanel's pick) loads it.
  if (text.isEmpty() || (inputs_->presetMatches() == 1 && !repo)) return;
  // Several presets listed: loading the first would be a silent guess. The search box keeps the focus
  // and the status bar says how many match.
  if (inputs_->presetMatches() > 1 && !repo) {
    statusBar()->showMessage(QStringLiteral("%1 presets match \"%2\": type more of the name, or pick one "
                                            "from the list")
                                 .arg(inputs_->presetMatches())
                                 .arg(text),
                             8000);
    return;
  }
  // A repo id goes to the CLI's resolver (a preset's repo, else the Hub cache); text nothing matches
  // goes there too, which says so. Online, a repo id may be fetched from the Hub (seconds, up to
  // KVPLAN_HUB_TIMEOUT): that runs in a worker (HubLoader), one at a time; offline only the cache is read.
  if (repo && hub_->busy()) {
    statusBar()->showMessage(
        QStringLiteral("Still fetching %1: one repo at a time, wait for it to finish").arg(hub_->repo()),
        8000);
    return;
  }
  if (!mayDropEdits(false)) return;
  if (!repo || presets::hf_hub_offline()) {
    controller_->selectModel(text);
    return;
  }
  hub_source_ = controller_->scenario().source;
  startFetch(text, QStringLiteral("Fetching %1 from the Hugging Face Hub (or its cache)...").arg(text));
}

void MainWindow::startFetch(const QString& repo, const QString& busy) {
  hub_->request(repo);
  inputs_->setFetchStatus(busy);
  statusBar()->showMessage(busy);
}

void MainWindow::hubFinished(const HubOutcome& outcome) {
  inputs_->setFetchStatus(QString());
  statusBar()->clearMessage();
  if (hub_file_) {
    const PreparedScenario file = *std::exchange(hub_file_, std::nullopt);
    scenarioFetched(file, outcome);
    return;
  }
  if (!outcome.error.isEmpty()) {
    showError(outcome.error);  // the model shown stays
    return;
  }
  // Another model chosen while this one was fetched stays: the fetch came too late to replace it.
  if (!(controller_->scenario().source == hub_source_)) {
    statusBar()->showMessage(
        QStringLiteral("%1 fetched, not loaded: another model was chosen meanwhile").arg(outcome.repo), 8000);
    return;
  }
  controller_->applyModel(outcome.model);
}

void MainWindow::scenarioFetched(const PreparedScenario& file, const HubOutcome& outcome) {
  const QString name = QFileInfo(file.path).fileName();
  if (!outcome.error.isEmpty()) {  // the state stays; the message names the file and the repo
    showError(outcome.error.contains(file.repo)
                  ? QStringLiteral("%1: %2").arg(name, outcome.error)
                  : QStringLiteral("%1: %2: %3").arg(name, file.repo, outcome.error));
    return;
  }
  // An input changed during the fetch: loading the file now would replace that change unasked.
  if (!(controller_->scenario() == hub_scenario_)) {
    showError(QStringLiteral("%1 was not opened: the inputs changed while %2 was fetched; open it again to "
                             "replace them")
                  .arg(name, file.repo));
    return;
  }
  if (controller_->finishScenario(file, outcome.model)) recent_->add(file.path);
}

}  // namespace kvplan::gui