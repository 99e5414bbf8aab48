// GGUF headers -> ModelSpec. The reader follows ggml/src/gguf.cpp (gguf_init_from_file_impl) and
// ggml/docs/gguf.md; the model follows llama.cpp's src/llama-model.cpp (load_hparams) and
// src/llama-hparams.{h,cpp} (per-layer head counts, set_swa_pattern, recurrent layers).
#include "kvplan/gguf.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <limits>

#include "kvplan/error.hpp"
#include "kvplan/format.hpp"
#include "kvplan/presets.hpp"

namespace kvplan::presets {

namespace fs = std::filesystem;

namespace {

// (id, name, block size, type size), after gguf-py/gguf/constants.py GGML_QUANT_SIZES and ggml/src/ggml.c
// type_traits. QK_K = 256. Ids 4, 5 (Q4_2, Q4_3) and 31-33, 36-38 (repacked types) are gone from GGUF.
constexpr std::uint64_t QK_K = 256;
constexpr std::array<GgmlTypeInfo, 34> kGgmlTypes{{
    {0, "F32", 1, 4},
    {1, "F16", 1, 2},
    {2, "Q4_0", 32, 2 + 16},
    {3, "Q4_1", 32, 2 + 2 + 16},
    {6, "Q5_0", 32, 2 + 4 + 16},
    {7, "Q5_1", 32, 2 + 2 + 4 + 16},
    {8, "Q8_0", 32, 2 + 32},
    {9, "Q8_1", 32, 2 + 2 + 32},  // block_q8_1: ggml_half2 ds (d and s) + 32 int8
    {10, "Q2_K", 256, 2 + 2 + QK_K / 16 + QK_K / 4},
    {11, "Q3_K", 256, 2 + QK_K / 4 + QK_K / 8 + 12},
    {12, "Q4_K", 256, 2 + 2 + QK_K / 2 + 12},
    {13, "Q5_K", 256, 2 + 2 + QK_K / 2 + QK_K / 8 + 12},
    {14, "Q6_K", 256, 2 + QK_K / 2 + QK_K / 4 + QK_K / 16},
    {15, "Q8_K", 256, 4 + QK_K + QK_K / 8},
    {16, "IQ2_XXS", 256, 2 + QK_K / 4},
    {17, "IQ2_XS", 256, 2 + QK_K / 4 + QK_K / 32},
    {18, "IQ3_XXS", 256, 2 + QK_K / 4 + QK_K / 8},
    {19, "IQ1_S", 256, 2 + QK_K / 8 + QK_K / 16},
    {20, "IQ4_NL", 32, 2 + 16},
    {21, "IQ3_S", 256, 2 + QK_K / 4 + QK_K / 8 + QK_K / 32 + 4},
    {22, "IQ2_S", 256, 2 + QK_K / 4 + QK_K / 16},
    {23, "IQ4_XS", 256, 2 + 2 + QK_K / 2 + QK_K / 64},
    {24, "I8", 1, 1},
    {25, "I16", 1, 2},
    {26, "I32", 1, 4},
    {27, "I64", 1, 8},
    {28, "F64", 1, 8},
    {29, "IQ1_M", 256, QK_K / 8 + QK_K / 16 + QK_K / 32},
    {30, "BF16", 1, 2},
    {34, "TQ1_0", 256, 2 + 4 * 13},
    {35, "TQ2_0", 256, 2 + 64},
    {39, "MXFP4", 32, 1 + 16},  // block_mxfp4: one E8M0 scale + 32 4-bit values
}};

// Sizes of the scalar value types (gguf.cpp GGUF_TYPE_SIZE); 0 for string and array.
std::uint64_t scalar_size(GgufType t) {
  switch (t) {
    case GgufType::uint8:
    case GgufType::int8:
    case GgufType::boolean: return 1;
    case GgufType::uint16:
    case GgufType::int16: return 2;
    case GgufType::uint32:
    case GgufType::int32:
    case GgufType::float32: return 4;
    case GgufType::uint64:
    case GgufType::int64:
    case GgufType::float64: return 8;
    case GgufType::string:
    case GgufType::array: return 0;
  }
  return 0;
}

/// The header runs past the bytes read so far (but not past the file): read more and parse again.
struct NeedMore {};

/// A bounds-checked little-endian cursor over the first bytes of a file of `total` bytes.
class Cursor {
 public:
  Cursor(std::string_view bytes, std::uint64_t total, std::string origin)
      : b_(bytes), total_(total), origin_(std::move(origin)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    throw Error(origin_ + ": " + field, reason);
  }
  /// Bytes left in the file: what bounds every count.
  std::uint64_t left() const { return total_ - pos_; }
  void need(std::uint64_t n, const std::string& field) const {
    if (n > left())
      fail(field, "truncated header: " + std::to_string(n) + " bytes needed at offset " +
                      std::to_string(pos_) + ", " + std::to_string(left()) + " left");
    if (n > b_.size() - pos_) throw NeedMore{};
  }
  std::uint64_t le(unsigned bytes, const std::string& field) {
    need(bytes, field);
    std::uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i)
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(b_[pos_ + i])) << (8 * i);
    pos_ += bytes;
    return v;
  }
  void skip(std::uint64_t n, const std::string& field) {
    need(n, field);
    pos_ += n;
  }
  /// A count of items each at least `min_item` bytes: more than the bytes left would overflow or truncate.
  std::uint64_t count(std::uint64_t min_item, const std::string& field) {
    const std::uint64_t n = le(8, field);
    if (min_item != 0 && n > left() / min_item)
      fail(field, "count " + std::to_string(n) + " cannot fit in the " + std::to_string(left()) +
                      " bytes left (corrupt or truncated header)");
    return n;
  }
  std::string str(const std::string& field) {
    const std::uint64_t n = count(1, field);
    std::string s(b_.substr(pos_, n));
    pos_ += n;
    return s;
  }

