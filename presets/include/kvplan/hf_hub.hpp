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

/// The user's home folder as Python's os.path.expanduser("~") finds it, which huggingface_hub's default
/// paths go through: $HOME, else (unset or empty) the password database's home for the real user id
/// (getpwuid_r), never the working folder. (Python takes an empty HOME as "", making "~/.cache" the root's
/// /.cache; kvplan reads empty as unset.) Throws kvplan::Error("HOME", ...) when neither gives an absolute
/// folder.
std::filesystem::path home_dir();

/// The Hub cache folder: $HF_HUB_CACHE, else $HUGGINGFACE_HUB_CACHE (the older name), else $HF_HOME/hub,
/// else ~/.cache/huggingface/hub (~: home_dir()) (huggingface_hub/constants.py).
std::filesystem::path hf_hub_cache_dir();

/// Whether `id` has the shape of a Hub repo id: ORG/NAME, each of letters, digits, '-', '_' and '.', not
/// starting with '.' and without "..".
bool is_hf_repo_id(std::string_view id);

/// The cache folder of model repo `repo` (ORG/NAME): hf_hub_cache_dir() / "models--ORG--NAME"
/// (huggingface_hub file_download.py repo_folder_name).
std::filesystem::path hf_repo_cache_dir(std::string_view repo);

/// Whether `revision` can name a branch, tag or commit (git check-ref-format's rules, in short): not
/// empty, at most 256 characters, no control characters, spaces or any of \\ ~ ^ : ? * [, no "..", no
/// "//", not starting or ending with '/'. refs/<revision> then stays inside the repo's cache folder.
bool is_hf_revision(std::string_view revision);

/// Whether `revision` is a commit hash: 40 lowercase hex digits (huggingface_hub REGEX_COMMIT_HASH).
bool is_commit_hash(std::string_view revision);

/// The cached config.json of `repo` at `revision` (empty: "main"): a 40-hex-digit revision is a snapshot
/// directly; a branch or tag name is read from refs/<revision> (its first line, at most 4 KiB read). nullopt
/// when the cache lacks it; throws kvplan::Error naming the ref when it is no plain file (a FIFO, a device).
std::optional<std::filesystem::path> hf_cached_config(std::string_view repo, std::string_view revision);

}  // namespace kvplan::presets
