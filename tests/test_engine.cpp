// Engine policies against the figures real engines printed (../shared/cases/engine-logs.json).
// A printed GiB figure is rounded to two decimals, so a case's memory lies in [x - 0.005, x + 0.005) GiB:
// the tests check that the reported counts lie between the predictions at the two ends.
#include <catch2/catch.hpp>

#include <set>
#include <type_traits>

#include "kvplan/engine.hpp"
#include "kvplan/format.hpp"
#include "kvplan/options.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/presets.hpp"
#include "test_support.hpp"

using namespace kvplan;

namespace {
constexpr double kGiB = 1073741824.0;
/// The two ends of a printed GiB figure: [x - 0.005, x + 0.005) GiB, in bytes.
std::pair<Bytes, Bytes> printed_gib(double x) {
  return {Bytes{static_cast<std::uint64_t>((x - 0.005) * kGiB)},
          Bytes{static_cast<std::uint64_t>((x + 0.005) * kGiB) - 1}};
}
EngineOptions engine(Engine e, std::string version = "") {
  EngineOptions o;
  o.engine = e;
  o.version = std::move(version);
  return o;
}
const KvDtypes f16{DType::fp16, DType::fp16};
/// vLLM's reports under versions "v1" and "0.20" for one model, context and KV memory.
std::pair<EngineResult, EngineResult> vllm_v1_and_020(const ModelSpec& m, Tokens len, Bytes mem) {
  return {vllm_policy(m, KvDtypes{}, Parallelism{}, len, engine(Engine::vllm, "v1"), mem),
          vllm_policy(m, KvDtypes{}, Parallelism{}, len, engine(Engine::vllm, "0.20"), mem)};
}
/// The report's "GPU KV cache size" line (empty when there is none).
std::string kv_size_line(const EngineResult& r) {
  for (const auto& l : r.log_lines)
    if (l.rfind("GPU KV cache size: ", 0) == 0) return l;
  return {};
}
}  // namespace

TEST_CASE("vllm-v0-llama31-8b: V0 blocks of 16 tokens of every layer", "[engine][vllm]") {
  const ModelSpec m = presets::find_model("llama-3.1-8b");
  const auto o = engine(Engine::vllm, "v0");
  // Block: 16 tokens * 2 (K, V) * 8 heads * 128 * 2 B * 32 layers = 2,097,152 B; 131,072 B per token.
  const auto r = vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{20000}, o, std::nullopt);
  CHECK(r.page_bytes.value == 2097152);
  CHECK(r.bytes_per_token->value == 131072);
  SECTION("max_model_len 20000: 3.81 GiB, 1952 blocks, 1.56x") {
    const auto [lo, hi] = printed_gib(3.81);
    const auto a = vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{20000}, o, lo);
    const auto b = vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{20000}, o, hi);
    CHECK(*a.num_blocks <= 1952);
    CHECK(*b.num_blocks >= 1952);
    // At exactly 1952 blocks (1952 * 2 MiB = 3.8125 GiB): 31,232 tokens / 20,000 = 1.5616 -> "1.56x".
    const auto c = vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{20000}, o, Bytes{1952ULL * 2097152});
    CHECK(*c.kv_cache_tokens == 31232);
    CHECK(format_fixed(*c.max_concurrency, 2) == "1.56");
    CHECK(c.log_lines.at(1) == "Maximum concurrency for 20000 tokens per request: 1.56x");
  }
  SECTION("max_model_len 29000: 2.89 GiB, 1478 blocks, 0.82x, 23,648 tokens") {
    const auto [lo, hi] = printed_gib(2.89);
    CHECK(*vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{29000}, o, lo).num_blocks <= 1478);
    CHECK(*vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{29000}, o, hi).num_blocks >= 1478);
    const auto c = vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{29000}, o, Bytes{1478ULL * 2097152});
    CHECK(*c.kv_cache_tokens == 23648);  // the engine's "maximum number of tokens ... (23648)"
    CHECK(format_fixed(*c.max_concurrency, 2) == "0.82");
  }
}

TEST_CASE("vllm-v1-qwen3-14b: 6.51 GiB gives 42,656 tokens and 1.30x", "[engine][vllm]") {
  const ModelSpec m = presets::find_model("Qwen/Qwen3-14B");
  const auto o = engine(Engine::vllm);
  // Page: 16 * 8 * (128 + 128) * 2 B = 65,536 B per layer; 40 layers; 163,840 B per token.
  const auto [lo, hi] = printed_gib(6.51);
  const auto a = vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{32768}, o, lo);
  const auto b = vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{32768}, o, hi);
  CHECK(a.page_bytes.value == 65536);
  CHECK(a.bytes_per_token->value == 163840);
  CHECK(*a.kv_cache_tokens <= 42656);
  CHECK(*b.kv_cache_tokens >= 42656);
  // The user's figure taken as exact: floor(6.51 * 2^30) = 6,990,059,274 B // 65,536 // 40 = 2,666 blocks;
  // 2,666 * 16 = 42,656 tokens; 2,666 / cdiv(32,768, 16) = 1.3018 -> "1.30x".
  const auto c = vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{32768}, o, parse_bytes("6.51GiB"));
  CHECK(*c.num_blocks == 2666);
  CHECK(*c.kv_cache_tokens == 42656);
  CHECK(c.log_lines.at(1) == "GPU KV cache size: 42,656 tokens");
  CHECK(c.log_lines.at(2) == "Maximum concurrency for 32,768 tokens per request: 1.30x");
  CHECK(*c.max_context == 42656);  // estimate_max_model_len: 2,666 blocks of 16
}

TEST_CASE("vllm-mla-deepseek-v2-lite: the latent once per token per layer", "[engine][vllm][mla]") {
  const ModelSpec m = presets::find_model("deepseek-ai/DeepSeek-V2-Lite-Chat");
  const auto r = vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{32768}, engine(Engine::vllm), std::nullopt);
  // 27 layers * (512 + 64) * 2 B = 31,104 B per token; one 32,768-token request: 1,019,215,872 B = 0.95 GiB.
  CHECK(r.bytes_per_token->value == 31104);
  CHECK(r.kv_bytes_total.value == 1019215872ULL);
  CHECK(gib(r.kv_bytes_total) == "0.95");
  // Not split by tensor parallelism.
  const auto tp =
      vllm_policy(m, KvDtypes{}, Parallelism{2, 1, 1}, Tokens{32768}, engine(Engine::vllm), std::nullopt);
  CHECK(tp.bytes_per_token->value == 31104);
  // fp8_ds_mla: 656 B per token per layer (512 fp8 + 4 fp32 scales + 64 bf16).
  auto ds = engine(Engine::vllm);
  ds.fp8_ds_mla = true;
  CHECK(
      vllm_policy(m, KvDtypes{DType::fp8_e4m3, DType::fp8_e4m3}, Parallelism{}, Tokens{16}, ds, std::nullopt)
          .bytes_per_token->value == 27 * 656);
}

TEST_CASE("trtllm-fp8-llama31-8b: the token budget rounds up to whole blocks", "[engine][trtllm]") {
  const ModelSpec m = presets::find_model("llama-3.1-8b");
  auto o = engine(Engine::trtllm);
  o.max_tokens = 860308;
  const KvDtypes fp8{DType::fp8_e4m3, DType::fp8_e4m3};
  // free_gpu_memory_fraction 0.8 of an H100's 80 GiB is far above 860,308 tokens * 65,536 B, so max_tokens
  // binds.
  const auto r = trtllm_policy(m, fp8, Parallelism{}, Tokens{8192}, o,
                               Bytes{static_cast<std::uint64_t>(0.8 * 80 * kGiB)});
  CHECK(r.bytes_per_token->value == 65536);  // 2 * 8 * 128 * 32 layers * 1 B
  CHECK(*r.num_blocks == 26885);             // ceil(860,308 / 32)
  CHECK(*r.kv_cache_tokens == 860320);       // 26,885 * 32
  // 860,320 * 65,536 B = 56,381,931,520 B = 52.5098 GiB, printed as 52.51 GiB.
  CHECK(r.log_lines.at(1) ==
        "[MemUsageChange] Allocated 52.51 GiB for max tokens in paged KV cache (860320).");
}

TEST_CASE("llamacpp-mla-with-v-cache: DeepSeek-V3 with and without the V cache", "[engine][llamacpp][mla]") {
  const ModelSpec m = presets::find_model("deepseek-v3");
  // 2025 builds (PR #12801): K 576 and V 512 per layer, 61 layers, 16,384 cells, f16:
  // K = 61 * 16384 * 576 * 2 B = 1,151,336,448 B = 1098.00 MiB; V = 61 * 16384 * 512 * 2 B = 976.00 MiB.
  const auto old = llamacpp_policy(m, f16, Parallelism{}, Tokens{16384}, 1,
                                   engine(Engine::llamacpp, "2025-11"), std::nullopt);
  REQUIRE(old.caches.size() == 1);
  CHECK(mib(old.caches[0].k_bytes) == "1098.00");
  CHECK(mib(old.caches[0].v_bytes) == "976.00");
  CHECK(old.bytes_per_token->value == 132736);  // 61 * (576 + 512) * 2
  // Current mainline (PR #19067): K only, 70,272 B per token.
  const auto now =
      llamacpp_policy(m, f16, Parallelism{}, Tokens{16384}, 1, engine(Engine::llamacpp), std::nullopt);
  CHECK(now.bytes_per_token->value == 70272);
  CHECK(now.caches[0].v_bytes.value == 0);
}