 private:
  std::string_view b_;
  std::uint64_t total_ = 0;
  std::uint64_t pos_ = 0;
  std::string origin_;
};

constexpr std::uint64_t kMaxKeptArray = 1U << 16;

GgufType value_type(Cursor& c, const std::string& field) {
  const std::uint64_t t = c.le(4, field);
  if (t > static_cast<std::uint32_t>(GgufType::float64))
    c.fail(field, "unknown GGUF value type " + std::to_string(t));
  return static_cast<GgufType>(t);
}

/// One scalar into v (integers to uints, floats to floats).
void read_scalar(Cursor& c, GgufType t, GgufValue& v, const std::string& field) {
  const std::uint64_t size = scalar_size(t);
  const std::uint64_t raw = c.le(static_cast<unsigned>(size), field);
  switch (t) {
    case GgufType::float32: {
      float f = 0;
      const auto u = static_cast<std::uint32_t>(raw);
      static_assert(sizeof f == sizeof u);
      std::memcpy(&f, &u, sizeof f);
      v.floats.push_back(f);
      return;
    }
    case GgufType::float64: {
      double d = 0;
      std::memcpy(&d, &raw, sizeof d);
      v.floats.push_back(d);
      return;
    }
    case GgufType::int8:
    case GgufType::int16:
    case GgufType::int32:
    case GgufType::int64: {
      const unsigned bits = static_cast<unsigned>(size * 8);
      const bool neg = (raw >> (bits - 1)) & 1U;
      v.negative = v.negative || neg;
      v.uints.push_back(neg ? 0 : raw);
      return;
    }
    default: v.uints.push_back(raw); return;
  }
}

