// Hugging Face config.json -> ModelSpec. Key names and layer patterns follow the transformers
// configuration classes of each architecture (configuration_<model>.py) and the modeling code
// that reads them; the comment at each rule names the class.
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "kvplan/presets.hpp"

namespace kvplan::presets {

namespace {
using nlohmann::json;

/// "a string", "an array", "an object": a JSON value's type for messages.
std::string a_type(const json& v) {
  const std::string t = v.type_name();
  return (t == "array" || t == "object" ? "an " : "a ") + t;
}

/// Reads keys of one JSON object, naming origin and JSON path in every error. `defaults` (class
/// defaults, see class_defaults) answer for keys the object lacks; the config itself is never copied,
/// so a deeply nested value under some unused key costs nothing.
class Reader {
 public:
  Reader(const json& obj, std::string origin, std::string path, const json* defaults = nullptr)
      : obj_(obj), defaults_(defaults), origin_(std::move(origin)), path_(std::move(path)) {}

  [[nodiscard]] std::string where(std::string_view key) const {
    return origin_ + ": " + path_ + "/" + std::string(key);
  }
  [[noreturn]] void fail(std::string_view key, const std::string& reason) const {
    throw Error(where(key), reason);
  }

  [[nodiscard]] bool has(std::string_view key) const { return get(key) != nullptr; }
  [[nodiscard]] const json* get(std::string_view key) const {
    auto it = obj_.find(key);
    if (it == obj_.end() && defaults_ != nullptr) {
      it = defaults_->find(key);
      if (it == defaults_->end()) return nullptr;
    } else if (it == obj_.end()) {
      return nullptr;
    }
    return it->is_null() ? nullptr : &*it;
  }

