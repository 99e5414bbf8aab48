#pragma once
/// @file hub_fetch.hpp
/// Hugging Face repo ids from the Hub, through libcurl: config.json, model.safetensors.index.json and each
/// shard's safetensors header (HTTP Range requests, never the tensors), written into the local Hub cache
/// in huggingface_hub's layout (file_download.py hf_hub_download: blobs/<etag>, snapshots/<commit>/<file>
/// a relative symlink to the blob, refs/<revision> holding the commit), so that Python tools and kvplan
/// share it. Shard headers, which huggingface_hub has no place for (a partial shard in a snapshot would be
/// taken for the whole file), go to kvplan's own cache (kvplan_cache_dir()).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/model.hpp"
#include "kvplan/safetensors.hpp"

namespace kvplan::presets {

/// An error of the Hub or its cache, not of the model's files: the Hub not reached, a timeout, an HTTP
/// error, a response that is not what a Hub sends, a cache miss while offline. find_model then falls back
/// to the preset of that repo, when there is one.
class HubError : public Error {
 public:
  using Error::Error;
};

/// A HubError for a file the repo lacks at the revision asked for (HTTP 404 with X-Error-Code
/// EntryNotFound), naming the file: find_model reads a repo without config.json as a GGUF repo.
class HubEntryNotFound : public HubError {
 public:
  HubEntryNotFound(std::string field, std::string reason, std::string file)
      : HubError(std::move(field), std::move(reason)), file_(std::move(file)) {}
  /// The file the repo lacks ("config.json").
  [[nodiscard]] const std::string& file() const noexcept { return file_; }

 private:
  std::string file_;
};

/// Whether HF_HUB_OFFLINE is set to 1, true, yes or on (any case): huggingface_hub constants.py _is_true.
bool hf_hub_offline();

/// The Hub's address: $HF_ENDPOINT without a trailing '/', default https://huggingface.co
/// (huggingface_hub constants.py ENDPOINT). It may hold a user name and password
/// (https://user:password@host): messages show it through redact_userinfo.
std::string hf_endpoint();

/// `url` with its userinfo (RFC 3986 3.2.1: "user:password@" before the host) replaced by "***@", for
/// messages: "https://u:secret@hub.example/x" -> "https://***@hub.example/x". Unchanged without one.
std::string redact_userinfo(std::string_view url);

/// Most shard headers one Hub fetch asks for (two requests each): the published checkpoints have a few
/// hundred shards at most (meta-llama/Llama-3.1-405B 191, deepseek-ai/DeepSeek-V3 163).
inline constexpr std::size_t kMaxHubShards = 1024;

/// The token for gated and private repos, and where it came from ("HF_TOKEN", or the file's path): $HF_TOKEN,
/// else the file $HF_TOKEN_PATH, else $HF_HOME/token, else ~/.cache/huggingface/token (huggingface_hub
/// constants.py HF_TOKEN_PATH, utils/_auth.py get_token), surrounding whitespace removed. Empty when none.
struct HubToken {
  std::string value;
  std::string source;
};
HubToken hf_token();

/// kvplan's own cache folder: $XDG_CACHE_HOME/kvplan (an absolute XDG_CACHE_HOME: a relative one is ignored,
/// as the XDG Base Directory specification says), else ~/.cache/kvplan (~: home_dir(), hf_hub.hpp).
std::filesystem::path kvplan_cache_dir();

/// Time limits of the HTTP requests to the Hub, in milliseconds: connect 10 s, whole request 60 s, and
/// the whole fetch (every request of one hf_fetch_model or load_hf_repo) 300 s; the environment variable
/// KVPLAN_HUB_TIMEOUT (seconds, a number in (0, 86400]) sets the request's limit and caps the connect one,
/// KVPLAN_HUB_DEADLINE (the same form) the whole fetch's. Throws kvplan::Error naming the variable on a
/// bad value.
struct HubTimeouts {
  long connect_ms = 10'000;
  long total_ms = 60'000;
  long deadline_ms = 300'000;
};
HubTimeouts hub_timeouts();

/// The shard header kvplan cached for `repo` at `commit`: kvplan_cache_dir() /
/// "safetensors-headers/models--ORG--NAME/<commit>/<shard>.json", holding {"file_size": N, "header": TEXT}.
/// nullopt when absent; throws kvplan::Error naming the file when it is malformed.
std::optional<ShardHeader> cached_shard_header(std::string_view repo, std::string_view commit,
                                               const std::string& shard);

/// One fetch's stop request, shared between the thread that fetches and the one that may cancel it:
/// store(true) stops the Hub requests made under a HubCancelScope holding this flag, and no other.
using HubCancelFlag = std::shared_ptr<std::atomic<bool>>;

/// While alive, the Hub requests this thread makes (hf_fetch_model, load_hf_repo, find_model's) check
/// `flag`: once it is set, a request under way stops and none starts; either throws
/// HubError("model", "... cancelled"). libcurl checks it in its progress callback
/// (CURLOPT_XFERINFOFUNCTION, given the flag as XFERINFODATA), about once a second at worst while it waits
/// for an answer. For a window closed during a fetch (the GUI's HubLoader), so it need not wait for
/// KVPLAN_HUB_TIMEOUT. Each fetch has its own flag: cancelling one does not stop a fetch started before
/// or after it on another thread. Scopes nest (the innermost counts); without one nothing cancels.
class HubCancelScope {
 public:
  explicit HubCancelScope(HubCancelFlag flag);
  ~HubCancelScope();
  HubCancelScope(const HubCancelScope&) = delete;
  HubCancelScope& operator=(const HubCancelScope&) = delete;

