#include "kvplan/plan.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>

#include "engine_common.hpp"
#include "kvplan/context_limit.hpp"
#include "kvplan/format.hpp"
#include "kvplan/kv_spec.hpp"
#include "kvplan/replicas.hpp"
#include "kvplan/serving_dtype.hpp"
#include "kvplan/weights.hpp"

namespace kvplan {

namespace {
/// Largest per-rank bytes of one sequence (KV + state) over the pipeline stages.
Bytes fullest_stage(const std::vector<StageBytes>& stages) {
  Bytes most{0};
  for (const auto& s : stages) most = std::max(most, s.kv_bytes + s.state_bytes);
  return most;
}
}  // namespace

Gpu custom_gpu(Bytes memory) {
  Gpu g;
  g.id = "custom";
  g.name = "custom GPU";
  g.memory = memory;
  return g;
}

Bytes usable_memory(Bytes memory, double utilization) {
  if (!std::isfinite(utilization) || utilization <= 0.0 || utilization > 1.0)
    throw Error("gpu_util", "must be in (0, 1]");
  const long double v =
      std::floor(static_cast<long double>(memory.value) * static_cast<long double>(utilization));
  return Bytes{std::min<std::uint64_t>(memory.value, static_cast<std::uint64_t>(v))};
}

std::uint64_t replicas_of(std::uint64_t gpus, std::uint64_t tp, std::uint64_t pp) {
  if (gpus == 0) throw Error("gpus", "must be positive");
  const std::uint64_t per_replica = checked_mul(tp, pp, "gpus");
  if (per_replica == 0 || gpus % per_replica != 0)
    throw Error("gpus", format_count(gpus) + " is not a multiple of tp x pp = " + format_count(per_replica));
  return gpus / per_replica;
}

double applied_gpu_utilization(const Plan& p) {
  if (p.inputs.deployment.gpu_memory_utilization) return *p.inputs.deployment.gpu_memory_utilization;
  return p.budget.utilization > 0.0 ? p.budget.utilization : kDefaultGpuUtilization;
}

Parallelism attention_parallelism(const Deployment& d) {
  const std::uint64_t n = d.dp_attention;
  if (n == 0) throw Error("dp_attention", "must be positive");
  if (n == 1) return d.parallel;
  if (d.parallel.tp % n != 0)
    throw Error("dp_attention", std::to_string(n) + " does not divide tp " + std::to_string(d.parallel.tp) +
                                    " (attention tp = tp / dp-attention)");
  Parallelism a = d.parallel;
  a.tp = d.parallel.tp / n;
  a.dp = checked_mul(d.parallel.dp, n, "gpus");
  return a;
}

Bytes dp_attention_weight_bytes(const Deployment& d, Bytes total, Bytes experts) {
  const Parallelism a = attention_parallelism(d);
  if (experts > total) throw Error("dp_attention", "routed experts exceed the weights");
  const std::uint64_t stages = d.parallel.pp;
  const std::uint64_t rest = ceil_div(total.value - experts.value, checked_mul(a.tp, stages, "gpus"));
  const std::uint64_t routed = ceil_div(experts.value, checked_mul(d.parallel.tp, stages, "gpus"));
  return Bytes{checked_add(rest, routed, "per_gpu.weights_bytes")};
}

std::optional<Tokens> max_context_for(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                      std::uint64_t users, Bytes available) {
  if (users == 0) throw Error("users", "must be positive");
  return make_policy(m, t, p, EngineOptions{})->max_context(users, available);
}

std::string describe_limit(const Limit& l, UnitSystem u) {
  const std::string where = l.kv_memory_given ? "KV memory" : "available per GPU";
  const std::string engine = std::string(name(l.engine));
  switch (l.kind) {
    case Limit::Kind::no_capacity: return "no GPU given: capacity not computed";
    case Limit::Kind::weights:
      if (l.kv_memory_given)  // the pool given is what the weights must share the GPU with
        return "weights (" + format_bytes(l.weights, u) + ") and the KV memory given (" +
               format_bytes(l.reserve, u) + ") exceed the GPU's memory (" + format_bytes(l.usable, u) +
               ") per GPU: the engine cannot allocate that pool; add GPUs (tp/pp) or give less KV memory";
      return "weights (" + format_bytes(l.weights, u) + ") and reserve (" + format_bytes(l.reserve, u) +
             ") exceed the usable memory (" + format_bytes(l.usable, u) +
             ") per GPU: add GPUs (tp/pp) or use a smaller weight dtype";
    case Limit::Kind::fits:
      return "fits: " + format_count(l.users, "user", "users") + " x " + format_count(l.context.value) +
             " tokens within " + format_bytes(l.available, u) + " " + where +
             (l.engine == Engine::ideal ? "" : " (" + engine + " rules)");
    case Limit::Kind::concurrency:
      if (l.engine == Engine::llamacpp)
        return "concurrency: llamacpp holds at most " + format_count(l.max_running) +
               " sequences per replica (LLAMA_MAX_SEQ: llama-server refuses more slots), " +
               format_count(l.users) + " asked; add replicas (the KV cache holds " +
               format_count(l.kv_max_users) + ")";
      return "concurrency: " + engine + " runs at most " + format_count(l.max_running) +
             (l.max_running == 1 ? " sequence" : " sequences") + " at once (max_num_seqs, per replica), " +
             format_count(l.users) + " asked; the others wait (the KV cache holds " +
             format_count(l.kv_max_users) + ")";
    case Limit::Kind::kv_cache:
      if (l.engine == Engine::ideal)
        return "KV cache: " + format_count(l.users, "user", "users") + " x " + format_count(l.context.value) +
               " tokens need " + format_bytes(l.needed, u) + " per GPU, only " +
               format_bytes(l.available, u) + " " + where;
      return "KV cache: under " + engine + " rules only " + format_count(l.max_users) +
             (l.max_users == 1 ? " request of " : " requests of ") + format_count(l.context.value) +
             " tokens fit in " + format_bytes(l.available, u) + " " + where + ", " + format_count(l.users) +
             " asked";
  }
  return "?";
}

PreparedModel::PreparedModel(const ModelSpec& m) : m_(&m) {
  validate(m);
  layers_ = num_layers(m);
  // Each group against the classes so far: O(groups x classes), so past kMaxAttentionClasses (a model of many
  // distinct layers, where merging gains little) the model is left unclassified and planned by group.
  classes_.reserve(m.layers.size());
  for (std::size_t i = 0; i < m.layers.size(); ++i) {
    std::size_t c = 0;
    while (c < class_first_.size() && !(m.layers[class_first_[c]].attention == m.layers[i].attention)) ++c;
    if (c == class_first_.size()) {
      if (c == kMaxAttentionClasses) {
        classes_.clear();
        class_layers_.clear();
        class_first_.clear();
        break;
      }
      class_first_.push_back(i);
      class_layers_.push_back(0);
    }
    classes_.push_back(static_cast<std::uint32_t>(c));
    class_layers_[c] += m.layers[i].count;  // at most num_layers, which validate has bounded
  }
  // Where each group starts, and each class's layers before each group, for class_layers_before.
  const std::size_t groups = classes_.size();
  group_first_.reserve(groups);
  class_prefix_.assign(class_first_.size() * (groups + 1), 0);
  std::uint64_t layer = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    group_first_.push_back(layer);
    layer += m.layers[g].count;
    for (std::size_t c = 0; c < class_first_.size(); ++c)
      class_prefix_[c * (groups + 1) + g + 1] =
          class_prefix_[c * (groups + 1) + g] + (classes_[g] == c ? m.layers[g].count : 0);
  }
  moe_ = std::any_of(m.layers.begin(), m.layers.end(),
                     [](const LayerGroup& g) { return g.mlp.num_experts > 0; });
  // Computed here whether or not a plan needs them; an overflow is thrown by the plan that does.
  try {
    parameters_ = parameter_count(m);
    active_parameters_ = active_parameter_count(m);
    weights_ = model_weight_bytes(m);
  } catch (const Error& e) {
    weights_error_ = e;
  }
  if (!moe_) return;
  try {
    experts_ = kvplan::routed_expert_weight_bytes(m);
  } catch (const Error& e) {
    experts_error_ = e;
  }
}