TEST_CASE("gpt-oss-20b under llama.cpp: the SWA cache, and without it", "[engine][llamacpp]") {
  const ModelSpec m = presets::find_model("openai/gpt-oss-20b");
  SECTION("llamacpp-iswa-gpt-oss-20b: full 131,072 cells, SWA pad(128 + 512, 256) = 768 cells") {
    for (const char* v : {"2025-08", "2026"}) {
      CAPTURE(v);
      const auto r = llamacpp_policy(m, f16, Parallelism{}, Tokens{131072}, 1, engine(Engine::llamacpp, v),
                                     std::nullopt);
      REQUIRE(r.caches.size() == 2);
      // 12 layers * 131,072 * 512 * 2 B * 2 (K, V) = 3072 MiB; 12 * 768 * 512 * 2 * 2 = 18 MiB.
      CHECK(r.caches[0].cells == 131072);
      CHECK(r.caches[0].layers == 12);
      CHECK(mib(r.caches[0].k_bytes + r.caches[0].v_bytes) == "3072.00");
      CHECK(r.caches[1].cells == 768);
      CHECK(r.caches[1].layers == 12);
      CHECK(mib(r.caches[1].k_bytes + r.caches[1].v_bytes) == "18.00");
      CHECK(mib(r.kv_bytes_total) == "3090.00");
    }
    CHECK(full_bytes_per_token(m, f16).value == 24576);  // the case's bytes per token: 12 * 2 * 512 * 2
  }
  SECTION("swa-ignored-gpt-oss-20b: every layer at full context is the --swa-full figure") {
    auto o = engine(Engine::llamacpp);
    o.swa_full = true;
    const auto r = llamacpp_policy(m, f16, Parallelism{}, Tokens{131072}, 1, o, std::nullopt);
    // 24 layers * 131,072 * 512 * 2 B = 3072 MiB of K and as much V: 6144 MiB.
    Bytes k{0}, v{0};
    for (const auto& c : r.caches) {
      k += c.k_bytes;
      v += c.v_bytes;
    }
    CHECK(mib(k) == "3072.00");
    CHECK(mib(v) == "3072.00");
    CHECK(mib(r.kv_bytes_total) == "6144.00");
    CHECK(r.bytes_per_token->value == 49152);
  }
}

TEST_CASE("llamacpp-405b-layer-split: per device, the layers it holds", "[engine][llamacpp]") {
  const ModelSpec m = presets::find_model("llama-3.1-405b");
  const auto whole =
      llamacpp_policy(m, f16, Parallelism{}, Tokens{4096}, 1, engine(Engine::llamacpp), std::nullopt);
  // 126 layers * 2 * 8 * 128 * 2 B * 4096 cells = 16 MiB per layer, 2016 MiB in all.
  CHECK(mib(whole.kv_bytes_total) == "2016.00");
  CHECK(whole.bytes_per_token->value == 516096);
  // The split itself (27 layers on the CPU, 50 and 49 on the RPC devices) follows the devices' free memory
  // in llama_model::load_tensors: an input, not a rule. Given it, each device holds layers x 16 MiB.
  const auto device = [&](std::uint64_t layers) {
    ModelSpec part = m;
    part.layers[0].count = layers;
    return mib(
        llamacpp_policy(part, f16, Parallelism{}, Tokens{4096}, 1, engine(Engine::llamacpp), std::nullopt)
            .kv_bytes_total);
  };
  CHECK(device(50) == "800.00");
  CHECK(device(49) == "784.00");
  CHECK(device(27) == "432.00");
}

TEST_CASE("vLLM hybrid allocator: sliding and full layers share one pool", "[engine][vllm]") {
  const ModelSpec m = presets::find_model("gpt-oss-20b");
  // 12 sliding (128) + 12 full layers, page 16 * 8 * (64 + 64) * 2 B = 32,768 B: two groups of 12.
  const auto r = vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{131072}, engine(Engine::vllm),
                             Bytes{12ULL * 32768 * 1000});
  CHECK_FALSE(r.bytes_per_token.has_value());  // per-token view not meaningful: said instead
  CHECK(r.per_token_note.find("not meaningful") != std::string::npos);
  CHECK(*r.num_blocks == 1000);                // available // page // group_size (12)
  CHECK(*r.kv_cache_tokens == 1000 / 2 * 16);  // num_blocks // groups * block_size
  // Per request: full group cdiv(131072, 16) = 8192 pages; sliding group cdiv(min(127 + 8192, 131072), 16) +
  // 1 = 521.
  CHECK_THAT(*r.max_concurrency, Catch::Matchers::WithinRel(1000.0 / (8192 + 521), 1e-12));
  auto off = engine(Engine::vllm);
  off.disable_hybrid_kv_cache_manager = true;
  const auto u = vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{131072}, off, std::nullopt);
  CHECK(u.bytes_per_token->value == 49152);  // every layer full: 24 * 2,048 B
}

TEST_CASE("vLLM 0.20 reports the KV cache size as max concurrency x max_model_len", "[engine][vllm]") {
  // docs/engines/vllm-kv-report.md: up to v0.19.0 (version "v1") _report_kv_cache_config printed
  // num_blocks // len(kv_cache_groups) * min(block_size); from v0.20 (version "0.20") it prints
  // int(max_concurrency * max_model_len), max_concurrency = num_blocks / blocks per request as a float.
  // The pool, the concurrency and the longest context do not change.
  SECTION("gpt-oss-20b: 12 sliding (128) + 12 full layers, two groups of 12") {
    const ModelSpec m = presets::find_model("gpt-oss-20b");
    // Page 16 * 8 * (64 + 64) * 2 B = 32,768 B; 12 * 32,768 * 1,000 B // 32,768 // 12 = 1,000 blocks.
    const Bytes mem{12ULL * 32768 * 1000};
    const auto [v1, v20] = vllm_v1_and_020(m, Tokens{131072}, mem);
    // v1: 1,000 // 2 * 16 = 8,000 tokens.
    CHECK(*v1.kv_cache_tokens == 8000);
    CHECK(kv_size_line(v1) == "GPU KV cache size: 8,000 tokens");
    // 0.20: per request cdiv(131,072, 16) = 8,192 full pages + cdiv(127 + 8,192, 16) + 1 = 521 sliding
    // pages = 8,713; 1,000 / 8,713 * 131,072 = 131,072,000 / 8,713 = 15,043.27 (8,713 * 15,043 =
    // 131,069,659, remainder 2,341) -> 15,043 tokens; 1,000 / 8,713 = 0.1148 -> "0.11x".
    CHECK(*v20.kv_cache_tokens == 15043);
    CHECK(kv_size_line(v20) == "GPU KV cache size: 15,043 tokens");
    CHECK(v20.log_lines.back() == "Maximum concurrency for 131,072 tokens per request: 0.11x");
    CHECK(v20.log_lines.back() == v1.log_lines.back());
    CHECK(*v20.num_blocks == *v1.num_blocks);
    CHECK(*v20.max_requests == *v1.max_requests);
    CHECK(*v20.max_context == *v1.max_context);
    CHECK(v20.kv_bytes_total == v1.kv_bytes_total);
    CHECK(v20.rules.find("v0.20") != std::string::npos);
  }
  SECTION("Jamba-1.5-Mini: 4 attention layers + 28 Mamba layers, eight groups of 4") {
    const ModelSpec m = presets::find_model("jamba-1.5-mini");
    // As in "vLLM with Mamba layers" above: block 80 tokens, 16,384 blocks, 8 groups.
    const Bytes mem{20ULL << 30};
    const auto [v1, v20] = vllm_v1_and_020(m, Tokens{262144}, mem);
    // v1 (the default): 16,384 // 8 * 80 = 163,840 tokens.
    CHECK(kv_size_line(v1) == "GPU KV cache size: 163,840 tokens");
    // 0.20: per request cdiv(262,144, 80) = 3,277 attention pages + 7 Mamba states = 3,284 blocks;
    // 16,384 / 3,284 * 262,144 = 4,294,967,296 / 3,284 = 1,307,846.3 (3,284 * 1,307,846 =
    // 4,294,966,264, remainder 1,032) -> 1,307,846 tokens; 16,384 / 3,284 = 4.989 -> "4.99x".
    CHECK(*v20.kv_cache_tokens == 1307846);
    CHECK(kv_size_line(v20) == "GPU KV cache size: 1,307,846 tokens");
    CHECK(v20.log_lines.back() == "Maximum concurrency for 262,144 tokens per request: 4.99x");
    CHECK(v20.block_size == 80);
    CHECK(*v20.num_blocks == 16384);
  }
  SECTION("Qwen3-Next-80B-A3B: 12 full-attention + 36 Gated DeltaNet layers") {
    const ModelSpec m = presets::find_model("qwen3-next-80b-a3b");
    // Attention: 2 KV heads * 256 * 2 (K, V) * 2 B = 2,048 B per token per layer.
    // GDN state (bf16): conv (2 * 16 * 128 + 32 * 128) * (4 - 1) = 24,576 values + temporal 32 * 128 *
    // 128 = 524,288 values -> 548,864 * 2 B = 1,097,728 B. Block 16 * cdiv(1,097,728, 16 * 2,048) =
    // 16 * 34 = 544 tokens; page 2,048 * 544 = 1,114,112 B. Groups of 12: 1 attention + 3 GDN = 4.
    // 20 GiB = 21,474,836,480 B // 1,114,112 = 19,275 // 12 = 1,606 blocks.
    const Bytes mem{20ULL << 30};
    const auto [v1, v20] = vllm_v1_and_020(m, Tokens{262144}, mem);
    CHECK(v20.block_size == 544);
    CHECK(*v20.num_blocks == 1606);
    // v1: 1,606 // 4 * 544 = 401 * 544 = 218,144 tokens.
    CHECK(kv_size_line(v1) == "GPU KV cache size: 218,144 tokens");
    // 0.20: cdiv(262,144, 544) = 482 attention pages + 3 states = 485 blocks per request;
    // 1,606 * 262,144 / 485 = 421,003,264 / 485 = 868,047.97 -> 868,047; 1,606 / 485 = 3.311 -> "3.31x".
    CHECK(kv_size_line(v20) == "GPU KV cache size: 868,047 tokens");
    CHECK(v20.log_lines.back() == "Maximum concurrency for 262,144 tokens per request: 3.31x");
  }
  SECTION("one group: the float product can fall one token below the exact quotient") {
    const ModelSpec m = presets::find_model("llama-3.1-8b");
    // Page 16 * 8 * (128 + 128) * 2 B = 65,536 B; 32 layers; 27 * 65,536 * 32 B gives 27 blocks.
    // 784 tokens per request = 49 blocks. v1: 27 * 16 = 432 tokens. 0.20: 27 / 49 is the double
    // 0.55102040816326525 (just below 27/49), times 784 = 431.99999999999994 -> int() = 431, where the
    // exact 27 * 784 / 49 is 432.
    const Bytes mem{27ULL * 65536 * 32};
    const auto [v1, v20] = vllm_v1_and_020(m, Tokens{784}, mem);
    CHECK(*v1.num_blocks == 27);
    CHECK(*v1.kv_cache_tokens == 432);
    CHECK(*v20.kv_cache_tokens == 431);
    CHECK(kv_size_line(v20) == "GPU KV cache size: 431 tokens");
    CHECK(*v20.max_context == *v1.max_context);  // 27 blocks of 16: 432 tokens either way
  }
  SECTION("V1 options stay V1 options under 0.20") {
    const ModelSpec m = presets::find_model("gpt-oss-20b");
    auto o = engine(Engine::vllm, "0.20");
    o.max_num_batched_tokens = 2048;
    o.disable_hybrid_kv_cache_manager = true;
    CHECK_NOTHROW(validate_engine_options(o));
    // Every layer full: one group of 24, cdiv(4,096, 16) = 256 blocks per request; 24 * 32,768 * 512 B
    // gives 512 blocks; 512 / 256 * 4,096 = 8,192 tokens, as 512 * 16 under v1.
    const auto r = vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{4096}, o, Bytes{24ULL * 32768 * 512});
    CHECK(*r.kv_cache_tokens == 8192);
  }
}

