// Engine dispatch, the ideal policy, and helpers shared by the engine policies.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>

#include "engine_common.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/format.hpp"
#include "kvplan/kv_spec.hpp"
#include "kvplan/options.hpp"
#include "kvplan/plan.hpp"

namespace kvplan {

std::string_view name(Engine e) {
  switch (e) {
    case Engine::ideal: return "ideal";
    case Engine::vllm: return "vllm";
    case Engine::sglang: return "sglang";
    case Engine::llamacpp: return "llamacpp";
    case Engine::trtllm: return "trtllm";
  }
  return "?";
}

PipelineSplit pipeline_split(Engine e) {
  switch (e) {
    case Engine::vllm: return PipelineSplit::before_last;
    case Engine::sglang: return PipelineSplit::last_stages;
    case Engine::ideal:
    case Engine::llamacpp:
    case Engine::trtllm: return PipelineSplit::first_stages;
  }
  return PipelineSplit::first_stages;
}

Engine parse_engine(std::string_view text, std::string_view field) {
  std::string s(text);
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "ideal") return Engine::ideal;
  if (s == "vllm") return Engine::vllm;
  if (s == "sglang") return Engine::sglang;
  if (s == "llamacpp" || s == "llama.cpp" || s == "llama-cpp") return Engine::llamacpp;
  if (s == "trtllm" || s == "tensorrt-llm" || s == "tensorrt_llm") return Engine::trtllm;
  throw Error(std::string(field),
              "unknown engine '" + std::string(text) + "' (ideal, vllm, sglang, llamacpp, trtllm)");
}

std::vector<std::string_view> engine_versions(Engine e) {
  switch (e) {
    case Engine::vllm: return {"v1", "0.20", "0.21", "0.26", "v0"};
    case Engine::sglang: return {"0.5", "0.4"};
    case Engine::llamacpp: return {"2026", "2025-11", "2025-08"};
    default: return {};
  }
}

namespace {
/// Each option from the table (options.hpp): its bound, and whether it applies to this engine and version.
void check_option_table(const EngineOptions& o) {
  for (const auto& spec : engine_option_table()) {
    if (spec.kind == OptionKind::ratio) {
      const double v = o.*std::get<double EngineOptions::*>(spec.member);
      if (!(v > 0.0 && v <= 1.0))  // false for NaN too
        throw Error(std::string(spec.key), "must be a number in (0, 1]");
    } else if (spec.kind != OptionKind::flag) {
      // Beyond the bound a figure would overflow and the error would name the bytes, not the option.
      const std::uint64_t v = o.*std::get<std::uint64_t EngineOptions::*>(spec.member);
      if (v > spec.max)
        throw Error(std::string(spec.key),
                    "must be at most " + format_count(spec.max) + ", got " + format_count(v));
    }
  }
  for (const auto& spec : engine_option_table())
    if (engine_option_set(spec, o)) require_engine_option_applies(spec, o);
}
}  // namespace

void validate_engine_options(const EngineOptions& o) {
  // Every option at its default (a search's plans, most commands): each is within its bound and none is
  // set, so the table has nothing to check.
  EngineOptions plain;
  plain.engine = o.engine;
  plain.version = o.version;
  plain.release = o.release;
  if (!(o == plain)) check_option_table(o);
  if (o.fp8_ds_mla && o.engine != Engine::vllm)
    throw Error("kv_dtype", "fp8_ds_mla is a vLLM cache type: use it with `engine` vllm");
  if (o.version.empty()) return;
  if (o.engine == Engine::ideal) throw Error("engine_version", "applies to an engine other than ideal");
  const auto versions = engine_versions(o.engine);
  if (versions.empty()) return;  // the engine's own check says which single version it models
  if (std::find(versions.begin(), versions.end(), o.version) != versions.end()) return;
  std::string list;
  for (const auto v : versions) list += (list.empty() ? "" : ", ") + std::string(v);
  throw Error("engine_version", std::string(name(o.engine)) + " versions: " + list +
                                    " (the first is the default); got '" + o.version + "'");
}

std::string mib(Bytes b, int decimals) {
  return format_fixed(static_cast<double>(b.value) / 1048576.0, decimals);
}
std::string gib(Bytes b) { return format_fixed(static_cast<double>(b.value) / 1073741824.0, 2); }

