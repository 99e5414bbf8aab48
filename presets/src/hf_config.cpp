// Hugging Face config.json -> ModelSpec. The family adapters (hf/adapter_<family>.cpp, registered in
// hf/adapters.cpp) follow the transformers configuration classes of each architecture and the modeling
// code that reads them; this file picks the adapter and checks that no key which shapes the cache was
// left unread.
#include <nlohmann/json.hpp>

#include "hf/adapters.hpp"
#include "hf/quantization.hpp"
#include "kvplan/format.hpp"
#include "kvplan/limits.hpp"
#include "kvplan/presets.hpp"

namespace kvplan::presets {

namespace {
using hf::HfConfig;
using hf::Reader;
using nlohmann::json;

/// A key that shapes the KV cache or the recurrent state, set in the config, that the adapter did not read
/// is an error naming it: the figure would be silently wrong.
void check_unread_cache_keys(const Reader& r, std::string_view family) {
  for (const auto key : hf::cache_shaping_keys()) {
    const auto it = r.obj().find(key);
    if (it == r.obj().end() || it->is_null() || r.was_read(std::string(key))) continue;
    r.fail(key, "shapes the KV cache or state, and the " + std::string(family) +
                    " rules do not model it: no figure rather than a wrong one");
  }
}

/// An unknown family's keys that may say which layers are linear, sliding or recurrent, left unread by the
/// generic rules: `layer_group_size`, `*_pattern`, `*_layers`, `*_interval`, `*_indices` and `*_idxs` (counts
/// named num_* aside; Bamba's attn_layer_indices names its attention layers by index),
/// and lists of one entry per layer. The generic rules would read every layer as full attention (Ring-mini-
/// linear-2.0's layer_group_size alone gave 5x its KV), so such a key is an error naming it.
void check_layer_pattern_keys(const Reader& r, std::uint64_t layers) {
  const auto ends = [](std::string_view k, std::string_view tail) {
    return k.size() > tail.size() && k.substr(k.size() - tail.size()) == tail;
  };
  for (const auto& [key, value] : r.obj().items()) {
    if (value.is_null() || r.was_read(key)) continue;
    const bool named = key == "layer_group_size" ||
                       (key.rfind("num_", 0) != 0 &&
                        (ends(key, "_pattern") || ends(key, "_layers") || ends(key, "_interval") ||
                         ends(key, "_indices") || ends(key, "_idxs")));
    const bool per_layer = value.is_array() && layers > 1 && value.size() == layers;
    if (named || per_layer)
      r.fail(key,
             "may set which layers are linear, sliding or recurrent, and no rule reads it for an unknown "
             "model_type (the generic rules would read every layer as full attention): no figure rather "
             "than a wrong one");
  }
}

/// Qwen3-VL's vision tower (vision_config model_type qwen3_vl or qwen3_vl_moe), in parameters, as
/// transformers builds it (models/qwen3_vl/modeling_qwen3_vl.py and
/// models/qwen3_vl_moe/modeling_qwen3_vl_moe.py Qwen3VLVisionModel / Qwen3VLMoeVisionModel; vLLM's
/// vllm/model_executor/models/qwen3_vl.py loads the same tensors): the Conv3d patch embedding in_channels x
/// temporal_patch_size x patch_size^2 x hidden with a bias; the learned position embedding
/// num_position_embeddings x hidden; depth blocks of two LayerNorms, the qkv (hidden x 3 hidden) and proj
/// linears with biases and the linear_fc1/linear_fc2 MLP with biases; the merger (a LayerNorm over hidden,
/// then linear_fc1 of merge x merge and linear_fc2 to out_hidden_size, merge = hidden x spatial_merge_size^2,
/// both with biases) and one deepstack merger per deepstack_visual_indexes entry (the same with its LayerNorm
/// over merge: use_postshuffle_norm). The rotary table is a buffer.
std::uint64_t qwen3_vl_vision_tower(const Reader& v) {
  const auto need = [&](std::string_view key) {
    const auto value = v.u64(key);
    if (!value || *value == 0) v.fail(key, "must be a positive integer (the vision encoder's size)");
    if (*value > kMaxDimension) v.fail(key, "must be at most " + format_count(kMaxDimension));
    return *value;
  };
  const std::uint64_t h = need("hidden_size"), i = need("intermediate_size"), depth = need("depth"),
                      patch = need("patch_size"), out = need("out_hidden_size"),
                      positions = need("num_position_embeddings");
  const auto optional = [&](std::string_view key, std::uint64_t fallback) {
    const std::uint64_t value = v.positive_or(key, fallback);
    if (value > kMaxDimension) v.fail(key, "must be at most " + format_count(kMaxDimension));
    return value;
  };
  // transformers' Qwen3VLVisionConfig defaults: in_channels 3, temporal_patch_size 2, spatial_merge_size 2.
  const std::uint64_t channels = optional("in_channels", 3), temporal = optional("temporal_patch_size", 2),
                      merge_size = optional("spatial_merge_size", 2);
  // One deepstack merger per entry, each a block index (absent: none, as the configuration class's []).
  const std::uint64_t deepstack =
      v.u64_list("deepstack_visual_indexes", depth).value_or(std::vector<std::uint64_t>{}).size();
  const auto mul = [](std::uint64_t a, std::uint64_t b) { return checked_mul(a, b, "vision_config"); };
  const auto add = [](std::uint64_t a, std::uint64_t b) { return checked_add(a, b, "vision_config"); };
  const std::uint64_t merged = mul(h, mul(merge_size, merge_size));
  const std::uint64_t mlp = add(add(mul(h, i), i), add(mul(i, h), h));
  const std::uint64_t block = add(add(add(mul(h, 3 * h), 3 * h), add(mul(h, h), h)), add(mlp, 4 * h));
  const std::uint64_t merger_linears = add(add(mul(merged, merged), merged), add(mul(merged, out), out));
  std::uint64_t n = add(mul(mul(channels, temporal), mul(mul(patch, patch), h)), h);  // patch embedding
  n = add(n, mul(positions, h));
  n = add(n, mul(depth, block));
  n = add(n, add(merger_linears, 2 * h));                           // merger, LayerNorm over hidden
  n = add(n, mul(deepstack, add(merger_linears, mul(2, merged))));  // deepstack mergers, over merge
  return n;
}

/// A vision or audio config's size key, positive and bounded as every decoder dimension is (limits.hpp):
/// the sums below then cannot pass 2^64. `fallback` is the configuration class's default for an absent key.
std::uint64_t encoder_size(const Reader& v, std::string_view key, std::uint64_t fallback) {
  const std::uint64_t value = v.positive_or(key, fallback);
  if (value > kMaxDimension) v.fail(key, "must be at most " + format_count(kMaxDimension));
  return value;
}

/// Gemma 4's vision tower and its projector into the text model (vision_config model_type gemma4_vision),
/// in parameters, as transformers builds them (models/gemma4/modeling_gemma4.py, commit
/// 0246b4f3335464614ef1de66531f9131a44ec801: Gemma4VisionModel, Gemma4MultimodalEmbedder; defaults from
/// configuration_gemma4.py Gemma4VisionConfig, commit 008e574391258935f3ecc3035c882e73bbcac419) and vLLM
/// loads them (gemma4_mm.py: the transformers tower itself, embed_vision a ReplicatedLinear):
///  - the patch embedder: input_proj, a linear of 3 x patch_size^2 -> hidden without bias, and the
///    position table 2 x position_embedding_size x hidden;
///  - per layer: q and o (heads x head_dim x hidden each), k and v (num_key_value_heads x head_dim x
///    hidden each), every linear without bias; q_norm and k_norm over head_dim (v_norm has no scale);
///    gate, up and down (hidden x intermediate each); four RMSNorms over hidden;
///  - standardize: the std_bias and std_scale buffers (hidden each), stored in the checkpoint;
///    use_clipped_linears: four scalar bounds per linear (7 a layer);
///  - embed_vision: hidden x the text model's hidden, without bias (its norm has no scale).
/// google/gemma-4-31B-it: 569,550,384 + 6,193,152 = 575,743,536; with its text stack, its
/// model.safetensors.index.json total_size, 62,546,177,752 B, to the byte.
std::uint64_t gemma4_vision_tower(const Reader& v, std::uint64_t text_hidden) {
  const std::uint64_t h = encoder_size(v, "hidden_size", 768), i = encoder_size(v, "intermediate_size", 3072),
                      layers = encoder_size(v, "num_hidden_layers", 16),
                      heads = encoder_size(v, "num_attention_heads", 12),
                      kv_heads = encoder_size(v, "num_key_value_heads", 12),
                      head_dim = encoder_size(v, "head_dim", 64), patch = encoder_size(v, "patch_size", 16),
                      positions = encoder_size(v, "position_embedding_size", 10240);
  const bool clipped = v.boolean("use_clipped_linears").value_or(false);
  const bool standardize = v.boolean("standardize").value_or(false);
  const auto mul = [](std::uint64_t a, std::uint64_t b) { return checked_mul(a, b, "vision_config"); };
  const auto add = [](std::uint64_t a, std::uint64_t b) { return checked_add(a, b, "vision_config"); };
  const std::uint64_t attention =
      add(mul(2, mul(mul(heads, head_dim), h)), mul(2, mul(mul(kv_heads, head_dim), h)));
  std::uint64_t layer = add(add(attention, 2 * head_dim), add(mul(3, mul(h, i)), 4 * h));
  if (clipped) layer = add(layer, 7 * 4);
  std::uint64_t n = add(mul(mul(3, mul(patch, patch)), h), mul(mul(2, positions), h));
  n = add(n, mul(layers, layer));
  if (standardize) n = add(n, 2 * h);
  return add(n, mul(h, text_hidden));  // embed_vision
}

/// Gemma 4's audio tower and its projector (audio_config model_type gemma4_audio, the E2B and E4B
/// models), in parameters, as transformers builds them (modeling_gemma4.py Gemma4AudioModel, same commit;
/// defaults from Gemma4AudioConfig) and vLLM loads them (gemma4_mm.py, when audio_config is set):
///  - the subsampling: two 3 x 3 convolutions without bias (1 -> C0, C0 -> C1 channels) each with a
///    LayerNorm's weight, then input_proj_linear from (C0 / 4) x C1 to hidden;
///  - per layer (hidden A, 4A feed-forward): two feed-forward blocks (A x 4A twice, two norms each); q, k,
///    v, post and relative_k_proj (A x A each) with per_dim_scale (A / heads); the light conv block
///    (linear_start A x 2A, linear_end A x A, a depthwise kernel of conv_kernel_size x A, two norms); and
///    three norms around attention and out: 24 A^2 + (9 + kernel) A + A / heads;
///  - output_proj: A x output_proj_dims with a bias; use_clipped_linears (the class default): four scalar
///    bounds per linear (10 a layer);
///  - embed_audio: output_proj_dims x the text model's hidden, without bias.
/// With every default the tower is 304,824,608 (+480 bounds): google/gemma-4-E2B's and E4B's published
/// counts (5,123,178,051 and 7,996,156,490 parameters) add up with it.
std::uint64_t gemma4_audio_tower(const Reader& a, std::uint64_t text_hidden) {
  const std::uint64_t h = encoder_size(a, "hidden_size", 1024),
                      layers = encoder_size(a, "num_hidden_layers", 12),
                      heads = encoder_size(a, "num_attention_heads", 8),
                      kernel = encoder_size(a, "conv_kernel_size", 5),
                      out = encoder_size(a, "output_proj_dims", 1536);
  const auto channels = a.u64_list("subsampling_conv_channels", kMaxDimension + 1)
                            .value_or(std::vector<std::uint64_t>{128, 32});
  if (channels.size() != 2 || channels[0] == 0 || channels[1] == 0)
    a.fail("subsampling_conv_channels",
           "must be two positive channel counts (Gemma4AudioConfig's [128, 32])");
  if (h % heads != 0) a.fail("num_attention_heads", "must divide hidden_size " + format_count(h));
  const std::uint64_t c0 = channels[0], c1 = channels[1];
  const bool clipped = a.boolean("use_clipped_linears").value_or(true);
  const auto mul = [](std::uint64_t x, std::uint64_t y) { return checked_mul(x, y, "audio_config"); };
  const auto add = [](std::uint64_t x, std::uint64_t y) { return checked_add(x, y, "audio_config"); };
  std::uint64_t layer = add(mul(24, mul(h, h)), add(mul(9 + kernel, h), h / heads));
  if (clipped) layer = add(layer, 10 * 4);
  std::uint64_t n = add(mul(9, c0) + c0, add(mul(9, mul(c0, c1)), c1));  // the two convolutions, their norms
  n = add(n, mul(mul(c0 / 4, c1), h));                                   // input_proj_linear
  n = add(n, mul(layers, layer));
  n = add(n, add(mul(h, out), out));     // output_proj with its bias
  return add(n, mul(out, text_hidden));  // embed_audio
}

/// The audio encoder of a multimodal config (config.json audio_config), in parameters: Gemma 4's
/// (gemma4_audio_tower); any other sets encoder_unknown, so that the weights are said to be too low.
void count_audio_tower(const json& root, const std::string& origin, std::uint64_t text_hidden, ModelSpec& m) {
  const auto it = root.find("audio_config");
  if (it == root.end() || it->is_null()) return;
  if (!it->is_object()) throw Error(origin + ": /audio_config", "must be an object");
  const Reader a(*it, origin, "/audio_config");
  const std::string type = a.string("model_type").value_or("");
  if (type != "gemma4_audio") {
    m.encoder_unknown += (m.encoder_unknown.empty() ? "" : "; ") +
                         ("the audio encoder (audio_config model_type '" + type + "')");
    return;
  }
  m.encoder_parameters =
      checked_add(m.encoder_parameters, gemma4_audio_tower(a, text_hidden), "audio_config");
  m.encoder_whole_per_gpu = true;  // as the vision tower (ModelSpec::encoder_whole_per_gpu)
}

/// The vision tower and projector of a multimodal config (config.json vision_config), in parameters:
/// ViT encoders as transformers builds them (modeling_siglip.py SiglipVisionTransformer: patch embedding
/// c x p x p x h + h, position embedding (image / patch)^2 x h, per layer two LayerNorms, q/k/v/o with
/// biases and the fc1/fc2 MLP with biases, the post LayerNorm, and the attention-pooling head when
/// vision_use_head; modeling_clip.py CLIPVisionTransformer: the class embedding, one more position, a
/// pre LayerNorm), and the projector of the families whose one is known (modeling_gemma3.py
/// Gemma3MultiModalProjector: a vision x text matrix and an RMSNorm; modeling_llava.py
/// LlavaMultiModalProjector: two linears with biases), and Qwen3-VL's tower with its own mergers
/// (qwen3_vl_vision_tower), and Gemma 4's (gemma4_vision_tower). Sets encoder_unknown for any other vision
/// model or projector.
void count_vision_tower(const json& root, const std::string& origin, std::uint64_t text_hidden,
                        ModelSpec& m) {
  const auto it = root.find("vision_config");
  if (it == root.end() || it->is_null()) return;
  if (!it->is_object()) throw Error(origin + ": /vision_config", "must be an object");
  const Reader v(*it, origin, "/vision_config");
  const std::string type = v.string("model_type").value_or("");
  if (type == "qwen3_vl" || type == "qwen3_vl_moe") {
    m.encoder_parameters = qwen3_vl_vision_tower(v);
    return;
  }
  if (type == "gemma4_vision") {
    m.encoder_parameters = gemma4_vision_tower(v, text_hidden);
    m.encoder_whole_per_gpu = true;  // ReplicatedLinear throughout (ModelSpec::encoder_whole_per_gpu)
    return;
  }
  const bool siglip = type == "siglip_vision_model", clip = type == "clip_vision_model";
  if (!siglip && !clip) {
    m.encoder_unknown = "the vision encoder (vision_config model_type '" + type + "')";
    return;
  }
  const auto need = [&](std::string_view key) {
    const auto value = v.u64(key);
    if (!value || *value == 0) v.fail(key, "must be a positive integer (the vision encoder's size)");
    // Bounded as every decoder dimension is (limits.hpp): the sums below then cannot pass 2^64.
    if (*value > kMaxDimension) v.fail(key, "must be at most " + format_count(kMaxDimension));
    return *value;
  };
  const std::uint64_t h = need("hidden_size"), i = need("intermediate_size"),
                      layers = need("num_hidden_layers"), patch = need("patch_size"),
                      image = need("image_size");
  const std::uint64_t channels = v.u64("num_channels").value_or(3);
  if (channels == 0 || channels > kMaxDimension)
    v.fail("num_channels", "must be a positive integer of at most " + format_count(kMaxDimension));
  const auto mul = [](std::uint64_t a, std::uint64_t b) { return checked_mul(a, b, "vision_config"); };
  const auto add = [](std::uint64_t a, std::uint64_t b) { return checked_add(a, b, "vision_config"); };
  const std::uint64_t positions = mul(image / patch, image / patch) + (clip ? 1 : 0);
  const std::uint64_t mlp = add(add(mul(h, i), i), add(mul(i, h), h));
  const std::uint64_t layer = add(add(mul(4, add(mul(h, h), h)), mlp), 4 * h);
  std::uint64_t n = add(mul(mul(channels, mul(patch, patch)), h), clip ? 0 : h);  // CLIP's conv has no bias
  n = add(n, mul(positions, h));
  n = add(n, mul(layers, layer));
  n = add(n, 2 * h);                    // post LayerNorm
  if (clip) n = add(n, add(h, 2 * h));  // class embedding, pre LayerNorm
  if (siglip && v.boolean("vision_use_head").value_or(true))
    n = add(n, add(add(h, add(mul(3 * h, h), 3 * h)), add(add(mul(h, h), h), add(2 * h, mlp))));
  const std::string family = root.value("model_type", std::string());
  if (family == "gemma3")
    n = add(n, add(mul(h, text_hidden), h));
  else if (family == "llava")
    n = add(n, add(add(mul(h, text_hidden), text_hidden), add(mul(text_hidden, text_hidden), text_hidden)));
  else
    m.encoder_unknown = "the multimodal projector of model_type '" + family + "'";
  m.encoder_parameters = n;
}

/// quantization_config, where a config sets it, must be an object with a string quant_method:
/// transformers' AutoHfQuantizer.from_config reads it as a dict (quantization_config.get("quant_method")
/// fails on a string), and one kvplan passed over would leave the weights counted at torch_dtype silently.
void check_quantization_config(const json& obj, const std::string& origin, const std::string& path) {
  const auto it = obj.find("quantization_config");
  if (it == obj.end() || it->is_null()) return;
  const std::string where = origin + ": " + path + "/quantization_config";
  if (!it->is_object())
    throw Error(where, "must be an object (transformers reads it as a dict), got " + hf::a_type(*it));
  const auto method = it->find("quant_method");
  if (method != it->end() && !method->is_null() && !method->is_string())
    throw Error(where + "/quant_method", "must be a string, got " + hf::a_type(*method));
}
}  // namespace

ModelSpec model_from_hf_config(const json& root, std::string_view origin_view) {
  const std::string origin(origin_view);
  if (!root.is_object()) throw Error(origin, "a config must be a JSON object, got " + hf::a_type(root));
  const json* text = nullptr;
  if (const auto it = root.find("text_config"); it != root.end() && !it->is_null()) {
    if (!it->is_object()) throw Error(origin + ": /text_config", "must be an object");
    text = &*it;
  }
  check_quantization_config(root, origin, "");
  if (text != nullptr) check_quantization_config(*text, origin, "/text_config");
  const Reader top(root, origin, "");
  const Reader r = text ? Reader(*text, origin, "/text_config") : top;
  const std::string model_type = r.string("model_type").value_or(top.string("model_type").value_or(""));
  std::string architecture;
  if (const json* a = top.get("architectures");
      a != nullptr && a->is_array() && !a->empty() && (*a)[0].is_string())
    architecture = (*a)[0].get<std::string>();
  // A config without model_type: the family from its architectures entry.
  static const std::pair<std::string_view, std::string_view> by_architecture[] = {
      {"NemotronHForCausalLM", "nemotron_h"},
      {"GraniteMoeHybridForCausalLM", "granitemoehybrid"},
      {"LlamaForCausalLM", "llama"},
      {"MistralForCausalLM", "mistral"},
      {"Qwen2ForCausalLM", "qwen2"},
      {"Qwen3ForCausalLM", "qwen3"},
      {"DeepseekV3ForCausalLM", "deepseek_v3"},
      {"JambaForCausalLM", "jamba"}};
  std::string family_type = model_type;
  if (family_type.empty())
    for (const auto& [arch, type] : by_architecture)
      if (architecture == arch) family_type = type;
  const hf::Adapter* adapter = hf::find_adapter(family_type);
  // The family's configuration class defaults (for this model_type) answer for the keys the text config
  // omits.
  const json* defaults =
      adapter != nullptr && adapter->defaults != nullptr ? adapter->defaults(family_type) : nullptr;
  const HfConfig c{defaults != nullptr ? r.with_defaults(*defaults) : r, top, family_type, architecture};
  ModelSpec m = adapter != nullptr ? adapter->read(c) : hf::adapt_generic(c);
  check_unread_cache_keys(r, adapter != nullptr ? adapter->family : "generic decoder");
  hf::check_quantized_widths(c, m);
  if (adapter == nullptr) check_layer_pattern_keys(r, num_layers(m));
  if (text != nullptr) {
    count_vision_tower(root, origin, m.hidden_size, m);
    count_audio_tower(root, origin, m.hidden_size, m);
  }
  if (adapter == nullptr)
    m.warnings.push_back(
        "model_type '" + (model_type.empty() ? std::string("(none)") : model_type) +
        "' is not a known family: read by the generic decoder rules (every layer full attention with "
        "num_key_value_heads x head_dim, or hidden_size / num_attention_heads; layer_types and a numeric "
        "sliding_window applied); check the layout with `kvplan show`");
  return m;
}

}  // namespace kvplan::presets