  /// A non-negative integer (JSON integer, or a float with no fraction); absent or null: nullopt.
  [[nodiscard]] std::optional<std::uint64_t> u64(std::string_view key) const {
    const json* v = get(key);
    if (v == nullptr) return std::nullopt;
    if (v->is_number_unsigned()) return v->get<std::uint64_t>();
    if (v->is_number_integer()) {
      if (v->get<std::int64_t>() < 0) fail(key, "must be a non-negative integer, got " + v->dump());
      return static_cast<std::uint64_t>(v->get<std::int64_t>());
    }
    if (v->is_number_float()) {
      const double d = v->get<double>();
      if (!std::isfinite(d) || d < 0 || d != std::floor(d) || d >= 18446744073709551616.0)
        fail(key, "must be a non-negative integer, got " + v->dump());
      return static_cast<std::uint64_t>(d);
    }
    fail(key, "must be a non-negative integer, got " + a_type(*v));
  }
  /// A positive integer that must be present.
  [[nodiscard]] std::uint64_t positive(std::string_view key) const {
    const auto v = u64(key);
    if (!v) fail(key, "missing (required for this architecture)");
    if (*v == 0) fail(key, "must be a positive integer, got 0");
    return *v;
  }
  /// The first present key of several (aliases), positive.
  [[nodiscard]] std::uint64_t positive_any(std::initializer_list<std::string_view> keys) const {
    for (const auto k : keys)
      if (has(k)) return positive(k);
    std::string names;
    for (const auto k : keys) names += (names.empty() ? "" : " / ") + std::string(k);
    throw Error(origin_ + ": " + path_ + "/" + std::string(*keys.begin()),
                "missing (looked for " + names + ")");
  }
  [[nodiscard]] std::optional<std::uint64_t> u64_any(std::initializer_list<std::string_view> keys) const {
    for (const auto k : keys)
      if (has(k)) return u64(k);
    return std::nullopt;
  }
  [[nodiscard]] std::optional<bool> boolean(std::string_view key) const {
    const json* v = get(key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_boolean()) fail(key, "must be true or false, got " + a_type(*v));
    return v->get<bool>();
  }
  [[nodiscard]] std::optional<std::string> string(std::string_view key) const {
    const json* v = get(key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string()) fail(key, "must be a string, got " + a_type(*v));
    return v->get<std::string>();
  }
  [[nodiscard]] const json& obj() const { return obj_; }
  [[nodiscard]] Reader with_defaults(const json& defaults) const { return {obj_, origin_, path_, &defaults}; }
  [[nodiscard]] const std::string& origin() const { return origin_; }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  const json& obj_;
  const json* defaults_;
  std::string origin_;
  std::string path_;
};

/// Most layers a config may declare (see model_from_hf_config).
constexpr std::uint64_t kMaxLayers = 100000;

/// model_type values whose configuration class defaults tie_word_embeddings to false
/// (PretrainedConfig's default is true).
bool untied_by_default(const std::string& t) {
  static const std::set<std::string> untied{
      "llama", "llama4_text", "llama4",     "mistral",     "mixtral",     "qwen2",   "qwen2_moe",
      "qwen3", "qwen3_moe",   "qwen3_next", "deepseek_v2", "deepseek_v3", "gpt_oss", "jamba"};
  return untied.count(t) != 0;
}

/// Architectures with a plain (2-matrix, biased) MLP and LayerNorm with bias.
bool plain_mlp(const std::string& t) {
  return t == "gpt2" || t == "falcon" || t == "RefinedWeb" || t == "RefinedWebModel";
}

DType dtype_from_config(const Reader& r) {
  for (const auto* key : {"torch_dtype", "dtype"}) {
    const json* v = r.get(key);
    if (v == nullptr || !v->is_string()) continue;
    const auto s = v->get<std::string>();
    if (s == "bfloat16") return DType::bf16;
    if (s == "float16") return DType::fp16;
    if (s == "float32") return DType::fp32;
  }
  return DType::bf16;
}

/// Per-layer kind from `layer_types` strings.
AttentionKind kind_from_layer_type(const Reader& r, std::size_t i, const std::string& s) {
  if (s == "full_attention" || s == "attention" || s == "global_attention" || s == "full")
    return AttentionKind::full;
  if (s == "sliding_attention" || s == "sliding_window" || s == "local_attention" || s == "sliding")
    return AttentionKind::sliding;
  if (s == "chunked_attention") return AttentionKind::chunked;
  if (s == "linear_attention" || s == "mamba" || s == "mamba2") return AttentionKind::none;
  r.fail("layer_types/" + std::to_string(i), "unknown layer type '" + s + "'");
}

/// Defaults of transformers configuration classes for keys that real config.json files omit
/// (the class fills them in at load time). Only architectures whose shipped configs rely on them.
const json& class_defaults(const std::string& model_type) {
  // transformers src/transformers/models/gemma3/configuration_gemma3.py, Gemma3TextConfig.__init__
  // (commit 008f5c8c29be84d4721dc6d1e0fcd72300580be4): google/gemma-3-4b-it's text_config omits these.
  static const json gemma3_text = {{"vocab_size", 262208},
                                   {"hidden_size", 2304},
                                   {"intermediate_size", 9216},
                                   {"num_hidden_layers", 26},
                                   {"num_attention_heads", 8},
                                   {"num_key_value_heads", 4},
                                   {"head_dim", 256},
                                   {"max_position_embeddings", 131072},
                                   {"tie_word_embeddings", true},
                                   {"sliding_window", 4096},
                                   {"sliding_window_pattern", 6}};
  static const json none = json::object();
  if (model_type == "gemma3_text" || model_type == "gemma3") return gemma3_text;
  return none;
}

}  // namespace

ModelSpec model_from_hf_config(const json& root, std::string_view origin_view) {
  const std::string origin(origin_view);
  if (!root.is_object()) throw Error(origin, "a config must be a JSON object, got " + a_type(root));
  const json* text = nullptr;
  if (const auto it = root.find("text_config"); it != root.end() && !it->is_null()) {
    if (!it->is_object()) throw Error(origin + ": /text_config", "must be an object");
    text = &*it;
  }
  const Reader top(root, origin, "");
  const Reader raw = text ? Reader(*text, origin, "/text_config") : top;
  const std::string model_type = raw.string("model_type").value_or(top.string("model_type").value_or(""));
  const Reader r = raw.with_defaults(class_defaults(model_type));

  ModelSpec m;
  m.weight_dtype = dtype_from_config(r.has("torch_dtype") || r.has("dtype") ? r : top);
  m.dtype = m.embedding_dtype = m.expert_weight_dtype = m.weight_dtype;
  // quantization_config: fp8 checkpoints (DeepSeek-V3, Qwen *-FP8) store linear weights in fp8_e4m3 and keep
  // embeddings and LM head in torch_dtype; gpt-oss's mxfp4 quantises only the experts
  // (modules_to_not_convert: self_attn, router, embed_tokens, lm_head).
  const json* q = top.get("quantization_config");
  if (q == nullptr) q = r.get("quantization_config");
  if (q != nullptr && q->is_object()) {
    const auto method = q->find("quant_method");
    if (method != q->end() && method->is_string()) {
      if (*method == "fp8") {
        m.weight_dtype = m.expert_weight_dtype = DType::fp8_e4m3;
      } else if (*method == "mxfp4") {
        m.expert_weight_dtype = DType::mxfp4;
      }
    }
  }

  const std::uint64_t n_layers = r.positive_any({"num_hidden_layers", "n_layer", "num_layers", "n_layers"});
  // The loader lays the model out layer by layer; a count far past any real model (the largest have a
  // few hundred layers) is a typo or a fuzzed file, and would only exhaust memory.
  if (n_layers > kMaxLayers) {
    for (const auto k : {"num_hidden_layers", "n_layer", "num_layers", "n_layers"})
      if (r.has(k))
        r.fail(k,
               std::to_string(n_layers) + " layers: a config may have at most " + std::to_string(kMaxLayers));
  }
  const std::uint64_t heads = r.positive_any({"num_attention_heads", "n_head", "num_heads"});
  const std::uint64_t hidden = r.positive_any({"hidden_size", "n_embd", "d_model"});
  m.hidden_size = hidden;
  m.vocab_size = r.positive("vocab_size");
  m.max_position_embeddings =
      r.u64_any({"max_position_embeddings", "n_positions", "max_seq_len"}).value_or(0);
  m.tie_word_embeddings =
      r.boolean("tie_word_embeddings")
          .value_or(top.boolean("tie_word_embeddings").value_or(!untied_by_default(model_type)));
  const bool is_plain = plain_mlp(model_type);
  m.norm_bias = is_plain;
  if (model_type == "gemma2" || model_type == "gemma3" || model_type == "gemma3_text")
    m.norms_per_layer = 4;
  else if ((model_type == "falcon" || model_type == "RefinedWeb" || model_type == "RefinedWebModel") &&
           !r.boolean("new_decoder_architecture").value_or(false) &&
           r.boolean("parallel_attn").value_or(true))
    m.norms_per_layer = 1;
  if (model_type == "gpt2") m.learned_position_embeddings = r.positive("n_positions");

  // KV heads: explicit key; Falcon's new_decoder_architecture (num_kv_heads / n_head_kv) or multi_query; else
  // MHA.
  std::uint64_t kv_heads = heads;
  if (r.has("num_key_value_heads")) {
    kv_heads = r.positive("num_key_value_heads");
  } else if (r.boolean("new_decoder_architecture").value_or(false)) {
    kv_heads = r.positive_any({"num_kv_heads", "n_head_kv"});
  } else if (r.boolean("multi_query").value_or(false)) {
    kv_heads = 1;
  } else if (r.has("num_kv_heads")) {
    kv_heads = r.positive("num_kv_heads");
  }
  if (heads % kv_heads != 0)
    throw Error(r.where("num_key_value_heads"),
                std::to_string(kv_heads) + " does not divide num_attention_heads " + std::to_string(heads));

  std::uint64_t head_dim = 0;
  if (r.has("head_dim")) {
    head_dim = r.positive("head_dim");
  } else {
    if (hidden % heads != 0)
      throw Error(r.where("head_dim"), "missing, and hidden_size " + std::to_string(hidden) +
                                           " is not a multiple of num_attention_heads " +
                                           std::to_string(heads));
    head_dim = hidden / heads;
  }

  // The attention layer every attention layer starts from.
  AttentionLayer attn;
  attn.kind = AttentionKind::full;
  attn.num_attention_heads = heads;
  attn.num_key_value_heads = kv_heads;
  attn.head_dim_k = attn.head_dim_v = head_dim;
  attn.qkv_bias = model_type == "qwen2" || model_type == "qwen2_moe" || model_type == "gpt2" ||
                  r.boolean("attention_bias").value_or(false) || r.boolean("qkv_bias").value_or(false) ||
                  (model_type == "falcon" && r.boolean("bias").value_or(false));
  attn.o_bias = model_type == "gpt2" || r.boolean("attention_bias").value_or(false);
  attn.qk_norm = model_type == "qwen3" || model_type == "qwen3_moe" || model_type == "qwen3_next" ||
                 model_type == "gemma3" || model_type == "gemma3_text";

  // MLA (DeepSeek-V2/V3, configuration_deepseek.py): kv_lora_rank present.
  if (r.has("kv_lora_rank")) {
    attn.kind = AttentionKind::mla;
    attn.kv_lora_rank = r.positive("kv_lora_rank");
    attn.qk_rope_head_dim = r.positive("qk_rope_head_dim");
    attn.head_dim_k = checked_add(r.positive("qk_nope_head_dim"), attn.qk_rope_head_dim, "qk_nope_head_dim");
    attn.head_dim_v = r.positive("v_head_dim");
    attn.q_lora_rank = r.u64("q_lora_rank").value_or(0);
    attn.num_key_value_heads = 0;
    attn.qkv_bias = attn.o_bias = false;
  }

  // Per-layer kinds.
  std::vector<AttentionKind> kinds(n_layers, attn.kind);
  std::uint64_t window = 0;
  const auto need_window = [&](std::string_view key) { window = r.positive(key); };

  if (r.has("layer_types")) {
    const json& lt = *r.get("layer_types");
    if (!lt.is_array()) r.fail("layer_types", "must be an array, got " + a_type(lt));
    if (lt.size() != n_layers)
      r.fail("layer_types",
             "has " + std::to_string(lt.size()) + " entries for " + std::to_string(n_layers) + " layers");
    for (std::size_t i = 0; i < lt.size(); ++i) {
      if (!lt[i].is_string()) r.fail("layer_types/" + std::to_string(i), "must be a string");
      kinds[i] = kind_from_layer_type(r, i, lt[i].get<std::string>());
      if (attn.kind == AttentionKind::mla && kinds[i] == AttentionKind::full) kinds[i] = AttentionKind::mla;
    }
    if (std::count(kinds.begin(), kinds.end(), AttentionKind::sliding) > 0) need_window("sliding_window");
    if (std::count(kinds.begin(), kinds.end(), AttentionKind::chunked) > 0)
      need_window("attention_chunk_size");
  } else if (model_type == "gemma2") {
    // Gemma2: even layers (0, 2, ...) slide: modeling_gemma2.py, is_sliding = not bool(layer_idx % 2).
    need_window("sliding_window");
    for (std::uint64_t i = 0; i < n_layers; ++i)
      kinds[i] = i % 2 == 0 ? AttentionKind::sliding : AttentionKind::full;
  } else if (model_type == "gemma3" || model_type == "gemma3_text") {
    // Gemma3TextConfig: layer i is global when (i + 1) % sliding_window_pattern == 0 (pattern 6 when absent).
    need_window("sliding_window");
    const std::uint64_t pattern = r.has("sliding_window_pattern") ? r.positive("sliding_window_pattern") : 6;
    for (std::uint64_t i = 0; i < n_layers; ++i)
      kinds[i] = (i + 1) % pattern == 0 ? AttentionKind::full : AttentionKind::sliding;
  } else if (model_type == "llama4" || model_type == "llama4_text") {
    // Llama4TextConfig: no_rope_layers[i] == 0 marks a global NoPE layer; the others use chunked attention.
    // Absent: every no_rope_layer_interval-th layer (default 4) is global.
    if (r.has("attention_chunk_size")) {
      need_window("attention_chunk_size");
      std::vector<std::uint64_t> no_rope(n_layers, 1);
      if (const json* nr = r.get("no_rope_layers"); nr != nullptr && !(nr->is_array() && nr->empty())) {
        if (!nr->is_array() || nr->size() != n_layers)
          r.fail("no_rope_layers",
                 "must be an array of one 0/1 entry per layer (" + std::to_string(n_layers) + ")");
        for (std::size_t i = 0; i < n_layers; ++i) {
          if (!(*nr)[i].is_number_integer() ||
              ((*nr)[i].get<std::int64_t>() != 0 && (*nr)[i].get<std::int64_t>() != 1))
            r.fail("no_rope_layers/" + std::to_string(i), "must be 0 or 1");
          no_rope[i] = (*nr)[i].get<std::uint64_t>();
        }
      } else {
        const std::uint64_t interval =
            r.has("no_rope_layer_interval") ? r.positive("no_rope_layer_interval") : 4;
        for (std::uint64_t i = 0; i < n_layers; ++i) no_rope[i] = (i + 1) % interval != 0 ? 1 : 0;
      }
      for (std::uint64_t i = 0; i < n_layers; ++i)
        kinds[i] = no_rope[i] == 1 ? AttentionKind::chunked : AttentionKind::full;
    }
  } else if (model_type == "jamba") {
    // JambaConfig: layer i is attention when i % attn_layer_period == attn_layer_offset, else Mamba.
    const std::uint64_t period = r.positive("attn_layer_period");
    const std::uint64_t offset = r.u64("attn_layer_offset").value_or(0);
    if (offset >= period) r.fail("attn_layer_offset", "must be less than attn_layer_period");
    for (std::uint64_t i = 0; i < n_layers; ++i)
      kinds[i] = i % period == offset ? AttentionKind::full : AttentionKind::none;
  } else if (model_type == "qwen3_next") {
    // Qwen3NextConfig: layer i is full attention when (i + 1) % full_attention_interval == 0, else Gated
    // DeltaNet.
    const std::uint64_t interval = r.positive("full_attention_interval");
    for (std::uint64_t i = 0; i < n_layers; ++i)
      kinds[i] = (i + 1) % interval == 0 ? AttentionKind::full : AttentionKind::none;
  } else if (r.has("sliding_window") && r.get("sliding_window")->is_number()) {
    const bool qwen = model_type.rfind("qwen", 0) == 0;
    if (qwen) {
      // Qwen2/Qwen3: the window applies only when use_sliding_window, to layers >= max_window_layers.
      if (r.boolean("use_sliding_window").value_or(false)) {
        need_window("sliding_window");
        const std::uint64_t first = r.u64("max_window_layers").value_or(0);
        for (std::uint64_t i = first; i < n_layers; ++i) kinds[i] = AttentionKind::sliding;
      }
    } else if (attn.kind != AttentionKind::mla) {
      // Mistral and others: one sliding_window on every layer (MistralConfig).
      need_window("sliding_window");
      std::fill(kinds.begin(), kinds.end(), AttentionKind::sliding);
    }
  }

  // MLP: dense, MoE, shared experts; which layers are sparse.
  MlpSpec dense;
  dense.gated = !is_plain;
  dense.bias = is_plain && (model_type == "gpt2" || r.boolean("bias").value_or(false));
  if (model_type == "gpt2") {
    dense.intermediate_size = r.u64("n_inner").value_or(checked_mul(4, hidden, "n_embd"));
  } else if (model_type == "falcon" || model_type == "RefinedWeb" || model_type == "RefinedWebModel") {
    dense.intermediate_size = r.u64("ffn_hidden_size").value_or(checked_mul(4, hidden, "hidden_size"));
  } else if (model_type == "llama4" || model_type == "llama4_text") {
    dense.intermediate_size = r.positive_any({"intermediate_size_mlp", "intermediate_size"});
  } else {
    dense.intermediate_size = r.positive_any({"intermediate_size", "ffn_dim", "n_inner"});
  }

  const std::uint64_t experts =
      r.u64_any({"num_local_experts", "n_routed_experts", "num_experts"}).value_or(0);
  MlpSpec moe = dense;
  if (experts > 0) {
    moe.num_experts = experts;
    for (const auto k : {"num_experts_per_tok", "experts_per_token", "top_k"}) {
      if (!r.has(k)) continue;
      moe.experts_per_token = r.u64(k).value_or(0);
      if (moe.experts_per_token > experts)
        r.fail(k, std::to_string(moe.experts_per_token) + " active experts exceed the " +
                      std::to_string(experts) + " experts");
      break;
    }
    moe.expert_intermediate_size = r.has("moe_intermediate_size") ? r.positive("moe_intermediate_size")
                                                                  : r.positive("intermediate_size");
    if (model_type == "gpt_oss") moe.bias = moe.router_bias = true;
    if (r.has("n_shared_experts")) {  // DeepSeek: shared experts of moe_intermediate_size
      moe.num_shared_experts = r.u64("n_shared_experts").value_or(0);
      moe.shared_intermediate_size = moe.expert_intermediate_size;
    } else if (r.has("shared_expert_intermediate_size")) {  // Qwen MoE: one gated shared expert
      moe.shared_intermediate_size = r.u64("shared_expert_intermediate_size").value_or(0);
      moe.num_shared_experts = moe.shared_intermediate_size > 0 ? 1 : 0;
      moe.shared_expert_gate = moe.num_shared_experts > 0;
    } else if (model_type == "llama4" || model_type == "llama4_text") {  // Llama 4: one shared expert
      moe.num_shared_experts = 1;
      moe.shared_intermediate_size = moe.expert_intermediate_size;
    }
    moe.intermediate_size = 0;
  }
  std::vector<bool> sparse(n_layers, experts > 0);
  if (experts > 0) {
    if (model_type == "jamba") {
      const std::uint64_t period = r.positive("expert_layer_period");
      const std::uint64_t offset = r.u64("expert_layer_offset").value_or(0);
      for (std::uint64_t i = 0; i < n_layers; ++i) sparse[i] = i % period == offset;
    } else if (r.has("first_k_dense_replace") || r.has("moe_layer_freq")) {  // DeepSeek
      const std::uint64_t k = r.u64("first_k_dense_replace").value_or(0);
      const std::uint64_t freq = r.has("moe_layer_freq") ? r.positive("moe_layer_freq") : 1;
      for (std::uint64_t i = 0; i < n_layers; ++i) sparse[i] = i >= k && i % freq == 0;
    } else if (r.has("decoder_sparse_step") || r.has("mlp_only_layers")) {  // Qwen MoE
      const std::uint64_t step = r.has("decoder_sparse_step") ? r.positive("decoder_sparse_step") : 1;
      std::set<std::uint64_t> mlp_only;
      if (const json* v = r.get("mlp_only_layers")) {
        if (!v->is_array()) r.fail("mlp_only_layers", "must be an array");
        for (const auto& e : *v) {
          if (!e.is_number_unsigned()) r.fail("mlp_only_layers", "must hold layer indices");
          mlp_only.insert(e.get<std::uint64_t>());
        }
      }
      for (std::uint64_t i = 0; i < n_layers; ++i) sparse[i] = mlp_only.count(i) == 0 && (i + 1) % step == 0;
    } else if (r.has("interleave_moe_layer_step")) {  // Llama 4
      const std::uint64_t step = r.positive("interleave_moe_layer_step");
      for (std::uint64_t i = 0; i < n_layers; ++i) sparse[i] = (i + 1) % step == 0;
    }
  }

  // Recurrent layers.
  RecurrentSpec rec;
  if (std::count(kinds.begin(), kinds.end(), AttentionKind::none) > 0) {
    if (model_type == "jamba" || r.has("mamba_d_state")) {
      rec.kind = RecurrentSpec::Kind::mamba;
      rec.d_state = r.positive("mamba_d_state");
      rec.d_conv = r.positive("mamba_d_conv");
      rec.d_inner = checked_mul(r.positive("mamba_expand"), hidden, "mamba_expand");
      const json* dt = r.get("mamba_dt_rank");
      if (dt != nullptr && dt->is_string() && dt->get<std::string>() == "auto")
        rec.dt_rank = ceil_div(hidden, 16);  // JambaConfig: math.ceil(hidden_size / 16)
      else
        rec.dt_rank = r.positive("mamba_dt_rank");
    } else {
      rec.kind = RecurrentSpec::Kind::gated_deltanet;
      rec.num_key_heads = r.positive("linear_num_key_heads");
      rec.num_value_heads = r.positive("linear_num_value_heads");
      rec.key_head_dim = r.positive("linear_key_head_dim");
      rec.value_head_dim = r.positive("linear_value_head_dim");
      rec.d_conv = r.positive("linear_conv_kernel_dim");
    }
  }

  std::vector<LayerGroup> layers;
  layers.reserve(n_layers);
  for (std::uint64_t i = 0; i < n_layers; ++i) {
    LayerGroup g;
    g.attention = attn;
    g.attention.kind = kinds[i];
    if (kinds[i] == AttentionKind::sliding || kinds[i] == AttentionKind::chunked) g.attention.window = window;
    if (kinds[i] == AttentionKind::none) {
      g.attention = AttentionLayer{};
      g.attention.kind = AttentionKind::none;
      g.attention.recurrent = rec;
    }
    g.mlp = sparse[i] ? moe : dense;
    layers.push_back(g);
  }
  m.layers = compress(std::move(layers));
  validate(m);
  return m;
}

}  // namespace kvplan::presets