namespace {
/// The group holding `layer` (< the model's layers): the last that starts at or before it.
std::size_t group_of(const std::vector<std::uint64_t>& group_first, std::uint64_t layer) {
  return static_cast<std::size_t>(std::upper_bound(group_first.begin(), group_first.end(), layer) -
                                  group_first.begin()) -
         1;
}
}  // namespace

std::uint64_t PreparedModel::class_layers_before(std::size_t c, std::uint64_t layer) const {
  const std::size_t groups = group_first_.size();
  const std::uint64_t* prefix = class_prefix_.data() + c * (groups + 1);
  if (layer >= layers_) return prefix[groups];
  const std::size_t g = group_of(group_first_, layer);
  return prefix[g] + (classes_[g] == c ? layer - group_first_[g] : 0);
}

void PreparedModel::class_layers_before_all(std::uint64_t layer, std::uint64_t* out) const {
  const std::size_t groups = group_first_.size(), classes = class_layers_.size();
  if (layer >= layers_) {
    for (std::size_t c = 0; c < classes; ++c) out[c] = class_prefix_[c * (groups + 1) + groups];
    return;
  }
  const std::size_t g = group_of(group_first_, layer);
  for (std::size_t c = 0; c < classes; ++c)
    out[c] = class_prefix_[c * (groups + 1) + g] + (classes_[g] == c ? layer - group_first_[g] : 0);
}

std::uint64_t PreparedModel::parameters() const {
  if (weights_error_) throw *weights_error_;
  return parameters_;
}
std::uint64_t PreparedModel::active_parameters() const {
  if (weights_error_) throw *weights_error_;
  return active_parameters_;
}
Bytes PreparedModel::architecture_weight_bytes() const {
  if (weights_error_) throw *weights_error_;
  return weights_;
}
Bytes PreparedModel::routed_expert_weight_bytes() const {
  if (experts_error_) throw *experts_error_;
  return experts_;
}

std::optional<std::string> context_warning(const ModelSpec& m, Tokens context, Engine engine,
                                           bool long_context_allowed) {
  const auto l = context_limit(m, engine);
  if (!l || context <= l->tokens) return std::nullopt;
  if (engine == Engine::ideal)
    return "context " + format_count(context.value) + " exceeds the model's max_position_embeddings " +
           format_count(l->tokens.value);
  if (long_context_allowed && !l->env.empty())
    return "context " + format_count(context.value) + " passes " + l->text + ": " + l->env +
           " is set: the engine takes it, past the length the config gives";
  return "context " + format_count(context.value) + " passes " + l->text + ": " + l->effect;
}

namespace {
/// compute(), with an overflow named by the figure it happened in (its --json key), not by the
/// arithmetic's generic "bytes".
template <class F>
auto figure(const char* name, const F& compute) {
  try {
    return compute();
  } catch (const Error& e) {
    if (e.field() != "bytes") throw;
    throw Error(name, e.reason());
  }
}

/// The units the exact layout's figures are summed over: the model's attention classes when it has
/// them (each class's figures once, times its layers: gpt-oss-120b's 36 groups are 2 classes), else its
/// layer groups. Unit i's attention layer and layer count; `of_group(g)` is the unit of layer group g.
struct Units {
  const PreparedModel& pm;
  [[nodiscard]] bool classes() const { return pm.attention_class_count() != 0; }
  [[nodiscard]] std::size_t size() const {
    return classes() ? pm.attention_class_count() : pm.model().layers.size();
  }
  [[nodiscard]] const AttentionLayer& attention(std::size_t i) const {
    return classes() ? pm.attention_class(i) : pm.model().layers[i].attention;
  }
  [[nodiscard]] std::uint64_t layers(std::size_t i) const {
    return classes() ? pm.attention_class_layers()[i] : pm.model().layers[i].count;
  }
  [[nodiscard]] std::size_t of_group(std::size_t g) const {
    return classes() ? pm.attention_classes()[g] : g;
  }
};

/// Whether a GPU preset is not another vendor's: its name does not start with AMD, Intel, Apple, Google
/// or Huawei (the presets name the vendor first: "AMD Instinct MI300X 192GB"). A preset named otherwise
/// counts as NVIDIA's.
bool nvidia_gpu(const Gpu& gpu) {
  std::string first = gpu.name.substr(0, gpu.name.find(' '));
  for (char& c : first) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* other : {"amd", "intel", "apple", "google", "huawei"})
    if (first == other) return false;
  return true;
}

