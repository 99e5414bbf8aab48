// Hugging Face Hub fetches with libcurl, written into huggingface_hub's cache layout
// (huggingface_hub file_download.py: hf_hub_url, get_hf_file_metadata, _normalize_etag, _create_symlink,
// _cache_commit_hash_for_specific_revision; constants.py for the environment variables).
#include "kvplan/hub_fetch.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include <curl/curl.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "kvplan/error.hpp"
#include "kvplan/format.hpp"
#include "kvplan/gguf.hpp"
#include "kvplan/hf_hub.hpp"
#include "kvplan/hub_transport.hpp"
#include "kvplan/presets.hpp"

namespace kvplan::presets {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
/// The transport set by testing::set_hub_transport (tests and the fuzz target); empty: libcurl.
testing::HubTransport& test_transport() {
  static testing::HubTransport t;
  return t;
}

/// The innermost HubCancelScope's flag on this thread; null when none.
thread_local HubCancelFlag t_cancel;

/// What a request's progress callback sees: its HubCancelFlag (null: none) and the line to show.
struct Progress {
  const std::atomic<bool>* cancel = nullptr;
  std::function<void()> show;
};

/// CURLOPT_XFERINFOFUNCTION (XFERINFODATA a Progress): shows the progress line, and returns nonzero, which
/// stops the transfer (CURLE_ABORTED_BY_CALLBACK), when the request's HubCancelFlag is set.
int on_progress(void* data, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* p = static_cast<const Progress*>(data);
  if (p->show) p->show();
  return p->cancel != nullptr && p->cancel->load() ? 1 : 0;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return std::isspace(c) == 0; };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

/// Milliseconds as seconds for a message: "60 s", "1.5 s".
std::string seconds_text(long ms) {
  std::string s = std::to_string(ms / 1000);
  if (ms % 1000 != 0) {
    std::string frac = std::to_string(1000 + ms % 1000).substr(1);
    while (frac.back() == '0') frac.pop_back();
    s += "." + frac;
  }
  return s + " s";
}

/// A number of seconds in (0, 86400] from the environment variable `name`, as milliseconds (at least 1);
/// `fallback` when unset or blank. Throws kvplan::Error(name, ...) on anything else.
long env_milliseconds(const char* name, long fallback) {
  const std::string v = trim(env(name));
  if (v.empty()) return fallback;
  char* end = nullptr;
  const double s = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end != '\0' || !(s > 0) || s > 86400)
    throw Error(name, "'" + v + "' is not a number of seconds in (0, 86400]");
  return std::max(1L, static_cast<long>(s * 1000));
}

/// What one request brought back. Headers are gathered over the redirects: the Hub's own answer (a 302
/// to its CDN for LFS files) carries X-Repo-Commit, X-Linked-Etag and X-Linked-Size.
struct Response {
  long status = 0;
  std::string body;
  std::string commit;         ///< first X-Repo-Commit
  std::string linked_etag;    ///< first X-Linked-Etag
  std::string etag;           ///< the last response's ETag
  std::string content_range;  ///< the last response's Content-Range
  std::string error_code;     ///< the last response's X-Error-Code (GatedRepo, RepoNotFound...)
  std::string link;           ///< the last response's Link (the Hub API's next page)
  std::size_t limit = 0;      ///< most body bytes kept; more aborts the transfer
  bool over_limit = false;
};

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto& r = *static_cast<Response*>(user);
  const std::size_t bytes = size * n;
  if (r.body.size() + bytes > r.limit) {
    r.over_limit = true;
    return 0;  // aborts with CURLE_WRITE_ERROR
  }
  r.body.append(data, bytes);
  return bytes;
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto& r = *static_cast<Response*>(user);
  const std::size_t bytes = size * n;
  const std::string line(data, bytes);
  if (line.rfind("HTTP/", 0) == 0) {  // a new response (after a redirect): its own headers start
    r.etag.clear();
    r.content_range.clear();
    r.error_code.clear();
    r.link.clear();
    return bytes;
  }
  const auto colon = line.find(':');
  if (colon == std::string::npos) return bytes;
  const std::string name = lower(line.substr(0, colon));
  const std::string value = trim(line.substr(colon + 1));
  if (name == "x-repo-commit" && r.commit.empty()) r.commit = value;
  if (name == "x-linked-etag" && r.linked_etag.empty()) r.linked_etag = value;
  if (name == "etag") r.etag = value;
  if (name == "content-range") r.content_range = value;
  if (name == "x-error-code") r.error_code = value;
  if (name == "link") r.link = value;
  return bytes;
}

/// Python's urllib.parse.quote: every byte but letters, digits, "-_.~" and those of `safe` as %XX.
std::string quote(std::string_view text, std::string_view safe) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0 || c == '-' || c == '_' || c == '.' || c == '~' ||
        safe.find(c) != std::string_view::npos) {
      out += c;
    } else {
      constexpr const char* hex = "0123456789ABCDEF";
      out += {'%', hex[u >> 4], hex[u & 15]};
    }
  }
  return out;
}

