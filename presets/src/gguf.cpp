// GGUF headers -> ModelSpec. The reader follows ggml/src/gguf.cpp (gguf_init_from_file_impl) and
// ggml/docs/gguf.md; the model follows llama.cpp's src/llama-model.cpp (load_hparams) and
// src/llama-hparams.{h,cpp} (per-layer head counts, set_swa_pattern, recurrent layers).
#include "kvplan/gguf.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <tuple>

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

// What a header may cost. A real header is a few MiB (the tokenizer: Qwen3's 151,669 tokens and 151,387
// merges are about 5 MiB), while the file may be hundreds of GiB of tensor data that is never read. A
// hostile header is bounded in time by kMaxHeader (the bytes parsed: 256 MiB of empty strings take about
// a second) and in memory by kMaxKept (what is kept: keys, strings, per-layer arrays and tensor infos,
// with their overhead).
constexpr std::uint64_t kMaxHeader = 256ULL << 20;
constexpr std::uint64_t kMaxKept = 128ULL << 20;
// Strings longer than this (no key kvplan reads) are skipped, not kept: chat templates are tens of KiB.
constexpr std::uint64_t kMaxKeptString = 1ULL << 20;
// Arrays longer than this (token types, scores, merges) are counted, not kept; per-layer arrays are kept.
constexpr std::uint64_t kMaxKeptArray = 1ULL << 16;
// ggml.h GGML_MAX_NAME: gguf.cpp refuses a tensor name of 64 bytes or more.
constexpr std::uint64_t kMaxTensorName = 63;
// What one kept entry costs besides its bytes (map node, std::string, vectors, allocator headers).
constexpr std::uint64_t kEntryOverhead = 256;

/// Thrown by a Cursor over a file's first bytes when a read needs bytes past them: the header needs the
/// file's first `bytes` bytes at least.
struct NeedMore {
  std::uint64_t bytes;
};

