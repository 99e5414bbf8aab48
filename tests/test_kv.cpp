#include <catch2/catch.hpp>

#include "kvplan/engine.hpp"
#include "kvplan/kv.hpp"
#include "test_support.hpp"

#include <vector>

using namespace kvplan;
using namespace kvplan::test;

TEST_CASE("the lesson's figures, exactly", "[kv][lesson]") {
  const KvDtypes fp16{DType::fp16, DType::fp16};
  SECTION("MHA: 80 layers x 64 heads x head_dim 128 in fp16") {
    const auto m = model({{gqa(64, 64, 128), 80}});
    // 2 (K and V) * 64 heads * 128 dims = 16,384 values per layer; * 80 = 1,310,720 values; * 2 B = 2,621,440
    // B.
    CHECK(bytes_per_token(m, fp16).value == 2621440);
    // 2,621,440 B * 4,096 tokens = 10,737,418,240 B (the lesson's 10.7 GB).
    CHECK(kv_bytes_per_sequence(m, fp16, Tokens{4096}).value == 10737418240ULL);
  }
  SECTION("GQA with 8 KV heads: the 8x saving") {
    const auto mha = model({{gqa(64, 64, 128), 80}});
    const auto g8 = model({{gqa(64, 8, 128), 80}});
    // 2 * 8 * 128 = 2,048 values per layer; * 80 = 163,840 values; * 2 B = 327,680 B.
    CHECK(bytes_per_token(g8, fp16).value == 327680);
    // 327,680 B * 4,096 = 1,342,177,280 B (the lesson's 1.34 GB).
    CHECK(kv_bytes_per_sequence(g8, fp16, Tokens{4096}).value == 1342177280ULL);
    CHECK(kv_bytes_per_sequence(mha, fp16, Tokens{4096}).value ==
          8 * kv_bytes_per_sequence(g8, fp16, Tokens{4096}).value);
  }
  SECTION("MQA: one KV head") {
    // 2 * 1 * 128 * 2 B * 80 = 40,960 B.
    CHECK(bytes_per_token(model({{gqa(64, 1, 128), 80}}), fp16).value == 40960);
  }
}

TEST_CASE("K and V types and head dims may differ", "[kv]") {
  AttentionLayer a = gqa(32, 8, 128);
  a.head_dim_v = 64;
  // K: 8 * 128 = 1024 values in fp8 = 1,024 B; V: 8 * 64 = 512 values in q8_0 = 16 blocks * 34 = 544 B.
  CHECK(layer_bytes_per_token(a, KvDtypes{DType::fp8_e4m3, DType::q8_0}).value == 1024 + 544);
}

TEST_CASE("sliding windows and chunks cap the cache", "[kv]") {
  const KvDtypes bf16;
  // Per layer: 2 * 8 * 128 * 2 B = 4,096 B per token.
  const auto swa = model({{gqa(32, 8, 128, AttentionKind::sliding, 4096), 1}});
  CHECK(bytes_per_token(swa, bf16).value == 4096);
  CHECK(full_bytes_per_token(swa, bf16).value == 0);
  CHECK(kv_bytes_per_sequence(swa, bf16, Tokens{100}).value == 100 * 4096);
  CHECK(kv_bytes_per_sequence(swa, bf16, Tokens{10000}).value ==
        4096ULL * 4096);  // holds min(L, W) = 4096 tokens
  const auto chunked = model({{gqa(32, 8, 128, AttentionKind::chunked, 8192), 3}, {gqa(32, 8, 128), 1}});
  CHECK(bytes_per_token(chunked, bf16).value == 4 * 4096);
  CHECK(full_bytes_per_token(chunked, bf16).value == 4096);
  // 3 chunked layers hold 8,192 tokens, the global one 100,000: (3 * 8192 + 100000) * 4096.
  CHECK(kv_bytes_per_sequence(chunked, bf16, Tokens{100000}).value == (3ULL * 8192 + 100000) * 4096);
}

