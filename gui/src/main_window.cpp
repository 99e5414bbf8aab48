#include "kvplan/gui/main_window.hpp"

#include <QAbstractScrollArea>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFocusEvent>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QShortcut>
#include <QSignalBlocker>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <climits>
#include <tuple>
#include <utility>

#include "kvplan/format.hpp"
#include "kvplan/gui/baseline.hpp"
#include "kvplan/gui/chart_data.hpp"
#include "kvplan/gui/charts.hpp"
#include "kvplan/gui/context_scale.hpp"
#include "kvplan/gui/count_box.hpp"
#include "kvplan/gui/engine_rows.hpp"
#include "kvplan/gui/fit_view.hpp"
#include "kvplan/gui/hub_loader.hpp"
#include "kvplan/gui/recent_files.hpp"
#include "kvplan/gui/tables.hpp"
#include "kvplan/hf_hub.hpp"
#include "kvplan/hub_fetch.hpp"

namespace kvplan::gui {

namespace {
QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

/// A combo box for the scheme column of the layer-group table.
class SchemeDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex&) const override {
    auto* box = new QComboBox(parent);
    box->addItems(LayerGroupsModel::schemes());
    return box;
  }
  void setEditorData(QWidget* editor, const QModelIndex& index) const override {
    static_cast<QComboBox*>(editor)->setCurrentText(index.data(Qt::EditRole).toString());
  }
  void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override {
    model->setData(index, static_cast<QComboBox*>(editor)->currentText(), Qt::EditRole);
  }
};

QComboBox* dtype_combo(const char* object_name) {
  auto* box = new QComboBox;
  box->setObjectName(QLatin1String(object_name));
  for (const auto& t : all_dtypes()) box->addItem(qstr(t.name));
  return box;
}

QSpinBox* spin(const char* object_name, int lo, int hi) {
  auto* s = new QSpinBox;
  s->setObjectName(QLatin1String(object_name));
  s->setRange(lo, hi);
  s->setGroupSeparatorShown(true);
  return s;
}

int clamp_int(std::uint64_t v) {
  return v > static_cast<std::uint64_t>(INT_MAX) ? INT_MAX : static_cast<int>(v);
}

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

/// The platform's keys for `standard`, then `extra` unless the platform has it already: a key given
/// twice is an ambiguous shortcut that Qt never fires (KDE's and GNOME's Redo is Ctrl+Shift+Z already;
/// some themes have no Quit key at all).
QList<QKeySequence> keys_with(QKeySequence::StandardKey standard, const QKeySequence& extra) {
  QList<QKeySequence> keys;
  for (const QKeySequence& k : QKeySequence::keyBindings(standard))
    if (!k.isEmpty() && !keys.contains(k)) keys << k;
  if (!keys.contains(extra)) keys << extra;
  return keys;
}

/// The combo's type; its items are all_dtypes() names, so the lookup cannot fail.
DType dtype_of(const QComboBox* box) {
  const auto types = all_dtypes();
  const auto i = static_cast<std::size_t>(std::max(0, box->currentIndex()));
  return i < types.size() ? types[i].type : DType::bf16;
}
}  // namespace