/// A bounds-checked little-endian cursor over a file of `total` bytes, held whole in memory or read
/// forward in chunks. Every read is checked twice: against the file's size (a truncated header) and
/// against the bytes actually read into the window (a file that shrank while read).
class Cursor {
 public:
  /// The whole file in memory.
  Cursor(std::string_view whole, std::string origin)
      : win_(whole), total_(whole.size()), origin_(std::move(origin)) {}
  /// The first bytes of a file of `total` bytes (a Range response): a read past them throws NeedMore.
  Cursor(std::string_view prefix, std::uint64_t total, std::string origin)
      : chunk_(std::size_t{1} << 20),
        win_(prefix),
        total_(total),
        origin_(std::move(origin)),
        prefix_(true) {}
  /// A file of `total` bytes read through `in`, `chunk` bytes at a time (at least 8).
  Cursor(std::istream& in, std::uint64_t total, std::size_t chunk, std::string origin)
      : in_(&in), chunk_(std::max<std::size_t>(chunk, 8)), total_(total), origin_(std::move(origin)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    throw Error(origin_ + ": " + field, reason);
  }
  const std::string& origin() const { return origin_; }
  std::uint64_t pos() const { return pos_; }
  std::uint64_t total() const { return total_; }
  /// Bytes left in the file: what bounds every count.
  std::uint64_t left() const { return total_ - pos_; }
  /// n more bytes of header: in the file, and within kMaxHeader.
  void need(std::uint64_t n, const std::string& field) const {
    if (n > left())
      fail(field, "truncated header: " + std::to_string(n) + " bytes needed at offset " +
                      std::to_string(pos_) + ", " + std::to_string(left()) + " left");
    if (pos_ + n > kMaxHeader)
      fail(field, "the header runs past " + std::to_string(kMaxHeader >> 20) +
                      " MiB: refused (real headers are a few MiB)");
  }
  std::uint64_t le(unsigned bytes, const std::string& field) {
    need(bytes, field);
    const char* p = window(bytes, field);
    std::uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i)
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    pos_ += bytes;
    return v;
  }
  void skip(std::uint64_t n, const std::string& field) {
    need(n, field);
    pos_ += n;
  }
  /// n bytes as a string (the caller bounds n).
  std::string take(std::uint64_t n, const std::string& field) {
    need(n, field);
    std::string out;
    out.reserve(static_cast<std::size_t>(n));
    while (out.size() < n) {
      const std::uint64_t step =
          std::min<std::uint64_t>(n - out.size(), in_window() > 0 ? in_window() : chunk_);
      out.append(window(step, field), static_cast<std::size_t>(step));
      pos_ += step;
    }
    return out;
  }
  /// A count of items each at least `min_item` bytes: more than the bytes left would overflow or truncate.
  std::uint64_t count(std::uint64_t min_item, const std::string& field) {
    const std::uint64_t n = le(8, field);
    if (min_item != 0 && n > left() / min_item)
      fail(field, "count " + std::to_string(n) + " cannot fit in the " + std::to_string(left()) +
                      " bytes left (corrupt or truncated header)");
    return n;
  }
  /// Counts `bytes` against what the header may keep in memory.
  void keep(std::uint64_t bytes, const std::string& field) {
    kept_ += bytes;  // no overflow: each term is at most a header's length plus kEntryOverhead
    if (kept_ > kMaxKept)
      fail(field,
           "the header keeps over " + std::to_string(kMaxKept >> 20) +
               " MiB of keys, strings, arrays and tensor infos: refused (real headers keep a few MiB)");
  }

 private:
  /// Bytes of the window at or after pos_.
  std::uint64_t in_window() const {
    const std::uint64_t end = win_off_ + win_.size();
    return pos_ >= win_off_ && pos_ < end ? end - pos_ : 0;
  }
  /// A pointer to n bytes at pos_ (n at most the chunk, and need(n) passed), reading the next chunk when
  /// the window does not hold them.
  const char* window(std::uint64_t n, const std::string& field) {
    if (in_window() < n) refill(n, field);
    return win_.data() + (pos_ - win_off_);
  }
  void refill(std::uint64_t n, const std::string& field) {
    // A prefix: the caller fetches more and parses again. In memory the window is the whole file, so
    // need() has already refused what is not there.
    if (prefix_) throw NeedMore{pos_ + n};
    if (in_ == nullptr) fail(field, "read past the end of the header in memory");
    const std::uint64_t want = std::min<std::uint64_t>(chunk_, left());
    buf_.resize(static_cast<std::size_t>(want));
    if (stream_pos_ != pos_) {  // a skipped string or array: seek over it (a sparse region is never read)
      in_->clear();
      in_->seekg(static_cast<std::streamoff>(pos_));
    }
    in_->read(buf_.data(), static_cast<std::streamsize>(want));
    const auto got = static_cast<std::uint64_t>(std::max<std::streamsize>(in_->gcount(), 0));
    stream_pos_ = in_->good() ? pos_ + got : ~std::uint64_t{0};  // after a failed read, seek again
    win_ = std::string_view(buf_.data(), static_cast<std::size_t>(got));
    win_off_ = pos_;
    if (got < n)
      fail(field, "read " + std::to_string(got) + " bytes at offset " + std::to_string(pos_) + " where " +
                      std::to_string(n) + " were due (the file changed while it was read?)");
  }

  std::istream* in_ = nullptr;
  std::size_t chunk_ = 0;
  std::string buf_;
  std::string_view win_;  ///< file bytes [win_off_, win_off_ + win_.size())
  std::uint64_t win_off_ = 0;
  std::uint64_t stream_pos_ = 0;  ///< where `in_` reads next
  std::uint64_t total_ = 0;
  std::uint64_t pos_ = 0;
  std::uint64_t kept_ = 0;
  std::string origin_;
  bool prefix_ = false;
};

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
    v.count = c.le(8, field);
    if (v.count > kMaxKeptString) {
      c.skip(v.count, field);
      return v;
    }
    c.keep(v.count, field);
    v.str = c.take(v.count, field);
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
    for (std::uint64_t i = 0; i < v.count; ++i) c.skip(c.le(8, field), field);
    return v;
  }
  // Per-layer arrays are kept; longer ones (token types, scores) only counted.
  if (v.count > kMaxKeptArray) {
    c.skip(v.count * scalar_size(v.element), field);  // count() bounded it by the bytes left
    return v;
  }
  c.keep(v.count * sizeof(std::uint64_t), field);
  v.uints.reserve(static_cast<std::size_t>(v.count));
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

void read_metadata(Cursor& c, std::uint64_t n_kv, GgufHeader& h) {
  for (std::uint64_t i = 0; i < n_kv; ++i) {
    const std::string where = "metadata[" + std::to_string(i) + "] key";
    const std::uint64_t n = c.le(8, where);
    c.need(n, where);
    c.keep(n + kEntryOverhead, where);
    std::string key = c.take(n, where);
    const GgufType t = value_type(c, key);
    GgufValue v = read_value(c, t, key);
    if (!h.metadata.emplace(key, std::move(v)).second) c.fail(key, "duplicate metadata key");
  }
}

