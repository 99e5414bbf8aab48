#pragma once
/// @file safetensors.hpp
/// safetensors checkpoints, headers only: each file starts with an 8-byte little-endian header length N,
/// then N bytes of JSON ({"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}}),
/// then the tensor data, which is never read (huggingface/safetensors README, "Format").

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kvplan/model.hpp"

namespace kvplan::presets {

/// Stored elements and bytes.
struct TensorTotals {
  std::uint64_t elements = 0;
  std::uint64_t bytes = 0;
  bool operator==(const TensorTotals&) const = default;
};

/// What a checkpoint's safetensors headers hold. `by_dtype` counts every tensor by its safetensors dtype
/// ("BF16", "F8_E4M3", "I32"...); `vision` the tensors of a vision tower (a name with a `vision` or `visual`
/// part), `mtp` the multi-token-prediction ones (an `mtp` part); `language` the rest. Packed formats are
/// counted as stored: a GPTQ/AWQ int4 qweight is I32 elements (8 weights each), MXFP4 blocks and scales
/// are U8, FP8 block scales are their own F32 tensors.
struct SafetensorsSummary {
  std::map<std::string, TensorTotals> by_dtype;
  TensorTotals total;
  TensorTotals language;
  TensorTotals vision;
  TensorTotals mtp;
  std::map<std::uint64_t, TensorTotals> by_layer;  ///< tensors of "layers.N." names, by N (vision ones too)
  std::uint64_t files = 0;
  bool has_lm_head = false;  ///< an `lm_head` tensor (absent: tied embeddings)
  /// model.safetensors.index.json's metadata.total_size (bytes), when the index gives it: the tensors'
  /// bytes as the checkpoint's writer counted them, checked against the headers by apply_safetensors.
  std::optional<std::uint64_t> index_total_size;
  /// Each tensor's file (its origin as read): a tensor in two files is refused, as it would be counted
  /// twice, and an index entry is checked against the file that holds the tensor.
  std::unordered_map<std::string, std::string> tensor_files;
  /// Index entries whose file does not hold their tensor ("/weight_map/<tensor>: names X, ..."): vLLM reads
  /// every file the index names whatever the map says, so they change no figure; apply_safetensors warns.
  std::vector<std::string> index_mismatches;
};

/// The format's largest header (bytes): safetensors/src/tensor.rs MAX_HEADER_SIZE.
inline constexpr std::uint64_t kMaxSafetensorsHeader = 100'000'000;

/// The header length N of a safetensors file from its first 8 bytes (little-endian), checked against
/// the format's 100 MB and the file's `file_size` bytes. Throws kvplan::Error(origin, ...): a file under
/// 8 bytes, N over 100 MB, or N past the end of the file (truncated).
std::uint64_t safetensors_header_length(const unsigned char (&prefix)[8], std::uint64_t file_size,
                                        const std::string& origin);

/// Reads the header of one .safetensors file into `into`. Checks: the file is a plain file (InputFile:
/// never blocks), the length fits the file and is at most 100 MB (the format's limit), the JSON is read
/// with the JSON files' bounds (depth, value count: parse_json_text) and is an object of tensors with a
/// known dtype, a shape of non-negative integers and data_offsets [begin, end] inside the file whose length
/// is the shape's elements x the dtype's size (sub-byte dtypes: bits / 8 rounded up), and the tensors tile
/// the data region exactly, as safetensors/src/tensor.rs Metadata::validate requires (no overlap, no gap,
/// no byte after the last). Throws kvplan::Error naming the file and the tensor; a refused header adds
/// nothing to `into`.
void add_safetensors_header(const std::filesystem::path& file, SafetensorsSummary& into);

/// add_safetensors_header on a header read elsewhere (an HTTP Range request, kvplan's header cache):
/// `text` the N bytes of JSON after the 8-byte length, `file_size` the whole file's bytes (the data
/// region is file_size - 8 - N). Same checks and errors, `origin` naming the file.
void add_safetensors_header_text(std::string_view text, std::uint64_t file_size, const std::string& origin,
                                 SafetensorsSummary& into);

/// The shard files of a model.safetensors.index.json (parsed), each once, in order of first use in its
/// weight_map (linear time: a hash set of those seen). Throws kvplan::Error(origin + JSON path): no
/// weight_map object, or a shard that is not a plain file name (empty, ".", "..", or with a '/' or '\\').
std::vector<std::string> safetensors_index_shards(const nlohmann::json& index, const std::string& origin);

/// A shard's header found outside the folder: the JSON text after the 8-byte length, and the file's size.
struct ShardHeader {
  std::uint64_t file_size = 0;
  std::string text;
};
/// Where read_safetensors_folder looks for a shard the folder lacks: its header, or nullopt when it has
/// none either.
using ShardSource = std::function<std::optional<ShardHeader>(const std::string& shard)>;

/// The safetensors headers of a model folder: the shards named by model.safetensors.index.json's
/// weight_map, else model.safetensors; nullopt when the folder has neither. A shard missing from the folder
/// is an error naming it (one there that is no plain file, a FIFO, a device, a folder, a link loop, is
/// an error saying what it is), unless `elsewhere` is given: then its header comes from there (a Hub snapshot
/// holds the index but not the shards), and nullopt when `elsewhere` has none; with `elsewhere`, a folder
/// without an index asks it for model.safetensors. Throws kvplan::Error naming the file on a bad index or
/// header.
std::optional<SafetensorsSummary> read_safetensors_folder(const std::filesystem::path& folder,
                                                          const ShardSource& elsewhere = {});

/// Sets a model's exact weights from its headers: ModelSpec::weights_bytes = language + vision tensors
/// (what an engine loads; MTP layers, named `mtp` or numbered past the model's layers, are loaded only for
/// speculative decoding), weights_parameters their
/// elements, weights_origin "safetensors headers (exact)"; vision and MTP tensors are reported apart in
/// the model's warnings, and so is an index total_size other than the headers' total bytes.
void apply_safetensors(const SafetensorsSummary& s, ModelSpec& m);

}  // namespace kvplan::presets
