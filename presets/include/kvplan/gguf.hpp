#pragma once
/// @file gguf.hpp
/// GGUF files (llama.cpp's model format): the header only, never the tensor data. The metadata key/value
/// pairs and the tensor infos give the architecture ({arch}.* keys) and the exact weight bytes.
/// Format: ggml/docs/gguf.md and ggml/src/gguf.cpp (gguf_init_from_file_impl), versions 2 and 3,
/// little-endian.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/model.hpp"
#include "kvplan/units.hpp"

namespace kvplan::presets {

/// GGUF metadata value types (ggml/include/gguf.h enum gguf_type).
enum class GgufType : std::uint32_t {
  uint8 = 0,
  int8 = 1,
  uint16 = 2,
  int16 = 3,
  uint32 = 4,
  int32 = 5,
  float32 = 6,
  boolean = 7,
  string = 8,
  array = 9,
  uint64 = 10,
  int64 = 11,
  float64 = 12,
};

/// One metadata value. Scalars hold one element; arrays hold `count` elements of `element` type.
/// Integers and booleans go to `uints` (a negative signed value is kept as 0 and sets `negative`: no
/// key kvplan reads may be negative), floats to `floats`, a string to `str` with its length in `count`.
/// Kept only up to a size (no key kvplan reads comes near it): a string up to 1 MiB, an array of
/// numbers up to 65,536 elements; longer ones, and every string array (tokenizer vocabularies), keep
/// only `count`.
struct GgufValue {
  GgufType type = GgufType::uint32;
  GgufType element = GgufType::uint32;  ///< arrays: the element type
  std::uint64_t count = 1;              ///< arrays: the number of elements
  std::vector<std::uint64_t> uints;
  std::vector<double> floats;
  std::string str;
  bool negative = false;  ///< some integer is negative
};

/// One tensor info: name, shape (ne[0] first, the contiguous dimension) and ggml type.
struct GgufTensor {
  std::string name;
  std::vector<std::uint64_t> shape;
  std::uint32_t type = 0;
  std::uint64_t offset = 0;  ///< from the start of the tensor data
  std::uint64_t size = 0;    ///< bytes, ggml_tensor_bytes
};

/// A GGUF header: version, metadata and tensor infos.
struct GgufHeader {
  std::uint32_t version = 0;
  std::map<std::string, GgufValue, std::less<>> metadata;
  std::vector<GgufTensor> tensors;
  std::uint64_t alignment = 32;   ///< general.alignment (GGUF_DEFAULT_ALIGNMENT when absent)
  std::uint64_t data_offset = 0;  ///< where the tensor data starts: the header's end, aligned
};

/// Block size (values per block) and type size (bytes per block) of a ggml type, as ggml/src/ggml.c
/// type_traits (blck_size, type_size) and gguf-py/gguf/constants.py GGML_QUANT_SIZES give them; the
/// ggml type name ("Q4_K"). nullopt for an id that is no (or no longer a) ggml type.
struct GgmlTypeInfo {
  std::uint32_t id;
  std::string_view name;
  std::uint64_t block_values;
  std::uint64_t block_bytes;
};
std::optional<GgmlTypeInfo> ggml_type_info(std::uint32_t id);

/// Bytes of a tensor as ggml stores it (ggml_nbytes for a contiguous tensor: ne[0] / blck_size x
/// type_size x ne[1] x ne[2] x ne[3]). Throws kvplan::Error(field, ...) for an unknown type, an ne[0]
/// that is not a whole number of blocks, or overflow.
Bytes ggml_tensor_bytes(std::uint32_t type, const std::vector<std::uint64_t>& shape, std::string_view field);

/// Reads the header of a GGUF file (magic "GGUF", version 2 or 3, tensor count, metadata count, the
/// metadata pairs, the tensor infos), never the tensor data, forward in reads of `chunk_bytes` (at
/// least 8; tests and the fuzz target use small ones to cross read boundaries often). Every count and
/// length is checked against what is left of the file before anything is allocated, and every read
/// against the bytes it got. A hostile header costs at most 256 MiB parsed and 128 MiB kept.
/// Throws kvplan::Error naming the file and the field: not GGUF, big-endian (llama.cpp's test:
/// version & 0xFFFF == 0), version 1 or unknown, truncated, a count that would overflow, an unknown
/// value or ggml type, a duplicate key or tensor name, a tensor name of 64 bytes or more, tensor data
/// not packed in order (gguf.cpp's offset check) or past the end of the file, a general.alignment that
/// is not a uint32 power of two, a header over 256 MiB or keeping over 128 MiB.
GgufHeader read_gguf_header(const std::filesystem::path& path,
                            std::size_t chunk_bytes = std::size_t{1} << 20);

/// Parses a whole GGUF file held in memory (read_gguf_header's rules); `origin` names it in errors.
GgufHeader parse_gguf_header(std::string_view bytes, std::string_view origin);

/// A GGUF header read from a file's first bytes (a Range response of the Hub): `header` when they hold the
/// whole header (magic to the last tensor info), with `end` the offset just past it; else nullopt, and
/// `end` the bytes the header needs at least (fetch up to there, or more, and parse again).
struct GgufPrefix {
  std::optional<GgufHeader> header;
  std::uint64_t end = 0;
};

/// Parses the header of a GGUF file of `file_size` bytes from its first bytes `prefix`, with
/// read_gguf_header's rules and limits (counts checked against the whole file's size, tensor data within
/// it). Throws kvplan::Error as read_gguf_header does, naming `origin`; a prefix longer than the file too.
GgufPrefix parse_gguf_prefix(std::string_view prefix, std::uint64_t file_size, std::string_view origin);

/// The model of a GGUF header, after llama.cpp's src/llama-model.cpp (load_hparams) and
/// src/llama-hparams.h: `general.architecture` names the family, its `{arch}.*` keys shape the layers
/// (block_count, less nextn_predict_layers: NextN/MTP blocks are neither run nor cached; attention.head_count
/// and head_count_kv, scalar or one per layer, 0 KV heads meaning a recurrent layer; key_length /
/// value_length (default embedding_length / head_count), key_length_swa / value_length_swa on sliding
/// layers; attention.sliding_window with sliding_window_pattern (set_swa_pattern: layer il is SWA when
/// il % n < n - 1, or one boolean per layer) or the family's own period; attention.shared_kv_layers:
/// the last n layers cache nothing; attention.kv_lora_rank and key_length_mla for MLA; ssm.* for Mamba /
/// Mamba2 layers; feed_forward_length, expert_count, expert_used_count (1 to expert_count)). Hybrids as
/// llama.cpp marks their recurrent layers: Nemotron-H when head_count_kv and feed_forward_length are
/// both 0 (KV heads 0 alone: an MLP-only layer); Qwen3-Next / Qwen3.5 by attention.recurrent_layers or
/// full_attention_interval (default 4), their recurrent layers Gated DeltaNet. The vocabulary is
/// tokenizer.ggml.tokens' length, and the weights are the exact bytes of the tensor infos
/// (ModelSpec::weights_bytes, "GGUF tensors (exact)"). The KV cache default is f16 (llama.cpp's
/// type_k / type_v). Throws kvplan::Error naming `origin` and the key: a missing key, a boolean, float,
/// string or negative value where an unsigned integer is due, a per-layer array of the wrong length.
ModelSpec model_from_gguf(const GgufHeader& header, std::string_view origin);

/// read_gguf_header then model_from_gguf; id and name from the file name, source the path. A split GGUF
/// (gguf-split: split.count above 1) is read from its first shard, <name>-00001-of-0000N.gguf, with the
/// tensors of the other shards found beside it by name, as llama_model_loader opens them (llama_split_prefix,
/// llama_split_path); its id is <name>. Throws kvplan::Error naming split.no for a shard other than the
/// first, the path of a missing shard, a first shard not named so, or a tensor in two shards.
ModelSpec load_gguf_file(const std::filesystem::path& path);

/// A split GGUF (llama.cpp's gguf-split) from its first shard `h`, named `first_name` (a path; the other
/// shards' names are made from it): when split.count is above 1, the file must be the first (split.no 0,
/// "model must be loaded with the first split") and named <name>-00001-of-0000N.gguf, and the others are
/// read by `read_shard(name, index, count)` (llama_get_list_splits: llama_split_prefix, llama_split_path)
/// and their tensors added to `h`; a tensor name in two shards is refused ("tensor is duplicated"). Returns
/// <name> (the model's id), or "" for a file that is not split. Throws kvplan::Error naming split.no,
/// split.count over `max_shards` (0: no limit) before any shard is read, or the file.
std::string merge_split_gguf(
    std::string_view first_name, GgufHeader& h, std::uint64_t max_shards,
    const std::function<GgufHeader(const std::string&, std::uint64_t, std::uint64_t)>& read_shard);

/// Whether a file starts with the GGUF magic (false when it cannot be read).
bool is_gguf_file(const std::filesystem::path& path);

}  // namespace kvplan::presets