/// The request's context, for the messages.
struct Hub {
  std::string repo;
  std::string revision;
  std::string endpoint = hf_endpoint();
  HubToken token = hf_token();
  HubTimeouts timeouts = hub_timeouts();
  /// When the whole fetch must be over (timeouts.deadline_ms from the start): each request's own limit is
  /// cut to what is left, so N shards x 2 requests cannot add up to N x 2 x 60 s.
  std::chrono::steady_clock::time_point deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeouts.deadline_ms);
  std::size_t shards_total = 0;  ///< shard headers this fetch asks for (for the deadline's message)
  std::size_t shards_done = 0;
  bool config_cached = false;  ///< only the weights' headers are fetched: the cache has the config
  mutable std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> handle{nullptr, &curl_easy_cleanup};
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  mutable std::chrono::steady_clock::time_point shown_at{};
  mutable bool shown = false;  ///< a progress line is on stderr (cleared when the fetch ends)

  Hub() = default;
  Hub(const Hub&) = delete;
  Hub& operator=(const Hub&) = delete;
  ~Hub() {
    if (shown) std::fputs("\r\033[K", stderr);  // the line goes: the answer or the error takes its place
  }

  /// Once the fetch has taken over a second, one line on stderr, rewritten in place at most twice a second:
  /// "kvplan: fetching 'ORG/NAME' from ENDPOINT: FILE (N of M shard headers)". Only when stderr is a
  /// terminal: a script reading stderr gets the error's one line alone.
  void progress(const std::string& file) const {
    const auto now = std::chrono::steady_clock::now();
    if (now - start < std::chrono::seconds(1) || (shown && now - shown_at < std::chrono::milliseconds(500)))
      return;
    static const bool terminal = isatty(STDERR_FILENO) == 1;
    if (!terminal) return;
    const std::string line =
        "\rkvplan: fetching '" + repo + "' from " + redact_userinfo(endpoint) + ": " + file +
        (shards_total > 0
             ? " (" + std::to_string(shards_done) + " of " + std::to_string(shards_total) + " shard headers)"
             : std::string()) +
        "\033[K";
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    shown = true;
    shown_at = now;
  }

  [[nodiscard]] std::string url(std::string_view rev, std::string_view file) const {
    // hf_hub_url: {endpoint}/{repo_id}/resolve/{quote(revision, safe="")}/{quote(filename)}.
    return endpoint + "/" + repo + "/resolve/" + quote(rev, "") + "/" + quote(file, "/");
  }

  [[nodiscard]] std::string not_cached() const {
    return "'" + repo + "' at revision '" + revision + "' is not in the Hugging Face cache (searched " +
           hf_hub_cache_dir().string() + ")";
  }

  /// The error for a fetch that reached its overall deadline while fetching `file`.
  [[nodiscard]] HubError past_deadline(const std::string& file) const {
    return HubError("model",
                    "fetching '" + repo + "' from " + endpoint + " reached the overall limit of " +
                        seconds_text(timeouts.deadline_ms) + " for one fetch at " + file +
                        (shards_total > 0 ? " (" + std::to_string(shards_done) + " of " +
                                                std::to_string(shards_total) + " shard headers fetched)"
                                          : std::string()) +
                        "; KVPLAN_HUB_DEADLINE sets it in seconds");
  }

  /// GET `url`, following redirects; `range` asks for bytes [first, last]. Throws on a transfer failure, and
  /// when the fetch's deadline has passed or passes during the request.
  Response get(const std::string& url, std::size_t limit,
               std::optional<std::pair<std::uint64_t, std::uint64_t>> range, const std::string& file) const {
    if (test_transport()) return get_through_test_transport(url, limit, range, file);
    static const bool ready = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    if (!ready) throw HubError("model", "libcurl failed to initialise");
    // One handle for every request of a fetch: libcurl keeps its connection (and TLS session) open.
    if (!handle) handle.reset(curl_easy_init());
    if (!handle) throw HubError("model", "libcurl failed to start a request");
    CURL* curl = handle.get();
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now())
            .count();
    if (left <= 0) throw past_deadline(file);
    // This request's limit: its own, or what is left of the fetch's, whichever is sooner.
    const bool cut_by_deadline = left < timeouts.total_ms;
    const long limit_ms = cut_by_deadline ? static_cast<long>(left) : timeouts.total_ms;
    curl_easy_reset(curl);
    Response r;
    r.limit = limit;
    char err[CURL_ERROR_SIZE] = {};
    curl_slist* headers = nullptr;
    if (!token.value.empty())
      headers = curl_slist_append(headers, ("Authorization: Bearer " + token.value).c_str());
    const std::string range_text =
        range ? std::to_string(range->first) + "-" + std::to_string(range->second) : std::string();
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 10L);
    // The token goes to the Hub only, not to the CDN a redirect leads to (libcurl's default, made explicit).
    curl_easy_setopt(curl, CURLOPT_UNRESTRICTED_AUTH, 0L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeouts.connect_ms, limit_ms));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, limit_ms);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "kvplan");
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, err);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &r);
    if (range) curl_easy_setopt(curl, CURLOPT_RANGE, range_text.c_str());
    // This fetch's own flag (HubCancelScope), held for the whole request.
    const HubCancelFlag cancel = t_cancel;
    progress(file);
    const Progress state{cancel.get(), [&] { progress(file); }};
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, const_cast<void*>(static_cast<const void*>(&state)));
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    const CURLcode rc = cancel && cancel->load() ? CURLE_ABORTED_BY_CALLBACK : curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(headers);
    return outcome(std::move(r), rc, err[0] != '\0' ? std::string(err) : std::string(curl_easy_strerror(rc)),
                   url, limit, range.has_value(), cut_by_deadline, file);
  }

  /// get() through testing::set_hub_transport's stand-in: the same deadline, limits and error words, its
  /// reply's header lines and body through libcurl's callbacks.
  Response get_through_test_transport(const std::string& url, std::size_t limit,
                                      std::optional<std::pair<std::uint64_t, std::uint64_t>> range,
                                      const std::string& file) const {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now())
            .count();
    if (left <= 0) throw past_deadline(file);
    testing::HubRequest q;
    q.url = url;
    q.range = range ? std::to_string(range->first) + "-" + std::to_string(range->second) : std::string();
    q.authorized = !token.value.empty();
    q.limit = limit;
    testing::HubReply reply = test_transport()(q);
    Response r;
    r.limit = limit;
    for (auto& line : reply.header_lines) (void)on_header(line.data(), 1, line.size(), &r);
    r.status = reply.status;
    CURLcode rc = CURLE_OK;
    using O = testing::HubReply::Outcome;
    switch (reply.outcome) {
      case O::ok: break;
      case O::timed_out: rc = CURLE_OPERATION_TIMEDOUT; break;
      case O::unreachable: rc = CURLE_COULDNT_CONNECT; break;
      case O::truncated: rc = CURLE_PARTIAL_FILE; break;
      case O::cancelled: rc = CURLE_ABORTED_BY_CALLBACK; break;
      case O::failed: rc = CURLE_RECV_ERROR; break;
    }
    if (rc == CURLE_OK && !reply.body.empty() && on_body(reply.body.data(), 1, reply.body.size(), &r) == 0)
      rc = CURLE_WRITE_ERROR;
    return outcome(std::move(r), rc, "stand-in transport", url, limit, range.has_value(),
                   left < timeouts.total_ms, file);
  }

  /// A request's result as get() returns it: `r` when the transfer worked (or only an error page was cut
  /// at the limit); else the HubError for libcurl's `rc`, `why` its words.
  Response outcome(Response r, CURLcode rc, const std::string& why, const std::string& url, std::size_t limit,
                   bool ranged, bool cut_by_deadline, const std::string& file) const {
    // A body cut at the limit still leaves its status: an error page (404, 401) is answered by check().
    if (rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && r.over_limit && (r.status < 200 || r.status > 299)))
      return r;
    const std::string what = "'" + repo + "' " + file;
    switch (rc) {
      case CURLE_ABORTED_BY_CALLBACK:
        throw HubError("model", "fetching " + what + " from " + endpoint + " was cancelled");
      case CURLE_OPERATION_TIMEDOUT:
        // The request's limit was what the deadline left (rounded down to the millisecond): its timeout
        // is the deadline's, even when the clock reads a hair before it.
        if (cut_by_deadline) throw past_deadline(file);
        throw HubError("model", "timed out after " + seconds_text(timeouts.total_ms) + " fetching " + what +
                                    " from " + endpoint + " (" + why +
                                    "; KVPLAN_HUB_TIMEOUT sets the limit in seconds)");
      case CURLE_COULDNT_RESOLVE_HOST:
      case CURLE_COULDNT_RESOLVE_PROXY:
      case CURLE_COULDNT_CONNECT:
        throw HubError("model", "cannot reach " + endpoint + " (" + why + ")" +
                                    (config_cached ? std::string() : ", and " + not_cached()));
      case CURLE_PARTIAL_FILE:
      case CURLE_RECV_ERROR:
      case CURLE_GOT_NOTHING:
        throw HubError("model", "truncated response for " + what + " from " + url + " (" + why + ")");
      case CURLE_WRITE_ERROR:
        if (r.over_limit)
          throw HubError("model", (ranged ? "the server ignored the Range request for "
                                          : "a response over " + std::to_string(limit) + " bytes for ") +
                                      what + " from " + url);
        break;
      default: break;
    }
    throw HubError("model", "fetching " + what + " from " + url + " failed: " + why);
  }

  /// Throws for a status other than 200/206; nullopt for a file the repo lacks (404 EntryNotFound) when
  /// `optional`.
  [[nodiscard]] bool check(const Response& r, const std::string& file, bool optional) const {
    if (r.status == 200 || r.status == 206) return true;
    const std::string page = endpoint + "/" + repo;
    if (r.error_code == "RepoNotFound")
      throw HubError("model", "no repo '" + repo + "' on " + endpoint + " (HTTP " + std::to_string(r.status) +
                                  (token.value.empty() ? "; if it is private, set HF_TOKEN)" : ")"));
    if (r.error_code == "RevisionNotFound")
      throw HubError("model", "'" + repo + "' has no revision '" + revision + "' (HTTP " +
                                  std::to_string(r.status) + ")");
    if (r.status == 401 || r.status == 403 || r.error_code == "GatedRepo") {
      if (token.value.empty())
        throw HubError("model", "'" + repo + "' is gated or private (HTTP " + std::to_string(r.status) +
                                    " for " + file + "): accept its terms at " + page +
                                    ", then set HF_TOKEN to a token with access (or run `hf auth login`)");
      throw HubError("model", "the token from " + token.source + " has no access to '" + repo + "' (HTTP " +
                                  std::to_string(r.status) + " for " + file + "): request access at " + page);
    }
    if (r.status == 404) {
      if (optional && (r.error_code.empty() || r.error_code == "EntryNotFound")) return false;
      if (r.error_code == "EntryNotFound")
        throw HubEntryNotFound(
            "model", "'" + repo + "' has no " + file + " at revision '" + revision + "' (HTTP 404)", file);
      throw HubError("model", "no repo '" + repo + "' with a revision '" + revision + "' on " + endpoint +
                                  " (HTTP 404 for " + file + ")");
    }
    throw HubError("model",
                   endpoint + " answered HTTP " + std::to_string(r.status) + " for '" + repo + "' " + file);
  }

  /// The body as a JSON object, with the file readers' limits (depth, values) as for a file on disk.
  [[nodiscard]] json parse(const Response& r, const std::string& file, const std::string& url) const {
    const std::string what = "the response for '" + repo + "' " + file + " from " + url;
    json j;
    try {
      j = parse_json_text(r.body, file, true);  // config.json as transformers reads it (Infinity ...)
    } catch (const Error& e) {
      throw HubError("model",
                     what + " is not JSON (" + e.reason() + "; it starts '" + r.body.substr(0, 32) + "')");
    }
    if (!j.is_object())
      throw HubError("model", what + " is not a JSON object (it starts '" + r.body.substr(0, 32) + "')");
    return j;
  }

  /// Throws unless `r` is a Range answer (206) of exactly `want` bytes.
  void ranged(const Response& r, const std::string& file, const std::string& u, std::uint64_t want) const {
    if (r.status != 206)
      throw HubError("model", "the server ignored the Range request for '" + repo + "' " + file + " (HTTP " +
                                  std::to_string(r.status) + " from " + u + ")");
    if (r.body.size() != want)
      throw HubError("model", "truncated response for '" + repo + "' " + file + ": " +
                                  std::to_string(r.body.size()) + " of " + std::to_string(want) + " bytes");
  }

  /// The whole file's size from a Range answer's Content-Range: bytes A-B/SIZE (RFC 9110 14.4).
  [[nodiscard]] std::uint64_t file_size(const Response& r, const std::string& file) const {
    const auto slash = r.content_range.rfind('/');
    std::uint64_t size = 0;
    const std::string total = slash == std::string::npos ? std::string() : r.content_range.substr(slash + 1);
    const auto [end, ec] = std::from_chars(total.data(), total.data() + total.size(), size);
    if (total.empty() || ec != std::errc() || end != total.data() + total.size())
      throw HubError("model", "the response for '" + repo + "' " + file +
                                  " has no file size in its Content-Range ('" + r.content_range + "')");
    return size;
  }

  /// A shard's header through two Range requests: bytes 0-7 (the length N; the file's size from
  /// Content-Range), then bytes 8 to 8+N-1. nullopt when the file is absent and `optional`.
  std::optional<ShardHeader> header(const std::string& commit, const std::string& shard,
                                    bool optional) const {
    const std::string u = url(commit, shard);
    const Response first = get(u, 8, std::pair<std::uint64_t, std::uint64_t>{0, 7}, shard);
    if (!check(first, shard, optional)) return std::nullopt;
    ranged(first, shard, u, 8);
    const std::uint64_t size = file_size(first, shard);
    unsigned char prefix[8] = {};
    std::copy(first.body.begin(), first.body.end(), prefix);
    const std::uint64_t n = safetensors_header_length(prefix, size, shard);
    if (n < 2) throw HubError(shard, "the header is not a JSON object");
    Response second = get(u, n, std::pair<std::uint64_t, std::uint64_t>{8, 8 + n - 1}, shard);
    (void)check(second, shard, false);
    ranged(second, shard, u, n);
    return ShardHeader{size, std::move(second.body)};  // up to 100 MB: moved, not copied
  }
};

