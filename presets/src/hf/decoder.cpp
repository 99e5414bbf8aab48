#include "decoder.hpp"

#include "quantization.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "kvplan/context_limit.hpp"
#include "kvplan/format.hpp"

namespace kvplan::presets::hf {

namespace {
/// The checkpoint's dtype as the config declares it, and where (for messages).
struct ConfigDtype {
  DType dtype = DType::bf16;
  std::string where;  ///< "file: /torch_dtype"; empty when no key gives one
  std::string name;   ///< the string given ("float8_e4m3fn")
};

/// The model dtype: of the language model's object, then of the top level, "dtype" before "torch_dtype";
/// absent everywhere: bf16. transformers >= 4.56 writes "dtype", and where a config gives both its
/// PretrainedConfig.__init__ keeps dtype ("If both are provided, keep `dtype`"), as vLLM's _find_dtype
/// (vllm/config/model.py, in the current source; the version that switched is not checked) reads
/// config.dtype; older transformers (and vLLM reading config.torch_dtype) took torch_dtype, so two that
/// differ get a warning naming both. Every key present is checked, so that "float13" or 42 is an error
/// naming its JSON path (Reader::dtype), never taken as bf16.
ConfigDtype dtype_from_config(const Reader& r, const Reader& top, std::vector<std::string>& warnings) {
  std::optional<ConfigDtype> found;
  for (const Reader* rd : {&r, &top}) {
    const auto dtype = rd->dtype("dtype");
    const auto torch_dtype = rd->dtype("torch_dtype");
    if (dtype && torch_dtype && *dtype != *torch_dtype && !found)
      warnings.push_back(
          rd->where("dtype") + " " + *rd->string("dtype") + " differs from torch_dtype " +
          *rd->string("torch_dtype") +
          ": transformers >= 4.56 keeps dtype (PretrainedConfig.__init__) and vLLM's _find_dtype "
          "reads it, older transformers took torch_dtype; kvplan takes dtype");
    if (dtype && !found) found = ConfigDtype{*dtype, rd->where("dtype"), *rd->string("dtype")};
    if (torch_dtype && !found)
      found = ConfigDtype{*torch_dtype, rd->where("torch_dtype"), *rd->string("torch_dtype")};
  }
  return found.value_or(ConfigDtype{});
}

/// The length keys vLLM's _get_and_verify_max_len reads, in its order (max_position_embeddings first).
constexpr std::array<const char*, 9> kLengthKeys{
    "max_position_embeddings", "n_positions",         "max_seq_len",    "seq_length", "model_max_length",
    "max_target_positions",    "max_sequence_length", "max_seq_length", "seq_len"};

/// Fails naming a RoPE key set to null: the engines read None there, not a default (vLLM's
/// _get_and_verify_max_len multiplies by a None factor or takes a None original_max_position_embeddings,
/// and raises a TypeError), so there is no limit to derive.
void refuse_null_rope(const Reader& o, std::string_view key) {
  if (o.is_null(key))
    o.fail(
        key,
        "is null: vLLM's _get_and_verify_max_len reads None here, not a default, and fails; give a value, or "
        "drop the key");
}

/// One RoPE scaling object (rope_scaling, rope_parameters, or one layer type's entry of a nested
/// rope_parameters): its type, factor and original_max_position_embeddings, each checked. rope_type and
/// the older type that disagree are an error naming both, as vLLM's patch_rope_parameters_dict
/// (vllm/transformers_utils/config.py) raises ("Found conflicts between 'rope_type=...' and 'type=...'")
/// except for su/longrope and mrope/default, which it renames.
RopeScaling read_rope_entry(const Reader& o) {
  RopeScaling rope;
  for (const auto* k : {"rope_type", "type", "factor", "original_max_position_embeddings"})
    refuse_null_rope(o, k);
  const auto modern = o.string("rope_type");
  const auto legacy = o.string("type");
  if (modern && legacy && *modern != *legacy && !(*legacy == "su" && *modern == "longrope") &&
      !(*legacy == "mrope" && *modern == "default"))
    o.fail("type",
           "'" + *legacy + "' contradicts rope_type '" + *modern +
               "': vLLM's patch_rope_parameters_dict refuses the two (\"You should only specify one of "
               "them\"), and TensorRT-LLM reads type first; give one");
  rope.type = modern.value_or(legacy.value_or(""));
  if (const json* f = o.get("factor")) {
    if (!f->is_number() || !(f->get<double>() > 0) || !std::isfinite(f->get<double>()))
      o.fail("factor", "must be a positive number, got " + (f->is_number() ? f->dump() : a_type(*f)));
    rope.factor = f->get<double>();
  }
  rope.original_max_position_embeddings = o.u64("original_max_position_embeddings").value_or(0);
  if (o.has("original_max_position_embeddings") && rope.original_max_position_embeddings == 0)
    o.fail("original_max_position_embeddings", "must be a positive integer, got 0");
  return rope;
}

/// A RoPE type whose factor vLLM's _get_and_verify_max_len does not apply.
bool factor_unused(const std::string& type) { return type == "su" || type == "longrope" || type == "llama3"; }

/// The RoPE scaling under `key` ("rope_scaling" or "rope_parameters"), and `where` the JSON path of the
/// factor read. Nested per layer type (transformers >= 4.56 / 5.x: {"full_attention": {...},
/// "sliding_attention": {...}}): vLLM's _get_and_verify_max_len walks the entries and keeps the last
/// factor of a type other than su, longrope, llama3 ("This assumes all layer types have the same scaling
/// factor"); two such factors that differ are an error naming both, and the last entry with a factor is
/// read, as vLLM does.
RopeScaling read_rope(const Reader& r, const char* key, std::string& where) {
  const Reader outer = *r.object(key);
  RopeScaling rope;
  where = outer.where("factor");
  if (outer.obj().empty()) return rope;  // {}: no scaling (SGLang tests it for truth)
  const bool nested =
      std::all_of(outer.obj().begin(), outer.obj().end(), [](const json& v) { return v.is_object(); });
  if (!nested) {
    rope = read_rope_entry(outer);
  } else {
    // The entry read: the last whose factor vLLM applies, else the last with any factor, else the first
    // (nlohmann's objects iterate in key order, not the file's; the applied factors are all equal).
    std::optional<std::pair<double, std::string>> applied;  // the factor vLLM applies, and its path
    int rank = -1;                                          // 0 first entry, 1 a factor, 2 an applied one
    for (auto it = outer.obj().begin(); it != outer.obj().end(); ++it) {
      const Reader o = *outer.object(it.key());
      const RopeScaling entry = read_rope_entry(o);
      const bool applies = entry.factor > 0 && !factor_unused(entry.type);
      if (applies && applied && applied->first != entry.factor)
        o.fail("factor", format_shortest(entry.factor) + " differs from " + applied->second + " " +
                             format_shortest(applied->first) +
                             ": vLLM's _get_and_verify_max_len assumes one factor for every layer type and "
                             "takes the last, so the context limit has no one reading; give one factor");
      if (applies) applied = {entry.factor, std::string(key) + "/" + it.key() + "/factor"};
      const int r_entry = applies ? 2 : entry.factor > 0 ? 1 : 0;
      if (r_entry >= rank && (rank < 0 || r_entry > 0)) {
        rope = entry;
        where = o.where("factor");
        rank = r_entry;
      }
    }
  }
  rope.key = key;
  return rope;
}

/// The length keys besides max_position_embeddings and the RoPE scaling (`rope_scaling`, else transformers
/// v5's `rope_parameters`) that the engines read to derive their context limit (kvplan/context_limit.hpp).
/// A malformed value is an error naming its path: a null length or RoPE key, a length of 0 (the engines
/// would derive a limit of 0 tokens). Both rope_scaling and rope_parameters given: vLLM's
/// patch_rope_parameters (transformers 4.x: rope_scaling replaces rope_parameters) and transformers 5's
/// convert_rope_params_to_dict ("rope_scaling or rope_parameters") take rope_scaling, and so does kvplan,
/// with a warning naming both when they differ. `factor_where` gets the JSON path of the factor read.
ContextKeys context_keys_from_config(const Reader& r, const std::string& model_type,
                                     std::vector<std::string>& warnings, std::string& factor_where) {
  ContextKeys k;
  k.model_type = model_type;
  bool any_length = false;
  for (const auto* key : kLengthKeys) {
    if (r.is_null(key))
      r.fail(key,
             "is null: transformers keeps None and the engines skip it, so it gives no length; give the "
             "model's length, or drop the key");
    const auto v = r.u64(key);
    if (v && *v == 0)
      r.fail(
          key,
          "must be a positive integer, got 0: vLLM's _get_and_verify_max_len takes the smallest length key "
          "(SGLang and TensorRT-LLM read it too), so every engine would derive a context limit of 0 "
          "tokens and refuse every request");
    any_length = any_length || v.has_value();
    if (v && std::string_view(key) != "max_position_embeddings") k.lengths.emplace_back(key, *v);
  }
  k.no_length_key = !any_length;
  const bool scaling = r.has("rope_scaling");
  if (!scaling && !r.has("rope_parameters")) return k;
  k.rope = read_rope(r, scaling ? "rope_scaling" : "rope_parameters", factor_where);
  if (scaling && r.has("rope_parameters")) {
    std::string ignored;
    const RopeScaling other = read_rope(r, "rope_parameters", ignored);
    const auto same = [](const RopeScaling& a, const RopeScaling& b) {
      return a.type == b.type && a.factor == b.factor &&
             a.original_max_position_embeddings == b.original_max_position_embeddings;
    };
    if (k.rope.key.empty() && !other.key.empty())
      warnings.push_back(r.where("rope_scaling") +
                         " is {} beside rope_parameters: vLLM with transformers 4.x (patch_rope_parameters) "
                         "reads no scaling, transformers 5 (convert_rope_params_to_dict: rope_scaling or "
                         "rope_parameters) reads rope_parameters; kvplan reads no scaling");
    else if (!same(k.rope, other))
      warnings.push_back(
          r.where("rope_parameters") +
          " differs from rope_scaling: vLLM (patch_rope_parameters, transformers 4.x) and "
          "transformers 5 (convert_rope_params_to_dict) take rope_scaling, and so does kvplan");
  }
  // A type none of the engines or transformers know ("yran", "llama_3") was read as a plain factor without
  // a word: vLLM's get_rope and transformers' ROPE_INIT_FUNCTIONS refuse it, and the limit it gives
  // (llama_3's 131,072 x 8) is not the model's.
  static constexpr std::array<std::string_view, 14> known{
      "",         "default", "linear", "dynamic", "ntk",   "yarn", "deepseek_yarn",
      "longrope", "su",      "llama3", "llama4",  "mrope", "3d",   "proportional"};
  if (k.rope.factor > 0 && std::find(known.begin(), known.end(), k.rope.type) == known.end())
    warnings.push_back(
        r.where(k.rope.key) + ": RoPE type '" + k.rope.type +
        "' is not one vLLM's get_rope or transformers' ROPE_INIT_FUNCTIONS know (a misspelling?): "
        "they refuse to load it; the context limits read its factor " +
        format_shortest(k.rope.factor) + " as a plain scale");
  return k;
}

/// The number of KV heads and the key it came from (for messages). Keys that contradict each other, where
/// transformers, vLLM and llama.cpp would read the model differently, are an error naming both.
struct KvHeads {
  std::uint64_t n;
  std::string key;
};

KvHeads kv_heads_from_config(const Reader& r, std::uint64_t heads, const DecoderRules& rules) {
  // vLLM's ModelConfig.get_total_num_kv_heads takes the first of n_head_kv, num_kv_heads,
  // num_key_value_heads; Llama-style model code reads num_key_value_heads, FalconConfig num_kv_heads.
  static constexpr std::array<const char*, 3> keys{"n_head_kv", "num_kv_heads", "num_key_value_heads"};
  const char* key = nullptr;
  for (const auto* k : keys) {
    if (!r.has(k)) continue;
    if (key == nullptr) {
      key = k;
    } else if (r.positive(k) != r.positive(key)) {
      r.fail(k, std::to_string(r.positive(k)) + " contradicts " + key + " " +
                    std::to_string(r.positive(key)) + ": vLLM's get_total_num_kv_heads takes " + key +
                    ", the model code may read " + k + "; give one");
    }
  }
  const std::uint64_t given = key != nullptr ? r.positive(key) : heads;
  const std::string named = key != nullptr ? key : "num_attention_heads";
  const std::string mq_note = r.has("multi_query") ? "" : " (FalconConfig's default)";
  if (rules.falcon_heads) {
    // modeling_falcon.py FalconAttention and vLLM falcon.py FalconAttention: new_decoder_architecture uses
    // num_kv_heads (multi_query is then ignored, as FalconConfig documents); otherwise multi_query (default
    // true) means one KV head, and without it every head has its own K and V.
    if (r.boolean("new_decoder_architecture").value_or(false)) {
      r.consider("multi_query");
      return {given, named};  // FalconConfig: num_kv_heads defaults to num_attention_heads
    }
    const bool mq = r.boolean("multi_query").value_or(true);
    const std::uint64_t engine = mq ? 1 : heads;
    if (key != nullptr && given != engine)
      r.fail(key, std::to_string(given) + " contradicts multi_query " + (mq ? "true" : "false") + mq_note +
                      " without new_decoder_architecture: transformers and vLLM cache " +
                      std::to_string(engine) + " KV head" + (engine == 1 ? "" : "s") +
                      ", llama.cpp's converter " + std::to_string(given) +
                      "; set new_decoder_architecture, or drop one of the two");
    return {engine, mq ? "multi_query" : "num_attention_heads"};
  }
  // Any other model type: vLLM's get_total_num_kv_heads answers 1 for multi_query, while the model code
  // (LlamaAttention ...) builds num_key_value_heads.
  if (r.boolean("multi_query").value_or(false)) {
    if (key != nullptr && given != 1)
      r.fail(key,
             std::to_string(given) +
                 " contradicts multi_query true (one KV head): vLLM's get_total_num_kv_heads answers 1, the "
                 "model code " +
                 std::to_string(given) + "; drop one of the two");
    return {1, "multi_query"};
  }
  return {given, named};
}

}  // namespace

AttentionKind kind_from_layer_type(const Reader& r, std::size_t i, const std::string& s) {
  if (s == "full_attention" || s == "attention" || s == "global_attention" || s == "full")
    return AttentionKind::full;
  if (s == "sliding_attention" || s == "sliding_window" || s == "local_attention" || s == "sliding")
    return AttentionKind::sliding;
  if (s == "chunked_attention") return AttentionKind::chunked;
  if (s == "linear_attention" || s == "mamba" || s == "mamba2" || s == "conv")
    return AttentionKind::recurrent;
  r.fail("layer_types/" + std::to_string(i), "unknown layer type '" + s + "'");
}

AttentionLayer with_kind(AttentionLayer a, AttentionKind k, std::uint64_t window) {
  a.kind = k;
  a.window = k == AttentionKind::sliding || k == AttentionKind::chunked ? window : 0;
  return a;
}

AttentionLayer recurrent_layer(const RecurrentSpec& r) {
  AttentionLayer a;
  a.kind = AttentionKind::recurrent;
  a.recurrent = r;
  return a;
}

std::vector<bool> layer_mask(const Reader& r, std::string_view key, std::uint64_t n_layers, bool one_based) {
  std::vector<bool> mask(n_layers, false);
  const auto list = r.u64_list(key);
  if (!list) return mask;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::uint64_t x = (*list)[i];
    if ((one_based && (x == 0 || x > n_layers)) || (!one_based && x >= n_layers))
      r.fail(std::string(key) + "/" + std::to_string(i),
             "layer " + std::to_string(x) + " is out of range for " + std::to_string(n_layers) + " layers" +
                 (one_based ? " (1-based)" : ""));
    mask[one_based ? x - 1 : x] = true;
  }
  return mask;
}

