#include "kvplan/fit.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

#include "kvplan/budget.hpp"
#include "kvplan/context_limit.hpp"
#include "kvplan/format.hpp"
#include "kvplan/options.hpp"
#include "kvplan/serving_dtype.hpp"
#include "kvplan/streaming.hpp"

namespace kvplan {

namespace {
/// Whether estimate_speed has the figures it needs for this GPU and tp.
bool speed_known(const Gpu& g, std::uint64_t tp) {
  return g.memory_bandwidth_bytes_per_s != 0 && g.bf16_dense_flops != 0 &&
         (tp == 1 || g.link_bandwidth_bytes_per_s != 0);
}

/// Why the model refuses `tp` (validate_tp over its layers), without the size itself: "does not divide
/// num_attention_heads 24", "and num_key_value_heads 3: one must divide the other", with "(the
/// drafter's)" after the heads when the layer is a speculative drafter's (ModelSpec::draft_layers).
/// nullopt when every layer takes it.
std::optional<std::string> tp_refusal(const ModelSpec& m, std::uint64_t tp) {
  const std::uint64_t target_layers = num_layers(m) - m.draft_layers;
  std::uint64_t layer = 0;
  for (const auto& g : m.layers) {
    const std::uint64_t first = layer;
    layer += g.count;
    try {
      validate_tp(g.attention, tp);
    } catch (const Error& e) {
      // validate_tp's reasons start with the size: "2 and num_key_value_heads 3: ...".
      std::string cause = e.reason().substr(std::to_string(tp).size() + 1);
      if (first >= target_layers) {
        const std::size_t heads = cause.find("heads ");
        const std::size_t end = cause.find_first_not_of("0123456789", heads + 6);
        cause.insert(end == std::string::npos ? cause.size() : end, " (the drafter's)");
      }
      return cause;
    }
  }
  return std::nullopt;
}

/// tp sizes the model takes: the requested ones (each must pass validate_parallelism, else "tp"), or
/// every size up to max_gpus that does. Without requested sizes, the sizes that divide the target's
/// num_attention_heads but are refused for another reason (the KV heads, a drafter's heads) are noted in
/// `refused`, one line per cause: they are the layouts a reader expects and would miss.
std::vector<std::uint64_t> tp_sizes(const FitRequest& r, std::vector<std::string>& refused) {
  std::vector<std::uint64_t> out;
  if (!r.tp.empty()) {
    for (const std::uint64_t tp : r.tp) {
      if (tp == 0) throw Error("tp", "must be positive");
      // DP attention may span nodes: its attention groups (tp / N GPUs) stay within one, and the experts
      // spread over every GPU, as SGLang's multi-node recipes run it (--tp 16 --dp 16
      // --enable-dp-attention --nnodes 2) and vLLM's (-dp 16 -dpl 8 --enable-expert-parallel); the figures
      // are per GPU either way.
      const bool dpa_over_nodes = std::any_of(r.dp_attention.begin(), r.dp_attention.end(), [&](auto n) {
        return n > 1 && tp % n == 0 && tp / n <= r.gpus_per_node;
      });
      if (tp > r.gpus_per_node && !dpa_over_nodes)
        throw Error("tp", std::to_string(tp) + " is more than " + input_ref("gpus_per_node") + " " +
                              std::to_string(r.gpus_per_node) +
                              ": tensor parallel (and a DP attention group) stays within one node; with " +
                              input_ref("dp_attention") + " N, tp / N GPUs a group, it may span nodes");
      // Its reason names the size ("3 does not divide num_attention_heads 64"): no prefix to repeat it.
      validate_parallelism(r.model, Parallelism{tp, 1, 1});
      out.push_back(tp);
    }
    return out;
  }
  const AttentionLayer* first = nullptr;
  for (const auto& g : r.model.layers)
    if (has_attention(g.attention.kind)) {
      first = &g.attention;
      break;
    }
  std::vector<std::pair<std::string, std::vector<std::uint64_t>>> causes;  // in order of first size
  // Checked once per size before the search, not per layout: a handful of probes.
  for (std::uint64_t tp = 1; tp <= std::min(r.max_gpus, r.gpus_per_node); ++tp) {
    const auto cause = tp_refusal(r.model, tp);
    if (!cause) {
      out.push_back(tp);
      continue;
    }
    if (first == nullptr || first->num_attention_heads % tp != 0) continue;  // not a size to expect
    auto it = std::find_if(causes.begin(), causes.end(), [&](const auto& c) { return c.first == *cause; });
    if (it == causes.end()) it = causes.insert(causes.end(), {*cause, {}});
    it->second.push_back(tp);
  }
  for (const auto& [cause, sizes] : causes) {
    std::string list;
    for (const std::uint64_t tp : sizes) list += (list.empty() ? "" : ", ") + std::to_string(tp);
    refused.push_back("tp " + list + " skipped: tp " + cause +
                      " (tp splits every layer's heads; vLLM, SGLang and TensorRT-LLM refuse it)");
  }
  return out;
}

/// pp sizes to search for `tp`: the requested ones (each checked by check_pipeline_stages, else "pp"), or
/// 1 up to the target's layers (a drafter's join the last stage: pipeline_stage), within max_gpus.
std::vector<std::uint64_t> pp_sizes(const FitRequest& r, std::uint64_t tp) {
  const std::uint64_t layers = num_layers(r.model);
  std::vector<std::uint64_t> out;
  if (!r.pp.empty()) {
    for (const std::uint64_t pp : r.pp) {
      check_pipeline_stages(layers, pp, r.model.draft_layers);
      if (checked_mul(tp, pp, "pp") <= r.max_gpus) out.push_back(pp);
    }
    return out;
  }
  const std::uint64_t target = layers - r.model.draft_layers;
  for (std::uint64_t pp = 1; pp <= target && pp <= kMaxPipelineStages && tp * pp <= r.max_gpus; ++pp)
    out.push_back(pp);
  return out;
}

/// DP attention sizes to search at `tp` and `pp`: the requested ones that divide tp (1 always), or 1 and,
/// where `searched` (a mixture-of-experts model under an engine that has DP attention), every divisor of
/// tp above 1: N attention ranks of tp / N GPUs each. Only at pp 1: the engines' DP attention recipes
/// (vLLM's data-parallel deployment guide, SGLang's DeepSeek recipes) pair it with tp and expert parallel
/// alone, and kvplan does not claim a layout neither documents.
std::vector<std::uint64_t> dp_attention_sizes(const FitRequest& r, bool searched, std::uint64_t tp,
                                              std::uint64_t pp) {
  std::vector<std::uint64_t> out;
  if (!r.dp_attention.empty()) {
    // Past a node only DP attention whose groups fit in one (tp_sizes).
    for (const std::uint64_t n : r.dp_attention)
      if ((n == 1 && tp <= r.gpus_per_node) || (n > 1 && pp == 1 && tp % n == 0 && tp / n <= r.gpus_per_node))
        out.push_back(n);
    return out;
  }
  out.push_back(1);
  if (searched && pp == 1)
    for (std::uint64_t n = 2; n <= tp; ++n)
      if (tp % n == 0) out.push_back(n);
  return out;
}

/// "1, 2, 4, 8", or "1-61" for a run of consecutive values.
std::string size_list(const std::vector<std::uint64_t>& v) {
  if (v.empty()) return "none";
  bool run = v.size() > 2;
  for (std::size_t i = 1; i < v.size() && run; ++i) run = v[i] == v[i - 1] + 1;
  if (run) return std::to_string(v.front()) + "-" + std::to_string(v.back());
  std::string out;
  for (const std::uint64_t x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

/// A layout considered for "nearest": the users it serves with every replica the budget allows.
struct Near {
  const Gpu* gpu = nullptr;
  KvDtypes kv;
  Parallelism parallel;
  std::uint64_t dp_attention = 1;
  std::size_t variant = 0;  ///< index of the weight variant (0: the model as given)
  std::uint64_t served = 0;
  double slack = -std::numeric_limits<double>::infinity();  ///< available KV - KV needed, per GPU
  std::uint64_t gpus = 0;
};

bool better_near(const Near& a, const Near& b) {
  if (a.served != b.served) return a.served > b.served;
  if (a.slack != b.slack) return a.slack > b.slack;
  return a.gpus < b.gpus;
}

std::string kv_label(const KvDtypes& t) {
  return t.k == t.v ? std::string(name(t.k))
                    : "K " + std::string(name(t.k)) + ", V " + std::string(name(t.v));
}

/// "4 x h100-sxm (tp 4 x pp 1 x 1 replica, KV bf16)"; "..., DP attention 8, KV bf16)" under DP attention.
std::string layout_label(const Plan& p) {
  const auto& par = p.inputs.deployment.parallel;
  const std::uint64_t n = p.inputs.deployment.dp_attention;
  return format_count(p.gpus) + " x " + p.inputs.gpu->id + " (tp " + std::to_string(par.tp) + " x pp " +
         std::to_string(par.pp) + " x " + format_count(par.dp, "replica", "replicas") +
         (n > 1 ? ", DP attention " + std::to_string(n) : std::string()) + ", KV " + kv_label(p.inputs.kv) +
         ")";
}

std::string fraction2(double v) {
  // Two decimals when that is the value ("0.90"); else the value as given (0.83555), so the engine takes
  // exactly the fraction the plan was worked out at (rounding it down left SGLang fewer tokens than the
  // --max-total-tokens the line pins).
  const double f = std::floor(v * 100.0 + 1e-9) / 100.0;
  if (std::abs(f - v) > 1e-12) return format_shortest(v);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", f);
  return buf;
}

std::string vllm_kv(const Plan& p) {
  const DType k = p.inputs.kv.k;
  if (p.inputs.engine.fp8_ds_mla) return "fp8_ds_mla";
  if (k == p.inputs.model.dtype) return "auto";
  if (k == DType::bf16) return "bfloat16";
  return std::string(name(k));
}

std::string llama_type(DType t) {
  if (t == DType::fp16) return "f16";
  if (t == DType::fp32) return "f32";
  return std::string(name(t));
}
/// What the nearest layout lacks, in words: the weights' shortfall per GPU, or the users that fit and
/// the KV short per GPU.
std::string describe_nearest(const Plan& p, const FitRequest& r) {
  const PerGpu& g = p.per_gpu;
  const auto gib = [](Bytes b) { return format_bytes(b, UnitSystem::iec); };
  std::string what;
  if (g.weights_bytes + g.reserve_bytes > g.usable_bytes) {
    const Bytes fixed = g.weights_bytes + g.reserve_bytes;
    what = "weights and reserve need " + gib(fixed) + " per GPU, " + gib(g.usable_bytes) +
           " usable: short by " + gib(fixed - g.usable_bytes) + " per GPU";
  } else {
    const Bytes short_by =
        g.kv_bytes_total > g.available_kv_bytes ? g.kv_bytes_total - g.available_kv_bytes : Bytes{0};
    what = format_count(p.max_users) + " of " + format_count(r.users, "user", "users") + " fit at " +
           format_count(r.context.value) + " tokens (KV per GPU " + gib(g.kv_bytes_total) + " needed, " +
           gib(g.available_kv_bytes) + " available: short by " + gib(short_by) + ")";
    if (p.max_context)
      what += "; " + format_count(r.users, "user fits", "users fit") + " up to " +
              max_context_text(r.model, *p.max_context, r.engine.engine);
  }
  return "nothing fits within " + format_count(r.max_gpus) + " GPUs; nearest: " + layout_label(p) + ": " +
         what;
}

/// How far a layout's speed is from the SLA: the largest of TPOT / its limit and TTFT / its limit, for
/// the limits given (1 or less: within it); 0 without limits; infinity without speed figures when a
/// limit is given.
double sla_ratio(const std::optional<SpeedFigures>& speed, const FitRequest& r) {
  if (!r.max_tpot_s && !r.max_ttft_s) return 0.0;
  if (!speed) return std::numeric_limits<double>::infinity();
  double worst = 0.0;
  if (r.max_tpot_s) worst = std::max(worst, speed->tpot_s / *r.max_tpot_s);
  if (r.max_ttft_s) worst = std::max(worst, speed->ttft_s / *r.max_ttft_s);
  return worst;
}

/// "TPOT 41.0 ms against 30.0 ms (+36.7%)", or "... (met)", for each limit given.
std::string sla_figures(const SpeedFigures& s, const FitRequest& r) {
  std::string out;
  const auto one = [&](const char* what, double value, double limit) {
    const double over = (value / limit - 1.0) * 100.0;
    out += (out.empty() ? "" : ", ") + std::string(what) + " " + format_seconds(value) + " against " +
           format_seconds(limit) +
           (value <= limit ? " (met)" : " (+" + format_fixed(over, over < 10.0 ? 1 : 0) + "%)");
  };
  if (r.max_tpot_s) one("TPOT", s.tpot_s, *r.max_tpot_s);
  if (r.max_ttft_s) one("TTFT", s.ttft_s, *r.max_ttft_s);
  return out;
}

/// When layouts hold the users but none meets the SLA: the fastest, and by how much it misses.
std::string describe_sla_miss(const FitRow& n, const FitRequest& r, std::uint64_t holding) {
  std::string limits;
  if (r.max_tpot_s) limits = "TPOT <= " + format_seconds(*r.max_tpot_s);
  if (r.max_ttft_s) limits += (limits.empty() ? "" : " and ") + ("TTFT <= " + format_seconds(*r.max_ttft_s));
  return "nothing within " + format_count(r.max_gpus) + " GPUs meets the SLA (" + limits +
         "): " + format_count(holding, "layout holds", "layouts hold") + " the " +
         format_count(r.users, "user", "users") + ", none fast enough; nearest: " + layout_label(n.plan) +
         ": " + sla_figures(*n.speed, r);
}

/// The launch line of a row: the engine's, or why there is none.
std::string row_launch(const Plan& p, const FitRequest& r, const LaunchExtras& extras) {
  if (r.attention_sinks)
    return "(no launch line: no serving engine keeps an attention-sink cache; the row is kvplan's exact "
           "layout with full-attention layers capped by the sink tokens and recent window given)";
  if (p.inputs.engine.engine == Engine::ideal) {
    // The exact layout's line is vLLM's: a layout vLLM refuses (a drafter whose pages it cannot unify
    // with the target's) gets no line rather than one that fails at start-up.
    PlanInputs vllm = p.inputs;
    vllm.engine.engine = Engine::vllm;
    try {
      (void)make_plan(vllm, false);
    } catch (const Error& e) {
      if (e.field() != "kv_dtype" && e.field() != "k_dtype")  // vLLM's missing types: launch_command says
        return "(no vllm line: vLLM refuses this layout: " + e.reason() + ")";
    }
  }
  std::string line = launch_command(p, extras);
  // A replica over several nodes (DP attention past a node, tp_sizes): started on each node.
  const auto& par = p.inputs.deployment.parallel;
  const std::uint64_t n = p.inputs.deployment.dp_attention;
  if (par.tp > r.gpus_per_node && n > 1 && line.front() != '(') {
    const std::uint64_t nodes = ceil_div(par.tp, r.gpus_per_node);
    const std::size_t hash = line.find("  # ");
    std::string flags, how;
    if (p.inputs.engine.engine == Engine::sglang) {
      // server_args.py --nnodes / --node-rank / --dist-init-addr.
      flags = " --nnodes " + std::to_string(nodes);
      how = "start it on each of the " + std::to_string(nodes) +
            " nodes with --node-rank R --dist-init-addr HOST:PORT";
    } else {
      // vllm/engine/arg_utils.py --data-parallel-size-local: the DP ranks (of tp / N GPUs) on this node.
      flags = " --data-parallel-size-local " + std::to_string(r.gpus_per_node / (par.tp / n));
      how = "start it on each of the " + std::to_string(nodes) +
            " nodes with --data-parallel-address HOST (the others with --headless --data-parallel-start-rank "
            "R)";
    }
    line.insert(hash == std::string::npos ? line.size() : hash, flags);
    line += (hash == std::string::npos ? "  # " : "; ") + how;
  }
  return line;
}
}  // namespace

std::vector<KvDtypes> default_kv_dtypes(const Gpu& gpu, Engine engine) {
  const auto both = [](DType t) {
    KvDtypes k;
    k.k = k.v = t;
    return k;
  };
  if (engine == Engine::llamacpp) return {both(DType::fp16), both(DType::q8_0)};
  std::vector<KvDtypes> out{both(DType::bf16)};
  if (gpu.fp8) out.push_back(both(DType::fp8_e4m3));
  return out;
}

std::vector<DType> default_weight_dtypes(const ModelSpec& m, const Gpu& gpu, const EngineOptions& engine) {
  const auto wide = [](DType t) { return t == DType::bf16 || t == DType::fp16 || t == DType::fp32; };
  if (!(engine.engine == Engine::vllm || engine.engine == Engine::ideal) || !gpu.fp8 ||
      loads_checkpoint_before_quantising(engine))
    return {};
  if (m.quant.method != WeightQuant::Method::none || !wide(m.weight_dtype) || !wide(m.expert_weight_dtype))
    return {};
  return {DType::fp8_e4m3};
}

namespace {
/// llama.cpp's n_batch default (common/common.h common_params::n_batch): n_ubatch is min(n_batch,
/// n_ubatch) (src/llama-context.cpp, llama_context::llama_context), so a larger -ub needs -b too.
constexpr std::uint64_t kLlamacppBatch = 2048;

/// A value as the engine's flag takes it: a count as digits, a ratio as its shortest exact decimal.
template <class T>
std::string flag_value(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return {};
  } else if constexpr (std::is_floating_point_v<T>) {
    return format_shortest(v);
  } else {
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc{} ? std::string(buf, end) : std::string();
  }
}

/// The engine options set away from their defaults, as the engine's own flags (" --block-size 128"),
/// and TensorRT-LLM's kv_cache_config fields ("tokens_per_block: 64") for its YAML file.
std::string engine_flags(const EngineOptions& e, std::vector<std::string>& yaml) {
  std::string line;
  for (const auto& o : engine_option_table()) {
    if (!engine_option_set(o, e) || !engine_option_applies(o, e)) continue;
    const std::string_view flag = o.launch_flag.at(static_cast<std::size_t>(e.engine));
    if (flag.empty()) continue;
    const std::string value = std::visit([&](auto member) { return flag_value(e.*member); }, o.member);
    if (flag.front() != '-') {
      yaml.push_back(std::string(flag) + ": " + value);
      continue;
    }
    if (flag == "-ub" && e.ubatch > kLlamacppBatch) line += " -b " + value;
    line += " " + std::string(flag);
    if (!value.empty()) line += " " + value;
  }
  return line;
}

/// A shell word in single quotes (a ' inside as '\'').
std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string layout_line(const Plan& p);

/// Whether SGLang's line pins the pool the plan predicted with --max-total-tokens (layout_line): then the
/// pin, at most a --max-tokens cap (the policy took the min), is the line's only --max-total-tokens.
bool sglang_pins_pool(const Plan& p) {
  return p.inputs.engine.engine == Engine::sglang && p.budget.modelled && p.has_gpu && !p.inputs.kv_memory &&
         p.engine.kv_cache_tokens.has_value();
}

/// The extras as the engine's flags, or as a trailing comment where the engine has no flag for them.
std::string extra_flags(const EngineOptions& options, const LaunchExtras& x, bool at_load,
                        std::string& comment) {
  const Engine engine = options.engine;
  std::string line;
  if (x.weight_dtype) {
    if (at_load) {
      line += " --quantization fp8";
      // SGLang (sgl-project/sglang #2895) and vLLM before 0.16 quantise once every weight is loaded at the
      // checkpoint's precision: the GPUs must hold that first.
      if (loads_checkpoint_before_quantising(options))
        comment += std::string(comment.empty() ? "" : "; ") +
                   std::string(engine == Engine::sglang ? "SGLang" : "vLLM before 0.16") +
                   " loads the checkpoint at its own precision before quantising: it must fit first";
    } else {
      comment += std::string(comment.empty() ? "" : "; ") + "weights as " +
                 std::string(name(*x.weight_dtype)) +
                 (engine == Engine::llamacpp ? ": give a GGUF file quantised so"
                                             : ": give a checkpoint quantised so");
    }
  }
  if (!x.speculative_config.empty()) {
    if (engine == Engine::vllm || engine == Engine::ideal)
      line += " --speculative-config " + shell_quote(x.speculative_config);
    else
      comment += std::string(comment.empty() ? "" : "; ") + "speculative decoding " + x.speculative_config +
                 ": set the engine's own speculative options";
  }
  if (!x.note.empty()) comment += std::string(comment.empty() ? "" : "; ") + x.note;
  return line;
}
}  // namespace

bool past_max_position(const ModelSpec& m, Tokens tokens, Engine engine) {
  const auto limit = engine_max_context(m, engine);
  return limit && tokens > *limit;
}

std::string max_context_text(const ModelSpec& m, Tokens max_context, Engine engine) {
  std::string out = format_count(max_context.value) + " tokens";
  if (const auto l = context_limit(m, engine); l && max_context > l->tokens)
    out += engine == Engine::ideal
               ? " (past the model's " + format_count(l->tokens.value) + " max_position_embeddings)"
               : " (past " + l->text + ": " + l->effect + ")";
  return out;
}

std::string_view long_context_env(Engine engine) {
  switch (engine) {
    case Engine::sglang: return "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1";
    case Engine::trtllm: return "TLLM_ALLOW_LONG_MAX_MODEL_LEN=1";
    case Engine::llamacpp: return "";
    case Engine::ideal:
    case Engine::vllm:
    default: return "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1";
  }
}

bool long_context_env_on(Engine engine, std::string_view assignment) {
  const std::string_view env = long_context_env(engine);
  const std::size_t eq = assignment.find('=');
  if (env.empty() || eq == std::string_view::npos || assignment.substr(0, eq) != env.substr(0, env.find('=')))
    return false;
  std::string value(assignment.substr(eq + 1));
  if (engine == Engine::trtllm) return value == "1";
  if (engine != Engine::sglang) {  // vLLM: os.environ.get(...).strip().lower()
    const auto blank = [](char c) {
      return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
    };
    while (!value.empty() && blank(value.back())) value.pop_back();
    std::size_t b = 0;
    while (b < value.size() && blank(value[b])) ++b;
    value.erase(0, b);
  }
  for (char& c : value) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return value == "1" || value == "true";
}

std::string launch_command(const Plan& p, const LaunchExtras& extras) {
  std::vector<std::string> yaml;
  std::string comment;
  EngineOptions shown = p.inputs.engine;
  if (sglang_pins_pool(p)) shown.max_tokens = 0;
  // vLLM's line names --max-num-seqs itself (layout_line: the scheduler's sequences, given, raised by fit
  // or the rank's users): once, not again among the options (kvplan's --from-launch refused the line).
  if (shown.engine == Engine::vllm) shown.max_num_seqs = 0;
  // n_rs_seq's flags are draft-mtp's (the model's own nextn layers): a model without them gets its
  // n_rs_seq from a drafter's speculative type (common.h need_n_rs_seq: eagle3, dflash, dspark with -md),
  // which kvplan cannot name, so the line says so instead of asking for layers the model lacks.
  if (shown.engine == Engine::llamacpp && shown.n_rs_seq != 0 && p.inputs.model.mtp_layers == 0) {
    comment = "n_rs_seq " + std::to_string(shown.n_rs_seq) +
              ": the model has no MTP layers for --spec-type draft-mtp; llama-server sets it from "
              "--spec-draft-n-max with a drafter (-md DRAFT and its --spec-type)";
    shown.n_rs_seq = 0;
  }
  const std::string options = engine_flags(shown, yaml);
  const std::string more = extra_flags(p.inputs.engine, extras, p.inputs.model.quant.at_load, comment);
  if (p.inputs.engine.engine == Engine::trtllm) {
    // TensorRT-LLM's KV cache type is kv_cache_config's dtype (tensorrt_llm/llmapi/llm_args.py
    // KvCacheConfig.dtype: "auto" or "fp8"); the fp8 rows' line started a cache of the model's type, twice
    // the bytes the row planned. Other quantised types come from a checkpoint quantised so.
    const DType k = p.inputs.kv.k;
    if (k == DType::fp8_e4m3)
      yaml.insert(yaml.begin(), "dtype: fp8");
    else if (k != DType::fp16 && k != DType::bf16 && k != DType::fp32)
      comment +=
          std::string(comment.empty() ? "" : "; ") + "KV cache " + std::string(name(k)) +
          ": give a checkpoint whose KV cache is quantised so (kv_cache_config's dtype takes auto or fp8)";
  }
  std::string line = layout_line(p);
  if (line.front() == '(') return line;  // no line for this engine and dtype
  line += options + more;
  const auto& par = p.inputs.deployment.parallel;
  const Engine engine = p.inputs.engine.engine;
  if (p.inputs.deployment.dp_attention > 1 && par.dp > 1)
    comment = "one of " + std::to_string(par.dp) +
              " replicas: start each as its own server (a wider data-parallel group would widen expert "
              "parallel)" +
              (comment.empty() ? "" : "; " + comment);
  else if (par.dp > 1 && (engine == Engine::trtllm || engine == Engine::llamacpp))
    // These lines have no data-parallel flag: each replica is its own server on its own GPUs.
    comment = "one of " + std::to_string(par.dp) + " replicas: start each as its own server on its own " +
              (par.tp * par.pp == 1 ? std::string("GPU") : std::to_string(par.tp * par.pp) + " GPUs") +
              (engine == Engine::llamacpp ? " (CUDA_VISIBLE_DEVICES)" : "") +
              (comment.empty() ? "" : "; " + comment);
  const ModelSpec& m = p.inputs.model;
  // ideal's line is vLLM's: vLLM's limit decides.
  const Engine limit_engine = p.inputs.engine.engine == Engine::ideal ? Engine::vllm : p.inputs.engine.engine;
  if (const auto l = context_limit(m, limit_engine); l && p.inputs.context > l->tokens) {
    if (!l->env.empty()) line = l->env + " " + line;
    comment = "context " + format_count(p.inputs.context.value) + " past " + l->text + ": " + l->effect +
              (comment.empty() ? "" : "; " + comment);
  }
  if (!yaml.empty()) {
    std::string fields;
    for (const auto& f : yaml) fields += (fields.empty() ? "" : ", ") + f;
    line += " --extra_llm_api_options kv_cache_config.yaml";
    comment = "kv_cache_config.yaml: \"kv_cache_config: {" + fields + "}\"" +
              (comment.empty() ? "" : "; " + comment);
  }
  if (!comment.empty()) line += "  # " + comment;
  return line;
}

namespace {
/// The model as an engine's line names it, and the revision to pass (empty: the default branch): a
/// preset's source is its Hub repo ("meta-llama/Llama-3.1-70B"); a Hub repo loaded by kvplan has the source
/// "ORG/NAME@REVISION from the Hugging Face ..." (presets load_hf_repo), whose first word before the '@' is
/// the repo (the whole source gave "vllm serve org/name@main from the Hugging Face cache ..."); no source:
/// the model's id.
std::pair<std::string, std::string> launch_model(const ModelSpec& m) {
  if (m.source.empty()) return {m.id, ""};
  const std::string word = m.source.substr(0, m.source.find(' '));
  const std::size_t at = word.find('@');
  if (at == std::string::npos || word.size() == m.source.size()) return {m.source, ""};
  const std::string revision = word.substr(at + 1);
  return {word.substr(0, at), revision == "main" ? "" : revision};
}

/// The line from the layout alone: the engine, tp, pp, context, sequences, KV dtype and memory fraction.
std::string layout_line(const Plan& p) {
  const auto& in = p.inputs;
  const auto& par = in.deployment.parallel;
  const std::uint64_t seqs = ceil_div(in.users, par.dp);
  // DP attention N: each of the N attention ranks schedules its own sequences.
  const std::uint64_t n = in.deployment.dp_attention;
  const std::uint64_t rank_seqs = ceil_div(seqs, n);
  const auto [repo, revision] = launch_model(in.model);
  // vLLM and SGLang take the Hub revision as --revision (vllm/engine/arg_utils.py, sglang server_args.py).
  const std::string rev = revision.empty() ? std::string() : " --revision " + revision;
  const std::string ctx = std::to_string(in.context.value);
  // The user's fraction as given (fraction2); else the engine's default as the budget took it (SGLang's is
  // computed to three decimals, printed as it is so the server takes the same; vLLM's by release, 0.92 from
  // 0.21).
  const std::string util =
      in.deployment.gpu_memory_utilization ? fraction2(*in.deployment.gpu_memory_utilization)
      : in.engine.engine == Engine::sglang && p.budget.utilization > 0.0
          ? format_fixed(p.budget.utilization, 3)
      : in.engine.engine == Engine::vllm && p.budget.modelled && p.budget.utilization > 0.0
          ? fraction2(p.budget.utilization)
          : fraction2(kDefaultGpuUtilization);
  std::string s;
  switch (in.engine.engine) {
    case Engine::sglang:
      // Under DP attention --max-running-requests counts every rank's: SGLang's model_runner gives each
      // max_running_requests // dp_size.
      s = "python -m sglang.launch_server --model-path " + repo + rev + " --tp " + std::to_string(par.tp) +
          " --context-length " + ctx + " --max-running-requests " +
          std::to_string(n > 1 ? checked_mul(rank_seqs, n, "users") : seqs) + " --mem-fraction-static " +
          util;
      if (par.pp > 1) s += " --pp-size " + std::to_string(par.pp);
      if (n > 1)
        s += " --dp " + std::to_string(n) + " --enable-dp-attention --ep-size " + std::to_string(par.tp);
      else if (par.dp > 1)
        s += " --dp " + std::to_string(par.dp);
      if (in.kv.k != in.model.dtype) s += " --kv-cache-dtype " + std::string(name(in.kv.k));
      // The pool the plan predicted, pinned: SGLang caps its profiled max_total_num_tokens at
      // --max-total-tokens (model_runner.py init_memory_pool), so the server holds no more than the row says.
      if (sglang_pins_pool(p)) s += " --max-total-tokens " + std::to_string(*p.engine.kv_cache_tokens);
      return s;
    case Engine::llamacpp: {
      const std::uint64_t cells = checked_mul(in.context.value, seqs, "context");
      return "llama-server -m " + in.model.id + ".gguf -c " + std::to_string(cells) + " -np " +
             std::to_string(seqs) + " -ctk " + llama_type(in.kv.k) + " -ctv " + llama_type(in.kv.v) +
             " -ngl 999";
    }
    case Engine::trtllm: {
      // kv_cache_free_gpu_memory_fraction is a share of the memory left after the weights and the profile:
      // under the modelled budget (trtllm_budget) the fraction it applied; under a flat reserve the share
      // of the memory after the weights that the plan's KV memory is.
      // With a reserve given (--overhead) the reserve stands for the profile's peak: the fraction of
      // (runtime total - weights - reserve) that is the plan's KV memory, cut to 4 decimals so the engine
      // holds no more than the row.
      std::string f = util;
      if (!p.budget.modelled) {
        const Bytes total = in.gpu ? in.gpu->runtime_memory.value_or(in.gpu->memory) : Bytes{0};
        const Bytes held = p.per_gpu.weights_bytes + p.per_gpu.reserve_bytes;
        const double rest = total > held ? static_cast<double>((total - held).value) : 0.0;
        const double share =
            rest > 0 ? std::min(1.0, static_cast<double>(p.per_gpu.available_kv_bytes.value) / rest) : 0.0;
        f = format_fixed(std::floor(share * 1e4) / 1e4, 4);
      }
      s = "trtllm-serve " + repo + " --tp_size " + std::to_string(par.tp) + " --pp_size " +
          std::to_string(par.pp) + " --max_seq_len " + ctx + " --max_batch_size " + std::to_string(seqs) +
          " --kv_cache_free_gpu_memory_fraction " + f;
      // A prompt past max_num_tokens is refused without chunked prefill (the PyTorch backend's default is
      // off: "should not exceed max_num_tokens", NVIDIA/TensorRT-LLM issue #9277).
      const std::uint64_t max_num_tokens = in.engine.max_num_batched_tokens != 0
                                               ? in.engine.max_num_batched_tokens
                                               : kTrtllmDefaultMaxNumTokens;
      if (in.context.value > max_num_tokens) s += " --enable_chunked_prefill";
      return s;
    }
    case Engine::ideal:
    case Engine::vllm:
    default:
      if (in.engine.engine == Engine::ideal) {
        // Under the exact layout the line is vLLM's, for the KV cache types vLLM has.
        const auto vllm_type = [](DType d) {
          return d == DType::fp32 || d == DType::fp16 || d == DType::bf16 || d == DType::fp8_e4m3 ||
                 d == DType::fp8_e5m2;
        };
        if (!vllm_type(in.kv.k) || in.kv.k != in.kv.v)
          return "(no vllm line: vLLM has no KV cache type " + std::string(name(in.kv.k)) +
                 (in.kv.k != in.kv.v ? " / " + std::string(name(in.kv.v)) : std::string()) +
                 "; llamacpp's rules have it)";
      }
      // Under DP attention vLLM's tp is each data-parallel rank's, and --max-num-seqs each rank's
      // scheduler's: the max_num_seqs the budget took where given or raised (fit), else the rank's users.
      s = "vllm serve " + repo + rev + " --tensor-parallel-size " + std::to_string(par.tp / n) +
          " --pipeline-parallel-size " + std::to_string(par.pp) + " --max-model-len " + ctx +
          " --max-num-seqs " +
          std::to_string(in.engine.max_num_seqs != 0 ? in.engine.max_num_seqs : rank_seqs) +
          " --kv-cache-dtype " + vllm_kv(p) + " --gpu-memory-utilization " + util;
      // The pool the plan predicted, pinned: vLLM then skips its profile-based sizing
      // (CacheConfig.kv_cache_memory_bytes, vllm/v1/worker/gpu_worker.py), so the server cannot hold a
      // different pool than the row promises.
      if (p.budget.modelled && p.has_gpu && !in.kv_memory)
        s += " --kv-cache-memory-bytes " + std::to_string(p.per_gpu.available_kv_bytes.value);
      if (n > 1)
        s += " --data-parallel-size " + std::to_string(n) + " --enable-expert-parallel";
      else if (par.dp > 1)
        s += " --data-parallel-size " + std::to_string(par.dp);
      return s;
  }
}
}  // namespace

namespace {
/// Keeps the first of equal values: a GPU, tp, pp or KV dtype given twice is searched once, so the ranking
/// never lists one layout twice.
template <class T>
void keep_first(std::vector<T>& list) {
  std::vector<T> out;
  for (auto& v : list)
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(std::move(v));
  list = std::move(out);
}
}  // namespace

bool dp_attention_engine(Engine engine) {
  return engine == Engine::ideal || engine == Engine::vllm || engine == Engine::sglang;
}

std::string price_range_text() {
  return "must be a price in USD per GPU-hour, more than 0 and at most " + format_count(kMaxPricePerGpuHour);
}

FitResult fit(const FitRequest& request) {
  FitRequest r = request;  // one copy per search, the lists without repeats
  keep_first(r.gpus);
  keep_first(r.tp);
  keep_first(r.pp);
  keep_first(r.dp_attention);
  keep_first(r.kv_dtypes);
  keep_first(r.weight_dtypes);
  if (r.gpus.empty()) throw Error("gpu", "no GPU to search");
  if (r.max_gpus == 0) throw Error("max_gpus", "must be positive");
  // Every GPU count up to the limit is searched: past real clusters the search would only take minutes.
  if (r.max_gpus > kMaxFitGpus)
    throw Error("max_gpus", std::to_string(r.max_gpus) + ": at most " + std::to_string(kMaxFitGpus) +
                                " GPUs are searched");
  if (r.users == 0) throw Error("users", "must be positive");
  if (r.context.value == 0) throw Error("context", "must be positive");
  if (r.price_per_gpu_hour && !(std::isfinite(*r.price_per_gpu_hour) && *r.price_per_gpu_hour > 0 &&
                                *r.price_per_gpu_hour <= static_cast<double>(kMaxPricePerGpuHour)))
    throw Error("price_per_gpu_hour", price_range_text());
  if (r.attention_sinks) require_streaming_engine(r.engine.engine);
  validate(r.model);
  if (r.gpus_per_node == 0) throw Error("gpus_per_node", "must be positive");
  FitResult out;
  const std::vector<std::uint64_t> tps = tp_sizes(r, out.refused);
  (void)pp_sizes(r, 1);  // a bad --pp is an error even when no tp pairs with it
  // The model as given and each weight type searched (FitRequest::weight_dtypes): each its inputs and its
  // per-model figures once (a variant's in.model is not reassigned below: its PreparedModel refers to it).
  struct Variant {
    PlanInputs in;
    std::unique_ptr<PreparedModel> prepared;
    std::optional<DType> weight_dtype;  // nullopt: the model as given
  };
  std::vector<std::unique_ptr<Variant>> variants;
  const auto variant_of = [&](std::optional<DType> t) -> std::size_t {
    for (std::size_t i = 0; i < variants.size(); ++i)
      if (variants[i]->weight_dtype == t) return i;
    auto v = std::make_unique<Variant>();
    v->in.model = r.model;
    if (t) apply_weight_dtype(v->in.model, *t, r.engine.engine);
    v->weight_dtype = t;
    v->prepared = std::make_unique<PreparedModel>(v->in.model);
    variants.push_back(std::move(v));
    return variants.size() - 1;
  };
  (void)variant_of(std::nullopt);
  PlanInputs& in = variants.front()->in;
  const PreparedModel& prepared = *variants.front()->prepared;
  // The weight types searched on `gpu`, the model as given first; a type equal to the model's once.
  const auto weight_variants = [&](const Gpu& gpu) {
    std::vector<std::size_t> out{0};
    // Weights given as a size are the bytes whatever the dtype (as `size` refuses a weight dtype beside
    // them): another dtype's rows would repeat the same bytes under another label.
    if (!r.search_weight_dtypes || r.deployment.weights) return out;
    for (const DType t :
         r.weight_dtypes.empty() ? default_weight_dtypes(r.model, gpu, r.engine) : r.weight_dtypes)
      if (t != r.model.weight_dtype) out.push_back(variant_of(t));
    return out;
  };
  // DP attention with expert parallel: for MoE models, where the engine has it.
  const Engine engine = r.engine.engine;
  const bool dpa_engine = dp_attention_engine(engine);
  for (const std::uint64_t n : r.dp_attention) {
    if (n == 0) throw Error("dp_attention", "must be positive");
    if (n == 1) continue;
    if (!dpa_engine)
      throw Error("dp_attention", "fit searches DP attention under `engine` ideal, vllm or sglang, not " +
                                      std::string(name(engine)));
    if (!prepared.moe())
      throw Error("dp_attention", "needs a mixture-of-experts model (expert parallel); " + r.model.name +
                                      " is dense: its data-parallel replicas are the dp column");
  }
  const bool dpa_searched = r.search_dp_attention && dpa_engine && prepared.moe();
  for (const std::uint64_t n : r.dp_attention)
    if (n > 1 && std::none_of(tps.begin(), tps.end(), [&](std::uint64_t tp) { return tp % n == 0; }))
      throw Error("dp_attention", std::to_string(n) + " divides no tp searched (" + size_list(tps) +
                                      "): attention tp = tp / dp-attention");
  if (r.search_dp_attention && prepared.moe() && !dpa_engine && r.dp_attention.empty())
    out.refused.push_back(
        engine == Engine::llamacpp
            ? "DP attention and expert parallel: llama.cpp has neither (its GPUs split layers, -sm layer)"
            : "DP attention and expert parallel under " + std::string(name(engine)) +
                  ": not searched (TensorRT-LLM's enable_attention_dp; plan it alone with "
                  "`dp_attention`)");
  {
    std::vector<std::uint64_t> pps = r.pp;
    if (pps.empty())
      for (std::uint64_t pp = 1;
           pp <= num_layers(r.model) - r.model.draft_layers && pp <= kMaxPipelineStages && pp <= r.max_gpus;
           ++pp)
        pps.push_back(pp);
    const bool over_nodes =
        std::any_of(tps.begin(), tps.end(), [&](auto tp) { return tp > r.gpus_per_node; });
    out.searched = "tp " + size_list(tps) + " (" + (over_nodes ? "DP attention groups " : "") +
                   "within a node of " + std::to_string(r.gpus_per_node) + " GPUs), pp " + size_list(pps) +
                   ", replicas";
    bool dpa = false;
    for (const std::uint64_t tp : tps)
      for (const std::uint64_t n : dp_attention_sizes(r, dpa_searched, tp, 1)) dpa = dpa || n > 1;
    if (dpa) out.searched += ", DP attention with expert parallel (at pp 1)";
    std::vector<DType> weights;
    if (r.search_weight_dtypes && !r.deployment.weights)  // weight_variants: a size given is no dtype
      for (const Gpu& gpu : r.gpus)
        for (const DType t :
             r.weight_dtypes.empty() ? default_weight_dtypes(r.model, gpu, r.engine) : r.weight_dtypes)
          if (t != r.model.weight_dtype && std::find(weights.begin(), weights.end(), t) == weights.end())
            weights.push_back(t);
    out.weights_searched = !weights.empty();
    if (!weights.empty()) {
      out.searched += ", weights as given";
      for (const DType t : weights)
        out.searched +=
            std::string(", ") + std::string(name(t)) +
            (quantised_at_load(r.model, t, r.engine.engine) ? " (quantised at load)" : " (a checkpoint so)");
    }
  }

  // What ranking needs of a fitting layout; its Plan is made again for the rows returned, so thousands of
  // layouts never hold thousands of plans.
  struct Candidate {
    PlanInputs in;  // the model is shared: set from its variant's when the row is planned again
    std::size_t variant = 0;
    std::uint64_t gpus = 0;
    Bytes free;
    std::optional<SpeedFigures> speed;
    std::optional<double> cost;
  };
  std::vector<Candidate> rows;
  std::optional<Near> nearest;
  struct SlowCandidate {
    Candidate c;
    double ratio = 0;
  };
  std::optional<SlowCandidate> slow;  // the layout nearest the SLA of those that hold the users
  in.context = r.context;
  in.users = r.users;
  in.deployment = r.deployment;
  in.engine = r.engine;
  // A KV dtype asked for that the engine has no cache type for is the request's error, not a layout's.
  for (const KvDtypes& kv : r.kv_dtypes) {
    try {
      (void)make_policy(r.model, kv, Parallelism{}, r.engine);
    } catch (const Error& e) {
      if (e.field() == "kv_dtype" || e.field() == "k_dtype") throw;
    }
  }
  // SGLang (sgl-project/sglang #2895) and vLLM before 0.16 quantise fp8 once every weight is loaded at the
  // checkpoint's precision: a layout whose GPUs cannot hold the checkpoint's weights first is refused.
  const bool whole_load = loads_checkpoint_before_quantising(r.engine);
  const auto check_whole_load = [&](const PlanInputs& at) {
    PlanInputs& given = variants.front()->in;  // the model as given, at this layout
    given.context = at.context;
    given.users = at.users;
    given.deployment = at.deployment;
    given.engine = at.engine;
    given.gpu = at.gpu;
    given.kv = at.kv;
    const Plan load = make_plan(*variants.front()->prepared, given, false, PlanDetail::figures);
    if (at.gpu && load.per_gpu.weights_bytes > at.gpu->memory)
      throw Error("weight_dtype",
                  whole_load_reason(engine) + ", and its weights per GPU pass the GPU's memory");
  };
  // The engine's options at a layout. vLLM runs at most max_num_seqs sequences at once (plan.hpp
  // max_running_sequences): where `vllm serve`'s default for the GPU is below one server's users and none
  // was given, the launch line raises it to them, and the budget's sampler run takes as many.
  // One server is one replica's (its share of the users, replicas dp) attention rank (dpa).
  const auto engine_at = [&](const Gpu& gpu, std::uint64_t dpa, std::uint64_t dp) {
    EngineOptions o = r.engine;
    if (engine == Engine::vllm && o.max_num_seqs == 0 && o.version != "v0") {
      const std::uint64_t server_seqs = ceil_div(ceil_div(r.users, dp), dpa);
      if (server_seqs > vllm_default_max_num_seqs(gpu.runtime_memory.value_or(gpu.memory), gpu.name))
        o.max_num_seqs = std::min(server_seqs, kMaxEngineMaxNumSeqs);
    }
    return o;
  };
  // The layouts the search would judge, counted before any is planned: past kMaxFitLayouts (a 4,096-layer
  // model over 12 GPU presets and 4,096 GPUs was 276,480 layouts, 83 s and 818 MB) the request is refused,
  // naming the limit and the inputs that narrow it.
  std::uint64_t layouts = 0;
  for (const Gpu& gpu : r.gpus) {
    const std::uint64_t types =
        checked_mul(r.kv_dtypes.empty() ? default_kv_dtypes(gpu, r.engine.engine).size() : r.kv_dtypes.size(),
                    weight_variants(gpu).size(), "max_gpus");
    for (const std::uint64_t tp : tps)
      for (const std::uint64_t pp : pp_sizes(r, tp))
        layouts = checked_add(
            layouts, checked_mul(types, dp_attention_sizes(r, dpa_searched, tp, pp).size(), "max_gpus"),
            "max_gpus");
  }
  if (layouts > kMaxFitLayouts)
    throw Error("max_gpus",
                "the search would judge " + format_count(layouts) +
                    " layouts (GPU presets x weight types x KV dtypes x tp x pp), more than the " +
                    format_count(kMaxFitLayouts) +
                    " one search judges (the limit): narrow it with `gpu`, `tp`, `pp`, `kv_dtype`, "
                    "`weight_dtype` or a smaller `max_gpus`");
  std::optional<Error> refused;  // the first refusal, reported when no layout could be planned at all
  // Every distinct refusal and the layouts it skipped, noted when other layouts were planned.
  std::vector<std::pair<std::string, std::uint64_t>> refusals;
  for (const Gpu& gpu : r.gpus) {
    const std::vector<KvDtypes> dtypes =
        r.kv_dtypes.empty() ? default_kv_dtypes(gpu, r.engine.engine) : r.kv_dtypes;
    for (const std::size_t variant : weight_variants(gpu))
      for (const KvDtypes& kv : dtypes)
        for (const std::uint64_t tp : tps)
          for (const std::uint64_t pp : pp_sizes(r, tp))
            for (const std::uint64_t dpa : dp_attention_sizes(r, dpa_searched, tp, pp)) {
              PlanInputs& in = variants[variant]->in;
              const PreparedModel& prepared = *variants[variant]->prepared;
              const ModelSpec& model = in.model;
              in.context = r.context;
              in.users = r.users;
              in.deployment = r.deployment;
              in.engine = engine_at(gpu, dpa, 1);
              in.gpu = gpu;
              in.kv = kv;
              in.deployment.parallel = Parallelism{tp, pp, 1};
              in.deployment.dp_attention = dpa;
              const std::uint64_t per_replica = tp * pp;
              const std::uint64_t most_replicas = r.max_gpus / per_replica;
              Plan one;
              try {
                if (variant != 0 && whole_load && in.model.quant.at_load) check_whole_load(in);
                one = make_plan(prepared, in, false, PlanDetail::figures);
              } catch (const Error& e) {
                if (!refused) refused = e;
                std::string why = input_ref(e.field()) + ": " + e.reason();
                auto it = std::find_if(refusals.begin(), refusals.end(),
                                       [&](const auto& x) { return x.first == why; });
                if (it == refusals.end()) it = refusals.insert(refusals.end(), {std::move(why), 0});
                ++it->second;
                continue;  // the engine refuses this layout (tp under llama.cpp, a dtype it lacks)
              }
              ++out.candidates;
              // Replicas each serve their share of the users: the fewest that hold them all.
              std::uint64_t dp = one.fits ? 1 : one.max_users == 0 ? 0 : ceil_div(r.users, one.max_users);
              std::optional<Bytes> free;
              if (one.fits) free = one.per_gpu.free_bytes;
              while (!free && dp != 0 && dp <= most_replicas) {
                in.deployment.parallel.dp = dp;
                in.engine = engine_at(gpu, dpa, dp);  // each replica's scheduler takes its share
                const Plan p = make_plan(prepared, in, false, PlanDetail::figures);
                ++out.candidates;
                if (p.fits)
                  free = p.per_gpu.free_bytes;
                else
                  ++dp;
              }
              if (!free) {
                Near n;
                n.gpu = &gpu;
                n.kv = kv;
                n.parallel = Parallelism{tp, pp, std::max<std::uint64_t>(most_replicas, 1)};
                n.dp_attention = in.deployment.dp_attention;
                n.variant = variant;
                n.gpus = per_replica * n.parallel.dp;
                n.served = std::min(r.users, checked_mul(one.max_users, most_replicas, "max_users"));
                const PerGpu& g = one.per_gpu;
                n.slack =
                    static_cast<double>(g.available_kv_bytes.value) -
                    static_cast<double>(g.kv_bytes_total.value) -
                    (g.weights_bytes + g.reserve_bytes > g.usable_bytes
                         ? static_cast<double>((g.weights_bytes + g.reserve_bytes - g.usable_bytes).value)
                         : 0.0);
                if (!nearest || better_near(n, *nearest)) nearest = std::move(n);
                continue;
              }
              Candidate c;
              c.variant = variant;
              c.in.kv = kv;
              c.in.deployment.parallel = in.deployment.parallel;
              c.in.deployment.dp_attention = dpa;
              c.in.gpu = gpu;
              c.gpus = checked_mul(per_replica, in.deployment.parallel.dp, "gpus");
              c.free = *free;
              // The roofline assumes tensor parallel over every GPU: no speed under DP attention.
              if (dpa == 1 && speed_known(gpu, tp) && model.weights_unknown.empty())
                c.speed = estimate_speed(in, r.efficiency);
              ++out.holding;
              const double miss = sla_ratio(c.speed, r);
              if (miss > 1.0) {
                // Held, but too slow: the fastest such layout is what comes nearest if none is fast enough.
                if (c.speed && (!slow || miss < slow->ratio ||
                                (miss == slow->ratio && (c.gpus < slow->c.gpus ||
                                                         (c.gpus == slow->c.gpus && c.free > slow->c.free)))))
                  slow = SlowCandidate{c, miss};
                continue;
              }
              if (r.price_per_gpu_hour && c.speed)
                c.cost = *r.price_per_gpu_hour * static_cast<double>(c.gpus) /
                         (c.speed->tokens_per_s * 3600.0) * 1e6;
              rows.push_back(std::move(c));
            }
  }
  out.fitting = rows.size();
  if (out.candidates != 0)
    for (const auto& [why, n] : refusals)
      out.refused.push_back(format_count(n, "layout", "layouts") + " skipped, refused: " + why);
  constexpr double inf = std::numeric_limits<double>::infinity();
  const auto tpot = [&](const Candidate& x) { return x.speed ? x.speed->tpot_s : inf; };
  std::stable_sort(rows.begin(), rows.end(), [&](const Candidate& a, const Candidate& b) {
    if (r.price_per_gpu_hour && a.cost.value_or(inf) != b.cost.value_or(inf))
      return a.cost.value_or(inf) < b.cost.value_or(inf);
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    // On as many GPUs, the weights as given before a type the engine or another checkpoint quantises.
    if ((a.variant == 0) != (b.variant == 0)) return a.variant == 0;
    if (a.free != b.free) return a.free > b.free;
    if (tpot(a) != tpot(b)) return tpot(a) < tpot(b);
    return a.in.deployment.parallel.pp < b.in.deployment.parallel.pp;
  });
  if (rows.size() > r.top) rows.resize(r.top);
  // The launch extras of a variant's rows: the weight type the engine must be told.
  const auto extras_of = [&](std::size_t variant) {
    LaunchExtras x = r.launch;
    if (variants[variant]->weight_dtype) x.weight_dtype = variants[variant]->weight_dtype;
    return x;
  };
  // A candidate's row: planned again with the request's inputs and the max-context search.
  const auto row_of = [&](Candidate& c) {
    FitRow row;
    c.in.model = variants[c.variant]->in.model;
    c.in.context = r.context;
    c.in.users = r.users;
    const Parallelism par = c.in.deployment.parallel;
    const std::uint64_t dpa = c.in.deployment.dp_attention;
    c.in.engine = engine_at(*c.in.gpu, dpa, c.in.deployment.parallel.dp);
    c.in.deployment = r.deployment;
    c.in.deployment.parallel = par;
    c.in.deployment.dp_attention = dpa;
    row.plan = make_plan(c.in, true);  // its own model copy: PreparedModel refers to `in.model`
    row.speed = c.speed;
    row.cost_per_million_tokens = c.cost;
    row.weight_dtype = variants[c.variant]->weight_dtype;
    row.launch = row_launch(row.plan, r, extras_of(c.variant));
    return row;
  };
  for (auto& c : rows) out.rows.push_back(row_of(c));

  // Nothing fit (not merely cut by `top`): what comes nearest.
  if (out.fitting == 0 && slow) {
    out.nearest = row_of(slow->c);
    out.nearest_misses_sla = true;
    out.nearest_note = describe_sla_miss(*out.nearest, r, out.holding);
  } else if (out.fitting == 0 && out.holding > 0) {
    // Every layout that holds the users lacks speed figures: the SLA cannot be checked on any.
    out.nearest_note = "nothing within " + format_count(r.max_gpus) + " GPUs can be held against the SLA: " +
                       format_count(out.holding, "layout holds", "layouts hold") +
                       " the users, but their GPUs lack a memory bandwidth, bf16 peak or link figure";
  } else if (out.fitting == 0 && nearest) {
    FitRow n;
    PlanInputs& in = variants[nearest->variant]->in;
    const PreparedModel& prepared = *variants[nearest->variant]->prepared;
    in.gpu = *nearest->gpu;
    in.kv = nearest->kv;
    in.engine = engine_at(*nearest->gpu, nearest->dp_attention, nearest->parallel.dp);
    in.deployment.parallel = nearest->parallel;
    in.deployment.dp_attention = nearest->dp_attention;
    n.plan = make_plan(prepared, in, true);
    // No speed for a layout that holds no user at all: there is no batch to time.
    if (n.plan.max_users > 0 && nearest->dp_attention == 1 &&
        speed_known(*nearest->gpu, nearest->parallel.tp) && in.model.weights_unknown.empty())
      n.speed = estimate_speed(n.plan.inputs, r.efficiency);
    n.weight_dtype = variants[nearest->variant]->weight_dtype;
    n.launch = row_launch(n.plan, r, extras_of(nearest->variant));
    out.nearest_note = describe_nearest(n.plan, r);
    out.nearest = std::move(n);
  } else if (out.fitting == 0) {
    // Not one layout could be planned: the engine's reason is the answer (one line, the input named).
    if (out.candidates == 0 && refused) throw *refused;
    out.nearest_note = "nothing fits within " + format_count(r.max_gpus) +
                       " GPUs, and no layout could be planned under these rules";
  }
  return out;
}

}  // namespace kvplan