/// huggingface_hub _normalize_etag: the ETag without a weak "W/" mark and quotes. Empty unless it is a
/// safe file name (the Hub's are hex digests).
std::string blob_name(std::string etag) {
  if (etag.rfind("W/", 0) == 0) etag.erase(0, 2);
  etag.erase(std::remove(etag.begin(), etag.end(), '"'), etag.end());
  if (etag.empty() || etag.size() > 128) return {};
  for (const char c : etag)
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '-' && c != '_') return {};
  return etag;
}

/// A temporary name beside `p`, for a write then a rename.
fs::path temp_beside(const fs::path& p) {
  static std::mt19937_64 gen{std::random_device{}()};
  return p.parent_path() /
         ("." + p.filename().string() + ".kvplan-" + std::to_string(gen() % 1'000'000'000) + ".tmp");
}

/// Writes `data` at `p` through a temporary file and a rename; nothing is left at either on failure, which
/// is a HubError naming the path (a repo id that is a preset's then falls back to the preset).
void write_atomic(const fs::path& p, std::string_view data) {
  std::error_code ec;
  fs::create_directories(p.parent_path(), ec);
  if (ec) throw HubError(p.parent_path().string(), "cannot create the folder: " + ec.message());
  const fs::path tmp = temp_beside(p);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      throw HubError(p.string(), "cannot write (disk full or no permission)");
    }
  }
  fs::rename(tmp, p, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw HubError(p.string(), "cannot write: " + ec.message());
  }
}

/// One fetched file into the cache: blobs/<etag> and the snapshot's relative symlink to it (as
/// huggingface_hub's _create_symlink); without a usable ETag, or where links fail, a plain file in the
/// snapshot (huggingface_hub's layout without symlinks).
void cache_file(const fs::path& repo_dir, const std::string& commit, const std::string& file,
                const Response& r) {
  const fs::path in_snapshot = repo_dir / "snapshots" / commit / file;
  const std::string blob = blob_name(!r.linked_etag.empty() ? r.linked_etag : r.etag);
  if (!blob.empty()) {
    const fs::path blob_path = repo_dir / "blobs" / blob;
    std::error_code ec;
    if (!fs::is_regular_file(blob_path, ec)) write_atomic(blob_path, r.body);
    fs::create_directories(in_snapshot.parent_path(), ec);
    const fs::path tmp = temp_beside(in_snapshot);
    fs::create_symlink(fs::path("..") / ".." / "blobs" / blob, tmp, ec);
    if (!ec) {
      fs::rename(tmp, in_snapshot, ec);
      if (!ec) return;
      fs::remove(tmp, ec);
    }
  }
  write_atomic(in_snapshot, r.body);
}