/// AWQ and GPTQ weights under tensor parallel, as vLLM loads them (and SGLang, with vLLM's linear methods):
/// a row-parallel layer (attention's o_proj, a dense MLP's or the shared experts' down_proj) holds
/// input / tp rows on each rank, and `input_size_per_partition % group_size != 0` is refused: "The input
/// size is not aligned with the quantized weight shape. This can be caused by too large tensor parallel
/// size." (vllm/model_executor/layers/quantization/awq.py AWQLinearMethod.create_weights, gptq.py
/// GPTQLinearMethod.create_weights). The readers check tp 1 (presets check_quantized_widths); this is the
/// same rule at the plan's tp. Routed experts are built by the fused-MoE methods, not checked here.
void check_quantized_tp(const ModelSpec& m, std::uint64_t tp) {
  const WeightQuant& q = m.quant;
  if (tp <= 1 || !quant_applies(m) || q.group_size == 0 ||
      (q.method != WeightQuant::Method::awq && q.method != WeightQuant::Method::gptq))
    return;
  const auto check = [&](std::uint64_t width, const char* what) {
    if (width == 0) return;
    const std::string method = q.method == WeightQuant::Method::awq ? "AWQ" : "GPTQ";
    if (width % tp != 0)
      throw Error("tp", format_count(tp) + ": the " + method + " weights of " + what +
                            " have an input width of " + format_count(width) +
                            ", which tp does not divide (vLLM's RowParallelLinear)");
    if ((width / tp) % q.group_size != 0)
      throw Error("tp", format_count(tp) + ": " + what + " gets " + format_count(width) + " / " +
                            format_count(tp) + " = " + format_count(width / tp) +
                            " input values per GPU, not a multiple of the " + method + " group_size " +
                            format_count(q.group_size) +
                            ": vLLM refuses it (the input size is not aligned with the quantized weight "
                            "shape; a smaller tp, or a checkpoint padded for this tp)");
  };
  for (const auto& g : m.layers) {
    const AttentionLayer& a = g.attention;
    if (q.attention && has_attention(a.kind))
      check(checked_mul(a.num_attention_heads, a.head_dim_v, "weights"), "attention's o_proj");
    const MlpSpec& e = g.mlp;
    if (q.mlp && e.num_experts == 0) check(e.intermediate_size, "a dense MLP's down_proj");
    if (q.shared_experts && e.num_experts > 0 && e.num_shared_experts > 0)
      check(checked_mul(e.num_shared_experts, e.shared_intermediate_size, "weights"),
            "the shared experts' down_proj");
  }
}

/// The checks before any figure: the parallelism against the model, DP attention's conditions (an
/// engine that has it, a MoE model), a positive context and user count. Returns the KV cache's
/// parallelism (attention_parallelism).
Parallelism check_inputs(const PreparedModel& pm, const PlanInputs& in) {
  const ModelSpec& m = pm.model();
  // Under DP attention, dp x N attention ranks of tp / N GPUs, each with its own sequences; the rest of
  // the plan is generic over it.
  Parallelism par = attention_parallelism(in.deployment);
  par.split = pipeline_split(in.engine.engine);  // the stages as the engine splits them
  if (par.tp == 0 || par.pp == 0 || par.dp == 0) validate_parallelism(m, par);  // names the zero
  // validate_parallelism's checks unit by unit (Units): with classes, the first group that fails is the
  // first of its class, and the classes are in the order of their first groups, so the same error comes
  // first.
  const Units units{pm};
  for (std::size_t i = 0; i < units.size(); ++i) validate_tp(units.attention(i), par.tp);
  check_pipeline_stages(pm.layers(), par.pp, m.draft_layers);
  if (in.engine.engine == Engine::vllm || in.engine.engine == Engine::sglang) check_quantized_tp(m, par.tp);
  // TensorRT-LLM runs on NVIDIA GPUs only (CUDA and its TensorRT kernels); a preset named by another
  // vendor (AMD Instinct, Intel Gaudi) is refused, so fit leaves it out of a trtllm search.
  if (in.engine.engine == Engine::trtllm && in.gpu && !nvidia_gpu(*in.gpu))
    throw Error("gpu", in.gpu->name + ": TensorRT-LLM runs on NVIDIA GPUs only");
  if (in.deployment.dp_attention > 1) {
    if (in.engine.engine == Engine::llamacpp)
      throw Error("dp_attention", "applies to `engine` ideal, vllm, sglang or trtllm");
    if (!pm.moe())
      throw Error("dp_attention", "needs a mixture-of-experts model (expert parallel); " + m.name +
                                      " is dense: its data-parallel replicas are `gpus`");
  }
  if (in.context.value == 0) throw Error("context", "must be positive");
  if (in.users == 0) throw Error("users", "must be positive");
  // The KV memory given is what the engine reports per GPU: it cannot exceed the GPU it is on.
  if (in.kv_memory && in.gpu && *in.kv_memory > in.gpu->memory)
    throw Error("kv_memory", format_bytes(*in.kv_memory, UnitSystem::iec) + " per GPU is more than the " +
                                 in.gpu->name + "'s " + format_bytes(in.gpu->memory, UnitSystem::iec));
  return par;
}

/// The model's attention classes, for the engine policies (engine_detail::class_stage_views).
engine_detail::GroupClasses group_classes(const PreparedModel& pm) { return {&pm}; }

/// The exact layout's sums over the model (bytes_per_token, full_bytes_per_token, kv_bytes_per_sequence
/// and state_bytes_per_sequence of kv.hpp), unit by unit (Units), from each layer's KV specs. The one path
/// of these figures. Returns false, setting nothing, when a figure or a sum passes 2^64 or a layer's
/// figure throws: name_overflow then throws the error, named as the walk group by group names it (a
/// unit's figure is the sum of its groups', so it passes 2^64 only where theirs or their sum does).
bool exact_sums(Plan& p, const PreparedModel& pm, const PlanInputs& in) {
  using engine_detail::add;
  using engine_detail::mul;
  const Units units{pm};
  std::optional<std::uint64_t> bpt = 0, full = 0, kv = 0, state = 0;
  try {
    for (std::size_t i = 0; i < units.size(); ++i) {
      const LayerKv l = layer_kv(units.attention(i), in.kv);
      const std::uint64_t n = units.layers(i);
      const auto per_token = mul(l.bytes_per_token().value, n);
      const auto k = per_token ? mul(*per_token, l.cached_tokens(in.context).value) : per_token;
      const auto st = mul(l.state_bytes().value, n);
      if (!k || !st) return false;
      bpt = bpt ? add(*bpt, *per_token) : bpt;
      if (l.kind == KvKind::full || l.kind == KvKind::mla) full = full ? add(*full, *per_token) : full;
      kv = kv ? add(*kv, *k) : kv;
      state = state ? add(*state, *st) : state;
    }
  } catch (const Error&) {
    return false;
  }
  if (!bpt || !full || !kv || !state) return false;
  p.bytes_per_token = Bytes{*bpt};
  p.full_bytes_per_token = Bytes{*full};
  p.kv_bytes_per_sequence = Bytes{*kv};
  p.state_bytes_per_sequence = Bytes{*state};
  return true;
}