MainWindow::MainWindow(Controller* controller, QWidget* parent)
    : QMainWindow(parent), controller_(controller) {
  setWindowTitle(QStringLiteral("kvplan: KV-cache planner[*]"));
  setAcceptDrops(true);

  results_ = new ResultsModel(controller_, this);
  baseline_ = new Baseline(this);
  hub_ = new HubLoader(this);
  results_->setBaseline(baseline_);
  groups_ = new LayerGroupsModel(controller_, this);
  presets_ = new PresetListModel(controller_->modelPresets(), this);

  auto* inputs = new QScrollArea;
  inputs->setObjectName(QStringLiteral("inputs_scroll"));
  inputs->setWidget(buildInputs());
  inputs->setWidgetResizable(true);
  inputs->setMinimumWidth(340);

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
  results_scroll->setWidget(buildResults());
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
  split->addWidget(inputs);
  split->addWidget(right);
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  setCentralWidget(split);
  buildMenus();
  buildFitDock();
  guard_wheel(this);

  connect(controller_, &Controller::planChanged, this, &MainWindow::showPlan);
  connect(baseline_, &Baseline::changed, this, &MainWindow::showPlan);
  connect(controller_, &Controller::inputsChanged, this, &MainWindow::syncInputs);
  connect(controller_, &Controller::errorOccurred, this, &MainWindow::showError);
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
  keepEngineRowsHeight(true);
  syncInputs();
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

namespace {
/// A word-wrapped plain-text label (no rich-text layout) named `name`.
QLabel* wrapped_label(const QString& name) {
  auto* label = new QLabel;
  label->setObjectName(name);
  label->setWordWrap(true);
  label->setTextFormat(Qt::PlainText);
  return label;
}
}  // namespace

QWidget* MainWindow::buildInputs() {
  auto* panel = new QWidget;
  auto* layout = new QVBoxLayout(panel);

  // The model: a searchable preset list, or a file.
  auto* model_box = new QGroupBox(QStringLiteral("Model"));
  auto* model_layout = new QVBoxLayout(model_box);
  model_title_ = wrapped_label(QStringLiteral("model_title"));
  QFont bold = model_title_->font();
  bold.setBold(true);
  model_title_->setFont(bold);
  model_layout->addWidget(model_title_);
  model_source_ = wrapped_label(QStringLiteral("model_source"));
  QFont small = model_source_->font();
  if (small.pointSizeF() > 0) small.setPointSizeF(small.pointSizeF() * 0.83);  // as rich text's <small>
  model_source_->setFont(small);
  model_layout->addWidget(model_source_);
  search_ = new QLineEdit;
  search_->setObjectName(QStringLiteral("search"));
  search_->setPlaceholderText(
      QStringLiteral("search presets (id, name, Hugging Face repo), or ORG/NAME + Enter for a cached repo"));
  search_->setClearButtonEnabled(true);
  // "Load" does what Enter in the search box does; it is disabled while a repo id is fetched (HubLoader).
  auto* search_row = new QHBoxLayout;
  search_row->addWidget(search_, 1);
  load_ = new QPushButton(QStringLiteral("Load"));
  load_->setObjectName(QStringLiteral("load_model"));
  load_->setToolTip(
      QStringLiteral("Loads the one preset listed, or the Hugging Face repo id typed (ORG/NAME) "
                     "from the Hub cache or the Hub."));
  search_row->addWidget(load_);
  model_layout->addLayout(search_row);
  hub_status_ = wrapped_label(QStringLiteral("hub_status"));
  hub_status_->hide();
  model_layout->addWidget(hub_status_);
  connect(load_, &QPushButton::clicked, search_, &QLineEdit::returnPressed);
  connect(hub_, &HubLoader::finished, this, &MainWindow::hubFinished);
  preset_filter_ = new QSortFilterProxyModel(this);
  preset_filter_->setSourceModel(presets_);
  preset_filter_->setFilterRole(PresetListModel::SearchRole);
  preset_filter_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  preset_list_ = new QListView;
  preset_list_->setObjectName(QStringLiteral("presets"));
  preset_list_->setModel(preset_filter_);
  preset_list_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  preset_list_->setTabKeyNavigation(false);
  preset_list_->setMinimumHeight(130);
  preset_list_->setMaximumHeight(170);
  model_layout->addWidget(preset_list_);
  auto* open = new QPushButton(QStringLiteral("Open preset, config.json or scenario..."));
  model_layout->addWidget(open);
  layout->addWidget(model_box);
  connect(search_, &QLineEdit::textChanged, preset_filter_, &QSortFilterProxyModel::setFilterFixedString);
  connect(search_, &QLineEdit::returnPressed, this, &MainWindow::searchEntered);
  const auto pick = [this](const QModelIndex& index) {
    if (!index.isValid()) return;
    if (!mayDropEdits(false)) {
      syncInputs();  // the list shows the model kept
      return;
    }
    controller_->selectModel(index.data(PresetListModel::IdRole).toString());
  };
  connect(preset_list_, &QListView::clicked, this, pick);
  connect(preset_list_, &QListView::activated, this, pick);
  // Enter in the search box loads the one preset left; with several, none (searchEntered says how many).
  // A repo id goes to searchEntered alone (the Hub, then the preset of that repo).
  connect(search_, &QLineEdit::returnPressed, this, [this, pick] {
    if (preset_filter_->rowCount() == 1 && !presets::is_hf_repo_id(search_->text().trimmed().toStdString()))
      pick(preset_filter_->index(0, 0));
  });
  auto* find = new QShortcut(QKeySequence::Find, this);
  find->setObjectName(QStringLiteral("find_shortcut"));
  connect(find, &QShortcut::activated, this, [this] {
    // Scrolled into sight first: the inputs panel may be scrolled down to the engine options.
    if (auto* area = findChild<QScrollArea*>(QStringLiteral("inputs_scroll")))
      area->ensureWidgetVisible(search_);
    search_->setFocus(Qt::ShortcutFocusReason);
    search_->selectAll();
  });
  search_->setPlaceholderText(QStringLiteral("search presets (Ctrl+F; Enter loads a single match)"));
  connect(open, &QPushButton::clicked, this, &MainWindow::openDialog);

  // The architecture, group by group.
  auto* arch_box = new QGroupBox(QStringLiteral("Architecture (layer groups; double-click to edit)"));
  auto* arch_layout = new QVBoxLayout(arch_box);
  groups_view_ = new QTableView;
  groups_view_->setObjectName(QStringLiteral("groups"));
  groups_view_->setModel(groups_);
  groups_view_->setItemDelegateForColumn(LayerGroupsModel::Scheme, new SchemeDelegate(groups_view_));
  groups_view_->verticalHeader()->setDefaultSectionSize(22);
  groups_view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  groups_view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  groups_view_->setSelectionMode(QAbstractItemView::SingleSelection);
  groups_view_->setTabKeyNavigation(false);  // Tab leaves the table; arrows move within it
  groups_view_->setMinimumHeight(110);
  groups_view_->setMaximumHeight(150);
  arch_layout->addWidget(groups_view_);
  auto* arch_buttons = new QHBoxLayout;
  auto* split = new QPushButton(QStringLiteral("Split group"));
  auto* reset = new QPushButton(QStringLiteral("Reset to file"));
  arch_buttons->addWidget(split);
  arch_buttons->addWidget(reset);
  arch_buttons->addStretch(1);
  arch_layout->addLayout(arch_buttons);
  layout->addWidget(arch_box);
  connect(split, &QPushButton::clicked, this, [this] {
    const QModelIndex i = groups_view_->currentIndex();
    controller_->splitGroup(i.isValid() ? i.row() : 0);
  });
  connect(reset, &QPushButton::clicked, controller_, &Controller::resetArchitecture);

  // Element types.
  auto* dtype_box = new QGroupBox(QStringLiteral("Element types"));
  auto* dtype_form = new QFormLayout(dtype_box);
  dtype_form_ = dtype_form;
  kv_dtype_ = dtype_combo("kv_dtype");
  kv_dtype_->setToolTip(
      QStringLiteral("The element type of the KV cache, K and V alike; types the engine "
                     "has no cache for are greyed out."));
  split_kv_ = new QCheckBox(QStringLiteral("K and V apart (ideal, llama.cpp)"));
  split_kv_->setObjectName(QStringLiteral("split_kv"));
  split_kv_->setToolTip(
      QStringLiteral("Give the K and V caches different types; vLLM, SGLang and "
                     "TensorRT-LLM use one type for both."));
  k_dtype_ = dtype_combo("k_dtype");
  v_dtype_ = dtype_combo("v_dtype");
  // First the checkpoint's own types, said in core's words (gpt-oss: "mxfp4 experts, bf16 rest"), then
  // one type for every part, as the CLI's --weight-dtype: a person can always go back to the first.
  weight_dtype_ = dtype_combo("weight_dtype");
  weight_dtype_->insertItem(0, QStringLiteral("as in the checkpoint"));
  weight_dtype_->setToolTip(
      QStringLiteral("The weights' element type: as in the checkpoint (each part as loaded), or one type "
                     "for every part (the CLI's --weight-dtype)."));
  dtype_form->addRow(QStringLiteral("&KV cache dtype"), kv_dtype_);
  dtype_form->addRow(QString(), split_kv_);
  dtype_form->addRow(QStringLiteral("K cache"), k_dtype_);
  dtype_form->addRow(QStringLiteral("V cache"), v_dtype_);
  dtype_form->addRow(QStringLiteral("&weight dtype"), weight_dtype_);
  layout->addWidget(dtype_box);
  connect(kv_dtype_, &QComboBox::currentTextChanged, this,
          [this] { controller_->setKvDtype(dtype_of(kv_dtype_)); });
  connect(split_kv_, &QCheckBox::toggled, this, [this](bool apart) {
    // Together again: V takes K's type. Apart: the K and V rows show (nothing else changes).
    if (!apart && controller_->inputs().kv.k != controller_->inputs().kv.v)
      controller_->setKvDtype(controller_->inputs().kv.k);
    syncKvDtypes(controller_->inputs());
  });
  connect(k_dtype_, &QComboBox::currentTextChanged, this,
          [this] { controller_->setKDtype(dtype_of(k_dtype_)); });
  connect(v_dtype_, &QComboBox::currentTextChanged, this,
          [this] { controller_->setVDtype(dtype_of(v_dtype_)); });
  connect(weight_dtype_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index <= 0) {
      controller_->setWeightDtypeAsLoaded();
      return;
    }
    const auto types = all_dtypes();
    const auto i = static_cast<std::size_t>(index - 1);
    if (i < types.size()) controller_->setWeightDtype(types[i].type);
  });

  // The deployment.
  auto* deploy_box = new QGroupBox(QStringLiteral("Deployment"));
  auto* form = new QFormLayout(deploy_box);
  gpu_ = new QComboBox;
  gpu_->setObjectName(QStringLiteral("gpu"));
  for (const auto& g : controller_->gpuPresets())
    gpu_->addItem(
        QStringLiteral("%1 (%2)").arg(QString::fromStdString(g.name),
                                      QString::fromStdString(format_bytes(g.memory, UnitSystem::iec))),
        QString::fromStdString(g.id));
  gpu_->addItem(QStringLiteral("custom memory"), QString());
  gpu_memory_ = new QLineEdit;
  gpu_memory_->setObjectName(QStringLiteral("gpu_memory"));
  gpu_memory_->setToolTip(QStringLiteral("memory per GPU: bytes, or with KiB/MiB/GiB/TiB or kB/MB/GB/TB"));
  gpus_ = spin("gpus", 1, 65536);
  tp_ = spin("tp", 1, 4096);
  pp_ = spin("pp", 1, 4096);
  for (QSpinBox* s : {gpus_, tp_, pp_}) s->setKeyboardTracking(false);
  util_ = new QDoubleSpinBox;
  util_->setObjectName(QStringLiteral("gpu_util"));
  // Wider than (0, 1]: a value past it is typed, then refused with a message (Controller::setUtilization),
  // not clamped to 1.0 without a word; applied on Enter, not at each key ("1" of "1.5").
  util_->setRange(0.0, 9.999);
  util_->setKeyboardTracking(false);
  util_->setDecimals(3);
  util_->setSingleStep(0.01);
  reserve_ = new QLineEdit;
  reserve_->setObjectName(QStringLiteral("reserve"));
  reserve_->setToolTip(QStringLiteral("runtime reserve per GPU: CUDA context, activations, CUDA graphs"));
  reserve_->setPlaceholderText(QStringLiteral("auto (the engine's budget)"));
  weights_ = new QLineEdit;
  weights_->setObjectName(QStringLiteral("weights"));
  weights_->setPlaceholderText(QStringLiteral("auto (from the architecture)"));
  weights_->setToolTip(QStringLiteral("whole-model weights: a size, or auto"));
  engine_ = new QComboBox;
  engine_->setObjectName(QStringLiteral("engine"));
  engine_->addItems(Controller::engines());
  context_slider_ = new QSlider(Qt::Horizontal);
  context_slider_->setObjectName(QStringLiteral("context_slider"));
  context_slider_->setRange(0, kContextSliderMax);
  context_slider_->setPageStep(kContextStepsPerDoubling);
  // Typed as the CLI takes them ("128k", "32Ki", "131,072"); sent on Enter, parsed by the controller.
  context_ = new CountBox;
  context_->setObjectName(QStringLiteral("context"));
  context_->setRange(1, 1ULL << 40);
  context_->setSingleStep(1024);
  context_->setSuffix(QStringLiteral(" tokens"));
  context_->setToolTip(
      QStringLiteral("Tokens per sequence, as --context takes them: 131072, 128k (x 1000), "
                     "128Ki (x 1024) or 131,072; Enter applies."));
  users_ = new CountBox;
  users_->setObjectName(QStringLiteral("users"));
  users_->setRange(1, 1ULL << 40);
  users_->setToolTip(
      QStringLiteral("Sequences served at once, as --users takes them: 64 or 1,024; "
                     "Enter applies."));
  auto* context_row = new QHBoxLayout;
  context_row->addWidget(context_slider_, 1);
  context_row->addWidget(context_);
  form->addRow(QStringLiteral("&GPU"), gpu_);
  form->addRow(QStringLiteral("&memory per GPU"), gpu_memory_);
  form->addRow(QStringLiteral("GPUs in &all"), gpus_);
  form->addRow(QStringLiteral("&tensor parallel (tp)"), tp_);
  form->addRow(QStringLiteral("&pipeline parallel (pp)"), pp_);
  form->addRow(QStringLiteral("utili&sation"), util_);
  form->addRow(QStringLiteral("&reserve per GPU"), reserve_);
  form->addRow(QStringLiteral("weights si&ze"), weights_);
  form->addRow(QStringLiteral("e&ngine rules"), engine_);
  form->addRow(QStringLiteral("&context"), context_row);
  if (auto* label = qobject_cast<QLabel*>(form->labelForField(context_row))) label->setBuddy(context_);
  form->addRow(QStringLiteral("concurrent &users"), users_);
  // One sentence for each term (issue 16, "words").
  gpus_->setToolTip(
      QStringLiteral("GPUs in all: each replica of tp x pp GPUs serves its own share of the "
                     "users, so GPUs / (tp x pp) replicas."));
  tp_->setToolTip(QStringLiteral("Tensor parallel: each layer's heads split across this many GPUs."));
  pp_->setToolTip(QStringLiteral("Pipeline parallel: the layers split into this many stages, one GPU each."));
  util_->setToolTip(
      QStringLiteral("The share of each GPU's memory the engine may use (vLLM's "
                     "gpu_memory_utilization; 0.9 = 90%)."));
  reserve_->setToolTip(
      QStringLiteral("Memory per GPU the runtime keeps outside the KV cache: CUDA context, "
                     "activations and CUDA graphs (\"auto\": the modelled budget of vLLM V1, SGLang "
                     "and TensorRT-LLM, 1 GiB for llama.cpp)."));
  weights_->setToolTip(
      QStringLiteral("The whole model's weights in bytes (\"auto\": from the architecture "
                     "and the weight dtype), split over tp x pp."));
  engine_->setToolTip(
      QStringLiteral("Whose allocation rules size the KV cache: ideal is the exact layout, "
                     "the others follow each engine's own source (pages, windows, buffers)."));
  layout->addWidget(deploy_box);

  // The engine's options: only the rows of the chosen engine are shown (syncEngineOptions).
  auto* engine_box = new QGroupBox(QStringLiteral("Engine options"));
  engine_box_ = engine_box;
  engine_form_ = new QFormLayout(engine_box);
  engine_version_ = new QComboBox;
  engine_version_->setObjectName(QStringLiteral("engine_version"));
  // One row per record of core's engine option table (EngineRows), then vLLM's fp8_ds_mla cache dtype.
  fp8_ds_mla_ = new QCheckBox(QStringLiteral("fp8_ds_mla cache (656 B per MLA layer)"));
  fp8_ds_mla_->setObjectName(QStringLiteral("fp8_ds_mla"));
  kv_memory_ = new QLineEdit;
  kv_memory_->setObjectName(QStringLiteral("kv_memory"));
  kv_memory_->setPlaceholderText(QStringLiteral("auto (from the GPU)"));
  kv_memory_->setToolTip(
      QStringLiteral("KV-cache memory per GPU as the engine logs it (vLLM: \"Available KV cache memory\"): "
                     "a size, or auto"));
  engine_form_->addRow(QStringLiteral("vers&ion"), engine_version_);
  engine_rows_ = new EngineRows(engine_form_, this);
  engine_form_->addRow(QString(), fp8_ds_mla_);
  engine_form_->addRow(QStringLiteral("KV memory per GPU"), kv_memory_);
  // In an area as tall as the tallest group (keepEngineRowsHeight): the rows change, the panel does not.
  engine_area_ = new QWidget;
  auto* engine_area = new QVBoxLayout(engine_area_);
  engine_area->setContentsMargins(0, 0, 0, 0);
  engine_area->addWidget(engine_box);
  engine_area->addStretch(1);
  layout->addWidget(engine_area_);
  layout->addStretch(1);

  const auto send_options = [this] { controller_->setEngineOptions(engineOptionsShown()); };
  connect(engine_version_, &QComboBox::currentIndexChanged, this, send_options);
  connect(engine_rows_, &EngineRows::edited, this, send_options);
  connect(fp8_ds_mla_, &QCheckBox::toggled, this, send_options);
  connect(kv_memory_, &QLineEdit::editingFinished, this, [this] {
    const auto& now = controller_->inputs().kv_memory;
    if (kv_memory_->text() != (now ? size_input_text(*now) : QString()))
      controller_->setKvMemory(kv_memory_->text());
  });

  connect(gpu_, &QComboBox::currentIndexChanged, this, [this](int index) {
    const QString id = gpu_->itemData(index).toString();
    if (id.isEmpty())
      controller_->setGpuMemory(gpu_memory_->text());
    else
      controller_->selectGpu(id);
  });
  connect(gpu_memory_, &QLineEdit::editingFinished, this, [this] {
    const Bytes now = controller_->inputs().gpu ? controller_->inputs().gpu->memory : Bytes{0};
    if (gpu_memory_->text() != size_input_text(now)) controller_->setGpuMemory(gpu_memory_->text());
  });
  connect(gpus_, &QSpinBox::valueChanged, this,
          [this](int v) { controller_->setGpuCount(static_cast<std::uint64_t>(v)); });
  connect(tp_, &QSpinBox::valueChanged, this,
          [this](int v) { controller_->setTensorParallel(static_cast<std::uint64_t>(v)); });
  connect(pp_, &QSpinBox::valueChanged, this,
          [this](int v) { controller_->setPipelineParallel(static_cast<std::uint64_t>(v)); });
  connect(util_, &QDoubleSpinBox::valueChanged, controller_, &Controller::setUtilization);
  connect(reserve_, &QLineEdit::editingFinished, this, [this] { controller_->setReserve(reserve_->text()); });
  connect(weights_, &QLineEdit::editingFinished, this, [this] { controller_->setWeights(weights_->text()); });
  connect(engine_, &QComboBox::currentTextChanged, controller_, &Controller::setEngine);
  connect(context_slider_, &QSlider::valueChanged, this,
          [this](int pos) { controller_->setContext(context_for_slider(pos)); });
  connect(context_, &CountBox::textCommitted, controller_, &Controller::setContextText);
  connect(users_, &CountBox::textCommitted, controller_, &Controller::setUsersText);
  return panel;
}