void engine_detail::for_each_group_stage(
    const ModelSpec& m, std::uint64_t pp, PipelineSplit split,
    const std::function<void(const Stage&, std::span<const StagePart>)>& f) {
  const std::uint64_t layers = num_layers(m);
  check_pipeline_stages(layers, pp, m.draft_layers);
  std::vector<StagePart> parts;
  // One walk over groups and stages together: a group spanning stages is split, none is visited twice.
  std::size_t g = 0;
  std::uint64_t g_first = 0;
  for (std::uint64_t i = 0; i < pp; ++i) {
    const Stage s = pipeline_stage(layers, pp, i, m.draft_layers, split);
    const std::uint64_t s_end = s.first + s.count;
    parts.clear();
    while (g < m.layers.size()) {
      const std::uint64_t g_end = g_first + m.layers[g].count;
      const std::uint64_t lo = std::max(g_first, s.first), hi = std::min(g_end, s_end);
      if (lo < hi) parts.push_back({g, hi - lo});
      if (g_end > s_end) break;  // the rest of this group belongs to the next stage
      g_first = g_end;
      ++g;
    }
    f(s, parts);
  }
}

namespace {
/// The views of the stages that for_each_group_stage or for_each_class_stage walk (`walk(f)`).
template <class Walk>
std::vector<StageView> views_of(const ModelSpec& m, std::uint64_t pp, const Walk& walk) {
  std::vector<StageView> out;
  walk([&](const Stage& s, std::span<const engine_detail::StagePart> parts) {
    if (out.empty()) out.reserve(pp);  // pp checked by now
    StageView v{s, {}};
    v.layers.reserve(parts.size());
    for (const auto& part : parts) {
      const LayerGroup& g = m.layers[part.group];
      v.layers.push_back({g.attention, g.mlp, part.count});
    }
    out.push_back(std::move(v));
  });
  return out;
}
}  // namespace

std::vector<StageView> stage_views(const ModelSpec& m, std::uint64_t pp, PipelineSplit split) {
  return views_of(m, pp, [&](const auto& f) { engine_detail::for_each_group_stage(m, pp, split, f); });
}

std::vector<StageView> engine_detail::class_stage_views(const ModelSpec& m, std::uint64_t pp,
                                                        PipelineSplit split, const GroupClasses& c) {
  return views_of(m, pp, [&](const auto& f) { for_each_class_stage(m, pp, split, c, f); });
}

namespace engine_detail {

bool has_recurrent(const ModelSpec& m) {
  for (const auto& g : m.layers)
    if (has_state(g.attention)) return true;
  return false;
}

bool has_recurrent(const ModelSpec& m, const GroupClasses& c) {
  bool any = false;
  for_each_attention(m, c, [&](const AttentionLayer& a) { any = any || has_state(a); });
  return any;
}

void require_plain_dtypes(const KvDtypes& t, std::string_view engine, bool allow_block_types) {
  const auto ok = [&](DType d) {
    switch (d) {
      case DType::fp32:
      case DType::fp16:
      case DType::bf16:
      case DType::fp8_e4m3:
      case DType::fp8_e5m2: return true;
      case DType::int8: return engine == "TensorRT-LLM";
      default: return allow_block_types;
    }
  };
  if (!ok(t.k) || !ok(t.v))
    throw Error("kv_dtype",
                std::string(engine) + " has no KV cache type " + std::string(name(ok(t.k) ? t.v : t.k)));
  if (t.k != t.v && !allow_block_types)
    throw Error("k_dtype", std::string(engine) + " uses one KV cache type for K and V");
  // vLLM's MambaDType (vllm/config/cache.py): auto, float32, float16, bfloat16; SGLang's
  // --mamba-ssm-dtype takes the same three.
  const auto state_ok = [](std::optional<DType> d) {
    return !d || *d == DType::fp32 || *d == DType::fp16 || *d == DType::bf16;
  };
  if (!state_ok(t.state))
    throw Error("mamba_cache_dtype", std::string(engine) +
                                         " keeps the recurrent state in float32, float16 or "
                                         "bfloat16, not " +
                                         std::string(name(*t.state)));
  if (!state_ok(t.ssm_state))
    throw Error("mamba_ssm_cache_dtype", std::string(engine) +
                                             " keeps the recurrent state in float32, "
                                             "float16 or bfloat16, not " +
                                             std::string(name(*t.ssm_state)));
}

std::uint64_t divide(std::uint64_t a, std::uint64_t b, std::string_view field) {
  if (b == 0) throw Error(std::string(field), "is 0 B: the engine cannot size a cache from it");
  return a / b;
}

}  // namespace engine_detail