TEST_CASE("MLA caches the latent once per token per layer", "[kv][mla]") {
  // DeepSeek-V2-Lite: 27 layers, (kv_lora_rank 512 + qk_rope_head_dim 64) * 2 B = 1,152 B per layer; * 27 =
  // 31,104 B.
  const auto m = model({{mla(16, 512, 64), 27}});
  CHECK(bytes_per_token(m, KvDtypes{}).value == 31104);
  // vLLM's "KV cache needed for one 32,768-token request": 31,104 * 32,768 = 1,019,215,872 B = 0.949 GiB
  // (logged 0.95).
  CHECK(kv_bytes_per_sequence(m, KvDtypes{}, Tokens{32768}).value == 1019215872ULL);
  // Not split by tensor parallelism: every rank holds the whole latent.
  CHECK(layer_bytes_per_token(m.layers[0].attention, KvDtypes{}, 8).value == 1152);
}

TEST_CASE("a V type apart from K's is refused on MLA: the latent is one tensor", "[kv][mla]") {
  // The latent (512 + 64 values) feeds both K and V: a V type would change nothing, so it is an error, not
  // a silently ignored input. The same types, or a V type on a GQA model, are fine: K 1 B (fp8) + V 2 B
  // (bf16) * 8 heads * 128 * 32 layers = 98,304 B.
  const auto deepseek = model({{mla(16, 512, 64), 27}});
  const KvDtypes split{DType::bf16, DType::fp8_e4m3};
  CHECK_THROWS_WITH(require_v_type_applies(deepseek, split),
                    "v_dtype: fp8_e4m3 differs from the K type bf16, but an MLA layer caches one latent per "
                    "token (kv_lora_rank + qk_rope_head_dim, K and V both projected from it): there is no "
                    "separate V to store; give one type for both (`kv_dtype`)");
  CHECK_THROWS_WITH(ideal_policy(deepseek, split, Parallelism{}, Tokens{4096}, 1, std::nullopt),
                    Catch::StartsWith("v_dtype: fp8_e4m3 differs from the K type bf16"));
  CHECK_NOTHROW(require_v_type_applies(deepseek, KvDtypes{DType::fp8_e4m3, DType::fp8_e4m3}));
  const auto gqa8 = model({{gqa(32, 8, 128), 32}});
  CHECK_NOTHROW(require_v_type_applies(gqa8, KvDtypes{DType::fp8_e4m3, DType::bf16}));
  CHECK(bytes_per_token(gqa8, KvDtypes{DType::fp8_e4m3, DType::bf16}).value == 98304);
}

TEST_CASE("recurrent layers keep a fixed state, no per-token cache", "[kv]") {
  AttentionLayer mamba;
  mamba.kind = AttentionKind::recurrent;
  mamba.recurrent.kind = RecurrentSpec::Kind::mamba;
  mamba.recurrent.d_inner = 8192;
  mamba.recurrent.d_state = 16;
  mamba.recurrent.d_conv = 4;
  mamba.recurrent.dt_rank = 256;
  CHECK(layer_bytes_per_token(mamba, KvDtypes{}).value == 0);
  // Jamba-like: d_inner 8192 * (d_conv 4 - 1) + 8192 * d_state 16 = 24,576 + 131,072 = 155,648 values * 2 B.
  CHECK(layer_state_bytes(mamba, KvDtypes{}).value == 311296);
  AttentionLayer dn;
  dn.kind = AttentionKind::recurrent;
  dn.recurrent.kind = RecurrentSpec::Kind::gated_deltanet;
  dn.recurrent.d_conv = 4;
  dn.recurrent.num_key_heads = 16;
  dn.recurrent.num_value_heads = 32;
  dn.recurrent.key_head_dim = 128;
  dn.recurrent.value_head_dim = 128;
  // Qwen3-Next-like: key_dim 16*128 = 2048, value_dim 32*128 = 4096; conv (2*2048 + 4096) * 3 = 24,576;
  // state 32 * 128 * 128 = 524,288; 548,864 values * 2 B = 1,097,728 B.
  CHECK(layer_state_bytes(dn, KvDtypes{}).value == 1097728);
  const auto m = model({{mamba, 7}, {gqa(32, 8, 128), 1}});
  CHECK(bytes_per_token(m, KvDtypes{}).value == 4096);
  CHECK(state_bytes_per_sequence(m, KvDtypes{}).value == 7 * 311296);
}

