// Hugging Face repo ids through the local Hub cache (huggingface_hub/constants.py, file_download.py
// _cache_commit_hash_for_specific_revision and the models--ORG--NAME/{refs,snapshots} layout).
#include "kvplan/hf_hub.hpp"

#include <cstdlib>
#include <fstream>

namespace kvplan::presets {

namespace fs = std::filesystem;

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

}  // namespace

bool is_commit_hash(std::string_view r) {
  if (r.size() != 40) return false;
  for (const char c : r)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

fs::path hf_hub_cache_dir() {
  if (const auto c = env("HF_HUB_CACHE"); !c.empty()) return c;
  if (const auto h = env("HF_HOME"); !h.empty()) return fs::path(h) / "hub";
  return fs::path(env("HOME")) / ".cache" / "huggingface" / "hub";
}

bool is_hf_repo_id(std::string_view id) {
  const auto slash = id.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == id.size() ||
      id.find('/', slash + 1) != std::string_view::npos || id.find("..") != std::string_view::npos)
    return false;
  if (id.front() == '.' || id[slash + 1] == '.') return false;
  for (const char c : id)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
          c == '_' || c == '.' || c == '/'))
      return false;
  return true;
}

bool is_hf_revision(std::string_view r) {
  if (r.empty() || r.size() > 256 || r.front() == '/' || r.back() == '/' ||
      r.find("..") != std::string_view::npos || r.find("//") != std::string_view::npos)
    return false;
  for (const char c : r)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f || c == '\\' || c == '~' || c == '^' || c == ':' ||
        c == '?' || c == '*' || c == '[')
      return false;
  return true;
}

fs::path hf_repo_cache_dir(std::string_view repo) {
  std::string folder = "models--" + std::string(repo);
  if (const auto slash = folder.find('/'); slash != std::string::npos) folder.replace(slash, 1, "--");
  return hf_hub_cache_dir() / folder;
}

std::optional<fs::path> hf_cached_config(std::string_view repo, std::string_view revision_view) {
  const std::string revision = revision_view.empty() ? "main" : std::string(revision_view);
  const fs::path base = hf_repo_cache_dir(repo);
  std::string commit = revision;
  if (!is_commit_hash(revision)) {
    if (!is_hf_revision(revision)) return std::nullopt;
    std::error_code ec;
    if (!fs::is_regular_file(base / "refs" / revision, ec)) return std::nullopt;
    std::ifstream ref(base / "refs" / revision);
    if (!ref || !std::getline(ref, commit) || !is_commit_hash(commit)) return std::nullopt;
  }
  const fs::path config = base / "snapshots" / commit / "config.json";
  std::error_code ec;
  if (!fs::is_regular_file(config, ec)) return std::nullopt;
  return config;
}

}  // namespace kvplan::presets
