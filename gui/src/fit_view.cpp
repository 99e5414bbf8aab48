#include "kvplan/gui/fit_view.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "kvplan/context_limit.hpp"
#include "kvplan/fit.hpp"
#include "kvplan/format.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/scenario.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/weights.hpp"

namespace kvplan::gui {

namespace {
QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }
QString bytes(Bytes b, UnitSystem units) { return qstr(format_bytes(b, units)); }
QString ms(double s) { return QStringLiteral("%1 ms").arg(s * 1e3, 0, 'f', 1); }
QString secs(double s) {
  return s < 1.0 ? QStringLiteral("%1 ms").arg(s * 1e3, 0, 'f', 0) : QStringLiteral("%1 s").arg(s, 0, 'f', 2);
}

/// The spin box's value as a count; 0 stands for "any".
std::uint64_t count_of(const QSpinBox* box) { return static_cast<std::uint64_t>(std::max(0, box->value())); }

/// Runs fit, catching its errors: nothing may leave the worker thread.
FitOutcome run_fit(const FitRequest& request, std::uint64_t id) {
  FitOutcome out;
  out.id = id;
  QElapsedTimer timer;
  timer.start();
  try {
    out.result = fit(request);
  } catch (const std::exception& e) {
    out.error = error_text(e);
  }
  out.seconds = static_cast<double>(timer.nsecsElapsed()) * 1e-9;
  return out;
}
}  // namespace

FitRequest fit_request(const Scenario& s, const FitChoices& c, const std::vector<Gpu>& presets) {
  const PlanInputs& in = s.inputs;
  FitRequest r;
  r.model = served_model(s);
  // As the CLI's fit: the checkpoint's weights and the engine's quantisation at load, unless a weight
  // dtype was chosen (then that one alone); a row's type loads through with_fit_row.
  r.search_weight_dtypes = !weight_dtype_overridden(s);
  r.context = in.context;
  r.users = in.users;
  r.engine = in.engine;
  r.deployment = in.deployment;
  r.deployment.parallel = Parallelism{};
  r.max_gpus = c.max_gpus;
  if (c.tp != 0) r.tp = {c.tp};
  if (c.pp != 0) r.pp = {c.pp};
  if (c.kv == FitChoices::Kv::explorer) r.kv_dtypes = {in.kv};
  r.top = c.top;
  if (c.price_per_gpu_hour > 0) r.price_per_gpu_hour = c.price_per_gpu_hour;
  if (c.max_ttft_s > 0) r.max_ttft_s = c.max_ttft_s;
  if (c.max_tpot_s > 0) r.max_tpot_s = c.max_tpot_s;
  for (const auto& g : presets)
    if (c.gpu.empty() || g.id == c.gpu) r.gpus.push_back(g);
  if (r.gpus.empty())
    throw Error("gpu",
                c.gpu.empty() ? std::string("no GPU presets to search") : "no GPU preset '" + c.gpu + "'");
  return r;
}

Scenario with_fit_row(const Scenario& s, const FitRow& row) {
  const PlanInputs& in = row.plan.inputs;
  Scenario out = s;
  if (in.gpu) {
    out.inputs.gpu = in.gpu;
    out.gpu_preset = in.gpu->id;
  }
  out.inputs.deployment.parallel = in.deployment.parallel;
  out.inputs.kv.k = in.kv.k;
  out.inputs.kv.v = in.kv.v;
  if (in.model.weight_dtype != out.inputs.model.weight_dtype)
    set_weight_dtype(out.inputs.model, in.model.weight_dtype);
  out.inputs.kv_memory.reset();
  return out;
}

QString fit_kv_text(const KvDtypes& t) {
  return t.k == t.v ? qstr(name(t.k)) : qstr(name(t.k)) + '/' + qstr(name(t.v));
}

void FitTableModel::setRows(std::vector<FitRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

void FitTableModel::setUnits(UnitSystem units) {
  if (units == units_) return;
  units_ = units;
  if (!rows_.empty()) Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, kColumns - 1));
}

int FitTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int FitTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumns; }