TEST_CASE("every recurrent kind's state, at the dtypes the model declares", "[kv][recurrent]") {
  AttentionLayer a;
  a.kind = AttentionKind::recurrent;
  RecurrentSpec& r = a.recurrent;
  SECTION("Mamba2: conv over x, B and C; SSM at its own dtype (Nemotron-3-Nano's layer)") {
    r.kind = RecurrentSpec::Kind::mamba2;
    r.n_heads = 64;
    r.head_dim = 64;
    r.d_inner = 64 * 64;
    r.n_groups = 8;
    r.d_state = 128;
    r.d_conv = 4;
    r.conv_dtype = DType::bf16;
    r.ssm_dtype = DType::fp32;
    // SSM 64 x 64 x 128 x 4 B = 2,097,152; conv (4,096 + 2 x 8 x 128) x 3 x 2 B = 36,864.
    CHECK(layer_state_bytes(a, KvDtypes{}).value == 2097152 + 36864);
    // vLLM --mamba-ssm-cache-dtype bfloat16: the SSM part halves, 1,048,576 + 36,864.
    KvDtypes t;
    t.ssm_state = DType::bf16;
    CHECK(layer_state_bytes(a, t).value == 1048576 + 36864);
    // --mamba-cache-dtype float32 alone: the conv part follows, the SSM part was already fp32.
    KvDtypes f;
    f.state = DType::fp32;
    CHECK(layer_state_bytes(a, f).value == 2097152 + 73728);
    // tp 4: 16 heads and 1,024 channels per rank, 2 groups: SSM 16 x 64 x 128 x 4 = 524,288;
    // conv (1,024 + 2 x 2 x 128) x 3 x 2 = 9,216.
    CHECK(layer_state_bytes(a, KvDtypes{}, 4).value == 524288 + 9216);
    // tp 16 with 8 groups: each rank keeps one whole group (extra_groups_for_head_shards):
    // conv (256 + 2 x 1 x 128) x 3 x 2 = 3,072; SSM 4 x 64 x 128 x 4 = 131,072.
    CHECK(layer_state_bytes(a, KvDtypes{}, 16).value == 131072 + 3072);
  }
  SECTION("Kimi Delta Attention: three short convs, recurrent state always fp32") {
    r.kind = RecurrentSpec::Kind::kda;
    r.num_key_heads = 32;
    r.key_head_dim = 128;
    r.d_conv = 4;
    // conv 3 x 32 x 128 x 3 x 2 B = 73,728; recurrent 32 x 128 x 128 x 4 B = 2,097,152.
    CHECK(layer_state_bytes(a, KvDtypes{}).value == 73728 + 2097152);
  }
  SECTION("lightning attention: one heads x d x d state") {
    r.kind = RecurrentSpec::Kind::lightning;
    r.num_key_heads = 64;
    r.key_head_dim = 128;
    CHECK(layer_state_bytes(a, KvDtypes{}).value == 64ULL * 128 * 128 * 2);
  }
  SECTION("short conv (LFM2-350M): hidden x (L_cache - 1)") {
    r.kind = RecurrentSpec::Kind::short_conv;
    r.d_inner = 1024;
    r.d_conv = 3;
    CHECK(layer_state_bytes(a, KvDtypes{}).value == 1024 * 2 * 2);
  }
  CHECK(layer_bytes_per_token(a, KvDtypes{}).value == 0);
}