GgufValue read_value(Cursor& c, GgufType t, const std::string& field) {
  GgufValue v;
  v.type = t;
  if (t == GgufType::string) {
    v.str = c.str(field);
    return v;
  }
  if (t != GgufType::array) {
    read_scalar(c, t, v, field);
    return v;
  }
  v.element = value_type(c, field + " (array element type)");
  if (v.element == GgufType::array) c.fail(field, "arrays of arrays are not GGUF");
  // A string element is at least its 8-byte length.
  v.count = c.count(v.element == GgufType::string ? 8 : scalar_size(v.element), field + " (array length)");
  if (v.element == GgufType::string) {
    for (std::uint64_t i = 0; i < v.count; ++i) c.skip(c.count(1, field), field);
    return v;
  }
  // Per-layer arrays are kept; longer ones (token types, scores, merges) only counted.
  if (v.count > kMaxKeptArray) {
    c.skip(checked_mul(v.count, scalar_size(v.element), field), field);
    return v;
  }
  for (std::uint64_t i = 0; i < v.count; ++i) read_scalar(c, v.element, v, field);
  return v;
}

}  // namespace

std::optional<GgmlTypeInfo> ggml_type_info(std::uint32_t id) {
  for (const auto& t : kGgmlTypes)
    if (t.id == id) return t;
  return std::nullopt;
}

Bytes ggml_tensor_bytes(std::uint32_t type, const std::vector<std::uint64_t>& shape, std::string_view field) {
  const std::string f(field);
  const auto info = ggml_type_info(type);
  if (!info) throw Error(f, "unknown ggml type " + std::to_string(type));
  if (shape.empty()) throw Error(f, "a tensor without dimensions");
  if (shape[0] % info->block_values != 0)
    throw Error(f, "ne[0] = " + std::to_string(shape[0]) + " is not a multiple of " +
                       std::string(info->name) + "'s block of " + std::to_string(info->block_values));
  std::uint64_t bytes = checked_mul(shape[0] / info->block_values, info->block_bytes, f);
  for (std::size_t i = 1; i < shape.size(); ++i) bytes = checked_mul(bytes, shape[i], f);
  return Bytes{bytes};
}

namespace {
GgufHeader parse_prefix(std::string_view bytes, std::uint64_t total, std::string_view origin_view) {
  Cursor c(bytes, total, std::string(origin_view));
  GgufHeader h;
  c.need(4, "magic");
  if (bytes.substr(0, 4) != "GGUF") c.fail("magic", "not a GGUF file (no \"GGUF\" magic)");
  c.skip(4, "magic");
  h.version = static_cast<std::uint32_t>(c.le(4, "version"));
  // gguf.cpp: a version whose low 16 bits are 0 was written on a big-endian host.
  if ((h.version & 0xFFFFU) == 0)
    c.fail("version", "a big-endian GGUF file: kvplan reads little-endian GGUF only");
  if (h.version == 1) c.fail("version", "GGUF version 1 (2023, 32-bit counts) is not supported: reconvert");
  if (h.version > 3)
    c.fail("version", "GGUF version " + std::to_string(h.version) + " is unknown (2 and 3 are)");
  // Each tensor info is at least 8 (name length) + 4 (n_dims) + 8 (ne[0]) + 4 (type) + 8 (offset) bytes;
  // each metadata pair at least 8 (key length) + 4 (type) + 1 (smallest value).
  const std::uint64_t n_tensors = c.count(0, "tensor_count");
  const std::uint64_t n_kv = c.count(13, "metadata_kv_count");
  if (n_tensors > c.left() / 32)
    c.fail("tensor_count", "count " + std::to_string(n_tensors) + " cannot fit in the " +
                               std::to_string(c.left()) + " bytes left (corrupt or truncated header)");
  for (std::uint64_t i = 0; i < n_kv; ++i) {
    const std::string where = "metadata[" + std::to_string(i) + "]";
    std::string key = c.str(where + " key");
    const GgufType t = value_type(c, key);
    GgufValue v = read_value(c, t, key);
    if (!h.metadata.emplace(key, std::move(v)).second) c.fail(key, "duplicate metadata key");
  }
  for (std::uint64_t i = 0; i < n_tensors; ++i) {
    GgufTensor t;
    t.name = c.str("tensor[" + std::to_string(i) + "] name");
    const std::string field = "tensor '" + t.name + "'";
    const std::uint64_t dims = c.le(4, field + " n_dims");
    if (dims == 0 || dims > 4) c.fail(field, "n_dims " + std::to_string(dims) + " (ggml: 1 to 4)");
    for (std::uint64_t d = 0; d < dims; ++d) t.shape.push_back(c.le(8, field + " ne"));
    t.type = static_cast<std::uint32_t>(c.le(4, field + " type"));
    t.offset = c.le(8, field + " offset");
    (void)ggml_tensor_bytes(t.type, t.shape, std::string(origin_view) + ": " + field);
    h.tensors.push_back(std::move(t));
  }
  return h;
}
}  // namespace

