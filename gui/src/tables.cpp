#include "kvplan/gui/tables.hpp"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>
#include <algorithm>

#include "kvplan/fit.hpp"
#include "kvplan/format.hpp"
#include "kvplan/weights.hpp"

namespace kvplan::gui {

namespace {
QString qstr(const std::string& s) { return QString::fromStdString(s); }
QString count(std::uint64_t n) { return qstr(format_count(n)); }
/// "1 user", "16 users" (format_count's plural rule, as the CLI's).
QString count(std::uint64_t n, std::string_view one, std::string_view many) {
  return qstr(format_count(n, one, many));
}

/// The application's palette is a dark theme's (false without a GUI application: the tests' models).
bool dark_theme() {
  return qobject_cast<QGuiApplication*>(QCoreApplication::instance()) != nullptr &&
         is_dark(QGuiApplication::palette());
}

/// A row's value as shown and the exact figure behind it (text rows: the text alone).
struct Shown {
  Shown(QString t) : text(std::move(t)) {}  // NOLINT(google-explicit-constructor): most rows are text
  Shown(QString t, Quantity q) : text(std::move(t)), quantity(q) {}
  QString text;
  Quantity quantity;
};
Shown shown_bytes(Bytes b, UnitSystem units) { return {bytes_text(b, units), Quantity::of_bytes(b)}; }
Shown shown_count(std::uint64_t n) { return {count(n), Quantity::of_count(n)}; }

/// One sentence for the terms of the results table (issue 16, "words"); empty for a plain row.
QString row_tooltip(const QString& key) {
  if (key == QLatin1String("full_bytes_per_token"))
    return QStringLiteral(
        "what one token would need if no layer capped its cache (every sliding window "
        "and chunk as full attention)");
  if (key == QLatin1String("per_gpu.reserve_bytes"))
    return QStringLiteral(
        "memory per GPU the runtime keeps outside the KV cache (CUDA context, activations, "
        "CUDA graphs)");
  if (key == QLatin1String("per_gpu.usable_bytes"))
    return QStringLiteral("the GPU's memory times the utilisation (vLLM's gpu_memory_utilization)");
  if (key == QLatin1String("per_gpu.kv_bytes_total"))
    return QStringLiteral(
        "the KV cache of one replica's users on its fullest GPU (a replica is one copy of "
        "the model on tp x pp GPUs)");
  if (key == QLatin1String("ideal_kv_bytes_total") || key == QLatin1String("ideal_per_gpu_kv_bytes_total"))
    return QStringLiteral(
        "the same figure by kvplan's exact layout: what the model needs token by token, before the "
        "engine's pages, pools and rounding");
  if (key == QLatin1String("engine.rules"))
    return QStringLiteral("whose allocation rules size the KV cache, and the engine source they follow");
  return {};
}
}  // namespace

QString bytes_text(Bytes b, UnitSystem units) {
  return qstr(format_bytes(b, units)) + QStringLiteral(" (") + qstr(format_bytes_exact(b)) +
         QStringLiteral(")");
}

bool is_dark(const QPalette& palette) { return palette.color(QPalette::Window).lightness() < 128; }

std::pair<QColor, QColor> verdict_colors(bool good, bool dark) {
  // Either way the text keeps its contrast with the fill.
  if (good)
    return dark ? std::pair{QColor(0x1f, 0x4d, 0x1a), QColor(0xd8, 0xf5, 0xd0)}
                : std::pair{QColor(0xd8, 0xf5, 0xd0), QColor(0x1e, 0x5a, 0x12)};
  return dark ? std::pair{QColor(0x6b, 0x1d, 0x1d), QColor(0xfa, 0xd4, 0xd4)}
              : std::pair{QColor(0xfa, 0xd4, 0xd4), QColor(0x8a, 0x1f, 0x11)};
}

QString size_input_text(Bytes b) {
  // The shortest exact text among the binary and decimal units (parse_bytes reads both): "40GB"
  // rather than "39062500KiB", "80GiB" rather than "85899345920".
  static constexpr std::pair<std::uint64_t, const char*> units[] = {
      {1ULL << 40, "TiB"},      {1ULL << 30, "GiB"},   {1ULL << 20, "MiB"}, {1ULL << 10, "KiB"},
      {1000000000000ULL, "TB"}, {1000000000ULL, "GB"}, {1000000ULL, "MB"},  {1000ULL, "kB"}};
  QString best = QString::number(b.value);
  for (const auto& [size, unit] : units)
    if (b.value != 0 && b.value % size == 0) {
      const QString text = QString::number(b.value / size) + QLatin1String(unit);
      if (text.size() < best.size()) best = text;
    }
  return best;
}

// ---------------------------------------------------------------------------------------------
// ResultsModel

ResultsModel::ResultsModel(const Controller* controller, QObject* parent)
    : QAbstractTableModel(parent), controller_(controller) {
  refresh();
  connect(controller_, &Controller::planChanged, this, &ResultsModel::refresh);
}

QList<ResultsModel::Row> ResultsModel::rowsOf(const Plan& p, UnitSystem units) {
  const PlanInputs& in = p.inputs;
  const PerGpu& g = p.per_gpu;
  QList<Row> rows;
  const auto bytes = [units](Bytes b) { return shown_bytes(b, units); };
  // Each value with the exact figure behind it, which the "vs baseline" column compares.
  const auto add = [&rows](const char* key, const QString& label, const Shown& value,
                           std::optional<bool> good = std::nullopt) {
    rows.push_back({QLatin1String(key), label, value.text, good, value.quantity, {}, {}});
  };
  // Under an engine's rules the per-token and per-sequence rows stay the exact layout's (what the model
  // needs, token by token); the totals, free memory and capacity are the engine's. Each row says which.
  const bool rules = in.engine.engine != Engine::ideal;
  const QString exact = rules ? QStringLiteral("exact layout, ") : QString();
  const QString engine_rules = QStringLiteral("%1 rules").arg(qstr(std::string(name(in.engine.engine))));
  add("bytes_per_token", QStringLiteral("bytes per token (%1%2 layers)").arg(exact, count(p.layers)),
      bytes(p.bytes_per_token));
  add("full_bytes_per_token", QStringLiteral("full bytes per token (%1never cap)").arg(exact),
      bytes(p.full_bytes_per_token));
  add("kv_bytes_per_sequence",
      QStringLiteral("per sequence (%1%2 tokens)").arg(exact, count(in.context.value)),
      bytes(p.kv_bytes_per_sequence));
  if (p.state_bytes_per_sequence != Bytes{0})
    add("state_bytes_per_sequence", QStringLiteral("recurrent state per sequence"),
        bytes(p.state_bytes_per_sequence));
  // The total and the per-GPU KV are the engine's (make_plan), as the CLI's size prints them; where the
  // exact layout differs, its figure follows on its own row, labelled so (cli/render.cpp).
  const QString rules_note = rules ? QStringLiteral(", ") + engine_rules : QString();
  add("kv_bytes_total",
      QStringLiteral("total (%1, all %2%3)")
          .arg(count(in.users, "user", "users"), count(p.gpus, "GPU", "GPUs"), rules_note),
      bytes(p.kv_bytes_total));
  if (rules && p.ideal_kv_bytes_total != p.kv_bytes_total)
    add("ideal_kv_bytes_total", QStringLiteral("  total by the exact layout (ideal)"),
        bytes(p.ideal_kv_bytes_total));
  add("per_gpu.kv_bytes_total",
      QStringLiteral("KV per GPU (%1 per replica%2)")
          .arg(count(g.users, "user", "users"), rules && p.has_gpu ? rules_note : QString()),
      bytes(g.kv_bytes_total));
  if (rules && p.ideal_per_gpu_kv_bytes_total != g.kv_bytes_total)
    add("ideal_per_gpu_kv_bytes_total", QStringLiteral("  KV per GPU by the exact layout (ideal)"),
        bytes(p.ideal_per_gpu_kv_bytes_total));
  // The dtypes and the parameters go in the label (it may elide: its tooltip is whole), the value stays a
  // figure: at 1366 x 768 with a baseline the value column has about 340 px. A GPU's weights as the engine
  // loads them (vision tower, RoPE caches, MXFP4 padding) can pass the model's count: then the value says
  // by how much, "65.9 GiB (model 60.7 GiB + 5.18 GiB)", not "65.9 GiB of 60.7 GiB" (the budget's notes name
  // what the engine adds). The dtypes as the CLI names them (weights.hpp weight_dtype_label): the
  // row said "bf16" for gpt-oss's MXFP4 experts.
  const bool share = g.weights_bytes <= p.weights_bytes;
  add("per_gpu.weights_bytes",
      p.weights_from_architecture ? QStringLiteral("weights per GPU (tp %1 x pp %2; %3; %4 parameters)")
                                        .arg(in.deployment.parallel.tp)
                                        .arg(in.deployment.parallel.pp)
                                        .arg(qstr(weight_dtype_label(in.model)), count(p.parameters))
                                  : QStringLiteral("weights per GPU (tp %1 x pp %2)")
                                        .arg(in.deployment.parallel.tp)
                                        .arg(in.deployment.parallel.pp),
      // Weights given as a size take no dtype (the CLI refuses --weight-dtype beside --weights): the
      // row named the weight dtype box's type as if it applied.
      Shown{
          qstr(format_bytes(g.weights_bytes, units)) +
              (share ? QStringLiteral(" of ") + qstr(format_bytes(p.weights_bytes, units))
                     : QStringLiteral(" (model ") + qstr(format_bytes(p.weights_bytes, units)) +
                           QStringLiteral(" + ") +
                           qstr(format_bytes(g.weights_bytes - p.weights_bytes, units)) + QLatin1Char(')')) +
              (p.weights_from_architecture ? QString()
                                           : QStringLiteral(", as given (the weight dtype does not apply)")),
          Quantity::of_bytes(g.weights_bytes)});
  const bool budget = p.has_gpu && !in.kv_memory && p.budget.modelled;
  const bool sglang = in.engine.engine == Engine::sglang;
  const bool trtllm = in.engine.engine == Engine::trtllm;
  // llama.cpp has no torch, no utilisation and no CUDA graphs in its budget: its one part is the compute
  // buffer (core/budget.hpp llamacpp_budget), and its memory the device's (requested_name).
  const bool llamacpp = in.engine.engine == Engine::llamacpp;
  add("per_gpu.reserve_bytes",
      !budget    ? QStringLiteral("reserve per GPU")
      : sglang   ? QStringLiteral("reserve per GPU (SGLang's is outside mem_fraction_static)")
      : llamacpp ? QStringLiteral("compute buffer per GPU (the engine's budget)")
                 : QStringLiteral("reserve per GPU (activation + non-torch + graphs)"),
      bytes(g.reserve_bytes));
  if (budget && llamacpp) {
    const RequestedName device = requested_name(in.engine.engine, p.budget);
    add("per_gpu.budget.total", QStringLiteral("  %1 (%2)").arg(qstr(device.name), qstr(device.basis)),
        bytes(p.budget.total));
    add("per_gpu.budget.activation", QStringLiteral("  compute buffer (llama.cpp sched_reserve)"),
        bytes(p.budget.activation));
  } else if (budget) {  // the engine's budget, component by component, in its own words (core/budget.hpp)
    // TensorRT-LLM's log: "device total memory", "Peak memory during memory usage profiling (torch +
    // non-torch)" (tensorrt_llm/_torch/pyexecutor/_util.py); vLLM's: total_gpu_memory, "PyTorch activation
    // peak memory", non_torch_memory (vllm/v1/worker/gpu_worker.py).
    const QString total = trtllm ? QStringLiteral("device total memory") : QStringLiteral("total_gpu_memory");
    add("per_gpu.budget.total",
        p.budget.runtime_total ? QStringLiteral("  %1 (torch's)").arg(total)
                               : QStringLiteral("  %1 (nvidia-smi's; torch's unknown)").arg(total),
        bytes(p.budget.total));
    if (sglang) {
      add("per_gpu.budget.non_torch", QStringLiteral("  held before the weights load (CUDA, NCCL)"),
          bytes(p.budget.non_torch));
    } else {
      add("per_gpu.budget.activation",
          trtllm ? QStringLiteral("  activation peak (profile run of max_num_tokens)")
                 : QStringLiteral("  PyTorch activation peak (profile run)"),
          bytes(p.budget.activation));
      add("per_gpu.budget.non_torch",
          trtllm ? QStringLiteral("  outside torch (CUDA context, NCCL)")
                 : QStringLiteral("  non_torch_memory"),
          bytes(p.budget.non_torch));
      add("per_gpu.budget.cuda_graphs", QStringLiteral("  CUDA graphs (subtracted)"),
          bytes(p.budget.cuda_graphs));
    }
  }
  if (p.has_gpu) {
    if (in.kv_memory) {
      add("per_gpu.available_kv_bytes", QStringLiteral("KV memory per GPU (given)"),
          bytes(g.available_kv_bytes));
    } else {
      const RequestedName device = requested_name(in.engine.engine, p.budget);
      add("per_gpu.usable_bytes",
          budget && (llamacpp || trtllm)
              ? QStringLiteral("%1 per GPU (%2)").arg(qstr(device.name), qstr(device.basis))
              : (!budget  ? QStringLiteral("usable per GPU (memory x %1)")
                 : sglang ? QStringLiteral("requested per GPU (free before the weights load x %1)")
                          : QStringLiteral("requested per GPU (total_gpu_memory x %1)"))
                    .arg(qstr(format_shortest(applied_gpu_utilization(p)))),
          bytes(g.usable_bytes));
      add("per_gpu.available_kv_bytes", QStringLiteral("available for KV per GPU"),
          bytes(g.available_kv_bytes));
    }
    add("per_gpu.free_bytes", QStringLiteral("free after KV per GPU"), bytes(g.free_bytes));
    add("fits", QStringLiteral("fits"),
        Shown{p.fits ? QStringLiteral("YES") : QStringLiteral("NO"), Quantity::of_verdict(p.fits)}, p.fits);
    add("limit", QStringLiteral("limit"), qstr(kvplan::describe_limit(p.limit, units)), p.fits);
    add("max_users", QStringLiteral("max users at %1 tokens").arg(count(in.context.value)),
        Shown{count(p.max_users), Quantity::of_count(p.max_users)}, p.max_users >= in.users);
    add("max_context", QStringLiteral("max context for %1").arg(count(in.users, "user", "users")),
        // Past the engine's context limit it is marked, as the CLI's size marks it (core/src/fit.cpp).
        Shown{p.max_context ? qstr(max_context_text(in.model, *p.max_context, in.engine.engine))
                            : QStringLiteral("unbounded (every layer windowed)"),
              Quantity::of_tokens(p.max_context)},
        !p.max_context || p.max_context->value >= in.context.value);
  } else {
    add("limit", QStringLiteral("limit"), qstr(kvplan::describe_limit(p.limit, units)));
  }
  if (in.engine.engine != Engine::ideal) {
    const EngineResult& e = p.engine;
    add("engine.rules", QStringLiteral("engine rules"), qstr(e.rules));
    if (e.bytes_per_token)
      // llama.cpp's figure is a cell's K and V over every layer, whatever the devices (engine_llamacpp.cpp:
      // "per cell, every layer"); under pp each device holds only its layers' share of it.
      add("engine.bytes_per_token",
          in.engine.engine == Engine::llamacpp
              ? QStringLiteral("engine bytes per cell (every layer, all devices)")
              : QStringLiteral("engine bytes per token per GPU"),
          bytes(*e.bytes_per_token));
    if (e.block_size != 0)
      add("engine.block_size", QStringLiteral("engine block"),
          e.page_bytes == Bytes{0}
              ? QStringLiteral("%1 tokens").arg(count(e.block_size))
              : QStringLiteral("%1 tokens, %2").arg(count(e.block_size), bytes_text(e.page_bytes, units)));
    if (!e.caches.empty())
      add("engine.kv_bytes_total", QStringLiteral("engine KV buffers per GPU"), bytes(e.kv_bytes_total));
    if (e.num_blocks)
      add("engine.num_blocks", QStringLiteral("engine blocks per GPU"), shown_count(*e.num_blocks));
    if (e.kv_cache_tokens)
      add("engine.kv_cache_tokens", QStringLiteral("engine KV cache (tokens)"),
          shown_count(*e.kv_cache_tokens));
    if (e.max_concurrency)
      add("engine.max_concurrency",
          QStringLiteral("engine max concurrency at %1 tokens").arg(count(in.context.value)),
          Shown{qstr(format_fixed(*e.max_concurrency, 2)), Quantity::of_ratio(*e.max_concurrency)});
  }
  return rows;
}

void ResultsModel::setBaseline(const Baseline* baseline) {
  baseline_ = baseline;
  connect(baseline_, &Baseline::changed, this, &ResultsModel::refresh);
  refresh();
}

bool ResultsModel::engineScoped(const QString& key) {
  // The reserve is vLLM's activation + non-torch + graphs, SGLang's reserve, llama.cpp's compute buffer;
  // the requested memory is total x utilisation, free x utilisation or the device's; the budget's parts
  // and the engine's own rows (a vLLM block against an SGLang token, a llama.cpp cell over every device)
  // are each engine's.
  return key == QLatin1String("per_gpu.reserve_bytes") || key == QLatin1String("per_gpu.usable_bytes") ||
         key.startsWith(QLatin1String("per_gpu.budget.")) || key.startsWith(QLatin1String("engine."));
}

void ResultsModel::refresh() {
  const UnitSystem units = controller_->units();
  const Plan& now = controller_->plan();
  QList<Row> rows = rowsOf(now, units);
  const Figures* base = baseline_ != nullptr ? baseline_->figures() : nullptr;
  if (base != nullptr) {
    const QList<Row> before = rowsOf(base->plan, units);
    const Engine base_engine = base->plan.inputs.engine.engine;
    const bool other_engine = base_engine != now.inputs.engine.engine;
    for (Row& r : rows) {
      const auto it =
          std::find_if(before.begin(), before.end(), [&r](const Row& b) { return b.key == r.key; });
      if (other_engine && engineScoped(r.key)) {
        // Under one key, two engines' figures measure different things: no change is computed (and a row
        // the baseline's engine has not, vLLM's CUDA graphs under llama.cpp, is not "missing" from it).
        r.change = QStringLiteral("other engine");
        r.change_detail =
            it == before.end()
                ? QStringLiteral("not compared: the baseline's engine, %1, has no such figure")
                      .arg(qstr(std::string(name(base_engine))))
                : QStringLiteral("not compared: the baseline's row is %1's \"%2\": %3")
                      .arg(qstr(std::string(name(base_engine))), it->label.trimmed(), it->value);
        continue;
      }
      r.change = it == before.end() ? QStringLiteral("not in baseline")
                                    : change_text(r.quantity, it->quantity, r.value, it->value);
      r.change_detail = it == before.end()
                            ? QStringLiteral("not in the baseline's plan")
                            : change_text(r.quantity, it->quantity, r.value, it->value, true, units);
    }
  }
  const int columns = base != nullptr ? 3 : 2;

  // Same rows: new values in place (a reset would make the view lay out again).
  bool same_keys = rows.size() == rows_.size() && columns == columns_;
  for (qsizetype i = 0; same_keys && i < rows.size(); ++i) same_keys = rows[i].key == rows_[i].key;
  if (same_keys) {
    // Only the rows whose text or colour changed repaint.
    for (qsizetype i = 0; i < rows.size(); ++i) {
      Row& old = rows_[i];
      if (old.label == rows[i].label && old.value == rows[i].value && old.good == rows[i].good &&
          old.change == rows[i].change && old.change_detail == rows[i].change_detail)
        continue;
      old = std::move(rows[i]);
      Q_EMIT dataChanged(index(static_cast<int>(i), 0), index(static_cast<int>(i), columns - 1));
    }
    return;
  }
  beginResetModel();
  rows_ = std::move(rows);
  columns_ = columns;
  endResetModel();
}

int ResultsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int ResultsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : columns_; }