TEST_CASE("side caches and layers that cache nothing", "[kv]") {
  // DeepSeek-V3.2: latent 576 x 2 B + indexer 128 fp8 + 4 B scale = 1,152 + 132 = 1,284 per layer,
  // whatever the KV dtype for the indexer part: fp8 latent 576 + 132 = 708.
  AttentionLayer mla;
  mla.kind = AttentionKind::mla;
  mla.num_attention_heads = 128;
  mla.kv_lora_rank = 512;
  mla.qk_rope_head_dim = 64;
  mla.indexer_head_dim = 128;
  CHECK(indexer_bytes_per_token(mla).value == 132);
  CHECK(layer_bytes_per_token(mla, KvDtypes{}).value == 1284);
  CHECK(layer_bytes_per_token(mla, KvDtypes{DType::fp8_e4m3, DType::fp8_e4m3}).value == 708);
  // gemma-3n's KV-shared layers and NemotronH's MLP-only blocks cache nothing.
  AttentionLayer shared = gqa(8, 2, 256);
  shared.kv_shared = true;
  CHECK(layer_bytes_per_token(shared, KvDtypes{}).value == 0);
  AttentionLayer mlp;
  mlp.kind = AttentionKind::mlp_only;
  CHECK(layer_bytes_per_token(mlp, KvDtypes{}).value == 0);
  CHECK(layer_state_bytes(mlp, KvDtypes{}).value == 0);
  CHECK(cached_tokens(mlp, Tokens{4096}).value == 0);
}

TEST_CASE("a recurrent layer without its dimensions is refused", "[kv][recurrent]") {
  // The GUI's SIGFPE: a recurrent group with no state fields reached vLLM's page arithmetic.
  AttentionLayer a;
  a.kind = AttentionKind::recurrent;
  const auto m = model({{a, 1}, {gqa(1, 1, 1), 1}});
  CHECK_THROWS_AS(validate(m), Error);
}

TEST_CASE("tensor parallel splits KV heads, replicating past the head count", "[kv][parallel]") {
  const AttentionLayer a = gqa(64, 8, 128);
  CHECK(kv_heads_per_rank(a, 1) == 8);
  CHECK(kv_heads_per_rank(a, 4) == 2);
  CHECK(kv_heads_per_rank(a, 8) == 1);
  CHECK(kv_heads_per_rank(a, 16) == 1);  // each rank still holds one head
  // tp 16: 1 head * 128 * 2 (K, V) * 2 B = 512 B per rank; 16 ranks hold 8,192 B, twice the unsplit 4,096 B.
  const auto m = model({{a, 1}});
  const Parallelism tp16{16, 1, 1};
  CHECK(layer_bytes_per_token(a, KvDtypes{}, 16).value == 512);
  CHECK(replica_sequence_bytes(m, KvDtypes{}, Tokens{1}, tp16).value == 8192);
  CHECK_THROWS_AS(validate_parallelism(m, Parallelism{3, 1, 1}), Error);  // 3 does not divide 64 heads
  CHECK_THROWS_AS(validate_parallelism(model({{gqa(48, 6, 128), 1}}), Parallelism{4, 1, 1}),
                  Error);  // 4 vs 6 KV heads
  CHECK_NOTHROW(validate_parallelism(m, tp16));
}