GgufTensor read_tensor_info(Cursor& c, std::uint64_t i) {
  GgufTensor t;
  const std::string where = "tensor[" + std::to_string(i) + "] name";
  const std::uint64_t n = c.le(8, where);
  if (n > kMaxTensorName)
    c.fail(where, std::to_string(n) + " bytes long: ggml names are under " +
                      std::to_string(kMaxTensorName + 1) + " bytes (GGML_MAX_NAME)");
  t.name = c.take(n, where);
  const std::string field = "tensor '" + t.name + "'";
  const std::uint64_t dims = c.le(4, field + " n_dims");
  if (dims == 0 || dims > 4) c.fail(field, "n_dims " + std::to_string(dims) + " (ggml: 1 to 4)");
  c.keep(kEntryOverhead + n + dims * 8, field);
  for (std::uint64_t d = 0; d < dims; ++d) {
    t.shape.push_back(c.le(8, field + " ne"));
    // gguf.cpp reads ne as int64_t and refuses a negative one.
    if (t.shape.back() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      c.fail(field + " ne", "ne[" + std::to_string(d) + "] is negative as ggml's int64_t");
  }
  t.type = static_cast<std::uint32_t>(c.le(4, field + " type"));
  t.offset = c.le(8, field + " offset");
  t.size = ggml_tensor_bytes(t.type, t.shape, c.origin() + ": " + field).value;
  return t;
}

/// gguf.cpp's alignment: general.alignment, a uint32 power of two, else 32 (GGUF_DEFAULT_ALIGNMENT).
std::uint64_t alignment(const Cursor& c, const GgufHeader& h) {
  const auto it = h.metadata.find("general.alignment");
  if (it == h.metadata.end()) return 32;
  const GgufValue& v = it->second;
  // gguf_get_val_u32 asserts the type: any other type aborts llama.cpp.
  if (v.type != GgufType::uint32 || v.uints.size() != 1 || v.uints[0] == 0 ||
      (v.uints[0] & (v.uints[0] - 1)) != 0)
    c.fail("general.alignment", "must be a uint32 power of two");
  return v.uints[0];
}

std::uint64_t align_up(std::uint64_t x, std::uint64_t a, const std::string& field) {
  return checked_add(x, (a - x % a) % a, field);
}

/// Tensor names are unique (gguf.cpp: "duplicate tensor name"); the data of every tensor lies in the
/// file, packed in order from the aligned end of the header (gguf.cpp's offset check; llama-model-loader's
/// "data is not within the file bounds").
void check_tensor_data(const Cursor& c, GgufHeader& h) {
  std::vector<const GgufTensor*> by_name;
  by_name.reserve(h.tensors.size());
  for (const auto& t : h.tensors) by_name.push_back(&t);
  std::sort(by_name.begin(), by_name.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
  for (std::size_t i = 1; i < by_name.size(); ++i)
    if (by_name[i]->name == by_name[i - 1]->name)
      c.fail("tensor '" + by_name[i]->name + "'", "duplicate tensor name (llama.cpp refuses the file)");

  h.alignment = alignment(c, h);
  h.data_offset = align_up(c.pos(), h.alignment, c.origin() + ": tensor data offset");
  std::uint64_t expected = 0;
  for (const auto& t : h.tensors) {
    const std::string field = "tensor '" + t.name + "'";
    if (t.offset != expected)
      c.fail(field + " offset", std::to_string(t.offset) + ", expected " + std::to_string(expected) +
                                    " (tensor data is packed in order, each padded to " +
                                    std::to_string(h.alignment) + " B)");
    const std::uint64_t start = checked_add(h.data_offset, t.offset, c.origin() + ": " + field);
    const std::uint64_t end = checked_add(start, t.size, c.origin() + ": " + field);
    if (end > c.total())
      c.fail(field, "its data (" + std::to_string(t.size) + " B at offset " + std::to_string(start) +
                        ") runs past the end of the file (" + std::to_string(c.total()) + " B)");
    expected = align_up(checked_add(t.offset, t.size, c.origin() + ": " + field), h.alignment,
                        c.origin() + ": " + field);
  }
}

GgufHeader parse_header(Cursor& c) {
  GgufHeader h;
  if (c.take(std::min<std::uint64_t>(4, c.total()), "magic") != "GGUF")
    c.fail("magic", "not a GGUF file (no \"GGUF\" magic)");
  h.version = static_cast<std::uint32_t>(c.le(4, "version"));
  // ggml/src/gguf.cpp gguf_init_from_file_impl: version 0 is "bad GGUF version"; any other version whose
  // low 16 bits are 0 was written on a host of the other endianness.
  if (h.version == 0) c.fail("version", "0 is not a GGUF version (2 and 3 are)");
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
  read_metadata(c, n_kv, h);
  for (std::uint64_t i = 0; i < n_tensors; ++i) h.tensors.push_back(read_tensor_info(c, i));
  check_tensor_data(c, h);
  return h;
}

}  // namespace

GgufHeader parse_gguf_header(std::string_view bytes, std::string_view origin) {
  Cursor c(bytes, std::string(origin));
  return parse_header(c);
}

GgufPrefix parse_gguf_prefix(std::string_view prefix, std::uint64_t file_size, std::string_view origin) {
  if (prefix.size() > file_size)
    throw Error(std::string(origin),
                std::to_string(prefix.size()) + " bytes read of a file of " + std::to_string(file_size));
  Cursor c(prefix, file_size, std::string(origin));
  try {
    GgufHeader h = parse_header(c);
    const std::uint64_t end = c.pos();
    return GgufPrefix{std::move(h), end};
  } catch (const NeedMore& more) {
    return GgufPrefix{std::nullopt, more.bytes};
  }
}

bool is_gguf_file(const fs::path& path) {
  // Only a plain file is opened, without blocking (presets::InputFile: a FIFO, a device or a kernel
  // pseudo-file such as /proc/kmsg is not; read_json_file then names what it is).
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  try {
    presets::InputFile in(path);
    return in.size() >= 4 && in.read_exact(4) == "GGUF";
  } catch (const Error&) {
    return false;
  }
}

GgufHeader read_gguf_header(const fs::path& path, std::size_t chunk_bytes) {
  // InputFile refuses what a read could block on (a FIFO, a device, /proc/kmsg) before the stream opens.
  { const presets::InputFile check(path); }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string(), "cannot open");
  std::error_code ec;
  const std::uint64_t file_size = fs::file_size(path, ec);
  if (ec) throw Error(path.string(), "cannot read its size: " + ec.message());
  Cursor c(in, file_size, chunk_bytes, path.filename().string());
  return parse_header(c);
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
    if (v->type == GgufType::boolean) fail(k, "must be an unsigned integer, not a boolean");
    if (v->type == GgufType::array || v->uints.size() != 1) fail(k, "must be an unsigned integer");
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
    if (v->type == GgufType::boolean || (v->type == GgufType::array && v->element == GgufType::boolean))
      fail(k, "must be an unsigned integer or an array of them, not a boolean");
    if (v->negative || (v->type == GgufType::array && v->element == GgufType::string) || !v->floats.empty() ||
        v->type == GgufType::string)
      fail(k, "must be an unsigned integer or an array of them");
    if (v->type != GgufType::array) return std::vector<std::uint64_t>(n_layer, v->uints.at(0));
    if (v->count != n_layer || v->uints.size() != n_layer)
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
      if (v->count != n_layer || v->uints.size() != n_layer)
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

/// The families whose recurrent layers are Gated DeltaNet (llama-arch.cpp LLM_ARCH_QWEN3NEXT,
/// LLM_ARCH_QWEN35, LLM_ARCH_QWEN35MOE) and the Nemotron-H ones (LLM_ARCH_NEMOTRON_H, _MOE).
bool deltanet_family(std::string_view arch) {
  return arch == "qwen3next" || arch == "qwen35" || arch == "qwen35moe";
}
bool nemotron_h_family(std::string_view arch) { return arch == "nemotron_h" || arch == "nemotron_h_moe"; }

/// A Gated DeltaNet layer from the ssm.* keys as convert_hf_to_gguf.py (Qwen3NextModel) writes them:
/// group_count = linear_num_key_heads, state_size = linear_key_head_dim, time_step_rank =
/// linear_num_value_heads, inner_size = their product with linear_value_head_dim. llama.cpp keeps
/// (conv_kernel - 1) x (inner_size + 2 x group_count x state_size) conv values and state_size x inner_size
/// state values per sequence (llama-hparams.cpp n_embd_r, n_embd_s), both f32: the same as vLLM's shapes.
RecurrentSpec deltanet_layer(const Keys& k) {
  RecurrentSpec r;
  r.kind = RecurrentSpec::Kind::gated_deltanet;
  r.d_conv = k.required("ssm.conv_kernel");
  r.num_key_heads = k.required("ssm.group_count");
  r.key_head_dim = k.required("ssm.state_size");
  r.num_value_heads = k.required("ssm.time_step_rank");
  const std::uint64_t inner = k.required("ssm.inner_size");
  if (r.num_value_heads == 0 || inner % r.num_value_heads != 0)
    k.fail(k.key("ssm.time_step_rank"), std::to_string(r.num_value_heads) +
                                            " value heads must divide ssm.inner_size " +
                                            std::to_string(inner));
  r.value_head_dim = inner / r.num_value_heads;
  r.conv_dtype = r.ssm_dtype = DType::fp32;
  return r;
}

/// LFM2's gated short convolution (llama-model.cpp LLM_ARCH_LFM2, LFM2MOE): a conv layer keeps
/// embedding_length x (shortconv.l_cache - 1) values per sequence in f32 (llama-hparams.cpp n_embd_r),
/// no SSM state.
bool short_conv_family(std::string_view arch) { return arch == "lfm2" || arch == "lfm2moe"; }
RecurrentSpec short_conv_layer(const Keys& k, std::uint64_t embd) {
  RecurrentSpec r;
  r.kind = RecurrentSpec::Kind::short_conv;
  r.d_inner = embd;
  r.d_conv = k.required("shortconv.l_cache");
  r.conv_dtype = r.ssm_dtype = DType::fp32;
  return r;
}

/// What a layer holds, as llama.cpp's load_hparams marks it (hparams.recurrent_layer_arr).
enum class Role { attention, recurrent, mlp_only };

/// Each layer's role. Nemotron-H (llama-model.cpp LLM_ARCH_NEMOTRON_H): recurrent only when head_count_kv
/// and feed_forward_length are both 0; KV heads 0 with a feed-forward width is an MLP-only layer, with
/// neither KV nor state. Qwen3-Next / Qwen3.5: attention.recurrent_layers (one boolean per layer) or
/// full_attention_interval (4 when absent): layer il is recurrent when (il + 1) % interval != 0. Others
/// (llama-hparams.cpp is_recurrent): recurrent when the layer has no heads or no KV heads.
/// `n_layer` is the trunk: block_count (`n_layer_all`) less the NextN/MTP blocks.
std::vector<Role> layer_roles(const Keys& k, std::uint64_t n_layer, std::uint64_t n_layer_all,
                              const std::vector<std::uint64_t>& heads, const std::vector<std::uint64_t>& kv,
                              const std::vector<std::uint64_t>& ff) {
  std::vector<Role> roles(n_layer, Role::attention);
  if (nemotron_h_family(k.arch())) {
    for (std::uint64_t il = 0; il < n_layer; ++il)
      if (kv[il] == 0) roles[il] = ff[il] == 0 ? Role::recurrent : Role::mlp_only;
    return roles;
  }
  if (deltanet_family(k.arch())) {
    // get_key_or_arr: one boolean for every layer, or one per layer (block_count of them).
    const std::string rk = k.key("attention.recurrent_layers");
    if (const GgufValue* v = k.find(rk)) {
      const bool scalar = v->type != GgufType::array && v->uints.size() == 1;
      const bool per_layer =
          v->type == GgufType::array && v->count == v->uints.size() && v->count == n_layer_all;
      if ((!scalar && !per_layer) || !v->floats.empty())
        k.fail(rk, "must be a boolean, or one per layer (" + std::to_string(n_layer_all) + ")");
      for (std::uint64_t il = 0; il < n_layer; ++il)
        roles[il] = v->uints[scalar ? 0 : il] != 0 ? Role::recurrent : Role::attention;
      return roles;
    }
    const std::uint64_t interval = k.uint_or("full_attention_interval", 4);
    if (interval == 0) k.fail(k.key("full_attention_interval"), "must be positive");
    for (std::uint64_t il = 0; il < n_layer; ++il)
      if ((il + 1) % interval != 0) roles[il] = Role::recurrent;
    return roles;
  }
  for (std::uint64_t il = 0; il < n_layer; ++il)
    if (heads[il] == 0 || kv[il] == 0) roles[il] = Role::recurrent;
  return roles;
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
    // llama-model.cpp: n_embd_head_k_swa / n_embd_head_v_swa, defaulting to the full layers' (Gemma 4).
    a.head_dim_k = k.uint_or("attention.key_length_swa", a.head_dim_k);
    a.head_dim_v = k.uint_or("attention.value_length_swa", a.head_dim_v);
  }
  return a;
}

