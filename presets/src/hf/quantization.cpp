#include "quantization.hpp"

#include <algorithm>
#include <cctype>

#include "kvplan/format.hpp"
#include "kvplan/weights.hpp"

namespace kvplan::presets::hf {

namespace {
using Method = WeightQuant::Method;

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

/// A list of module names (modules_to_not_convert, ignore, llm_int8_skip_modules); null or absent: empty.
std::vector<std::string> names(const Reader& q, std::string_view key) {
  std::vector<std::string> out;
  const json* v = q.get(key);
  if (v == nullptr) return out;
  if (!v->is_array()) q.fail(key, "must be a list of module names, got " + a_type(*v));
  for (std::size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_string())
      q.fail(std::string(key) + "/" + std::to_string(i), "must be a module name, got " + a_type((*v)[i]));
    out.push_back((*v)[i].get<std::string>());
  }
  return out;
}

/// Applies a quantiser's list of modules it keeps unquantised. Names are matched by the parts that say
/// which kind of layer they are (a "re:" regex of compressed-tensors is read the same way): embeddings,
/// the LM head, vision towers and projectors and the router are never quantised by kvplan's count anyway;
/// attention (self_attn, attn, linear_attn, mixer), shared experts, routed experts and dense MLPs
/// (mlp.gate_proj / up_proj / down_proj, or "mlp") are kept at the torch_dtype. Any other name (one layer,
/// one projection) is a warning: kvplan counts it quantised.
void apply_unconverted(const Reader& q, std::string_view key, WeightQuant& w,
                       std::vector<std::string>& warnings) {
  std::vector<std::string> odd;
  for (const auto& raw : names(q, key)) {
    std::string n = lower(raw);
    if (n.rfind("re:", 0) == 0) n = n.substr(3);
    const bool layer_specific = std::any_of(n.begin(), n.end(), [](char ch) { return std::isdigit(ch); }) &&
                                !contains(n, "*") && !contains(n, "\\d");
    if (contains(n, "lm_head") || contains(n, "embed") || contains(n, "vision") || contains(n, "visual") ||
        contains(n, "multi_modal") || contains(n, "mm_projector") || contains(n, "audio") ||
        contains(n, "router") || contains(n, "e_score_correction_bias") || n == "gate" ||
        (n.size() > 5 && n.ends_with(".gate")) || contains(n, "mlp.gate$") || contains(n, "gate$"))
      continue;  // kept unquantised by kvplan's count already (encoders: counted apart at the dtype)
    if (layer_specific) {
      odd.push_back(raw);
      continue;
    }
    if (contains(n, "shared_expert")) {
      w.shared_experts = false;
    } else if (contains(n, "experts")) {
      w.experts = false;
    } else if (contains(n, "attn") || contains(n, "attention") || contains(n, "mixer")) {
      w.attention = false;
    } else if (n == "mlp" || contains(n, "mlp\\.(") || contains(n, "mlp.gate_proj") ||
               contains(n, "mlp.up_proj") || contains(n, "mlp.down_proj") || n.ends_with(".mlp") ||
               contains(n, "mlp.*")) {
      w.mlp = false;
    } else {
      odd.push_back(raw);
    }
  }
  if (!odd.empty()) {
    std::string list;
    for (const auto& o : odd) list += (list.empty() ? "'" : ", '") + o + "'";
    warnings.push_back(q.where(key) + " names " + list +
                       ", which kvplan cannot place among the model's layers: counted quantised");
  }
}

/// A positive group size; GPTQ's -1 (and compressed-tensors' channel strategy) is one group per row: 0.
std::uint64_t group_size(const Reader& q, std::string_view key, bool minus_one_ok, std::uint64_t fallback) {
  const json* v = q.get(key);
  if (v == nullptr) return fallback;
  // -1 as written (a signed integer): 2^64 - 1 parses as an unsigned one and read as int64_t would be -1 too.
  if (minus_one_ok && v->is_number_integer() && !v->is_number_unsigned() && v->get<std::int64_t>() == -1)
    return 0;
  const std::uint64_t g = *q.u64(key);
  if (g == 0)
    q.fail(key, minus_one_ok ? "must be positive, or -1 for one group per output channel, got 0"
                             : "must be positive, got 0");
  return g;
}

std::string group_words(std::uint64_t g) { return g == 0 ? "per-channel" : "g" + std::to_string(g); }

/// quant_method fp8 (DeepSeek-V3, Qwen3 *-FP8, MiniMax, Devstral): vLLM fp8.py Fp8Config.from_config and
/// Fp8LinearMethod.create_weights. weight_block_size [block_n, block_k]: one fp32 weight_scale_inv per
/// block_n output x block_k input values; absent or null: one fp32 weight_scale per tensor; activation_scheme
/// "static" adds one input_scale per tensor.
void read_fp8(const Reader& q, ModelSpec& m) {
  WeightQuant w;
  w.method = Method::fp8;
  w.bits = 8;
  w.stored = DType::fp8_e4m3;
  w.scale_dtype = DType::fp32;
  if (const auto block = q.u64_list("weight_block_size")) {
    if (block->size() != 2 || (*block)[0] == 0 || (*block)[1] == 0)
      q.fail("weight_block_size", "must be two positive integers [block_n, block_k]");
    w.block_out = (*block)[0];
    w.block_in = (*block)[1];
    w.label = "fp8_e4m3 " + std::to_string(w.block_out) + "x" + std::to_string(w.block_in) + " blocks";
  } else {
    w.tensor_scale = true;
    w.label = "fp8_e4m3 per-tensor";
  }
  // vLLM's Fp8Config accepts "static" and "dynamic" only (ACTIVATION_SCHEMES); anything else is refused
  // there, and here, rather than counted as dynamic.
  const auto scheme = q.string("activation_scheme");
  if (scheme && lower(*scheme) != "static" && lower(*scheme) != "dynamic")
    q.fail("activation_scheme", "must be static or dynamic (vLLM's Fp8Config), got '" + *scheme + "'");
  w.input_scale = scheme && lower(*scheme) == "static";
  q.consider("fmt");        // e4m3 in every checkpoint kvplan knows; a byte a value either way
  q.consider("scale_fmt");  // ue8m0 (DeepSeek-V3.2): the checkpoint still stores fp32 scales
  apply_unconverted(q, "modules_to_not_convert", w, m.warnings);
  m.weight_dtype = m.expert_weight_dtype = DType::fp8_e4m3;
  m.quant = w;
}

/// AutoAWQ (quant_method awq): vLLM awq.py AWQConfig.from_config (w_bit / bits, q_group_size / group_size,
/// zero_point, modules_to_not_convert) and AWQLinearMethod.create_weights. vLLM supports 4 bits only.
void read_awq(const Reader& q, ModelSpec& m) {
  WeightQuant w;
  w.method = Method::awq;
  const char* bits_key = q.has("bits") ? "bits" : "w_bit";
  const auto bits = q.u64(bits_key);
  if (!bits) q.fail("bits", "is missing: AWQ needs its weight bits (4)");
  if (*bits != 4)
    q.fail(bits_key, "must be 4 (vLLM's AWQConfig supports only 4-bit AWQ), got " + std::to_string(*bits));
  w.bits = 4;
  const char* group_key = q.has("group_size") ? "group_size" : "q_group_size";
  w.group_size = group_size(q, group_key, false, 0);
  if (w.group_size == 0) q.fail("group_size", "is missing: AWQ stores one scale per group of input values");
  w.zero_point = q.boolean("zero_point").value_or(true);
  w.stored = DType::int4;
  w.scale_dtype = DType::fp16;
  if (const auto version = q.string("version"); version && lower(*version) != "gemm")
    m.warnings.push_back(q.where("version") + " '" + *version +
                         "': counted as AutoAWQ's GEMM layout (qweight [in, out/8]); vLLM loads GEMM only");
  w.label = "awq int4 " + group_words(w.group_size);
  apply_unconverted(q, "modules_to_not_convert", w, m.warnings);
  m.weight_dtype = m.expert_weight_dtype = DType::int4;
  m.quant = w;
}

/// GPTQ (AutoGPTQ / GPTQModel, quant_method gptq): vLLM gptq.py GPTQConfig.from_config (bits 2, 3, 4 or 8;
/// group_size, -1 for one group per output channel; desc_act) and GPTQLinearMethod.create_weights. desc_act
/// and sym change no tensor's size: g_idx and qzeros are always stored.
void read_gptq(const Reader& q, ModelSpec& m) {
  WeightQuant w;
  w.method = Method::gptq;
  const auto bits = q.u64("bits");
  if (!bits) q.fail("bits", "is missing: GPTQ needs its weight bits (2, 3, 4 or 8)");
  if (*bits != 2 && *bits != 3 && *bits != 4 && *bits != 8)
    q.fail("bits", "must be 2, 3, 4 or 8 (vLLM's GPTQConfig), got " + std::to_string(*bits));
  w.bits = *bits;
  w.group_size = group_size(q, "group_size", true, 128);
  (void)q.boolean("desc_act");
  (void)q.boolean("sym");
  w.stored = w.bits == 8 ? DType::int8 : DType::int4;
  w.scale_dtype = DType::fp16;
  w.g_idx = true;
  w.zero_point = true;
  w.label = "gptq int" + std::to_string(w.bits) + " " + group_words(w.group_size);
  if (const json* d = q.get("dynamic"); d != nullptr && !d->empty())
    m.warnings.push_back(
        q.where("dynamic") +
        " sets per-module GPTQ options: every module is counted at the config's bits and group");
  apply_unconverted(q, "modules_to_not_convert", w, m.warnings);
  m.weight_dtype = m.expert_weight_dtype = w.stored;
  m.quant = w;
}

/// compressed-tensors formats kvplan knows of but does not count (a warning, the torch_dtype).
bool unmodelled_ct_format(const std::string& format) {
  const std::string f = lower(format);
  for (const char* known : {"nvfp4-pack-quantized", "mxfp4-pack-quantized", "marlin-24", "sparse-24-bitmask",
                            "sparse-bitmask", "dense", "float8-e4m3-pack-quantized", "mixed-precision"})
    if (f == known) return true;
  return false;
}

/// compressed-tensors (llm-compressor): the scheme of the config group that targets "Linear", the format
/// (quantization_config format, else the group's), and ignore. Layouts: vLLM compressed_tensors.py
/// CompressedTensorsConfig._get_scheme_from_parts and the schemes' create_weights
/// (compressed_tensors_wNa16.py, compressed_tensors_w8a8_int8.py, compressed_tensors_w8a8_fp8.py). Scales are
/// stored at the model dtype by llm-compressor (its observers compute them in the weight's dtype).
void read_compressed_tensors(const Reader& q, ModelSpec& m) {
  // A format kvplan does not count needs nothing else of the config (kimi-k3's has no config_groups).
  if (const auto f = q.string("format"); f && unmodelled_ct_format(*f)) {
    m.warnings.push_back(q.where("format") + " '" + *f +
                         "' is not modelled: weights are counted at the config's torch_dtype");
    return;
  }
  const auto groups = q.object("config_groups");
  if (!groups) q.fail("config_groups", "is missing: compressed-tensors says its scheme there");
  std::string group_name;
  std::size_t n_groups = 0;
  for (const auto& [key, value] : groups->obj().items()) {
    ++n_groups;
    const auto g = groups->object(key);
    const json* targets = g->get("targets");
    bool linear = false;
    if (targets != nullptr && targets->is_array())
      for (const auto& t : *targets) linear = linear || (t.is_string() && t.get<std::string>() == "Linear");
    if (linear && group_name.empty()) group_name = key;
  }
  if (group_name.empty() || n_groups != 1) {
    m.warnings.push_back(q.where("config_groups") +
                         (!group_name.empty()
                              ? " has several groups: only '" + group_name + "' (targets Linear) is counted"
                              : " targets named modules, not every Linear: not modelled, weights are counted "
                                "at the config's torch_dtype"));
    if (group_name.empty()) return;
  }
  const auto group = groups->object(group_name);
  const auto weights = group->object("weights");
  if (!weights) {
    m.warnings.push_back(group->where("weights") +
                         " is absent: weights are not quantised, counted at the dtype");
    return;
  }
  std::string format;
  if (const auto f = q.string("format"))
    format = *f;
  else if (const auto gf = group->string("format"))
    format = *gf;
  const std::string fmt = lower(format);
  const std::string format_where = q.has("format") ? q.where("format") : group->where("format");
  if (unmodelled_ct_format(format)) {
    m.warnings.push_back(format_where + " '" + format +
                         "' is not modelled: weights are counted at the config's torch_dtype");
    return;
  }
  const auto bits = weights->u64("num_bits");
  if (!bits) weights->fail("num_bits", "is missing");
  const std::string type = lower(weights->string("type").value_or("int"));
  if (type != "int" && type != "float")
    weights->fail("type", "must be \"int\" or \"float\", got '" + type + "'");
  const std::string strategy = lower(weights->string("strategy").value_or("tensor"));
  WeightQuant w;
  w.bits = *bits;
  w.scale_dtype = m.embedding_dtype;
  w.zero_point = !weights->boolean("symmetric").value_or(true);
  if (const auto actorder = weights->string("actorder")) w.g_idx = lower(*actorder) == "group";
  std::string grouping;
  if (strategy == "group" || strategy == "tensor_group") {
    w.group_size = group_size(*weights, "group_size", false, 0);
    if (w.group_size == 0) weights->fail("group_size", "is missing: strategy group needs it");
    grouping = group_words(w.group_size);
  } else if (strategy == "channel") {
    grouping = "per-channel";
  } else if (strategy == "tensor") {
    w.tensor_scale = true;
    grouping = "per-tensor";
  } else if (strategy == "block") {
    const auto block = weights->u64_list("block_structure");
    if (!block || block->size() != 2 || (*block)[0] == 0 || (*block)[1] == 0)
      weights->fail("block_structure", "must be two positive integers [block_n, block_k] for strategy block");
    w.block_out = (*block)[0];
    w.block_in = (*block)[1];
    grouping = std::to_string(w.block_out) + "x" + std::to_string(w.block_in) + " blocks";
  } else {
    weights->fail("strategy",
                  "must be tensor, channel, group, tensor_group or block, got '" + strategy + "'");
  }
  if (fmt == "pack-quantized") {
    if (type != "int" || (w.bits != 4 && w.bits != 8))
      weights->fail("num_bits", "must be 4 or 8 int bits for format pack-quantized");
    w.method = Method::ct_packed;
    w.stored = w.bits == 8 ? DType::int8 : DType::int4;
  } else if (fmt == "int-quantized" || (fmt == "naive-quantized" && type == "int")) {
    if (type != "int" || w.bits > 8) weights->fail("num_bits", "must be at most 8 int bits for " + format);
    w.method = Method::ct_int;  // one int8 a value (naive-quantized stores 4-bit values a byte each)
    w.stored = DType::int8;
    if (w.zero_point)
      m.warnings.push_back(weights->where("symmetric") +
                           " false: the int8 zero points (one per scale) are not counted");
  } else if (fmt == "float-quantized" || (fmt == "naive-quantized" && type == "float")) {
    if (type != "float" || w.bits != 8) weights->fail("num_bits", "must be 8 float bits for " + format);
    w.method = Method::ct_float;
    w.stored = DType::fp8_e4m3;
  } else {
    if (format.empty()) q.fail("format", "is missing: compressed-tensors says how its weights are packed");
    q.fail(q.has("format") ? "format" : "config_groups/" + group_name + "/format",
           "'" + format +
               "' is not a compressed-tensors format kvplan knows (pack-quantized, int-quantized, "
               "float-quantized, naive-quantized, nvfp4-pack-quantized, ...)");
  }
  if (const auto in = group->object("input_activations"))
    w.input_scale = !in->boolean("dynamic").value_or(false) && !in->obj().empty();
  w.label = "compressed-tensors " + std::string(type == "float" ? "fp" : "int") + std::to_string(w.bits) +
            " " + grouping;
  apply_unconverted(q, "ignore", w, m.warnings);
  m.weight_dtype = m.expert_weight_dtype = w.stored;
  m.quant = w;
}

/// bitsandbytes (transformers quantizer_bnb_4bit.py / quantizer_bnb_8bit.py): every nn.Linear but those in
/// llm_int8_skip_modules (lm_head by default) is replaced, the MoE router included. 4-bit: Params4bit
/// (bitsandbytes nn/modules.py) packs two values a byte (bnb_4bit_quant_storage changes the element type,
/// not the bytes), with blocksize 64 absmax (functional.py quantize_4bit); 8-bit: Int8Params with its SCB.
void read_bnb(const Reader& q, ModelSpec& m) {
  WeightQuant w;
  const bool four = q.boolean("load_in_4bit").value_or(false);
  const bool eight = q.boolean("load_in_8bit").value_or(false);
  if (four == eight)
    q.fail("load_in_4bit",
           four ? "and load_in_8bit are both true" : "and load_in_8bit are both false or absent");
  w.router = true;
  if (four) {
    const std::string type = lower(q.string("bnb_4bit_quant_type").value_or("fp4"));
    if (type != "nf4" && type != "fp4")
      q.fail("bnb_4bit_quant_type", "must be nf4 or fp4, got '" + type + "'");
    w.method = Method::bnb_4bit;
    w.bits = 4;
    w.double_quant = q.boolean("bnb_4bit_use_double_quant").value_or(false);
    if (const auto storage = q.string("bnb_4bit_quant_storage"))
      (void)parse_dtype(lower(*storage) == "uint8" ? "int8" : *storage, q.where("bnb_4bit_quant_storage"));
    w.stored = DType::int4;
    w.scale_dtype = DType::fp32;
    w.label = "bitsandbytes " + type + (w.double_quant ? " double-quant" : "");
  } else {
    w.method = Method::bnb_8bit;
    w.bits = 8;
    w.stored = DType::int8;
    w.scale_dtype = DType::fp32;
    w.label = "bitsandbytes int8";
  }
  q.consider("bnb_4bit_compute_dtype");  // the matmul's dtype, not storage
  q.consider("llm_int8_threshold");
  q.consider("llm_int8_has_fp16_weight");
  apply_unconverted(q, "llm_int8_skip_modules", w, m.warnings);
  m.weight_dtype = m.expert_weight_dtype = w.stored;
  m.quant = w;
}
}  // namespace