TEST_CASE("vLLM 0.26: sliding groups keep the window plus the tokens in flight", "[engine][vllm]") {
  // docs/engines/vllm-kv-report.md, version "0.26" (PR #47728): the sliding reserve is
  // cdiv(min(W - 1 + max_in_flight_tokens, L), bs) + 1 pages, max_in_flight_tokens =
  // max_concurrent_batches x max_num_batched_tokens; max_concurrent_batches is 2 at pp 1 (async
  // scheduling) and pp otherwise. gpt-oss-20b: 12 sliding (W 128) + 12 full layers, page 16 * 8 *
  // (64 + 64) * 2 B = 32,768 B per layer.
  const ModelSpec m = presets::find_model("gpt-oss-20b");
  const Tokens len{131072};  // cdiv(131,072, 16) = 8,192 full pages per request
  SECTION("pp 1: two batches of 8,192 in flight") {
    // Two groups of 12 layers; 12 * 32,768 * 100,000 B // 32,768 // 12 = 100,000 blocks.
    const Bytes mem{12ULL * 32768 * 100000};
    const auto v20 = vllm_policy(m, KvDtypes{}, Parallelism{}, len, engine(Engine::vllm, "0.20"), mem);
    const auto v26 = vllm_policy(m, KvDtypes{}, Parallelism{}, len, engine(Engine::vllm, "0.26"), mem);
    CHECK(*v26.num_blocks == 100000);
    // 0.20: 8,192 + cdiv(127 + 8,192, 16) + 1 = 8,192 + 521 = 8,713 pages; 100,000 // 8,713 = 11.
    CHECK(*v20.max_requests == 11);
    // 0.26: 8,192 + cdiv(127 + 16,384, 16) + 1 = 8,192 + 1,032 + 1 = 9,225 pages; 100,000 // 9,225 = 10
    // (9,225 * 11 = 101,475 > 100,000).
    CHECK(*v26.max_requests == 10);
    // 100,000 / 9,225 = 10.840 -> "10.84x"; 13,107,200,000 / 9,225 = 1,420,834.69 -> 1,420,834 tokens.
    CHECK(v26.log_lines.back() == "Maximum concurrency for 131,072 tokens per request: 10.84x");
    CHECK(kv_size_line(v26) == "GPU KV cache size: 1,420,834 tokens");
    // Longest context: cdiv(L, 16) + 1,033 <= 100,000 -> cdiv(L, 16) <= 98,967 -> L = 1,583,472
    // (0.20: 100,000 - 521 = 99,479 pages -> 1,591,664).
    CHECK(*v26.max_context == 1583472);
    CHECK(*v20.max_context == 1591664);
    CHECK(v26.rules.find("v0.26") != std::string::npos);
    CHECK(v26.per_token_note.find("max_concurrent_batches x max_num_batched_tokens (16,384) tokens") !=
          std::string::npos);
  }
  SECTION("pp 4: one batch per stage in flight, and max_num_batched_tokens scales with it") {
    // Each stage: 6 layers, 3 sliding + 3 full, groups of 3; 3 * 32,768 * 100,000 B -> 100,000 blocks.
    const Bytes mem{3ULL * 32768 * 100000};
    const Parallelism pp4{1, 4, 1};
    const auto v20 = vllm_policy(m, KvDtypes{}, pp4, len, engine(Engine::vllm, "0.20"), mem);
    const auto v26 = vllm_policy(m, KvDtypes{}, pp4, len, engine(Engine::vllm, "0.26"), mem);
    // 0.26: 4 * 8,192 = 32,768 in flight; 8,192 + cdiv(127 + 32,768, 16) + 1 = 8,192 + 2,056 + 1 =
    // 10,249 pages; 100,000 // 10,249 = 9. 0.20: 8,713 pages -> 11.
    CHECK(*v26.max_requests == 9);
    CHECK(*v20.max_requests == 11);
    auto o = engine(Engine::vllm, "0.26");
    o.max_num_batched_tokens = 2048;  // 4 * 2,048 = 8,192 in flight: 0.20's reserve at its default
    const auto small = vllm_policy(m, KvDtypes{}, pp4, len, o, mem);
    CHECK(*small.max_requests == 11);
    CHECK(*small.max_context == *v20.max_context);
  }
  SECTION("full attention alone does not change") {
    const ModelSpec llama = presets::find_model("llama-3.1-8b");
    const Bytes mem{32ULL * 65536 * 5000};
    const auto v20 =
        vllm_policy(llama, KvDtypes{}, Parallelism{}, Tokens{8192}, engine(Engine::vllm, "0.20"), mem);
    const auto v26 =
        vllm_policy(llama, KvDtypes{}, Parallelism{}, Tokens{8192}, engine(Engine::vllm, "0.26"), mem);
    // 5,000 blocks, 512 per request: 9 requests either way.
    CHECK(*v26.max_requests == 9);
    CHECK(*v20.max_requests == 9);
    CHECK(v26.log_lines == v20.log_lines);
  }
}

TEST_CASE("engines reject what they do not support", "[engine]") {
  const ModelSpec m = presets::find_model("llama-3.1-8b");
  CHECK_THROWS_AS(vllm_policy(m, KvDtypes{DType::q8_0, DType::q8_0}, Parallelism{}, Tokens{16},
                              engine(Engine::vllm), std::nullopt),
                  Error);
  CHECK_THROWS_AS(
      llamacpp_policy(m, f16, Parallelism{2, 1, 1}, Tokens{16}, 1, engine(Engine::llamacpp), std::nullopt),
      Error);
  CHECK_THROWS_AS(parse_engine("ollama"), Error);
  CHECK(parse_engine("llama.cpp") == Engine::llamacpp);
}

TEST_CASE("vLLM with Mamba layers: attention block size raised, Mamba page padded", "[engine][vllm]") {
  const ModelSpec m = presets::find_model("jamba-1.5-mini");
  // Attention: 8 KV heads * 128 * 2 (K, V) * 2 B = 4,096 B per token per layer (4 layers of 32).
  // Mamba state: d_inner 8192 * (d_conv 4 - 1) + 8192 * d_state 16 = 155,648 values * 2 B = 311,296 B.
  // HybridAttentionMambaModelConfig: block = 16 * cdiv(311,296, 16 * 4,096) = 80 tokens; page 327,680 B;
  // the Mamba page is padded by (327,680 - 311,296) / 311,296 = 5.26%.
  const auto r =
      vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{262144}, engine(Engine::vllm), Bytes{20ULL << 30});
  CHECK(r.block_size == 80);
  CHECK(r.page_bytes.value == 327680);
  // Groups: 4 attention layers and 28 Mamba layers, group_size 4: 1 + 7 = 8 groups.
  // Blocks: 20 GiB // 327,680 // 4 = 16,384; tokens 16,384 // 8 * 80 = 163,840.
  CHECK(*r.num_blocks == 16384);
  CHECK(*r.kv_cache_tokens == 163840);
  // Per request: cdiv(262,144, 80) = 3,277 attention pages + 7 Mamba states.
  CHECK_THAT(*r.max_concurrency, Catch::Matchers::WithinRel(16384.0 / (3277 + 7), 1e-12));
  CHECK(r.log_lines.at(1).find("by 5.26%") != std::string::npos);
}