QVariant ResultsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rows_.size()) return {};
  const Row& r = rows_[index.row()];
  switch (role) {
    case Qt::DisplayRole: return index.column() == 0 ? r.label : index.column() == 1 ? r.value : r.change;
    case Qt::ToolTipRole: {
      if (index.column() == 2) return r.change_detail;
      const QString term = row_tooltip(r.key);
      return index.column() == 0 ? (term.isEmpty() ? r.label : r.label + QStringLiteral(": ") + term)
                                 : r.value;
    }
    case Qt::ForegroundRole:
      if (r.good && index.column() == 1) return QBrush(verdict_colors(*r.good, dark_theme()).second);
      return {};
    case KeyRole: return r.key;
    case Qt::BackgroundRole:
      if (r.good && index.column() == 1) return QBrush(verdict_colors(*r.good, dark_theme()).first);
      return {};
    case Qt::FontRole:
      if (r.key == QLatin1String("fits")) {
        QFont f;
        f.setBold(true);
        return f;
      }
      return {};
    default: return {};
  }
}

QVariant ResultsModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return {};
  if (section == 2 && role == Qt::ToolTipRole && baseline_ != nullptr)
    return QStringLiteral("Change against the pinned baseline: ") + baseline_->summary();
  if (role != Qt::DisplayRole) return {};
  if (section == 2) return QStringLiteral("vs baseline");
  return section == 0 ? QStringLiteral("figure") : QStringLiteral("value");
}