Decoder read_decoder(const HfConfig& c, const DecoderRules& rules) {
  const Reader& r = c.r;
  Decoder d;
  d.where = r.origin() + ": " + r.path();
  ModelSpec& m = d.m;
  const ConfigDtype given = dtype_from_config(r, c.top, m.warnings);
  m.weight_dtype = given.dtype;
  m.dtype = m.embedding_dtype = m.expert_weight_dtype = m.weight_dtype;
  if (m.weight_dtype == DType::fp8_e4m3 || m.weight_dtype == DType::fp8_e5m2) {
    // vLLM's model dtype for --dtype auto (vllm/config/model.py _resolve_auto_dtype): an fp8 torch_dtype is
    // not in the platform's supported_dtypes, so their first is taken (bfloat16 on every GPU with fp8), and
    // --kv-cache-dtype auto caches at the model dtype. The weights stay fp8.
    m.dtype = DType::bf16;
    m.warnings.push_back(
        given.where + " " + given.name +
        ": vLLM serves the model in bfloat16 (_resolve_auto_dtype: fp8 is not a model dtype), "
        "so the KV cache's default (auto) is bf16; weights are counted at fp8, and a KV cache dtype of "
        "fp8_e4m3 asks for an fp8 cache");
  }
  read_quantization(c, m);

  const std::uint64_t n_layers = r.positive_any({"num_hidden_layers", "n_layer", "num_layers", "n_layers"});
  // The loader lays the model out layer by layer; a count far past any real model is a typo or a fuzzed
  // file, and would only exhaust memory.
  if (n_layers > kMaxLayers) {
    for (const auto k : {"num_hidden_layers", "n_layer", "num_layers", "n_layers"})
      if (r.has(k))
        r.fail(k,
               std::to_string(n_layers) + " layers: a config may have at most " + std::to_string(kMaxLayers));
  }
  d.n_layers = n_layers;
  const std::uint64_t heads = r.positive_any({"num_attention_heads", "n_head", "num_heads"});
  const std::uint64_t hidden = r.positive_any({"hidden_size", "n_embd", "d_model"});
  m.hidden_size = hidden;
  // KV figures never need the vocabulary or the MLP; the weights do.
  if (const auto v = r.u64("vocab_size"); v && *v > 0)
    m.vocab_size = *v;
  else if (v)
    r.fail("vocab_size", "must be a positive integer, got 0");
  else
    m.weights_unknown = "the config has no vocab_size";
  m.max_position_embeddings =
      r.u64_any({"max_position_embeddings", "n_positions", "max_seq_len"}).value_or(0);
  std::string factor_where;
  m.context_keys = context_keys_from_config(r, c.model_type, m.warnings, factor_where);
  // A factor whose product with a length is under one token or past 2^63 tokens (context_limit throws for
  // it): named here by its JSON path, for each engine that applies it.
  for (const Engine e : {Engine::vllm, Engine::sglang, Engine::trtllm}) try {
      (void)context_limit(m, e);
    } catch (const Error& err) {
      throw Error(factor_where, err.reason());
    }
  m.mtp_layers = r.u64_any({"num_nextn_predict_layers", "mtp_num_hidden_layers"}).value_or(0);
  m.norm_bias = rules.plain_mlp;
  // PretrainedConfig's default is tied; these configuration classes default to untied.
  static const std::set<std::string> untied{
      "llama",
      "llama4_text",
      "llama4",
      "mistral",
      "mixtral",
      "qwen2",
      "qwen2_moe",
      "qwen3",
      "qwen3_moe",
      "qwen3_next",
      "deepseek_v2",
      "deepseek_v3",
      "gpt_oss",
      "jamba",
      "bailing_moe_linear"};  // BailingMoeLinearConfig: tie_word_embeddings=False
  m.tie_word_embeddings =
      r.boolean("tie_word_embeddings")
          .value_or(c.top.boolean("tie_word_embeddings").value_or(untied.count(c.model_type) == 0));

  const auto [kv_heads, kv_key] = kv_heads_from_config(r, heads, rules);
  AttentionLayer& attn = d.attn;
  attn.kind = AttentionKind::full;
  attn.num_attention_heads = heads;
  attn.num_key_value_heads = kv_heads;
  attn.qkv_bias = r.boolean("attention_bias").value_or(false) || r.boolean("qkv_bias").value_or(false);
  attn.o_bias = r.boolean("attention_bias").value_or(false);

  if (r.has("kv_lora_rank") && !rules.latent_attention)
    r.fail("kv_lora_rank",
           "is set, but model_type '" + c.model_type +
               "' has no latent attention in transformers or vLLM (its attention caches " +
               "num_key_value_heads x head_dim and ignores kv_lora_rank): remove it, or give " +
               "the model_type of a latent-attention family (deepseek_v3)");
  if (r.has("kv_lora_rank")) {
    // MLA (DeepSeek-V2/V3, configuration_deepseek_v3.py): the cache holds the latent and the RoPE key; no
    // head_dim is needed (GLM-4.7-Flash has none, and hidden_size is not a multiple of its heads). The
    // latent's other dimensions must be there too: a half-given MLA has no reading.
    attn.kind = AttentionKind::mla;
    attn.kv_lora_rank = r.positive("kv_lora_rank");
    for (const auto* k : {"qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"})
      if (!r.has(k))
        r.fail(k,
               "missing: kv_lora_rank is set, and latent attention needs kv_lora_rank, qk_rope_head_dim, "
               "qk_nope_head_dim and v_head_dim");
    attn.qk_rope_head_dim = r.positive("qk_rope_head_dim");
    attn.head_dim_k = checked_add(r.positive("qk_nope_head_dim"), attn.qk_rope_head_dim, "qk_nope_head_dim");
    attn.head_dim_v = r.positive("v_head_dim");
    attn.q_lora_rank = r.u64("q_lora_rank").value_or(0);
    attn.num_key_value_heads = 0;
    attn.qkv_bias = attn.o_bias = false;
    r.consider("head_dim");  // MLA's per-head dims are qk_nope + qk_rope and v_head_dim
  } else {
    // Latent-attention keys without kv_lora_rank: the cache would be read as GQA, the author meant MLA.
    if (rules.latent_attention)
      for (const auto* k : {"qk_rope_head_dim", "qk_nope_head_dim"})
        if (r.has(k))
          r.fail(k,
                 "is set without kv_lora_rank: latent attention needs both (kv_lora_rank + qk_rope_head_dim "
                 "per token), and without kv_lora_rank this would be read as num_key_value_heads x head_dim");
    // GQA shares each KV head among num_attention_heads / kv_heads query heads: more KV heads than heads,
    // or a count that does not divide them, has no reading (vLLM's Attention asserts the division).
    if (heads % kv_heads != 0)
      throw Error(r.where(kv_key), std::to_string(kv_heads) + " does not divide num_attention_heads " +
                                       std::to_string(heads) +
                                       (kv_heads > heads ? " (more KV heads than attention heads)" : ""));
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
    attn.head_dim_k = attn.head_dim_v = head_dim;
  }

  d.layers.assign(n_layers, attn);
  if (rules.read_layer_types && r.has("layer_types")) {
    const json& lt = *r.get("layer_types");
    if (!lt.is_array()) r.fail("layer_types", "must be an array, got " + a_type(lt));
    if (lt.size() != n_layers)
      r.fail("layer_types",
             "has " + std::to_string(lt.size()) + " entries for " + std::to_string(n_layers) + " layers");
    bool sliding = false, chunked = false;
    std::uint64_t disabled = 0;
    std::vector<AttentionKind> kinds(n_layers);
    for (std::size_t i = 0; i < lt.size(); ++i) {
      if (!lt[i].is_string()) r.fail("layer_types/" + std::to_string(i), "must be a string");
      kinds[i] = kind_from_layer_type(r, i, lt[i].get<std::string>());
      if (rules.windows_off && kinds[i] == AttentionKind::sliding) {
        kinds[i] = AttentionKind::full;
        ++disabled;
      }
      if (attn.kind == AttentionKind::mla && kinds[i] == AttentionKind::full) kinds[i] = AttentionKind::mla;
      sliding = sliding || kinds[i] == AttentionKind::sliding;
      chunked = chunked || kinds[i] == AttentionKind::chunked;
    }
    const std::uint64_t window = sliding   ? r.positive("sliding_window")
                                 : chunked ? r.positive("attention_chunk_size")
                                           : 0;
    for (std::size_t i = 0; i < n_layers; ++i) d.layers[i] = with_kind(attn, kinds[i], window);
    if (!sliding) r.consider("sliding_window");  // layer_types decides: no layer slides
    if (disabled > 0)
      m.warnings.push_back(r.where("layer_types") + " names " + std::to_string(disabled) +
                           " sliding layers, but use_sliding_window is false: transformers (Qwen2Config sets "
                           "sliding_window to None) and vLLM run them as full attention, and so does kvplan");
  } else if (rules.mistral_window && attn.kind != AttentionKind::mla && r.has("sliding_window")) {
    // MistralConfig: one sliding_window on every layer (a value of another type is an error naming it).
    const std::uint64_t w = r.positive("sliding_window");
    for (auto& a : d.layers) a = with_kind(attn, AttentionKind::sliding, w);
  }

  // MLP: dense, MoE, shared experts; which layers are sparse.
  MlpSpec& dense = d.dense;
  dense.gated = !rules.plain_mlp;
  if (const auto inter = r.u64_any({"intermediate_size", "ffn_dim", "n_inner"}); inter && *inter > 0)
    dense.intermediate_size = *inter;
  else
    d.dense_width_missing = true;

  // The routed experts' count and top-k under each family's name: Mixtral num_local_experts, DeepSeek
  // n_routed_experts, Qwen MoE num_experts; Step-3 moe_num_experts / moe_top_k (vLLM
  // transformers_utils/configs/step3_vl.py Step3TextConfig); ERNIE 4.5 moe_num_experts / moe_k
  // (configuration_ernie4_5_moe.py attribute_map: num_experts -> moe_num_experts, num_experts_per_tok ->
  // moe_k).
  static const std::initializer_list<std::string_view> kExperts = {"num_local_experts", "n_routed_experts",
                                                                   "num_experts", "moe_num_experts"};
  static const std::initializer_list<std::string_view> kTopK = {"num_experts_per_tok",
                                                                "num_experts_per_token",
                                                                "experts_per_token",
                                                                "top_k",
                                                                "moe_topk",
                                                                "top_k_experts",
                                                                "moe_top_k",
                                                                "moe_k"};
  const std::uint64_t experts = r.u64_any(kExperts).value_or(0);
  MlpSpec& moe = d.moe;
  moe = dense;
  for (const auto k : kTopK) {
    if (!r.has(k)) continue;
    moe.experts_per_token = r.u64(k).value_or(0);
    if (moe.experts_per_token > experts && experts > 0)
      r.fail(k, std::to_string(moe.experts_per_token) + " active experts exceed the " +
                    std::to_string(experts) + " experts");
    if (experts == 0 && moe.experts_per_token > 0)
      for (const auto e : kExperts)
        if (r.has(e))
          r.fail(e, "is 0, yet " + std::string(k) + " routes each token to " +
                        std::to_string(moe.experts_per_token) + " experts");
    break;
  }
  // A mixture of experts routes each token to top-k experts: without k the active parameters (prefill
  // FLOPs, the weights a decode step reads) cannot be known, so 0 or a missing k is an error.
  if (experts > 0 && moe.experts_per_token == 0) {
    std::string_view key = "num_experts_per_tok";
    for (const auto k : kTopK)
      if (r.has(k)) key = k;
    r.fail(key, r.has(key) ? "must be positive in a mixture-of-experts config (" + std::to_string(experts) +
                                 " experts)"
                           : "missing: a mixture-of-experts config (" + std::to_string(experts) +
                                 " experts) needs the experts routed per token");
  }
  d.sparse.assign(n_layers, experts > 0);
  if (experts > 0) {
    moe.num_experts = experts;
    moe.expert_intermediate_size =
        r.has("moe_intermediate_size") ? r.positive("moe_intermediate_size") : dense.intermediate_size;
    if (r.has("n_shared_experts")) {  // DeepSeek: shared experts of moe_intermediate_size
      moe.num_shared_experts = r.u64("n_shared_experts").value_or(0);
      moe.shared_intermediate_size = moe.expert_intermediate_size;
    } else if (r.has("shared_expert_intermediate_size")) {  // Qwen MoE: one gated shared expert
      moe.shared_intermediate_size = r.u64("shared_expert_intermediate_size").value_or(0);
      moe.num_shared_experts = moe.shared_intermediate_size > 0 ? 1 : 0;
      moe.shared_expert_gate = moe.num_shared_experts > 0;
    } else if (r.has("moe_num_shared_experts")) {
      // ERNIE 4.5 (modeling_ernie4_5_moe.py Ernie4_5_MoeSparseMoeBlock): one ungated MLP of
      // moe_intermediate_size x moe_num_shared_experts, counted as that many experts of the width.
      moe.num_shared_experts = r.u64("moe_num_shared_experts").value_or(0);
      moe.shared_intermediate_size = moe.expert_intermediate_size;
      moe.shared_expert_gate = false;
    } else if (r.has("share_expert_dim")) {
      // Step-3 (vLLM step3_text.py Step3TextDecoderLayer): one ungated shared expert of share_expert_dim.
      moe.shared_intermediate_size = r.positive("share_expert_dim");
      moe.num_shared_experts = 1;
      moe.shared_expert_gate = false;
    }
    moe.intermediate_size = 0;
    if (r.has("first_k_dense_replace") || r.has("moe_layer_freq")) {  // DeepSeek
      const std::uint64_t k = r.u64("first_k_dense_replace").value_or(0);
      if (k > n_layers)
        r.fail("first_k_dense_replace",
               std::to_string(k) + " dense layers exceed the " + std::to_string(n_layers) + " layers");
      const json* freq = r.get("moe_layer_freq");
      if (freq != nullptr && freq->is_array()) {
        // A per-layer list of 0/1 (some DeepSeek-derived configs).
        if (freq->size() != n_layers)
          r.fail("moe_layer_freq", "has " + std::to_string(freq->size()) + " entries for " +
                                       std::to_string(n_layers) + " layers");
        const auto list = r.u64_list("moe_layer_freq", 2);
        for (std::uint64_t i = 0; i < n_layers; ++i) d.sparse[i] = i >= k && (*list)[i] == 1;
      } else {
        const std::uint64_t f = r.has("moe_layer_freq") ? r.positive("moe_layer_freq") : 1;
        for (std::uint64_t i = 0; i < n_layers; ++i) d.sparse[i] = i >= k && i % f == 0;
      }
    } else if (r.has("moe_layers_enum") || r.has("share_expert_dim")) {
      // Step-3 (vLLM step3_text.py Step3TextDecoderLayer): the layers listed in moe_layers_enum ("4,5,...",
      // a comma-separated string in config.json, or a list); absent: every layer but the first.
      std::vector<bool> mask(n_layers, false);
      if (const json* e = r.get("moe_layers_enum"); e != nullptr && e->is_string()) {
        const std::string text = e->get<std::string>();
        std::size_t at = 0;
        while (at <= text.size()) {
          const std::size_t comma = std::min(text.find(',', at), text.size());
          std::string item = text.substr(at, comma - at);
          item.erase(0, item.find_first_not_of(' '));
          item.erase(item.find_last_not_of(' ') + 1);
          if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 9 ||
              std::stoull(item) >= n_layers)
            r.fail("moe_layers_enum",
                   "'" + item + "' is not a layer index below " + std::to_string(n_layers));
          mask[std::stoull(item)] = true;
          at = comma + 1;
        }
      } else if (e != nullptr) {
        mask = layer_mask(r, "moe_layers_enum", n_layers, false);
      } else {
        for (std::uint64_t i = 1; i < n_layers; ++i) mask[i] = true;
      }
      for (std::uint64_t i = 0; i < n_layers; ++i) d.sparse[i] = mask[i];
    } else if (r.has("moe_layer_start_index") || r.has("moe_layer_interval") ||
               r.has("moe_layer_end_index")) {
      // ERNIE 4.5 (modeling_ernie4_5_moe.py Ernie4_5_MoeDecoderLayer): layer i is sparse when (i + 1) %
      // moe_layer_interval == 0 and moe_layer_start_index <= i <= moe_layer_end_index; the class's defaults
      // are 1, 1 and -1, and -1 is the last layer (Ernie4_5_MoeConfig.__post_init__).
      const std::uint64_t start = r.u64("moe_layer_start_index").value_or(1);
      const std::uint64_t step = r.positive_or("moe_layer_interval", 1);
      std::uint64_t end = n_layers - 1;
      if (const json* e = r.get("moe_layer_end_index");
          e != nullptr && !(e->is_number_integer() && e->get<std::int64_t>() == -1))
        end = *r.u64("moe_layer_end_index");
      for (std::uint64_t i = 0; i < n_layers; ++i)
        d.sparse[i] = (i + 1) % step == 0 && i >= start && i <= end;
    } else if (r.has("decoder_sparse_step") || r.has("mlp_only_layers")) {  // Qwen MoE
      const std::uint64_t step = r.has("decoder_sparse_step") ? r.positive("decoder_sparse_step") : 1;
      const auto mlp_only = layer_mask(r, "mlp_only_layers", n_layers, false);
      for (std::uint64_t i = 0; i < n_layers; ++i) d.sparse[i] = !mlp_only[i] && (i + 1) % step == 0;
    }
  }
  return d;
}