QWidget* MainWindow::buildResults() {
  auto* box = new QWidget;
  auto* row = new QHBoxLayout(box);
  row->setContentsMargins(0, 0, 0, 0);
  auto* table = new QTableView;
  results_view_ = table;
  table->setObjectName(QStringLiteral("results"));
  table->setModel(results_);
  table->verticalHeader()->hide();
  table->verticalHeader()->setDefaultSectionSize(21);
  // Sized on reset only: ResizeToContents would measure every label again at each value change.
  table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
  table->horizontalHeader()->setStretchLastSection(true);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table->setTabKeyNavigation(false);
  row->addWidget(table, 3);
  // Every row in sight: the table is as tall as its rows (they change only with the kind of plan).
  const auto fit_rows = [table] {
    // Wide enough for the labels with large numbers in them, which change without a reset.
    table->resizeColumnToContents(0);
    // With a baseline, its column keeps the width its short texts need and the value column takes the
    // rest (a long value elides, its tooltip is whole): the changes stay in sight at 1366 x 768.
    const bool compared = table->model()->columnCount() > 2;
    table->horizontalHeader()->setStretchLastSection(!compared);
    table->horizontalHeader()->setSectionResizeMode(
        1, compared ? QHeaderView::Stretch : QHeaderView::Interactive);
    if (compared) {
      table->resizeColumnToContents(2);
      const int change_room = table->fontMetrics().horizontalAdvance(QStringLiteral("+1,000,000")) + 16;
      if (table->columnWidth(2) < change_room) table->setColumnWidth(2, change_room);
    }
    const int room =
        table->fontMetrics().horizontalAdvance(QStringLiteral("KV per GPU (1,000,000 users per replica)")) +
        16;
    if (table->columnWidth(0) < room) table->setColumnWidth(0, room);
    table->setFixedHeight(table->horizontalHeader()->sizeHint().height() +
                          table->verticalHeader()->defaultSectionSize() * table->model()->rowCount() +
                          2 * table->frameWidth());
  };
  fit_rows();
  connect(results_, &QAbstractItemModel::modelReset, table, fit_rows);

  auto* side = new QVBoxLayout;
  // Plain text in fixed-height labels: a moving slider changes their text, not the layout.
  fits_banner_ = new QLabel;
  fits_banner_->setObjectName(QStringLiteral("fits"));
  fits_banner_->setTextFormat(Qt::PlainText);
  QFont big = fits_banner_->font();
  big.setPointSizeF(big.pointSizeF() * 1.6);
  big.setBold(true);
  fits_banner_->setFont(big);
  fits_banner_->setFixedHeight(fits_banner_->sizeHint().height() + 16);
  fits_banner_->setAutoFillBackground(true);
  fits_banner_->setMargin(6);
  fits_banner_->setMinimumWidth(320);
  side->addWidget(fits_banner_);
  limit_ = new QLabel;
  limit_->setObjectName(QStringLiteral("limit"));
  limit_->setTextFormat(Qt::PlainText);
  limit_->setWordWrap(true);
  limit_->setFixedHeight(limit_->fontMetrics().lineSpacing() * 3 + 8);
  limit_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  side->addWidget(limit_);
  warnings_ = new QLabel;
  warnings_->setObjectName(QStringLiteral("warnings"));
  warnings_->setTextFormat(Qt::PlainText);
  warnings_->setWordWrap(true);
  warnings_->setFixedHeight(limit_->fontMetrics().lineSpacing() * 3 + 8);
  warnings_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  warnings_->setStyleSheet(QStringLiteral("QLabel { color: #9a5b00; }"));
  side->addWidget(warnings_);
  side->addWidget(new QLabel(QStringLiteral("Same figures from the command line:")));
  // A label, not a text editor: it changes with every context step and a label relayouts cheaply.
  command_ = new QLabel;
  command_->setObjectName(QStringLiteral("command"));
  command_->setTextFormat(Qt::PlainText);
  command_->setWordWrap(true);
  command_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  command_->setFrameShape(QFrame::StyledPanel);
  command_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  command_->setMargin(4);
  command_->setFixedHeight(command_->fontMetrics().lineSpacing() * 4 + 12);
  side->addWidget(command_);
  auto* copy = new QPushButton(QStringLiteral("Copy as command"));
  side->addWidget(copy);
  measured_label_ = new QLabel;
  measured_label_->setWordWrap(true);
  side->addWidget(measured_label_);
  // The lines the engine itself prints for this plan (as `kvplan size --engine` does): what to hold
  // against a running server's log.
  engine_log_ = new QPlainTextEdit;
  engine_log_->setObjectName(QStringLiteral("engine_log"));
  engine_log_->setReadOnly(true);
  engine_log_->setTabChangesFocus(true);
  engine_log_->setLineWrapMode(QPlainTextEdit::NoWrap);
  engine_log_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  engine_log_->setPlaceholderText(
      QStringLiteral("The engine's own log lines show here under vllm, sglang, "
                     "llamacpp or trtllm rules."));
  engine_log_->setToolTip(
      QStringLiteral("What the engine itself logs for this plan: compare it with a running "
                     "server's log."));
  engine_log_->setFixedHeight(engine_log_->fontMetrics().lineSpacing() * 4 + 12);
  side->addWidget(engine_log_);
  side->addStretch(1);
  row->addLayout(side, 2);
  connect(copy, &QPushButton::clicked, this, &MainWindow::copyCommand);
  return box;
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
  QAction* open = file->addAction(QStringLiteral("&Open (preset, config.json or scenario)..."), this,
                                  &MainWindow::openDialog);
  open->setShortcut(QKeySequence::Open);
  file->addAction(QStringLiteral("Open &model (GGUF file or config.json)..."), this,
                  &MainWindow::openModelDialog);
  file->addAction(QStringLiteral("Open model &folder..."), this, &MainWindow::openFolderDialog);
  QMenu* recent = file->addMenu(QStringLiteral("Open &Recent"));
  recent->setObjectName(QStringLiteral("recent_menu"));
  recent_ = new RecentFiles(recent, this);
  connect(recent_, &RecentFiles::chosen, this, &MainWindow::openPath);
  connect(recent_, &RecentFiles::missing, this, [this](const QString& path) {
    showError(QStringLiteral("Open Recent: %1 is no longer there; it was taken off the list.").arg(path));
  });
  QAction* save = file->addAction(QStringLiteral("&Save scenario..."), this, &MainWindow::saveDialog);
  save->setShortcut(QKeySequence::Save);
  file->addSeparator();
  file->addAction(QStringLiteral("Load measured prefill points..."), this, &MainWindow::measuredDialog);
  file->addAction(QStringLiteral("Clear measured prefill points"), controller_,
                  &Controller::clearMeasuredPrefill);
  file->addSeparator();
  QMenu* png = file->addMenu(QStringLiteral("&Export chart (PNG, SVG)"));
  for (int c = 0; c < ChartPanel::kCount; ++c)
    png->addAction(ChartPanel::chartName(static_cast<ChartPanel::Chart>(c)) + QStringLiteral("..."), this,
                   [this, c] { exportDialog(c); })
        ->setObjectName(QStringLiteral("export_chart_%1").arg(c));
  file->addAction(QStringLiteral("Export re&port (HTML, PDF)..."), this, &MainWindow::exportReportDialog)
      ->setObjectName(QStringLiteral("export_report"));
  file->addSeparator();
  QAction* quit = file->addAction(QStringLiteral("&Quit"), this, &QWidget::close);
  quit->setShortcuts(keys_with(QKeySequence::Quit, QKeySequence(QStringLiteral("Ctrl+Q"))));

  QMenu* edit = menuBar()->addMenu(QStringLiteral("&Edit"));
  QAction* undo = controller_->undoStack()->createUndoAction(this, QStringLiteral("&Undo"));
  undo->setShortcuts(keys_with(QKeySequence::Undo, QKeySequence(QStringLiteral("Ctrl+Z"))));
  QAction* redo = controller_->undoStack()->createRedoAction(this, QStringLiteral("&Redo"));
  redo->setShortcuts(keys_with(QKeySequence::Redo, QKeySequence(QStringLiteral("Ctrl+Shift+Z"))));
  edit->addAction(undo);
  edit->addAction(redo);
  edit->addSeparator();
  QAction* copy = edit->addAction(QStringLiteral("&Copy as command"), this, &MainWindow::copyCommand);
  copy->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+C")));
  buildCompareMenu();
}