void check_quantized_widths(const HfConfig& c, const ModelSpec& m) {
  const WeightQuant& w = m.quant;
  if ((w.method != Method::awq && w.method != Method::gptq) || w.group_size == 0) return;
  const Reader* owner = c.top.get("quantization_config") != nullptr ? &c.top : &c.r;
  const Reader q = *owner->object("quantization_config");
  const char* key = w.method == Method::awq && !q.has("group_size") ? "q_group_size" : "group_size";
  const auto role_words = [](LinearRole role) {
    switch (role) {
      case LinearRole::mixer: return "an attention or mixer projection";
      case LinearRole::mlp: return "a dense MLP projection";
      case LinearRole::shared_expert: return "a shared expert's projection";
      default: return "a linear layer";
    }
  };
  for (const auto& s : linear_shapes(m)) {
    // Routed experts (and the router) are not built by the linear methods: vLLM's fused-MoE methods size
    // their scales apart, so this rule does not speak for them.
    if (s.role == LinearRole::expert || s.role == LinearRole::router) continue;
    if (s.in == 0 || s.count == 0 || !quantized(w, s.role) || s.in % w.group_size == 0) continue;
    q.fail(key, std::to_string(w.group_size) + " does not divide the input width " + std::to_string(s.in) +
                    " of " + role_words(s.role) + " (vLLM " +
                    (w.method == Method::awq ? "awq.py AWQLinearMethod" : "gptq.py GPTQLinearMethod") +
                    ".create_weights: the input size is not aligned with the quantized weight shape)");
  }
}