RecurrentSpec mamba2_from_mamba_keys(const Reader& r, DType dtype) {
  RecurrentSpec rec;
  rec.kind = RecurrentSpec::Kind::mamba2;
  rec.n_heads = r.positive_or("mamba_n_heads", 128);
  rec.n_groups = r.positive_or("mamba_n_groups", 1);
  rec.d_state = r.positive_or("mamba_d_state", 256);
  rec.d_conv = r.positive_or("mamba_d_conv", 4);
  rec.conv_dtype = rec.ssm_dtype = dtype;
  return rec;
}

ModelSpec assemble(Decoder d) {
  std::vector<LayerGroup> layers;
  layers.reserve(d.n_layers);
  for (std::uint64_t i = 0; i < d.n_layers; ++i) {
    LayerGroup g;
    g.attention = d.layers[i];
    g.mlp = d.per_layer_mlp.size() == d.n_layers ? d.per_layer_mlp[i] : d.sparse[i] ? d.moe : d.dense;
    layers.push_back(std::move(g));
  }
  d.m.layers = compress(std::move(layers));
  try {
    validate(d.m);
  } catch (const Error& e) {
    // Core names the value by its key ("head_dim"; "layers" for their count); the file is named with it.
    throw Error(d.where + "/" + (e.field() == "layers" ? "num_hidden_layers" : e.field()), e.reason());
  }
  // A dense MLP width is needed only where a layer has a dense MLP (MoE-only models omit it).
  if (d.dense_width_missing && d.m.weights_unknown.empty())
    for (const auto& g : d.m.layers)
      if (g.mlp.num_experts == 0 && g.attention.kind != AttentionKind::mlp_only) {
        d.m.weights_unknown = "the config has no intermediate_size";
        break;
      }
  return std::move(d.m);
}

}  // namespace kvplan::presets::hf