void MainWindow::syncInputs() {
  const Scenario& s = controller_->scenario();
  const PlanInputs& in = s.inputs;
  // Plain text in two labels: a rich-text label lays out a whole text document at each change.
  if (model_title_->text() != controller_->modelTitle()) model_title_->setText(controller_->modelTitle());
  const QString source = QString::fromStdString(in.model.source);
  if (model_source_->text() != source) model_source_->setText(source);
  {
    const QSignalBlocker block(preset_list_->selectionModel());
    const int row = s.source.kind == ModelSource::Kind::preset
                        ? presets_->rowOf(QString::fromStdString(s.source.ref))
                        : -1;
    const QModelIndex index = preset_filter_->mapFromSource(presets_->index(row, 0));
    if (index.isValid())
      preset_list_->setCurrentIndex(index);
    else
      preset_list_->clearSelection();
  }
  const auto set_combo = [](QComboBox* box, const QString& text) {
    const QSignalBlocker block(box);
    box->setCurrentText(text);
  };
  syncKvDtypes(in);
  {
    const QSignalBlocker block(weight_dtype_);
    const QString loaded =
        QStringLiteral("as in the checkpoint (%1)").arg(controller_->checkpointWeightLabel());
    if (weight_dtype_->itemText(0) != loaded) weight_dtype_->setItemText(0, loaded);
    weight_dtype_->setCurrentIndex(
        controller_->weightDtypeAsLoaded() ? 0 : weight_dtype_->findText(qstr(name(in.model.weight_dtype))));
  }
  set_combo(engine_, qstr(name(in.engine.engine)));
  syncEngineOptions(in);
  {
    const QSignalBlocker block(gpu_);
    const int i = gpu_->findData(QString::fromStdString(s.gpu_preset));
    gpu_->setCurrentIndex(i >= 0 ? i : gpu_->count() - 1);
  }
  const auto set_text = [](QLineEdit* edit, const QString& text) {
    const QSignalBlocker block(edit);
    edit->setText(text);
  };
  set_text(gpu_memory_, in.gpu ? size_input_text(in.gpu->memory) : QString());
  set_text(reserve_, in.deployment.reserve ? size_input_text(*in.deployment.reserve) : QString());
  set_text(weights_, in.deployment.weights ? size_input_text(*in.deployment.weights) : QString());
  const auto set_spin = [](QSpinBox* box, std::uint64_t v) {
    const QSignalBlocker block(box);
    box->setValue(clamp_int(v));
  };
  const Parallelism& p = in.deployment.parallel;
  set_spin(gpus_, p.tp * p.pp * p.dp);
  set_spin(tp_, p.tp);
  set_spin(pp_, p.pp);
  context_->setValue(in.context.value);
  users_->setValue(in.users);
  // llama.cpp has no tensor parallelism (core refuses --tp there); an engine switch moves tp to pp.
  const bool tp_ok = controller_->engineTakesTensorParallel();
  if (tp_->isEnabled() != tp_ok) {
    tp_->setEnabled(tp_ok);
    tp_->setToolTip(tp_ok ? QString()
                          : QStringLiteral("llama.cpp splits layers across GPUs, not heads: use pipeline "
                                           "parallel (pp)."));
  }
  {
    const QSignalBlocker block(util_);
    // The fraction the plan applied: the user's, or the engine's default (SGLang's depends on the GPU and
    // tp).
    util_->setValue(applied_gpu_utilization(controller_->plan()));
  }
  if (!context_slider_->isSliderDown()) {
    const QSignalBlocker block(context_slider_);
    context_slider_->setValue(slider_for_context(in.context.value));
  }
  QString why;
  const QString line = controller_->commandLine(&why);
  const QString command =
      line.isEmpty() ? QStringLiteral("(not expressible: ") + why + QStringLiteral(")") : line;
  if (command_->text() != command) command_->setText(command);
  const QString measured =
      controller_->measuredPath().isEmpty()
          ? QString()
          : QStringLiteral("Measured prefill overlay: %1").arg(controller_->measuredPath());
  if (measured_label_->text() != measured) measured_label_->setText(measured);
}