TEST_CASE("engine options: each applies to its engine, versions as listed", "[engine]") {
  const ModelSpec m = presets::find_model("llama-3.1-8b");
  const auto run = [&](const EngineOptions& o) {
    return apply_engine(m, f16, Parallelism{}, Tokens{1024}, 1, o, std::nullopt);
  };
  // Every listed version is accepted (the policies check their own lists), and nothing else is.
  CHECK(engine_versions(Engine::vllm) == std::vector<std::string_view>{"v1", "0.20", "0.21", "0.26", "v0"});
  CHECK(engine_versions(Engine::llamacpp) == std::vector<std::string_view>{"2026", "2025-11", "2025-08"});
  // SGLang's two differ in the default mem_fraction_static only (budget.hpp).
  CHECK(engine_versions(Engine::sglang) == std::vector<std::string_view>{"0.5", "0.4"});
  CHECK(engine_versions(Engine::trtllm).empty());
  for (const Engine e : {Engine::vllm, Engine::llamacpp, Engine::sglang})
    for (const auto v : engine_versions(e)) CHECK_NOTHROW(run(engine(e, std::string(v))));
  CHECK_THROWS_WITH(run(engine(Engine::vllm, "v2")), Catch::StartsWith("engine_version:"));
  CHECK_THROWS_WITH(run(engine(Engine::ideal, "v1")), Catch::StartsWith("engine_version:"));
  CHECK_THROWS_AS(run(engine(Engine::sglang, "2025")), Error);

  // An option away from its default under another engine is refused, naming the option.
  EngineOptions o = engine(Engine::llamacpp);
  o.block_size = 16;
  CHECK_THROWS_WITH(run(o), Catch::StartsWith("block_size:"));
  o = engine(Engine::vllm);
  o.ubatch = 256;
  CHECK_THROWS_WITH(run(o), Catch::StartsWith("ubatch:"));
  o = engine(Engine::sglang);
  o.max_num_batched_tokens = 4096;
  CHECK_THROWS_WITH(run(o), Catch::StartsWith("max_num_batched_tokens:"));
  o = engine(Engine::vllm);
  o.max_tokens = 1000;
  CHECK_THROWS_WITH(run(o), Catch::StartsWith("max_tokens:"));
  o = engine(Engine::trtllm);
  o.swa_full_tokens_ratio = 0.5;
  CHECK_THROWS_WITH(run(o), Catch::StartsWith("swa_full_tokens_ratio:"));
  o = engine(Engine::sglang);
  o.swa_full_tokens_ratio = 1.5;
  CHECK_THROWS_WITH(run(o), Catch::Contains("(0, 1]"));
  o.swa_full_tokens_ratio = 0.5;
  CHECK_NOTHROW(run(o));
  o = engine(Engine::sglang);
  o.kv_unified = true;
  CHECK_THROWS_WITH(run(o), Catch::StartsWith("kv_unified:"));
  o = engine(Engine::llamacpp);
  o.kv_unified = o.swa_full = true;
  o.ubatch = 256;
  CHECK_NOTHROW(run(o));
  o.ubatch = (1 << 20) + 1;
  CHECK_THROWS_WITH(run(o), Catch::StartsWith("ubatch: must be at most 1,048,576"));

  // Bounds, and V1-only options under V0. SGLang takes any page size up to the bound; vLLM only its
  // BlockSize choices (vllm/config/cache.py: 1, 8, 16, 32, 64, 128, 256).
  o = engine(Engine::sglang);
  o.block_size = 1 << 20;
  CHECK_NOTHROW(run(o));
  o.block_size = (1 << 20) + 1;
  CHECK_THROWS_WITH(run(o), Catch::StartsWith("block_size: must be at most"));
  o = engine(Engine::vllm);
  o.block_size = 256;
  CHECK_NOTHROW(run(o));
  for (const std::uint64_t bad : {3, 17, 48, 512, 1 << 20}) {
    o.block_size = bad;
    CHECK_THROWS_WITH(run(o), Catch::StartsWith("block_size: vLLM takes 1, 8, 16, 32, 64, 128 or 256"));
  }
  o = engine(Engine::trtllm);
  o.max_tokens = 2147483647;
  CHECK_NOTHROW(run(o));
  o.max_tokens = 2147483648;
  CHECK_THROWS_WITH(run(o), Catch::StartsWith("max_tokens:"));
  o = engine(Engine::vllm, "v0");
  o.disable_hybrid_kv_cache_manager = true;
  CHECK_THROWS_WITH(run(o), Catch::StartsWith("disable_hybrid_kv_cache_manager:"));
  o = engine(Engine::vllm, "v0");
  o.max_num_batched_tokens = 2048;
  CHECK_THROWS_WITH(run(o), Catch::Contains("V1 option"));
  o.version = "v1";
  CHECK_NOTHROW(run(o));
}

TEST_CASE("engine max context for several users: the engine's own concurrency test", "[engine][plan]") {
  PlanInputs in;
  in.deployment.weights = Bytes{0};
  SECTION("vLLM V1, Qwen3-14B: 2,666 blocks of 16 tokens") {
    in.model = presets::find_model("qwen3-14b");
    in.engine = engine(Engine::vllm);
    // Page: 16 tokens x 2 (K, V) x 8 heads x 128 x 2 B = 65,536 B per layer, x 40 layers = 2,621,440 B.
    in.kv_memory = Bytes{2666ULL * 2621440};
    in.context = Tokens{32768};
    in.users = 1;
    const Plan one = make_plan(in);
    CHECK(one.engine.num_blocks == 2666u);
    CHECK(one.max_context->value == 42656);   // 2,666 x 16: cdiv(L, 16) <= 2,666
    CHECK(one.engine.max_context == 42656u);  // vLLM's estimate_max_model_len agrees
    in.users = 3;
    const Plan three = make_plan(in);
    // floor(2666 / 2048 pages) = 1 request of 32,768 tokens.
    CHECK(three.max_users == 1);
    CHECK_FALSE(three.fits);
    // 3 requests: floor(2666 / cdiv(L, 16)) >= 3 <=> cdiv(L, 16) <= 888 <=> L <= 14,208.
    CHECK(three.max_context->value == 14208);
    in.context = Tokens{14208};
    CHECK(make_plan(in).fits);
    in.context = Tokens{14209};
    CHECK_FALSE(make_plan(in).fits);
  }
  SECTION("TensorRT-LLM, Llama-3.1-8B fp8, max_tokens 100,000 in blocks of 64") {
    in.model = presets::find_model("llama-3.1-8b");
    in.kv = KvDtypes{DType::fp8_e4m3, DType::fp8_e4m3};
    in.engine = engine(Engine::trtllm);
    in.engine.block_size = 64;
    in.engine.max_tokens = 100000;
    in.kv_memory = Bytes{10ULL << 30};  // 163,840 tokens of 65,536 B: max_tokens is the bound
    in.context = Tokens{16384};
    in.users = 16;
    const Plan p = make_plan(in);
    // cdiv(100,000, 64) = 1,563 blocks = 100,032 tokens; concurrency = tokens / context.
    CHECK(p.engine.kv_cache_tokens == 100032u);
    CHECK(p.max_users == 6);  // floor(100,032 / 16,384)
    // 16 requests of whole blocks: cdiv(L, 64) <= floor(1,563 / 16) = 97 <=> L <= 6,208 (the engine's
    // printed concurrency, tokens / context, would allow 6,252).
    CHECK(p.max_context->value == 6208);
  }
  SECTION("TensorRT-LLM, Llama-3.1-70B at tp 16: 20 requests need 20 x 1,229 blocks, 24,576 are there") {
    in.model = presets::find_model("llama-3.1-70b");
    in.engine = engine(Engine::trtllm);
    in.deployment.parallel = Parallelism{16, 1, 1};
    // ceil(8 / 16) = 1 head per rank: 80 layers x 2 x 1 x 128 x 2 B = 40,960 B per token.
    in.kv_memory = Bytes{30ULL << 30};  // 786,432 tokens = 24,576 blocks of 32
    in.context = Tokens{39321};         // cdiv(39,321, 32) = 1,229 blocks per request
    in.users = 20;
    const Plan p = make_plan(in);
    CHECK(p.engine.num_blocks == 24576u);
    CHECK(p.max_users == 19);  // floor(24,576 / 1,229); tokens / context = 20.0003 would say 20
    CHECK_FALSE(p.fits);
    CHECK(p.max_context->value == 39296);  // floor(24,576 / 20) = 1,228 blocks x 32
    CHECK(p.per_gpu.free_bytes.value == 0);
  }
}

