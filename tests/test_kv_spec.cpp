// The per-layer KV specs (kvplan/kv_spec.hpp), each figure worked out by hand from the formulas cited in
// the header (vllm/v1/kv_cache_interface.py, vLLM's mamba_utils.py, the DeepSeek-V2 paper), and one pool
// per engine: the figures each engine's report prints agree with the policy's own answers, for every
// engine option on every engine it applies to.
#include <catch2/catch.hpp>

#include <cctype>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/engine.hpp"
#include "kvplan/error.hpp"
#include "kvplan/kv_spec.hpp"
#include "kvplan/options.hpp"
#include "kvplan/presets.hpp"
#include "test_support.hpp"

using namespace kvplan;

TEST_CASE("kv spec: Llama-3.1-8B's full layers, 131,072 B per token", "[kv_spec]") {
  const ModelSpec m = presets::find_model("llama-3.1-8b");
  const auto specs = kv_specs(m, KvDtypes{}, 1);
  REQUIRE(specs.size() == 1);
  const LayerKv& kv = specs[0].kv;
  CHECK(specs[0].count == 32);
  CHECK(kv.attention.kind == KvKind::full);
  CHECK(kv.kind == KvKind::full);
  // 8 KV heads x 128 = 1,024 values of K and of V, 2 B each: 4,096 B a layer; x 32 = 131,072 B.
  CHECK(kv.attention.k_values == 1024);
  CHECK(kv.attention.v_values == 1024);
  CHECK(kv.bytes_per_token().value == 4096);
  CHECK(kv.bytes_per_token().value * specs[0].count == 131072);
  CHECK(kv.indexer.kind == KvKind::none);
  CHECK(kv.conv.kind == KvKind::none);
  CHECK(kv.ssm.kind == KvKind::none);
  // A page of 16 tokens: 65,536 B; a request of 8,192 tokens: 32 MiB a layer, in 512 pages.
  CHECK(kv.attention.page_size_bytes(16).value == 65536);
  CHECK(kv.attention.max_memory_bytes(Tokens{8192}).value == 33554432);
  CHECK(kv.attention.max_pages(8192, 16, 8192) == 512);
  CHECK(kv.attention.max_pages(8193, 16, 8192) == 513);
  CHECK(kv.attention.grows());
  CHECK_FALSE(kv.attention.windowed());
  // tp 2: 4 heads a rank, 2,048 B; tp 16 (more ranks than KV heads): one head a rank, 512 B.
  CHECK(layer_kv(m.layers[0].attention, KvDtypes{}, 2).bytes_per_token().value == 2048);
  CHECK(layer_kv(m.layers[0].attention, KvDtypes{}, 16).bytes_per_token().value == 512);
  CHECK(layer_kv(m.layers[0].attention, KvDtypes{}, 16).n_embd_k_gqa == 128);
  // fp8 K and V: 1 B a value, 2,048 B a layer.
  CHECK(layer_kv(m.layers[0].attention, KvDtypes{DType::fp8_e4m3, DType::fp8_e4m3}, 1)
            .bytes_per_token()
            .value == 2048);
}

TEST_CASE("kv spec: a sliding layer holds its window; vLLM's pages add the batch and one page", "[kv_spec]") {
  // 4 KV heads x 64 x 2 (K, V) x 2 B = 1,024 B a token, window 4,096.
  const LayerKv kv = layer_kv(test::gqa(8, 4, 64, AttentionKind::sliding, 4096), KvDtypes{}, 1);
  CHECK(kv.attention.kind == KvKind::sliding);
  CHECK(kv.is_swa());
  CHECK(kv.window == 4096);
  CHECK(kv.attention.windowed());
  CHECK_FALSE(kv.attention.grows());
  CHECK(kv.bytes_per_token().value == 1024);
  // L = 10,000 > W: 4,096 tokens, 4 MiB; L = 1,000 < W: 1,000 tokens.
  CHECK(kv.attention.cached_tokens(Tokens{10000}).value == 4096);
  CHECK(kv.attention.max_memory_bytes(Tokens{10000}).value == 4194304);
  CHECK(kv.attention.max_memory_bytes(Tokens{1000}).value == 1024000);
  CHECK(kv.max_memory_bytes(Tokens{10000}).value == 4194304);
  // SlidingWindowSpec.max_memory_usage_bytes: cdiv(min(W - 1 + T, L), bs) + 1 pages, T = 8,192, bs = 16.
  // L = 100,000: min(12,287, 100,000) = 12,287 -> 768 + 1 = 769. L = 5,000: 313 + 1 = 314.
  CHECK(kv.attention.max_pages(100000, 16, 8192) == 769);
  CHECK(kv.attention.max_pages(5000, 16, 8192) == 314);
  // T = 2,048: min(6,143, 100,000) -> 384 + 1 = 385.
  CHECK(kv.attention.max_pages(100000, 16, 2048) == 385);
}