void MainWindow::syncEngineOptions(const PlanInputs& in) {
  const EngineOptions& o = in.engine;
  const Engine e = o.engine;
  if (e != engine_shown_ || engine_version_->count() == 0) {
    engine_shown_ = e;
    const QSignalBlocker block(engine_version_);
    engine_version_->clear();
    const auto versions = engine_versions(e);
    for (std::size_t i = 0; i < versions.size(); ++i)
      engine_version_->addItem(i == 0 ? qstr(std::string(versions[i]) + " (default)") : qstr(versions[i]),
                               i == 0 ? QString() : qstr(versions[i]));
  }
  {
    const QSignalBlocker block(engine_version_);
    const int i = engine_version_->findData(qstr(o.version));
    if (i >= 0) engine_version_->setCurrentIndex(i);
  }
  showEngineRows(o);
  keepEngineRowsHeight(false);
  {
    const QSignalBlocker block(fp8_ds_mla_);
    fp8_ds_mla_->setChecked(o.fp8_ds_mla);
  }
  const QString kv = in.kv_memory ? size_input_text(*in.kv_memory) : QString();
  if (kv_memory_->text() != kv) {
    const QSignalBlocker block(kv_memory_);
    kv_memory_->setText(kv);
  }
}

void MainWindow::showEngineRows(const EngineOptions& o) {
  // The rows of the options that apply to this engine and version (core's table), holding its values.
  engine_form_->setRowVisible(engine_version_, !engine_versions(o.engine).empty());
  engine_rows_->show(o);
  engine_form_->setRowVisible(fp8_ds_mla_, o.engine == Engine::vllm);
}