QVariant FitTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const FitRow& r = rows_[static_cast<std::size_t>(index.row())];
  const Plan& p = r.plan;
  const Parallelism& par = p.inputs.deployment.parallel;
  const auto& s = r.speed;
  if (role == Qt::TextAlignmentRole)
    return index.column() <= WeightDtype || index.column() == Launch
               ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
               : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole && index.column() == Launch) return qstr(r.launch);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case GpuId: return p.inputs.gpu ? qstr(p.inputs.gpu->id) : QString();
    case Gpus: return qstr(format_count(p.gpus));
    case Layout: return QStringLiteral("%1 x %2 x %3").arg(par.tp).arg(par.pp).arg(par.dp);
    case Kv: return fit_kv_text(p.inputs.kv);
    case WeightDtype: return qstr(weight_dtype_label(p.inputs.model));  // "mxfp4 experts, bf16 rest"
    case WeightsPerGpu: return bytes(p.per_gpu.weights_bytes, units_);
    case KvPerGpu: return bytes(p.per_gpu.kv_bytes_total, units_);
    case FreePerGpu: return bytes(p.per_gpu.free_bytes, units_);
    case MaxUsers: return qstr(format_count(p.max_users));
    // "*" past the engine's context limit, as the CLI's fit table marks it (the status line says why).
    case MaxContext:
      return p.max_context ? qstr(format_count(p.max_context->value)) +
                                 (past_max_position(p.inputs.model, *p.max_context, p.inputs.engine.engine)
                                      ? QStringLiteral("*")
                                      : QString())
                           : QStringLiteral("any");
    case Tpot: return s ? ms(s->tpot_s) : QStringLiteral("?");
    case TokensPerUser: return s ? QString::number(s->tokens_per_s_per_user, 'f', 1) : QStringLiteral("?");
    case TokensPerGpu: return s ? QString::number(s->tokens_per_s_per_gpu, 'f', 0) : QStringLiteral("?");
    case Ttft: return s ? secs(s->ttft_s) : QStringLiteral("?");
    case Cost:
      return r.cost_per_million_tokens ? QString::number(*r.cost_per_million_tokens, 'f', 3) : QString();
    case Launch: return qstr(r.launch);
    default: return {};
  }
}

QVariant FitTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (o == Qt::Vertical) return section + 1;
  static const char* const kHeaders[kColumns] = {"GPU",       "GPUs",        "tp x pp x dp", "KV",
                                                 "weights",   "weights/GPU", "KV/GPU",       "free/GPU",
                                                 "max users", "max context", "TPOT",         "tok/s/user",
                                                 "tok/s/GPU", "TTFT",        "cost/Mtok",    "launch"};
  return section >= 0 && section < kColumns ? QString::fromLatin1(kHeaders[section]) : QVariant();
}

QString fit_notes(const PlanInputs& in, const std::vector<FitRow>& rows) {
  QString out;
  const ModelSpec& m = in.model;
  const Engine engine = in.engine.engine;
  // What `kvplan fit` says under its table (cli/fit.cpp): the "*" of a max context past the engine's
  // limit, then the model's warnings and the context's.
  const bool past = std::any_of(rows.begin(), rows.end(), [&](const FitRow& r) {
    return r.plan.max_context && past_max_position(m, *r.plan.max_context, engine);
  });
  if (past) {
    const auto limit = context_limit(m, engine);
    if (engine == Engine::ideal || !limit)
      out += QStringLiteral(
                 "\n* max context past the model's %1 max_position_embeddings: what memory holds; "
                 "each engine derives its own limit")
                 .arg(qstr(format_count(m.max_position_embeddings)));
    else
      out += QStringLiteral("\n* max context past %1: what memory holds; %2")
                 .arg(qstr(limit->text), qstr(limit->effect));
  }
  std::vector<std::string> warnings = m.warnings;
  if (auto w = context_warning(m, in.context, engine)) warnings.push_back(std::move(*w));
  for (const auto& w : warnings) out += QStringLiteral("\nwarning: ") + qstr(printable(w));
  return out;
}