/// per_gpu_sequence_bytes, unit by unit (engine_detail::for_each_class_stage: a stage's parts of each
/// attention class, or of each group without classes), each unit's per-layer figures worked out once for
/// every stage; nullopt when a figure passes 2^64 or throws (per_gpu_sequence_bytes then throws its own
/// error).
std::optional<std::vector<StageBytes>> exact_stage_bytes(const PreparedModel& pm, const PlanInputs& in,
                                                         const Parallelism& par) {
  using engine_detail::add;
  using engine_detail::mul;
  // Per unit, one layer on one rank: bytes per token, KV bytes at the context, state bytes.
  struct PerLayer {
    std::uint64_t bpt, kv, state;
  };
  const Units units{pm};
  std::vector<PerLayer> per_layer(units.size());
  std::vector<StageBytes> out;
  bool ok = true;
  try {
    for (std::size_t i = 0; i < units.size(); ++i) {
      const LayerKv l = layer_kv(units.attention(i), in.kv, par.tp);
      const std::uint64_t bpt = l.bytes_per_token().value;
      const auto kv = mul(bpt, l.cached_tokens(in.context).value);
      if (!kv) return std::nullopt;
      per_layer[i] = {bpt, *kv, l.state_bytes().value};
    }
    engine_detail::for_each_class_stage(
        pm.model(), par.pp, par.split, group_classes(pm),
        [&](const Stage& stage, std::span<const engine_detail::StagePart> parts) {
          if (!ok) return;
          if (out.empty()) out.reserve(par.pp);
          std::optional<std::uint64_t> bpt = 0, kv = 0, state = 0;
          for (const auto& part : parts) {
            const PerLayer& l = per_layer[units.of_group(part.group)];
            const auto b = mul(l.bpt, part.count), k = mul(l.kv, part.count), st = mul(l.state, part.count);
            bpt = bpt && b ? add(*bpt, *b) : std::nullopt;
            kv = kv && k ? add(*kv, *k) : std::nullopt;
            state = state && st ? add(*state, *st) : std::nullopt;
          }
          if (!bpt || !kv || !state) {
            ok = false;
            return;
          }
          out.push_back({stage, Bytes{*bpt}, Bytes{*kv}, Bytes{*state}});
        });
  } catch (const Error&) {
    return std::nullopt;
  }
  if (!ok) return std::nullopt;
  return out;
}

/// Each layer group's own figures (Plan::groups), in layer order; throws kvplan::Error naming the figure
/// that passes 2^64.
std::vector<GroupFigures> group_figures(const PlanInputs& in) {
  std::vector<GroupFigures> out;
  out.reserve(in.model.layers.size());
  std::uint64_t first = 0;
  for (const auto& g : in.model.layers) {
    const Bytes per_layer =
        figure("bytes_per_token", [&] { return layer_bytes_per_token(g.attention, in.kv); });
    const Bytes per_token = figure("bytes_per_token", [&] { return per_layer * g.count; });
    const Bytes kv =
        figure("kv_bytes_per_sequence", [&] { return per_token * cached_tokens(g.attention, in.context); });
    const Bytes state =
        figure("state_bytes_per_sequence", [&] { return layer_state_bytes(g.attention, in.kv) * g.count; });
    out.push_back(GroupFigures{g, first, per_layer, per_token, kv, state});
    first += g.count;
  }
  return out;
}

/// Throws the error exact_sums met, named as the walk group by group names it: each group's figures
/// first, then their sums in layer order, each overflow named by its figure. Not a second path of the
/// figures: it runs only when exact_sums could not give them.
[[noreturn]] void name_overflow(const PlanInputs& in, const std::vector<GroupFigures>* known) {
  const std::vector<GroupFigures> groups = known != nullptr ? *known : group_figures(in);
  Plan p;
  for (const auto& f : groups) {
    p.bytes_per_token = figure("bytes_per_token", [&] { return p.bytes_per_token + f.bytes_per_token; });
    const AttentionKind kind = f.group.attention.kind;
    if (kind == AttentionKind::full || kind == AttentionKind::mla)
      p.full_bytes_per_token =
          figure("full_bytes_per_token", [&] { return p.full_bytes_per_token + f.bytes_per_token; });
    p.kv_bytes_per_sequence =
        figure("kv_bytes_per_sequence", [&] { return p.kv_bytes_per_sequence + f.kv_bytes_per_sequence; });
    p.state_bytes_per_sequence = figure(
        "state_bytes_per_sequence", [&] { return p.state_bytes_per_sequence + f.state_bytes_per_sequence; });
  }
  throw Error("bytes_per_token", "overflows 64-bit arithmetic");  // exact_sums failed: some sum passes 2^64
}

/// The exact layout's figures: each layer group's (full detail), their sums over the model (exact_sums),
/// each pipeline stage's (exact_stage_bytes) and the users' KV over the deployment.
void layout_figures(Plan& p, const PreparedModel& pm, const PlanInputs& in, const Parallelism& par,
                    PlanDetail detail) {
  const ModelSpec& m = in.model;
  if (detail == PlanDetail::full) p.groups = group_figures(in);
  if (!exact_sums(p, pm, in)) name_overflow(in, detail == PlanDetail::full ? &p.groups : nullptr);
  auto stages = exact_stage_bytes(pm, in, par);
  p.stages =
      stages ? std::move(*stages)
             : figure("kv_bytes_total", [&] { return per_gpu_sequence_bytes(m, in.kv, in.context, par); });
  // replica_sequence_bytes x users, from the stages. One sequence over the replica fits in 64 bits
  // here; past it, the users are what is too many.
  const Bytes replica = figure("kv_bytes_total", [&] {
    Bytes sum{0};
    for (const auto& sb : p.stages) sum += (sb.kv_bytes + sb.state_bytes) * par.tp;
    return sum;
  });
  p.ideal_kv_bytes_total = figure("users", [&] { return replica * in.users; });
}

/// The whole model's weights, with the model's warnings and those about the weights. Weights read
/// from the checkpoint (GGUF tensor infos, safetensors headers) stand as given; --weights still wins;
/// else the architecture's.
void weight_figures(Plan& p, const PreparedModel& pm, const PlanInputs& in, PlanDetail detail) {
  const ModelSpec& m = in.model;
  const bool full = detail == PlanDetail::full;
  if (full) p.warnings = m.warnings;
  const std::optional<Bytes> given = in.deployment.weights ? in.deployment.weights : m.weights_bytes;
  p.weights_from_architecture = !given.has_value();
  if (!m.weights_unknown.empty()) {
    // KV figures never need the MLP or the vocabulary; capacity does need the weights.
    if (!given && in.gpu && !in.kv_memory)
      throw Error("weights", "the model's weights are unknown (" + m.weights_unknown +
                                 "): give the weights' size (`weights`) for a capacity plan");
    if (!given && full)
      p.warnings.push_back("the model's weights are unknown (" + m.weights_unknown +
                           "): counted as 0 B; give the weights' size");
    p.weights_bytes = given.value_or(Bytes{0});
  } else {
    p.parameters = pm.parameters();
    p.active_parameters = pm.active_parameters();
    p.weights_bytes = given.value_or(pm.architecture_weight_bytes());
    if (!given && m.hidden_size == 0 && full)
      p.warnings.push_back(
          "the model's weights are unknown (no hidden_size): counted as 0 B; give the weights' size");
  }
}