void MainWindow::keepEngineRowsHeight(bool every_engine) {
  int tallest = engine_box_->sizeHint().height();
  if (every_engine) {
    // Measured as shown: polished (the style sets fonts and margins), hidden rows included.
    for (QWidget* w : engine_area_->findChildren<QWidget*>()) w->ensurePolished();
    // Each engine at each of its versions, then the rows of the scenario's engine again (syncInputs).
    for (const QString& engine : Controller::engines()) {
      EngineOptions o;
      o.engine = parse_engine(engine.toStdString());
      std::vector<std::string> versions{std::string()};
      for (const auto v : engine_versions(o.engine)) versions.emplace_back(v);
      for (const std::string& v : versions) {
        o.version = v;
        showEngineRows(o);
        tallest = std::max(tallest, engine_box_->sizeHint().height());
      }
    }
  }
  if (tallest > engine_area_->minimumHeight()) engine_area_->setMinimumHeight(tallest);
}

void MainWindow::syncKvDtypes(const PlanInputs& in) {
  const auto set_combo = [](QComboBox* box, const QString& text) {
    const QSignalBlocker block(box);
    box->setCurrentText(text);
  };
  set_combo(kv_dtype_, qstr(name(in.kv.k)));
  set_combo(k_dtype_, qstr(name(in.kv.k)));
  set_combo(v_dtype_, qstr(name(in.kv.v)));
  // K and V apart only where the engine takes two types, and always when they differ.
  const bool two_types = controller_->engineTakesTwoKvTypes();  // core's rule (ideal, llama.cpp)
  const bool apart = in.kv.k != in.kv.v || (two_types && split_kv_->isChecked());
  {
    const QSignalBlocker block(split_kv_);
    split_kv_->setChecked(apart);
  }
  split_kv_->setEnabled(two_types || apart);
  kv_dtype_->setEnabled(!apart);
  dtype_form_->setRowVisible(k_dtype_, apart);
  dtype_form_->setRowVisible(v_dtype_, apart);
  // The types the engine has no cache for, greyed out: checked again when the engine, its version or
  // the model changes (one make_plan per type).
  const QString key = qstr(name(in.engine.engine)) + '|' + qstr(in.engine.version) + '|' + qstr(in.model.id) +
                      '|' + controller_->modelTitle();
  if (key == kv_dtypes_key_) return;
  kv_dtypes_key_ = key;
  const auto types = all_dtypes();
  for (std::size_t i = 0; i < types.size(); ++i) {
    const bool ok = controller_->kvDtypeAccepted(types[i].type);
    for (QComboBox* box : {kv_dtype_, k_dtype_, v_dtype_})
      if (auto* items = qobject_cast<QStandardItemModel*>(box->model()))
        if (QStandardItem* item = items->item(static_cast<int>(i))) item->setEnabled(ok);
  }
}

