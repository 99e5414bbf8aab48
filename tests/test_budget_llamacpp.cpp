// llama.cpp's compute buffer and budget (core/src/budget_llamacpp.cpp), against public CUDA start-up logs
// and the real llama.cpp v0.4.0 on CPU (docs/engines/llamacpp-budget.md). Every expected figure is worked
// out by hand below from the model's dimensions and the log's settings, not taken from kvplan.
#include <catch2/catch.hpp>

#include "kvplan/budget.hpp"
#include "kvplan/error.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/presets.hpp"

using namespace kvplan;

namespace {
constexpr std::uint64_t kMiB = 1ULL << 20;

/// A dense GQA decoder of `layers` layers (the three logs' models are llama-style: SwiGLU, no bias).
ModelSpec dense(std::uint64_t embd, std::uint64_t ff, std::uint64_t heads, std::uint64_t kv_heads,
                std::uint64_t head_dim, std::uint64_t vocab, std::uint64_t layers) {
  ModelSpec m;
  m.id = "dense";
  m.hidden_size = embd;
  m.vocab_size = vocab;
  LayerGroup g;
  g.attention.kind = AttentionKind::full;
  g.attention.num_attention_heads = heads;
  g.attention.num_key_value_heads = kv_heads;
  g.attention.head_dim_k = head_dim;
  g.attention.head_dim_v = head_dim;
  g.mlp.intermediate_size = ff;
  g.count = layers;
  m.layers = {g};
  return m;
}

LlamacppGraph graph(std::uint64_t tokens, std::uint64_t cells, bool fa) {
  LlamacppGraph g;
  g.n_tokens = g.n_outputs = tokens;
  g.full_cells = cells;
  g.flash_attn = fa;
  return g;
}
}  // namespace

TEST_CASE("llama.cpp compute buffer: three public CUDA logs", "[budget][llamacpp]") {
  SECTION("Llama-3-8B, -c 512 -ub 512, flash attention off: 258.50 MiB logged") {
    // developer0hye/llama-3-korean-bllossom-8b-q4-docker README: n_embd 4096, n_ff 14336, 32 heads, 8 KV
    // heads, n_vocab 128256 (its llm_load_print_meta lines), n_ctx 512, n_ubatch 512, flash_attn 0,
    // "CUDA0 compute buffer size =   258.50 MiB". By hand, n_tokens 512, 512 cells:
    //   mask (f32) 512 x 512 x 4 = 1 MiB; output = 1 + 128256 x 512 x 4 (250.5 MiB) + 4096 x 512 x 4 (8 MiB)
    //   = 259.5 MiB; attention 1 + 32 x 512 x 512 x 4 (32) + 9 x 4096 x 512 x 4 (72) = 105 MiB; FFN 1 +
    //   (3 x 14336 + 4 x 4096) x 512 x 4 = 117 MiB. Largest: output, + 2 x 512 x 4 B of token ids and
    //   positions. 1 MiB (the mask's block) over the log.
    const auto c =
        llamacpp_compute_buffer(dense(4096, 14336, 32, 8, 128, 128256, 32), graph(512, 512, false));
    CHECK(c.phase == "output");
    CHECK(c.masks.value == 1 * kMiB);
    CHECK(c.attention.value == 105 * kMiB);
    CHECK(c.ffn.value == 117 * kMiB);
    CHECK(c.total.value == 259 * kMiB + kMiB / 2 + 4096);
    CHECK(llamacpp_compute_line(c.total) == "sched_reserve:      CUDA0 compute buffer size =   259.50 MiB");
  }
  SECTION("GLM-Z1-32B, -c 32768 -ub 512, flash attention on: 353.00 MiB logged") {
    // ikawrakow/ik_llama.cpp PR #370 (llama.cpp master@36667c8e): n_embd 6144, n_ff 23040, 48 heads, 2 KV
    // heads, head dim 128, n_vocab 151552, n_ctx 32768, n_ubatch 512, flash_attn 1. By hand: mask (f16)
    // 32768 x 512 x 2 = 32 MiB; output 32 + 151552 x 512 x 4 (296) + 6144 x 512 x 4 (12) = 340 MiB; FFN
    // 32 + (3 x 23040 + 4 x 6144) x 512 x 4 = 32 + 183 = 215 MiB. 13 MiB under the log (its f32 mask cast to
    // f16 on the GPU, docs/engines/llamacpp-budget.md).
    const auto c =
        llamacpp_compute_buffer(dense(6144, 23040, 48, 2, 128, 151552, 61), graph(512, 32768, true));
    CHECK(c.phase == "output");
    CHECK(c.ffn.value == 215 * kMiB);
    CHECK(c.total.value == 340 * kMiB + 4096);
  }
  SECTION("TinyLlama-1.1B, -c 256 -ub 64, flash attention auto (on): 8.31 MiB logged") {
    // hybridgroup/yzma README: 22 layers, 256 cells, n_tokens 64; TinyLlama-1.1B-Chat-v1.0's config.json:
    // hidden 2048, intermediate 5632, 32 heads, 4 KV heads, vocab 32000. By hand: mask 256 x 64 x 2 = 32 KiB;
    // output 32 KiB + 32000 x 64 x 4 (8,192,000 B) + 2048 x 64 x 4 (512 KiB) + 2 x 64 x 4 B = 8,749,568 B
    // = 8.34 MiB; FFN 32 KiB + (3 x 5632 + 4 x 2048) x 64 x 4 = 6.16 MiB.
    const auto c = llamacpp_compute_buffer(dense(2048, 5632, 32, 4, 64, 32000, 22), graph(64, 256, true));
    CHECK(c.phase == "output");
    CHECK(c.total.value == 8749568);
    CHECK(llamacpp_compute_line(c.total) == "sched_reserve:      CUDA0 compute buffer size =     8.34 MiB");
  }
}

