#pragma once
/// @file hf_hub.hpp
/// Hugging Face repo ids through the local Hub cache, laid out as huggingface_hub writes it
/// (huggingface_hub/constants.py HF_HUB_CACHE; file_download.py: models--ORG--NAME/refs/<revision> holds a
/// commit hash, snapshots/<hash>/<file> the files).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace kvplan::presets {

/// The Hub cache folder: $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub
/// (huggingface_hub/constants.py).
std::filesystem::path hf_hub_cache_dir();

/// Whether `id` has the shape of a Hub repo id: ORG/NAME, each of letters, digits, '-', '_' and '.', not
/// starting with '.' and without "..".
bool is_hf_repo_id(std::string_view id);

/// The cached config.json of `repo` at `revision` (empty: "main"): a 40-hex-digit revision is a snapshot
/// directly; a branch or tag name is read from refs/<revision>. nullopt when the cache lacks it.
std::optional<std::filesystem::path> hf_cached_config(std::string_view repo, std::string_view revision);

}  // namespace kvplan::presets