QString ResultsModel::value(const QString& key) const {
  for (const auto& r : rows_)
    if (r.key == key) return r.value;
  return {};
}

QString ResultsModel::change(const QString& key) const {
  for (const auto& r : rows_)
    if (r.key == key) return r.change;
  return {};
}

QString ResultsModel::label(const QString& key) const {
  for (const auto& r : rows_)
    if (r.key == key) return r.label;
  return {};
}

// ---------------------------------------------------------------------------------------------
// LayerGroupsModel

LayerGroupsModel::LayerGroupsModel(Controller* controller, QObject* parent)
    : QAbstractTableModel(parent), controller_(controller) {
  connect(controller_, &Controller::inputsChanged, this, [this] {
    // A context or deployment change leaves the table as it is; a dtype change only the last column.
    const auto& layers = controller_->inputs().model.layers;
    std::vector<Bytes> bytes;
    for (const auto& g : controller_->plan().groups) bytes.push_back(g.bytes_per_token_per_layer);
    if (layers == shown_layers_ && bytes == shown_bytes_) return;
    const bool same_rows = layers.size() == shown_layers_.size();
    shown_layers_ = layers;
    shown_bytes_ = std::move(bytes);
    if (same_rows && !layers.empty()) {
      Q_EMIT dataChanged(index(0, 0), index(static_cast<int>(layers.size()) - 1, ColumnCount - 1));
    } else {
      beginResetModel();
      endResetModel();
    }
  });
}