fs::path header_cache_path(std::string_view repo, std::string_view commit, const std::string& shard) {
  return kvplan_cache_dir() / "safetensors-headers" / hf_repo_cache_dir(repo).filename() /
         std::string(commit) / (shard + ".json");
}

/// What the Hub gave for a checkpoint's weights: its index (absent: none, or the snapshot's was used),
/// and the shard headers fetched.
struct Weights {
  std::optional<Response> index;
  std::vector<std::pair<std::string, ShardHeader>> headers;
  std::vector<std::string> cached;  ///< each header as kvplan's cache holds it (header_cache_path)
};

/// The safetensors headers of `commit` from the Hub: the shards of `index` (the snapshot's), else of the
/// Hub's model.safetensors.index.json, else model.safetensors alone, else none; shards for which `have`
/// is true are skipped. Every header is checked before it is returned.
Weights fetch_weights(Hub& hub, const std::string& commit, const std::optional<json>& index,
                      const std::function<bool(const std::string&)>& have) {
  Weights w;
  std::vector<std::string> shards;
  const std::string name = "model.safetensors.index.json";
  if (index) {
    shards = safetensors_index_shards(*index, name);
  } else {
    const std::string index_url = hub.url(commit, name);
    Response r = hub.get(index_url, kMaxJsonBytes, std::nullopt, name);
    if (hub.check(r, name, true)) {
      shards = safetensors_index_shards(hub.parse(r, name, index_url), name);
      w.index = std::move(r);
    } else {
      shards = {"model.safetensors"};
    }
  }
  // Two requests a shard: the published checkpoints have at most a few hundred shards (Llama-3.1-405B 191,
  // DeepSeek-V3 163); an index naming thousands is refused before any is asked for.
  if (shards.size() > kMaxHubShards)
    throw HubError("model", "'" + hub.repo + "' " + name + " names " + format_count(shards.size()) +
                                " shard files: kvplan fetches the headers of at most " +
                                format_count(kMaxHubShards) + " (the limit)");
  hub.shards_total = shards.size();
  for (const auto& shard : shards) {
    if (have && have(shard)) continue;
    // model.safetensors without an index may be absent: then there are no headers.
    if (auto h = hub.header(commit, shard, !index && !w.index)) w.headers.emplace_back(shard, std::move(*h));
    ++hub.shards_done;
  }
  SafetensorsSummary scratch;
  for (const auto& [shard, h] : w.headers) {
    add_safetensors_header_text(h.text, h.file_size, shard, scratch);
    // The cache holds the header as a JSON string, read back with the JSON files' limit (escaping makes it
    // longer than the header): one that could not be read back is refused now, before anything is
    // written, instead of leaving a cache entry that fails every later run.
    w.cached.push_back(json{{"file_size", h.file_size}, {"header", h.text}}.dump());
    if (w.cached.back().size() > kMaxJsonBytes)
      throw HubError("model", "'" + hub.repo + "' " + shard + ": a " + format_count(h.text.size()) +
                                  "-byte header, " + format_count(w.cached.back().size()) +
                                  " B as kvplan caches it: over the " + format_count(kMaxJsonBytes >> 20) +
                                  " MiB it reads back (the limit)");
  }
  return w;
}

/// Writes what fetch_weights gave: the index into the snapshot (blob and link), each header into
/// kvplan's cache, each through a temporary file and a rename.
void write_weights(const std::string& repo, const std::string& commit, const Weights& w) {
  if (w.index) cache_file(hf_repo_cache_dir(repo), commit, "model.safetensors.index.json", *w.index);
  for (std::size_t i = 0; i < w.headers.size(); ++i)
    write_atomic(header_cache_path(repo, commit, w.headers[i].first), w.cached[i]);
}

}  // namespace

HubCancelScope::HubCancelScope(HubCancelFlag flag) : previous_(std::exchange(t_cancel, std::move(flag))) {}

HubCancelScope::~HubCancelScope() { t_cancel = std::move(previous_); }

bool hf_hub_offline() {
  const std::string v = lower(trim(env("HF_HUB_OFFLINE")));
  return v == "1" || v == "true" || v == "yes" || v == "on";
}

std::string hf_endpoint() {
  std::string e = trim(env("HF_ENDPOINT"));
  // File paths are appended to it (huggingface_hub: f"{endpoint}/{repo_id}/resolve/{revision}/{filename}"): a
  // query or fragment would end up inside every URL, and a token put there was printed in errors. Refused,
  // without echoing the value.
  if (e.find_first_of("?#") != std::string::npos)
    throw Error("HF_ENDPOINT",
                "must be the Hub's base URL, without a query ('?') or fragment ('#'): file "
                "paths are appended to it");
  while (!e.empty() && e.back() == '/') e.pop_back();
  return e.empty() ? "https://huggingface.co" : e;
}

HubToken hf_token() {
  if (auto t = trim(env("HF_TOKEN")); !t.empty()) return {t, "HF_TOKEN"};
  fs::path file;
  if (const auto p = env("HF_TOKEN_PATH"); !p.empty()) {
    file = p;
  } else if (const auto h = env("HF_HOME"); !h.empty()) {
    file = fs::path(h) / "token";
  } else {
    try {
      file = home_dir() / ".cache" / "huggingface" / "token";
    } catch (const Error&) {
      return {};  // no home folder: no token file either (the cache folder's own lookup says why)
    }
  }
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return {};
  std::optional<std::string> text;
  try {
    // At most 4 KiB, never from a file that blocks (InputFile).
    InputFile in(file);
    text = in.read_all(4096);
  } catch (const Error&) {
    return {};
  }
  if (!text) return {};
  std::string t = trim(text->substr(0, text->find('\n')));
  if (t.empty()) return {};
  return {t, file.string()};
}

fs::path kvplan_cache_dir() {
  // A relative XDG_CACHE_HOME is ignored, as the XDG Base Directory specification says (it would put the
  // cache under whatever folder kvplan runs in).
  if (const auto x = env("XDG_CACHE_HOME"); !x.empty() && fs::path(x).is_absolute())
    return fs::path(x) / "kvplan";
  return home_dir() / ".cache" / "kvplan";
}

HubTimeouts hub_timeouts() {
  HubTimeouts t;
  t.total_ms = env_milliseconds("KVPLAN_HUB_TIMEOUT", t.total_ms);
  t.connect_ms = std::min(t.connect_ms, t.total_ms);
  t.deadline_ms = env_milliseconds("KVPLAN_HUB_DEADLINE", t.deadline_ms);
  return t;
}

std::string redact_userinfo(std::string_view url) {
  const auto scheme = url.find("://");
  const std::size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
  const std::size_t end = std::min(url.find_first_of("/?#", start), url.size());
  const auto at = url.substr(start, end - start).rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  return std::string(url.substr(0, start)) + "***@" + std::string(url.substr(start + at + 1));
}

std::optional<ShardHeader> cached_shard_header(std::string_view repo, std::string_view commit,
                                               const std::string& shard) {
  const fs::path p = header_cache_path(repo, commit, shard);
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(p, ec))) return std::nullopt;
  const json j = read_json_file(p);
  const auto size = j.find("file_size");
  const auto text = j.find("header");
  if (size == j.end() || !size->is_number_unsigned())
    throw Error(p.string() + ": /file_size", "must be a byte count");
  if (text == j.end() || !text->is_string())
    throw Error(p.string() + ": /header", "must be the header's JSON text");
  return ShardHeader{size->get<std::uint64_t>(), text->get<std::string>()};
}

