#pragma once
/// @file safetensors.hpp
/// safetensors checkpoints, headers only: each file starts with an 8-byte little-endian header length N,
/// then N bytes of JSON ({"name": {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}}),
/// then the tensor data, which is never read (huggingface/safetensors README, "Format").

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

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
};

/// Reads the header of one .safetensors file into `into`. Checks: the length fits the file and is at most
/// 100 MB (the format's limit), the JSON is an object of tensors with a known dtype, a shape of
/// non-negative integers and data_offsets [begin, end] inside the file whose length is the shape's
/// elements x the dtype's size (sub-byte dtypes: bits / 8 rounded up). Throws kvplan::Error naming the
/// file and the tensor.
void add_safetensors_header(const std::filesystem::path& file, SafetensorsSummary& into);

/// The safetensors headers of a model folder: the shards named by model.safetensors.index.json's
/// weight_map, else model.safetensors; nullopt when the folder has neither. Throws kvplan::Error naming
/// the file on a bad index or header, or a shard the index names that is missing.
std::optional<SafetensorsSummary> read_safetensors_folder(const std::filesystem::path& folder);

/// Sets a model's exact weights from its headers: ModelSpec::weights_bytes = language + vision tensors
/// (what an engine loads; MTP layers, named `mtp` or numbered past the model's layers, are loaded only for
/// speculative decoding), weights_parameters their
/// elements, weights_origin "safetensors headers (exact)"; vision and MTP tensors are reported apart in
/// the model's warnings.
void apply_safetensors(const SafetensorsSummary& s, ModelSpec& m);

}  // namespace kvplan::presets