TEST_CASE("llama.cpp with replicas: each server holds its replica's users", "[engine][llamacpp][plan]") {
  PlanInputs in;
  in.model = presets::find_model("llama-3.1-8b");
  in.kv = f16;
  in.engine = engine(Engine::llamacpp);
  in.deployment.parallel = Parallelism{1, 1, 2};  // 2 GPUs, one server each
  in.deployment.weights = Bytes{0};
  in.kv_memory = Bytes{6047234457};
  in.context = Tokens{8192};
  in.users = 20;
  const Plan p = make_plan(in);
  // 131,072 B per cell (32 layers x 2 x 8 x 128 x 2 B). A replica's 10 slots x 8,192 cells = 10 GiB.
  CHECK(p.per_gpu.users == 10);
  CHECK(p.engine.kv_bytes_total.value == 10737418240ULL);
  CHECK_FALSE(p.fits);
  // floor(6,047,234,457 / (8,192 x 131,072 = 1,073,741,824)) = 5 slots per server, 10 in all.
  CHECK(p.max_users == 10);
  // 10 slots: cells <= 6,047,234,457 / (10 x 131,072) = 4,613.6, padded down to 256: 4,608.
  CHECK(p.max_context->value == 4608);
  CHECK(p.kv_bytes_total.value == 2 * 10737418240ULL);  // every buffer of both servers
}

TEST_CASE("llama.cpp with a layer split: each device's buffers against its memory",
          "[engine][llamacpp][plan]") {
  PlanInputs in;
  in.model = presets::find_model("llama-3.1-70b");
  in.kv = f16;
  in.engine = engine(Engine::llamacpp);
  in.deployment.parallel = Parallelism{1, 4, 1};
  in.deployment.weights = Bytes{0};
  in.kv_memory = Bytes{40618133913};
  in.context = Tokens{32768};  // a multiple of llama.cpp's 256-cell padding
  in.users = 8;
  const Plan p = make_plan(in);
  // 80 layers over 4 devices: 20 each. Per device: 20 x 2 (K, V) x 8 heads x 128 x 2 B = 81,920 B per
  // cell; 8 sequences x 32,768 cells = 262,144 cells: 21,474,836,480 B, not the whole model's 4x that.
  CHECK(p.engine.kv_bytes_total.value == 21474836480ULL);
  CHECK(p.per_gpu.kv_bytes_total.value == 21474836480ULL);
  CHECK(p.fits);
  CHECK(p.per_gpu.free_bytes.value == 40618133913ULL - 21474836480ULL);
  // floor(40,618,133,913 / (81,920 x 32,768 = 2,684,354,560)) = 15 sequences.
  CHECK(p.max_users == 15);
  // The log keeps llama.cpp's own lines: the whole cache, then each device's 20 layers.
  CHECK(std::count_if(p.engine.log_lines.begin(), p.engine.log_lines.end(), [](const std::string& l) {
          return l.find("KV buffer size = 20480.00 MiB") != std::string::npos;
        }) == 4);
}

TEST_CASE("Nemotron-3-Nano under vLLM and llama.cpp: Mamba2 state beside 6 attention layers",
          "[engine][recurrent]") {
  const ModelSpec m = presets::load_model_file(std::string(KVPLAN_CORPUS) + "/nemotron-3-nano-30b-a3b.json");
  SECTION("vLLM: block size raised to hold a Mamba2 state") {
    // Attention: 2 KV heads * 128 * 2 (K, V) * 2 B = 1,024 B per token per layer.
    // State per Mamba2 layer: SSM 64 * 64 * 128 * 4 B (mamba_ssm_cache_dtype float32) = 2,097,152
    // + conv (64 * 64 + 2 * 8 * 128) * 3 * 2 B = 36,864 -> 2,134,016 B.
    // Block = 16 * cdiv(2,134,016, 16 * 1,024) = 16 * 131 = 2,096 tokens; page 1,024 * 2,096 = 2,146,304 B;
    // the Mamba page is padded by 12,288 / 2,134,016 = 0.58%.
    const auto r =
        vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{32768}, engine(Engine::vllm), Bytes{20ULL << 30});
    CHECK(r.block_size == 2096);
    CHECK(r.page_bytes.value == 2146304);
    CHECK(r.log_lines.at(1).find("by 0.58%") != std::string::npos);
  }
  SECTION("llama.cpp: K/V for the 6 attention layers, R and S in f32 for the 23 Mamba2 layers") {
    const auto r =
        llamacpp_policy(m, f16, Parallelism{}, Tokens{4096}, 1, engine(Engine::llamacpp), std::nullopt);
    // K/V: 6 layers * 4,096 cells * (256 + 256 values) * 2 B = 25,165,824 B (24 MiB).
    // R: 23 * (4,096 + 2 * 8 * 128) * 3 * 4 B = 1,695,744 B (1.62 MiB); S: 23 * 64 * 64 * 128 * 4 B =
    // 48,234,496 B (46.00 MiB); one cell for one sequence.
    CHECK(r.kv_bytes_total.value == 25165824ULL + 1695744 + 48234496);
    const std::string want =
        "llama_memory_recurrent: size =   47.62 MiB (     1 cells,  52 layers,  1 seqs  0 rs_seq), R (f32):  "
        "  "
        "1.62 MiB, S (f32):   46.00 MiB, P (f32):    0.00 MiB";
    bool found = false;
    for (const auto& l : r.log_lines) found = found || l == want;
    CHECK(found);
    // Before n_rs_seq (version 2025-11): no rs_seq count, no P buffer.
    const auto old = llamacpp_policy(m, f16, Parallelism{}, Tokens{4096}, 1,
                                     engine(Engine::llamacpp, "2025-11"), std::nullopt);
    const std::string want_old =
        "llama_memory_recurrent: size =   47.62 MiB (     1 cells,  52 layers,  1 seqs), R (f32):    1.62 "
        "MiB, "
        "S (f32):   46.00 MiB";
    found = false;
    for (const auto& l : old.log_lines) found = found || l == want_old;
    CHECK(found);
  }
}

TEST_CASE("DeepSeek-V3.2's indexer cache under the engines", "[engine][mla]") {
  const ModelSpec m = presets::load_model_file(std::string(KVPLAN_CORPUS) + "/deepseek-v3.2.json");
  // vLLM and SGLang allocate the indexer keys beside the latent: (576 * 2 + 132) B per token per layer.
  const auto v = vllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{4096}, engine(Engine::vllm), std::nullopt);
  CHECK(v.bytes_per_token->value == 61 * 1284);
  const auto s =
      sglang_policy(m, KvDtypes{}, Parallelism{}, Tokens{4096}, engine(Engine::sglang), std::nullopt);
  CHECK(s.bytes_per_token->value == 61 * 1284);
  // llama.cpp and TensorRT-LLM: refused with the reason, not counted without it.
  CHECK_THROWS_AS(
      llamacpp_policy(m, f16, Parallelism{}, Tokens{4096}, 1, engine(Engine::llamacpp), std::nullopt), Error);
  CHECK_THROWS_AS(
      trtllm_policy(m, KvDtypes{}, Parallelism{}, Tokens{4096}, engine(Engine::trtllm), std::nullopt), Error);
}

TEST_CASE("stage views: each stage's share of the groups, nothing copied", "[engine][pp]") {
  // Groups of 3, 1 and 4 layers (8 in all) on 3 stages: 3, 3 and 2 layers (pipeline_stages: the first
  // 8 mod 3 = 2 stages take one more). Stage 0: group 0 (3). Stage 1: group 1 (1), group 2 (2).
  // Stage 2: group 2 (2).
  using test::gqa;
  const auto m = test::model({{gqa(8, 8, 64), 3}, {gqa(8, 2, 64), 1}, {gqa(8, 1, 64), 4}});
  const auto v = stage_views(m, 3, PipelineSplit::first_stages);
  REQUIRE(v.size() == 3);
  REQUIRE(v[0].layers.size() == 1);
  CHECK(v[0].layers[0].count == 3);
  CHECK(&v[0].layers[0].attention == &m.layers[0].attention);
  REQUIRE(v[1].layers.size() == 2);
  CHECK(v[1].layers[0].count == 1);
  CHECK(v[1].layers[1].count == 2);
  CHECK(&v[1].layers[1].attention == &m.layers[2].attention);
  REQUIRE(v[2].layers.size() == 1);
  CHECK(v[2].layers[0].count == 2);
  CHECK(v[2].stage.first == 6);
  // 4,096 single-layer groups on 4,096 stages: one view each.
  std::vector<LayerGroup> many(4096, m.layers[0]);
  for (std::size_t i = 0; i < many.size(); ++i) many[i].count = 1;
  ModelSpec big = m;
  big.layers = many;
  std::size_t views = 0;
  for (const auto& s : stage_views(big, 4096, PipelineSplit::first_stages)) views += s.layers.size();
  CHECK(views == 4096);
}

TEST_CASE("engines refuse a recurrent layer without a state instead of dividing by it", "[engine][vllm]") {
  // The GUI's SIGFPE: a Mamba group with no sizes and one full-attention layer under vLLM.
  ModelSpec m = test::model({{test::gqa(1, 1, 1), 1}});
  LayerGroup none;
  none.attention.kind = AttentionKind::recurrent;
  m.layers.insert(m.layers.begin(), none);
  CHECK_THROWS_WITH(
      apply_engine(m, KvDtypes{}, Parallelism{}, Tokens{4096}, 1, engine(Engine::vllm), Bytes{1ULL << 30}),
      Catch::Contains("d_inner: must be positive for a mamba layer"));
}