TEST_CASE("kv spec: a chunked layer holds its chunk; vLLM's pages add the batch", "[kv_spec]") {
  // Llama 4 Scout's local layers: 8 KV heads x 128 x 2 x 2 B = 4,096 B a token, chunk 8,192.
  const LayerKv kv = layer_kv(test::gqa(40, 8, 128, AttentionKind::chunked, 8192), KvDtypes{}, 1);
  CHECK(kv.attention.kind == KvKind::chunked);
  CHECK(kv.bytes_per_token().value == 4096);
  CHECK(kv.cached_tokens(Tokens{100000}).value == 8192);
  // ChunkedLocalAttentionSpec: cdiv(min(C + T, L), bs): min(16,384, 100,000) / 16 = 1,024; L = 1,000: 63.
  CHECK(kv.attention.max_pages(100000, 16, 8192) == 1024);
  CHECK(kv.attention.max_pages(1000, 16, 8192) == 63);
}

TEST_CASE("kv spec: MLA's latent is not split by tp; the indexer sits beside it", "[kv_spec]") {
  // DeepSeek-V3: kv_lora_rank 512 + qk_rope_head_dim 64 = 576 values, 1,152 B at bf16, K only.
  AttentionLayer a = test::mla(128, 512, 64);
  for (const std::uint64_t tp : {1, 8}) {
    const LayerKv kv = layer_kv(a, KvDtypes{}, tp);
    CHECK(kv.attention.kind == KvKind::mla);
    CHECK(kv.is_mla());
    CHECK(kv.attention.k_values == 576);
    CHECK(kv.attention.v_values == 0);
    CHECK(kv.attention.k_bytes.value == 1152);
    CHECK(kv.attention.v_bytes.value == 0);
    CHECK(kv.bytes_per_token().value == 1152);
  }
  // A page of 64 tokens (FlashMLA): 73,728 B.
  CHECK(layer_kv(a, KvDtypes{}, 1).attention.page_size_bytes(64).value == 73728);
  // DeepSeek-V3.2's indexer: index_head_dim 128 fp8 values + one fp32 scale per 128 = 132 B a token.
  a.indexer_head_dim = 128;
  const LayerKv kv = layer_kv(a, KvDtypes{}, 1);
  CHECK(kv.indexer.kind == KvKind::indexer);
  CHECK(kv.indexer.bytes_per_token().value == 132);
  CHECK(kv.indexer.grows());
  CHECK(kv.bytes_per_token().value == 1152 + 132);
  CHECK(kv.max_memory_bytes(Tokens{1000}).value == 1284000);
}