namespace {
using engine_detail::add;
using engine_detail::mul;

/// The exact layout as a policy: per stage, each cached layer's bytes per token (one rank) with the
/// tokens it keeps at most (its window; full and MLA layers never cap), and the recurrent state.
class IdealPolicy final : public engine_detail::PolicyBase {
 public:
  IdealPolicy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, const EngineOptions& o,
              const engine_detail::GroupClasses& c = {})
      : PolicyBase(m, t, p, o) {
    require_v_type_applies(m, t);
    for (const auto& view : engine_detail::class_stage_views(m, p.pp, p.split, c)) {
      StageData d;
      for (const auto& g : view.layers) {
        const LayerKv kv = layer_kv(g.attention, t, p.tp);
        d.state = checked_add(d.state, (kv.state_bytes() * g.count).value, "bytes");
        if (!kv.attends()) continue;
        const std::uint64_t cap = kv.cached_tokens(Tokens{kFull}).value;
        const std::uint64_t bpt = (kv.bytes_per_token() * g.count).value;
        auto it =
            std::find_if(d.entries.begin(), d.entries.end(), [&](const Entry& e) { return e.cap == cap; });
        if (it == d.entries.end())
          d.entries.push_back({bpt, cap});
        else
          it->bpt = checked_add(it->bpt, bpt, "bytes");
        d.slope = checked_add(d.slope, bpt, "bytes");
      }
      std::sort(d.entries.begin(), d.entries.end(),
                [](const Entry& a, const Entry& b) { return a.cap < b.cap; });
      stages_.push_back(std::move(d));
    }
  }

  [[nodiscard]] std::optional<Bytes> gpu_bytes(std::uint64_t n, Tokens len) const override {
    const auto s = fullest(len);
    return s ? engine_detail::as_bytes(mul(*s, n)) : std::nullopt;
  }
  [[nodiscard]] std::optional<Bytes> replica_bytes(std::uint64_t n, Tokens len) const override {
    return engine_detail::sum_parts(stages_, [&](const StageData& d) {
      const auto s = sequence(d, len.value);
      return s ? engine_detail::as_bytes(engine_detail::product({*s, p_.tp, n})) : std::nullopt;
    });
  }
  [[nodiscard]] std::uint64_t max_requests(Tokens len, Bytes memory) const override {
    const auto s = fullest(len);
    return s ? engine_detail::whole_sequences(Bytes{*s}, memory) : 0;
  }
  /// Closed form per stage: the bytes of a sequence, state + sum of bpt x min(L, cap), are piecewise linear
  /// and concave in L; walk the caps upwards, spending the budget floor(memory / n) segment by segment.
  [[nodiscard]] std::optional<Tokens> max_context(std::uint64_t n, Bytes memory) const override {
    if (n == 0) return std::nullopt;
    const std::uint64_t budget = memory.value / n;
    std::optional<std::uint64_t> best;
    for (const auto& d : stages_) {
      const auto l = longest_in(d, budget);
      if (l && (!best || *l < *best)) best = l;
    }
    if (!best) return std::nullopt;
    return Tokens{*best};
  }
  [[nodiscard]] EngineResult report(Tokens len, std::uint64_t n, std::optional<Bytes> memory) const override;

 private:
  static constexpr std::uint64_t kFull = ~std::uint64_t{0};
  struct Entry {
    std::uint64_t bpt = 0;  // bytes per token of the layers with this cap, one rank
    std::uint64_t cap = 0;  // tokens kept at most (kFull: every token)
  };
  struct StageData {
    std::vector<Entry> entries;  // by cap, ascending
    std::uint64_t slope = 0;     // sum of bpt: every cached layer as if no window were full
    std::uint64_t state = 0;
  };
  static std::optional<std::uint64_t> sequence(const StageData& d, std::uint64_t len) {
    std::uint64_t sum = d.state;
    for (const auto& e : d.entries) {
      const auto b = mul(e.bpt, std::min(len, e.cap));
      const auto s = b ? add(sum, *b) : std::nullopt;
      if (!s) return std::nullopt;
      sum = *s;
    }
    return sum;
  }
  [[nodiscard]] std::optional<std::uint64_t> fullest(Tokens len) const {
    std::uint64_t most = 0;
    for (const auto& d : stages_) {
      const auto s = sequence(d, len.value);
      if (!s) return std::nullopt;
      most = std::max(most, *s);
    }
    return most;
  }
  /// The largest L with sequence(d, L) <= budget; nullopt when every L does.
  static std::optional<std::uint64_t> longest_in(const StageData& d, std::uint64_t budget) {
    if (d.state > budget) return 0;
    std::uint64_t rem = budget - d.state, slope = d.slope, prev = 0;
    for (const auto& e : d.entries) {
      if (slope == 0) break;
      const auto cost = e.cap == kFull ? std::nullopt : mul(slope, e.cap - prev);
      if (!cost || *cost > rem) return add(prev, rem / slope).value_or(kFull);
      rem -= *cost;
      prev = e.cap;
      slope -= e.bpt;
    }
    return std::nullopt;  // every cached layer capped below the budget: any length fits
  }
  std::vector<StageData> stages_;
};