/// {arch}.attention.shared_kv_layers: the last n layers read earlier layers' K/V and cache nothing
/// (llama-model.cpp: n_layer_kv_from_start = n_layer - shared_kv_layers; Gemma 3n, Gemma 4).
std::uint64_t shared_kv_layers(const Keys& k, std::uint64_t n_layer) {
  const std::uint64_t n = k.uint_or("attention.shared_kv_layers", 0);
  if (n >= n_layer)
    k.fail(k.key("attention.shared_kv_layers"), std::to_string(n) + " shared layers leave none of the " +
                                                    std::to_string(n_layer) + " to cache K/V");
  return n;
}

}  // namespace

ModelSpec model_from_gguf(const GgufHeader& h, std::string_view origin_view) {
  const std::string origin(origin_view);
  const auto arch_it = h.metadata.find("general.architecture");
  if (arch_it == h.metadata.end() || arch_it->second.type != GgufType::string ||
      arch_it->second.str.size() != arch_it->second.count)
    throw Error(origin + ": general.architecture", "missing (a string naming the llama.cpp architecture)");
  const Keys k(h, origin, arch_it->second.str);
  ModelSpec m;
  m.dtype = DType::fp16;  // llama.cpp's default cache type (type_k / type_v = f16)
  // The architectures whose load_hparams (llama.cpp src/llama-model.cpp) kvplan follows: the live suite's
  // 18 (tests/live/models.mjs, checked against the real llama.cpp) and those this reader reads specially.
  // Another name is read with the generic decoder's keys, which llama.cpp may read otherwise, or refuse
  // ("unknown model architecture") when it is not one of its own: said in a warning, never silently.
  static constexpr std::array<std::string_view, 35> kFollowed{
      "llama",  "qwen2",     "qwen3",     "qwen3moe",   "qwen2moe",      "gemma2",      "gemma3",
      "gemma4", "gpt-oss",   "deepseek2", "glm4moe",    "granitehybrid", "nemotron_h",  "nemotron_h_moe",
      "jamba",  "qwen3next", "qwen35",    "qwen35moe",  "lfm2",          "lfm2moe",     "falcon-h1",
      "mamba",  "mamba2",    "llama4",    "cohere2",    "exaone4",       "bailingmoe3", "step35",
      "hy_v3",  "glm-dsa",   "mimo2",     "deepseek32", "deepseek4",     "qwen4exp",    "gemma-embedding"};
  if (std::find(kFollowed.begin(), kFollowed.end(), k.arch()) == kFollowed.end())
    m.warnings.push_back("GGUF: general.architecture '" + printable(std::string(k.arch())) +
                         "' is not one kvplan follows llama.cpp's load_hparams for: its keys are read as a "
                         "generic decoder's (llama.cpp refuses an architecture it does not know)");
  // src/llama-arch.cpp llm_arch_supports_rs_rollback (llama.cpp v0.4.0): the architectures whose recurrent
  // state keeps n_rs_seq snapshots for speculative decoding's rollback.
  for (const std::string_view a : {"qwen35", "qwen35moe", "qwen4exp", "deepseek4", "nemotron_h",
                                   "nemotron_h_moe", "lfm2", "lfm2moe", "bailingmoe3"})
    m.llamacpp_rs_rollback = m.llamacpp_rs_rollback || k.arch() == a;
  const std::uint64_t n_layer_all = k.required("block_count");
  if (n_layer_all == 0 || n_layer_all > 65536) k.fail(k.key("block_count"), "must be in 1..65536");
  // NextN/MTP blocks (GLM-4.5, Qwen3.5) come after the trunk in block_count; llama.cpp runs them only for
  // speculative decoding. Whether the main context caches their K/V depends on the architecture in
  // llama.cpp v0.4.0 (src/llama-model.cpp create_memory): the hybrids' llama_memory_hybrid filters
  // (Qwen3-Next, Qwen3.5, Nemotron-H, Bailing-MoE 3) and the layer filter of step35, hy_v3, glm-dsa,
  // mimo2 and deepseek32 keep the trunk only; every other architecture caches them with the trunk (the live
  // suite: GLM-4.5 with one NextN block of three caches 3 layers). Releases of 2025 cached the trunk only
  // (GLM-4.5's n_layer_kv_from_start = n_layer - nextn_predict_layers). Their weights stay in the tensors'
  // bytes either way.
  const std::uint64_t nextn = k.uint_or("nextn_predict_layers", 0);
  if (nextn >= n_layer_all)
    k.fail(k.key("nextn_predict_layers"),
           std::to_string(nextn) + " must be below block_count " + std::to_string(n_layer_all));
  bool trunk_only = deltanet_family(k.arch()) || nemotron_h_family(k.arch());
  for (const std::string_view a : {"bailingmoe3", "step35", "hy_v3", "glm-dsa", "mimo2", "deepseek32"})
    trunk_only = trunk_only || k.arch() == a;
  const std::uint64_t n_layer = trunk_only ? n_layer_all - nextn : n_layer_all;
  if (nextn > 0 && trunk_only)
    m.warnings.push_back("GGUF: the last " + std::to_string(nextn) + " of " + std::to_string(n_layer_all) +
                         " blocks are NextN/MTP layers: without speculative decoding llama.cpp neither runs "
                         "nor caches them; their weights are counted");
  else if (nextn > 0)
    m.warnings.push_back("GGUF: the last " + std::to_string(nextn) + " of " + std::to_string(n_layer_all) +
                         " blocks are NextN/MTP layers: llama.cpp v0.4.0 caches their K/V with the trunk's "
                         "(create_memory has no layer filter for " +
                         std::string(k.arch()) +
                         "), though it runs them only for speculative decoding; releases of 2025 cached the "
                         "trunk only");
  m.hidden_size = k.required("embedding_length");
  m.max_position_embeddings = k.uint_or("context_length", 0);
  m.vocab_size = vocab_size(h, k);
  const auto heads = k.per_layer("attention.head_count", n_layer_all, 0);
  const auto kv_heads_raw = k.per_layer("attention.head_count_kv", n_layer_all, 0);
  const bool kv_given = k.find(k.key("attention.head_count_kv")) != nullptr;
  const auto ff = k.per_layer("feed_forward_length", n_layer_all, 0);
  const std::uint64_t window = k.uint_or("attention.sliding_window", 0);
  const auto swa =
      window > 0 ? swa_layers(k, n_layer_all, m.warnings) : std::vector<bool>(n_layer_all, false);
  const std::uint64_t experts = k.uint_or("expert_count", 0);
  const auto used_given = k.uint("expert_used_count");
  const std::uint64_t experts_used = used_given.value_or(0);
  // llama-model.cpp load_hparams: GGML_ASSERT(n_expert_used <= n_expert), and n_expert_used > 0 with
  // experts, 0 without.
  if (experts > 0 && !used_given) k.fail(k.key("expert_used_count"), "missing (expert_count is given)");
  if (experts > 0 && (experts_used == 0 || experts_used > experts))
    k.fail(k.key("expert_used_count"),
           std::to_string(experts_used) + " must be in 1.." + std::to_string(experts) + " (expert_count)");
  if (experts == 0 && experts_used > 0)
    k.fail(k.key("expert_used_count"), std::to_string(experts_used) + " without expert_count");
  const std::uint64_t dense_first = k.uint_or("leading_dense_block_count", 0);
  const bool falcon_h1 = k.arch() == "falcon-h1";
  const bool has_ssm = k.find(k.key("ssm.conv_kernel")) != nullptr || short_conv_family(k.arch());

  // head_count_kv absent: MHA (llama-model.cpp: n_head_kv_arr defaults to n_head_arr).
  const std::vector<std::uint64_t>& kv = kv_given ? kv_heads_raw : heads;
  const auto roles = layer_roles(k, n_layer, n_layer_all, heads, kv, ff);
  const std::uint64_t shared_kv = shared_kv_layers(k, n_layer_all);
  const bool nemotron_h = nemotron_h_family(k.arch());
  // Read once, not per layer (a file may have 65,536 layers): the recurrent mixer, each distinct
  // attention layer, the experts' widths.
  std::optional<RecurrentSpec> mixer;
  const auto recurrent = [&] {
    if (!mixer)
      mixer = deltanet_family(k.arch())     ? deltanet_layer(k)
              : short_conv_family(k.arch()) ? short_conv_layer(k, m.hidden_size)
                                            : ssm_layer(k);
    return *mixer;
  };
  std::map<std::tuple<std::uint64_t, std::uint64_t, bool>, AttentionLayer> attention;
  const auto expert_ff = k.uint("expert_feed_forward_length");
  // Qwen2-MoE and Qwen3-Next give their one shared expert's width and no count.
  const auto shared_ff = k.uint("expert_shared_feed_forward_length");
  const std::uint64_t shared_experts = k.uint_or("expert_shared_count", shared_ff ? 1 : 0);
  std::vector<LayerGroup> layers;
  for (std::uint64_t il = 0; il < n_layer; ++il) {
    LayerGroup g;
    if (roles[il] == Role::recurrent) {
      if (!has_ssm)
        k.fail(k.key("attention.head_count_kv"),
               "layer " + std::to_string(il) + " has no KV heads, and '" + k.arch() +
                   "' has no ssm.* keys: kvplan reads recurrent layers from GGUF as Mamba, Mamba2, Gated "
                   "DeltaNet (qwen3next, qwen35) or short convolutions (lfm2)");
      g.attention.kind = AttentionKind::recurrent;
      g.attention.recurrent = recurrent();
    } else if (roles[il] == Role::mlp_only) {
      g.attention.kind = AttentionKind::mlp_only;
    } else {
      const auto shape = std::make_tuple(heads[il], kv[il], static_cast<bool>(swa[il]));
      auto it = attention.find(shape);
      if (it == attention.end())
        it =
            attention.emplace(shape, attention_layer(k, h, heads[il], kv[il], m.hidden_size, swa[il], window))
                .first;
      g.attention = it->second;
      g.attention.kv_shared = il >= n_layer_all - shared_kv;
      g.attention.qk_norm = deltanet_family(k.arch());  // Qwen3-Next's per-head q/k norm
      if (falcon_h1) {
        g.attention.parallel_recurrent = true;
        g.attention.recurrent = recurrent();
      }
    }
    // Nemotron-H: the MLP is a layer of its own (relu2, not gated); mixer layers have none.
    const bool has_mlp = !nemotron_h || roles[il] == Role::mlp_only;
    if (experts > 0 && il >= dense_first && has_mlp) {
      g.mlp.num_experts = experts;
      g.mlp.experts_per_token = experts_used;
      g.mlp.expert_intermediate_size = expert_ff.value_or(ff[il]);
      g.mlp.num_shared_experts = shared_experts;
      g.mlp.shared_intermediate_size =
          shared_experts > 0 ? shared_ff.value_or(g.mlp.expert_intermediate_size) : 0;
    } else {
      g.mlp.intermediate_size = has_mlp ? ff[il] : 0;
    }
    g.mlp.gated = !nemotron_h;
    // Run-length groups as they come (compress's rule), not one LayerGroup per layer first.
    if (!layers.empty() && layers.back().attention == g.attention && layers.back().mlp == g.mlp)
      ++layers.back().count;
    else
      layers.push_back(std::move(g));
  }
  m.layers = std::move(layers);
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
    bytes = checked_add(bytes, t.size, f);
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

namespace {
/// split.count or split.no (llama-arch.cpp LLM_KV_SPLIT_COUNT, LLM_KV_SPLIT_NO; gguf-split writes them as
/// uint16, and llama_model_loader reads them into a uint16_t); nullopt when absent.
std::optional<std::uint64_t> split_key(const GgufHeader& h, const std::string& origin, std::string_view key) {
  const auto it = h.metadata.find(key);
  if (it == h.metadata.end()) return std::nullopt;
  const GgufValue& v = it->second;
  if (v.type == GgufType::boolean || v.type == GgufType::array || v.uints.size() != 1 || v.negative ||
      v.uints[0] > 65535)
    throw Error(origin + ": " + std::string(key), "must be an unsigned integer of at most 65535 (a uint16)");
  return v.uints[0];
}

/// "-00002-of-00003.gguf": the tail llama_split_path gives shard `no` (0-based) of `count`
/// ("%s-%05d-of-%05d.gguf").
std::string split_tail(std::uint64_t no, std::uint64_t count) {
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), "-%05llu-of-%05llu.gguf", static_cast<unsigned long long>(no + 1),
                static_cast<unsigned long long>(count));
  return buf.data();
}

}  // namespace