 private:
  HubCancelFlag previous_;
};

/// Fetches `repo` (ORG/NAME) at `revision` (empty: main) from hf_endpoint() with hf_token(), and writes
/// it into the Hub cache: config.json, the commit from the X-Repo-Commit header, then
/// model.safetensors.index.json and each shard's header (or model.safetensors's header alone; neither:
/// no exact weights). Everything is fetched and checked in memory first, then written through temporary
/// files and renames, refs/<revision> last: a failure leaves no partial file and no ref to a partial
/// snapshot. Returns the snapshot folder. Throws kvplan::Error("model", ...), one line each: gated or
/// private (HTTP 401/403: names HF_TOKEN and the repo's page), 404 (no such repo, revision or file), the
/// Hub not reached (names the cache folder searched), a timeout (names KVPLAN_HUB_TIMEOUT), the whole
/// fetch past its deadline (names KVPLAN_HUB_DEADLINE and the shard headers fetched so far), an index
/// naming more than kMaxHubShards shards (before any is fetched), a shard header whose cache entry would be
/// over kMaxJsonBytes (the cache could not read it back; before anything is written), a truncated
/// response, a response that is not JSON, an endpoint that is not a Hub (no X-Repo-Commit header), a
/// server that ignores Range requests; Error("--revision", ...) for a revision that cannot be a name.
/// No message prints HF_ENDPOINT's password (redact_userinfo).
std::filesystem::path hf_fetch_model(std::string_view repo, std::string_view revision);

/// A Hugging Face repo id as MODEL: its config.json from the Hub cache (hf_cached_config), else, unless
/// hf_hub_offline(), fetched by hf_fetch_model. Weights come from the snapshot's safetensors headers
/// (shards in the snapshot, else the headers kvplan cached); a cached snapshot without them (config.json
/// alone) has the index and headers fetched when online, and cached; else the architecture estimate, with
/// a warning saying why when the snapshot has an index whose headers are not at hand. Throws HubError
/// ("model", ...) on a cache miss while offline, naming the cache folder searched, and as hf_fetch_model
/// does.
ModelSpec load_hf_repo(std::string_view repo, std::string_view revision);

/// Most bytes of one GGUF file's header read over the Hub: real headers are a few MiB (the tokenizer: a
/// 262,144-token vocabulary with its scores, types and merges is about 12 MiB), the file itself up to
/// tens of GiB of tensors never read. The first Range request asks for kGgufFirstRange bytes, each next one
/// at least doubles what is held, up to the header's end.
inline constexpr std::uint64_t kMaxHubGgufHeader = std::uint64_t{64} << 20;
inline constexpr std::uint64_t kGgufFirstRange = std::uint64_t{1} << 20;

/// Which file of a GGUF repo's listing a quant tag names, as llama.cpp's -hf picks it (common/download.cpp
/// find_best_model, gguf_filename_is_model, get_gguf_split_info; ggml-org/llama.cpp, 2026): a model file ends
/// in ".gguf", its name holds none of "mmproj", "imatrix", "mtp-", "eagle3-", "dflash-" (the side files),
/// and of a split model only the first shard (-00001-of-0000N) counts; the tag matches a file whose path
/// holds TAG followed by '.' or '-', any case ("q4_k_m" picks "Model-Q4_K_M.gguf"). No tag: Q4_K_M, then
/// Q8_0, then the first model file listed (llama.cpp's defaults). A tag ending in ".gguf" names the file's
/// path exactly (as llama.cpp's --hf-file). Where llama.cpp takes the first of several matching models,
/// kvplan refuses the ambiguity. `tags` lists every model's tag (get_gguf_split_info: the text after the
/// last '-' or '.' of the name less its split tail, upper case), for messages.
struct GgufChoice {
  std::string file;
  std::vector<std::string> tags;
};

/// choose_gguf_file's rule over `files` (the repo's paths). `what` names the repo and revision in errors.
/// Throws HubError("model", ...), one line: no .gguf file at all (not a GGUF repo), side files only, a tag
/// matching no model or several (each listing the tags that exist).
GgufChoice choose_gguf_file(const std::vector<std::string>& files, std::string_view tag,
                            std::string_view what);

/// A GGUF repo by quant tag (`org/repo:TAG`, llama.cpp's -hf and gguf-parser's --hf-repo): the repo's file
/// listing ({endpoint}/api/models/{repo}/tree/{revision}?recursive=true, huggingface_hub list_repo_tree;
/// llama.cpp common/hf-cache.cpp get_repo_files), the file choose_gguf_file picks, and its GGUF header read
/// over HTTP Range requests (kGgufFirstRange bytes, then at least double each time until the tensor infos
/// are in, at most kMaxHubGgufHeader), never the tensors; for a split GGUF every shard's header
/// (merge_split_gguf, at most kMaxHubShards). The file's size comes from Content-Range. Then
/// model_from_gguf, the weights the tensors' bytes. The commit is X-Repo-Commit of the first file's answer.
/// Cached in kvplan_cache_dir() / "gguf-headers/models--ORG--NAME": refs/<revision> (the commit),
/// <commit>/files.json (the listing) and <commit>/<file>.header (the header bytes after a line
/// "kvplan-gguf-header 1 <file size>"), written only when all is read, refs last. HF_HUB_OFFLINE, or the
/// Hub not answering, reads the cache. The same requests, timeouts, deadline, token and errors as
/// hf_fetch_model; the source names the file chosen and the commit. Throws HubError("model", ...) as
/// hf_fetch_model and choose_gguf_file do, on a cache miss offline, a header past kMaxHubGgufHeader, a file
/// whose size changes between requests; kvplan::Error naming the file and key for a header
/// model_from_gguf or merge_split_gguf refuses; Error("--revision", ...) for a revision that cannot be a
/// name.
ModelSpec load_hf_gguf(std::string_view repo, std::string_view tag, std::string_view revision);

}  // namespace kvplan::presets