EngineOptions MainWindow::engineOptionsShown() const {
  EngineOptions o;
  o.engine = controller_->inputs().engine.engine;
  o.version = engine_version_->currentData().toString().toStdString();
  engine_rows_->read(o);  // the rows that apply to this engine and version
  if (o.engine == Engine::vllm) o.fp8_ds_mla = fp8_ds_mla_->isChecked();
  return o;
}

void MainWindow::showPlan() {
  const Plan& p = controller_->plan();
  error_banner_->hide();
  error_banner_->clear();
  // Colours by palette: a style sheet change would re-polish the widget (a frame's worth of time).
  QString text = QStringLiteral("NO GPU");
  QColor background(0xee, 0xee, 0xee), foreground(0x20, 0x20, 0x20);
  if (p.has_gpu) {
    text = p.fits ? QStringLiteral("FITS") : QStringLiteral("DOES NOT FIT");
    std::tie(background, foreground) = verdict_colors(p.fits, is_dark(palette()));
  } else {
    background = palette().color(QPalette::AlternateBase);
    foreground = palette().color(QPalette::WindowText);
  }
  if (fits_banner_->text() != text || fits_banner_->palette().color(QPalette::Window) != background) {
    QPalette palette = fits_banner_->palette();
    palette.setColor(QPalette::Window, background);
    palette.setColor(QPalette::WindowText, foreground);
    fits_banner_->setPalette(palette);
    fits_banner_->setText(text);
  }
  const QString notice = controller_->notice().isEmpty()
                             ? QString()
                             : QStringLiteral("Changed to match: ") + controller_->notice();
  if (notice_->text() != notice) {
    notice_->setText(notice);
    notice_->setToolTip(notice);
    notice_->setVisible(!notice.isEmpty());
  }
  QStringList log;
  // Text from files (a model_type, a name) with its control and bidi characters escaped, as the CLI
  // prints it (kvplan::printable): a U+202E in a config reversed the warning on screen.
  for (const auto& line : p.engine.log_lines) log << QString::fromStdString(kvplan::printable(line));
  const QString log_text = log.join('\n');
  if (engine_log_->toPlainText() != log_text) engine_log_->setPlainText(log_text);
  const QString limit = QString::fromStdString(kvplan::describe_limit(p.limit, kvplan::UnitSystem::iec));
  if (limit_->text() != limit) limit_->setText(limit);
  QStringList warnings;
  for (const auto& w : p.warnings)
    warnings << QStringLiteral("warning: ") + QString::fromStdString(kvplan::printable(w));
  const QString warning_text = warnings.join('\n');
  if (warnings_->text() != warning_text) warnings_->setText(warning_text);
  ChartsData charts = describe_charts(controller_->figures(), controller_->modelTitle());
  if (const Figures* base = baseline_->figures()) add_baseline_lines(charts, *base);
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

// The Fit view: a dock under the explorer, hidden until asked for; a chosen row loads as one action.
void MainWindow::buildFitDock() {
  fit_ = new FitView(controller_);
  fit_dock_ = new QDockWidget(QStringLiteral("Fit: smallest deployments for this model and workload"), this);
  fit_dock_->setObjectName(QStringLiteral("fit_dock"));
  fit_dock_->setWidget(fit_);
  addDockWidget(Qt::BottomDockWidgetArea, fit_dock_);
  fit_dock_->hide();
  QAction* show = fit_dock_->toggleViewAction();
  show->setText(QStringLiteral("&Fit: search deployments"));
  show->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+F")));
  menuBar()->addMenu(QStringLiteral("&View"))->addAction(show);
  connect(fit_, &FitView::deploymentChosen, this, &MainWindow::loadFitRow);
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
  auto* sinks = spin("streaming_sinks", 0, 1 << 20);
  auto* recent = spin("streaming_recent", 1, 1 << 30);
  for (QSpinBox* s : {sinks, recent}) s->setKeyboardTracking(false);
  layout->addWidget(new QLabel(QStringLiteral("StreamingLLM curve on the KV chart: attention sinks")));
  layout->addWidget(sinks);
  layout->addWidget(new QLabel(QStringLiteral("+ recent window")));
  layout->addWidget(recent);
  layout->addWidget(new QLabel(QStringLiteral("tokens per full-attention layer")));
  layout->addStretch(1);
  const auto show = [this, sinks, recent] {
    const QSignalBlocker block_sinks(sinks), block_recent(recent);
    sinks->setValue(clamp_int(controller_->streamingSinkTokens()));
    recent->setValue(clamp_int(controller_->streamingRecentWindow()));
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
  const QString text = search_->text().trimmed();
  const bool repo = presets::is_hf_repo_id(text.toStdString());
  // One preset listed: the list's own Enter handler (pick, in buildInputs) loads it.
  if (text.isEmpty() || (preset_filter_->rowCount() == 1 && !repo)) return;
  // Several presets listed: loading the first would be a silent guess. The search box keeps the focus
  // and the status bar says how many match.
  if (preset_filter_->rowCount() > 1 && !repo) {
    statusBar()->showMessage(QStringLiteral("%1 presets match \"%2\": type more of the name, or pick one "
                                            "from the list")
                                 .arg(preset_filter_->rowCount())
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
  load_->setEnabled(false);
  hub_status_->setText(busy);
  hub_status_->show();
  statusBar()->showMessage(busy);
}

void MainWindow::hubFinished(const HubOutcome& outcome) {
  load_->setEnabled(true);
  hub_status_->hide();
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
