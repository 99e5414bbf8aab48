#include "render.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "kvplan/context_limit.hpp"
#include "kvplan/fit.hpp"
#include "kvplan/format.hpp"
#include "kvplan/model_json.hpp"
#include "kvplan/weights.hpp"

namespace kvplan::cli {

void print(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }

std::string dump(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string user_mark(bool user, const std::filesystem::path& path) {
  return user ? "  (user) " + path.string() : std::string{};
}

void warn(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) std::fprintf(stderr, "kvplan: warning: %s\n", printable(w).c_str());
}

namespace {
using nlohmann::json;

std::string both(Bytes b, UnitSystem u) {
  return fmt::format("{} ({})", format_bytes(b, u), format_bytes_exact(b));
}

std::string dtype_label(const KvDtypes& t) {
  if (t.k == t.v) return std::string(name(t.k));
  return fmt::format("K {}, V {}", name(t.k), name(t.v));
}

std::string layer_label(const AttentionLayer& a) {
  switch (a.kind) {
    case AttentionKind::mlp_only: return "no token mixer (MLP only)";
    case AttentionKind::recurrent: return describe(a.recurrent) + " (state per sequence, no per-token cache)";
    case AttentionKind::mla:
      return fmt::format("MLA: kv_lora_rank {} + qk_rope_head_dim {}, {} heads{}", a.kv_lora_rank,
                         a.qk_rope_head_dim, a.num_attention_heads,
                         a.indexer_head_dim != 0
                             ? fmt::format(", indexer key {} (fp8 + fp32 scale)", a.indexer_head_dim)
                             : std::string());
    default: {
      const std::string scheme = a.num_key_value_heads == a.num_attention_heads ? "MHA"
                                 : a.num_key_value_heads == 1                   ? "MQA"
                                                                                : "GQA";
      std::string s =
          fmt::format("{} {}/{} heads, head_dim {}", scheme, a.num_attention_heads, a.num_key_value_heads,
                      a.head_dim_k == a.head_dim_v ? std::to_string(a.head_dim_k)
                                                   : fmt::format("k {} v {}", a.head_dim_k, a.head_dim_v));
      if (a.kind == AttentionKind::sliding) s += fmt::format(", sliding window {}", format_count(a.window));
      if (a.kind == AttentionKind::chunked) s += fmt::format(", chunk {}", format_count(a.window));
      if (a.kv_shared) s += ", reuses an earlier layer's K/V (caches nothing)";
      if (a.parallel_recurrent) s += " + parallel " + describe(a.recurrent);
      return s;
    }
  }
}

json engine_json(const EngineResult& e) {
  json j{{"name", std::string(name(e.engine))},
         {"rules", e.rules},
         {"block_size", e.block_size},
         {"page_bytes", e.page_bytes.value},
         {"bytes_per_token", e.bytes_per_token ? json(e.bytes_per_token->value) : json(nullptr)},
         {"per_token_note", e.per_token_note},
         {"kv_bytes_total", e.kv_bytes_total.value},
         {"log_lines", e.log_lines},
         {"notes", e.notes}};
  if (e.num_blocks) j["num_blocks"] = *e.num_blocks;
  if (e.kv_cache_tokens) j["kv_cache_tokens"] = *e.kv_cache_tokens;
  if (e.max_concurrency) j["max_concurrency"] = *e.max_concurrency;
  if (e.max_context || e.max_context_unbounded)
    j["max_context"] = e.max_context ? json(*e.max_context) : json(nullptr);
  json caches = json::array();
  for (const auto& c : e.caches)
    caches.push_back({{"name", c.name},
                      {"cells", c.cells},
                      {"streams", c.streams},
                      {"layers", c.layers},
                      {"k_bytes", c.k_bytes.value},
                      {"v_bytes", c.v_bytes.value}});
  if (!e.caches.empty()) j["caches"] = caches;
  return j;
}

std::string engine_text(const EngineResult& e, UnitSystem u) {
  if (e.engine == Engine::ideal) return "";
  std::string out = fmt::format("\nEngine: {}\n  rules: {}\n", name(e.engine), e.rules);
  if (e.block_size != 0)
    out += fmt::format("  {:<38}{}\n", "block / page size", fmt::format("{} tokens", e.block_size));
  if (e.bytes_per_token)
    out += fmt::format("  {:<38}{} ({})\n", "bytes per token (engine)", format_bytes(*e.bytes_per_token, u),
                       format_bytes_exact(*e.bytes_per_token));
  if (!e.per_token_note.empty()) out += fmt::format("  {}\n", e.per_token_note);
  for (const auto& c : e.caches)
    out += fmt::format("  {} cache: {} cells x {} stream(s), {} layers, K {} MiB, V {} MiB\n", c.name,
                       format_count(c.cells), c.streams, c.layers, mib(c.k_bytes), mib(c.v_bytes));
  if (!e.log_lines.empty()) {
    out += "  what the engine will print:\n";
    for (const auto& l : e.log_lines) out += "    " + l + "\n";
  }
  for (const auto& n : e.notes) out += "  note: " + n + "\n";
  return out;
}

std::string row(std::string_view label, const std::string& value) {
  // A label as wide as the column keeps two spaces before its value ("...engine rules)  160 GiB").
  if (label.size() >= 38) return fmt::format("  {}  {}\n", label, value);
  return fmt::format("  {:<38}{}\n", label, value);
}
}  // namespace

json layout_json(const Plan& p) {
  json groups = json::array();
  for (const auto& g : p.groups) {
    groups.push_back({{"first_layer", g.first_layer},
                      {"layers", g.group.count},
                      {"attention", presets::attention_to_json(g.group.attention)},
                      {"bytes_per_token_per_layer", g.bytes_per_token_per_layer.value},
                      {"bytes_per_token", g.bytes_per_token.value},
                      {"state_bytes_per_sequence", g.state_bytes_per_sequence.value}});
  }
  const auto& m = p.inputs.model;
  json j{{"model", {{"id", m.id}, {"name", m.name}, {"source", m.source}, {"layers", p.layers}}},
         {"engine", engine_json(p.engine)},
         {"k_dtype", std::string(name(p.inputs.kv.k))},
         {"v_dtype", std::string(name(p.inputs.kv.v))},
         {"groups", groups},
         {"bytes_per_token", p.bytes_per_token.value},
         {"full_bytes_per_token", p.full_bytes_per_token.value},
         {"state_bytes_per_sequence", p.state_bytes_per_sequence.value}};
  if (m.weights_bytes)
    j["checkpoint_weights"] = {{"bytes", m.weights_bytes->value},
                               {"parameters", m.weights_parameters},
                               {"source", m.weights_origin}};
  return j;
}

std::string layout_text(const Plan& p, UnitSystem u) {
  const auto& m = p.inputs.model;
  std::string out =
      fmt::format("{} ({}): {} layers, KV {}, engine rules: {}\n\n", printable(m.name), printable(m.source),
                  p.layers, dtype_label(p.inputs.kv), name(p.engine.engine));
  out += fmt::format("  {:<11} {:<62} {:>14} {:>16}\n", "layers", "attention", "B/token/layer", "B/token");
  for (const auto& g : p.groups) {
    const std::string range = g.group.count == 1
                                  ? std::to_string(g.first_layer)
                                  : fmt::format("{}-{}", g.first_layer, g.first_layer + g.group.count - 1);
    out +=
        fmt::format("  {:<11} {:<62} {:>14} {:>16}\n", range, layer_label(g.group.attention),
                    format_count(g.bytes_per_token_per_layer.value), format_count(g.bytes_per_token.value));
  }
  out += "\n";
  out += row("bytes per token (all cached layers)", both(p.bytes_per_token, u));
  out += row("full bytes per token (never cap)", both(p.full_bytes_per_token, u));
  if (p.state_bytes_per_sequence != Bytes{0})
    out += row("recurrent state per sequence", both(p.state_bytes_per_sequence, u));
  if (m.weights_bytes)
    out += row("weights", fmt::format("{}, {} parameters ({})", both(*m.weights_bytes, u),
                                      format_count(m.weights_parameters), m.weights_origin));
  out += engine_text(p.engine, u);
  return out;
}

namespace {
json budget_json(const MemoryBudget& b) {
  return {{"modelled", b.modelled},
          {"rules", b.modelled ? json(b.rules) : json(nullptr)},
          {"total", b.total.value},
          {"runtime_total", b.runtime_total},
          {"requested", b.requested.value},
          {"weights", b.weights.value},
          {"activation", b.activation.value},
          {"non_torch", b.non_torch.value},
          {"cuda_graphs", b.cuda_graphs.value},
          {"reserve", b.reserve.value},
          {"utilization", b.utilization},
          {"kv", b.kv.value},
          {"first_stage_kv", b.first_stage_kv.value},
          {"max_num_seqs", b.max_num_seqs != 0 ? json(b.max_num_seqs) : json(nullptr)},
          {"max_num_batched_tokens",
           b.max_num_batched_tokens != 0 ? json(b.max_num_batched_tokens) : json(nullptr)},
          {"lines", b.lines},
          {"notes", b.notes}};
}

std::string budget_text(const MemoryBudget& b, Engine engine, UnitSystem u) {
  if (!b.modelled) return "";
  std::string out = "\nMemory budget per GPU (" + b.rules + ")\n";
  out += row(b.runtime_total ? "GPU memory (runtime total)" : "GPU memory (nvidia-smi)",
             format_bytes(b.total, u));
  if (engine == Engine::sglang) {  // the fraction applies to what is free before the weights load
    out += row("held before the weights load", format_bytes(b.non_torch, u));
    out += row("requested (free x " + format_shortest(b.utilization) + ")", format_bytes(b.requested, u));
    out += row("weights", format_bytes(b.weights, u));
    out += row("KV cache", format_bytes(b.kv, u));
    out += "  as SGLang logs it:\n";
  } else if (engine == Engine::llamacpp) {  // no fraction: the GPU less the model and compute buffers
    out += row("weights (model buffer)", format_bytes(b.weights, u));
    out += row("compute buffer", format_bytes(b.activation, u));
    out += row("KV cache", format_bytes(b.kv, u));
    out += "  as llama.cpp logs it:\n";
  } else {
    const bool trtllm = engine == Engine::trtllm;  // the fraction applies to what the profile leaves
    out += row(trtllm ? "held (profile peak + KV pool)" : "requested (x utilisation)",
               format_bytes(b.requested, u));
    out += row("weights", format_bytes(b.weights, u));
    out += row("activation peak (profile run)", format_bytes(b.activation, u));
    out += row("non-torch memory", format_bytes(b.non_torch, u));
    out += row("CUDA graphs (subtracted)", format_bytes(b.cuda_graphs, u));
    out += row(trtllm ? "KV cache (rest x " + format_shortest(b.utilization) + ")" : "KV cache",
               format_bytes(b.kv, u));
    out += trtllm ? "  as TensorRT-LLM logs it:\n" : "  as vLLM logs it:\n";
  }
  for (const auto& l : b.lines) out += "    " + l + "\n";
  for (const auto& n : b.notes) out += "  note: " + n + "\n";
  return out;
}
}  // namespace

json plan_json(const Plan& p) {
  const auto& in = p.inputs;
  const auto& g = p.per_gpu;
  json j = layout_json(p);
  j["inputs"] = {
      {"context", in.context.value},
      {"users", in.users},
      {"tp", in.deployment.parallel.tp},
      {"pp", in.deployment.parallel.pp},
      {"dp", in.deployment.parallel.dp},
      {"dp_attention", in.deployment.dp_attention},
      {"gpus", p.gpus},
      // The fraction the budget used: the user's, or the engine's default for this GPU and layout.
      {"gpu_memory_utilization", applied_gpu_utilization(p)},
      {"gpu_memory_utilization_default", !in.deployment.gpu_memory_utilization.has_value()},
      {"reserve_bytes", in.deployment.reserve ? json(in.deployment.reserve->value) : json(nullptr)},
      {"weight_dtype", std::string(name(in.model.weight_dtype))}};
  if (in.deployment.dp_attention > 1) {  // the KV's attention ranks, the experts' EP group
    j["inputs"]["attention_tp"] = in.deployment.parallel.tp / in.deployment.dp_attention;
    j["inputs"]["expert_parallel"] = in.deployment.parallel.tp;
  }
  if (in.gpu) j["gpu"] = {{"id", in.gpu->id}, {"name", in.gpu->name}, {"memory_bytes", in.gpu->memory.value}};
  j["kv_bytes_per_sequence"] = p.kv_bytes_per_sequence.value;
  j["kv_bytes_total"] = p.kv_bytes_total.value;
  j["parameters"] = p.parameters;
  j["active_parameters"] = p.active_parameters;
  j["weights_bytes"] = p.weights_bytes.value;
  j["weights_from_architecture"] = p.weights_from_architecture;
  j["weights_source"] = in.deployment.weights    ? std::string("given")
                        : in.model.weights_bytes ? in.model.weights_origin
                                                 : std::string("architecture (estimate)");
  json per_gpu{{"users", g.users},
               {"bytes_per_sequence", g.bytes_per_sequence.value},
               {"kv_bytes_total", g.kv_bytes_total.value},
               {"weights_bytes", g.weights_bytes.value},
               {"reserve_bytes", g.reserve_bytes.value}};
  if (p.has_gpu) {
    per_gpu["usable_bytes"] = g.usable_bytes.value;
    per_gpu["available_kv_bytes"] = g.available_kv_bytes.value;
    per_gpu["free_bytes"] = g.free_bytes.value;
    if (!in.kv_memory) per_gpu["budget"] = budget_json(p.budget);
  } else {
    per_gpu["available_kv_bytes"] = nullptr;
  }
  j["per_gpu"] = per_gpu;
  json stages = json::array();
  for (const auto& s : p.stages)
    stages.push_back({{"first_layer", s.stage.first},
                      {"layers", s.stage.count},
                      {"bytes_per_token", s.bytes_per_token.value},
                      {"kv_bytes_per_sequence", s.kv_bytes.value},
                      {"state_bytes_per_sequence", s.state_bytes.value}});
  j["stages"] = stages;
  // The exact layout's figures; the top-level ones are the engine's (equal under the ideal engine).
  j["ideal"] = {{"kv_bytes_total", p.ideal_kv_bytes_total.value},
                {"per_gpu_kv_bytes_total", p.ideal_per_gpu_kv_bytes_total.value}};
  if (p.has_gpu) {
    j["fits"] = p.fits;
    j["max_users"] = p.max_users;
    j["max_context"] = p.max_context ? json(p.max_context->value) : json(nullptr);
    j["max_context_unbounded"] = !p.max_context.has_value();
    // The memory figure stays; this says it passes the limit the engine derives (context_limit).
    j["max_context_past_max_position_embeddings"] =
        p.max_context.has_value() && past_max_position(in.model, *p.max_context, in.engine.engine);
    // The limit that flag is against: the engine's derived one, which may differ from the model's
    // max_position_embeddings (RoPE scaling, model_max_length); null when unknown.
    const auto limit = engine_max_context(in.model, in.engine.engine);
    j["engine_max_context"] = limit ? json(limit->value) : json(nullptr);
    j["ideal"]["max_users"] = p.ideal_max_users;
    j["ideal"]["max_context"] = p.ideal_max_context ? json(p.ideal_max_context->value) : json(nullptr);
    if (p.engine.kv_cache_tokens) j["kv_cache_tokens"] = *p.engine.kv_cache_tokens;
    if (p.engine.max_concurrency) j["max_concurrency"] = *p.engine.max_concurrency;
  }
  if (in.kv_memory) j["kv_memory_bytes"] = in.kv_memory->value;
  j["limit"] = describe_limit(p.limit, UnitSystem::iec);
  j["warnings"] = p.warnings;
  return j;
}

json log_json(const presets::EngineLogFigures& f) {
  std::vector<std::string> lines;
  for (const auto& l : f.lines) lines.push_back(printable(l));
  return {{"engine", std::string(name(f.engine))},
          {"version", f.version.empty() ? json(nullptr) : json(f.version)},
          {"kv_memory_bytes", f.kv_memory.value},
          {"kv_cache_tokens", f.kv_cache_tokens ? json(*f.kv_cache_tokens) : json(nullptr)},
          {"lines", lines}};
}

std::string log_text(const presets::EngineLogFigures& f, const Plan& p, UnitSystem u) {
  std::string out = fmt::format("\nFrom the start-up log ({}{})\n", name(f.engine),
                                f.version.empty() ? std::string() : " " + printable(f.version));
  out += row("KV memory per GPU (logged)", both(f.kv_memory, u));
  if (f.kv_cache_tokens) {
    out += row("KV cache tokens (logged)", format_count(*f.kv_cache_tokens));
    if (p.engine.kv_cache_tokens)
      out += row("  kvplan from the logged memory",
                 format_count(*p.engine.kv_cache_tokens) + " (the log's memory is rounded to 0.01)");
  }
  for (const auto& l : f.lines) out += "    " + printable(l) + "\n";
  return out;
}

std::string plan_text(const Plan& p, UnitSystem u) {
  const auto& in = p.inputs;
  const auto& m = in.model;
  const auto& par = in.deployment.parallel;
  const auto& g = p.per_gpu;
  std::string out = fmt::format(
      "{} ({}), engine rules: {}\n\n", printable(m.name), printable(m.source),
      in.engine.engine == Engine::ideal ? std::string("ideal (exact layout, no paging)") : p.engine.rules);
  out += "Inputs\n";
  out += row("context", format_count(in.context.value) + " tokens");
  out += row("users (concurrent sequences)", format_count(in.users));
  out += row("KV cache dtype", dtype_label(in.kv));
  out += row("weights", p.weights_from_architecture && p.parameters == 0
                            ? std::string("unknown, counted as 0 B (pass --weights)")
                        : p.weights_from_architecture
                            ? fmt::format("{}, {} parameters (from the architecture)", weight_dtype_label(m),
                                          format_count(p.parameters))
                        : !in.deployment.weights && m.weights_bytes
                            ? fmt::format("{}, {} parameters ({})", format_bytes(p.weights_bytes, u),
                                          format_count(m.weights_parameters), m.weights_origin)
                            : fmt::format("{} (given)", format_bytes(p.weights_bytes, u)));
  if (in.gpu)
    out += row("GPUs", fmt::format("{} x {} ({} each)", format_count(p.gpus), printable(in.gpu->name),
                                   format_bytes(in.gpu->memory, u)));
  else
    out += row("GPUs", fmt::format("{} (no GPU memory given)", format_count(p.gpus)));
  out += row("parallelism", fmt::format("tp {}, pp {}, replicas {}", par.tp, par.pp, par.dp));
  if (in.deployment.dp_attention > 1)
    out += row("DP attention",
               fmt::format("{} ranks of attention tp {} per replica, experts over EP {}",
                           in.deployment.dp_attention, par.tp / in.deployment.dp_attention, par.tp));
  if (in.gpu)
    out += row("utilisation, reserve",
               fmt::format("{}{}, {}", format_shortest(applied_gpu_utilization(p)),
                           in.deployment.gpu_memory_utilization ? "" : " (the engine's default)",
                           in.deployment.reserve ? format_bytes(*in.deployment.reserve, u) + " per GPU"
                           : p.budget.modelled   ? std::string("the engine's budget (below)")
                                                 : format_bytes(kDefaultReserve, u) + " per GPU (default)"));

  out += "\nKV cache\n";
  out += row(fmt::format("bytes per token ({} layers)", p.layers), both(p.bytes_per_token, u));
  out += row("full bytes per token (never cap)", both(p.full_bytes_per_token, u));
  out += row(fmt::format("per sequence ({} tokens)", format_count(in.context.value)),
             both(p.kv_bytes_per_sequence, u));
  if (p.state_bytes_per_sequence != Bytes{0})
    out += row("recurrent state per sequence", both(p.state_bytes_per_sequence, u));
  const bool engine = in.engine.engine != Engine::ideal;
  out += row(fmt::format("total ({}, all GPUs{})", format_count(in.users, "user", "users"),
                         engine ? ", engine rules" : ""),
             both(p.kv_bytes_total, u));
  if (engine && p.ideal_kv_bytes_total != p.kv_bytes_total)
    out += row("  exact layout (ideal)", both(p.ideal_kv_bytes_total, u));

  out += fmt::format("\nPer GPU (fullest of {} stage{}, one {})\n", par.pp, par.pp == 1 ? "" : "s",
                     in.deployment.dp_attention > 1 ? "GPU of an attention-DP rank" : "tp rank");
  out += row("weights", format_bytes(g.weights_bytes, u));
  out += row(
      fmt::format("KV cache ({}{})", format_count(g.users, "user", "users"), engine ? ", engine rules" : ""),
      both(g.kv_bytes_total, u));
  if (engine && p.ideal_per_gpu_kv_bytes_total != g.kv_bytes_total)
    out += row("  exact layout (ideal)", both(p.ideal_per_gpu_kv_bytes_total, u));
  if (p.has_gpu) {
    if (!in.kv_memory) {
      out += row("reserve", format_bytes(g.reserve_bytes, u));
      const RequestedName usable = requested_name(in.engine.engine, p.budget);  // the engine's words
      out += row(usable.name + " (" + usable.basis + ")", format_bytes(g.usable_bytes, u));
    }
    if (in.kv_memory && p.limit.kind == Limit::Kind::weights) {  // the pool given and the weights overflow
      out += row("KV memory (given, past what the weights leave)", both(*in.kv_memory, u));
    } else if (in.kv_memory &&
               g.available_kv_bytes != *in.kv_memory) {  // vLLM with pp: rank 0's figure given
      out += row("KV memory (given, rank 0's)", both(*in.kv_memory, u));
      out += row("  every stage's pool (the last's)", both(g.available_kv_bytes, u));
    } else {
      out += row(in.kv_memory ? "KV memory (given)" : "available for KV", both(g.available_kv_bytes, u));
    }
    out += row("free after KV", format_bytes(g.free_bytes, u));
    out += "\nCapacity\n";
    out += row("fits", p.fits ? "yes" : "NO");
    out +=
        row(fmt::format("max users at {} tokens", format_count(in.context.value)), format_count(p.max_users));
    out += row(fmt::format("max context for {}", format_count(in.users, "user", "users")),
               p.max_context ? max_context_text(in.model, *p.max_context, in.engine.engine)
                             : "unbounded (every layer windowed)");
  }
  if (p.has_gpu && !in.kv_memory) out += budget_text(p.budget, in.engine.engine, u);
  out += engine_text(p.engine, u);
  out += "\n" + describe_limit(p.limit, u) + "\n";
  return out;
}

json compare_json(const ModelSpec& m, const KvDtypes& t, Tokens context,
                  const std::vector<VariantFigures>& rows, const std::optional<StreamingCap>& streaming) {
  json arr = json::array();
  for (const auto& r : rows)
    arr.push_back({{"variant", r.label},
                   {"bytes_per_token", r.bytes_per_token.value},
                   {"full_bytes_per_token", r.full_bytes_per_token.value},
                   {"kv_bytes_per_sequence", r.kv_bytes_per_sequence.value},
                   {"saving_vs_mha", r.saving_vs_mha},
                   {"engine_bytes_per_token",
                    r.engine_bytes_per_token ? json(r.engine_bytes_per_token->value) : json(nullptr)},
                   {"engine_kv_bytes_per_sequence",
                    r.engine_note.empty() ? json(r.engine_kv_bytes_per_sequence.value) : json(nullptr)},
                   {"engine_note", r.engine_note.empty() ? json(nullptr) : json(r.engine_note)}});
  return json{{"model", {{"id", m.id}, {"name", m.name}}},
              {"context", context.value},
              {"k_dtype", std::string(name(t.k))},
              {"v_dtype", std::string(name(t.v))},
              {"streaming", streaming ? json{{"variant", streaming_label(*streaming)},
                                             {"sink_tokens", streaming->sink},
                                             {"recent_window", streaming->recent},
                                             {"capped_variants", json::array({streaming_label(*streaming)})}}
                                      : json(nullptr)},
              {"variants", arr}};
}

std::string compare_text(const ModelSpec& m, const KvDtypes& t, Tokens context,
                         const std::vector<VariantFigures>& rows, UnitSystem u,
                         const std::optional<StreamingCap>& streaming) {
  std::string out = fmt::format("{}: attention variants at {} tokens, KV {}\n\n", printable(m.name),
                                format_count(context.value), dtype_label(t));
  out += fmt::format("  {:<24} {:>16} {:>14} {:>16} {:>12}\n", "variant", "B/token", "per token",
                     "per sequence", "vs MHA");
  for (const auto& r : rows)
    out += fmt::format("  {:<24} {:>16} {:>14} {:>16} {:>11}x\n", r.label,
                       format_count(r.bytes_per_token.value), format_bytes(r.bytes_per_token, u),
                       format_bytes(r.kv_bytes_per_sequence, u), format_fixed(r.saving_vs_mha, 1));
  if (!rows.empty() && rows.front().engine_kv_bytes_per_sequence != Bytes{0}) {
    out += "\n  under the engine's rules (one sequence, tp 1):\n";
    for (const auto& r : rows)
      if (!r.engine_note.empty())
        out += fmt::format("  {:<24} {}\n", r.label, r.engine_note);
      else
        out += fmt::format(
            "  {:<24} {:>16} {:>14} {:>16}\n", r.label,
            r.engine_bytes_per_token ? format_count(r.engine_bytes_per_token->value) : std::string("-"),
            r.engine_bytes_per_token ? format_bytes(*r.engine_bytes_per_token, u) : std::string("-"),
            format_bytes(r.engine_kv_bytes_per_sequence, u));
  }
  out += "\n  vs MHA: MHA's KV per sequence / the variant's (the lesson's 8x for GQA-8 of 64 heads)\n";
  if (streaming)
    out += fmt::format(
        "  {}: the model as configured, each full-attention layer keeping {} and the last {} ({} in "
        "all; sliding, chunked and MLA layers as they are); the cap is on this row only, the others are "
        "uncapped\n",
        streaming_label(*streaming), format_count(streaming->sink, "sink token", "sink tokens"),
        format_count(streaming->recent, "token", "tokens"),
        format_count(streaming->sink + streaming->recent, "token", "tokens"));
  return out;
}

}  // namespace kvplan::cli
