// GGUF repos by quant tag (org/repo:TAG, hub_fetch.hpp load_hf_gguf): the file chosen as llama.cpp's -hf
// chooses it (common/download.cpp find_best_model), and the header read over Range requests from a Hub
// stand-in (hub_transport.hpp) that serves GGUF headers written by tests/gguf_writer.hpp, the tensor data
// zeros made up on demand. Expected figures are worked by hand beside them.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "env_scope.hpp"
#include "gguf_writer.hpp"
#include "kvplan/hub_fetch.hpp"
#include "kvplan/hub_transport.hpp"
#include "kvplan/presets.hpp"

using namespace kvplan;
using namespace kvplan::test;
namespace fs = std::filesystem;
using presets::testing::HubReply;
using presets::testing::HubRequest;

namespace {

using Env = EnvScope;

const std::string kCommit(40, 'a');

/// A Hub of one repo, org/gguf, at kCommit: the listing API and the files' bytes by Range (the header
/// written, then zeros up to the file's size), each request recorded.
struct FakeHub {
  struct File {
    std::string head;
    std::uint64_t size;
  };
  std::map<std::string, File> files;
  std::vector<std::string> other = {"README.md", ".gitattributes"};
  std::vector<HubRequest> requests;
  std::uint64_t served = 0;  ///< body bytes of every file answer
  bool down = false;

  void add(const std::string& path, const GgufWriter& w) { files[path] = {w.bytes(), w.file_size()}; }