FitView::FitView(const Controller* controller, QWidget* parent) : QWidget(parent), controller_(controller) {
  model_ = new FitTableModel(this);
  model_->setUnits(controller_->units());
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  gpu_ = new QComboBox;
  gpu_->setObjectName(QStringLiteral("fit_gpu"));
  gpu_->addItem(QStringLiteral("every GPU preset"), QString());
  for (const auto& g : controller_->gpuPresets()) gpu_->addItem(qstr(g.name), qstr(g.id));
  const auto spin = [](const char* object_name, int hi, const char* any) {
    auto* s = new QSpinBox;
    s->setObjectName(QLatin1String(object_name));
    s->setRange(any != nullptr ? 0 : 1, hi);
    if (any != nullptr) s->setSpecialValueText(QLatin1String(any));
    s->setKeyboardTracking(false);
    return s;
  };
  max_gpus_ = spin("fit_max_gpus", static_cast<int>(kMaxFitGpus), nullptr);
  max_gpus_->setValue(64);
  tp_ = spin("fit_tp", 4096, "any");
  pp_ = spin("fit_pp", 4096, "any");
  kv_ = new QComboBox;
  kv_->setObjectName(QStringLiteral("fit_kv"));
  kv_->addItem(QStringLiteral("bf16, plus fp8 where the GPU has it"));
  kv_->addItem(QStringLiteral("the explorer's K and V dtypes"));
  const auto labelled = [row](const QString& text, QWidget* w) {
    row->addWidget(new QLabel(text));
    row->addWidget(w);
  };
  labelled(QStringLiteral("GPU"), gpu_);
  labelled(QStringLiteral("at most"), max_gpus_);
  row->addWidget(new QLabel(QStringLiteral("GPUs")));
  labelled(QStringLiteral("tp"), tp_);
  labelled(QStringLiteral("pp"), pp_);
  labelled(QStringLiteral("KV"), kv_);
  row->addStretch(1);
  layout->addLayout(row);
  // Price and service limits, as `kvplan fit --price --max-ttft --max-tpot` (0: none).
  auto* limits = new QHBoxLayout;
  const auto dspin = [](const char* object_name, double hi, int decimals, const char* none,
                        const QString& tip) {
    auto* s = new QDoubleSpinBox;
    s->setObjectName(QLatin1String(object_name));
    s->setRange(0, hi);
    s->setDecimals(decimals);
    s->setSpecialValueText(QLatin1String(none));
    s->setKeyboardTracking(false);
    s->setToolTip(tip);
    return s;
  };
  price_ =
      dspin("fit_price", 1000, 2, "none",
            QStringLiteral("Price of one GPU for an hour: rows are then ranked by cost per million output "
                           "tokens (price x GPUs / tokens per hour)."));
  max_ttft_ =
      dspin("fit_max_ttft", 3600, 2, "any",
            QStringLiteral("Keep the layouts whose time to first token is at most this, in seconds."));
  max_tpot_ = dspin("fit_max_tpot_ms", 10000, 1, "any",
                    QStringLiteral("Keep the layouts whose time per output token is at most this, in ms."));
  const auto limit = [limits](const QString& text, QWidget* w, const QString& unit) {
    limits->addWidget(new QLabel(text));
    limits->addWidget(w);
    if (!unit.isEmpty()) limits->addWidget(new QLabel(unit));
  };
  limit(QStringLiteral("price per GPU-hour"), price_, QString());
  limit(QStringLiteral("TTFT at most"), max_ttft_, QStringLiteral("s"));
  limit(QStringLiteral("TPOT at most"), max_tpot_, QStringLiteral("ms"));
  limits->addStretch(1);
  layout->addLayout(limits);
  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("fit_status"));
  status_->setTextFormat(Qt::PlainText);
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(status_);
  table_ = new QTableView;
  table_->setObjectName(QStringLiteral("fit_table"));
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setDefaultSectionSize(21);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setToolTip(QStringLiteral("click a row, or press Enter on it, to load it into the explorer"));
  layout->addWidget(table_, 1);

  connect(gpu_, &QComboBox::currentIndexChanged, this, &FitView::refresh);
  connect(kv_, &QComboBox::currentIndexChanged, this, &FitView::refresh);
  for (QSpinBox* s : {max_gpus_, tp_, pp_}) connect(s, &QSpinBox::valueChanged, this, &FitView::refresh);
  for (QDoubleSpinBox* s : {price_, max_ttft_, max_tpot_})
    connect(s, &QDoubleSpinBox::valueChanged, this, &FitView::refresh);
  connect(controller_, &Controller::planChanged, this, [this] {
    model_->setUnits(controller_->units());
    if (isVisible()) refresh();
  });
  const auto choose = [this](const QModelIndex& index) {
    if (index.isValid()) chooseRow(index.row());
  };
  connect(table_, &QTableView::clicked, this, choose);
  connect(table_, &QTableView::activated, this, choose);
  connect(&watcher_, &QFutureWatcher<FitOutcome>::finished, this, &FitView::finished);
}

