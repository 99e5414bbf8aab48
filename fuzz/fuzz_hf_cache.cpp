// The Hugging Face cache readers on fuzzed files, as load_hf_repo meets them in a cache someone else
// wrote. Byte 0 picks what the rest is. Even: refs/main of a cached repo, for hf_cached_config (at most
// 4 KiB read; a 40-hex commit on the first line, else not cached). Odd: kvplan's cached shard header
// {"file_size": N, "header": TEXT}, for cached_shard_header, then the header through
// add_safetensors_header_text as load_hf_repo reads it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "kvplan/hf_hub.hpp"
#include "kvplan/hub_fetch.hpp"
#include "kvplan/safetensors.hpp"

using namespace kvplan;
namespace fs = std::filesystem;

namespace {
constexpr std::string_view kCommit = "0123456789abcdef0123456789abcdef01234567";

/// The caches under this process's scratch folder, with one repo whose snapshot holds a config.json.
const fs::path& repo_dir() {
  static const fs::path dir = [] {
    ::setenv("HF_HUB_CACHE", (fuzz::scratch_dir() / "hub").c_str(), 1);
    ::setenv("XDG_CACHE_HOME", (fuzz::scratch_dir() / "xdg").c_str(), 1);
    const fs::path repo = presets::hf_repo_cache_dir("org/name");
    fs::create_directories(repo / "refs");
    fs::create_directories(repo / "snapshots" / kCommit);
    fuzz::write_file(repo / "snapshots" / kCommit / "config.json", "{}");
    return repo;
  }();
  return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const fs::path& repo = repo_dir();
  try {
    if ((data[0] & 1) == 0) {
      fuzz::write_file(repo / "refs" / "main", rest);
      const auto config = presets::hf_cached_config("org/name", "main");
      // Found only for the commit on the first line of a ref of at most 4 KiB.
      const std::string_view first = rest.substr(0, rest.find('\n'));
      fuzz::check(config.has_value() == (rest.size() <= 4096 && first == kCommit),
                  "refs/main: found " + std::to_string(config.has_value()) + " for '" +
                      std::string(first.substr(0, 60)) + "'");
      return 0;
    }
    // kvplan_cache_dir() / safetensors-headers / models--ORG--NAME / COMMIT / SHARD.json (hub_fetch.hpp).
    const fs::path cached = presets::kvplan_cache_dir() / "safetensors-headers" / repo.filename() /
                            std::string(kCommit) / "s.safetensors.json";
    fs::create_directories(cached.parent_path());
    fuzz::write_file(cached, rest);
    const auto h = presets::cached_shard_header("org/name", kCommit, "s.safetensors");
    fuzz::check(h.has_value(), "a cached header file that is there was not read");
    presets::SafetensorsSummary s;
    presets::add_safetensors_header_text(h->text, h->file_size, "s.safetensors", s);
    // Accepted: the tensors tile the data region exactly.
    fuzz::check(s.total.bytes == h->file_size - 8 - h->text.size(),
                "the tensors' bytes are not the data region's");
    fuzz::check(s.files == 1, "one header, one file");
  } catch (const Error& e) {
    fuzz::check_error(e);
  }
  return 0;
}