QStringList LayerGroupsModel::schemes() {
  return {QStringLiteral("full"), QStringLiteral("sliding"), QStringLiteral("chunked"),
          QStringLiteral("mla")};
}

int LayerGroupsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(controller_->inputs().model.layers.size());
}
int LayerGroupsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

namespace {
/// Whether a column applies to a layer of this kind.
bool applies(AttentionKind k, int column) {
  switch (column) {
    case LayerGroupsModel::Heads:
    case LayerGroupsModel::HeadDimK:
    case LayerGroupsModel::HeadDimV: return has_attention(k);
    case LayerGroupsModel::KvHeads: return has_attention(k) && k != AttentionKind::mla;
    case LayerGroupsModel::Window: return k == AttentionKind::sliding || k == AttentionKind::chunked;
    case LayerGroupsModel::KvLoraRank:
    case LayerGroupsModel::RopeDim: return k == AttentionKind::mla;
    default: return true;
  }
}

QString scheme_text(const AttentionLayer& a) {
  switch (a.kind) {
    case AttentionKind::mlp_only: return QStringLiteral("MLP only");
    case AttentionKind::recurrent: return QString::fromStdString(describe(a.recurrent));
    case AttentionKind::mla: return QStringLiteral("mla");
    default: {
      const QString grouping = a.num_key_value_heads == a.num_attention_heads ? QStringLiteral("MHA")
                               : a.num_key_value_heads == 1                   ? QStringLiteral("MQA")
                                                                              : QStringLiteral("GQA");
      return QString::fromUtf8(name(a.kind).data(), static_cast<qsizetype>(name(a.kind).size())) +
             QStringLiteral(" (") + grouping + QStringLiteral(")");
    }
  }
}
}  // namespace