/// The weights the heaviest pipeline stage holds, of `weights` for the whole model: its layers' share of
/// the layer weights, the input embedding on the first stage and the LM head on the last, a copy of the
/// embedding when tied (vLLM's PPMissingLayer places embed_tokens on the first rank and lm_head on the
/// last, vllm/model_executor/models/llama.py LlamaModel and LlamaForCausalLM; SGLang and TensorRT-LLM
/// alike). The tables are counted at the embedding dtype and the rest split over the layers by parameters
/// (a checkpoint's exact bytes are split the same way). pp 1, or weights that do not cover the tables:
/// weights / pp.
Bytes heaviest_stage_weights(const ModelSpec& m, Bytes weights, std::uint64_t pp, PipelineSplit split) {
  const Bytes even{ceil_div(weights.value, pp)};
  if (pp <= 1 || m.hidden_size == 0) return even;
  const std::uint64_t h = m.hidden_size;
  const Bytes input =
      weight_bytes(checked_add(checked_mul(m.vocab_size, h, "weights"),
                               checked_mul(m.learned_position_embeddings, h, "weights"), "weights"),
                   m.embedding_dtype);
  const Bytes head = weight_bytes(checked_mul(m.vocab_size, h, "weights"), m.embedding_dtype);
  const Bytes tables = m.tie_word_embeddings ? input : input + head;
  if (tables.value == 0 || tables >= weights) return even;
  const Bytes rest = weights - tables;
  std::uint64_t total_layer_params = 0;
  for (const auto& g : m.layers)
    total_layer_params = checked_add(
        total_layer_params,
        checked_mul(checked_add(mixer_parameters(g.attention, h), mlp_parameters(g.mlp, h), "weights"),
                    g.count, "weights"),
        "weights");
  if (total_layer_params == 0) return even;
  Bytes most{0};
  const std::vector<StageView> views = stage_views(m, pp, split);
  for (std::size_t s = 0; s < views.size(); ++s) {
    std::uint64_t params = 0;
    for (const StageGroup& g : views[s].layers)
      params = checked_add(
          params,
          checked_mul(checked_add(mixer_parameters(g.attention, h), mlp_parameters(g.mlp, h), "weights"),
                      g.count, "weights"),
          "weights");
    // rest x params / total, exact in 128 bits.
    __extension__ typedef unsigned __int128 U128;
    const U128 share = static_cast<U128>(rest.value) * params / total_layer_params;
    Bytes stage{static_cast<std::uint64_t>(share)};
    if (s == 0) stage = stage + input;
    if (s + 1 == views.size()) stage = stage + head;
    most = std::max(most, stage);
  }
  return std::max(most, even);
}

/// One GPU's share: its sequences (ceil(users / dp)), the exact layout's bytes for them (fullest
/// stage), its weights (DP attention: dp_attention_weight_bytes) and reserve; warns when the context
/// passes the model's max_position_embeddings.
void per_gpu_figures(Plan& p, const PreparedModel& pm, const PlanInputs& in, const Parallelism& par,
                     PlanDetail detail) {
  const ModelSpec& m = in.model;
  PerGpu& g = p.per_gpu;
  g.users = ceil_div(in.users, par.dp);
  g.bytes_per_sequence = fullest_stage(p.stages);
  p.ideal_per_gpu_kv_bytes_total = figure("users", [&] { return g.bytes_per_sequence * g.users; });
  if (in.deployment.dp_attention <= 1) {
    g.weights_bytes =
        Bytes{ceil_div(heaviest_stage_weights(m, p.weights_bytes, par.pp, par.split).value, par.tp)};
  } else {
    // Given weights (--weights, a checkpoint's bytes) keep the architecture's routed-expert bytes.
    if (!m.weights_unknown.empty())
      throw Error("dp_attention",
                  "the model's routed-expert weights are unknown (" + m.weights_unknown + ")");
    const Bytes experts = pm.routed_expert_weight_bytes();
    if (experts > p.weights_bytes)
      throw Error("dp_attention", "the routed experts (" + format_bytes(experts, UnitSystem::iec) +
                                      " from the architecture) exceed the weights (" +
                                      format_bytes(p.weights_bytes, UnitSystem::iec) + ")");
    g.weights_bytes = dp_attention_weight_bytes(in.deployment, p.weights_bytes, experts);
  }
  g.reserve_bytes = in.deployment.reserve.value_or(kDefaultReserve);
  if (detail == PlanDetail::full)
    if (auto w = context_warning(m, in.context, in.engine.engine, in.engine.long_context_allowed))
      p.warnings.push_back(std::move(*w));
  if (detail == PlanDetail::full && m.quant.at_load && loads_checkpoint_before_quantising(in.engine))
    p.warnings.push_back(whole_load_reason(in.engine.engine) +
                         ": the GPUs must hold the unquantised weights first (the plan of the checkpoint "
                         "as given shows them)");
  // TensorRT-LLM's PyTorch backend runs FP8 on Hopper and Blackwell (nvidia.github.io/TensorRT-LLM,
  // features/quantization.html: "The default PyTorch backend supports FP4 and FP8 quantization on the latest
  // Blackwell and Hopper GPUs"): an fp8 cache or fp8 weights on a GPU without FP8 (an A100) are planned, with
  // a warning.
  const auto fp8 = [](DType t) { return t == DType::fp8_e4m3 || t == DType::fp8_e5m2; };
  if (detail == PlanDetail::full && in.engine.engine == Engine::trtllm && in.gpu && !in.gpu->fp8) {
    const bool kv = fp8(in.kv.k) || fp8(in.kv.v), weights = fp8(m.weight_dtype) || fp8(m.expert_weight_dtype);
    if (kv || weights)
      p.warnings.push_back("TensorRT-LLM runs " +
                           std::string(kv && weights ? "an FP8 KV cache and FP8 weights"
                                       : kv          ? "an FP8 KV cache"
                                                     : "FP8 weights") +
                           " on Hopper and Blackwell GPUs (its quantization docs); " + in.gpu->id +
                           " has no FP8: planned as asked, but the engine may not start with it");
  }
}

/// What the engine holds, whatever else is given: per GPU for the fullest replica (ceil(users / dp)
/// sequences), and over the deployment each replica's own users (users = q x dp + r: r replicas serve
/// q + 1, the rest q). An overflow names the users, or the context when one request passes 2^64 B.
void engine_totals(Plan& p, const EnginePolicy& policy, const PlanInputs& in, const Parallelism& par) {
  const auto overflow = [](const char* field) { return Error(field, "overflows 64-bit arithmetic"); };
  const auto per_gpu = policy.gpu_bytes(p.per_gpu.users, in.context);
  if (!per_gpu) throw overflow(policy.gpu_bytes(1, in.context) ? "users" : "context");
  p.per_gpu.kv_bytes_total = *per_gpu;
  const std::uint64_t q = in.users / par.dp, r = in.users % par.dp;
  // The replicas that take one user more: none when the users divide evenly (asking for q + 1 sequences
  // there refused one sequence whose double passes 2^64 B as a users overflow).
  const auto fuller = r == 0 ? std::optional<Bytes>(Bytes{0}) : policy.replica_bytes(q + 1, in.context);
  const auto rest = q == 0 ? std::optional<Bytes>(Bytes{0}) : policy.replica_bytes(q, in.context);
  if (!fuller || !rest) throw overflow(policy.replica_bytes(1, in.context) ? "users" : "context");
  p.kv_bytes_total = figure("users", [&] { return *fuller * r + *rest * (par.dp - r); });
}