TEST_CASE("llama.cpp compute buffer: the terms the CPU sweep isolates", "[budget][llamacpp]") {
  // The real llama.cpp v0.4.0 (CPU) on llama files of two layers, n_ctx 4096, n_ubatch 512, vocabulary 266
  // (tests/live/probe.mjs; docs/engines/llamacpp-budget.md).
  SECTION("the FFN phase: n_embd 1024, n_ff 4096, 36.01 MiB") {
    // mask 4096 x 512 x 2 = 4 MiB + (3 x 4096 + 4 x 1024) x 512 x 4 = 32 MiB; 36 MiB + 4 KiB of ids.
    const auto c = llamacpp_compute_buffer(dense(1024, 4096, 8, 2, 128, 266, 2), graph(512, 4096, true));
    CHECK(c.phase == "ffn");
    CHECK(c.total.value == 36 * kMiB + 4096);
  }
  SECTION("the scores without flash attention: 8 heads, 74.76 MiB") {
    // 8 x 4096 x 512 x 4 = 64 MiB + f32 mask 8 MiB + 9 x 256 x 512 x 4 = 4.5 MiB: 76.5 MiB against 74.76
    // (the attention rows are fitted on flash attention, where they are 9; off, llama.cpp keeps 5.5).
    const auto c = llamacpp_compute_buffer(dense(256, 512, 8, 2, 32, 266, 4), graph(512, 4096, false));
    CHECK(c.phase == "attention");
    CHECK(c.total.value == 76 * kMiB + kMiB / 2 + 4096);
  }
  SECTION("the output phase: vocabulary 128,000, 254.50 MiB") {
    // 128000 x 512 x 4 = 250 MiB + 256 x 512 x 4 = 0.5 MiB + mask 4 MiB = 254.5 MiB.
    const auto c = llamacpp_compute_buffer(dense(256, 512, 8, 2, 32, 128000, 2), graph(512, 4096, true));
    CHECK(c.phase == "output");
    CHECK(llamacpp_compute_line(c.total) == "sched_reserve:      CUDA0 compute buffer size =   254.50 MiB");
  }
}