QVariant LayerGroupsModel::data(const QModelIndex& index, int role) const {
  const auto& layers = controller_->inputs().model.layers;
  if (!index.isValid() || static_cast<std::size_t>(index.row()) >= layers.size()) return {};
  if (role != Qt::DisplayRole && role != Qt::EditRole && role != Qt::ToolTipRole) return {};
  const auto row = static_cast<std::size_t>(index.row());
  const LayerGroup& g = layers[row];
  const AttentionLayer& a = g.attention;
  if (!applies(a.kind, index.column())) return {};
  std::uint64_t first = 0;
  for (std::size_t i = 0; i < row; ++i) first += layers[i].count;
  switch (index.column()) {
    case Layers:
      return g.count == 1 ? QString::number(first)
                          : QStringLiteral("%1-%2").arg(first).arg(first + g.count - 1);
    case Count: return QVariant::fromValue<qulonglong>(g.count);
    case Scheme:
      return role == Qt::EditRole
                 ? QString::fromUtf8(name(a.kind).data(), static_cast<qsizetype>(name(a.kind).size()))
                 : scheme_text(a);
    case Heads: return QVariant::fromValue<qulonglong>(a.num_attention_heads);
    case KvHeads: return QVariant::fromValue<qulonglong>(a.num_key_value_heads);
    case HeadDimK: return QVariant::fromValue<qulonglong>(a.head_dim_k);
    case HeadDimV: return QVariant::fromValue<qulonglong>(a.head_dim_v);
    case Window: return QVariant::fromValue<qulonglong>(a.window);
    case KvLoraRank: return QVariant::fromValue<qulonglong>(a.kv_lora_rank);
    case RopeDim: return QVariant::fromValue<qulonglong>(a.qk_rope_head_dim);
    case BytesPerToken: {
      const auto& groups = controller_->plan().groups;
      if (row >= groups.size()) return {};
      return role == Qt::DisplayRole
                 ? count(groups[row].bytes_per_token_per_layer.value)
                 : QVariant::fromValue<qulonglong>(groups[row].bytes_per_token_per_layer.value);
    }
    default: return {};
  }
}