TEST_CASE("kv spec: a Mamba2 layer's conv and SSM states are fixed per request", "[kv_spec]") {
  AttentionLayer a;
  a.kind = AttentionKind::recurrent;
  a.recurrent.kind = RecurrentSpec::Kind::mamba2;
  a.recurrent.d_inner = 4096;
  a.recurrent.n_heads = 64;
  a.recurrent.head_dim = 64;
  a.recurrent.n_groups = 8;
  a.recurrent.d_state = 128;
  a.recurrent.d_conv = 4;
  a.recurrent.ssm_dtype = DType::fp32;
  const LayerKv kv = layer_kv(a, KvDtypes{}, 1);
  CHECK(kv.recurrent);
  CHECK_FALSE(kv.attends());
  CHECK(kv.attention.kind == KvKind::none);
  CHECK(kv.bytes_per_token().value == 0);
  // conv: (d_inner + 2 x n_groups x d_state) x (d_conv - 1) = (4,096 + 2,048) x 3 = 18,432 values, bf16.
  CHECK(kv.conv.kind == KvKind::conv_state);
  CHECK(kv.conv.values == 18432);
  CHECK(kv.conv.state.value == 36864);
  // ssm: n_heads x head_dim x d_state = 64 x 64 x 128 = 524,288 values, fp32.
  CHECK(kv.ssm.kind == KvKind::recurrent_state);
  CHECK(kv.ssm.values == 524288);
  CHECK(kv.ssm.state.value == 2097152);
  CHECK(kv.state_bytes().value == 36864 + 2097152);
  // The same whatever the length: one page (MambaSpec), the state's bytes.
  CHECK(kv.ssm.max_pages(1, 16, 8192) == 1);
  CHECK(kv.ssm.max_pages(1000000, 16, 8192) == 1);
  CHECK(kv.ssm.page_size_bytes(16).value == 2097152);
  CHECK(kv.ssm.max_memory_bytes(Tokens{1000000}).value == 2097152);
  CHECK(kv.max_memory_bytes(Tokens{1000000}).value == 36864 + 2097152);
  CHECK(kv.cached_tokens(Tokens{1000}).value == 0);
  // tp 2: groups 8 / 2 = 4: conv (2,048 + 1,024) x 3 = 9,216; ssm 32 x 64 x 128 = 262,144.
  const LayerKv half = layer_kv(a, KvDtypes{}, 2);
  CHECK(half.conv.values == 9216);
  CHECK(half.ssm.values == 262144);
  // --mamba-ssm-cache-dtype float16 halves the SSM part only.
  KvDtypes t;
  t.ssm_state = DType::fp16;
  CHECK(layer_kv(a, t, 1).ssm.state.value == 1048576);
  CHECK(layer_kv(a, t, 1).conv.state.value == 36864);
  // A lightning layer has no conv part: its conv spec is none.
  AttentionLayer l;
  l.kind = AttentionKind::recurrent;
  l.recurrent.kind = RecurrentSpec::Kind::lightning;
  l.recurrent.num_key_heads = 64;
  l.recurrent.key_head_dim = 96;
  const LayerKv lk = layer_kv(l, KvDtypes{}, 1);
  CHECK(lk.conv.kind == KvKind::none);
  // 64 x 96 x 96 = 589,824 values x 2 B.
  CHECK(lk.ssm.state.value == 1179648);
}

TEST_CASE("kv spec: no cache for an MLP-only block or a layer that shares another's K/V", "[kv_spec]") {
  AttentionLayer mlp;
  mlp.kind = AttentionKind::mlp_only;
  const LayerKv none = layer_kv(mlp, KvDtypes{}, 1);
  CHECK(none.kind == KvKind::none);
  CHECK_FALSE(none.attends());
  CHECK(none.attention.kind == KvKind::none);
  CHECK(none.attention.max_pages(1000, 16, 8192) == 0);
  CHECK(none.max_memory_bytes(Tokens{1000}).value == 0);
  // gemma-3n's shared sliding layer: a sliding layer of window 512 to llama.cpp's is_swa, caching nothing.
  AttentionLayer s = test::gqa(8, 2, 256, AttentionKind::sliding, 512);
  s.kv_shared = true;
  const LayerKv shared = layer_kv(s, KvDtypes{}, 1);
  CHECK(shared.shared);
  CHECK(shared.is_swa());
  CHECK(shared.window == 512);
  CHECK(shared.attends());
  CHECK(shared.attention.kind == KvKind::none);
  CHECK(shared.bytes_per_token().value == 0);
  CHECK(shared.n_embd_v_gqa == 512);  // 2 heads x 256, the layer's own geometry
  CHECK(name(KvKind::recurrent_state) == "recurrent_state");
  CHECK(name(KvKind::conv_state) == "conv_state");
  CHECK(name(KvKind::none) == "none");
}

namespace {

/// The number at the start of `s` (digits, commas and one decimal point), as a double.
double number_at(const std::string& s, std::size_t at) {
  std::string digits;
  for (std::size_t i = at; i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == ',' ||
                                            s[i] == '.' || (s[i] == ' ' && digits.empty()));
       ++i)
    if (s[i] != ',' && s[i] != ' ') digits += s[i];
  if (!digits.empty() && digits.back() == '.') digits.pop_back();
  REQUIRE_FALSE(digits.empty());
  return std::stod(digits);
}

/// The number printed after `key` in the first line holding it; nullopt when no line holds it.
std::optional<double> printed(const EngineResult& r, const std::string& key) {
  for (const auto& l : r.log_lines) {
    const auto at = l.find(key);
    if (at != std::string::npos) return number_at(l, at + key.size());
  }
  return std::nullopt;
}