GgufHeader parse_gguf_header(std::string_view bytes, std::string_view origin) {
  try {
    return parse_prefix(bytes, bytes.size(), origin);
  } catch (const NeedMore&) {
    throw Error(std::string(origin), "truncated header");  // unreachable: the whole header is there
  }
}

bool is_gguf_file(const fs::path& path) {
  // Only a regular file is opened: a FIFO would block the open (read_json_file then names what it is).
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && std::string_view(magic, 4) == "GGUF";
}

GgufHeader read_gguf_header(const fs::path& path) {
  const std::string origin = path.filename().string();
  presets::require_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string(), "cannot open");
  // The header is read in pieces that double up to the whole file: a header is a few MiB at most (the
  // tokenizer's strings), while the file may be hundreds of GiB of tensor data that is never read.
  std::error_code ec;
  const std::uint64_t file_size = fs::file_size(path, ec);
  if (ec) throw Error(path.string(), "cannot read its size: " + ec.message());
  constexpr std::uint64_t kMaxHeader = 1ULL << 30;
  std::uint64_t want = std::min<std::uint64_t>(file_size, 1ULL << 20);
  for (;;) {
    std::string buf(want, '\0');
    in.clear();
    in.seekg(0);
    if (!in.read(buf.data(), static_cast<std::streamsize>(want))) throw Error(path.string(), "read error");
    try {
      return parse_prefix(buf, file_size, origin);
    } catch (const NeedMore&) {
      if (want >= kMaxHeader) throw Error(origin, "a GGUF header over 1 GiB: refused");
      want = std::min<std::uint64_t>({file_size, want * 4, kMaxHeader});
    }
  }
}

namespace {

/// The `{arch}.*` keys of one header, with their file for errors.
class Keys {
 public:
  Keys(const GgufHeader& h, std::string origin, std::string arch)
      : h_(h), origin_(std::move(origin)), arch_(std::move(arch)) {}
  [[noreturn]] void fail(std::string_view key, const std::string& reason) const {
    throw Error(origin_ + ": " + std::string(key), reason);
  }
  std::string key(std::string_view suffix) const { return arch_ + "." + std::string(suffix); }
  const GgufValue* find(std::string_view full) const {
    const auto it = h_.metadata.find(full);
    return it == h_.metadata.end() ? nullptr : &it->second;
  }
  /// An unsigned integer scalar `{arch}.suffix`; nullopt when absent.
  std::optional<std::uint64_t> uint(std::string_view suffix) const {
    const std::string k = key(suffix);
    const GgufValue* v = find(k);
    if (v == nullptr) return std::nullopt;
    if (v->type == GgufType::array || v->uints.size() != 1 || v->type == GgufType::boolean)
      fail(k, "must be an unsigned integer");
    if (v->negative) fail(k, "must not be negative");
    return v->uints[0];
  }
  std::uint64_t uint_or(std::string_view suffix, std::uint64_t def) const {
    return uint(suffix).value_or(def);
  }
  std::uint64_t required(std::string_view suffix) const {
    const auto v = uint(suffix);
    if (!v) fail(key(suffix), "missing");
    return *v;
  }
  /// `{arch}.suffix` as one value per layer: a scalar for every layer, or an array of n_layer integers
  /// (llama_model_loader::get_key_or_arr); `def` for every layer when absent.
  std::vector<std::uint64_t> per_layer(std::string_view suffix, std::uint64_t n_layer,
                                       std::uint64_t def) const {
    const std::string k = key(suffix);
    const GgufValue* v = find(k);
    if (v == nullptr) return std::vector<std::uint64_t>(n_layer, def);
    if (v->negative || (v->type == GgufType::array && v->element == GgufType::string) || !v->floats.empty() ||
        v->type == GgufType::string)
      fail(k, "must be an unsigned integer or an array of them");
    if (v->type != GgufType::array) return std::vector<std::uint64_t>(n_layer, v->uints.at(0));
    if (v->count != n_layer)
      fail(k, "has " + std::to_string(v->count) + " entries for " + std::to_string(n_layer) + " layers");
    return v->uints;
  }
  const std::string& arch() const { return arch_; }
  const std::string& origin() const { return origin_; }