namespace {
/// `text` without HF_ENDPOINT's userinfo ("https://user:password@host" as "https://***@host"), and without
/// its password wherever else it appears (libcurl's own words): messages and warnings print the endpoint.
std::string without_secrets(std::string text) {
  const std::string raw = hf_endpoint();
  const std::string shown = redact_userinfo(raw);
  if (raw == shown) return text;
  const auto replace_all = [&text](const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  };
  replace_all(raw, shown);
  const auto scheme = raw.find("://");
  const std::size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  const std::string authority = raw.substr(start, raw.find_first_of("/?#", start) - start);
  const std::string userinfo = authority.substr(0, authority.rfind('@'));
  const auto colon = userinfo.find(':');
  // The whole userinfo (a token given as the user name), then the password alone. One of a few characters
  // would mask ordinary words: those are masked in the endpoint only.
  const std::string password = colon == std::string::npos ? std::string() : userinfo.substr(colon + 1);
  for (const std::string* secret : {&userinfo, &password})
    if (secret->size() >= 4) replace_all(*secret, "***");
  return text;
}

/// f(), its kvplan::Error (HubError and HubEntryNotFound kept as such) passed through without_secrets.
template <class F>
auto secrets_masked(F&& f) {
  try {
    return f();
  } catch (const HubEntryNotFound& e) {
    throw HubEntryNotFound(without_secrets(e.field()), without_secrets(e.reason()), e.file());
  } catch (const HubError& e) {
    throw HubError(without_secrets(e.field()), without_secrets(e.reason()));
  } catch (const Error& e) {
    throw Error(without_secrets(e.field()), without_secrets(e.reason()));
  }
}

fs::path fetch_model(std::string_view repo_view, std::string_view revision_view) {
  Hub hub;
  hub.repo = std::string(repo_view);
  hub.revision = revision_view.empty() ? "main" : std::string(revision_view);
  if (!is_hf_revision(hub.revision))
    throw Error("revision", "'" + hub.revision + "' cannot be a branch, tag or commit name");
  // config.json at the revision; the Hub names the commit it resolved to in X-Repo-Commit.
  const std::string config_url = hub.url(hub.revision, "config.json");
  const Response config = hub.get(config_url, kMaxJsonBytes, std::nullopt, "config.json");
  (void)hub.check(config, "config.json", false);
  (void)hub.parse(config, "config.json", config_url);
  std::string commit = config.commit;
  if (commit.empty() && is_commit_hash(hub.revision)) commit = hub.revision;
  if (commit.empty())
    throw HubError("model", hub.endpoint + " is not a Hugging Face Hub: its answer for '" + hub.repo +
                                "' config.json has no X-Repo-Commit header (check HF_ENDPOINT)");
  if (!is_commit_hash(commit))
    throw HubError("model",
                   "the X-Repo-Commit header for '" + hub.repo + "' is not a commit hash: '" + commit + "'");

  const Weights weights = fetch_weights(hub, commit, std::nullopt, {});

  // Written: blobs and snapshot links, the headers, then the ref.
  const fs::path repo_dir = hf_repo_cache_dir(hub.repo);
  cache_file(repo_dir, commit, "config.json", config);
  write_weights(hub.repo, commit, weights);
  if (hub.revision != commit) write_atomic(repo_dir / "refs" / hub.revision, commit);
  return repo_dir / "snapshots" / commit;
}

/// The commit branch or tag `rev` of `repo` points to now: the X-Repo-Commit of its config.json (as
/// huggingface_hub's hf_hub_download asks the Hub before it uses a cached branch, file_download.py
/// _get_metadata_or_catch_error). Throws HubError as a fetch does (not reached, 401/404, no header).
std::string resolve_commit(std::string_view repo, const std::string& rev) {
  Hub hub;
  hub.repo = std::string(repo);
  hub.revision = rev;
  const Response r = hub.get(hub.url(rev, "config.json"), kMaxJsonBytes, std::nullopt, "config.json");
  (void)hub.check(r, "config.json", false);
  if (!is_commit_hash(r.commit))
    throw HubError("model", hub.endpoint + " named no commit for '" + hub.repo + "' at '" + rev + "'");
  return r.commit;
}

ModelSpec load_repo(std::string_view repo, std::string_view revision) {
  const std::string rev = revision.empty() ? "main" : std::string(revision);
  auto config = hf_cached_config(repo, rev);
  std::string from = "from the Hugging Face cache";
  bool fetched = false;
  // A cached branch or tag is asked again when online, as huggingface_hub does: when it moved, the new
  // commit is fetched and cached (refs/<rev> then names it); when the Hub cannot answer, the cache does.
  if (config && !is_commit_hash(rev) && !hf_hub_offline()) {
    const std::string cached = config->parent_path().filename().string();
    std::string now;
    try {
      now = resolve_commit(repo, rev);
    } catch (const HubError&) {
      now.clear();  // offline in effect: the cached commit, as huggingface_hub falls back to it
    }
    if (!now.empty() && now != cached) {
      const fs::path snapshot = fetch_model(repo, rev);
      config = snapshot / "config.json";
      from = "from the Hugging Face Hub " + redact_userinfo(hf_endpoint()) + " (" + rev + " moved from " +
             cached.substr(0, 12) + "), now cached";
      fetched = true;
    } else if (!now.empty()) {
      from = "from the Hugging Face cache, " + rev + " checked on the Hub";
    }
  }
  if (!config) {
    if (hf_hub_offline())
      throw HubError("model", "'" + std::string(repo) + "' is not a preset, and revision '" + rev +
                                  "' of it is not in the Hugging Face cache (searched " +
                                  hf_hub_cache_dir().string() +
                                  "); HF_HUB_OFFLINE is set, so the Hub was not asked");
    const fs::path snapshot = fetch_model(repo, rev);
    config = snapshot / "config.json";
    from = "from the Hugging Face Hub " + redact_userinfo(hf_endpoint()) + ", now cached";
    fetched = true;
  }
  const fs::path snapshot = config->parent_path();
  const std::string commit = snapshot.filename().string();
  ModelSpec m = model_from_hf_config(read_json_file(*config, true), "config.json");
  m.id = m.name = std::string(repo);
  // The commit used, when the revision is a branch or tag: what a later run may resolve differently.
  m.source = std::string(repo) + "@" + rev + " " + from +
             (is_commit_hash(commit) && commit != rev ? ", commit " + commit : std::string());
  std::vector<std::string> missing;
  const auto read = [&] {
    missing.clear();
    return read_safetensors_folder(snapshot, [&](const std::string& shard) {
      auto h = cached_shard_header(repo, commit, shard);
      if (!h) missing.push_back(shard);
      return h;
    });
  };
  auto st = read();
  std::error_code ec;
  const fs::path index = snapshot / "model.safetensors.index.json";
  std::string why = "HF_HUB_OFFLINE is set";
  // A config cached without its weights' headers (a Python tool fetched config.json alone): the headers
  // from the Hub, when online, written into the caches for the next time.
  if (!st && !fetched && is_commit_hash(commit) && !hf_hub_offline()) {
    try {
      Hub hub;
      hub.repo = std::string(repo);
      hub.revision = rev;
      hub.config_cached = true;
      const std::optional<json> cached_index =
          fs::is_regular_file(index, ec) ? std::optional<json>(read_json_file(index)) : std::nullopt;
      const Weights w = fetch_weights(hub, commit, cached_index, [&](const std::string& shard) {
        return fs::is_regular_file(snapshot / shard, ec) ||
               cached_shard_header(repo, commit, shard).has_value();
      });
      write_weights(std::string(repo), commit, w);
      st = read();
    } catch (const HubError& e) {
      why = e.reason();
    }
  }
  if (st)
    apply_safetensors(*st, m);
  else if (fs::is_regular_file(index, ec))
    m.warnings.push_back(
        "safetensors: the header of " + (missing.empty() ? std::string("a shard") : missing.front()) +
        " is neither in the snapshot nor in kvplan's cache (" + kvplan_cache_dir().string() +
        "), and the Hub did not give it (" + why + "): the weights are the architecture's estimate");
  for (auto& w : m.warnings) w = without_secrets(std::move(w));
  return m;
}
}  // namespace

