#include "kvplan/gui/inputs_panel.hpp"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPushButton>
#include <QShortcut>
#include <QSignalBlocker>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>
#include <climits>

#include "kvplan/format.hpp"
#include "kvplan/gui/context_scale.hpp"
#include "kvplan/gui/count_box.hpp"
#include "kvplan/gui/engine_rows.hpp"
#include "kvplan/gui/tables.hpp"
#include "kvplan/hf_hub.hpp"

namespace kvplan::gui {

QSpinBox* number_spin_box(const char* object_name, int lo, int hi) {
  auto* s = new QSpinBox;
  s->setObjectName(QLatin1String(object_name));
  s->setRange(lo, hi);
  s->setGroupSeparatorShown(true);
  return s;
}

int clamp_to_int(std::uint64_t v) {
  return v > static_cast<std::uint64_t>(INT_MAX) ? INT_MAX : static_cast<int>(v);
}

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
/// The combo's type; its items are all_dtypes() names, so the lookup cannot fail.
DType dtype_of(const QComboBox* box) {
  const auto types = all_dtypes();
  const auto i = static_cast<std::size_t>(std::max(0, box->currentIndex()));
  return i < types.size() ? types[i].type : DType::bf16;
}
/// A word-wrapped plain-text label (no rich-text layout) named `name`.
QLabel* wrapped_label(const QString& name) {
  auto* label = new QLabel;
  label->setObjectName(name);
  label->setWordWrap(true);
  label->setTextFormat(Qt::PlainText);
  return label;
}
}  // namespace

InputsPanel::InputsPanel(Controller* controller, QWidget* parent)
    : QScrollArea(parent), controller_(controller) {
  setObjectName(QStringLiteral("inputs_scroll"));
  groups_ = new LayerGroupsModel(controller_, this);
  presets_ = new PresetListModel(controller_->modelPresets(), this);
  setWidget(build());
  setWidgetResizable(true);
  setMinimumWidth(340);
  connect(controller_, &Controller::inputsChanged, this, &InputsPanel::sync);
  // A field focused by its mnemonic (Alt+U: users) or a shortcut is scrolled into sight: the pane may be
  // scrolled to the top while the field is at the bottom. A click focuses what is in sight already, and
  // scrolling then would move the field under the pointer, so a focus taken with a button down stays.
  connect(qApp, &QApplication::focusChanged, this, [this](QWidget*, QWidget* now) {
    if (now != nullptr && widget() != nullptr && widget()->isAncestorOf(now) &&
        QApplication::mouseButtons() == Qt::NoButton)
      ensureWidgetVisible(now);
  });
  keepEngineRowsHeight(true);
  sync();
}

QString InputsPanel::searchText() const { return search_->text().trimmed(); }

int InputsPanel::presetMatches() const { return preset_filter_->rowCount(); }

void InputsPanel::setFetchStatus(const QString& busy) {
  load_->setEnabled(busy.isEmpty());
  hub_status_->setText(busy);
  hub_status_->setVisible(!busy.isEmpty());
}

QWidget* InputsPanel::build() {
  auto* panel = new QWidget;
  auto* layout = new QVBoxLayout(panel);
  layout->addWidget(buildModelBox());
  layout->addWidget(buildArchitectureBox());
  layout->addWidget(buildDtypeBox());
  layout->addWidget(buildDeploymentBox());
  layout->addWidget(buildEngineBox());
  layout->addStretch(1);
  return panel;
}

QGroupBox* InputsPanel::buildModelBox() {
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
  connect(search_, &QLineEdit::textChanged, preset_filter_, &QSortFilterProxyModel::setFilterFixedString);
  connect(search_, &QLineEdit::returnPressed, this, &InputsPanel::searchSubmitted);
  const auto pick = [this](const QModelIndex& index) {
    // The window asks about unsaved edits first (MainWindow::mayDropEdits), then loads it or syncs back.
    if (index.isValid()) Q_EMIT presetPicked(index.data(PresetListModel::IdRole).toString());
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
    ensureWidgetVisible(search_);
    search_->setFocus(Qt::ShortcutFocusReason);
    search_->selectAll();
  });
  search_->setPlaceholderText(QStringLiteral("search presets (Ctrl+F; Enter loads a single match)"));
  connect(open, &QPushButton::clicked, this, &InputsPanel::openRequested);
  return model_box;
}

QGroupBox* InputsPanel::buildArchitectureBox() {
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
  connect(split, &QPushButton::clicked, this, [this] {
    const QModelIndex i = groups_view_->currentIndex();
    controller_->splitGroup(i.isValid() ? i.row() : 0);
  });
  connect(reset, &QPushButton::clicked, controller_, &Controller::resetArchitecture);
  return arch_box;
}