TEST_CASE("llama.cpp graph: n_tokens, outputs and cells as llama_context reserves them",
          "[budget][llamacpp]") {
  const ModelSpec m = presets::find_model("llama-3.1-8b");
  EngineOptions o;
  o.engine = Engine::llamacpp;
  // 4 sequences of 4,096: 4 streams of 4,096 cells; n_tokens min(16384, 512) = 512, a multiple of 4.
  auto g = llamacpp_graph(m, o, 4, 4096);
  CHECK(g.full_cells == 4096);
  CHECK(g.swa_cells == 0);
  CHECK(g.n_tokens == 512);
  CHECK(g.flash_attn);
  // llama-server's outputs: one per slot (server_output_limits): 4.
  CHECK(g.n_outputs == 4);
  // 3 sequences: 512 rounded up to 513 (graph_reserve: a multiple of n_seq_max); 3 outputs, 3 x (1 + 2)
  // with two draft tokens each (--spec-draft-n-max 2, kvplan's --n-rs-seq).
  g = llamacpp_graph(m, o, 3, 4096);
  CHECK(g.n_tokens == 513);
  CHECK(g.n_outputs == 3);
  o.n_rs_seq = 2;
  CHECK(llamacpp_graph(m, o, 3, 4096).n_outputs == 9);
  // Releases before n_outputs_max: every token of the ubatch an output.
  o.version = "2025-11";
  CHECK(llamacpp_graph(m, o, 3, 4096).n_outputs == 512);
  o.version.clear();
  o.n_rs_seq = 0;
  // A context under n_ubatch: n_ctx = pad(300, 256) = 512 cells, n_tokens min(512, 512).
  o.ubatch = 1024;
  g = llamacpp_graph(m, o, 1, 300);
  CHECK(g.full_cells == 512);
  CHECK(g.n_tokens == 512);
  // Unified: one stream of every sequence's cells.
  o.ubatch = 0;
  o.kv_unified = true;
  o.flash_attn_off = true;
  g = llamacpp_graph(m, o, 4, 4096);
  CHECK(g.full_cells == 16384);
  CHECK_FALSE(g.flash_attn);
  // Gemma 3: the iSWA pair, a window of 1,024 + n_ubatch 512 = 1,536 SWA cells.
  const ModelSpec gemma = presets::find_model("gemma-3-27b");
  o = EngineOptions{};
  o.engine = Engine::llamacpp;
  g = llamacpp_graph(gemma, o, 1, 8192);
  CHECK(g.full_cells == 8192);
  CHECK(g.swa_cells == 1536);
}

TEST_CASE("llama.cpp budget: the GPU less the model and compute buffers", "[budget][llamacpp]") {
  const ModelSpec m = dense(4096, 14336, 32, 8, 128, 128256, 32);
  BudgetInputs in{m,
                  Parallelism{},
                  {Bytes{80ULL << 30}, std::nullopt, "h100"},
                  std::nullopt,
                  Bytes{16ULL << 30},
                  EngineOptions{}};
  const MemoryBudget b = llamacpp_budget(in, graph(512, 512, false));
  // 80 GiB - 16 GiB - 259.5 MiB (and 4 KiB): the compute buffer as above.
  const std::uint64_t compute = 259 * kMiB + kMiB / 2 + 4096;
  CHECK(b.modelled);
  CHECK(b.activation.value == compute);
  CHECK(b.reserve.value == compute);
  CHECK(b.requested.value == 80ULL << 30);
  CHECK(b.kv.value == (64ULL << 30) - compute);
  CHECK(b.lines.back() == "sched_reserve:      CUDA0 compute buffer size =   259.50 MiB");
  // A GPU the weights fill: nothing left, fits_weights false.
  in.weights_per_gpu = Bytes{80ULL << 30};
  CHECK_FALSE(llamacpp_budget(in, graph(512, 512, false)).fits_weights);
}