TEST_CASE("one set of figures: an engine's totals with and without a GPU", "[engine][plan]") {
  // gemma-3-270m (config.json: 18 layers, 4 heads, 1 KV head, head_dim 256, sliding_window 512,
  // _sliding_window_pattern 6: layers 6, 12 and 18 full), f16, 4,096 tokens, 1 slot.
  ModelSpec m = test::model({{test::gqa(4, 1, 256, AttentionKind::sliding, 512), 5},
                             {test::gqa(4, 1, 256), 1},
                             {test::gqa(4, 1, 256, AttentionKind::sliding, 512), 5},
                             {test::gqa(4, 1, 256), 1},
                             {test::gqa(4, 1, 256, AttentionKind::sliding, 512), 5},
                             {test::gqa(4, 1, 256), 1}});
  PlanInputs in;
  in.model = m;
  in.kv = f16;
  in.engine = engine(Engine::llamacpp);
  in.context = Tokens{4096};
  in.users = 1;
  in.deployment.weights = Bytes{0};
  // Per cell per layer: (256 + 256) x 2 B = 1,024 B. llama.cpp: the full cache 4,096 cells x 3 layers
  // = 12 MiB; the SWA cache pad(min(4,096, 512 + 512), 256) = 1,024 cells x 15 layers = 15 MiB.
  constexpr std::uint64_t engine_total = 4096ULL * 3 * 1024 + 1024ULL * 15 * 1024;
  static_assert(engine_total == 28311552ULL);
  // The exact layout: 4,096 x 3 x 1,024 + 512 x 15 x 1,024 = 20,447,232 B.
  constexpr std::uint64_t ideal_total = 4096ULL * 3 * 1024 + 512ULL * 15 * 1024;
  const Plan bare = make_plan(in);
  CHECK(bare.engine.kv_bytes_total.value == engine_total);
  CHECK(bare.kv_bytes_total.value == engine_total);
  CHECK(bare.per_gpu.kv_bytes_total.value == engine_total);
  CHECK(bare.ideal_kv_bytes_total.value == ideal_total);
  CHECK(bare.ideal_per_gpu_kv_bytes_total.value == ideal_total);
  in.gpu = presets::find_gpu("h100-sxm");
  const Plan with_gpu = make_plan(in);
  CHECK(with_gpu.kv_bytes_total == bare.kv_bytes_total);
  CHECK(with_gpu.per_gpu.kv_bytes_total == bare.per_gpu.kv_bytes_total);
  CHECK(with_gpu.ideal_kv_bytes_total == bare.ideal_kv_bytes_total);

  // vLLM, tp 1: a request of 4,096 tokens takes 256 pages of 16 tokens in the full group and
  // cdiv(min(511 + 8,192, 4,096), 16) + 1 = 257 pages in each sliding group; the groups hold 3 layers each
  // (fewest layers of one type), so 1 full + 5 sliding groups, 16 x 1,024 x 3 = 49,152 B per page:
  // (256 + 5 x 257) x 49,152 B = 75,743,232 B, with or without a GPU.
  in.kv = KvDtypes{DType::bf16, DType::bf16};
  in.engine = engine(Engine::vllm);
  const Plan v_gpu = make_plan(in);
  in.gpu.reset();
  const Plan v_bare = make_plan(in);
  constexpr std::uint64_t vllm_total = (256ULL + 5 * 257) * 49152;
  CHECK(v_gpu.per_gpu.kv_bytes_total.value == vllm_total);
  CHECK(v_bare.per_gpu.kv_bytes_total.value == vllm_total);
  CHECK(v_bare.kv_bytes_total.value == vllm_total);
  CHECK(v_bare.ideal_kv_bytes_total.value == ideal_total);
}

TEST_CASE("engine policies: the inverses agree with the allocations they invert", "[engine][plan]") {
  // For each engine and model, max_requests(L) is the most n with gpu_bytes(n, L) within the memory's
  // pool, and max_context(n) the longest L with max_requests(L) >= n: checked at the boundary (L fits,
  // L + 1 does not) rather than against a copy of the formula.
  const KvDtypes bf16{DType::bf16, DType::bf16};
  struct Case {
    const char* model;
    Engine engine;
    Parallelism par;
    KvDtypes t;
  };
  const Case cases[] = {
      {"llama-3.1-70b", Engine::ideal, {4, 1, 1}, bf16},
      {"llama-3.1-70b", Engine::vllm, {4, 1, 1}, bf16},
      {"llama-3.1-70b", Engine::sglang, {4, 1, 1}, bf16},
      {"llama-3.1-70b", Engine::trtllm, {4, 1, 1}, bf16},
      {"llama-3.1-70b", Engine::llamacpp, {1, 4, 1}, f16},
      {"gpt-oss-120b", Engine::ideal, {2, 1, 1}, bf16},
      {"gpt-oss-120b", Engine::vllm, {2, 1, 1}, bf16},
      {"gpt-oss-120b", Engine::llamacpp, {1, 1, 1}, f16},
      {"qwen3-next-80b-a3b", Engine::vllm, {2, 1, 1}, bf16},
      {"qwen3-next-80b-a3b", Engine::ideal, {2, 2, 1}, bf16},
  };
  const Bytes memory{20ULL << 30};
  for (const auto& c : cases) {
    const ModelSpec m = presets::find_model(c.model);
    EngineOptions o;
    o.engine = c.engine;
    const auto policy = make_policy(m, c.t, c.par, o);
    INFO(c.model << " " << name(c.engine));
    for (const std::uint64_t n : {1ULL, 3ULL, 16ULL}) {
      const auto l = policy->max_context(n, memory);
      REQUIRE(l);
      REQUIRE(l->value > 0);
      CHECK(policy->max_requests(*l, memory) >= n);
      CHECK(policy->max_requests(Tokens{l->value + 1}, memory) < n);
    }
    for (const std::uint64_t len : {1000ULL, 32768ULL}) {
      const std::uint64_t r = policy->max_requests(Tokens{len}, memory);
      REQUIRE(r > 0);
      // The engine's own report agrees (vLLM, SGLang, TRT-LLM print whole requests; ideal and llama.cpp
      // allocate what they are asked, so r requests fit and r + 1 do not).
      const auto at = policy->gpu_bytes(r, Tokens{len});
      REQUIRE(at);
      CHECK(*at <= memory);
      if (c.engine == Engine::ideal || c.engine == Engine::llamacpp) {
        const auto more = policy->gpu_bytes(r + 1, Tokens{len});
        CHECK((!more || *more > memory));
      } else {
        CHECK(policy->report(Tokens{len}, 1, memory).max_requests == r);
      }
    }
  }
}

TEST_CASE("llama.cpp and vLLM inverses under every version and cache option", "[engine][plan]") {
  // The searches start from a closed-form guess (llama.cpp: the cells per stream that fit, then the
  // context that pads to them; vLLM: one page per block of tokens for full-attention groups): whatever
  // the guess, the answer is the boundary, checked here as above (L fits, L + 1 does not; r requests
  // fit, r + 1 do not) for the options that change the padding and the SWA cache.
  struct Case {
    const char* model;
    EngineOptions o;
    Parallelism par;
    KvDtypes t;
  };
  const auto llama = [](const char* version, bool unified, bool swa_full, std::uint64_t ubatch) {
    EngineOptions o = engine(Engine::llamacpp, version);
    o.kv_unified = unified;
    o.swa_full = swa_full;
    o.ubatch = ubatch;
    return o;
  };
  const KvDtypes bf16{DType::bf16, DType::bf16};
  const KvDtypes q8{DType::q8_0, DType::q8_0};
  const Case cases[] = {
      {"gpt-oss-120b", llama("", false, false, 0), {1, 3, 1}, f16},
      {"gpt-oss-120b", llama("", true, false, 0), {1, 1, 1}, f16},
      {"gpt-oss-120b", llama("2025-08", false, false, 0), {1, 2, 1}, q8},
      {"gpt-oss-120b", llama("2025-08", true, false, 100), {1, 1, 1}, f16},
      {"gpt-oss-120b", llama("2025-11", false, true, 0), {1, 1, 1}, f16},
      {"qwen3-next-80b-a3b", llama("", false, false, 0), {1, 2, 1}, f16},
      {"qwen3-next-80b-a3b", llama("", true, false, 0), {1, 1, 1}, f16},
      {"deepseek-v3", llama("2025-11", false, false, 0), {1, 1, 1}, f16},
      {"gpt-oss-120b", engine(Engine::vllm, "0.20"), {2, 2, 1}, bf16},
      {"qwen3-next-80b-a3b", engine(Engine::vllm), {2, 3, 1}, bf16},
      {"deepseek-v3", engine(Engine::vllm), {8, 1, 1}, bf16},
  };
  for (const Bytes memory : {Bytes{20ULL << 30}, Bytes{123456789}}) {
    for (const auto& c : cases) {
      const ModelSpec m = presets::find_model(c.model);
      const auto policy = make_policy(m, c.t, c.par, c.o);
      INFO(c.model << " " << name(c.o.engine) << " " << c.o.version << " unified " << c.o.kv_unified
                   << " swa_full " << c.o.swa_full << " memory " << memory.value);
      for (const std::uint64_t n : {1ULL, 2ULL, 7ULL, 16ULL}) {
        const auto l = policy->max_context(n, memory);
        REQUIRE(l);
        if (l->value > 0) CHECK(policy->max_requests(*l, memory) >= n);
        CHECK(policy->max_requests(Tokens{l->value + 1}, memory) < n);
      }
      for (const std::uint64_t len : {1ULL, 1000ULL, 4097ULL, 32768ULL}) {
        const std::uint64_t r = policy->max_requests(Tokens{len}, memory);
        if (c.o.engine != Engine::llamacpp) continue;  // vLLM: whole pages per request, as above
        if (r > 0) {
          const auto at = policy->gpu_bytes(r, Tokens{len});
          REQUIRE(at);
          CHECK(*at <= memory);
        }
        const auto more = policy->gpu_bytes(r + 1, Tokens{len});
        CHECK((!more || *more > memory));
      }
    }
  }
}