/// Whether the engine's budget is modelled component by component (vLLM V1, SGLang and TensorRT-LLM,
/// without a reserve given).
bool modelled_budget(const PlanInputs& in) {
  if (in.deployment.reserve) return false;
  return (in.engine.engine == Engine::vllm && in.engine.version != "v0") ||
         in.engine.engine == Engine::sglang || in.engine.engine == Engine::trtllm ||
         in.engine.engine == Engine::llamacpp;
}

/// What a modelled budget is computed from: the plan's model, layout, GPU (with its name in full, as vLLM's
/// defaults read it: "a100"), utilisation, weights per GPU and engine.
BudgetInputs budget_inputs(const Plan& p, const PlanInputs& in, bool full) {
  const Gpu& gpu = *in.gpu;
  BudgetInputs b{in.model,
                 in.deployment.parallel,
                 {gpu.memory, gpu.runtime_memory, gpu.id},
                 in.deployment.gpu_memory_utilization,
                 p.per_gpu.weights_bytes,
                 in.engine,
                 in.deployment.weights.has_value(),
                 in.deployment.dp_attention};
  if (full) b.gpu.name += " " + gpu.name;
  return b;
}

/// The memory budget per GPU (budget.hpp): vLLM V1's, SGLang's or TensorRT-LLM's when modelled_budget, else
/// the flat reserve's. Its requested memory, weights as loaded and reserve become per_gpu's usable, weights
/// and reserve bytes. Lines and notes only in full.
void memory_budget(Plan& p, const PlanInputs& in, bool full) {
  PerGpu& g = p.per_gpu;
  if (modelled_budget(in)) {
    const BudgetInputs b = budget_inputs(p, in, full);
    p.budget = figure("per_gpu.budget", [&] {
      switch (in.engine.engine) {
        case Engine::sglang: return sglang_budget(b);
        case Engine::trtllm: return trtllm_budget(b);
        case Engine::llamacpp:  // its compute buffer follows the plan's context and sequences
          return llamacpp_budget(b, llamacpp_graph(in.model, in.engine, in.users, in.context.value));
        default: return vllm_budget(b);
      }
    });
    if (!full) {
      p.budget.lines.clear();
      p.budget.notes.clear();
    }
    g.usable_bytes = p.budget.requested;
    g.weights_bytes = p.budget.weights;  // as the engine loads them (vision tower, RoPE caches, padding)
    g.reserve_bytes = p.budget.reserve;
  } else {
    // The engine's default fraction when none is given: SGLang's own (its server applies it whatever the
    // reserve), the others' kDefaultGpuUtilization.
    const Parallelism& par = in.deployment.parallel;
    const double utilization =
        in.deployment.gpu_memory_utilization ? *in.deployment.gpu_memory_utilization
        : in.engine.engine == Engine::sglang
            ? sglang_default_mem_fraction_static(in.gpu->memory, par.tp, par.pp, in.deployment.dp_attention,
                                                 in.engine.version)
            : kDefaultGpuUtilization;
    p.budget = figure("per_gpu.budget", [&] {
      return flat_budget(in.gpu->memory, utilization, g.weights_bytes, g.reserve_bytes);
    });
    g.usable_bytes = p.budget.requested;
    // vLLM V0 profiles its memory as V1 does (vllm/worker/worker.py determine_num_available_blocks), but
    // kvplan models V1's budget only: say that the flat reserve stands in, so that it is not read as V0's.
    if (full && !in.deployment.reserve && in.engine.engine == Engine::vllm)
      p.warnings.push_back(
          "vLLM V0's memory budget (its profile run's activation peak, non-torch memory) is not "
          "modelled: the flat reserve of " +
          format_bytes(g.reserve_bytes, UnitSystem::iec) +
          " per GPU stands in for it; give a measured reserve for a tight plan");
  }
}

/// The pool every stage takes from a KV memory given (--kv-memory, --from-log) under vLLM V1 with pp > 1:
/// vLLM logs rank 0's "Available KV cache memory" (gpu_worker.py determine_available_memory, logged once
/// per node), the first stage's, while every stage takes the smallest stage's pool
/// (kv_cache_utils.py get_kv_cache_configs); the last stage's is smaller by the sampler's dummy run
/// (vllm_budget: first_stage_kv - kv). With a GPU the given figure less that gap (0 when the gap is
/// larger), with a warning; without one it is taken as it is, with a warning; other engines, pp 1 and a
/// figure that is already the pool (PlanInputs::kv_memory_is_pool): as given.
Bytes given_kv_pool(Plan& p, const PlanInputs& in, bool full) {
  const Bytes given = *in.kv_memory;
  if (in.deployment.parallel.pp <= 1 || in.engine.engine != Engine::vllm || !modelled_budget(in) ||
      in.kv_memory_is_pool)
    return given;
  if (!in.gpu) {
    if (full)
      p.warnings.push_back(
          "the KV memory given with pp " + std::to_string(in.deployment.parallel.pp) +
          " and no GPU: taken as every stage's pool; vLLM logs rank 0's (the first stage's), which exceeds "
          "the last stage's by its sampler run: give a GPU to subtract it");
    return given;
  }
  const MemoryBudget budget =
      figure("per_gpu.budget", [&] { return vllm_budget(budget_inputs(p, in, full)); });
  const Bytes gap = budget.first_stage_kv > budget.kv ? budget.first_stage_kv - budget.kv : Bytes{0};
  const Bytes pool = given > gap ? given - gap : Bytes{0};
  if (full && gap != Bytes{0})
    p.warnings.push_back(
        "the KV memory given, " + format_bytes(given, UnitSystem::iec) + ", is rank 0's (vLLM logs the " +
        "first stage's): the last stage's sampler run takes " + format_bytes(gap, UnitSystem::iec) +
        " more, so every stage's pool is " + format_bytes(pool, UnitSystem::iec));
  return pool;
}