EngineResult IdealPolicy::report(Tokens context, std::uint64_t users, std::optional<Bytes> kv_memory) const {
  EngineResult r;
  r.engine = Engine::ideal;
  r.rules = "ideal: the exact layout, no paging (kvplan core/src/kv.cpp)";
  // Per stage: every cached layer as if no window were full (the slope), and one sequence; from the
  // exact layout's own walk when a figure passes 2^64, so that the error names what overflowed.
  Bytes bpt{0}, seq{0};
  const auto most = fullest(context);
  if (most) {
    seq = Bytes{*most};
    for (const auto& d : stages_) bpt = std::max(bpt, Bytes{d.slope});
  } else {
    for (const auto& s : per_gpu_sequence_bytes(m_, t_, context, p_)) {
      bpt = std::max(bpt, s.bytes_per_token);
      seq = std::max(seq, s.kv_bytes + s.state_bytes);
    }
  }
  r.bytes_per_token = bpt;
  r.per_token_note = "per GPU (one tp rank, fullest stage), every cached layer as if no window were full";
  r.kv_bytes_total = seq * users;
  if (!kv_memory) return r;
  r.kv_cache_tokens = bpt == Bytes{0} ? 0 : kv_memory->value / bpt.value;
  r.max_concurrency =
      seq == Bytes{0} ? 0.0 : static_cast<double>(kv_memory->value) / static_cast<double>(seq.value);
  const auto ctx = max_context(1, *kv_memory);
  r.max_context_unbounded = !ctx.has_value();
  if (ctx) r.max_context = ctx->value;
  return r;
}
}  // namespace

namespace engine_detail {
std::unique_ptr<EnginePolicy> make_ideal_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                                const EngineOptions& o, const GroupClasses& c) {
  // The caller's split: the stages of the deployment (make_plan's ideal figures beside an engine's).
  return std::make_unique<IdealPolicy>(m, t, p, o, c);
}

std::optional<std::uint64_t> longest(const std::function<bool(std::uint64_t)>& ok) {
  constexpr std::uint64_t top = ~std::uint64_t{0};
  if (!ok(1)) return 0;
  if (ok(top)) return std::nullopt;
  std::uint64_t lo = 1, hi = top;  // ok(lo), !ok(hi)
  while (lo <= top / 2) {
    if (!ok(lo * 2)) {
      hi = lo * 2;
      break;
    }
    lo *= 2;
  }
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (ok(mid) ? lo : hi) = mid;
  }
  return lo;
}
}  // namespace engine_detail

std::optional<Tokens> EnginePolicy::max_context(std::uint64_t n, Bytes memory) const {
  if (n == 0) return std::nullopt;
  const auto l =
      engine_detail::longest([&](std::uint64_t len) { return max_requests(Tokens{len}, memory) >= n; });
  if (!l) return std::nullopt;
  return Tokens{*l};
}

std::unique_ptr<EnginePolicy> make_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                          const EngineOptions& o) {
  // Whoever calls: the policies divide by figures of the model, so they only see a valid one.
  validate(m);
  validate_parallelism(m, p);
  return engine_detail::make_validated_policy(m, t, p, o);
}

std::unique_ptr<EnginePolicy> engine_detail::make_validated_policy(const ModelSpec& m, const KvDtypes& t,
                                                                   const Parallelism& p,
                                                                   const EngineOptions& o,
                                                                   const GroupClasses& c) {
  validate_engine_options(o);
  using namespace engine_detail;
  switch (o.engine) {
    case Engine::ideal: return make_ideal_policy(m, t, p, o, c);
    case Engine::vllm: return make_vllm_policy(m, t, p, o, c);
    case Engine::sglang: return make_sglang_policy(m, t, p, o, c);
    case Engine::llamacpp: return make_llamacpp_policy(m, t, p, o, c);
    case Engine::trtllm: return make_trtllm_policy(m, t, p, o, c);
  }
  throw Error("engine", "unknown engine");
}

EngineResult ideal_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                          std::uint64_t users, std::optional<Bytes> kv_memory) {
  return IdealPolicy(m, t, p, EngineOptions{}).report(context, users, kv_memory);
}

EngineResult apply_engine(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                          std::uint64_t users, const EngineOptions& o, std::optional<Bytes> kv_memory) {
  validate(m);
  validate_parallelism(m, p);
  if (context.value == 0) throw Error("context", "must be positive");
  if (users == 0) throw Error("users", "must be positive");
  return make_policy(m, t, p, o)->report(context, users, kv_memory);
}

}  // namespace kvplan