QVariant LayerGroupsModel::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  if (o == Qt::Vertical) return section + 1;
  // Short headers for a narrow panel; the tooltip says each in full.
  static const char* const names[][2] = {
      {"layers", "layer indices"},
      {"count", "layers in the group"},
      {"scheme",
       "attention scheme. MHA: one KV head per query head. GQA: groups "
       "of query heads share a KV head. MQA: all query heads share one KV "
       "head. MLA: one compressed latent per token instead of K and V "
       "(DeepSeek). sliding: a layer caches only the last `window` tokens. "
       "chunked: attention within fixed chunks of tokens."},
      {"heads", "query heads"},
      {"KV", "KV heads"},
      {"dim K", "key head dim"},
      {"dim V", "value head dim"},
      {"window",
       "sliding window: a layer caches only this many recent tokens "
       "(or the chunk size of chunked attention)"},
      {"LoRA", "MLA kv_lora_rank"},
      {"RoPE", "MLA qk_rope_head_dim"},
      {"B/tok", "KV bytes per token per layer"}};
  if (section < 0 || section >= ColumnCount) return {};
  return QString::fromLatin1(names[section][role == Qt::ToolTipRole ? 1 : 0]);
}

Qt::ItemFlags LayerGroupsModel::flags(const QModelIndex& index) const {
  const auto& layers = controller_->inputs().model.layers;
  if (!index.isValid() || static_cast<std::size_t>(index.row()) >= layers.size()) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  const AttentionKind k = layers[static_cast<std::size_t>(index.row())].attention.kind;
  const int c = index.column();
  const bool editable =
      c != Layers && c != BytesPerToken && applies(k, c) && !(c == Scheme && !has_attention(k));
  return editable ? f | Qt::ItemIsEditable : f;
}