 private:
  const GgufHeader& h_;
  std::string origin_;
  std::string arch_;
};

/// Which layers are sliding-window (llama-hparams.cpp set_swa_pattern: il is SWA when n == 0 or
/// il % n < n - 1), from {arch}.attention.sliding_window_pattern (a period, or one bool per layer) or the
/// period llama-model.cpp sets for the family.
std::vector<bool> swa_layers(const Keys& k, std::uint64_t n_layer, std::vector<std::string>& warnings) {
  const std::string pk = k.key("attention.sliding_window_pattern");
  std::optional<std::uint64_t> period;
  if (const GgufValue* v = k.find(pk)) {
    if (v->type == GgufType::array) {
      if (v->count != n_layer || !v->floats.empty() || v->element == GgufType::string)
        k.fail(pk, "must be a period or one boolean per layer (" + std::to_string(n_layer) + ")");
      std::vector<bool> out;
      for (const auto b : v->uints) out.push_back(b != 0);
      return out;
    }
    period = k.uint("attention.sliding_window_pattern");
  }
  // llama-model.cpp load_hparams: the families' own periods.
  static const std::pair<std::string_view, std::uint64_t> family_period[] = {
      {"gemma2", 2},  {"gemma3", 6}, {"gemma-embedding", 6}, {"cohere2", 4},
      {"gpt-oss", 2}, {"llama4", 4}, {"exaone4", 4}};
  if (!period)
    for (const auto& [arch, p] : family_period)
      if (k.arch() == arch) period = p;
  if (!period) {
    warnings.push_back("GGUF: " + k.key("attention.sliding_window") +
                       " without a pattern, and llama.cpp sets " + "no period for '" + k.arch() +
                       "': every layer counted as sliding-window");
    period = 0;
  }
  std::vector<bool> out(n_layer);
  for (std::uint64_t il = 0; il < n_layer; ++il) out[il] = *period == 0 || il % *period < *period - 1;
  return out;
}

/// The Mamba / Mamba2 layer of the {arch}.ssm.* keys (llama-model.cpp: ssm_d_conv, ssm_d_inner, ssm_d_state,
/// ssm_dt_rank, ssm_n_group; Mamba2 heads = time_step_rank). llama.cpp keeps the conv and SSM states in
/// f32 (llama_context_params type_r / type_s default GGML_TYPE_F32).
RecurrentSpec ssm_layer(const Keys& k) {
  RecurrentSpec r;
  r.d_conv = k.required("ssm.conv_kernel");
  r.d_inner = k.required("ssm.inner_size");
  r.d_state = k.required("ssm.state_size");
  const std::uint64_t dt = k.required("ssm.time_step_rank");
  const std::uint64_t groups = k.uint_or("ssm.group_count", 0);
  const bool mamba1 = k.arch() == "mamba" || k.arch() == "jamba";
  if (mamba1) {
    r.kind = RecurrentSpec::Kind::mamba;
    r.dt_rank = dt;
  } else {
    r.kind = RecurrentSpec::Kind::mamba2;
    r.n_heads = dt;
    if (dt == 0 || r.d_inner % dt != 0)
      k.fail(k.key("ssm.time_step_rank"),
             "Mamba2 heads must divide ssm.inner_size " + std::to_string(r.d_inner));
    r.head_dim = r.d_inner / dt;
    r.n_groups = groups == 0 ? 1 : groups;
  }
  r.conv_dtype = r.ssm_dtype = DType::fp32;
  return r;
}

std::uint64_t vocab_size(const GgufHeader& h, const Keys& k) {
  if (const GgufValue* v = k.find("tokenizer.ggml.tokens"); v != nullptr && v->type == GgufType::array)
    return v->count;
  if (const auto n = k.uint("vocab_size")) return *n;
  for (const auto& t : h.tensors)  // token_embd.weight is {n_embd, n_vocab}
    if (t.name == "token_embd.weight" && t.shape.size() == 2) return t.shape[1];
  return 0;
}

bool has_tensor_containing(const GgufHeader& h, std::string_view part) {
  for (const auto& t : h.tensors)
    if (t.name.find(part) != std::string::npos) return true;
  return false;
}

/// The attention layer il (not recurrent).
AttentionLayer attention_layer(const Keys& k, const GgufHeader& h, std::uint64_t heads,
                               std::uint64_t kv_heads, std::uint64_t embd, bool sliding,
                               std::uint64_t window) {
  AttentionLayer a;
  a.num_attention_heads = heads;
  a.num_key_value_heads = kv_heads;
  // llama-model.cpp: n_embd_head_k = key_length, default n_embd / n_head; value_length defaults to it.
  if (heads == 0) k.fail(k.key("attention.head_count"), "must be positive on an attention layer");
  a.head_dim_k = k.uint_or("attention.key_length", embd / heads);
  a.head_dim_v = k.uint_or("attention.value_length", a.head_dim_k);
  if (const auto rank = k.uint("attention.kv_lora_rank"); rank && *rank > 0) {
    a.kind = AttentionKind::mla;
    a.kv_lora_rank = *rank;
    a.qk_rope_head_dim = k.required("rope.dimension_count");
    a.q_lora_rank = k.uint_or("attention.q_lora_rank", 0);
    if (const auto kmla = k.uint("attention.key_length_mla")) {
      // Converted after the MLA split (llama.cpp PR #12801): key_length = kv_lora_rank + rope, MQA.
      a.head_dim_k = *kmla;
      a.head_dim_v = k.uint_or("attention.value_length_mla", a.head_dim_k);
      a.num_key_value_heads = heads;
    } else if (!has_tensor_containing(h, "attn_k_b")) {
      // Before the split: llama.cpp decompresses K and V and caches them per head (engine-logs case
      // llamacpp-legacy-mla-gguf-deepseek-coder-v2-lite).
      a.mla_per_head_cache = true;
    }
    return a;
  }
  if (kv_heads == 0 || heads % kv_heads != 0)
    k.fail(k.key("attention.head_count_kv"),
           std::to_string(kv_heads) + " does not divide head_count " + std::to_string(heads));
  if (sliding) {
    a.kind = k.arch() == "llama4" ? AttentionKind::chunked : AttentionKind::sliding;
    a.window = window;
  }
  return a;
}

}  // namespace