  HubReply operator()(const HubRequest& q) {
    requests.push_back(q);
    HubReply r;
    if (down) {
      r.outcome = HubReply::Outcome::unreachable;
      return r;
    }
    const std::string base = "http://hub.test";
    // Any revision: the listing and the files are the same at each.
    const std::string api = base + "/api/models/org/gguf/tree/";
    if (q.url.rfind(api, 0) == 0 && q.url.ends_with("?recursive=true")) {
      std::string list = "[";
      for (const auto& [path, f] : files)
        list += "{\"type\":\"file\",\"path\":\"" + path + "\",\"size\":" + std::to_string(f.size) +
                ",\"lfs\":{\"oid\":\"x\",\"size\":" + std::to_string(f.size) + "}},";
      for (const auto& path : other) list += "{\"type\":\"file\",\"path\":\"" + path + "\",\"size\":10},";
      list += "{\"type\":\"directory\",\"path\":\"BF16\"}]";
      r.status = 200;
      r.header_lines = {"HTTP/1.1 200 OK\r\n", "Content-Type: application/json\r\n"};
      r.body = list;
      return r;
    }
    const std::string resolve = base + "/org/gguf/resolve/";
    if (q.url.rfind(resolve, 0) == 0 && q.url.find('/', resolve.size()) != std::string::npos) {
      const std::string path = q.url.substr(q.url.find('/', resolve.size()) + 1);
      const auto f = files.find(path);
      if (f == files.end()) {
        r.status = 404;
        r.header_lines = {"HTTP/1.1 404 Not Found\r\n", "X-Error-Code: EntryNotFound\r\n"};
        return r;
      }
      const auto dash = q.range.find('-');
      REQUIRE(dash != std::string::npos);
      const std::uint64_t a = std::stoull(q.range.substr(0, dash));
      const std::uint64_t b =
          std::min<std::uint64_t>(std::stoull(q.range.substr(dash + 1)), f->second.size - 1);
      std::string body = a < f->second.head.size() ? f->second.head.substr(a, b + 1 - a) : std::string();
      body.resize(b + 1 - a, '\0');
      served += body.size();
      r.status = 206;
      r.header_lines = {"HTTP/1.1 302 Found\r\n", "X-Repo-Commit: " + kCommit + "\r\n",
                        "HTTP/1.1 206 Partial Content\r\n",
                        "Content-Range: bytes " + std::to_string(a) + "-" + std::to_string(b) + "/" +
                            std::to_string(f->second.size) + "\r\n"};
      r.body = std::move(body);
      return r;
    }
    r.status = 404;
    r.header_lines = {"HTTP/1.1 404 Not Found\r\n", "X-Error-Code: RepoNotFound\r\n"};
    return r;
  }
};

/// The stand-in installed, and fresh caches, for one test.
class HubScope {
 public:
  explicit HubScope(FakeHub& hub)
      : dir_(fs::temp_directory_path() / ("kvplan-hub-gguf-" + std::to_string(::getpid()))),
        endpoint_("HF_ENDPOINT", "http://hub.test"),
        offline_("HF_HUB_OFFLINE", nullptr),
        token_("HF_TOKEN", nullptr),
        xdg_("XDG_CACHE_HOME", (dir_ / "xdg").c_str()),
        hub_cache_("HF_HUB_CACHE", (dir_ / "hub").c_str()) {
    fs::remove_all(dir_);
    presets::testing::set_hub_transport([&hub](const HubRequest& q) { return hub(q); });
  }
  ~HubScope() {
    presets::testing::set_hub_transport({});
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  HubScope(const HubScope&) = delete;
  HubScope& operator=(const HubScope&) = delete;
  [[nodiscard]] fs::path cache() const {
    return dir_ / "xdg" / "kvplan" / "gguf-headers" / "models--org--gguf";
  }
  [[nodiscard]] std::vector<std::string> files() const {
    std::vector<std::string> out;
    std::error_code ec;
    if (fs::exists(dir_))
      for (const auto& e : fs::recursive_directory_iterator(dir_))
        if (!e.is_directory()) out.push_back(fs::relative(e.path(), dir_).string());
    return out;
  }

 private:
  fs::path dir_;
  Env endpoint_, offline_, token_, xdg_, hub_cache_;
};

/// A tiny llama: 2 blocks, 64 wide, 4 heads of 16 (2 KV heads), MLP 128, 256 tokens, F32 throughout.
GgufWriter tiny_metadata() {
  GgufWriter w;
  w.kv_str("general.architecture", "llama")
      .kv_u32("llama.block_count", 2)
      .kv_u32("llama.context_length", 4096)
      .kv_u32("llama.embedding_length", 64)
      .kv_u32("llama.feed_forward_length", 128)
      .kv_u32("llama.attention.head_count", 4)
      .kv_u32("llama.attention.head_count_kv", 2)
      .tokens(256);
  return w;
}

void tiny_block(GgufWriter& w, int il) {
  const std::string b = "blk." + std::to_string(il) + ".";
  w.tensor(b + "attn_q.weight", {64, 64}, F32)
      .tensor(b + "attn_k.weight", {64, 32}, F32)
      .tensor(b + "attn_v.weight", {64, 32}, F32)
      .tensor(b + "attn_output.weight", {64, 64}, F32)
      .tensor(b + "ffn_gate.weight", {64, 128}, F32)
      .tensor(b + "ffn_up.weight", {64, 128}, F32)
      .tensor(b + "ffn_down.weight", {128, 64}, F32);
}

}  // namespace

TEST_CASE("GGUF repo by tag: the file chosen as llama.cpp's find_best_model chooses it", "[hub][gguf]") {
  // bartowski-style names: quant tag after the last '-', a split BF16 in a folder, a projector beside.
  const std::vector<std::string> files = {"README.md",
                                          "Model-Q8_0.gguf",
                                          "Model-Q4_K_M.gguf",
                                          "Model-Q4_K_S.gguf",
                                          "mmproj-Model-f16.gguf",
                                          "Model-F16.gguf",
                                          "Model-BF16.gguf",
                                          "Q6/Model-Q6_K-00001-of-00002.gguf",
                                          "Q6/Model-Q6_K-00002-of-00002.gguf"};
  const std::string what = "'org/m' at revision 'main'";
  CHECK(presets::choose_gguf_file(files, "q4_k_m", what).file == "Model-Q4_K_M.gguf");  // any case
  CHECK(presets::choose_gguf_file(files, "Q6_K", what).file == "Q6/Model-Q6_K-00001-of-00002.gguf");
  CHECK(presets::choose_gguf_file(files, "", what).file == "Model-Q4_K_M.gguf");  // the default, Q4_K_M
  // "F16" is in "Model-BF16.gguf" too (llama.cpp's pattern "F16[.-]"); the file whose tag is F16 wins.
  CHECK(presets::choose_gguf_file(files, "F16", what).file == "Model-F16.gguf");
  CHECK(presets::choose_gguf_file(files, "Model-Q8_0.gguf", what).file == "Model-Q8_0.gguf");
  // The tags: every model file's and each split model's once; the projector is no model.
  CHECK(presets::choose_gguf_file(files, "", what).tags ==
        std::vector<std::string>{"BF16", "F16", "Q4_K_M", "Q4_K_S", "Q6_K", "Q8_0"});
  // "Q4_K" is followed by '_' in both Q4_K files: no match, and the message lists the tags.
  CHECK_THROWS_WITH(presets::choose_gguf_file(files, "Q4_K", what),
                    "model: 'org/m' at revision 'main' has no GGUF file for tag 'Q4_K' (its tags: BF16, F16, "
                    "Q4_K_M, Q4_K_S, Q6_K, Q8_0)");
  // No Q4_K_M and no Q8_0: llama.cpp takes the first model listed.
  CHECK(presets::choose_gguf_file({"x-IQ2_M.gguf", "x-Q2_K.gguf"}, "", what).file == "x-IQ2_M.gguf");
  // Two models for one tag, neither the exact one: refused, where llama.cpp takes the first listed.
  CHECK_THROWS_WITH(
      presets::choose_gguf_file({"a/m-Q4_K_M.gguf", "b/m-Q4_K_M.gguf"}, "Q4_K_M", what),
      Catch::Matchers::Contains("tag 'Q4_K_M' matches 2 models (a/m-Q4_K_M.gguf, b/m-Q4_K_M.gguf)"));
  CHECK_THROWS_WITH(presets::choose_gguf_file({"config.json", "model.safetensors"}, "Q4_K_M", what),
                    Catch::Matchers::Contains("has no .gguf file (2 files listed): not a GGUF repo"));
  CHECK_THROWS_WITH(presets::choose_gguf_file({"mmproj-m-f16.gguf"}, "F16", what),
                    Catch::Matchers::Contains("has only side files"));
}

TEST_CASE("GGUF repo by tag: the header read by Range past the first request, cached, read offline",
          "[hub][gguf]") {
  FakeHub hub;
  hub.add("Llama-3.1-8B-Q4_K_M.gguf", llama31_8b());
  hub.add("Llama-3.1-8B-Q8_0.gguf", tiny_metadata());  // listed, never read
  HubScope scope(hub);
  // 128,256 one-byte tokens are 128,256 x 9 = 1,154,304 B of the header: past the first 1 MiB request.
  REQUIRE(llama31_8b().bytes().size() > presets::kGgufFirstRange);
  const ModelSpec m = presets::find_model("org/gguf:Q4_K_M", "");
  // tests/test_gguf.cpp works Llama-3.1-8B's Q4_K_M-like mix by hand: 5,172,420,864 B.
  REQUIRE(m.weights_bytes);
  CHECK(m.weights_bytes->value == 5172420864ULL);
  CHECK(m.id == "org/gguf:Q4_K_M");
  CHECK(m.source ==
        "org/gguf:Q4_K_M@main Llama-3.1-8B-Q4_K_M.gguf from the Hugging Face Hub http://hub.test, "
        "now cached, commit " +
            kCommit);
  // The listing, a probe of 8 bytes, the first 1 MiB, then up to 2 MiB: 8 + 2 MiB served, never the
  // tensors (4.8 GiB).
  REQUIRE(hub.requests.size() == 4);
  CHECK(hub.requests[1].range == "0-7");
  CHECK(hub.requests[2].range == "0-1048575");
  CHECK(hub.requests[3].range == "1048576-2097151");
  CHECK(hub.served == 8 + (2U << 20));
  // The cache: the ref, the listing, the header bytes (its tensor infos' end, less than 2 MiB).
  CHECK(fs::is_regular_file(scope.cache() / "refs" / "main"));
  CHECK(fs::is_regular_file(scope.cache() / kCommit / "files.json"));
  CHECK(fs::file_size(scope.cache() / kCommit / "Llama-3.1-8B-Q4_K_M.gguf.header") < (2U << 20));

  SECTION("offline: from the cache, no request") {
    const Env offline("HF_HUB_OFFLINE", "1");
    hub.requests.clear();
    const ModelSpec again = presets::find_model("org/gguf:q4_k_m", "");
    CHECK(hub.requests.empty());
    CHECK(again.weights_bytes->value == 5172420864ULL);
    CHECK(again.source ==
          "org/gguf:q4_k_m@main Llama-3.1-8B-Q4_K_M.gguf from kvplan's cache, commit " + kCommit);
  }
  SECTION("online again: checked on the Hub, the header from the cache") {
    hub.requests.clear();
    const ModelSpec again = presets::find_model("org/gguf:Q4_K_M", "");
    CHECK(hub.requests.size() == 2);  // the listing and the probe
    CHECK(again.source ==
          "org/gguf:Q4_K_M@main Llama-3.1-8B-Q4_K_M.gguf from kvplan's cache, main checked on the Hub, "
          "commit " +
              kCommit);
  }
  SECTION("the Hub down: the cache answers") {
    hub.down = true;
    const ModelSpec again = presets::find_model("org/gguf:Q4_K_M", "");
    CHECK(again.weights_bytes->value == 5172420864ULL);
    CHECK_THAT(again.source,
               Catch::Matchers::Contains("from kvplan's cache (the Hub did not answer: cannot reach"));
  }
}

TEST_CASE("GGUF repo by tag: a split GGUF, every shard's header", "[hub][gguf]") {
  // Shard 1: the metadata, the embeddings and block 0; shard 2: block 1 and the output.
  GgufWriter first = tiny_metadata();
  first.kv_u32("split.count", 2)
      .kv_raw("split.no", 2, std::string("\0\0", 2))
      .kv_u32("split.tensors.count", 16);
  first.tensor("token_embd.weight", {64, 256}, F32);
  tiny_block(first, 0);
  GgufWriter second;
  second.kv_u32("split.count", 2).kv_raw("split.no", 2, std::string("\1\0", 2));
  tiny_block(second, 1);
  second.tensor("output.weight", {64, 256}, F32);
  FakeHub hub;
  hub.add("F32/tiny-F32-00001-of-00002.gguf", first);
  hub.add("F32/tiny-F32-00002-of-00002.gguf", second);
  HubScope scope(hub);
  const ModelSpec m = presets::find_model("org/gguf:f32", "");
  // Per block: q 64x64 + k 64x32 + v 64x32 + o 64x64 + gate, up, down 3 x 64x128 = 4,096 + 2,048 + 2,048 +
  // 4,096 + 24,576 = 36,864 values; 2 blocks 73,728; embeddings and output 2 x 64 x 256 = 32,768; 106,496
  // values x 4 B (F32) = 425,984 B. Each tensor is a multiple of 32 B, so the padding adds nothing.
  REQUIRE(m.weights_bytes);
  CHECK(m.weights_bytes->value == 425984);
  CHECK_THAT(m.source,
             Catch::Matchers::Contains("F32/tiny-F32-00001-of-00002.gguf (2 shards) from the Hugging"));
  CHECK(fs::is_regular_file(scope.cache() / kCommit / "F32" / "tiny-F32-00002-of-00002.gguf.header"));
}

TEST_CASE("GGUF repo by tag: refusals leave nothing in the cache", "[hub][gguf]") {
  FakeHub hub;
  GgufWriter tiny = tiny_metadata();
  tiny.tensor("token_embd.weight", {64, 256}, F32);
  tiny_block(tiny, 0);
  tiny_block(tiny, 1);
  hub.add("tiny-Q8_0.gguf", tiny);
  HubScope scope(hub);
  SECTION("a tag with no file: the tags listed") {
    CHECK_THROWS_WITH(
        presets::find_model("org/gguf:Q4_K_M", ""),
        "model: 'org/gguf' at revision 'main' has no GGUF file for tag 'Q4_K_M' (its tags: Q8_0)");
  }
  SECTION("a split model whose other shard is not in the listing") {
    GgufWriter first = tiny_metadata();
    first.kv_u32("split.count", 3).kv_raw("split.no", 2, std::string("\0\0", 2));
    hub.add("s-Q2_K-00001-of-00003.gguf", first);
    CHECK_THROWS_WITH(presets::find_model("org/gguf:Q2_K", ""),
                      Catch::Matchers::Contains("is split in 3 shards, but the repo's listing has no "
                                                "s-Q2_K-00002-of-00003.gguf"));
  }
  SECTION("a hostile header: 2^32 empty strings claimed in a 1 TiB file, refused at the cap") {
    // Each empty string is its 8-byte length: the header would be 32 GiB. The stand-in serves zeros past
    // the written bytes, so every request is answered; kvplan stops at kMaxHubGgufHeader (64 MiB).
    GgufWriter w;
    w.kv_str("general.architecture", "llama");
    std::string arr;
    arr += std::string("\x08\0\0\0", 4);          // element type: string
    arr += std::string("\0\0\0\0\x01\0\0\0", 8);  // count 2^32
    w.kv_raw("tokenizer.ggml.tokens", 9, arr);
    hub.files["h-Q4_0.gguf"] = {w.bytes(), std::uint64_t{1} << 40};
    const std::uint64_t before = hub.served;
    CHECK_THROWS_WITH(
        presets::find_model("org/gguf:Q4_0", ""),
        Catch::Matchers::Contains("h-Q4_0.gguf: the GGUF header runs past the 64 MiB kvplan reads") &&
            Catch::Matchers::Contains("(the limit"));
    // The probe's 8 bytes, then 1, 2, 4 ... 64 MiB held: 64 MiB served at most.
    CHECK(hub.served - before <= 8 + presets::kMaxHubGgufHeader);
  }
  SECTION("offline and not cached") {
    const Env offline("HF_HUB_OFFLINE", "1");
    CHECK_THROWS_WITH(
        presets::find_model("org/gguf:Q8_0", ""),
        Catch::Matchers::StartsWith("model: 'org/gguf' at revision 'main' is not in kvplan's cache") &&
            Catch::Matchers::Contains("HF_HUB_OFFLINE is set"));
    CHECK(hub.requests.empty());
  }
  SECTION("a ref that cannot be written: the headers and listing written before it are taken back") {
    // A 250-character branch: refs/<branch> is a legal name, but its temporary name beside it is over the
    // 255 bytes a file name may have, so the ref, written last, fails.
    const std::string branch(250, 'b');
    CHECK_THROWS_WITH(presets::find_model("org/gguf:Q8_0", branch),
                      Catch::Matchers::Contains("cannot write"));
    CHECK(hub.requests.size() == 3);  // the listing, the probe, the header: all read before the writes
  }
  SECTION("no such repo") {
    CHECK_THROWS_WITH(presets::find_model("org/none:Q8_0", ""),
                      Catch::Matchers::Contains("no repo 'org/none'"));
  }
  CHECK(scope.files().empty());
}
