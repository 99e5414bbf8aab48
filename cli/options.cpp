#include "options.hpp"

#include "kvplan/options.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "aliases.hpp"
#include "kvplan/budget.hpp"
#include "kvplan/context_limit.hpp"
#include "kvplan/format.hpp"
#include "kvplan/hf_hub.hpp"
#include "kvplan/kv.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/replicas.hpp"
#include "kvplan/streaming.hpp"
#include "launch.hpp"

namespace kvplan::cli {

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_auto(std::string_view text) { return lowercase(text) == "auto"; }

void add_model_options(CLI::App& app, ModelOptions& o) {
  auto* m = app.add_option(
      "MODEL", o.model,
      "preset id (case-insensitive), Hugging Face repo id (presets, then the local Hub cache), preset "
      "file, config.json path, model folder (config.json + safetensors) or GGUF file");
  m->description(m->get_description() + " (or give --layers/--heads/--kv-heads/--head-dim)");
  app.add_option("--revision", o.revision,
                 "branch, tag or commit of a Hugging Face repo id, from the local Hub cache (default main)");
  app.add_option("--hf-file", o.hf_file,
                 "a .gguf file of the Hugging Face repo MODEL, its path in the repo, read in place of the "
                 "quant tag (llama.cpp's -hff/--hf-file)");
  auto* g = app.add_option_group("model by flags", "a model without a file");
  g->add_option("--layers", o.layers, "number of layers");
  g->add_option("--heads", o.heads, "query heads");
  g->add_option("--kv-heads", o.kv_heads, "KV heads (default: --heads, MHA)");
  g->add_option("--head-dim", o.head_dim, "head dimension");
  g->add_option("--window", o.window, "sliding window W on every layer (tokens)");
}

void add_dtype_options(CLI::App& app, DtypeOptions& o) {
  app.add_option(
      option_names("--kv-dtype"), o.kv_dtype,
      alias_help("--kv-dtype",
                 "K and V type: fp32 fp16 bf16 fp8_e4m3 fp8_e5m2 int8 int4 q8_0 q4_0 q4_1 q5_0 q5_1 iq4_nl "
                 "(fp8 is fp8_e4m3, as vLLM and SGLang read it)"));
  app.add_option(option_names("--k-dtype"), o.k_dtype, alias_help("--k-dtype", "K type (with --v-dtype)"));
  app.add_option(option_names("--v-dtype"), o.v_dtype, alias_help("--v-dtype", "V type (with --k-dtype)"));
  app.add_option("--weight-dtype", o.weight_dtype,
                 "weight type: fp8_e4m3 under vllm, sglang and ideal is the engine's quantisation at load "
                 "(--quantization fp8), another type a checkpoint quantised so; ckpt: as in the checkpoint "
                 "(default)");
  app.add_option("--mamba-cache-dtype", o.mamba_cache_dtype,
                 "recurrent (Mamba, linear-attention, conv) state type, as vLLM's flag (default: as the "
                 "config declares)");
  app.add_option("--mamba-ssm-cache-dtype", o.mamba_ssm_cache_dtype,
                 "SSM / recurrent part of the state only, as vLLM's flag (default: the config's "
                 "mamba_ssm_cache_dtype, else --mamba-cache-dtype, else the model dtype)");
}

void add_streaming_options(CLI::App& app, StreamingOptions& o) {
  app.add_option(
      "--sink-tokens", o.sink_tokens,
      "StreamingLLM: attention-sink tokens kept by every full-attention layer (with --recent-window)");
  app.add_option("--recent-window", o.recent_window,
                 "StreamingLLM: most recent tokens kept by every full-attention layer (with --sink-tokens)");
}

std::optional<StreamingCap> parse_streaming(const StreamingOptions& o, Engine engine) {
  if (o.sink_tokens.empty() && o.recent_window.empty()) return std::nullopt;
  require_streaming_engine(engine, o.sink_tokens.empty() ? "--recent-window" : "--sink-tokens");
  if (o.recent_window.empty()) throw Error("--recent-window", "missing (required with --sink-tokens)");
  if (o.sink_tokens.empty()) throw Error("--sink-tokens", "missing (required with --recent-window)");
  StreamingCap cap;
  // 0 sinks is a plain recent window; parse_count refuses 0, so zero is read apart.
  cap.sink = o.sink_tokens == "0" ? 0 : parse_count(o.sink_tokens, "--sink-tokens");
  cap.recent = parse_count(o.recent_window, "--recent-window");
  return cap;
}

bool apply_streaming(const StreamingOptions& o, Engine engine, ModelSpec& m) {
  const auto cap = parse_streaming(o, engine);
  if (!cap) return false;
  m = with_attention_sinks(std::move(m), cap->sink, cap->recent);
  return true;
}

ModelSpec resolve_model(const ModelOptions& o) {
  const bool by_flags = !o.layers.empty() || !o.heads.empty() || !o.kv_heads.empty() || !o.head_dim.empty();
  if (!o.revision.empty() && o.model.empty())
    throw Error("--revision", "needs a Hugging Face repo id as MODEL");
  if (by_flags && !o.model.empty())
    throw Error("MODEL", "give a model or --layers/--heads/--head-dim, not both");
  if (!by_flags && !o.window.empty()) throw Error("--window", "only applies to a model given by flags");
  if (!o.hf_file.empty()) {
    // llama.cpp common/download.cpp: --hf-file names the repo's file by its path, over the --hf-repo's quant
    // tag; the repo's file listing must hold it exactly (a tag ending in .gguf: presets::find_model).
    const std::string repo = o.model.substr(0, o.model.find(':'));
    if (by_flags || !presets::is_hf_repo_id(repo))
      throw Error("--hf-file", "needs a Hugging Face repo id as MODEL (ORG/NAME), got '" +
                                   (by_flags ? std::string("a model by flags") : o.model) + "'");
    if (!o.hf_file.ends_with(".gguf"))
      throw Error("--hf-file", "must be the path of a .gguf file in the repo, got '" + o.hf_file + "'");
    return presets::find_model(repo + ":" + o.hf_file, o.revision);
  }
  if (!by_flags) {
    if (!o.model.empty()) return presets::find_model(o.model, o.revision);
    throw Error("MODEL", "missing: give a preset id, a file, or --layers/--heads/--head-dim");
  }
  if (o.layers.empty()) throw Error("--layers", "missing (required with --heads/--head-dim)");
  if (o.heads.empty()) throw Error("--heads", "missing (required with --layers)");
  if (o.head_dim.empty()) throw Error("--head-dim", "missing (required with --layers)");
  ModelSpec m;
  m.id = "custom";
  m.name = "custom model";
  m.source = "command-line flags";
  LayerGroup g;
  g.count = parse_count(o.layers, "--layers");
  g.attention.num_attention_heads = parse_count(o.heads, "--heads");
  g.attention.num_key_value_heads =
      o.kv_heads.empty() ? g.attention.num_attention_heads : parse_count(o.kv_heads, "--kv-heads");
  g.attention.head_dim_k = g.attention.head_dim_v = parse_count(o.head_dim, "--head-dim");
  if (!o.window.empty()) {
    g.attention.kind = AttentionKind::sliding;
    g.attention.window = parse_count(o.window, "--window");
  }
  if (g.attention.num_attention_heads % g.attention.num_key_value_heads != 0)
    throw Error("--kv-heads", std::to_string(g.attention.num_key_value_heads) + " does not divide --heads " +
                                  std::to_string(g.attention.num_attention_heads));
  m.layers.push_back(g);
  try {
    validate(m);
  } catch (const Error& e) {
    // Core names the model's key; the user typed a flag.
    static const std::pair<std::string_view, const char*> flags[] = {{"num_attention_heads", "--heads"},
                                                                     {"num_key_value_heads", "--kv-heads"},
                                                                     {"head_dim", "--head-dim"},
                                                                     {"layers", "--layers"},
                                                                     {"sliding_window", "--window"}};
    for (const auto& [key, flag] : flags)
      if (e.field() == key) throw Error(flag, e.reason());
    throw;
  }
  return m;
}

std::optional<std::string> auto_dtype_note(const ModelSpec& m, Engine engine) {
  if (m.dtype != DType::fp32 || (engine != Engine::vllm && engine != Engine::ideal)) return std::nullopt;
  return "KV auto on the fp32 checkpoint " + m.name +
         ": vLLM serves it in bf16 on GPUs of compute capability 8.0 and later, fp16 on 6.0-7.5 "
         "(V100, T4); 2 B a value either way, so every figure holds";
}

namespace {
/// A KV type by name, with the engines' own names: auto (the model's dtype as the engine serves it,
/// auto_serving_dtype) and fp8_ds_mla (vLLM).
DType kv_type(const std::string& text, const char* field, const ModelSpec& m, EngineOptions* engine) {
  if (is_auto(text)) return auto_serving_dtype(m, engine != nullptr ? engine->engine : Engine::ideal);
  if (lowercase(text) == "fp8_ds_mla") {
    if (engine == nullptr || engine->engine != Engine::vllm)
      throw Error(field, "fp8_ds_mla is a vLLM cache type: use it with --engine vllm");
    engine->fp8_ds_mla = true;
    return DType::fp8_e4m3;
  }
  return parse_dtype(text, field);
}
}  // namespace

KvDtypes resolve_kv_dtypes(const DtypeOptions& o, const ModelSpec& m, EngineOptions* engine) {
  KvDtypes t;
  // Default: the engine's own default, "auto" (the model's dtype) or llama.cpp's f16.
  t.k = t.v = engine != nullptr && engine->engine == Engine::llamacpp
                  ? DType::fp16
                  : kv_type("auto", "--kv-dtype", m, engine);
  if (!o.kv_dtype.empty() && (!o.k_dtype.empty() || !o.v_dtype.empty()))
    throw Error("--kv-dtype", "give " + typed_flag("--kv-dtype") + " or " + typed_flag("--k-dtype") + "/" +
                                  typed_flag("--v-dtype") + ", not both");
  if (!o.kv_dtype.empty()) t.k = t.v = kv_type(o.kv_dtype, "--kv-dtype", m, engine);
  if (!o.k_dtype.empty() || !o.v_dtype.empty()) {
    // Both or neither, llama.cpp's -ctk/-ctv included: a lone K type would leave V at a default unsaid.
    if (o.k_dtype.empty())
      throw Error("--k-dtype", "missing (required with " + typed_flag("--v-dtype") + ")");
    if (o.v_dtype.empty())
      throw Error("--v-dtype", "missing (required with " + typed_flag("--k-dtype") + ")");
    t.k = kv_type(o.k_dtype, "--k-dtype", m, engine);
    t.v = kv_type(o.v_dtype, "--v-dtype", m, engine);
  }
  // A state type for a model without recurrent layers would change nothing: refused, not ignored.
  const bool recurrent = std::any_of(m.layers.begin(), m.layers.end(),
                                     [](const LayerGroup& g) { return has_state(g.attention); });
  const auto state_type = [&](const std::string& text, const char* field) -> std::optional<DType> {
    if (text.empty() || is_auto(text)) return std::nullopt;
    const DType d = parse_dtype(text, field);
    if (!recurrent)
      throw Error(field, "applies to a model with recurrent (Mamba, linear-attention, conv) layers; " +
                             m.name + " has none");
    return d;
  };
  t.state = state_type(o.mamba_cache_dtype, "--mamba-cache-dtype");
  t.ssm_state = state_type(o.mamba_ssm_cache_dtype, "--mamba-ssm-cache-dtype");
  return t;
}

void add_engine_options(CLI::App& app, EngineCliOptions& o, bool capacity) {
  app.add_option("--engine", o.engine,
                 "whose allocation rules: ideal (default), vllm, sglang, llamacpp, trtllm");
  // The versions each engine models, from core (the first is the default): every engine that has more
  // than one (core's engine_versions; SGLang's were left out of the help).
  std::string versions;
  for (const Engine e : {Engine::vllm, Engine::sglang, Engine::llamacpp, Engine::trtllm}) {
    if (engine_versions(e).empty()) continue;
    versions += (versions.empty() ? "" : "; ") + std::string(name(e)) + ":";
    for (const auto v : engine_versions(e)) versions += " " + std::string(v);
  }
  app.add_option("--engine-version", o.version,
                 versions +
                     " (the first is the default); vllm also takes a release number, 0.11 to 0.31 "
                     "(e.g. 0.19.0), sglang a 0.4.x or 0.5.x release (e.g. 0.5.3)");
  // Every engine option of core's table, with its flag and help.
  for (const auto& spec : engine_option_table()) {
    if (spec.capacity_only && !capacity) continue;
    const std::string flag(spec.cli_flag), help(spec.help), key(spec.key);
    if (spec.kind == OptionKind::flag)
      app.add_flag(option_names(flag), o.flags[key], alias_help(flag, help));
    else
      app.add_option(option_names(flag), o.values[key], alias_help(flag, help));
  }
  app.add_option(
      "--speculative-config", o.speculative_config,
      "vLLM's speculative decoding JSON: the drafter's layers share the KV pool "
      "(eagle, eagle3, draft_model with \"model\"; mtp from the config's num_nextn_predict_layers)");
  if (capacity) {
    app.add_option("--kv-memory", o.kv_memory,
                   "KV-cache memory per GPU as the engine logs it (bytes, or GiB ...), replacing the "
                   "engine's budget; under vLLM with pp, rank 0's as its log prints it (the first stage's): "
                   "with --gpu, every stage's pool is that less the last stage's sampler run");
    app.add_option("--from-log", o.from_log,
                   "a real start-up log (vLLM, SGLang, llama.cpp, TensorRT-LLM): plan against the KV memory "
                   "it logged, under its engine's rules");
  }
}

void add_capacity_options(CLI::App& app, CapacityOptions& o) {
  // The token-suffix rule, once per command's help: every token count (--context, --max-num-batched-tokens,
  // --max-tokens) is read by parse_tokens.
  app.add_option(
      option_names("--context"), o.context,
      alias_help("--context",
                 "tokens per sequence (default 4096; max: the engine's own limit for the model, as it "
                 "derives it from the config). Token counts read suffixes as vLLM does: k m g "
                 "= 10^3 10^6 10^9, K M G (or Ki Mi Gi) = 2^10 2^20 2^30; 32k = 32,000, 32K = "
                 "32,768"));
  app.add_option(option_names("--users"), o.users,
                 alias_help("--users",
                            "concurrent sequences (default 1; llama.cpp: slots, where llama-server "
                            "without -np has 4 with --kv-unified, tools/server/server.cpp, as "
                            "--from-launch reads it)"));
  app.add_option(option_names("--gpu-util"), o.gpu_util,
                 alias_help("--gpu-util",
                            "share of GPU memory the engine uses, (0, 1] (default: the engine's; 0.90, "
                            "vLLM 0.20 and later 0.92 (vllm/config/cache.py), SGLang's mem_fraction_static "
                            "from the GPU's memory and tp as server_args.py "
                            "computes it; TensorRT-LLM: free_gpu_memory_fraction, a share of the memory "
                            "left after the weights and the profile run, 0.9)"));
  app.add_option("--weights", o.weights, "weights of the whole model (size, or auto)");
  app.add_option("--overhead", o.overhead,
                 "runtime reserve per GPU, replacing the engine's budget components (default: vLLM V1's, "
                 "SGLang's and TensorRT-LLM's modelled budgets; 1 GiB for llama.cpp and vLLM V0); the "
                 "budget is then the flat one: nvidia-smi's size x utilisation - weights - reserve");
  app.add_option("--units", o.units, "iec (GiB, default) or si (GB)");
  app.add_flag("--json", o.json, "one JSON object");
}

void add_size_options(CLI::App& app, SizeOptions& o) {
  app.add_option(
      "--from-launch", o.from_launch,
      "an engine's launch line, quoted (vllm serve, python -m sglang.launch_server, llama-server, "
      "trtllm-serve): its model, engine and flags, each with the engine's meaning and numbers as the "
      "engine reads them; a flag kvplan does not model is an error. vLLM's --max-num-seqs and "
      "SGLang's --max-running-requests are read as --users: each scheduler's sequences, times the "
      "data-parallel ranks (vLLM's --max-num-seqs also sizes its sampler, kvplan's --max-num-seqs)");
  add_model_options(app, o.model);
  add_dtype_options(app, o.dtypes);
  add_engine_options(app, o.engine, true);
  add_streaming_options(app, o.streaming);
  auto& d = o.deploy;
  add_capacity_options(app, d);
  app.add_option("--gpu", d.gpu, "GPU preset id (see `kvplan gpus`)");
  app.add_option("--gpu-memory", d.gpu_memory, "memory per GPU (bytes, or with GiB/MiB/GB/MB)");
  app.add_option(
      "--gpus", d.gpus,
      "GPUs in all (default tp x pp; more make data-parallel replicas; alone, tensor parallel over them)");
  app.add_option(option_names("--tp"), d.tp, alias_help("--tp", "tensor-parallel size"));
  app.add_option(option_names("--pp"), d.pp, alias_help("--pp", "pipeline-parallel stages"));
  // llama.cpp's -c is every slot's cells together, not one sequence's: its own option, read with --users.
  app.add_option(
         option_names("--ctx-size"), d.ctx_size,
         alias_help("--ctx-size",
                    "llama.cpp's context of all slots together (n_ctx): kvplan plans ceil(-c / --users) "
                    "tokens per slot, the cells llama.cpp pads it to"))
      ->excludes(app.get_option("--context"));
  // Data-parallel attention with expert parallel: its own block.
  app.add_option("--dp-attention", d.dp_attention,
                 "MoE: attention as N data-parallel ranks of tp/N GPUs, experts over tp (SGLang --dp N "
                 "--enable-dp-attention; vLLM --data-parallel-size N --enable-expert-parallel); 1 (the "
                 "default) is off, on any model");
}

void reject_empty_values(const CLI::App& app) {
  for (const CLI::Option* opt : app.get_options())
    if (opt->count() > 0 && opt->get_expected_min() > 0)
      for (const auto& value : opt->results())
        if (value.empty()) throw Error(typed_flag(opt->get_name()), "is empty");
  // Every subcommand and option group ("model by flags"): an unfiltered get_subcommands() would miss the
  // groups, and `--kv-heads ''` planned MHA. Options not given have no results.
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    reject_empty_values(*sub);
}

EngineOptions resolve_engine(const EngineCliOptions& o) {
  EngineOptions e;
  e.engine = parse_engine(o.engine, "--engine");
  e.version = lowercase(o.version);  // as every enum-like value: case-insensitive ("V1" is v1)
  // A vLLM release number ("0.19.0") takes the rule set kvplan models for it.
  if (e.engine == Engine::vllm && !e.version.empty()) {
    const std::string typed = e.version;
    e.version = vllm_rules_for_release(typed);
    if (e.version != typed) e.release = typed;  // a release number: its budget rules (vllm_budget_release)
  }
  if (e.engine == Engine::sglang && !e.version.empty()) e.version = sglang_rules_for_release(e.version);
  if (e.engine == Engine::ideal && !o.version.empty())
    throw Error("--engine-version", "applies to an engine other than ideal");
  // Each option given: parsed by its kind, and refused unless it applies to the engine (core's rule).
  for (const auto& spec : engine_option_table()) {
    const std::string key(spec.key), flag(spec.cli_flag);
    const auto v = o.values.find(key);
    const bool given = spec.kind == OptionKind::flag ? o.flags.count(key) != 0 && o.flags.at(key)
                                                     : v != o.values.end() && !v->second.empty();
    if (!given) continue;
    require_engine_option_applies(spec, e);
    if (spec.kind == OptionKind::flag) {
      e.*std::get<bool EngineOptions::*>(spec.member) = true;
    } else if (spec.kind == OptionKind::ratio) {
      e.*std::get<double EngineOptions::*>(spec.member) = parse_positive(v->second, flag, true);
    } else if (v->second == "0" && spec.engine_default == std::array<std::uint64_t, 5>{}) {
      // 0 is the engine's own value where it has no other default (llama.cpp n_rs_seq 0: no rollback
      // snapshots, llama_context_default_params; no pool cap): the default, given.
      e.*std::get<std::uint64_t EngineOptions::*>(spec.member) = 0;
    } else {
      e.*std::get<std::uint64_t EngineOptions::*>(spec.member) = spec.kind == OptionKind::tokens
                                                                     ? parse_tokens(v->second, flag).value
                                                                     : parse_count(v->second, flag);
    }
  }
  return e;
}

void refuse_weights_with_weight_dtype(const std::string& weights, const std::string& weight_dtype) {
  if (!weights.empty() && !is_auto(weights) && !weight_dtype.empty())
    throw Error(
        "--weight-dtype",
        "give --weight-dtype or --weights SIZE, not both (--weights sets the bytes whatever the type)");
}

void apply_weight_dtype(const DtypeOptions& o, ModelSpec& m, Engine engine) {
  if (o.weight_dtype.empty() || lowercase(o.weight_dtype) == "ckpt") {  // ckpt: as in the checkpoint
    serve_fp32_weights(m, engine);
    return;
  }
  kvplan::apply_weight_dtype(m, parse_dtype(o.weight_dtype, "--weight-dtype"), engine);
}

Tokens parse_context(const std::string& text, ModelSpec& model, Engine engine) {
  if (lowercase(text) != "max") return parse_tokens(text, "--context");
  // The engine's own limit for the model, as it derives it from the config (context_limit.hpp).
  const auto limit = context_limit(model, engine);
  if (!limit)
    throw Error("--context",
                "max: the model gives no context length (max_position_embeddings or another "
                "length key): give a number of tokens");
  model.warnings.push_back("the context is the engine's own limit for the model: " + limit->text);
  return limit->tokens;
}

UnitSystem resolve_units(const std::string& units) {
  const std::string u = lowercase(units);
  if (u == "iec") return UnitSystem::iec;
  if (u == "si") return UnitSystem::si;
  throw Error("--units", "must be iec or si, got '" + units + "'");
}

double parse_positive(const std::string& text, std::string_view flag, bool at_most_one) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  const std::string got = ", got '" + text + "'";
  // strtod also reads hex ("0x10" was $16), "inf" and leading blanks ("  2" passed, "2 " did not): only a
  // plain decimal, digits with an optional point and exponent, is a number here.
  const bool decimal = !text.empty() && text.find_first_not_of("0123456789.eE+-") == std::string::npos &&
                       (std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.' ||
                        text.front() == '-' || text.front() == '+');
  if (!decimal || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
    throw Error(std::string(flag),
                (at_most_one ? "must be a number in (0, 1]" : "must be a positive number") + got);
  if (v <= 0.0 || (at_most_one && v > 1.0))
    throw Error(std::string(flag), (at_most_one ? "must be in (0, 1]" : "must be a positive number") + got);
  return v;
}

ModelSpec apply_speculative_config(const std::string& text, ModelSpec m) {
  if (text.empty()) return m;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw Error("--speculative-config",
                "must be a JSON object, e.g. '{\"method\": \"eagle\", \"model\": \"...\"}'");
  const auto str = [&](const char* key) -> std::string {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return "";
    if (!it->is_string()) throw Error("--speculative-config", std::string(key) + " must be a string");
    return it->get<std::string>();
  };
  if (const auto k = j.find("num_speculative_tokens");
      k != j.end() && !(k->is_number_unsigned() && k->get<std::uint64_t>() > 0))
    throw Error("--speculative-config", "num_speculative_tokens must be a positive integer");
  std::string method = str("method");
  const std::string model = str("model");
  if (method.empty()) method = model.empty() ? "" : "draft_model";
  if (method == "eagle" || method == "eagle3" || method == "draft_model") {
    if (model.empty())
      throw Error("--speculative-config", "method " + method + " needs \"model\" (the drafter)");
    return with_draft_layers(m, presets::find_model(model));
  }
  if (method == "mtp" || method == "deepseek_mtp" || method == "qwen3_next_mtp" || method == "ernie_mtp" ||
      method == "glm4_moe_mtp") {
    if (!model.empty()) return with_draft_layers(m, presets::find_model(model));
    return with_mtp_layers(m, m.mtp_layers);
  }
  if (method == "ngram" || method == "suffix") return m;  // prompt lookup: no drafter, no KV
  throw Error("--speculative-config",
              "unknown method '" + method +
                  "' (eagle, eagle3, draft_model, mtp, deepseek_mtp, qwen3_next_mtp, ngram)");
}

bool is_overflow(const Error& e) { return e.reason() == "overflows 64-bit arithmetic"; }

namespace {
/// llama.cpp's -c N with n slots: each slot's context. llama.cpp takes any N (src/llama-context.cpp, v0.4.0:
/// n_ctx = pad(N, 256), n_ctx_seq = pad(n_ctx / n_seq_max, 256) per stream; --kv-unified: one stream of
/// n_ctx). kvplan plans n slots of ceil(N / n) tokens, whose cells, pad(pad(ceil(N / n) x n, 256) / n, 256),
/// are llama.cpp's for every N and n (checked for N < 40,000, n <= 32, and live). Unified, its one stream of
/// pad(ceil(N / n) x n, 256) cells can exceed pad(N, 256): then refused, naming the multiples that plan
/// exactly. 0 is the model's trained context (n_ctx_train: its max_position_embeddings, a GGUF's
/// context_length), as llama.cpp takes it (src/llama-context.cpp: n_ctx = params.n_ctx == 0 ?
/// hparams.n_ctx_train : params.n_ctx; common/arg.cpp "0 = loaded from model", with no fitting to free
/// memory then), with a warning saying so. Throws kvplan::Error("--ctx-size", ...).
Tokens per_slot_context(const std::string& ctx_size, std::uint64_t slots, bool unified, ModelSpec& m) {
  const std::size_t first = ctx_size.find_first_not_of(" \t"), last = ctx_size.find_last_not_of(" \t");
  const std::size_t nonzero = first == std::string::npos ? first : ctx_size.find_first_not_of('0', first);
  const bool trained = first != std::string::npos && (nonzero == std::string::npos || nonzero == last + 1);
  if (trained && m.max_position_embeddings == 0)
    throw Error("--ctx-size", "0 is the model's trained context (llama.cpp's n_ctx_train), which " + m.id +
                                  " does not give (no max_position_embeddings or context_length)");
  if (trained)
    m.warnings.push_back(typed_flag("--ctx-size") + " 0: llama.cpp takes the model's trained context, " +
                         format_count(m.max_position_embeddings) + " tokens (n_ctx_train)");
  const Tokens total = trained ? Tokens{m.max_position_embeddings} : parse_tokens(ctx_size, "--ctx-size");
  const std::uint64_t per_slot = ceil_div(total.value, slots);
  const auto pad = [](std::uint64_t v) { return ceil_div(v, 256) * 256; };
  if (unified && total.value % slots != 0 &&
      pad(checked_mul(per_slot, slots, "--ctx-size")) != pad(total.value))
    throw Error("--ctx-size", format_count(total.value) + " cells are not a multiple of the " +
                                  format_count(slots) + " slots (" + typed_flag("--users") +
                                  ") and, with --kv-unified, " + format_count(per_slot) +
                                  " per slot would pad to " + "more cells than llama.cpp's " +
                                  format_count(pad(total.value)) +
                                  ": give a multiple, as kvplan plans the context of one slot");
  return Tokens{per_slot};
}
}  // namespace

PlanInputs build_inputs(const SizeOptions& o, std::optional<presets::EngineLogFigures>* log) {
  if (!o.from_launch.empty())  // only a harness that skips parse_command_line gets here with it
    throw Error("--from-launch", "is read by parse_command_line, before the options");
  // Without a model, --from-log's error says whose log it needs: before resolve_model's own.
  if (!o.engine.from_log.empty() && o.model.model.empty() && o.model.layers.empty())
    throw Error("--from-log", "give the model the log was written for (kvplan size MODEL --from-log FILE)");
  PlanInputs in;
  in.model = apply_speculative_config(o.engine.speculative_config, resolve_model(o.model));
  apply_launch_checks(in.model);  // the launch line's -ngl against the model, and its warnings
  const bool long_context_allowed = launch_checks().long_context_allowed;
  EngineCliOptions engine = o.engine;
  std::optional<presets::EngineLogFigures> figures;
  if (!o.engine.from_log.empty()) {
    if (!o.engine.kv_memory.empty()) throw Error("--from-log", "give --from-log or --kv-memory, not both");
    try {
      figures = presets::read_engine_log(o.engine.from_log);
    } catch (const Error& e) {
      throw Error("--from-log " + o.engine.from_log, e.reason());
    }
    // The log's engine unless another was asked for (the default is ideal).
    const Engine asked = parse_engine(engine.engine, "--engine");
    if (asked == Engine::ideal) {
      engine.engine = std::string(name(figures->engine));
    } else if (asked != figures->engine) {
      throw Error("--from-log", "is a " + std::string(name(figures->engine)) + " log, but --engine is " +
                                    std::string(name(asked)));
    }
  }
  in.engine = resolve_engine(engine);
  in.engine.long_context_allowed = long_context_allowed;
  for (auto& w : other_engines_names(in.engine.engine)) in.model.warnings.push_back(std::move(w));
  // vLLM's JSON under another engine is planned by vLLM's rule (the drafter's layers in the one pool): say
  // so.
  if (!o.engine.speculative_config.empty() && in.engine.engine != Engine::vllm &&
      in.engine.engine != Engine::ideal)
    in.model.warnings.push_back(
        "--speculative-config is vLLM's flag: under --engine " + std::string(name(in.engine.engine)) +
        " the drafter's layers are planned in the one KV pool as vLLM plans them; " +
        (in.engine.engine == Engine::llamacpp ? "llama.cpp's draft context (-md, -cd)"
         : in.engine.engine == Engine::sglang ? "SGLang's draft pool (--speculative-algorithm)"
                                              : "TensorRT-LLM's draft cache (speculative_config)") +
        " is not modelled");
  apply_streaming(o.streaming, in.engine.engine, in.model);
  in.kv = resolve_kv_dtypes(o.dtypes, in.model, &in.engine);
  // "auto" (given, or the default) on an fp32 checkpoint: where the GPU picks the type, say which.
  const auto is_auto_or_empty = [](const std::string& t) { return t.empty() || is_auto(t); };
  if (is_auto_or_empty(o.dtypes.kv_dtype) && is_auto_or_empty(o.dtypes.k_dtype) &&
      is_auto_or_empty(o.dtypes.v_dtype))
    if (auto note = auto_dtype_note(in.model, in.engine.engine))
      in.model.warnings.push_back(std::move(*note));
  if (!o.engine.kv_memory.empty()) {
    in.kv_memory = parse_memory_size(o.engine.kv_memory, "--kv-memory");
    if (*in.kv_memory == Bytes{0}) throw Error("--kv-memory", "must be positive");
  }
  if (figures) {
    in.kv_memory = figures->kv_memory;
    // Several vLLM KV lines (each node logs its first rank's): the smallest, taken, is the last stage's pool.
    in.kv_memory_is_pool =
        figures->engine == Engine::vllm &&
        std::count_if(figures->lines.begin(), figures->lines.end(), [](const std::string& l) {
          return l.find("Available KV cache memory") != std::string::npos;
        }) > 1;
  }
  if (log != nullptr) *log = std::move(figures);
  apply_weight_dtype(o.dtypes, in.model, in.engine.engine);
  const DeployOptions& d = o.deploy;
  (void)resolve_units(d.units);
  in.context = parse_context(d.context, in.model, in.engine.engine);
  in.users = parse_count(d.users, "--users");
  if (!d.ctx_size.empty())
    in.context = per_slot_context(d.ctx_size, in.users, in.engine.kv_unified, in.model);

  Parallelism& p = in.deployment.parallel;
  p.tp = d.tp.empty() ? 0 : parse_count(d.tp, "--tp");
  p.pp = d.pp.empty() ? 1 : parse_count(d.pp, "--pp");
  const std::uint64_t gpus = d.gpus.empty() ? 0 : parse_count(d.gpus, "--gpus");
  // llama.cpp splits no KV cache by heads: one llama-server over several GPUs splits its layers (-sm layer,
  // its default), kvplan's pp. So --gpus alone is one server's layer split there, tp 1.
  if (in.engine.engine == Engine::llamacpp && p.tp == 0 && gpus != 0) {
    p.tp = 1;
    if (d.pp.empty()) p.pp = gpus;
  }
  const bool tp_from_gpus = p.tp == 0 && gpus != 0;
  if (p.tp == 0) p.tp = gpus == 0 ? 1 : gpus / p.pp;  // --gpus alone: tensor parallel over them
  if (p.tp == 0)
    throw Error("--gpus", std::to_string(gpus) + " GPUs cannot hold " + std::to_string(p.pp) + " stages");
  if (tp_from_gpus) {
    // The tp came from --gpus, not from --tp: a tp the model cannot take is --gpus's to explain.
    try {
      validate_parallelism(in.model, Parallelism{p.tp, 1, 1});
    } catch (const Error& e) {
      if (e.field() != "tp") throw;
      throw Error("--gpus", "without --tp means tensor parallel over the GPUs of a replica, and " +
                                e.reason() + ": give --tp (more GPUs than tp x pp make replicas)");
    }
  }
  if (gpus != 0) {
    try {
      p.dp = replicas_of(gpus, p.tp, p.pp);
    } catch (const Error& e) {
      throw Error("--gpus", e.reason());
    }
  }

  // Data-parallel attention (checked against tp and the model by make_plan).
  if (!d.dp_attention.empty()) in.deployment.dp_attention = parse_count(d.dp_attention, "--dp-attention");

  if (!d.gpu_util.empty())
    in.deployment.gpu_memory_utilization = parse_positive(d.gpu_util, "--gpu-util", true);
  if (!d.overhead.empty()) in.deployment.reserve = parse_memory_size(d.overhead, "--overhead");
  refuse_weights_with_weight_dtype(d.weights, o.dtypes.weight_dtype);
  if (!d.weights.empty() && !is_auto(d.weights)) {
    in.deployment.weights = parse_memory_size(d.weights, "--weights");
    // Each GPU holds its weights and the reserve: the sum must exist for any split.
    (void)checked_add(in.deployment.weights->value, in.deployment.reserve.value_or(kDefaultReserve).value,
                      d.overhead.empty() ? "--weights" : "--weights plus --overhead");
  }
  if (!d.gpu.empty() && !d.gpu_memory.empty()) throw Error("--gpu", "give --gpu or --gpu-memory, not both");
  if (!d.gpu.empty()) in.gpu = presets::find_gpu(d.gpu);
  if (!d.gpu_memory.empty()) {
    const Bytes memory = parse_memory_size(d.gpu_memory, "--gpu-memory");
    if (memory == Bytes{0}) throw Error("--gpu-memory", "must be positive");
    in.gpu = custom_gpu(memory);
  }
  return in;
}

}  // namespace kvplan::cli