fs::path hf_fetch_model(std::string_view repo, std::string_view revision) {
  return secrets_masked([&] { return fetch_model(repo, revision); });
}

ModelSpec load_hf_repo(std::string_view repo, std::string_view revision) {
  return secrets_masked([&] { return load_repo(repo, revision); });
}

// --- GGUF repos by quant tag -------------------------------------------------------------------------

namespace testing {
void set_hub_transport(HubTransport transport) { test_transport() = std::move(transport); }
}  // namespace testing

namespace {
/// llama.cpp common/download.cpp get_gguf_split_info: a path less ".gguf", less a split tail
/// "-NNNNN-of-NNNNN" (any case of "of"); the tag is the run of letters, digits and '_' after the last '-'
/// or '.' of what is left, upper case. index and count are 1 for a file that is not split.
struct SplitInfo {
  std::string prefix;
  std::string tag;
  int index = 1;
  int count = 1;
  bool gguf = false;
};

SplitInfo split_info(std::string_view path) {
  SplitInfo out;
  if (!path.ends_with(".gguf")) return out;
  out.gguf = true;
  std::string_view p = path.substr(0, path.size() - 5);
  const auto digits = [](std::string_view d) {
    return d.size() == 5 && std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  // "^(.+)-([0-9]{5})-of-([0-9]{5})$": the tail is 15 characters, the prefix at least one.
  if (p.size() > 15 && p[p.size() - 15] == '-' && digits(p.substr(p.size() - 14, 5)) &&
      lower(std::string(p.substr(p.size() - 9, 4))) == "-of-" && digits(p.substr(p.size() - 5))) {
    out.index = std::stoi(std::string(p.substr(p.size() - 14, 5)));
    out.count = std::stoi(std::string(p.substr(p.size() - 5)));
    p = p.substr(0, p.size() - 15);
  }
  out.prefix = std::string(p);
  // "[-.]([A-Z0-9_]+)$", case-insensitive.
  std::size_t at = p.size();
  while (at > 0 && (std::isalnum(static_cast<unsigned char>(p[at - 1])) != 0 || p[at - 1] == '_')) --at;
  if (at > 0 && at < p.size() && (p[at - 1] == '-' || p[at - 1] == '.')) {
    out.tag = std::string(p.substr(at));
    for (auto& c : out.tag) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

/// llama.cpp gguf_filename_is_model: a .gguf file whose name holds none of the side files' marks.
bool gguf_is_model(std::string_view path) {
  if (!path.ends_with(".gguf")) return false;
  const std::string_view name =
      path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
  for (const std::string_view mark : {"mmproj", "imatrix", "mtp-", "eagle3-", "dflash-"})
    if (name.find(mark) != std::string_view::npos) return false;
  return true;
}

/// llama.cpp find_best_model's std::regex(tag + "[.-]", icase) searched in the path, the tag taken as text.
bool tag_matches(std::string_view path, std::string_view tag) {
  if (tag.empty() || path.size() <= tag.size()) return false;
  const std::string p = lower(std::string(path));
  const std::string t = lower(std::string(tag));
  for (std::size_t at = p.find(t); at != std::string::npos; at = p.find(t, at + 1))
    if (at + t.size() < p.size() && (p[at + t.size()] == '.' || p[at + t.size()] == '-')) return true;
  return false;
}

/// A path a listing may name and the cache may hold: relative, no "." or ".." part, no empty part, no
/// backslash or control character, at most 1,024 bytes.
bool safe_repo_path(std::string_view path) {
  if (path.empty() || path.size() > 1024 || path.front() == '/' || path.back() == '/') return false;
  for (const char c : path)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '\\') return false;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    const std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& t : items) out += (out.empty() ? "" : ", ") + t;
  return out;
}
}  // namespace

GgufChoice choose_gguf_file(const std::vector<std::string>& files, std::string_view tag,
                            std::string_view what) {
  GgufChoice out;
  std::vector<std::string> models;  // first shards and whole files, in listing order
  std::size_t ggufs = 0;
  std::set<std::string> tags;
  for (const auto& f : files) {
    const SplitInfo s = split_info(f);
    if (!s.gguf) continue;
    ++ggufs;
    if (!gguf_is_model(f) || (s.count > 1 && s.index != 1)) continue;
    models.push_back(f);
    tags.insert(s.tag.empty() ? f : s.tag);
  }
  out.tags.assign(tags.begin(), tags.end());
  if (ggufs == 0)
    throw HubError("model",
                   std::string(what) + " has no .gguf file (" + std::to_string(files.size()) +
                       " files listed): not a GGUF repo; name it without ':TAG' for its config.json");
  if (models.empty())
    throw HubError("model", std::string(what) +
                                " has only side files (mmproj, imatrix, mtp, eagle3, dflash): " +
                                "no model GGUF among its " + std::to_string(ggufs) + " .gguf files");
  if (tag.ends_with(".gguf")) {
    for (const auto& f : models)
      if (f == tag) {
        out.file = f;
        return out;
      }
    throw HubError("model", std::string(what) + " has no model file '" + std::string(tag) +
                                "' (its tags: " + joined(out.tags) + ")");
  }
  const std::vector<std::string> tries =
      tag.empty() ? std::vector<std::string>{"Q4_K_M", "Q8_0"} : std::vector<std::string>{std::string(tag)};
  for (const auto& t : tries) {
    std::vector<std::string> hits;
    for (const auto& f : models)
      if (tag_matches(f, t)) hits.push_back(f);
    // Several: the one whose own tag is the tag ("F16" is in "Model-BF16.gguf" too).
    if (hits.size() > 1) {
      std::string upper = t;
      for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      std::vector<std::string> exact;
      for (const auto& f : hits)
        if (split_info(f).tag == upper) exact.push_back(f);
      if (exact.size() == 1) hits = exact;
    }
    if (hits.size() == 1) {
      out.file = hits.front();
      return out;
    }
    if (hits.size() > 1)
      throw HubError(
          "model", std::string(what) + ": tag '" + t + "' matches " + std::to_string(hits.size()) +
                       " models (" + joined(hits) +
                       "); name one by its path, as ORG/NAME:PATH.gguf (its tags: " + joined(out.tags) + ")");
  }
  if (tag.empty()) {  // llama.cpp: the first model file listed
    out.file = models.front();
    return out;
  }
  throw HubError("model", std::string(what) + " has no GGUF file for tag '" + std::string(tag) +
                              "' (its tags: " + joined(out.tags) + ")");
}

namespace {
constexpr std::size_t kMaxListingPages = 100;
constexpr std::size_t kMaxListedFiles = 100'000;

struct Listed {
  std::string path;
  std::optional<std::uint64_t> size;
};

/// The URL of a Link header's rel="next" part (RFC 8288), or "" when none.
std::string next_link(const std::string& link) {
  std::size_t at = 0;
  while ((at = link.find('<', at)) != std::string::npos) {
    const auto close = link.find('>', at);
    if (close == std::string::npos) return "";
    const auto end = std::min(link.find(',', close), link.size());
    const std::string params = link.substr(close + 1, end - close - 1);
    if (params.find("rel=\"next\"") != std::string::npos || params.find("rel=next") != std::string::npos)
      return link.substr(at + 1, close - at - 1);
    at = end;
  }
  return "";
}

/// The files of `hub.repo` at `rev`: huggingface_hub list_repo_tree (GET {endpoint}/api/models/{repo}/tree/
/// {quote(revision, safe="")}?recursive=true, followed page by page through the Link header's next URL),
/// as llama.cpp's get_repo_files asks it. Entries of type "file" with a path; the LFS or plain size.
std::vector<Listed> list_repo_files(const Hub& hub, const std::string& rev) {
  const std::string file = "the file listing";
  std::string u = hub.endpoint + "/api/models/" + hub.repo + "/tree/" + quote(rev, "") + "?recursive=true";
  std::vector<Listed> out;
  for (std::size_t page = 0;; ++page) {
    if (page == kMaxListingPages)
      throw HubError("model", "'" + hub.repo + "' " + file + " runs past " +
                                  std::to_string(kMaxListingPages) + " pages (the limit)");
    const Response r = hub.get(u, kMaxJsonBytes, std::nullopt, file);
    (void)hub.check(r, file, false);
    json j;
    try {
      j = parse_json_text(r.body, file);
    } catch (const Error& e) {
      throw HubError("model", "the response for '" + hub.repo + "' " + file + " from " + u +
                                  " is not JSON (" + e.reason() + ")");
    }
    if (!j.is_array())
      throw HubError("model",
                     "the response for '" + hub.repo + "' " + file + " from " + u + " is not a JSON array");
    for (const auto& e : j) {
      if (!e.is_object() || e.value("type", json()) != "file") continue;
      const auto p = e.find("path");
      if (p == e.end() || !p->is_string()) continue;
      Listed l{p->get<std::string>(), std::nullopt};
      const auto lfs = e.find("lfs");
      const json* size = nullptr;
      if (lfs != e.end() && lfs->is_object() && lfs->contains("size")) size = &(*lfs)["size"];
      if (size == nullptr && e.contains("size")) size = &e["size"];
      if (size != nullptr && size->is_number_unsigned()) l.size = size->get<std::uint64_t>();
      if (out.size() == kMaxListedFiles)
        throw HubError("model", "'" + hub.repo + "' " + file + " names over " +
                                    format_count(kMaxListedFiles) + " files (the limit)");
      out.push_back(std::move(l));
    }
    const std::string next = next_link(r.link);
    if (next.empty()) return out;
    // The token goes to the Hub only: a next page elsewhere is not asked for.
    if (!next.starts_with(hub.endpoint + "/api/"))
      throw HubError("model", "'" + hub.repo + "' " + file + ": the next page's link leaves " + hub.endpoint);
    u = next;
  }
}

fs::path gguf_cache_root(std::string_view repo) {
  return kvplan_cache_dir() / "gguf-headers" / hf_repo_cache_dir(repo).filename();
}

/// One GGUF file's header as read: the file's size, the header's bytes, the header.
struct GgufRead {
  std::uint64_t size = 0;
  std::string bytes;
  GgufHeader header;
};

/// The header kvplan cached for `file` at `commit`; nullopt when absent. Throws kvplan::Error naming the
/// cache file when it is not what kvplan writes.
std::optional<GgufRead> cached_gguf_header(std::string_view repo, const std::string& commit,
                                           const std::string& file) {
  const fs::path p = gguf_cache_root(repo) / commit / (file + ".header");
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(p, ec))) return std::nullopt;
  InputFile in(p);
  const auto text = in.read_all(kMaxHubGgufHeader + 64);
  if (!text)
    throw Error(p.string(),
                "over " + std::to_string(kMaxHubGgufHeader >> 20) + " MiB: not a header kvplan wrote");
  const std::string tag = "kvplan-gguf-header 1 ";
  const auto nl = text->find('\n');
  std::uint64_t size = 0;
  const char* first = text->data() + tag.size();
  const char* last = text->data() + (nl == std::string::npos ? 0 : nl);
  if (nl == std::string::npos || !text->starts_with(tag) || first >= last ||
      std::from_chars(first, last, size).ptr != last)
    throw Error(p.string(), "its first line is not 'kvplan-gguf-header 1 <file size>'");
  GgufRead r{size, text->substr(nl + 1), {}};
  GgufPrefix h = parse_gguf_prefix(r.bytes, size, file);
  if (!h.header)
    throw Error(p.string(), "the cached header is cut short (it needs " + std::to_string(h.end) + " bytes)");
  r.header = std::move(*h.header);
  return r;
}

