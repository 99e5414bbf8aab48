// The Hub fetch on fuzzed answers, through the stand-in transport (kvplan/hub_transport.hpp), never the
// network. Byte 0: even, a safetensors repo (load_hf_repo "org/name": config.json, the index, each shard's
// header by two Range requests); odd, a GGUF repo by tag (load_hf_gguf "org/name:Q4_K_M": the listing, a
// probe, the header by growing Range requests, split shards). The rest is the answers, in order, separated
// by "@@@\n": each one's first line is the status ("206"; a letter after it stands for a transfer failure:
// t timed out, u unreachable, p truncated, c cancelled, f failed), the lines up to an empty line its
// headers ("X-Repo-Commit: ...", "Content-Range: bytes 0-7/100", an "HTTP/1.1 302" line between two
// responses), the rest its body. Once the answers run out, the Hub is unreachable.
// Checked: every error is one line naming a field and never shows HF_ENDPOINT's password; an error leaves
// no temporary file, no GGUF cache entry (it is written once the model is read) and no ref to a snapshot
// without its config.json; a success leaves refs/main; no request asks for more than 128 MiB, and one fetch
// makes a bounded number of requests.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"
#include "kvplan/hf_hub.hpp"
#include "kvplan/hub_fetch.hpp"
#include "kvplan/hub_transport.hpp"

using namespace kvplan;
namespace fs = std::filesystem;
using presets::testing::HubReply;
using presets::testing::HubRequest;

namespace {
constexpr std::string_view kPassword = "fuzzsecretpw";

struct Answers {
  std::vector<std::string_view> replies;
  std::size_t next = 0;
  std::size_t requests = 0;
};
Answers g_answers;

HubReply answer(const HubRequest& q) {
  ++g_answers.requests;
  // A request never keeps more than a safetensors header may hold (100 MB) plus the JSON files' 64 MiB.
  fuzz::check(q.limit <= (std::size_t{128} << 20),
              "a request keeps up to " + std::to_string(q.limit) + " bytes");
  fuzz::check(q.url.rfind("http://fuzz:" + std::string(kPassword) + "@hub.fuzz/", 0) == 0,
              "a request leaves the Hub: " + q.url.substr(0, 80));
  HubReply r;
  if (g_answers.next == g_answers.replies.size()) {
    r.outcome = HubReply::Outcome::unreachable;
    return r;
  }
  std::string_view a = g_answers.replies[g_answers.next++];
  const auto line_end = [&a] { return std::min(a.find('\n'), a.size()); };
  std::size_t end = line_end();
  const std::string_view first = a.substr(0, end);
  a.remove_prefix(std::min(end + 1, a.size()));
  r.status = std::strtol(std::string(first.substr(0, 3)).c_str(), nullptr, 10);
  r.header_lines.push_back("HTTP/1.1 " + std::to_string(r.status) + "\r\n");
  if (first.size() > 3) {
    switch (first[3]) {
      case 't': r.outcome = HubReply::Outcome::timed_out; break;
      case 'u': r.outcome = HubReply::Outcome::unreachable; break;
      case 'p': r.outcome = HubReply::Outcome::truncated; break;
      case 'c': r.outcome = HubReply::Outcome::cancelled; break;
      case 'f': r.outcome = HubReply::Outcome::failed; break;
      default: break;
    }
  }
  while (!a.empty()) {
    end = line_end();
    const std::string_view line = a.substr(0, end);
    a.remove_prefix(std::min(end + 1, a.size()));
    if (line.empty()) break;
    r.header_lines.push_back(std::string(line) + "\r\n");
  }
  r.body = std::string(a);
  return r;
}

void setup() {
  static const bool done = [] {
    ::setenv("HF_HUB_CACHE", (fuzz::scratch_dir() / "hub").c_str(), 1);
    ::setenv("XDG_CACHE_HOME", (fuzz::scratch_dir() / "xdg").c_str(), 1);
    ::setenv("HF_HOME", (fuzz::scratch_dir() / "hf-home").c_str(), 1);
    ::setenv("HF_ENDPOINT", ("http://fuzz:" + std::string(kPassword) + "@hub.fuzz").c_str(), 1);
    ::setenv("HF_TOKEN", "hf_fuzz_token", 1);
    ::unsetenv("HF_HUB_OFFLINE");
    ::unsetenv("KVPLAN_HUB_TIMEOUT");
    ::unsetenv("KVPLAN_HUB_DEADLINE");
    presets::testing::set_hub_transport(answer);
    return true;
  }();
  (void)done;
}

std::vector<std::string> files_under(const fs::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (!it->is_directory()) out.push_back(it->path().string());
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  setup();
  const fs::path hub = fuzz::scratch_dir() / "hub";
  const fs::path xdg = fuzz::scratch_dir() / "xdg";
  std::error_code ec;
  fs::remove_all(hub, ec);
  fs::remove_all(xdg, ec);
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  g_answers = {};
  for (std::size_t at = rest.find("@@@\n"); at != std::string_view::npos; at = rest.find("@@@\n")) {
    g_answers.replies.push_back(rest.substr(0, at));
    rest.remove_prefix(at + 4);
  }
  g_answers.replies.push_back(rest);
  const bool gguf = (data[0] & 1) != 0;
  try {
    const ModelSpec m =
        gguf ? presets::load_hf_gguf("org/name", "Q4_K_M", "") : presets::load_hf_repo("org/name", "");
    fuzz::check(m.source.find(kPassword) == std::string::npos, "the password in the source: " + m.source);
    const fs::path ref = gguf ? xdg / "kvplan" / "gguf-headers" / "models--org--name" / "refs" / "main"
                              : hub / "models--org--name" / "refs" / "main";
    fuzz::check(fs::is_regular_file(ref, ec), "a success without " + ref.string());
    for (const auto& w : m.warnings)
      fuzz::check(w.find(kPassword) == std::string::npos, "the password in a warning: " + w);
  } catch (const Error& e) {
    fuzz::check_error(e);
    fuzz::check(std::string_view(e.what()).find(kPassword) == std::string_view::npos,
                std::string("the password in an error: ") + e.what());
    auto left = files_under(hub);
    for (auto& f : files_under(xdg)) left.push_back(std::move(f));
    for (const auto& f : left)
      fuzz::check(f.find(".tmp") == std::string::npos, "an error left a temporary file: " + f);
    if (gguf) {
      // The GGUF reader writes only once the model is read.
      fuzz::check(left.empty(),
                  "an error left files: " + (left.empty() ? "" : left.front()) + " (" + e.what() + ")");
    } else if (fs::exists(hub / "models--org--name" / "refs" / "main", ec)) {
      // The snapshot is cached before its config is read as a model: complete, its ref written last.
      std::optional<fs::path> config;
      try {
        config = presets::hf_cached_config("org/name", "main");
      } catch (const Error& again) {
        fuzz::check(false, std::string("the ref written is unreadable: ") + again.what());
      }
      fuzz::check(config && fs::is_regular_file(*config, ec),
                  "refs/main names a snapshot without config.json");
    }
  }
  // Requests: a listing of at most 100 pages, then per shard (at most 1,024) a probe and the header's
  // rounds (at most 8, 1 MiB doubling to 64 MiB); the safetensors fetch asks 2 per shard and 3 more.
  fuzz::check(g_answers.requests <= 100 + 1024 * 9 + 4, "requests: " + std::to_string(g_answers.requests));
  return 0;
}