TEST_CASE("pipeline stages split layers; the fullest decides", "[kv][parallel]") {
  const auto s = pipeline_stages(80, 3);
  REQUIRE(s.size() == 3);
  CHECK(s[0].count == 27);
  CHECK(s[1].count == 27);
  CHECK(s[2].count == 26);
  CHECK(s[2].first == 54);
  CHECK_THROWS_AS(pipeline_stages(4, 5), Error);
  CHECK_THROWS_AS(pipeline_stages(4, 0), Error);
  // Alternating sliding (W = 10) and full layers, 4 layers in 2 stages: each stage has one of each.
  const auto m = model({{gqa(8, 8, 16, AttentionKind::sliding, 10), 1},
                        {gqa(8, 8, 16), 1},
                        {gqa(8, 8, 16, AttentionKind::sliding, 10), 1},
                        {gqa(8, 8, 16), 1}});
  // Per layer: 2 * 8 * 16 * 2 B = 512 B per token. At L = 100: 512 * 10 + 512 * 100 = 56,320 B per stage.
  const auto per = per_gpu_sequence_bytes(m, KvDtypes{}, Tokens{100}, Parallelism{1, 2, 1});
  REQUIRE(per.size() == 2);
  CHECK(per[0].kv_bytes.value == 56320);
  CHECK(per[1].kv_bytes.value == 56320);
  CHECK(per[0].bytes_per_token.value == 1024);
}

TEST_CASE("pipeline splits: where each engine puts the layers pp does not divide", "[kv][parallel]") {
  const auto counts = [](std::uint64_t layers, std::uint64_t pp, PipelineSplit split,
                         std::uint64_t draft = 0) {
    std::vector<std::uint64_t> out;
    std::uint64_t next = 0;
    for (const auto& s : pipeline_stages(layers, pp, draft, split)) {
      CHECK(s.first == next);  // contiguous, in order
      next = s.first + s.count;
      out.push_back(s.count);
    }
    CHECK(next == layers);  // every layer once
    return out;
  };
  using V = std::vector<std::uint64_t>;
  // vLLM's get_pp_indices: partitions = [L // pp] * pp; partitions[-i] += 1 for i in 2 .. L % pp + 1.
  CHECK(counts(22, 4, PipelineSplit::before_last) == V{5, 6, 6, 5});      // 22 % 4 = 2: [-2], [-3]
  CHECK(counts(61, 4, PipelineSplit::before_last) == V{15, 15, 16, 15});  // 61 % 4 = 1: [-2]
  CHECK(counts(7, 3, PipelineSplit::before_last) == V{2, 3, 2});
  CHECK(counts(11, 4, PipelineSplit::before_last) == V{3, 3, 3, 2});  // 11 % 4 = 3: [-2], [-3], [-4]
  CHECK(counts(8, 4, PipelineSplit::before_last) == V{2, 2, 2, 2});
  CHECK(counts(5, 1, PipelineSplit::before_last) == V{5});
  // SGLang's get_pp_indices: the last L % pp partitions take one more.
  CHECK(counts(22, 4, PipelineSplit::last_stages) == V{5, 5, 6, 6});
  CHECK(counts(7, 3, PipelineSplit::last_stages) == V{2, 2, 3});
  // TensorRT-LLM's torch.tensor_split: the first L % pp.
  CHECK(counts(22, 4, PipelineSplit::first_stages) == V{6, 6, 5, 5});
  // A drafter's 2 layers join the last stage after vLLM splits the target's 22: 5, 6, 6, 5 + 2.
  CHECK(counts(24, 4, PipelineSplit::before_last, 2) == V{5, 6, 6, 7});
  // One stage alone: pipeline_stage agrees with pipeline_stages (stage 2 of 22 / 4 under vLLM: 11..16).
  CHECK(pipeline_stage(22, 4, 2, 0, PipelineSplit::before_last) == Stage{11, 6});
  CHECK(pipeline_stage(22, 4, 3, 0, PipelineSplit::last_stages) == Stage{16, 6});
}

TEST_CASE("overflow is an error, never a wrapped number", "[kv][overflow]") {
  // 4e9 layers * 2 * 1e5 heads * 1e5 dims * 2 B does not fit in 64 bits.
  const auto m = model({{gqa(100000, 100000, 100000), 4000000000ULL}});
  CHECK_THROWS_AS(bytes_per_token(m, KvDtypes{}), Error);
  const auto ok = model({{gqa(64, 8, 128), 80}});
  CHECK_THROWS_AS(kv_bytes_per_sequence(ok, KvDtypes{}, Tokens{1ULL << 62}), Error);
}