/// `file`'s GGUF header from `u` by Range requests: kGgufFirstRange bytes, then at least double what is
/// held (or up to the header's end) until the tensor infos are in, never past kMaxHubGgufHeader. `size`:
/// the file's size when known (a probe's Content-Range), checked against every answer.
GgufRead fetch_gguf_header(const Hub& hub, const std::string& u, const std::string& file,
                           std::uint64_t size) {
  GgufRead out;
  out.size = size;
  if (size < 8) (void)parse_gguf_prefix("", size, file);  // too short for a header: its error
  std::uint64_t want = std::min(kGgufFirstRange, size);
  for (;;) {
    const std::uint64_t from = out.bytes.size();
    const Response r = hub.get(u, static_cast<std::size_t>(want - from), std::pair{from, want - 1}, file);
    (void)hub.check(r, file, false);
    hub.ranged(r, file, u, want - from);
    if (hub.file_size(r, file) != size)
      throw HubError("model", "'" + hub.repo + "' " + file + " changed size between two requests (" +
                                  std::to_string(size) + " B, then " +
                                  std::to_string(hub.file_size(r, file)) + " B in the Content-Range)");
    out.bytes += r.body;
    GgufPrefix p = parse_gguf_prefix(out.bytes, size, file);
    if (p.header) {
      out.bytes.resize(static_cast<std::size_t>(p.end));
      out.header = std::move(*p.header);
      return out;
    }
    if (p.end > kMaxHubGgufHeader)
      throw HubError("model",
                     "'" + hub.repo + "' " + file + ": the GGUF header runs past the " +
                         std::to_string(kMaxHubGgufHeader >> 20) +
                         " MiB kvplan reads of it over the Hub (the limit; real headers are a few MiB)");
    want = std::min({std::max(p.end, 2 * out.bytes.size()), kMaxHubGgufHeader, size});
  }
}