/// The KV memory per GPU: the engine's logged figure when given (under vLLM with pp, the pool it implies:
/// given_kv_pool), else the budget's requested memory less weights and reserve. Sets has_gpu and the
/// per-GPU memory figures; nullopt (the plan marked as limited by the weights) when weights and reserve
/// exceed the usable memory.
std::optional<Bytes> kv_memory(Plan& p, const PlanInputs& in, bool full) {
  PerGpu& g = p.per_gpu;
  p.has_gpu = true;
  if (in.kv_memory) {  // weights and reserve out
    // The pool given and the weights must both be on the GPU: a pool the engine was told to allocate
    // (vLLM's --kv-cache-memory-bytes skips its profile) past what the weights leave runs out of memory.
    // Nothing fits then (limit weights, the pool given in the reserve's place).
    if (in.gpu && (!engine_detail::add(g.weights_bytes.value, in.kv_memory->value) ||
                   g.weights_bytes + *in.kv_memory > in.gpu->memory)) {
      g.available_kv_bytes = Bytes{0};
      p.fits = false;
      p.max_users = 0;
      p.max_context = Tokens{0};
      p.limit.kind = Limit::Kind::weights;
      p.limit.kv_memory_given = true;
      p.limit.weights = g.weights_bytes;
      p.limit.reserve = *in.kv_memory;
      p.limit.usable = in.gpu->memory;
      return std::nullopt;
    }
    return g.available_kv_bytes = given_kv_pool(p, in, full);
  }
  memory_budget(p, in, full);
  const Bytes fixed = figure("per_gpu.weights_bytes", [&] { return g.weights_bytes + g.reserve_bytes; });
  if (fixed > g.usable_bytes) {
    g.available_kv_bytes = Bytes{0};
    p.fits = false;
    p.max_users = 0;
    p.max_context = Tokens{0};
    p.limit.kind = Limit::Kind::weights;
    p.limit.weights = g.weights_bytes;
    p.limit.reserve = g.reserve_bytes;
    p.limit.usable = g.usable_bytes;
    return std::nullopt;
  }
  return g.available_kv_bytes = g.usable_bytes - fixed;
}

/// Requests per replica times the dp replicas: the deployment's max users. Past 2^64 it is refused
/// naming the GPU count, not shown saturated (--gpus 2^64 - 1 printed 18,446,744,073,709,551,615 max
/// users); unbounded (a sequence needing no memory) stays unbounded.
std::uint64_t all_replicas(std::uint64_t requests, std::uint64_t dp) {
  if (requests == EnginePolicy::kUnboundedRequests) return requests;
  if (const auto users = engine_detail::mul(requests, dp)) return *users;
  throw Error("gpus", "the max users overflow 2^64 (" + format_count(requests) + " requests per replica x " +
                          format_count(dp) + " replicas)");
}

/// What llama.cpp leaves for its cache per GPU with `users` sequences of `context` tokens: the usable memory
/// less the weights and the compute buffer of that graph (budget.hpp llamacpp_graph,
/// llamacpp_compute_buffer); nullopt when those pass it.
std::optional<Bytes> llamacpp_left(const Plan& p, const PlanInputs& in, std::uint64_t users,
                                   std::uint64_t context) {
  const PerGpu& g = p.per_gpu;
  const Bytes buffer =
      llamacpp_compute_buffer(in.model, llamacpp_graph(in.model, in.engine, users, context)).total;
  const auto fixed = engine_detail::add(g.weights_bytes.value, buffer.value);
  if (!fixed || Bytes{*fixed} > g.usable_bytes) return std::nullopt;
  return g.usable_bytes - Bytes{*fixed};
}

/// llama.cpp's longest context for the plan's users. Its compute buffer follows the context (the KQ masks,
/// and the scores without flash attention, span the cells: budget.hpp llamacpp_graph), so the buffer
/// memory_budget worked at in.context holds for that context only: the longest c at which the users' cache
/// and the buffer at c fit beside the weights, by bisection (both grow with c). nullopt: unbounded.
std::optional<Tokens> llamacpp_max_context(const Plan& p, const EnginePolicy& policy, const PlanInputs& in) {
  const PerGpu& g = p.per_gpu;
  const auto left_at = [&](std::uint64_t c) { return llamacpp_left(p, in, in.users, c); };
  const auto holds = [&](std::uint64_t c) {
    const auto left = left_at(c);
    return left && policy.max_requests(Tokens{c}, *left) >= g.users;
  };
  // A bound: the longest context in what the smallest buffer (a one-token context) leaves.
  const auto most = left_at(1);
  if (!most) return Tokens{0};
  const auto bound = policy.max_context(g.users, *most);
  if (!bound || bound->value == 0 || holds(bound->value)) return bound;
  std::uint64_t lo = 0, hi = bound->value;  // the answer is in [lo, hi): lo holds (0 tokens), hi does not
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (holds(mid) ? lo : hi) = mid;
  }
  return Tokens{lo};
}

/// llama.cpp's most users at the plan's context, per replica. Its compute buffer follows the sequences
/// (n_tokens a multiple of n_seq; under --kv-unified the masks span every slot's cells: budget.hpp
/// llamacpp_graph), so the buffer memory_budget worked at in.users holds for those users only: the most n
/// whose cache and the buffer at n fit beside the weights, by bisection (both grow with n), so that the
/// plan fits at n users exactly when n is at most this. EnginePolicy::kUnboundedRequests: unbounded.
std::uint64_t llamacpp_max_users(const Plan& p, const EnginePolicy& policy, const PlanInputs& in) {
  const auto left_at = [&](std::uint64_t n) { return llamacpp_left(p, in, n, in.context.value); };
  const auto holds = [&](std::uint64_t n) {
    const auto left = left_at(n);
    return left && policy.max_requests(in.context, *left) >= n;
  };
  // A bound: the requests in what the smallest buffer (one sequence) leaves.
  const auto most = left_at(1);
  if (!most) return 0;
  const std::uint64_t bound = policy.max_requests(in.context, *most);
  if (bound == EnginePolicy::kUnboundedRequests || bound == 0 || holds(bound)) return bound;
  std::uint64_t lo = 1, hi = bound;  // the answer is in [lo, hi): hi does not hold
  if (!holds(1)) return 0;
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (holds(mid) ? lo : hi) = mid;
  }
  return lo;
}

