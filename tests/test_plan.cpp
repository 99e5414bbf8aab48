#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kvplan/plan.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/replicas.hpp"
#include "kvplan/weights.hpp"
#include "test_support.hpp"

using namespace kvplan;
using namespace kvplan::test;

namespace {
/// 10 layers of MHA 4 heads x 16 dims: 2 * 4 * 16 * 2 B = 256 B per layer per token, 2,560 B per token.
PlanInputs small(std::uint64_t memory) {
  PlanInputs in;
  in.model = model({{gqa(4, 4, 16), 10}});
  in.context = Tokens{100};
  in.users = 3;
  in.deployment.gpu_memory_utilization = 1.0;
  in.deployment.reserve = Bytes{0};
  in.deployment.weights = Bytes{0};
  in.gpu = Gpu{"g", "test GPU", Bytes{memory}, 0, 0, "", 0, false, std::nullopt, ""};
  return in;
}
}  // namespace

TEST_CASE("capacity: fits, max users, max context", "[plan]") {
  const Plan p = make_plan(small(1000000));
  // Per sequence: 2,560 B * 100 tokens = 256,000 B; 3 users = 768,000 B <= 1,000,000 B.
  CHECK(p.kv_bytes_per_sequence.value == 256000);
  CHECK(p.per_gpu.kv_bytes_total.value == 768000);
  CHECK(p.fits);
  CHECK(p.per_gpu.free_bytes.value == 232000);
  // floor(1,000,000 / 256,000) = 3 users.
  CHECK(p.max_users == 3);
  // 3 users: floor(1,000,000 / 3 / 2,560) = floor(130.2) = 130 tokens.
  REQUIRE(p.max_context);
  CHECK(p.max_context->value == 130);

  auto in = small(1000000);
  in.users = 4;  // 1,024,000 B > 1,000,000 B
  const Plan q = make_plan(in);
  CHECK_FALSE(q.fits);
  CHECK(q.limit.kind == Limit::Kind::kv_cache);
  CHECK(q.limit.needed == Bytes{1024000});
  CHECK(q.limit.available == Bytes{1000000});
  // Worded in the units asked for: 1,024,000 B is 1.02 MB; 1,000,000 B is 1.00 MB or 977 KiB.
  const std::string si = describe_limit(q.limit, UnitSystem::si);
  CHECK(si.find("KV cache: 4 users x 100 tokens need 1.02 MB per GPU, only 1.00 MB") != std::string::npos);
  CHECK(describe_limit(q.limit, UnitSystem::iec).find("only 977 KiB") != std::string::npos);
}

TEST_CASE("capacity subtracts weights and reserve from usable memory", "[plan]") {
  auto in = small(1000000);
  in.deployment.gpu_memory_utilization = 0.9;  // usable floor(900,000)
  in.deployment.weights = Bytes{200000};
  in.deployment.reserve = Bytes{100000};
  in.deployment.parallel.tp = 2;  // weights per GPU 100,000; 2 heads per rank: 1,280 B per token
  const Plan p = make_plan(in);
  CHECK(p.per_gpu.usable_bytes.value == 900000);
  CHECK(p.per_gpu.weights_bytes.value == 100000);
  CHECK(p.per_gpu.available_kv_bytes.value == 700000);
  // 1,280 B * 100 tokens = 128,000 B per sequence per GPU; floor(700,000 / 128,000) = 5 users.
  CHECK(p.per_gpu.bytes_per_sequence.value == 128000);
  CHECK(p.max_users == 5);
  // Across both ranks the 3 users hold 3 * 256,000 B.
  CHECK(p.kv_bytes_total.value == 768000);
  CHECK(p.gpus == 2);

  in.deployment.weights = Bytes{2000000};  // 1,000,000 per GPU > usable
  const Plan q = make_plan(in);
  CHECK_FALSE(q.fits);
  CHECK(q.max_users == 0);
  CHECK(q.limit.kind == Limit::Kind::weights);
  CHECK(describe_limit(q.limit, UnitSystem::iec).find("weights") != std::string::npos);
}

TEST_CASE("data-parallel replicas share the users", "[plan]") {
  auto in = small(1000000);
  in.users = 5;
  in.deployment.parallel.dp = 2;  // ceil(5 / 2) = 3 users per replica
  const Plan p = make_plan(in);
  CHECK(p.per_gpu.users == 3);
  CHECK(p.fits);
  CHECK(p.max_users == 6);  // 3 per replica * 2
}