FitView::~FitView() { watcher_.waitForFinished(); }

FitChoices FitView::choices() const {
  FitChoices c;
  c.gpu = gpu_->currentData().toString().toStdString();
  c.max_gpus = count_of(max_gpus_);
  c.tp = count_of(tp_);
  c.pp = count_of(pp_);
  c.kv = kv_->currentIndex() == 1 ? FitChoices::Kv::explorer : FitChoices::Kv::fit_default;
  c.price_per_gpu_hour = price_->value();
  c.max_ttft_s = max_ttft_->value();
  c.max_tpot_s = max_tpot_->value() / 1000.0;
  return c;
}

bool FitView::busy() const { return running_.has_value() || pending_; }

FitView::Key FitView::key() const {
  Key k{controller_->inputs(), choices()};
  // Fit searches these: they do not change its answer.
  k.inputs.gpu.reset();
  k.inputs.deployment.parallel = Parallelism{};
  k.inputs.kv_memory.reset();
  if (k.choices.kv != FitChoices::Kv::explorer) k.inputs.kv = KvDtypes{};
  return k;
}

void FitView::refresh() {
  if (running_) {
    pending_ = !(*running_ == key());
    return;
  }
  if (shown_ && *shown_ == key()) return;
  start();
}

void FitView::start() {
  pending_ = false;
  const Key k = key();
  FitRequest request;
  try {
    request = fit_request(controller_->scenario(), k.choices, controller_->gpuPresets());
  } catch (const std::exception& e) {
    shown_ = k;
    outcome_ = FitOutcome{{}, error_text(e), 0, ++next_id_};
    model_->setRows({});
    status_->setText(QStringLiteral("Fit: ") + outcome_.error);
    Q_EMIT searched();
    return;
  }
  running_ = k;
  status_->setText(QStringLiteral("Searching deployments..."));
  const std::uint64_t id = ++next_id_;
  watcher_.setFuture(QtConcurrent::run([request = std::move(request), id] { return run_fit(request, id); }));
}

void FitView::finished() {
  const Key answered = *running_;
  running_.reset();
  if (pending_) {  // the scenario or a choice moved on during the search: its answer is stale
    start();
    return;
  }
  outcome_ = watcher_.result();
  shown_ = answered;
  const FitResult& res = outcome_.result;
  const FitChoices& c = answered.choices;
  if (!outcome_.error.isEmpty()) {
    model_->setRows({});
    status_->setText(QStringLiteral("Fit: ") + outcome_.error);
  } else {
    const PlanInputs& in = answered.inputs;
    QString text =
        QStringLiteral("%1 x %2 tokens under %3 rules: %4 judged up to %5, %6 fit")
            .arg(qstr(format_count(in.users, "user", "users")), qstr(format_count(in.context.value)),
                 qstr(name(in.engine.engine)), qstr(format_count(res.candidates, "layout", "layouts")),
                 qstr(format_count(c.max_gpus, "GPU", "GPUs")), qstr(format_count(res.fitting)));
    text += c.price_per_gpu_hour > 0
                ? QStringLiteral(" (%1 ms). Ranked by cost per million output tokens at %2 per GPU-hour.")
                      .arg(outcome_.seconds * 1e3, 0, 'f', 0)
                      .arg(c.price_per_gpu_hour, 0, 'f', 2)
                : QStringLiteral(" (%1 ms). Ranked by fewest GPUs, then most free KV memory per GPU.")
                      .arg(outcome_.seconds * 1e3, 0, 'f', 0);
    if (res.rows.empty()) {
      text += '\n' + QString::fromStdString(res.nearest_note);
      std::vector<FitRow> nearest;
      if (res.nearest) nearest.push_back(*res.nearest);
      model_->setRows(std::move(nearest));
    } else {
      model_->setRows(res.rows);
    }
    text += fit_notes(in, model_->rows());
    status_->setText(text);
    table_->resizeColumnsToContents();
  }
  Q_EMIT searched();
}

bool FitView::chooseRow(int row) {
  // The nearest layout, shown when nothing fits, is loaded too: the explorer then shows what it lacks.
  if (row < 0 || row >= model_->rowCount()) return false;
  Q_EMIT deploymentChosen(
      with_fit_row(controller_->scenario(), model_->rows()[static_cast<std::size_t>(row)]));
  return true;
}

void FitView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  refresh();
}

}  // namespace kvplan::gui