std::string merge_split_gguf(
    std::string_view first_name, GgufHeader& h, std::uint64_t max_shards,
    const std::function<GgufHeader(const std::string&, std::uint64_t, std::uint64_t)>& read_shard) {
  const std::string name(first_name);
  const auto slash = name.rfind('/');
  const std::string origin = slash == std::string::npos ? name : name.substr(slash + 1);
  const std::uint64_t count = split_key(h, origin, "split.count").value_or(0);
  if (count <= 1) return "";
  const auto no = split_key(h, origin, "split.no");
  if (!no) throw Error(origin + ": split.no", "missing (split.count is " + std::to_string(count) + ")");
  const std::string first_tail = split_tail(0, count);
  if (*no != 0) {
    const std::string tail = split_tail(*no, count);
    const std::string first = origin.size() > tail.size() && origin.ends_with(tail)
                                  ? "'" + origin.substr(0, origin.size() - tail.size()) + first_tail + "'"
                                  : "the shard whose split.no is 0";
    throw Error(origin + ": split.no", std::to_string(*no) + ": this is shard " + std::to_string(*no + 1) +
                                           " of " + std::to_string(count) +
                                           " of a split GGUF; give the first, " + first +
                                           " (llama.cpp loads a split model from its first shard)");
  }
  if (origin.size() <= first_tail.size() || !origin.ends_with(first_tail))
    throw Error(origin, "split.count " + std::to_string(count) +
                            ": the first shard of a split GGUF is named " + "<name>" + first_tail +
                            " (llama.cpp llama_split_prefix), and the other shards " +
                            "are found by that name; rename it so");
  if (max_shards != 0 && count > max_shards)
    throw Error(origin + ": split.count", std::to_string(count) +
                                              " shards: kvplan reads the headers of at most " +
                                              std::to_string(max_shards) + " (the limit)");
  const std::string prefix = name.substr(0, name.size() - first_tail.size());
  std::set<std::string, std::less<>> names;
  for (const auto& t : h.tensors) names.insert(t.name);
  for (std::uint64_t idx = 1; idx < count; ++idx) {
    const std::string shard = prefix + split_tail(idx, count);
    GgufHeader part = read_shard(shard, idx, count);
    const auto shard_slash = shard.rfind('/');
    const std::string shard_name = shard_slash == std::string::npos ? shard : shard.substr(shard_slash + 1);
    for (auto& t : part.tensors) {
      if (!names.insert(t.name).second)
        throw Error(shard_name + ": tensor '" + t.name + "'",
                    "is also in an earlier shard (llama.cpp: \"tensor is duplicated\")");
      h.tensors.push_back(std::move(t));
    }
  }
  return origin.substr(0, origin.size() - first_tail.size());
}

ModelSpec load_gguf_file(const fs::path& path) {
  GgufHeader h = read_gguf_header(path);
  const std::string origin = path.filename().string();
  // The other shards beside the first (llama_get_list_splits), "failed to load GGUF split" when absent.
  const std::string split_id = merge_split_gguf(
      path.string(), h, 0, [&](const std::string& shard, std::uint64_t idx, std::uint64_t count) {
        std::error_code ec;
        if (!fs::exists(shard, ec))
          throw Error(shard, "missing: shard " + std::to_string(idx + 1) + " of " + std::to_string(count) +
                                 " of the split GGUF " + origin +
                                 " (llama.cpp reads every shard from the first one's folder)");
        return read_gguf_header(shard);
      });
  ModelSpec m = model_from_gguf(h, path.filename().string());
  m.id = split_id.empty() ? path.stem().string() : split_id;
  if (m.name.empty()) m.name = m.id;
  m.source = path.string();
  return m;
}

}  // namespace kvplan::presets
