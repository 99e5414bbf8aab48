#pragma once
// A GGUF writer for tests (ggml/docs/gguf.md, version 3, little-endian), laid out as llama.cpp's gguf-py
// GGUFWriter writes a file: metadata, tensor infos with offsets packed in order and padded to 32 B, then
// the data region (zeros; on disk a sparse tail that nothing reads).
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace kvplan::test {

// ggml type ids (ggml.h enum ggml_type).
constexpr std::uint32_t F32 = 0, F16 = 1, Q8_0 = 8, Q4_K = 12, Q6_K = 14;

/// Bytes of a tensor of the few types the tests write, from ggml.c type_traits (values per block, bytes
/// per block), independent of presets::ggml_type_info.
inline std::uint64_t tensor_bytes(std::uint32_t type, const std::vector<std::uint64_t>& shape) {
  std::uint64_t values = 1, size = 0;
  switch (type) {
    case F32: size = 4; break;
    case F16: size = 2; break;
    case Q8_0: values = 32, size = 34; break;
    case Q4_K: values = 256, size = 144; break;
    case Q6_K: values = 256, size = 210; break;
    default: return 0;  // a type the reader refuses
  }
  std::uint64_t n = 1;
  for (const auto d : shape) n *= d;
  return n / values * size;
}

constexpr std::uint64_t pad32(std::uint64_t n) { return (n + 31) / 32 * 32; }

/// A GGUF v3 file (ggml/docs/gguf.md): metadata, tensor infos with their offsets packed in order and
/// padded to 32 B as gguf-py's GGUFWriter lays them out, and a data region of zeros.
class GgufWriter {
 public:
  static void u32(std::string& o, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) o += static_cast<char>((v >> (8 * i)) & 0xFF);
  }
  static void u64(std::string& o, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) o += static_cast<char>((v >> (8 * i)) & 0xFF);
  }
  static void str(std::string& o, std::string_view s) {
    u64(o, s.size());
    o += s;
  }
  static std::string le32(std::uint32_t v) {
    std::string o;
    u32(o, v);
    return o;
  }
  GgufWriter& kv_u32(std::string_view k, std::uint32_t v) { return kv_raw(k, 4, le32(v)); }  // UINT32
  GgufWriter& kv_f32(std::string_view k, float v) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, 4);
    return kv_raw(k, 6, le32(bits));  // FLOAT32
  }
  GgufWriter& kv_bool(std::string_view k, bool v) { return kv_raw(k, 7, v ? "\1" : std::string(1, '\0')); }
  GgufWriter& kv_str(std::string_view k, std::string_view v) {
    std::string o;
    str(o, v);
    return kv_raw(k, 8, o);  // STRING
  }
  GgufWriter& kv_u32s(std::string_view k, const std::vector<std::uint32_t>& v) {
    str(kv_, k);
    u32(kv_, 9);  // ARRAY
    u32(kv_, 4);  // of UINT32
    u64(kv_, v.size());
    for (const auto x : v) u32(kv_, x);
    ++n_kv_;
    return *this;
  }
  /// tokenizer.ggml.tokens: n one-byte strings.
  GgufWriter& tokens(std::uint64_t n) {
    str(kv_, "tokenizer.ggml.tokens");
    u32(kv_, 9);
    u32(kv_, 8);  // of STRING
    u64(kv_, n);
    for (std::uint64_t i = 0; i < n; ++i) str(kv_, "t");
    ++n_kv_;
    return *this;
  }
  GgufWriter& tensor(std::string_view name, std::vector<std::uint64_t> shape, std::uint32_t type) {
    str(ti_, name);
    u32(ti_, static_cast<std::uint32_t>(shape.size()));
    for (const auto d : shape) u64(ti_, d);
    u32(ti_, type);
    u64(ti_, data_);  // offset in the data region
    data_ += pad32(tensor_bytes(type, shape));
    ++n_tensors_;
    return *this;
  }
  /// A pair of any value type with its value's bytes as given (refusal tests).
  GgufWriter& kv_raw(std::string_view k, std::uint32_t type, std::string_view value) {
    str(kv_, k);
    u32(kv_, type);
    kv_ += value;
    ++n_kv_;
    return *this;
  }
  /// The header's length so far: where the next pair would start, were there no tensor infos.
  std::uint64_t header_size() const { return 24 + kv_.size() + ti_.size(); }
  /// The header alone, unpadded (what the refusal tests cut and patch).
  std::string bytes(std::uint32_t version = 3) const {
    std::string o = "GGUF";
    u32(o, version);
    u64(o, n_tensors_);
    u64(o, n_kv_);
    return o + kv_ + ti_;
  }
  /// The whole file's size: the header padded to 32 B, then the data region.
  std::uint64_t file_size() const { return pad32(bytes().size()) + data_; }
  /// The whole file in memory: the header padded to 32 B, then the data region's zeros (small models).
  std::string file() const {
    std::string h = bytes();
    h.resize(pad32(h.size()) + data_, '\0');
    return h;
  }
  /// The whole file on disk; the data region a sparse tail (std::filesystem::resize_file), never read.
  std::filesystem::path write(const std::string& name) const {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "kvplan-test-gguf";
    std::filesystem::create_directories(dir);
    const std::filesystem::path p = dir / name;
    const std::string h = bytes();
    std::ofstream(p, std::ios::binary | std::ios::trunc) << h;
    std::filesystem::resize_file(p, pad32(h.size()) + data_);
    return p;
  }

 private:
  std::string kv_, ti_;
  std::uint64_t n_kv_ = 0, n_tensors_ = 0, data_ = 0;
};