TEST_CASE("the engine option table: one record per option, keys worded at each edge", "[engine][options]") {
  // Every record names a distinct key and flag, applies to at least one engine, and its member is what
  // validate_engine_options checks: setting it away from the default under an engine it does not apply
  // to is refused with the record's key.
  const ModelSpec m = presets::find_model("llama-3.1-8b");
  std::set<std::string_view> keys, flags;
  for (const auto& spec : engine_option_table()) {
    INFO(spec.key);
    CHECK(keys.insert(spec.key).second);
    CHECK(flags.insert(spec.cli_flag).second);
    CHECK(spec.engines != 0);
    CHECK(cli_flag_for(spec.key) == spec.cli_flag);
    CHECK(gui_label_for(spec.key) == spec.gui_label);
    CHECK(find_engine_option(spec.cli_flag) == &spec);
    // Each engine it applies to has a launch flag for it (kvplan fit's line starts the engine as planned),
    // and no other engine has one.
    for (const Engine e : {Engine::ideal, Engine::vllm, Engine::sglang, Engine::llamacpp, Engine::trtllm})
      CHECK(spec.launch_flag.at(static_cast<std::size_t>(e)).empty() ==
            ((spec.engines & (1U << static_cast<unsigned>(e))) == 0));
    // An engine it does not apply to (ideal applies to none).
    EngineOptions o;
    o.engine = Engine::ideal;
    std::visit(
        [&](auto member) {
          using T = std::remove_reference_t<decltype(o.*member)>;
          if constexpr (std::is_same_v<T, bool>)
            o.*member = true;
          else if constexpr (std::is_same_v<T, double>)
            o.*member = 0.5;
          else
            o.*member = 64;
        },
        spec.member);
    CHECK(engine_option_set(spec, o));
    CHECK_THROWS_WITH(validate_engine_options(o),
                      Catch::StartsWith(std::string(spec.key) + ": applies to `engine`"));
  }
  // The deployment inputs: core says "tp", the CLI "--tp", the GUI its label; a config field stays as is.
  CHECK(cli_flag_for("tp") == "--tp");
  CHECK(cli_flag_for("engine_version") == "--engine-version");
  CHECK(gui_label_for("tp") == "tensor parallel (tp)");
  CHECK(cli_flag_for("num_key_value_heads") == "num_key_value_heads");
  CHECK(engine_list((1U << static_cast<unsigned>(Engine::vllm)) |
                    (1U << static_cast<unsigned>(Engine::sglang)) |
                    (1U << static_cast<unsigned>(Engine::trtllm))) == "vllm, sglang or trtllm");
  // The same bad tp is "tp" from core whoever asks.
  PlanInputs in;
  in.model = m;
  in.deployment.parallel.tp = 3;
  CHECK_THROWS_WITH(make_plan(in), Catch::StartsWith("tp: 3 does not divide"));
  in.deployment.parallel.tp = 2;
  in.engine.engine = Engine::llamacpp;
  CHECK_THROWS_WITH(make_plan(in), Catch::StartsWith("tp: llama.cpp does not split"));
}

TEST_CASE("SGLang's hybrid SWA pool: the users take full tokens plus the ratio's sliding tokens",
          "[engine][sglang][plan]") {
  // gemma-3-27b (config.json: 62 layers, 16 KV heads, head_dim 128, sliding_window_pattern 6: layers
  // 6, 12, ..., 60 full), bf16: 16 x (128 + 128) x 2 B = 8,192 B per token per layer. SGLang's
  // get_pp_indices gives the last 62 mod 3 = 2 stages the extra layers: 20 / 21 / 21 (layers 1-20,
  // 21-41, 42-62); the policy sizes the largest cell, the first of the two of 21 layers (21-41): 3 full
  // layers (24, 30, 36) = 24,576 B and 18 sliding = 147,456 B per token.
  PlanInputs in;
  in.model = presets::find_model("gemma-3-27b");
  in.kv = KvDtypes{DType::bf16, DType::bf16};
  in.engine = engine(Engine::sglang);
  in.engine.swa_full_tokens_ratio = 0.3;
  in.context = Tokens{8192};
  in.users = 64;
  in.deployment.parallel = Parallelism{1, 3, 1};
  in.gpu = presets::find_gpu("h100-sxm");
  // But SGLang turns the hybrid pool off for Gemma 2 and 3 ("Disable hybrid SWA memory for
  // Gemma3ForCausalLM as it is not yet supported", server_args.py): every layer at full length,
  // cell_size x tokens = 172,032 x 524,288 B = 90,194,313,216 B (84 GiB), more than the 80 GB card.
  const Plan p = make_plan(in);
  CHECK(p.per_gpu.kv_bytes_total.value == 90194313216ULL);
  CHECK_FALSE(p.fits);
  REQUIRE(!p.engine.log_lines.empty());
  CHECK(p.engine.log_lines.front() ==
        "Disable hybrid SWA memory for gemma3_text as it is not yet supported.");
  // Were the pool hybrid, the same users would take 524,288 full-layer tokens x 24,576 B and
  // ceil(524,288 x 0.3) = 157,287 sliding-layer tokens x 147,456 B: 36,077,813,760 B. gpt-oss keeps it
  // (below).
}

TEST_CASE("pipeline stages follow each engine's split: gemma-3-27b's 62 layers over 4 stages",
          "[engine][vllm][sglang][plan][parallel]") {
  // gemma-3-27b: 62 layers, full attention on every 6th (0-based 5, 11, 17, 23, 29, 35, 41, 47, 53, 59),
  // sliding (window 1,024) on the others; 16 KV heads x 128 x 2 (K, V) x 2 B = 8,192 B per token per
  // layer at tp 1. At 8,192 tokens a full layer holds 8,192 x 8,192 = 67,108,864 B, a sliding one
  // 1,024 x 8,192 = 8,388,608 B. 62 = 4 x 15 + 2.
  PlanInputs in;
  in.model = presets::find_model("gemma-3-27b");
  in.kv = KvDtypes{DType::bf16, DType::bf16};
  in.context = Tokens{8192};
  in.users = 1;
  in.deployment.parallel = Parallelism{1, 4, 1};
  in.gpu = presets::find_gpu("h100-sxm");
  constexpr std::uint64_t full = 67108864, sliding = 8388608;
  const auto check = [&](Engine e, std::vector<Stage> stages, std::vector<std::uint64_t> kv) {
    in.engine = engine(e);
    const Plan p = make_plan(in);
    REQUIRE(p.stages.size() == 4);
    for (std::size_t i = 0; i < 4; ++i) {
      CHECK(p.stages[i].stage == stages[i]);
      CHECK(p.stages[i].kv_bytes.value == kv[i]);
      CHECK(p.stages[i].bytes_per_token.value == stages[i].count * 8192);
    }
  };
  // vLLM (get_pp_indices: the 2 extra layers to partitions[-2] and [-3]): 15, 16, 16, 15 = layers
  // [0, 15) with 5, 11 full; [15, 31) with 17, 23, 29; [31, 47) with 35, 41; [47, 62) with 47, 53, 59.
  check(Engine::vllm, {{0, 15}, {15, 16}, {31, 16}, {47, 15}},
        {2 * full + 13 * sliding, 3 * full + 13 * sliding, 2 * full + 14 * sliding, 3 * full + 12 * sliding});
  // SGLang (the last 2 stages take them): 15, 15, 16, 16 = [0, 15), [15, 30) with 17, 23, 29,
  // [30, 46) with 35, 41, [46, 62) with 47, 53, 59.
  check(Engine::sglang, {{0, 15}, {15, 15}, {30, 16}, {46, 16}},
        {2 * full + 13 * sliding, 3 * full + 12 * sliding, 2 * full + 14 * sliding, 3 * full + 13 * sliding});
  // TensorRT-LLM and ideal (the first 2): 16, 16, 15, 15 = [0, 16) with 5, 11, [16, 32) with 17, 23, 29,
  // [32, 47) with 35, 41, [47, 62) with 47, 53, 59.
  for (const Engine e : {Engine::ideal, Engine::trtllm})
    check(
        e, {{0, 16}, {16, 16}, {32, 15}, {47, 15}},
        {2 * full + 14 * sliding, 3 * full + 13 * sliding, 2 * full + 13 * sliding, 3 * full + 12 * sliding});
}