void read_quantization(const HfConfig& c, ModelSpec& m) {
  const Reader* owner = c.top.get("quantization_config") != nullptr ? &c.top : &c.r;
  const json* raw = owner->get("quantization_config");
  if (raw == nullptr || !raw->is_object()) return;
  const Reader q = *owner->object("quantization_config");
  // transformers reads a quantization_config without quant_method as bitsandbytes when load_in_4bit or
  // load_in_8bit is set, and otherwise raises "The model's quantization config from the arguments has no
  // `quant_method` attribute" (quantizers/auto.py AutoHfQuantizer.supports_quant_method,
  // AutoQuantizationConfig.from_dict); vLLM takes the missing method as "" and raises "Unknown
  // quantization method" (config ModelConfig._verify_quantization). Counting the weights at torch_dtype
  // instead would be silently wrong.
  if (raw->empty())
    owner->fail("quantization_config",
                "is empty: it names no quant_method (transformers and vLLM refuse it); remove it for an "
                "unquantised checkpoint");
  const json* method = q.get("quant_method");
  if (method == nullptr) {
    if (q.boolean("load_in_4bit").value_or(false) || q.boolean("load_in_8bit").value_or(false)) {
      read_bnb(q, m);
      return;
    }
    q.fail("quant_method",
           "is missing: transformers (AutoHfQuantizer.supports_quant_method) and vLLM refuse a "
           "quantization_config without it");
  }
  if (!method->is_string()) return;  // refused earlier (hf_config.cpp check_quantization_config)
  const std::string name = lower(method->get<std::string>());
  if (name == "fp8") {
    read_fp8(q, m);
  } else if (name == "mxfp4") {
    // gpt-oss: the experts' blocks and scales (modules_to_not_convert: self_attn, router, embed_tokens,
    // lm_head), 17 B a 32 values (DType::mxfp4).
    m.expert_weight_dtype = DType::mxfp4;
  } else if (name == "awq") {
    read_awq(q, m);
  } else if (name == "gptq") {
    read_gptq(q, m);
  } else if (name == "compressed-tensors") {
    read_compressed_tensors(q, m);
  } else if (name == "bitsandbytes") {
    read_bnb(q, m);
  } else {
    // modelopt, hqq, eetq, fbgemm_fp8, quanto, ...: the stored bits are not read here.
    m.warnings.push_back(
        "quantization_config quant_method '" + method->get<std::string>() +
        "' is not modelled: weights are counted at the config's torch_dtype; give the weights' size or "
        "their dtype for the checkpoint's real size");
  }
}

}  // namespace kvplan::presets::hf