/// Llama-3.1-8B's metadata as convert_hf_to_gguf.py writes it.
inline GgufWriter llama31_8b_metadata() {
  GgufWriter w;
  w.kv_str("general.architecture", "llama")
      .kv_str("general.name", "Meta Llama 3.1 8B Instruct")
      .kv_u32("llama.block_count", 32)
      .kv_u32("llama.context_length", 131072)
      .kv_u32("llama.embedding_length", 4096)
      .kv_u32("llama.feed_forward_length", 14336)
      .kv_u32("llama.attention.head_count", 32)
      .kv_u32("llama.attention.head_count_kv", 8)
      .kv_f32("llama.rope.freq_base", 500000.0F)
      .kv_u32("llama.rope.dimension_count", 128)
      .kv_u32("general.file_type", 15)
      .tokens(128256);
  return w;
}

/// Block il's tensors, in llama31_8b()'s types.
inline void llama31_8b_block(GgufWriter& w, int il) {
  const std::string b = "blk." + std::to_string(il) + ".";
  w.tensor(b + "attn_norm.weight", {4096}, F32)
      .tensor(b + "attn_q.weight", {4096, 4096}, Q4_K)
      .tensor(b + "attn_k.weight", {4096, 1024}, Q4_K)
      .tensor(b + "attn_v.weight", {4096, 1024}, Q6_K)
      .tensor(b + "attn_output.weight", {4096, 4096}, Q4_K)
      .tensor(b + "ffn_norm.weight", {4096}, F32)
      .tensor(b + "ffn_gate.weight", {4096, 14336}, Q4_K)
      .tensor(b + "ffn_up.weight", {4096, 14336}, Q4_K)
      .tensor(b + "ffn_down.weight", {14336, 4096}, Q6_K);
}

/// Llama-3.1-8B as convert_hf_to_gguf.py writes it, with a Q4_K_M-like mix: Q4_K for most matrices, Q6_K
/// for attn_v, ffn_down and output, F32 norms and rope_freqs.
inline GgufWriter llama31_8b() {
  GgufWriter w = llama31_8b_metadata();
  w.tensor("rope_freqs.weight", {64}, F32)
      .tensor("token_embd.weight", {4096, 128256}, Q4_K)
      .tensor("output_norm.weight", {4096}, F32)
      .tensor("output.weight", {4096, 128256}, Q6_K);
  for (int il = 0; il < 32; ++il) llama31_8b_block(w, il);
  return w;
}

}  // namespace kvplan::test