// llama.cpp has no utilisation fraction: its memory is named as the device's, never "requested (runtime total
// x utilisation)" as vLLM's (issue 27). Where the user gives a fraction, the name says it is kvplan's cap.
TEST_CASE("llama.cpp budget: its memory in llama.cpp's words", "[budget][llamacpp]") {
  const ModelSpec m = dense(4096, 14336, 32, 8, 128, 128256, 32);
  BudgetInputs in{m,
                  Parallelism{},
                  {Bytes{80ULL << 30}, std::nullopt, "h100"},
                  std::nullopt,
                  Bytes{16ULL << 30},
                  EngineOptions{}};
  RequestedName n = requested_name(Engine::llamacpp, llamacpp_budget(in, graph(512, 512, false)));
  CHECK(n.name == "device memory");
  CHECK(n.basis == "nvidia-smi total");  // no runtime total given: the driver's memory is used
  in.gpu.runtime_memory = Bytes{79ULL << 30};
  n = requested_name(Engine::llamacpp, llamacpp_budget(in, graph(512, 512, false)));
  CHECK(n.basis == "runtime total");
  in.gpu_memory_utilization = 0.9;
  n = requested_name(Engine::llamacpp, llamacpp_budget(in, graph(512, 512, false)));
  CHECK(n.basis == "runtime total x 0.9 (kvplan's cap; llama.cpp has none)");
  // vLLM's keeps its own words.
  CHECK(requested_name(Engine::vllm, vllm_budget(in)).basis == "runtime total x utilisation");
}

// The longest context follows the compute buffer at that context (without flash attention the scores span
// the cells): whatever context is asked, the plan gives one max context, at which the users fit, and one
// cache step (256 cells, llama.cpp's padding) past it they do not. It used to keep the buffer of the context
// asked: 93,184 tokens for gpt-oss-20b asked at 20,000, which did not fit when asked.
TEST_CASE("llama.cpp max context: the compute buffer at that context, whatever context is asked",
          "[budget][llamacpp]") {
  for (const char* id : {"llama-3.1-8b", "gpt-oss-20b"}) {
    PlanInputs in;
    in.model = presets::find_model(id);
    in.gpu = presets::find_gpu("rtx-4090");
    in.engine.engine = Engine::llamacpp;
    in.engine.flash_attn_off = true;
    in.kv.k = in.kv.v = DType::fp16;
    in.users = 2;
    std::optional<Tokens> first;
    for (const std::uint64_t asked : {4096ULL, 20000ULL, 40000ULL, 65536ULL}) {
      in.context = Tokens{asked};
      const Plan p = make_plan(in);
      REQUIRE(p.max_context.has_value());
      if (!first) first = p.max_context;
      CHECK(p.max_context->value == first->value);
    }
    REQUIRE(first->value > 256);
    in.context = *first;
    CHECK(make_plan(in).fits);
    in.context = Tokens{first->value + 256};
    CHECK_FALSE(make_plan(in).fits);
  }
}

// Max users likewise (a tester's case: --kv-unified at 8,192 tokens on two RTX 4090s said 26 at 6 users, 5 at
// 26, while 16 fit and 20 did not): the buffer at each count of users. One max for every count asked, it
// fits, and one user more does not; with and without --kv-unified and flash attention.
TEST_CASE("llama.cpp max users: the compute buffer at that many users, whatever users are asked",
          "[budget][llamacpp]") {
  for (const bool unified : {true, false})
    for (const bool fa_off : {true, false}) {
      INFO("unified " << unified << ", flash attention off " << fa_off);
      PlanInputs in;
      in.model = presets::find_model("llama-3.1-8b");
      in.gpu = presets::find_gpu("rtx-4090");
      in.engine.engine = Engine::llamacpp;
      in.engine.kv_unified = unified;
      in.engine.flash_attn_off = fa_off;
      in.kv.k = in.kv.v = DType::fp16;
      in.deployment.parallel = Parallelism{1, 2, 1};
      in.context = Tokens{8192};
      std::optional<std::uint64_t> first;
      for (const std::uint64_t asked : {1ULL, 6ULL, 26ULL}) {
        in.users = asked;
        const std::uint64_t most = make_plan(in).max_users;
        if (!first) first = most;
        CHECK(most == *first);
      }
      REQUIRE(*first > 1);
      in.users = *first;
      CHECK(make_plan(in).fits);
      in.users = *first + 1;
      CHECK_FALSE(make_plan(in).fits);
    }
}