QGroupBox* InputsPanel::buildDtypeBox() {
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
  return dtype_box;
}

QGroupBox* InputsPanel::buildDeploymentBox() {
  // The deployment.
  auto* deploy_box = new QGroupBox(QStringLiteral("Deployment"));
  auto* form = new QFormLayout(deploy_box);
  gpu_ = new QComboBox;
  gpu_->setObjectName(QStringLiteral("gpu"));
  for (const auto& g : controller_->gpuPresets()) gpu_->addItem(QString(), QString::fromStdString(g.id));
  gpu_->addItem(QStringLiteral("custom memory"), QString());
  gpu_memory_ = new QLineEdit;
  gpu_memory_->setObjectName(QStringLiteral("gpu_memory"));
  gpu_memory_->setToolTip(QStringLiteral("memory per GPU: bytes, or with KiB/MiB/GiB/TiB or kB/MB/GB/TB"));
  gpus_ = number_spin_box("gpus", 1, 65536);
  tp_ = number_spin_box("tp", 1, 4096);
  pp_ = number_spin_box("pp", 1, 4096);
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
  return deploy_box;
}

QWidget* InputsPanel::buildEngineBox() {
  // The engine's options: only the rows of the chosen engine are shown (syncEngineOptions).
  auto* engine_box = new QGroupBox(QStringLiteral("Engine options"));
  engine_box_ = engine_box;
  engine_form_ = new QFormLayout(engine_box);
  engine_version_ = new QComboBox;
  engine_version_->setObjectName(QStringLiteral("engine_version"));
  // One row per record of core's engine option table (EngineRows), then vLLM's fp8_ds_mla cache dtype.
  // Short: "fp8_ds_mla cache (656 B per MLA layer)" made the panel 1 px wider than its pane at 1366 x 768
  // under vLLM alone, so each switch to or from vLLM showed or hid the panel's horizontal scroll bar and
  // laid out and painted the whole panel again (issue 27, the engine switch's 16 ms).
  fp8_ds_mla_ = new QCheckBox(QStringLiteral("fp8_ds_mla (656 B per MLA layer)"));
  fp8_ds_mla_->setToolTip(
      QStringLiteral("vLLM's fp8_ds_mla KV cache: 656 B per token on each MLA layer "
                     "(vllm/v1/kv_cache_interface.py MLAAttentionSpec)"));
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

  const auto send_options = [this] { controller_->setEngineOptions(engineOptionsShown()); };
  connect(engine_version_, &QComboBox::currentIndexChanged, this, send_options);
  connect(engine_rows_, &EngineRows::edited, this, send_options);
  connect(fp8_ds_mla_, &QCheckBox::toggled, this, send_options);
  connect(kv_memory_, &QLineEdit::editingFinished, this, [this] {
    const auto& now = controller_->inputs().kv_memory;
    if (kv_memory_->text() != (now ? size_input_text(*now) : QString()))
      controller_->setKvMemory(kv_memory_->text());
  });
  return engine_area_;
}

void InputsPanel::sync() {
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
  // The presets' memory in the unit the figures are shown in (View > Sizes in GB).
  if (!gpu_units_ || *gpu_units_ != s.units) {
    gpu_units_ = s.units;
    const auto& gpus = controller_->gpuPresets();
    for (std::size_t i = 0; i < gpus.size(); ++i)
      gpu_->setItemText(
          static_cast<int>(i),
          QStringLiteral("%1 (%2)").arg(qstr(gpus[i].name), qstr(format_bytes(gpus[i].memory, s.units))));
  }
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
    box->setValue(clamp_to_int(v));
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
}

void InputsPanel::syncEngineOptions(const PlanInputs& in) {
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

void InputsPanel::showEngineRows(const EngineOptions& o) {
  // The rows of the options that apply to this engine and version (core's table), holding its values.
  engine_form_->setRowVisible(engine_version_, !engine_versions(o.engine).empty());
  engine_rows_->show(o);
  engine_form_->setRowVisible(fp8_ds_mla_, o.engine == Engine::vllm);
}

void InputsPanel::keepEngineRowsHeight(bool every_engine) {
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

void InputsPanel::syncKvDtypes(const PlanInputs& in) {
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

EngineOptions InputsPanel::engineOptionsShown() const {
  EngineOptions o;
  o.engine = controller_->inputs().engine.engine;
  o.version = engine_version_->currentData().toString().toStdString();
  engine_rows_->read(o);  // the rows that apply to this engine and version
  if (o.engine == Engine::vllm) o.fp8_ds_mla = fp8_ds_mla_->isChecked();
  return o;
}

}  // namespace kvplan::gui