ModelSpec model_from_gguf(const GgufHeader& h, std::string_view origin_view) {
  const std::string origin(origin_view);
  const auto arch_it = h.metadata.find("general.architecture");
  if (arch_it == h.metadata.end() || arch_it->second.type != GgufType::string)
    throw Error(origin + ": general.architecture", "missing (a string naming the llama.cpp architecture)");
  const Keys k(h, origin, arch_it->second.str);
  ModelSpec m;
  m.dtype = DType::fp16;  // llama.cpp's default cache type (type_k / type_v = f16)
  const std::uint64_t n_layer = k.required("block_count");
  if (n_layer == 0 || n_layer > 65536) k.fail(k.key("block_count"), "must be in 1..65536");
  m.hidden_size = k.required("embedding_length");
  m.max_position_embeddings = k.uint_or("context_length", 0);
  m.vocab_size = vocab_size(h, k);
  const auto heads = k.per_layer("attention.head_count", n_layer, 0);
  const auto kv_heads_raw = k.per_layer("attention.head_count_kv", n_layer, 0);
  const bool kv_given = k.find(k.key("attention.head_count_kv")) != nullptr;
  const auto ff = k.per_layer("feed_forward_length", n_layer, 0);
  const std::uint64_t window = k.uint_or("attention.sliding_window", 0);
  const auto swa = window > 0 ? swa_layers(k, n_layer, m.warnings) : std::vector<bool>(n_layer, false);
  const std::uint64_t experts = k.uint_or("expert_count", 0);
  const std::uint64_t dense_first = k.uint_or("leading_dense_block_count", 0);
  const bool falcon_h1 = k.arch() == "falcon-h1";
  const bool has_ssm = k.find(k.key("ssm.conv_kernel")) != nullptr;

  std::vector<LayerGroup> layers;
  for (std::uint64_t il = 0; il < n_layer; ++il) {
    LayerGroup g;
    // head_count_kv absent: MHA (llama-model.cpp: n_head_kv_arr defaults to n_head_arr).
    const std::uint64_t kv = kv_given ? kv_heads_raw[il] : heads[il];
    if (heads[il] == 0 || kv == 0) {
      // llama-hparams.cpp is_recurrent(il): no KV heads on a recurrent layer.
      if (!has_ssm)
        k.fail(k.key("attention.head_count_kv"),
               "layer " + std::to_string(il) + " has no KV heads, and '" + k.arch() +
                   "' has no ssm.* keys: kvplan models only Mamba layers from GGUF");
      g.attention.kind = AttentionKind::recurrent;
      g.attention.recurrent = ssm_layer(k);
    } else {
      g.attention = attention_layer(k, h, heads[il], kv, m.hidden_size, swa[il], window);
      if (falcon_h1) {
        g.attention.parallel_recurrent = true;
        g.attention.recurrent = ssm_layer(k);
      }
    }
    if (experts > 0 && il >= dense_first) {
      g.mlp.num_experts = experts;
      g.mlp.experts_per_token = k.uint_or("expert_used_count", 0);
      g.mlp.expert_intermediate_size = k.uint_or("expert_feed_forward_length", ff[il]);
      g.mlp.num_shared_experts = k.uint_or("expert_shared_count", 0);
      g.mlp.shared_intermediate_size =
          g.mlp.num_shared_experts > 0
              ? k.uint_or("expert_shared_feed_forward_length", g.mlp.expert_intermediate_size)
              : 0;
    } else {
      g.mlp.intermediate_size = ff[il];
    }
    layers.push_back(std::move(g));
  }
  m.layers = compress(std::move(layers));
  for (const auto& g : m.layers)
    if (g.attention.mla_per_head_cache) {
      m.warnings.push_back(
          "GGUF converted before llama.cpp's MLA split (no attention.key_length_mla, no "
          "attn_k_b): llama.cpp caches K and V per head for it");
      break;
    }

  // Exact weights: every tensor's bytes as ggml stores it, and its elements as the parameter count.
  std::uint64_t bytes = 0;
  std::uint64_t params = 0;
  for (const auto& t : h.tensors) {
    const std::string f = origin + ": tensor '" + t.name + "'";
    bytes = checked_add(bytes, ggml_tensor_bytes(t.type, t.shape, f).value, f);
    std::uint64_t n = 1;
    for (const auto d : t.shape) n = checked_mul(n, d, f);
    params = checked_add(params, n, f);
  }
  if (!h.tensors.empty()) {
    m.weights_bytes = Bytes{bytes};
    m.weights_parameters = params;
    m.weights_origin = "GGUF tensors (exact)";
    m.tie_word_embeddings = !has_tensor_containing(h, "output.weight");
  }
  if (const GgufValue* name = k.find("general.name"); name != nullptr && name->type == GgufType::string)
    m.name = printable(name->str);  // shown as a title: no escape sequence or bidi control from the file
  validate(m);
  return m;
}

ModelSpec load_gguf_file(const fs::path& path) {
  ModelSpec m = model_from_gguf(read_gguf_header(path), path.filename().string());
  m.id = path.stem().string();
  if (m.name.empty()) m.name = m.id;
  m.source = path.string();
  return m;
}

}  // namespace kvplan::presets