/// The capacity step, one for every engine: whole requests of the context that fit in `memory` per
/// GPU (over all replicas), and the longest context at which the users still do; the exact layout's
/// figures beside them (its max users from the fullest stage's sequence, its max context from its
/// policy).
void capacity(Plan& p, const EnginePolicy& policy, const PreparedModel& pm, const PlanInputs& in,
              Bytes memory, const Parallelism& par, bool with_max_context) {
  PerGpu& g = p.per_gpu;
  const bool llamacpp_buffer = in.engine.engine == Engine::llamacpp && p.budget.modelled && !in.kv_memory;
  const std::uint64_t requests = policy.max_requests(in.context, memory);
  p.fits = requests >= g.users;
  p.max_users = all_replicas(llamacpp_buffer ? llamacpp_max_users(p, policy, in) : requests, par.dp);
  g.free_bytes = p.fits && g.kv_bytes_total <= memory ? memory - g.kv_bytes_total : Bytes{0};
  if (with_max_context) p.max_context = policy.max_context(g.users, memory);
  if (with_max_context && llamacpp_buffer && p.max_context)
    p.max_context = llamacpp_max_context(p, policy, in);
  if (in.engine.engine == Engine::ideal) {
    p.ideal_max_users = p.max_users;
    p.ideal_max_context = p.max_context;
  } else {
    p.ideal_max_users = all_replicas(engine_detail::whole_sequences(g.bytes_per_sequence, memory), par.dp);
    if (with_max_context)
      p.ideal_max_context =  // the ideal policy takes no option: nothing to validate
          engine_detail::make_ideal_policy(in.model, in.kv, par, EngineOptions{}, group_classes(pm))
              ->max_context(g.users, memory);
  }
  p.limit.kind = p.fits ? Limit::Kind::fits : Limit::Kind::kv_cache;
  p.limit.available = memory;
  p.limit.needed = g.kv_bytes_total;
  // The engine's scheduler runs at most `running` sequences per replica at once: more users wait, whatever
  // the pool holds. The limit is the concurrency where the pool holds at least that many.
  if (const auto running = max_running_sequences(p, in)) {
    const std::uint64_t kv_max_users = p.max_users;
    const std::uint64_t max_running = all_replicas(*running, par.dp);
    p.max_users = std::min(kv_max_users, max_running);
    if (g.users > *running && max_running <= kv_max_users) {
      p.fits = false;
      g.free_bytes = Bytes{0};
      p.limit.kind = Limit::Kind::concurrency;
      p.limit.max_running = max_running;
      p.limit.kv_max_users = kv_max_users;
    }
  }
  p.limit.max_users = p.max_users;
}
/// The GPU as a figures-only plan keeps it (PlanDetail::figures): its id and every figure, not its name
/// or source, which a search does not read (copying them allocated on every plan).
Gpu gpu_figures(const Gpu& g) {
  Gpu out;
  out.id = g.id;
  out.memory = g.memory;
  out.memory_bandwidth_bytes_per_s = g.memory_bandwidth_bytes_per_s;
  out.bf16_dense_flops = g.bf16_dense_flops;
  out.link_bandwidth_bytes_per_s = g.link_bandwidth_bytes_per_s;
  out.fp8 = g.fp8;
  out.runtime_memory = g.runtime_memory;
  return out;
}
}  // namespace

Plan make_plan(const PlanInputs& in) { return make_plan(in, true); }

Plan make_plan(const PlanInputs& in, bool with_max_context) {
  return make_plan(PreparedModel(in.model), in, with_max_context);
}

Plan make_plan(const PreparedModel& model, const PlanInputs& in, bool with_max_context, PlanDetail detail) {
  if (&model.model() != &in.model)
    throw Error("model", "prepared from another ModelSpec than the plan's inputs hold");
  const bool full = detail == PlanDetail::full;
  const Parallelism par = check_inputs(model, in);
  Plan p;
  if (full) {
    p.inputs = in;
  } else {  // every input but the model (its layer groups, names and warnings are not copied)
    p.inputs.kv = in.kv;
    p.inputs.context = in.context;
    p.inputs.users = in.users;
    p.inputs.deployment = in.deployment;
    if (in.gpu) p.inputs.gpu = gpu_figures(*in.gpu);
    p.inputs.engine = in.engine;
    p.inputs.kv_memory = in.kv_memory;
    p.inputs.kv_memory_is_pool = in.kv_memory_is_pool;
  }
  p.layers = model.layers();
  p.gpus = checked_mul(checked_mul(par.tp, par.pp, "gpus"), par.dp, "gpus");  // the same under DP attention
  layout_figures(p, model, in, par, detail);
  weight_figures(p, model, in, detail);
  per_gpu_figures(p, model, in, par, detail);
  const auto policy =
      engine_detail::make_validated_policy(in.model, in.kv, par, in.engine, group_classes(model));
  engine_totals(p, *policy, in, par);
  p.limit.engine = in.engine.engine;
  p.limit.users = in.users;
  p.limit.context = in.context;
  p.limit.kv_memory_given = in.kv_memory.has_value();
  const auto memory = in.gpu || in.kv_memory ? kv_memory(p, in, full) : std::nullopt;
  // Each replica runs its own server: the engine gets the users of one replica as its sequences.
  if (full)
    p.engine = policy->report(in.context, p.per_gpu.users, memory);
  else
    p.engine.engine = in.engine.engine;
  if (!memory) return p;  // no GPU (limit no_capacity), or the weights do not fit (limit weights)
  capacity(p, *policy, model, in, *memory, par, with_max_context);
  return p;
}

std::optional<std::uint64_t> max_running_sequences(const Plan& p, const PlanInputs& in) {
  if (in.engine.engine == Engine::llamacpp) return kLlamacppMaxSequences;
  if (in.engine.engine != Engine::vllm || in.engine.version == "v0") return std::nullopt;
  if (p.budget.modelled && p.budget.max_num_seqs != 0) return p.budget.max_num_seqs;
  if (in.engine.max_num_seqs != 0) return in.engine.max_num_seqs;
  if (!in.gpu) return std::nullopt;
  return vllm_default_max_num_seqs(in.gpu->runtime_memory.value_or(in.gpu->memory), in.gpu->name);
}

void rethrow_naming_input(const Error& e, const PlanInputs& in) {
  if (e.reason() != "overflows 64-bit arithmetic") throw e;
  // The fixed costs per GPU (weights plus the reserve, or the budget's components) are the weights' or the
  // reserve's, never the context's: the one the user gave is named.
  if (e.field() == "per_gpu.weights_bytes" || e.field() == "per_gpu.budget")
    throw Error(in.deployment.reserve ? "reserve" : "weights",
                "the weights and the reserve per GPU together overflow 2^64 B");
  const std::string context = std::to_string(in.context.value) + ": ";
  const std::string users = std::to_string(in.users) + ": ";
  Bytes per_token{0}, per_sequence{0};
  try {
    per_token = bytes_per_token(in.model, in.kv);
  } catch (const Error&) {
    throw e;  // the model's own figure: the loader's bounds should make this unreachable
  }
  try {
    per_sequence = kv_bytes_per_sequence(in.model, in.kv, in.context);
  } catch (const Error&) {
    throw Error("context", context + "the KV cache of one sequence overflows 2^64 B (" +
                               format_bytes_exact(per_token) + " per token x " +
                               format_count(in.context.value) + " tokens)");
  }
  if (in.users > 1 && !engine_detail::mul(per_sequence.value, in.users))
    throw Error("users", users + "the KV cache of the users overflows 2^64 B (" +
                             format_bytes_exact(per_sequence) + " per sequence x " + format_count(in.users) +
                             " users)");
  // The engine's rules (pages, padding, windows counted in full) passed 2^64 B where the exact layout
  // did not.
  if (e.field() == "users")
    throw Error("users", users + "the KV cache of the users overflows 2^64 B under the engine's rules");
  throw Error("context", context +
                             "the KV cache of one sequence overflows 2^64 B under the engine's rules (pages, "
                             "padding, windows counted in full)");
}

}  // namespace kvplan
