// Hugging Face repo ids through the local Hub cache (huggingface_hub/constants.py, file_download.py
// _cache_commit_hash_for_specific_revision and the models--ORG--NAME/{refs,snapshots} layout).
#include "kvplan/hf_hub.hpp"

#include <cstdlib>
#include <vector>

#include <pwd.h>
#include <unistd.h>

#include "kvplan/error.hpp"
#include "kvplan/presets.hpp"

namespace kvplan::presets {

namespace fs = std::filesystem;

namespace {
std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

}  // namespace

fs::path home_dir() {
  if (auto h = env("HOME"); !h.empty()) return h;
  // Python's os.path.expanduser("~"), which huggingface_hub's default cache goes through: $HOME, else the
  // password database's entry for the user (pwd.getpwuid(os.getuid()).pw_dir). Never the working folder.
  const long hint = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buf(hint > 0 ? static_cast<std::size_t>(hint) : std::size_t{16384});
  passwd pw{};
  passwd* found = nullptr;
  if (getpwuid_r(getuid(), &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr &&
      found->pw_dir != nullptr && found->pw_dir[0] == '/')
    return found->pw_dir;
  throw Error("HOME", "is not set, and the password database has no home folder for user " +
                          std::to_string(getuid()) + ": set HOME, or HF_HOME and XDG_CACHE_HOME");
}

bool is_commit_hash(std::string_view r) {
  if (r.size() != 40) return false;
  for (const char c : r)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

fs::path hf_hub_cache_dir() {
  if (const auto c = env("HF_HUB_CACHE"); !c.empty()) return c;
  // huggingface_hub's older name, still read: HF_HUB_CACHE = getenv("HF_HUB_CACHE",
  // getenv("HUGGINGFACE_HUB_CACHE", HF_HOME/hub)).
  if (const auto c = env("HUGGINGFACE_HUB_CACHE"); !c.empty()) return c;
  if (const auto h = env("HF_HOME"); !h.empty()) return fs::path(h) / "hub";
  return home_dir() / ".cache" / "huggingface" / "hub";
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
    const fs::path ref_path = base / "refs" / revision;
    if (!fs::exists(fs::symlink_status(ref_path, ec))) return std::nullopt;
    // A commit hash is 40 characters: at most 4 KiB is read (a 3 GiB ref was read whole: 12 s, 4.1 GB),
    // and never from a file that blocks (InputFile). More, or no hash on the first line: not cached.
    InputFile ref(ref_path);
    const auto text = ref.read_all(4096);
    if (!text) return std::nullopt;
    commit = text->substr(0, text->find('\n'));
    if (!is_commit_hash(commit)) return std::nullopt;
  }
  const fs::path config = base / "snapshots" / commit / "config.json";
  std::error_code ec;
  if (!fs::is_regular_file(config, ec)) return std::nullopt;
  return config;
}

}  // namespace kvplan::presets