bool LayerGroupsModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || role != Qt::EditRole) return false;
  const int row = index.row();
  if (index.column() == Scheme) {
    const QString s = value.toString().trimmed().toLower();
    for (const AttentionKind k :
         {AttentionKind::full, AttentionKind::sliding, AttentionKind::chunked, AttentionKind::mla})
      if (s == QString::fromUtf8(name(k).data(), static_cast<qsizetype>(name(k).size())))
        return controller_->setGroupKind(row, k);
    return false;
  }
  bool ok = false;
  const qulonglong v = value.toULongLong(&ok);
  if (!ok) return false;
  static constexpr std::pair<int, GroupField> fields[] = {{Count, GroupField::count},
                                                          {Heads, GroupField::heads},
                                                          {KvHeads, GroupField::kv_heads},
                                                          {HeadDimK, GroupField::head_dim_k},
                                                          {HeadDimV, GroupField::head_dim_v},
                                                          {Window, GroupField::window},
                                                          {KvLoraRank, GroupField::kv_lora_rank},
                                                          {RopeDim, GroupField::qk_rope_head_dim}};
  for (const auto& [column, field] : fields)
    if (column == index.column()) return controller_->setGroupValue(row, field, v);
  return false;
}

// ---------------------------------------------------------------------------------------------
// PresetListModel

PresetListModel::PresetListModel(const std::vector<presets::ModelPreset>& presets, QObject* parent)
    : QAbstractListModel(parent), presets_(presets) {}

int PresetListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(presets_.size());
}

QVariant PresetListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || static_cast<std::size_t>(index.row()) >= presets_.size()) return {};
  const auto& p = presets_[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole: return qstr(p.name) + QStringLiteral("  (") + qstr(p.id) + QStringLiteral(")");
    case Qt::ToolTipRole: return qstr(p.hf_repo);
    case IdRole: return qstr(p.id);
    case SearchRole: {
      QString s = qstr(p.id) + ' ' + qstr(p.name) + ' ' + qstr(p.hf_repo);
      for (const auto& a : p.aliases) s += ' ' + qstr(a);
      return s;
    }
    default: return {};
  }
}

int PresetListModel::rowOf(const QString& id) const {
  for (std::size_t i = 0; i < presets_.size(); ++i)
    if (qstr(presets_[i].id) == id) return static_cast<int>(i);
  return -1;
}

}  // namespace kvplan::gui