/// Every line holding `key`.
std::vector<std::string> lines_with(const EngineResult& r, const std::string& key) {
  std::vector<std::string> out;
  for (const auto& l : r.log_lines)
    if (l.find(key) != std::string::npos) out.push_back(l);
  return out;
}

constexpr double kMiB = 1048576.0, kGiB = 1073741824.0;

/// The printed lines and the policy's answers agree: one pool read by the log, capacity and max context.
void check_pool(const ModelSpec& m, const EngineOptions& o, std::uint64_t users, int* ran) {
  const KvDtypes t{};
  const Parallelism p{};
  const Tokens ctx{8192};
  const Bytes mem{20ULL << 30};
  std::unique_ptr<EnginePolicy> policy;
  EngineResult r;
  try {
    policy = make_policy(m, t, p, o);
    r = policy->report(ctx, users, mem);
  } catch (const Error&) {
    return;  // the engine refuses this model with this option (said by its own tests)
  }
  ++*ran;
  INFO(m.id << " engine " << name(o.engine) << " version '" << o.version << "' users " << users);
  std::string lines;
  for (const auto& l : r.log_lines) lines += l + "\n";
  INFO(lines);
  const std::uint64_t n = o.engine == Engine::llamacpp ? users : 1;
  const auto longest = policy->max_context(n, mem);
  if (r.max_context) {
    REQUIRE(longest);
    CHECK(*r.max_context == longest->value);
  } else {
    CHECK(r.max_context_unbounded);
    CHECK_FALSE(longest);
  }
  if (r.max_requests) CHECK(*r.max_requests == policy->max_requests(ctx, mem));
  const std::uint64_t most = policy->max_requests(ctx, mem);
  switch (o.engine) {
    case Engine::vllm: {
      if (o.version == "v0") {
        const auto blocks = printed(r, "# GPU blocks: ");
        REQUIRE(blocks);
        CHECK(static_cast<std::uint64_t>(*blocks) == *r.num_blocks);
        CHECK(*r.kv_cache_tokens == *r.num_blocks * r.block_size);
        CHECK(*r.max_context == *r.kv_cache_tokens);
      } else {
        const auto tokens = printed(r, "GPU KV cache size: ");
        REQUIRE(tokens);
        CHECK(static_cast<std::uint64_t>(*tokens) == *r.kv_cache_tokens);
        CHECK(*printed(r, "Available KV cache memory: ") == Approx(mem.value / kGiB).margin(0.005));
        if (r.bytes_per_token)  // one KV cache group: the tokens are the blocks' (v1 and later alike)
          CHECK(*r.kv_cache_tokens <= *r.num_blocks * r.block_size);
      }
      // Whole requests: the blocks over the pages of one request, as the printed concurrency says.
      const auto conc = printed(r, "tokens per request: ");
      REQUIRE(conc);
      CHECK(static_cast<double>(most) <= *conc + 0.005);
      CHECK(*conc < static_cast<double>(most) + 1.005);
      // The pool holds `most` requests and not one more.
      CHECK(policy->gpu_bytes(most, ctx)->value <= mem.value);
      CHECK(policy->gpu_bytes(most + 1, ctx)->value > mem.value);
      break;
    }
    case Engine::sglang: {
      const auto tokens = printed(r, "max_total_num_tokens=");
      REQUIRE(tokens);
      CHECK(static_cast<std::uint64_t>(*tokens) == *r.kv_cache_tokens);
      CHECK(*printed(r, "context_len=") == ctx.value);
      if (const auto full = printed(r, "full_layer_tokens=")) CHECK(*full == *tokens);
      if (const auto alloc = printed(r, "#tokens: ")) CHECK(*alloc == *tokens);
      const std::uint64_t page = r.block_size;
      CHECK(most == *r.kv_cache_tokens / page / ((ctx.value + page - 1) / page));
      break;
    }
    case Engine::trtllm: {
      CHECK(*printed(r, "Number of tokens per block: ") == r.block_size);
      const auto tokens = printed(r, "paged KV cache (");
      REQUIRE(tokens);
      CHECK(static_cast<std::uint64_t>(*tokens) == *r.kv_cache_tokens);
      CHECK(*r.kv_cache_tokens == *r.num_blocks * r.block_size);
      CHECK(*printed(r, "[MemUsageChange] Allocated ") ==
            Approx(static_cast<double>(r.bytes_per_token->value) * *tokens / kGiB).margin(0.005));
      CHECK(most == *r.num_blocks / ((ctx.value + r.block_size - 1) / r.block_size));
      break;
    }
    case Engine::llamacpp: {
      // Each cache's line: its size, cells and layers are the report's buffers; together with the
      // recurrent state they are what the policy says n_seq_max = users sequences take.
      const auto caches = lines_with(r, "llama_kv_cache: size = ");
      REQUIRE(caches.size() == r.caches.size());
      double printed_mib = 0;
      for (std::size_t i = 0; i < caches.size(); ++i) {
        const auto& c = r.caches[i];
        const double size = number_at(caches[i], caches[i].find("size = ") + 7);
        CHECK(size == Approx((c.k_bytes + c.v_bytes).value / kMiB).margin(0.005));
        CHECK(number_at(caches[i], caches[i].find('(') + 1) == c.cells);
        printed_mib += size;
      }
      if (const auto state = printed(r, "llama_memory_recurrent: size = ")) printed_mib += *state;
      CHECK(printed_mib == Approx(r.kv_bytes_total.value / kMiB).margin(0.02));
      CHECK(policy->gpu_bytes(users, ctx)->value == r.kv_bytes_total.value);
      if (const auto c = policy->gpu_bytes(most, ctx)) CHECK(c->value <= mem.value);
      break;
    }
    case Engine::ideal: {
      CHECK(r.log_lines.empty());
      const auto one = policy->gpu_bytes(1, ctx);
      REQUIRE(one);
      CHECK(one->value == r.kv_bytes_total.value / users);
      break;
    }
  }
}