TEST_CASE("recurrent-state types: only those the engine has", "[engine][vllm][llamacpp]") {
  // vLLM's MambaDType (vllm/config/cache.py) is auto, float32, float16 or bfloat16; llama.cpp keeps the
  // r and s rows in f32 (llama-model.cpp create_memory) with no option. Anything else would be a state
  // size the engine never allocates.
  const ModelSpec m = presets::find_model("granite-4.0-h-tiny");
  KvDtypes t{DType::bf16, DType::bf16};
  t.state = DType::q8_0;
  CHECK_THROWS_WITH(vllm_policy(m, t, Parallelism{}, Tokens{4096}, engine(Engine::vllm), std::nullopt),
                    Catch::StartsWith("mamba_cache_dtype: vLLM keeps the recurrent state in float32"));
  t.state.reset();
  t.ssm_state = DType::fp8_e4m3;
  CHECK_THROWS_WITH(vllm_policy(m, t, Parallelism{}, Tokens{4096}, engine(Engine::vllm), std::nullopt),
                    Catch::StartsWith("mamba_ssm_cache_dtype:"));
  t.ssm_state = DType::fp32;
  CHECK_NOTHROW(vllm_policy(m, t, Parallelism{}, Tokens{4096}, engine(Engine::vllm), std::nullopt));
  KvDtypes l{DType::fp16, DType::fp16};
  l.state = DType::fp16;
  CHECK_THROWS_WITH(
      llamacpp_policy(m, l, Parallelism{}, Tokens{4096}, 1, engine(Engine::llamacpp), std::nullopt),
      Catch::StartsWith("mamba_cache_dtype: llama.cpp keeps the recurrent state in f32"));
  CHECK(cli_flag_for("mamba_cache_dtype") == "--mamba-cache-dtype");
}

TEST_CASE("SGLang's per-request figure on a hybrid SWA pool: sliding layers hold the window, not the context",
          "[engine][sglang]") {
  // schedule_batch.py maybe_evict_swa / _evict_swa: sliding_window_size = config sliding_window - 1;
  // every sliding_window_size decode steps the slots below seqlen - 1 - sliding_window_size go, so a
  // request holds at most 2 x (sliding_window - 1) + page_size sliding-layer tokens.
  const KvDtypes bf16{DType::bf16, DType::bf16};
  SECTION("gemma-3-27b: no hybrid pool under SGLang, all 62 layers of 8,192 B at full length") {
    const ModelSpec m = presets::find_model("gemma-3-27b");
    // SGLang disables hybrid SWA memory for Gemma 2 and 3 (server_args.py): 62 x 8,192 = 507,904 B per
    // token x 32,768 (a hybrid pool would have held 2,684,354,560 + 871,989,248 B).
    CHECK(sglang_policy(m, bf16, Parallelism{}, Tokens{32768}, engine(Engine::sglang), std::nullopt)
              .kv_bytes_total.value == 16642998272ULL);
    // Shorter than the kept 2,047 tokens: every layer holds the whole request, 507,904 B x 1,000.
    CHECK(sglang_policy(m, bf16, Parallelism{}, Tokens{1000}, engine(Engine::sglang), std::nullopt)
              .kv_bytes_total.value == 507904000ULL);
  }
  SECTION("gpt-oss-120b: 18 full + 18 sliding layers of 8 x (64 + 64) x 2 B = 2,048 B, window 128") {
    const ModelSpec m = presets::find_model("gpt-oss-120b");
    // 36,864 B x 131,072 + 36,864 B x (2 x 127 + 1 page) = 4,831,838,208 + 9,400,320 B.
    CHECK(sglang_policy(m, bf16, Parallelism{}, Tokens{131072}, engine(Engine::sglang), std::nullopt)
              .kv_bytes_total.value == 4841238528ULL);
    // --page-size 64: 2 x 127 + 64 = 318 sliding-layer tokens, 36,864 B x 318 = 11,722,752 B.
    EngineOptions o = engine(Engine::sglang);
    o.block_size = 64;
    CHECK(sglang_policy(m, bf16, Parallelism{}, Tokens{131072}, o, std::nullopt).kv_bytes_total.value ==
          4843560960ULL);
  }
}

TEST_CASE("llama.cpp with flash attention off, and the cache types -ctk / -ctv take", "[engine][llamacpp]") {
  // Three sliding layers of 2 KV heads x 64 and one full layer of 2 x 128 (Gemma 4's per-type head dims).
  const ModelSpec m =
      test::model({{test::gqa(4, 2, 64, AttentionKind::sliding, 512), 3}, {test::gqa(4, 2, 128), 1}});
  auto off = engine(Engine::llamacpp);
  off.flash_attn_off = true;
  SECTION("-fa off: every layer's V row is the widest layer's (llama-kv-cache.cpp TAG_V_CACHE_VARIABLE)") {
    // Flash attention on: SWA cache 1,024 cells (pad(512 + 512, 256)); K = V = 3 x 128 values x 2 B x 1,024 =
    // 786,432 B. Full cache 4,096 cells x 256 values x 2 B = 2,097,152 B each of K and V.
    const auto on =
        llamacpp_policy(m, f16, Parallelism{}, Tokens{4096}, 1, engine(Engine::llamacpp), std::nullopt);
    REQUIRE(on.caches.size() == 2);
    CHECK(on.caches[1].v_bytes.value == 786432);
    // Off: the SWA layers' V padded to 256 values: 3 x 256 x 2 B x 1,024 = 1,572,864 B; K unchanged, and
    // the full layer already the widest. The live suite's gemma4 case: V (f16) 1.50 MiB against 0.75 MiB.
    const auto r = llamacpp_policy(m, f16, Parallelism{}, Tokens{4096}, 1, off, std::nullopt);
    REQUIRE(r.caches.size() == 2);
    CHECK(r.caches[1].k_bytes.value == 786432);
    CHECK(r.caches[1].v_bytes.value == 1572864);
    CHECK(r.caches[0].v_bytes.value == 2097152);
  }
  SECTION("-fa off refuses a quantised V (llama-context.cpp llama_init_from_model), not a quantised K") {
    CHECK_THROWS_WITH(llamacpp_policy(m, KvDtypes{DType::fp16, DType::q8_0}, Parallelism{}, Tokens{4096}, 1,
                                      off, std::nullopt),
                      Catch::Contains("quantised V cache (q8_0) with flash attention off"));
    CHECK_NOTHROW(llamacpp_policy(m, KvDtypes{DType::q8_0, DType::fp16}, Parallelism{}, Tokens{4096}, 1, off,
                                  std::nullopt));
  }
  SECTION("iq4_nl: 18 B per 32 values (block_iq4_nl); mxfp4 refused (common/arg.cpp kv_cache_types)") {
    const KvDtypes iq4{parse_dtype("iq4_nl"), parse_dtype("iq4_nl")};
    const auto r =
        llamacpp_policy(m, iq4, Parallelism{}, Tokens{4096}, 1, engine(Engine::llamacpp), std::nullopt);
    // Full layer: 256 values = 8 blocks = 144 B per cell, x 4,096 cells = 589,824 B each of K and V.
    CHECK(r.caches[0].k_bytes.value == 589824);
    CHECK_THROWS_WITH(llamacpp_policy(m, KvDtypes{DType::mxfp4, DType::mxfp4}, Parallelism{}, Tokens{4096}, 1,
                                      engine(Engine::llamacpp), std::nullopt),
                      Catch::Contains("no cache type mxfp4"));
  }
  SECTION("MLA refuses different K and V types (llama-context.cpp llama_init_from_model)") {
    const ModelSpec d = test::model({{test::mla(16, 512, 64), 4}});
    CHECK_THROWS_WITH(llamacpp_policy(d, KvDtypes{DType::q8_0, DType::fp16}, Parallelism{}, Tokens{4096}, 1,
                                      engine(Engine::llamacpp), std::nullopt),
                      Catch::Contains("different K and V cache types on an MLA model"));
  }
}

TEST_CASE("llama.cpp n_rs_seq: 1 + n_rs_seq recurrent states per sequence, on architectures with rollback",
          "[engine][llamacpp][recurrent]") {
  const ModelSpec m = presets::load_model_file(std::string(KVPLAN_CORPUS) + "/nemotron-3-nano-30b-a3b.json");
  auto rs = engine(Engine::llamacpp);
  rs.n_rs_seq = 3;
  const auto base =
      llamacpp_policy(m, f16, Parallelism{}, Tokens{4096}, 2, engine(Engine::llamacpp), std::nullopt);
  const auto r = llamacpp_policy(m, f16, Parallelism{}, Tokens{4096}, 2, rs, std::nullopt);
  // src/llama-memory-recurrent.cpp: n_rows = mem_size x (1 + n_rs_seq). Per cell R 1,695,744 B and S
  // 48,234,496 B (the test above); 2 cells, 3 more rows each: 3 x 2 x 49,930,240 = 299,581,440 B more.
  CHECK(r.kv_bytes_total.value - base.kv_bytes_total.value == 299581440ULL);
  bool found = false;
  for (const auto& l : r.log_lines)
    found = found || l.find("(     2 cells,  52 layers,  2 seqs  3 rs_seq)") != std::string::npos;
  CHECK(found);
  // Jamba has no rollback (llm_arch_supports_rs_rollback): clamped to 0, and said.
  const ModelSpec j = presets::load_model_file(std::string(KVPLAN_CORPUS) + "/jamba-1.5-mini.json");
  const auto jr = llamacpp_policy(j, f16, Parallelism{}, Tokens{4096}, 1, rs, std::nullopt);
  CHECK(jr.kv_bytes_total ==
        llamacpp_policy(j, f16, Parallelism{}, Tokens{4096}, 1, engine(Engine::llamacpp), std::nullopt)
            .kv_bytes_total);
  bool said = false;
  for (const auto& n : jr.notes) said = said || n.find("clamps it to 0") != std::string::npos;
  CHECK(said);
  // Older rules have no n_rs_seq.
  auto old = engine(Engine::llamacpp, "2025-11");
  old.n_rs_seq = 3;
  CHECK_THROWS_WITH(llamacpp_policy(m, f16, Parallelism{}, Tokens{4096}, 1, old, std::nullopt),
                    Catch::StartsWith("n_rs_seq:"));
}