TEST_CASE("max context counts windows exactly", "[plan]") {
  PlanInputs in = small(100000);
  // One sliding layer (W = 100) and one full layer, 256 B per token each.
  in.model = model({{gqa(4, 4, 16, AttentionKind::sliding, 100), 1}, {gqa(4, 4, 16), 1}});
  in.users = 1;
  in.context = Tokens{10};
  const Plan p = make_plan(in);
  // Past the window: 256 * 100 + 256 * L <= 100,000 -> L <= 290.6 -> 290.
  REQUIRE(p.max_context);
  CHECK(p.max_context->value == 290);

  in.model = model({{gqa(4, 4, 16, AttentionKind::sliding, 100), 2}});  // every layer windowed
  const Plan q = make_plan(in);
  CHECK_FALSE(q.max_context.has_value());  // unbounded: 2 * 256 * 100 = 51,200 B fits
}

TEST_CASE("bad deployment values are errors", "[plan]") {
  auto in = small(1000000);
  for (const double u :
       {0.0, -0.5, 1.5, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    in.deployment.gpu_memory_utilization = u;
    CHECK_THROWS_AS(make_plan(in), Error);
  }
  in = small(1000000);
  in.users = 0;
  CHECK_THROWS_AS(make_plan(in), Error);
  in = small(1000000);
  in.deployment.parallel.pp = 11;  // more stages than the 10 layers
  CHECK_THROWS_AS(make_plan(in), Error);
  in = small(1000000);
  in.deployment.parallel.tp = 3;  // does not divide 4 heads
  CHECK_THROWS_AS(make_plan(in), Error);
  CHECK(usable_memory(Bytes{1000}, 0.9).value == 900);
}

TEST_CASE("a context past max_position_embeddings warns", "[plan]") {
  auto in = small(1000000);
  in.model.max_position_embeddings = 50;
  const Plan p = make_plan(in);
  REQUIRE(p.warnings.size() == 1);
  CHECK(p.warnings[0].find("max_position_embeddings") != std::string::npos);
}

TEST_CASE("max_context_for: exact at the edges of the search", "[plan]") {
  // One layer, 1 KV head of 1 dim in fp8: K + V = 2 B per token.
  const KvDtypes fp8{DType::fp8_e4m3, DType::fp8_e4m3, DType::fp8_e4m3};
  const Parallelism one{};
  const ModelSpec m = model({{gqa(1, 1, 1), 1}});
  constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  // floor((2^64 - 1) / 2) = 2^63 - 1 tokens: 2^63 tokens would need 2^64 B, which overflows.
  CHECK(max_context_for(m, fp8, one, 1, Bytes{top})->value == (std::uint64_t{1} << 63) - 1);
  // 3 users in 1,000 B: floor(1000 / 6) = 166.
  CHECK(max_context_for(m, fp8, one, 3, Bytes{1000})->value == 166);
  CHECK(max_context_for(m, fp8, one, 1, Bytes{1})->value == 0);
  CHECK(max_context_for(m, fp8, one, 1, Bytes{2})->value == 1);

  // Only a 10-token window: 20 B holds it for any length; 19 B holds 9 tokens (18 B).
  const ModelSpec windowed = model({{gqa(1, 1, 1, AttentionKind::sliding, 10), 1}});
  CHECK_FALSE(max_context_for(windowed, fp8, one, 1, Bytes{20}).has_value());
  CHECK(max_context_for(windowed, fp8, one, 1, Bytes{19})->value == 9);

  // A full layer and a 1,000-token window, 2 B each per token. Below the window 4 B per token:
  // 3,000 B -> 750 tokens. Past it 2 L + 2,000 B: 5,000 B -> 1,500 tokens.
  const ModelSpec hybrid = model({{gqa(1, 1, 1), 1}, {gqa(1, 1, 1, AttentionKind::sliding, 1000), 1}});
  CHECK(max_context_for(hybrid, fp8, one, 1, Bytes{3000})->value == 750);
  CHECK(max_context_for(hybrid, fp8, one, 1, Bytes{5000})->value == 1500);
}

TEST_CASE("DP attention: DeepSeek-V3 on 8 x H200 at 32,768 tokens, --tp 8 against DP attention 8, by hand",
          "[plan][dp-attention]") {
  PlanInputs in;
  in.model = presets::find_model("deepseek-v3");
  // The plain fp8 arithmetic below (no block scales, norms at fp8): the checkpoint's layout with its
  // weight_scale_inv tensors is checked in test_quant_weights.cpp; here the DP-attention split is.
  in.model.quant = {};
  in.context = Tokens{32768};
  in.users = 64;
  in.deployment.parallel.tp = 8;
  in.gpu = presets::find_gpu("h200");  // 150,754,820,096 B
  // Weights by hand (config.json; fp8 linear layers and experts, bf16 embeddings, no router bias):
  //   embeddings 2 x 129,280 x 7,168 = 1,853,358,080 params x 2 B = 3,706,716,160 B;
  //   routed experts 3 x 7,168 x 2,048 = 44,040,192 x 256 experts x 58 MoE layers = 653,908,770,816 B;
  //   MLA per layer: q 7,168 x 1,536 + 1,536 + 1,536 x 128 x 192 = 48,760,320; kv_a 7,168 x 576 =
  //   4,128,768; kv_a_norm 512; kv_b 512 x 128 x 256 = 16,777,216; o 128 x 128 x 7,168 = 117,440,512:
  //   187,107,328, + 2 norms 14,336 = 187,121,664; 3 dense layers + 396,361,728 (3 x 7,168 x 18,432);
  //   58 MoE layers + router 1,835,008 + shared expert 44,040,192; final norm 7,168:
  //   3 x 583,483,392 + 58 x 232,996,864 + 7,168 = 15,264,275,456 B.
  const std::uint64_t experts = 653908770816ULL, rest = 3706716160ULL + 15264275456ULL;
  CHECK(routed_expert_weight_bytes(in.model).value == experts);
  // 0.9 x 150,754,820,096 = 135,679,338,086 usable; 1 GiB reserve. Per sequence: (512 + 64) x 2 B x 61
  // layers = 70,272 B per token x 32,768 = 2,302,672,896 B, on every GPU that holds the sequence.
  const std::uint64_t usable = 135679338086ULL, reserve = 1073741824ULL, seq = 2302672896ULL;

  const Plan tp = make_plan(in);
  CHECK(tp.weights_bytes.value == experts + rest);          // 672,879,762,432 B
  CHECK(tp.per_gpu.weights_bytes.value == 84109970304ULL);  // / 8
  CHECK(tp.per_gpu.users == 64);                            // the latent is replicated on all 8 ranks
  CHECK(tp.per_gpu.kv_bytes_total.value == 64 * seq);
  CHECK(tp.per_gpu.available_kv_bytes.value == usable - 84109970304ULL - reserve);  // 50,495,625,958
  CHECK_FALSE(tp.fits);
  CHECK(tp.max_users == 21);  // 21 x seq = 48,356,130,816 <= 50,495,625,958 < 22 x seq
  REQUIRE(tp.max_context);
  CHECK(tp.max_context->value == 11227);  // floor(50,495,625,958 / (64 x 70,272)) = floor(11,227.7)

  in.deployment.dp_attention = 8;
  const Plan dp = make_plan(in);
  CHECK(dp.gpus == 8);
  // Attention, embeddings, dense and shared MLPs whole on each GPU (attention tp 1); experts over EP 8.
  CHECK(dp.per_gpu.weights_bytes.value == rest + experts / 8);  // 18,970,991,616 + 81,738,596,352
  CHECK(dp.per_gpu.users == 8);                                 // 64 / 8 attention ranks
  CHECK(dp.per_gpu.kv_bytes_total.value == 8 * seq);            // 18,421,383,168 B
  CHECK(dp.per_gpu.available_kv_bytes.value == usable - 100709587968ULL - reserve);  // 33,896,008,294
  CHECK(dp.fits);
  CHECK(dp.max_users == 14 * 8);  // 14 x seq = 32,237,420,544 <= 33,896,008,294 < 15 x seq; 8 ranks
  REQUIRE(dp.max_context);
  CHECK(dp.max_context->value == 60294);       // floor(33,896,008,294 / (8 x 70,272)) = floor(60,294.3)
  CHECK(dp.kv_bytes_total.value == 64 * seq);  // each sequence held once, not 8 times
  CHECK(tp.kv_bytes_total.value == 64 * 8 * seq);
}

TEST_CASE("DP attention: GQA heads over the attention tp, refusals", "[plan][dp-attention]") {
  // 10 MoE layers of GQA 8 heads / 8 KV heads x 16 dims (512 B per token per layer at tp 1), 4 routed
  // experts of 3 x 16 x 8 = 384 bf16 parameters: 10 x 4 x 384 x 2 B = 30,720 B of routed experts.
  auto in = small(10000000);
  in.model = model({{gqa(8, 8, 16), 10}});
  in.model.hidden_size = 16;
  for (auto& g : in.model.layers) {
    g.mlp.num_experts = 4;
    g.mlp.experts_per_token = 2;
    g.mlp.expert_intermediate_size = 8;
  }
  CHECK(routed_expert_weight_bytes(in.model).value == 30720);
  in.users = 5;
  in.deployment.weights = Bytes{100000};
  in.deployment.parallel.tp = 8;
  in.deployment.dp_attention = 2;  // 2 attention ranks of tp 4: 2 KV heads per GPU
  const Plan p = make_plan(in);
  CHECK(p.per_gpu.users == 3);  // ceil(5 / 2)
  // 2 heads x 16 x 2 (K, V) x 2 B = 128 B per layer per token x 10 layers x 100 tokens = 128,000 B.
  CHECK(p.per_gpu.bytes_per_sequence.value == 128000);
  CHECK(p.per_gpu.kv_bytes_total.value == 3 * 128000);
  // ceil((100,000 - 30,720) / 4) + 30,720 / 8 = 17,320 + 3,840.
  CHECK(p.per_gpu.weights_bytes.value == 21160);
  CHECK(p.kv_bytes_total.value == 5 * 512000);  // 5 sequences x 4 GPUs x 128,000 B
  // max users: floor((10,000,000 - 21,160) / 128,000) = 77 per rank, x 2 ranks.
  CHECK(p.max_users == 154);

  const Deployment d = in.deployment;
  CHECK(attention_parallelism(d) == Parallelism{4, 1, 2});
  CHECK(dp_attention_weight_bytes(d, Bytes{100000}, Bytes{30720}).value == 21160);
  Deployment off = d;
  off.dp_attention = 1;
  CHECK(dp_attention_weight_bytes(off, Bytes{100001}, Bytes{30720}).value == 12501);  // ceil(100,001 / 8)
  CHECK_THROWS_WITH(dp_attention_weight_bytes(d, Bytes{10}, Bytes{30720}),
                    Catch::Matchers::StartsWith("dp_attention:"));

  auto bad = in;
  bad.deployment.dp_attention = 3;  // does not divide tp 8
  CHECK_THROWS_WITH(make_plan(bad), Catch::Matchers::StartsWith("dp_attention:"));
  bad.deployment.dp_attention = 0;
  CHECK_THROWS_WITH(make_plan(bad), Catch::Matchers::StartsWith("dp_attention:"));
  bad = in;
  bad.engine.engine = Engine::llamacpp;
  CHECK_THROWS_WITH(make_plan(bad), Catch::Matchers::StartsWith("dp_attention:"));
  bad = in;
  for (auto& g : bad.model.layers) g.mlp = MlpSpec{};  // dense
  CHECK_THROWS_WITH(make_plan(bad), Catch::Matchers::StartsWith("dp_attention:"));
  bad = in;
  bad.deployment.weights = Bytes{1000};  // less than the routed experts
  CHECK_THROWS_WITH(make_plan(bad), Catch::Matchers::StartsWith("dp_attention:"));
}

TEST_CASE("make_plan with a prepared model: the same plan, for that model only", "[plan]") {
  const PlanInputs in = small(1000000);
  const PreparedModel prepared(in.model);
  CHECK(prepared.layers() == 10);
  CHECK_FALSE(prepared.moe());
  const Plan p = make_plan(prepared, in);
  // As in "capacity: fits, max users, max context": 256,000 B per sequence, 3 users, 130 tokens.
  CHECK(p.kv_bytes_per_sequence.value == 256000);
  CHECK(p.max_users == 3);
  REQUIRE(p.max_context);
  CHECK(p.max_context->value == 130);
  const Plan q = make_plan(in);
  CHECK(p.inputs == q.inputs);
  CHECK(p.per_gpu.kv_bytes_total == q.per_gpu.kv_bytes_total);
  CHECK(p.parameters == q.parameters);
  CHECK(p.limit == q.limit);
  CHECK_FALSE(make_plan(prepared, in, false).max_context.has_value());

  // Prepared from another ModelSpec object (even an equal one): refused, never a plan of the wrong model.
  const PlanInputs copy = in;
  CHECK_THROWS_WITH(make_plan(prepared, copy), Catch::Matchers::StartsWith("model:"));
}

TEST_CASE("make_plan with PlanDetail::figures: the same figures, no groups, warnings or report", "[plan]") {
  PlanInputs in = small(1000000);
  in.context = Tokens{100};
  in.model.max_position_embeddings = 50;  // the full plan warns: context 100 passes it
  const PreparedModel prepared(in.model);
  const Plan f = make_plan(prepared, in, true, PlanDetail::figures);
  // As in "capacity: fits, max users, max context": 10 layers x 256 B = 2,560 B per token, x 100
  // tokens = 256,000 B per sequence; 3 users fit in 1,000,000 B, 232,000 B free; max context 130.
  CHECK(f.kv_bytes_per_sequence.value == 256000);
  CHECK(f.max_users == 3);
  REQUIRE(f.max_context);
  CHECK(f.max_context->value == 130);
  CHECK(f.groups.empty());
  CHECK(f.warnings.empty());
  CHECK(f.inputs.model.layers.empty());  // the model is not copied
  CHECK(f.inputs.context == in.context);
  CHECK(f.engine.log_lines.empty());
  CHECK(f.engine.rules.empty());
  const Plan full = make_plan(prepared, in, true, PlanDetail::full);
  CHECK_FALSE(full.groups.empty());
  CHECK(full.warnings.size() == 1);
  CHECK_FALSE(full.engine.rules.empty());
  CHECK(f.bytes_per_token == full.bytes_per_token);
  CHECK(f.full_bytes_per_token == full.full_bytes_per_token);
  CHECK(f.kv_bytes_total == full.kv_bytes_total);
  CHECK(f.per_gpu.free_bytes.value == 232000);
  CHECK(f.per_gpu.free_bytes == full.per_gpu.free_bytes);
  CHECK(f.limit == full.limit);
}

TEST_CASE("make_plan with PlanDetail::figures keeps the GPU's id and figures, not its name or source",
          "[plan]") {
  PlanInputs in = small(1000000);
  in.gpu = Gpu{"g", "test GPU", Bytes{1000000}, 7, 11, "a datasheet", 13, true, Bytes{900000}, "a print"};
  const PreparedModel prepared(in.model);
  const Plan f = make_plan(prepared, in, false, PlanDetail::figures);
  REQUIRE(f.inputs.gpu);
  CHECK(f.inputs.gpu->id == "g");
  CHECK(f.inputs.gpu->memory.value == 1000000);
  CHECK(f.inputs.gpu->memory_bandwidth_bytes_per_s == 7);
  CHECK(f.inputs.gpu->bf16_dense_flops == 11);
  CHECK(f.inputs.gpu->link_bandwidth_bytes_per_s == 13);
  CHECK(f.inputs.gpu->fp8);
  CHECK(f.inputs.gpu->runtime_memory == Bytes{900000});  // vLLM's budget reads it
  CHECK(f.inputs.gpu->name.empty());
  CHECK(f.inputs.gpu->source.empty());
  // The full plan keeps the GPU as given.
  CHECK(make_plan(prepared, in, false, PlanDetail::full).inputs.gpu == in.gpu);
}

TEST_CASE("a prepared model keeps an overflowing weight figure for the plan that needs it", "[plan]") {
  // vocab 2^40 x hidden 2^40 = 2^80 embedding parameters: past 2^64.
  PlanInputs in = small(1000000);
  in.model.vocab_size = std::uint64_t{1} << 40;
  in.model.hidden_size = std::uint64_t{1} << 40;
  in.deployment.weights.reset();
  const PreparedModel prepared(in.model);  // no throw: the KV figures do not need the weights
  CHECK_THROWS_WITH(prepared.parameters(), Catch::Matchers::StartsWith("parameters:"));
  CHECK_THROWS_WITH(make_plan(prepared, in), Catch::Matchers::StartsWith("parameters:"));
  in.gpu.reset();
  in.model.weights_unknown = "no MLP";  // weights not counted: the KV plan stands
  const PreparedModel unknown(in.model);
  const Plan p = make_plan(unknown, in);
  CHECK(p.kv_bytes_per_sequence.value == 256000);
  CHECK(p.weights_bytes.value == 0);
}

TEST_CASE("a prepared model numbers its groups by attention layer; plans by class match the hand sums",
          "[plan]") {
  // 7 layers in 5 groups, sliding (window 16) and full in turn: S S | F | S S | F | S. Every layer is
  // GQA 8 heads, 2 KV heads x 64 dims, bf16: K 2 x 64 x 2 B + V the same = 512 B per token per layer.
  const AttentionLayer s = gqa(8, 2, 64, AttentionKind::sliding, 16), f = gqa(8, 2, 64);
  PlanInputs in;
  in.model = model({{s, 2}, {f, 1}, {s, 2}, {f, 1}, {s, 1}});
  in.context = Tokens{100};
  in.users = 1;
  in.deployment.parallel = Parallelism{1, 3, 1};
  const PreparedModel pm(in.model);
  CHECK(pm.attention_classes() == std::vector<std::uint32_t>{0, 1, 0, 1, 0});
  REQUIRE(pm.attention_class_count() == 2);
  CHECK(pm.attention_class_layers() == std::vector<std::uint64_t>{5, 2});
  CHECK(pm.attention_class(1) == f);
  CHECK(pm.attention_class_group(1) == 1);
  // Before layer 4: layers 0, 1 and 3 slide, layer 2 is full.
  CHECK(pm.class_layers_before(0, 4) == 3);
  CHECK(pm.class_layers_before(1, 4) == 1);
  CHECK(pm.class_layers_before(0, 0) == 0);
  CHECK(pm.class_layers_before(0, 7) == 5);
  // pp 3 over 7 layers: stages [0, 3), [3, 5), [5, 7) (3, 2, 2 layers).
  CHECK(pipeline_stage(7, 3, 0) == Stage{0, 3});
  CHECK(pipeline_stage(7, 3, 1) == Stage{3, 2});
  CHECK(pipeline_stage(7, 3, 2) == Stage{5, 2});
  for (const PlanDetail detail : {PlanDetail::figures, PlanDetail::full}) {
    const Plan p = make_plan(pm, in, false, detail);
    // Whole model: 7 x 512 = 3,584 B per token; full layers 2 x 512 = 1,024; one sequence at 100
    // tokens: 5 x 512 x 16 + 2 x 512 x 100 = 40,960 + 102,400 = 143,360 B.
    CHECK(p.bytes_per_token.value == 3584);
    CHECK(p.full_bytes_per_token.value == 1024);
    CHECK(p.kv_bytes_per_sequence.value == 143360);
    REQUIRE(p.stages.size() == 3);
    // Stage 0 (S S F): 3 x 512 = 1,536 B per token; 2 x 512 x 16 + 512 x 100 = 16,384 + 51,200 = 67,584.
    CHECK(p.stages[0].bytes_per_token.value == 1536);
    CHECK(p.stages[0].kv_bytes.value == 67584);
    // Stage 1 (S S): 1,024 B per token; 2 x 512 x 16 = 16,384.
    CHECK(p.stages[1].stage == Stage{3, 2});
    CHECK(p.stages[1].bytes_per_token.value == 1024);
    CHECK(p.stages[1].kv_bytes.value == 16384);
    // Stage 2 (F S): 1,024 B per token; 512 x 100 + 512 x 16 = 51,200 + 8,192 = 59,392.
    CHECK(p.stages[2].kv_bytes.value == 59392);
    // The fullest stage holds one sequence on one GPU; the replica all three stages.
    CHECK(p.per_gpu.bytes_per_sequence.value == 67584);
    CHECK(p.ideal_kv_bytes_total.value == 67584 + 16384 + 59392);
  }
}

TEST_CASE("a model of more than 64 distinct attention layers is planned group by group", "[plan]") {
  // 65 sliding layers with windows 1..65 (512 B per token each, as above): at 1,000 tokens each keeps
  // its window, 512 x (1 + ... + 65) = 512 x 2,145 = 1,098,240 B per sequence.
  PlanInputs in;
  for (std::uint64_t w = 1; w <= 65; ++w)
    in.model.layers.push_back(LayerGroup{gqa(8, 2, 64, AttentionKind::sliding, w), MlpSpec{}, 1});
  in.model.id = in.model.name = "windows";
  in.context = Tokens{1000};
  const PreparedModel pm(in.model);
  CHECK(pm.attention_classes().empty());
  CHECK(pm.attention_class_count() == 0);
  for (const PlanDetail detail : {PlanDetail::figures, PlanDetail::full}) {
    const Plan p = make_plan(pm, in, false, detail);
    CHECK(p.kv_bytes_per_sequence.value == 1098240);
    CHECK(p.bytes_per_token.value == 65 * 512);
  }
}

TEST_CASE("validate_tp and check_pipeline_stages: validate_parallelism's checks, one at a time", "[plan]") {
  CHECK_NOTHROW(validate_tp(gqa(8, 2, 64), 4));  // 4 divides 8 heads; 4 is a multiple of 2 KV heads
  CHECK_THROWS_WITH(validate_tp(gqa(8, 2, 64), 3), "tp: 3 does not divide num_attention_heads 8");
  CHECK_THROWS_WITH(validate_tp(gqa(12, 4, 64), 6),
                    "tp: 6 and num_key_value_heads 4: one must divide the other");
  AttentionLayer none;
  none.kind = AttentionKind::recurrent;
  CHECK_NOTHROW(validate_tp(none, 3));  // no heads to split
  CHECK_NOTHROW(check_pipeline_stages(7, 7));
  CHECK_THROWS_WITH(check_pipeline_stages(7, 8), "pp: 8 stages exceed the model's 7 layers");
  CHECK_THROWS_WITH(check_pipeline_stages(7, 0), "pp: must be positive");
}

TEST_CASE("replicas_of: GPUs over tp x pp, one rule for every front end", "[plan]") {
  CHECK(replicas_of(8, 2, 2) == 2);
  CHECK(replicas_of(4, 4, 1) == 1);
  CHECK_THROWS_WITH(replicas_of(6, 4, 1), "gpus: 6 is not a multiple of tp x pp = 4");
  CHECK_THROWS_WITH(replicas_of(0, 1, 1), "gpus: must be positive");
  // tp x pp past 2^64 is refused, not wrapped to a small divisor.
  CHECK_THROWS_WITH(replicas_of(8, 1ULL << 32, 1ULL << 32), Catch::StartsWith("gpus:"));
}

// vLLM logs rank 0's "Available KV cache memory" (the first stage's); every stage takes the last stage's
// smaller pool. Llama-3.1-8B, tp 1 x pp 2 on H100 SXM (80 GB: max_num_seqs 1,024, max_num_batched_tokens
// 8,192; vllm/engine/arg_utils.py): the last stage's sampler run is 1,024 x 128,256 logits x 14 B +
// 8,192 x 4,096 x 2 B + 128 MiB = 2,040,004,608 B, the first stage's forward pass 8,192 x (3 x 14,336 +
// 4 x 4,096) x 2 B = 973,078,528 B: the pool is 1,066,926,080 B below the figure the log prints.
TEST_CASE("vLLM pp: a KV memory given is rank 0's figure, the pool the last stage's", "[plan][kv-memory]") {
  PlanInputs in;
  in.model = kvplan::presets::find_model("llama-3.1-8b");
  in.kv = KvDtypes{DType::bf16, DType::bf16};
  in.context = Tokens{8192};
  in.users = 4;
  in.engine.engine = Engine::vllm;
  in.gpu = kvplan::presets::find_gpu("h100-sxm");
  in.deployment.parallel = Parallelism{1, 2, 1};
  in.kv_memory = Bytes{20ULL << 30};  // 21,474,836,480 B
  const Plan p = make_plan(in);
  CHECK(p.per_gpu.available_kv_bytes.value == 21474836480ULL - 1066926080ULL);  // 20,407,910,400
  CHECK(std::any_of(p.warnings.begin(), p.warnings.end(),
                    [](const std::string& w) { return w.find("is rank 0's") != std::string::npos; }));
  // Fed the first-stage figure of its own budget, the plan holds the same pool as without it.
  PlanInputs budgeted = in;
  budgeted.kv_memory.reset();
  const Plan b = make_plan(budgeted);
  in.kv_memory = b.budget.first_stage_kv;
  CHECK(make_plan(in).per_gpu.available_kv_bytes == b.per_gpu.available_kv_bytes);
  CHECK(b.budget.first_stage_kv.value - b.budget.kv.value == 1066926080ULL);
  // Already the pool (a log with every stage's line, the smallest taken): as given.
  in.kv_memory = Bytes{20ULL << 30};
  in.kv_memory_is_pool = true;
  CHECK(make_plan(in).per_gpu.available_kv_bytes.value == 21474836480ULL);
  in.kv_memory_is_pool = false;
  // pp 1: the figure is every rank's pool as given.
  in.deployment.parallel.pp = 1;
  in.kv_memory = Bytes{20ULL << 30};
  CHECK(make_plan(in).per_gpu.available_kv_bytes.value == 21474836480ULL);
  // No GPU: taken as given, with a warning that names the gap it cannot work out.
  in.deployment.parallel.pp = 2;
  in.gpu.reset();
  const Plan bare = make_plan(in);
  CHECK(bare.per_gpu.available_kv_bytes.value == 21474836480ULL);
  CHECK(std::any_of(bare.warnings.begin(), bare.warnings.end(),
                    [](const std::string& w) { return w.find("give a GPU") != std::string::npos; }));
}

TEST_CASE("the exact layout's sums have one path: an overflow is named by its figure in either detail",
          "[plan]") {
  // Two classes of 16 layers, 8 KV heads x 128 x 2 (K, V) x 2 B = 4,096 B a layer: 65,536 = 2^16 B a
  // token each. At 2^47 tokens the full class holds 2^16 x 2^47 = 2^63 B, and the sliding one (window
  // 2^47) as much: each fits in 64 bits, their sum 2^64 does not.
  const std::uint64_t len = std::uint64_t{1} << 47;
  PlanInputs in;
  in.model = model({{gqa(8, 8, 128), 16}, {gqa(8, 8, 128, AttentionKind::sliding, len), 16}});
  in.context = Tokens{len};
  in.users = 1;
  const PreparedModel pm(in.model);
  REQUIRE(pm.attention_class_count() == 2);
  for (const PlanDetail detail : {PlanDetail::figures, PlanDetail::full})
    CHECK_THROWS_WITH(make_plan(pm, in, false, detail),
                      Catch::Matchers::StartsWith("kv_bytes_per_sequence: overflows"));
  // At 2^45 tokens: 2^61 B each, 2^62 B together; 2 x 2^16 = 131,072 B a token, 65,536 of them full.
  in.context = Tokens{len / 4};
  for (const PlanDetail detail : {PlanDetail::figures, PlanDetail::full}) {
    const Plan p = make_plan(pm, in, false, detail);
    CHECK(p.kv_bytes_per_sequence.value == std::uint64_t{1} << 62);
    CHECK(p.bytes_per_token.value == 131072);
    CHECK(p.full_bytes_per_token.value == 65536);
  }
  // At 3 x 2^45 tokens one sequence is 2^17 x 3 x 2^45 = 3 x 2^62 B, within 64 bits; two would not be. One
  // user plans (the users divide evenly over the one replica: no replica holds a second sequence).
  in.context = Tokens{3 * (len / 4)};
  const Plan one = make_plan(pm, in, false, PlanDetail::full);
  CHECK(one.kv_bytes_per_sequence.value == 3 * (std::uint64_t{1} << 62));
  CHECK(one.kv_bytes_total.value == 3 * (std::uint64_t{1} << 62));
  // Two users do overflow, named by the users.
  in.users = 2;
  CHECK_THROWS_WITH(make_plan(pm, in, false, PlanDetail::full), Catch::Matchers::StartsWith("users"));
}

TEST_CASE(
    "pipeline stages hold their layers' weights, the embedding on the first and the LM head on the last",
    "[plan][weights]") {
  // Llama-3.1-70B, bf16: 70,553,706,496 parameters x 2 B = 141,107,412,992 B; untied tables of 128,256 x
  // 8,192 x 2 B = 2,101,346,304 B each; the 80 alike layers share the rest, 136,904,720,384 B. TensorRT-LLM
  // splits 80 layers over 3 stages as 27, 27, 26 (the first stages take the remainder): the first holds
  // floor(136,904,720,384 x 27 / 80) = 46,205,343,129 + 2,101,346,304 = 48,306,689,433 B, the last
  // floor(136,904,720,384 x 26 / 80) = 44,494,034,124 + 2,101,346,304 = 46,595,380,428 B. An even third was
  // 47,035,804,331 B: 1.27 GB per GPU too few on the first stage.
  PlanInputs in;
  in.model = presets::find_model("llama-3.1-70b");
  in.context = Tokens{32768};
  in.gpu = presets::find_gpu("h100-sxm");
  in.engine.engine = Engine::trtllm;
  in.deployment.parallel.pp = 3;
  CHECK(make_plan(in).weights_bytes.value == 141107412992ULL);
  CHECK(make_plan(in).per_gpu.weights_bytes.value == 48306689433ULL);
  // tp 2 halves the stage's share: ceil(48,306,689,433 / 2).
  in.deployment.parallel.tp = 2;
  CHECK(make_plan(in).per_gpu.weights_bytes.value == 24153344717ULL);
  // Llama-3.1-8B at pp 2 (vLLM's 16 + 16): the 1,050,673,152 B tables are alike, so each stage holds half,
  // 8,030,261,248 B, as vLLM 0.19.0 logged ("model weights take 7.51GiB" with its RoPE cache).
  in.model = presets::find_model("llama-3.1-8b");
  in.engine.engine = Engine::ideal;
  in.deployment.parallel.tp = 1;
  in.deployment.parallel.pp = 2;
  CHECK(make_plan(in).per_gpu.weights_bytes.value == 8030261248ULL);
  // pp 1: the whole.
  in.deployment.parallel.pp = 1;
  CHECK(make_plan(in).per_gpu.weights_bytes.value == 16060522496ULL);
}