/// A value away from the default for an option, valid for engine `e` (vLLM's --block-size choices,
/// ratios in (0, 1]).
EngineOptions with_option(EngineOptions o, const EngineOptionSpec& spec) {
  if (spec.kind == OptionKind::flag) {
    o.*std::get<bool EngineOptions::*>(spec.member) = true;
  } else if (spec.kind == OptionKind::ratio) {
    o.*std::get<double EngineOptions::*>(spec.member) = 0.5;
  } else {
    std::uint64_t v = 64;  // a block size every engine takes
    if (spec.key == "max_num_batched_tokens") v = 2048;
    if (spec.key == "max_num_seqs") v = 128;
    if (spec.key == "ubatch") v = 1024;
    if (spec.key == "n_rs_seq") v = 3;
    if (spec.key == "max_tokens") v = 100000;
    o.*std::get<std::uint64_t EngineOptions::*>(spec.member) = v;
  }
  return o;
}

}  // namespace

TEST_CASE("one pool per engine: the printed lines agree with the capacity, every option on every engine",
          "[kv_spec][engine]") {
  // Dense GQA, sliding-window hybrids (Gemma 3's 5:1, gpt-oss's 1:1), MLA, and two Mamba hybrids.
  const std::vector<ModelSpec> models = {
      presets::find_model("llama-3.1-8b"),   presets::find_model("gemma-3-12b"),
      presets::find_model("gpt-oss-20b"),    presets::find_model("deepseek-ai/DeepSeek-V2-Lite-Chat"),
      presets::find_model("jamba-1.5-mini"), presets::find_model("granite-4.0-h-tiny"),
  };
  int ran = 0, combos = 0;
  for (const Engine e : {Engine::ideal, Engine::vllm, Engine::sglang, Engine::llamacpp, Engine::trtllm}) {
    std::vector<std::string> versions{""};
    for (const auto v : engine_versions(e)) versions.emplace_back(v);
    for (const auto& version : versions) {
      EngineOptions base;
      base.engine = e;
      base.version = version;
      std::vector<EngineOptions> runs{base};
      for (const auto& spec : engine_option_table())
        if (engine_option_applies(spec, base)) runs.push_back(with_option(base, spec));
      if (e == Engine::vllm && version != "v0") {
        EngineOptions ds = base;
        ds.fp8_ds_mla = true;
        runs.push_back(ds);
      }
      for (const auto& o : runs)
        for (const auto& m : models)
          for (const std::uint64_t users : {std::uint64_t{1}, std::uint64_t{4}}) {
            ++combos;
            check_pool(m, o, users, &ran);
          }
    }
  }
  // Most runs apply (a few options refuse some models: no hybrid manager for Mamba, fp8_ds_mla off MLA).
  CHECK(ran > combos / 2);
  CHECK(ran > 300);
}
