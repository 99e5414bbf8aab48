#include "kvplan/context_limit.hpp"

#include <cmath>
#include <string_view>

#include "kvplan/error.hpp"
#include "kvplan/fit.hpp"
#include "kvplan/format.hpp"

namespace kvplan {

namespace {
/// The context length every engine assumes for a config with no length key: vLLM's
/// _get_and_verify_max_len (default_max_len = 2048, with a warning), SGLang's get_context_length
/// (return 2048), TensorRT-LLM's _infer_max_seq_len_from_config (inferred_max_seq_len = 2048).
constexpr std::uint64_t kNoLengthKeyDefault = 2048;

/// `n` x `factor`, truncated (vLLM's and SGLang's int()) or rounded up (TensorRT-LLM's math.ceil). A
/// result under one token (a factor such as 1e-300) or past 2^63 tokens is no context any engine can serve,
/// and kvplan's exact token counts cannot hold the latter: an Error naming `<rope key>/factor`, never a
/// wrapped or zero limit.
std::uint64_t scaled(std::uint64_t n, const RopeScaling& rope, double factor, std::string_view engine,
                     bool round_up) {
  const long double v = static_cast<long double>(n) * static_cast<long double>(factor);
  const long double r = round_up ? std::ceil(v) : std::floor(v);
  const std::string product = format_count(n) + " x " + format_shortest(factor);
  if (!(r >= 1.0L))
    throw Error(rope.key + "/factor", product + " is under one token (" + std::string(engine) +
                                          " truncates it to 0): no engine can serve a context; give the "
                                          "model's RoPE scaling factor");
  if (!(r < 9223372036854775808.0L))  // 2^63
    throw Error(rope.key + "/factor", product +
                                          " is past 2^63 tokens: no engine holds such a context, and "
                                          "kvplan's exact token counts cannot; give the model's RoPE "
                                          "scaling factor");
  return static_cast<std::uint64_t>(r);
}

/// The config's value of a length key (max_position_embeddings from the model); 0 when absent.
std::uint64_t length(const ModelSpec& m, std::string_view key) {
  if (key == "max_position_embeddings") return m.max_position_embeddings;
  for (const auto& [k, v] : m.context_keys.lengths)
    if (k == key) return v;
  return 0;
}

/// The rope_type the engines see: vLLM's patch_rope_parameters renames "su" to "longrope" and "mrope" to
/// "default"; an object without one reads as "default" (no factor in transformers' default RoPE).
std::string rope_type(const RopeScaling& r) {
  if (r.type == "su") return "longrope";
  if (r.type == "mrope" || r.type.empty()) return "default";
  return r.type;
}

std::string keyed(std::string_view key, std::uint64_t v) { return std::string(key) + " " + format_count(v); }

std::optional<ContextLimit> vllm_limit(const ModelSpec& m) {
  static constexpr std::string_view keys[] = {
      "max_position_embeddings", "n_positions",         "max_seq_len",    "seq_length", "model_max_length",
      "max_target_positions",    "max_sequence_length", "max_seq_length", "seq_len"};
  std::uint64_t derived = 0;
  std::string_view key;
  for (const auto k : keys)
    if (const std::uint64_t v = length(m, k); v != 0 && (key.empty() || v < derived)) {
      derived = v;
      key = k;
    }
  // For Command-R / Cohere: model_max_length, when set, replaces the smallest.
  const std::uint64_t model_max = length(m, "model_max_length");
  if (model_max != 0) {
    derived = model_max;
    key = "model_max_length";
  }
  std::string how;
  if (!key.empty()) {
    how = keyed(key, derived);
  } else if (m.context_keys.no_length_key) {
    derived = kNoLengthKeyDefault;  // before the RoPE factor, as _get_and_verify_max_len applies it
    how = "no length key in the config: vLLM warns and assumes " + format_count(derived);
  } else {
    return std::nullopt;
  }
  const RopeScaling& r = m.context_keys.rope;
  if (!r.key.empty()) {
    const std::string type = rope_type(r);
    if (m.context_keys.model_type.find("gemma3") != std::string::npos) {
      how += "; no " + r.key + " factor for gemma3";
    } else if (type == "longrope" || type == "llama3") {
      how += "; " + r.key + " " + type + ": no factor";
    } else {
      const double factor = r.factor > 0 ? r.factor : 1.0;
      if (type == "yarn" && r.original_max_position_embeddings != 0) {
        derived = r.original_max_position_embeddings;
        how = keyed("original_max_position_embeddings", derived);
      }
      if (factor != 1.0 || type == "yarn") {
        derived = scaled(derived, r, factor, "vLLM", false);
        how += " x " + r.key + " factor " + format_shortest(factor) + ", " + type;
      }
    }
  }
  // A --max-model-len up to model_max_length passes too.
  if (model_max > derived) {
    derived = model_max;
    how += "; model_max_length " + format_count(model_max) + " allows more";
  }
  return ContextLimit{Tokens{derived},
                      "vLLM's derived max_model_len " + format_count(derived) + " (" + how + ")",
                      "vLLM refuses it without " + std::string(long_context_env(Engine::vllm)),
                      std::string(long_context_env(Engine::vllm))};
}

std::optional<ContextLimit> sglang_limit(const ModelSpec& m) {
  static constexpr std::string_view keys[] = {"max_sequence_length", "seq_length", "max_seq_len",
                                              "model_max_length", "max_position_embeddings"};
  std::string_view key;
  std::uint64_t base = 0;
  for (const auto k : keys)
    if (const std::uint64_t v = length(m, k); v != 0) {
      key = k;
      base = v;
      break;
    }
  if (key.empty()) {
    if (!m.context_keys.no_length_key) return std::nullopt;
    // get_context_length's `return 2048` comes after the loop: no RoPE factor applies to it.
    const std::string env(long_context_env(Engine::sglang));
    return ContextLimit{Tokens{kNoLengthKeyDefault},
                        "SGLang's context length " + format_count(kNoLengthKeyDefault) +
                            " (no length key in the config: get_context_length's default)",
                        "SGLang refuses it without " + env, env};
  }
  std::string how = keyed(key, base);
  std::uint64_t limit = base;
  const RopeScaling& r = m.context_keys.rope;
  if (!r.key.empty() && r.factor > 0 && r.factor != 1.0) {
    if (r.original_max_position_embeddings != 0) {
      how += "; " + r.key + " factor " + format_shortest(r.factor) +
             " not applied: original_max_position_embeddings given";
    } else if (r.type == "llama3") {
      how += "; " + r.key + " factor " + format_shortest(r.factor) + " not applied: llama3";
    } else {
      limit = scaled(base, r, r.factor, "SGLang", false);
      how += " x " + r.key + " factor " + format_shortest(r.factor);
    }
  }
  return ContextLimit{Tokens{limit}, "SGLang's context length " + format_count(limit) + " (" + how + ")",
                      "SGLang refuses it without " + std::string(long_context_env(Engine::sglang)),
                      std::string(long_context_env(Engine::sglang))};
}

std::optional<ContextLimit> trtllm_limit(const ModelSpec& m) {
  // inferred_max_seq_len starts at 2048 and max_position_embeddings replaces it; a model from flags (no
  // config) has no limit.
  const bool from_config = m.context_keys.no_length_key || !m.context_keys.lengths.empty();
  if (m.max_position_embeddings == 0 && !from_config) return std::nullopt;
  std::uint64_t limit = m.max_position_embeddings != 0 ? m.max_position_embeddings : kNoLengthKeyDefault;
  std::string how = m.max_position_embeddings != 0
                        ? keyed("max_position_embeddings", limit)
                        : "no max_position_embeddings in the config: the default " + format_count(limit);
  const RopeScaling& r = m.context_keys.rope;
  if (!r.key.empty() && r.factor > 0 && r.factor != 1.0) {
    const std::string type = rope_type(r);
    if (type == "longrope" || type == "llama3" || type == "yarn") {
      how += "; " + r.key + " " + type + ": no factor";
    } else {
      limit = scaled(limit, r, r.factor, "TensorRT-LLM", true);
      how += " x " + r.key + " factor " + format_shortest(r.factor) + ", " + type;
    }
  }
  const std::string env(long_context_env(Engine::trtllm));
  return ContextLimit{Tokens{limit},
                      "TensorRT-LLM's inferred max_seq_len " + format_count(limit) + " (" + how + ")",
                      "TensorRT-LLM lowers max_seq_len to " + format_count(limit) + " without " + env, env};
}
}  // namespace

std::optional<ContextLimit> context_limit(const ModelSpec& m, Engine engine) {
  switch (engine) {
    case Engine::vllm: return vllm_limit(m);
    case Engine::sglang: return sglang_limit(m);
    case Engine::trtllm: return trtllm_limit(m);
    case Engine::llamacpp:
      if (m.max_position_embeddings == 0) return std::nullopt;
      return ContextLimit{
          Tokens{m.max_position_embeddings},
          "llama.cpp's n_ctx_train " + format_count(m.max_position_embeddings) + " (context_length)",
          "llama-server warns (n_ctx_per_seq > n_ctx_train) and runs it", ""};
    case Engine::ideal:
    default:
      if (m.max_position_embeddings == 0) return std::nullopt;
      return ContextLimit{Tokens{m.max_position_embeddings},
                          "the model's max_position_embeddings " + format_count(m.max_position_embeddings),
                          "each engine derives its own limit", ""};
  }
}

std::optional<Tokens> engine_max_context(const ModelSpec& m, Engine engine) {
  if (const auto l = context_limit(m, engine)) return l->tokens;
  return std::nullopt;
}

}  // namespace kvplan