/// The first line of `p` when it is a 40-hex commit (a ref kvplan wrote); nullopt otherwise.
std::optional<std::string> read_ref(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  InputFile in(p);
  const auto text = in.read_all(4096);
  if (!text) return std::nullopt;
  std::string c = trim(text->substr(0, text->find('\n')));
  return is_commit_hash(c) ? std::optional(c) : std::nullopt;
}

ModelSpec load_gguf(std::string_view repo_view, std::string_view tag, std::string_view revision_view) {
  Hub hub;
  hub.repo = std::string(repo_view);
  hub.revision = revision_view.empty() ? "main" : std::string(revision_view);
  const std::string& rev = hub.revision;
  if (!is_hf_revision(rev)) throw Error("revision", "'" + rev + "' cannot be a branch, tag or commit name");
  const std::string what = "'" + hub.repo + "' at revision '" + rev + "'";
  const fs::path root = gguf_cache_root(hub.repo);
  std::optional<std::string> cached =
      is_commit_hash(rev) ? std::optional(rev) : read_ref(root / "refs" / rev);
  std::error_code ec;
  if (cached && !fs::is_regular_file(root / *cached / "files.json", ec)) cached.reset();

  std::vector<Listed> files;
  std::string from;
  bool online = false;
  if (!hf_hub_offline()) {
    try {
      files = list_repo_files(hub, rev);
      online = true;
    } catch (const HubError& e) {
      if (!cached) throw;
      from = "from kvplan's cache (the Hub did not answer: " + e.reason() + ")";
    }
  } else if (!cached) {
    throw HubError("model", what + " is not in kvplan's cache of GGUF headers (searched " + root.string() +
                                "); HF_HUB_OFFLINE is set, so the Hub was not asked");
  } else {
    from = "from kvplan's cache";
  }
  std::string commit;
  if (!online) {
    commit = *cached;
    const json j = read_json_file(root / commit / "files.json");
    const auto list = j.is_object() ? j.find("files") : j.end();
    if (list == j.end() || !list->is_array())
      throw Error((root / commit / "files.json").string() + ": /files",
                  "must be the list of the repo's files");
    for (const auto& e : *list)
      if (e.is_string()) files.push_back({e.get<std::string>(), std::nullopt});
  }
  std::vector<std::string> paths;
  for (const auto& f : files)
    if (safe_repo_path(f.path)) paths.push_back(f.path);
  const GgufChoice choice = choose_gguf_file(paths, tag, what);
  const auto listed_size = [&](const std::string& path) -> std::optional<std::uint64_t> {
    for (const auto& f : files)
      if (f.path == path) return f.size;
    return std::nullopt;
  };

  // Online: the commit and the file's size from a probe of its first 8 bytes.
  const auto probe = [&](const std::string& at, const std::string& file) {
    const std::string u = hub.url(at, file);
    const Response r = hub.get(u, 8, std::pair<std::uint64_t, std::uint64_t>{0, 7}, file);
    (void)hub.check(r, file, false);
    if (r.status != 206) hub.ranged(r, file, u, 8);
    const std::uint64_t size = hub.file_size(r, file);
    hub.ranged(r, file, u, std::min<std::uint64_t>(8, size));
    return std::pair{r.commit, size};
  };
  std::uint64_t first_size = 0;
  if (online) {
    const auto [resolved, size] = probe(rev, choice.file);
    first_size = size;
    commit = is_commit_hash(resolved) ? resolved : is_commit_hash(rev) ? rev : std::string();
    if (commit.empty())
      throw HubError("model", hub.endpoint + " is not a Hugging Face Hub: its answer for '" + hub.repo +
                                  "' " + choice.file + " has no X-Repo-Commit header (check HF_ENDPOINT)");
  }
  std::vector<std::pair<std::string, GgufRead>> fetched;
  const auto read_header = [&](const std::string& file) -> GgufHeader {
    if (auto c = cached_gguf_header(hub.repo, commit, file)) return std::move(c->header);
    if (!online)
      throw HubError("model",
                     "the header of '" + hub.repo + "' " + file + " at commit " + commit +
                         " is not in kvplan's cache (searched " + root.string() + ")" +
                         (hf_hub_offline() ? "; HF_HUB_OFFLINE is set, so the Hub was not asked" : ""));
    const std::uint64_t size = file == choice.file ? first_size : probe(commit, file).second;
    if (const auto l = listed_size(file); l && *l != size)
      throw HubError("model", "'" + hub.repo + "' " + file + ": the listing says " + std::to_string(*l) +
                                  " B, the file's Content-Range " + std::to_string(size) + " B");
    GgufRead r = fetch_gguf_header(hub, hub.url(commit, file), file, size);
    GgufHeader h = r.header;
    fetched.emplace_back(file, std::move(r));
    return h;
  };
  GgufHeader h = read_header(choice.file);
  std::uint64_t shards = 1;
  const std::string split_id = merge_split_gguf(
      choice.file, h, kMaxHubShards, [&](const std::string& shard, std::uint64_t, std::uint64_t n) {
        shards = n;
        hub.shards_total = n;
        ++hub.shards_done;
        if (std::find(paths.begin(), paths.end(), shard) == paths.end())
          throw HubError("model", "'" + hub.repo + "' " + choice.file + " is split in " + std::to_string(n) +
                                      " shards, but the repo's listing has no " + shard);
        return read_header(shard);
      });
  const std::string name =
      choice.file.substr(choice.file.rfind('/') == std::string::npos ? 0 : choice.file.rfind('/') + 1);
  ModelSpec m = model_from_gguf(h, name);
  m.id = hub.repo + ":" + std::string(tag);
  if (m.name.empty()) m.name = m.id;
  if (online)
    from = fetched.empty() ? "from kvplan's cache, " + rev + " checked on the Hub"
                           : "from the Hugging Face Hub " + redact_userinfo(hub.endpoint) + ", now cached";
  m.source = hub.repo + ":" + std::string(tag) + "@" + rev + " " + choice.file +
             (shards > 1 ? " (" + std::to_string(shards) + " shards)" : std::string()) + " " + from +
             ", commit " + commit;
  (void)split_id;

  // Written only now, everything read: the headers, the listing, then the ref. A write that fails (a full
  // disk, a name too long for the file system) takes back those before it: no header is left without
  // the ref that leads to it.
  if (online) {
    std::vector<fs::path> written;
    const auto write = [&](const fs::path& p, std::string_view data) {
      write_atomic(p, data);
      written.push_back(p);
    };
    try {
      for (const auto& [file, r] : fetched)
        write(root / commit / (file + ".header"),
              "kvplan-gguf-header 1 " + std::to_string(r.size) + "\n" + r.bytes);
      json list = json::array();
      for (const auto& p : paths) list.push_back(p);
      write(root / commit / "files.json", json{{"files", list}}.dump());
      if (rev != commit) write(root / "refs" / rev, commit);
    } catch (const Error&) {
      for (const auto& p : written) fs::remove(p, ec);
      throw;
    }
  }
  m.source = without_secrets(std::move(m.source));  // the Hub's words, when it did not answer
  for (auto& w : m.warnings) w = without_secrets(std::move(w));
  return m;
}
}  // namespace

ModelSpec load_hf_gguf(std::string_view repo, std::string_view tag, std::string_view revision) {
  return secrets_masked([&] { return load_gguf(repo, tag, revision); });
}

}  // namespace kvplan::presets
