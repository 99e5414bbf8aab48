// GGUF headers (presets/src/gguf.cpp): files laid out by tests/gguf_writer.hpp as llama.cpp's gguf-py
// (GGUFWriter) writes them, the tensor data a sparse tail of zeros; expected figures are worked by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <optional>

#include "gguf_writer.hpp"
#include "kvplan/engine.hpp"
#include "kvplan/format.hpp"
#include "kvplan/gguf.hpp"
#include "kvplan/kv.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/presets.hpp"

using namespace kvplan;
using namespace kvplan::test;
namespace fs = std::filesystem;

TEST_CASE("ggml type sizes: block and type sizes of ggml.c type_traits", "[gguf]") {
  // (block, bytes) from the block structs: q4_K = d, dmin (2 x 2) + 12 scale bytes + 128 nibble bytes.
  CHECK(presets::ggml_type_info(Q4_K)->block_bytes == 144);
  CHECK(presets::ggml_type_info(Q6_K)->block_bytes == 210);  // 128 ql + 64 qh + 16 scales + 2 d
  CHECK(presets::ggml_type_info(Q8_0)->block_bytes == 34);   // 2 d + 32 int8
  CHECK(presets::ggml_type_info(39)->block_bytes == 17);     // MXFP4: 1 E8M0 + 16 nibble bytes per 32
  CHECK(presets::ggml_type_info(34)->block_bytes == 54);     // TQ1_0: 2 + 4 x 13 per 256
  CHECK(presets::ggml_type_info(29)->block_bytes == 56);     // IQ1_M: 32 + 16 + 8 per 256
  CHECK(presets::ggml_type_info(23)->block_bytes == 136);    // IQ4_XS: 2 + 2 + 128 + 4 per 256
  CHECK_FALSE(presets::ggml_type_info(4));                   // Q4_2: removed
  // One 4096 x 14336 Q4_K matrix: 58,720,256 values / 256 = 229,376 blocks x 144 B = 33,030,144 B.
  CHECK(presets::ggml_tensor_bytes(Q4_K, {4096, 14336}, "t").value == 33030144);
  CHECK_THROWS_WITH(presets::ggml_tensor_bytes(Q4_K, {100, 2}, "t"),
                    "t: ne[0] = 100 is not a multiple of Q4_K's block of 256");
}

TEST_CASE("GGUF Llama-3.1-8B: layout and exact weight bytes", "[gguf]") {
  const fs::path p = llama31_8b().write("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf");
  const ModelSpec m = presets::find_model(p.string());
  CHECK(m.name == "Meta Llama 3.1 8B Instruct");
  CHECK(m.id == "Meta-Llama-3.1-8B-Instruct-Q4_K_M");
  REQUIRE(m.layers.size() == 1);
  CHECK(m.layers[0].count == 32);
  CHECK(m.layers[0].attention.num_attention_heads == 32);
  CHECK(m.layers[0].attention.num_key_value_heads == 8);
  CHECK(m.layers[0].attention.head_dim_k == 128);  // 4096 / 32 (no key_length key)
  CHECK(m.layers[0].mlp.intermediate_size == 14336);
  CHECK(m.vocab_size == 128256);
  CHECK(m.max_position_embeddings == 131072);
  CHECK(m.dtype == DType::fp16);
  CHECK_FALSE(m.tie_word_embeddings);
  // f16 K and V: 32 layers x 2 x 8 heads x 128 x 2 B = 131,072 B per token.
  CHECK(bytes_per_token(m, KvDtypes{DType::fp16, DType::fp16}).value == 131072);
  // Parameters: embeddings 4096 x 128,256 = 525,336,576, twice (output untied) = 1,050,673,152;
  // per layer q 16,777,216 + k 4,194,304 + v 4,194,304 + o 16,777,216 + MLP 3 x 58,720,256 + norms 8,192
  // = 218,112,000, x 32 = 6,979,584,000; output_norm 4,096; rope_freqs 64.
  // 1,050,673,152 + 6,979,584,000 + 4,096 = 8,030,261,248 (the published count) + 64 = 8,030,261,312.
  CHECK(m.weights_parameters == 8030261312ULL);
  // Bytes: token_embd Q4_K 2,052,096 blocks x 144 = 295,501,824; output Q6_K 2,052,096 x 210 = 430,940,160;
  // per layer q 65,536 x 144 = 9,437,184, k 16,384 x 144 = 2,359,296, v 16,384 x 210 = 3,440,640,
  // o 9,437,184, gate and up 229,376 x 144 = 33,030,144 each, down 229,376 x 210 = 48,168,960, norms
  // 2 x 16,384 = 32,768: 138,936,320, x 32 = 4,445,962,240; output_norm 16,384; rope_freqs 256.
  // 295,501,824 + 430,940,160 + 4,445,962,240 + 16,384 + 256 = 5,172,420,864 B.
  REQUIRE(m.weights_bytes);
  CHECK(m.weights_bytes->value == 5172420864ULL);
  CHECK(m.weights_origin == "GGUF tensors (exact)");

  PlanInputs in;
  in.model = m;
  in.kv = KvDtypes{DType::fp16, DType::fp16};
  const Plan plan = make_plan(in);
  CHECK(plan.weights_bytes.value == 5172420864ULL);
  CHECK_FALSE(plan.weights_from_architecture);
  in.deployment.weights = Bytes{1000};  // --weights still wins
  CHECK(make_plan(in).weights_bytes.value == 1000);
}

namespace {
/// GGUF UINT16 (type 2), as gguf-split writes split.no and split.count.
std::string le16(std::uint16_t v) { return {static_cast<char>(v & 0xFF), static_cast<char>(v >> 8)}; }

/// llama31_8b()'s file cut in three as gguf-split --split cuts one: the first shard keeps the metadata,
/// each shard its split.no, split.count 3 and split.tensors.count (the whole model's 292 tensors).
/// Shard 1: rope_freqs, token_embd, output_norm and blocks 0-9; shard 2: blocks 10-20; shard 3: blocks
/// 21-31 and output.
std::vector<GgufWriter> llama31_8b_split() {
  std::vector<GgufWriter> w(3);
  w[0] = llama31_8b_metadata();
  for (std::uint16_t i = 0; i < 3; ++i)
    w[i].kv_raw("split.no", 2, le16(i))
        .kv_raw("split.count", 2, le16(3))
        .kv_raw("split.tensors.count", 2, le16(292));
  w[0].tensor("rope_freqs.weight", {64}, F32)
      .tensor("token_embd.weight", {4096, 128256}, Q4_K)
      .tensor("output_norm.weight", {4096}, F32);
  for (int il = 0; il < 32; ++il) llama31_8b_block(w[il < 10 ? 0 : il < 21 ? 1 : 2], il);
  w[2].tensor("output.weight", {4096, 128256}, Q6_K);
  return w;
}
}  // namespace

TEST_CASE("GGUF: an architecture kvplan does not follow is read generically, with a warning naming it",
          "[gguf]") {
  // The same Llama-3.1-8B keys under a made-up architecture name: llama.cpp refuses it ("unknown model
  // architecture"); kvplan reads the generic decoder's keys and says so.
  GgufWriter w;
  w.kv_str("general.architecture", "zzz")
      .kv_u32("zzz.block_count", 32)
      .kv_u32("zzz.context_length", 131072)
      .kv_u32("zzz.embedding_length", 4096)
      .kv_u32("zzz.feed_forward_length", 14336)
      .kv_u32("zzz.attention.head_count", 32)
      .kv_u32("zzz.attention.head_count_kv", 8)
      .tokens(128256);
  const ModelSpec odd = presets::find_model(w.write("zzz.gguf").string());
  CHECK(std::any_of(odd.warnings.begin(), odd.warnings.end(), [](const std::string& s) {
    return s.find("general.architecture 'zzz' is not one kvplan follows") != std::string::npos;
  }));
  // Llama's own name: no such warning.
  const ModelSpec llama = presets::find_model(llama31_8b().write("llama-arch.gguf").string());
  CHECK(std::none_of(llama.warnings.begin(), llama.warnings.end(), [](const std::string& s) {
    return s.find("is not one kvplan follows") != std::string::npos;
  }));
}

TEST_CASE("GGUF split (gguf-split): the first shard's metadata, every shard's tensors", "[gguf]") {
  const auto w = llama31_8b_split();
  const fs::path first = w[0].write("split-llama-00001-of-00003.gguf");
  w[1].write("split-llama-00002-of-00003.gguf");
  w[2].write("split-llama-00003-of-00003.gguf");
  const ModelSpec m = presets::find_model(first.string());
  CHECK(m.id == "split-llama");
  // The whole model's figures, worked by hand in "GGUF Llama-3.1-8B: layout and exact weight bytes":
  // 8,030,261,312 parameters in 5,172,420,864 B; output.weight (in the last shard) is untied.
  REQUIRE(m.weights_bytes);
  CHECK(m.weights_bytes->value == 5172420864ULL);
  CHECK(m.weights_parameters == 8030261312ULL);
  CHECK_FALSE(m.tie_word_embeddings);
  CHECK(bytes_per_token(m, KvDtypes{DType::fp16, DType::fp16}).value == 131072);

  // llama_model_loader: "model must be loaded with the first split".
  const fs::path second = fs::temp_directory_path() / "kvplan-test-gguf" / "split-llama-00002-of-00003.gguf";
  CHECK_THROWS_WITH(
      presets::find_model(second.string()),
      Catch::Matchers::StartsWith("split-llama-00002-of-00003.gguf: split.no: 1: this is shard 2 of 3") &&
          Catch::Matchers::Contains("'split-llama-00001-of-00003.gguf'"));
  // A shard absent from the folder: its path.
  const fs::path gap = w[0].write("gap-llama-00001-of-00003.gguf");
  w[2].write("gap-llama-00003-of-00003.gguf");
  CHECK_THROWS_WITH(presets::find_model(gap.string()),
                    Catch::Matchers::Contains("gap-llama-00002-of-00003.gguf: missing: shard 2 of 3"));
  // A tensor in two shards (llama_model_loader: "tensor '...' is duplicated").
  auto twice = w[2];
  twice.tensor("token_embd.weight", {4096, 128256}, Q4_K);
  const fs::path dup = w[0].write("dup-llama-00001-of-00003.gguf");
  w[1].write("dup-llama-00002-of-00003.gguf");
  twice.write("dup-llama-00003-of-00003.gguf");
  CHECK_THROWS_WITH(
      presets::find_model(dup.string()),
      Catch::Matchers::StartsWith("dup-llama-00003-of-00003.gguf: tensor 'token_embd.weight': is also in "
                                  "an earlier shard"));
  // A first shard not named <name>-00001-of-00003.gguf: the others cannot be found.
  const fs::path renamed = w[0].write("renamed-llama.gguf");
  CHECK_THROWS_WITH(presets::find_model(renamed.string()),
                    Catch::Matchers::Contains("renamed-llama.gguf: split.count 3: the first shard"));
}

TEST_CASE("GGUF hybrid: per-layer KV heads, 0 on Mamba2 layers", "[gguf]") {
  // A Granite-4.0-H-like stack: layers 0, 1, 3 Mamba2, layer 2 attention with 2 KV heads.
  GgufWriter w;
  w.kv_str("general.architecture", "granitehybrid")
      .kv_u32("granitehybrid.block_count", 4)
      .kv_u32("granitehybrid.embedding_length", 1024)
      .kv_u32("granitehybrid.feed_forward_length", 4096)
      .kv_u32("granitehybrid.attention.head_count", 8)
      .kv_u32s("granitehybrid.attention.head_count_kv", {0, 0, 2, 0})
      .kv_u32("granitehybrid.attention.key_length", 128)
      .kv_u32("granitehybrid.ssm.conv_kernel", 4)
      .kv_u32("granitehybrid.ssm.inner_size", 2048)
      .kv_u32("granitehybrid.ssm.state_size", 128)
      .kv_u32("granitehybrid.ssm.time_step_rank", 32)
      .kv_u32("granitehybrid.ssm.group_count", 1)
      .tokens(1000);
  const ModelSpec m = presets::load_gguf_file(w.write("hybrid.gguf"));
  REQUIRE(m.layers.size() == 3);
  CHECK(m.layers[0].count == 2);
  CHECK(m.layers[0].attention.kind == AttentionKind::recurrent);
  CHECK(m.layers[0].attention.recurrent.kind == RecurrentSpec::Kind::mamba2);
  CHECK(m.layers[0].attention.recurrent.head_dim == 64);  // 2048 / 32 heads
  CHECK(m.layers[1].attention.kind == AttentionKind::full);
  CHECK(m.layers[1].attention.num_key_value_heads == 2);
  CHECK(m.layers[2].attention.kind == AttentionKind::recurrent);
  const KvDtypes f16{DType::fp16, DType::fp16};
  // One attention layer: 2 x 2 heads x 128 x 2 B = 1,024 B per token.
  CHECK(bytes_per_token(m, f16).value == 1024);
  // Mamba2 state in f32 (llama.cpp type_r / type_s): conv 3 taps x (2048 + 2 x 1 x 128) = 6,912 values,
  // SSM 32 x 64 x 128 = 262,144 values; 269,056 x 4 B = 1,076,224 B per layer, x 3 = 3,228,672 B.
  CHECK(state_bytes_per_sequence(m, f16).value == 3228672);
  CHECK_FALSE(m.weights_bytes);  // no tensor infos: the architecture's estimate
}

TEST_CASE("GGUF sliding window: the family's period, or the file's pattern", "[gguf]") {
  GgufWriter w;
  w.kv_str("general.architecture", "gemma3")
      .kv_u32("gemma3.block_count", 12)
      .kv_u32("gemma3.embedding_length", 1152)
      .kv_u32("gemma3.feed_forward_length", 6912)
      .kv_u32("gemma3.attention.head_count", 4)
      .kv_u32("gemma3.attention.head_count_kv", 1)
      .kv_u32("gemma3.attention.key_length", 256)
      .kv_u32("gemma3.attention.value_length", 256)
      .kv_u32("gemma3.attention.sliding_window", 512)
      .tokens(10);
  const ModelSpec m = presets::load_gguf_file(w.write("gemma3.gguf"));
  // set_swa_pattern(6): layers 0-4 and 6-10 SWA, 5 and 11 full.
  REQUIRE(m.layers.size() == 4);
  CHECK(m.layers[0].count == 5);
  CHECK(m.layers[0].attention.kind == AttentionKind::sliding);
  CHECK(m.layers[0].attention.window == 512);
  CHECK(m.layers[1].count == 1);
  CHECK(m.layers[1].attention.kind == AttentionKind::full);
}

TEST_CASE("llamacpp-legacy-mla-gguf-deepseek-coder-v2-lite: K and V per head", "[gguf][engine][llamacpp]") {
  // A DeepSeek-V2-Lite GGUF converted before the MLA split: key_length 192 (128 nope + 64 rope),
  // value_length 128, 16 KV heads, no key_length_mla, no attn_k_b.
  GgufWriter w;
  w.kv_str("general.architecture", "deepseek2")
      .kv_u32("deepseek2.block_count", 27)
      .kv_u32("deepseek2.embedding_length", 2048)
      .kv_u32("deepseek2.feed_forward_length", 10944)
      .kv_u32("deepseek2.attention.head_count", 16)
      .kv_u32("deepseek2.attention.head_count_kv", 16)
      .kv_u32("deepseek2.attention.key_length", 192)
      .kv_u32("deepseek2.attention.value_length", 128)
      .kv_u32("deepseek2.attention.kv_lora_rank", 512)
      .kv_u32("deepseek2.rope.dimension_count", 64)
      .kv_u32("deepseek2.leading_dense_block_count", 1)
      .kv_u32("deepseek2.expert_count", 64)
      .kv_u32("deepseek2.expert_used_count", 6)
      .kv_u32("deepseek2.expert_shared_count", 2)
      .kv_u32("deepseek2.expert_feed_forward_length", 1408)
      .tokens(102400);
  const ModelSpec m = presets::load_gguf_file(w.write("DeepSeek-Coder-V2-Lite-Instruct-legacy.gguf"));
  REQUIRE(m.layers.size() == 2);  // one dense layer, 26 MoE layers
  const auto& a = m.layers[1].attention;
  CHECK(a.kind == AttentionKind::mla);
  CHECK(a.mla_per_head_cache);
  CHECK(a.kv_lora_rank == 512);
  CHECK(m.layers[1].mlp.num_experts == 64);
  CHECK(m.warnings.size() == 1);  // said once, not per layer
  // The exact layout is still the latent: (512 + 64) x 2 B x 27 layers = 31,104 B per token.
  CHECK(bytes_per_token(m, KvDtypes{DType::fp16, DType::fp16}).value == 31104);
  // llama.cpp: n_ctx 16384 over 8 streams = 2,048 cells each. K 16 x 192 x 2 B = 6,144 B and V 16 x 128 x 2 B
  // = 4,096 B per cell per layer: K 6,144 x 27 x 2,048 x 8 = 2,717,908,992 B = 2592.00 MiB, V 1728.00 MiB,
  // 276,480 B per token.
  EngineOptions o;
  o.engine = Engine::llamacpp;
  const auto r =
      llamacpp_policy(m, KvDtypes{DType::fp16, DType::fp16}, Parallelism{}, Tokens{2048}, 8, o, std::nullopt);
  CHECK(r.bytes_per_token->value == 276480);
  REQUIRE_FALSE(r.log_lines.empty());
  // llama.cpp pads the counts (%6u cells, %3d layers, %2u/%u seqs); the case's line has single spaces.
  std::string line;
  for (const char ch : r.log_lines[0])
    if (ch != ' ' || line.empty() || line.back() != ' ') line += ch;
  for (std::size_t at = line.find("( "); at != std::string::npos; at = line.find("( ")) line.erase(at + 1, 1);
  CHECK(
      line ==
      "llama_kv_cache: size = 4320.00 MiB (2048 cells, 27 layers, 8/8 seqs), K (f16): 2592.00 MiB, V (f16): "
      "1728.00 MiB");
}

TEST_CASE("GGUF refusals: one line naming the field", "[gguf]") {
  const auto parse = [](const std::string& b) { return presets::parse_gguf_header(b, "x.gguf"); };
  std::string good = llama31_8b().bytes();
  SECTION("big-endian") {
    std::string b = good;
    b[4] = 0;
    b[7] = 3;  // version 3 written big-endian: 0x03000000
    CHECK_THROWS_WITH(parse(b),
                      "x.gguf: version: a big-endian GGUF file: kvplan reads little-endian GGUF only");
  }
  SECTION("version 0: not a version, not a big-endian file") {
    std::string b = good;
    b[4] = 0;  // version 0 (bytes 4 to 7 all zero): llama.cpp's "bad GGUF version: 0"
    CHECK_THROWS_WITH(parse(b), "x.gguf: version: 0 is not a GGUF version (2 and 3 are)");
  }
  SECTION("truncated") {
    CHECK_THROWS_WITH(parse(good.substr(0, 100)), Catch::Contains("truncated header"));
    CHECK_THROWS_WITH(parse(good.substr(0, good.size() - 1)), Catch::Contains("truncated header"));
  }
  SECTION("a count that would overflow") {
    std::string b = good;
    for (int i = 16; i < 24; ++i) b[static_cast<std::size_t>(i)] = '\xff';  // metadata_kv_count 2^64 - 1
    CHECK_THROWS_WITH(parse(b), Catch::StartsWith("x.gguf: metadata_kv_count: count 18446744073709551615"));
    std::string t = good;
    for (int i = 8; i < 16; ++i) t[static_cast<std::size_t>(i)] = '\x7f';
    CHECK_THROWS_WITH(parse(t), Catch::StartsWith("x.gguf: tensor_count: count"));
  }
  SECTION("an unknown value type") {
    GgufWriter w;
    w.kv_str("general.architecture", "llama");
    std::string b = w.bytes();
    // The value type of the first pair follows its key: 24 header bytes + 8 + 20 key bytes.
    b[24 + 8 + 20] = 13;
    CHECK_THROWS_WITH(parse(b), "x.gguf: general.architecture: unknown GGUF value type 13");
  }
  SECTION("not GGUF, version 1") {
    CHECK_THROWS_WITH(parse("GGML...."), "x.gguf: magic: not a GGUF file (no \"GGUF\" magic)");
    std::string b = good;
    b[4] = 1;
    CHECK_THROWS_WITH(parse(b), Catch::StartsWith("x.gguf: version: GGUF version 1"));
  }
  SECTION("an unknown ggml type") {
    GgufWriter w;
    w.tensor("a", {32}, 4);
    CHECK_THROWS_WITH(parse(w.bytes()), "x.gguf: tensor 'a': unknown ggml type 4");
  }
}

namespace {

/// A tiny llama: 2 layers of 4 heads of 16 (2 KV heads), 64 wide, with its tensors (F32, 4 B a value).
GgufWriter tiny_llama_keys() {
  GgufWriter w;
  w.kv_str("general.architecture", "llama")
      .kv_u32("llama.block_count", 2)
      .kv_u32("llama.embedding_length", 64)
      .kv_u32("llama.feed_forward_length", 128)
      .kv_u32("llama.attention.head_count", 4)
      .kv_u32("llama.attention.head_count_kv", 2);
  return w;
}
GgufWriter& tiny_llama_tensors(GgufWriter& w) {
  return w.tensor("token_embd.weight", {64, 100}, F32)
      .tensor("blk.0.attn_q.weight", {64, 64}, F32)
      .tensor("blk.1.attn_q.weight", {64, 64}, F32)
      .tensor("output_norm.weight", {64}, F32);
}

/// Adds a string pair so that the next pair starts at `at` (a file offset).
void fill_to(GgufWriter& w, std::uint64_t at, std::string_view key) {
  const std::uint64_t overhead = 8 + key.size() + 4 + 8;  // key length, key, type, string length
  REQUIRE(at >= w.header_size() + overhead);
  w.kv_str(key, std::string(at - w.header_size() - overhead, 'f'));
}

/// Two headers hold the same pairs and tensors.
void check_same(const presets::GgufHeader& a, const presets::GgufHeader& b) {
  REQUIRE(a.metadata.size() == b.metadata.size());
  for (const auto& [key, v] : a.metadata) {
    INFO(key);
    const auto it = b.metadata.find(key);
    REQUIRE(it != b.metadata.end());
    CHECK(v.type == it->second.type);
    CHECK(v.count == it->second.count);
    CHECK(v.uints == it->second.uints);
    CHECK(v.str == it->second.str);
  }
  REQUIRE(a.tensors.size() == b.tensors.size());
  for (std::size_t i = 0; i < a.tensors.size(); ++i) {
    CHECK(a.tensors[i].name == b.tensors[i].name);
    CHECK(a.tensors[i].shape == b.tensors[i].shape);
    CHECK(a.tensors[i].offset == b.tensors[i].offset);
  }
  CHECK(a.data_offset == b.data_offset);
}

std::string pattern(std::size_t n) {
  std::string s(n, ' ');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 26);
  return s;
}

}  // namespace

TEST_CASE("GGUF read boundaries: a string across 1 MiB and a key across 16 MiB are read whole", "[gguf]") {
  // The reader reads 1 MiB at a time. A chat template of 300,000 B from 1 MiB - 1,000 crosses the first
  // read's end; a key from 16 MiB - 3 crosses the sixteenth. (Before: the string's end was past the bytes
  // read, and the reader went on past its buffer.)
  constexpr std::uint64_t MiB = 1 << 20;
  GgufWriter w = tiny_llama_keys();
  const std::string chat = pattern(300000);
  fill_to(w, MiB - 1000 - (8 + 23 + 4 + 8), "filler.one");
  w.kv_str("tokenizer.chat_template", chat);
  REQUIRE(w.header_size() == MiB - 1000 + 300000);
  fill_to(w, 16 * MiB - 3 - 8, "filler.two");
  w.kv_str("tokenizer.ggml.pre", "llama-bpe");
  tiny_llama_tensors(w);
  const fs::path p = w.write("boundaries.gguf");
  const auto whole = presets::parse_gguf_header(w.file(), "boundaries.gguf");
  CHECK(whole.metadata.at("tokenizer.chat_template").str == chat);
  CHECK(whole.metadata.at("tokenizer.ggml.pre").str == "llama-bpe");
  // The filler past 1 MiB is counted, not kept.
  CHECK(whole.metadata.at("filler.two").str.empty());
  CHECK(whole.metadata.at("filler.two").count > MiB);
  SECTION("in 1 MiB reads") { check_same(presets::read_gguf_header(p), whole); }
  SECTION("in reads of 8, 13 and 4,096 bytes: every field crosses some read's end") {
    for (const std::size_t chunk : {8, 13, 4096}) {
      INFO(chunk);
      check_same(presets::read_gguf_header(p, chunk), whole);
    }
  }
  const ModelSpec m = presets::load_gguf_file(p);
  // Weights: (64 x 100 + 2 x 64 x 64 + 64) values x 4 B = 58,624 B.
  REQUIRE(m.weights_bytes);
  CHECK(m.weights_bytes->value == 58624);
}

TEST_CASE("GGUF tensor data: packed in order, inside the file", "[gguf]") {
  const auto parse = [](const std::string& b) { return presets::parse_gguf_header(b, "x.gguf"); };
  GgufWriter w = tiny_llama_keys();
  tiny_llama_tensors(w);
  const std::string file = w.file();
  SECTION("the whole file reads") {
    const auto h = parse(file);
    // The header padded to 32 B; tensors at 0, 25,600 (64 x 100 x 4 B), 41,984, 58,368.
    CHECK(h.data_offset == (w.bytes().size() + 31) / 32 * 32);
    CHECK(h.tensors[3].offset == 58368);
    CHECK(h.data_offset + 58368 + 256 == file.size());
  }
  SECTION("one byte short") {
    CHECK_THROWS_WITH(parse(file.substr(0, file.size() - 1)),
                      "x.gguf: tensor 'output_norm.weight': its data (256 B at offset " +
                          std::to_string(file.size() - 256) + ") runs past the end of the file (" +
                          std::to_string(file.size() - 1) + " B)");
  }
  SECTION("a 397-byte file claiming 1 PiB of tensors") {
    // 2^50 B: one F32 tensor of 2^48 values. Before: "weights 1.00 PiB ... (exact)".
    GgufWriter big;
    big.kv_str("general.architecture", "llama").tensor("token_embd.weight", {1ULL << 24, 1ULL << 24}, F32);
    std::string b = big.bytes();
    REQUIRE(b.size() <= 397);
    b.resize(397, '\0');
    CHECK_THROWS_WITH(parse(b),
                      Catch::StartsWith("x.gguf: tensor 'token_embd.weight': its data (1125899906842624 B "
                                        "at offset ") &&
                          Catch::EndsWith("runs past the end of the file (397 B)"));
  }
  SECTION("an offset out of order") {
    GgufWriter o = tiny_llama_keys();
    o.tensor("a", {8}, F32);
    std::string b = o.file();
    // The only tensor's offset is the header's last 8 bytes: 32 where 0 is due.
    b[o.bytes().size() - 8] = 32;
    CHECK_THROWS_WITH(parse(b),
                      "x.gguf: tensor 'a' offset: 32, expected 0 (tensor data is packed in order, "
                      "each padded to 32 B)");
  }
  SECTION("duplicate tensor names") {
    GgufWriter d = tiny_llama_keys();
    d.tensor("blk.0.attn_q.weight", {8}, F32).tensor("x", {8}, F32).tensor("blk.0.attn_q.weight", {8}, F32);
    CHECK_THROWS_WITH(
        parse(d.file()),
        "x.gguf: tensor 'blk.0.attn_q.weight': duplicate tensor name (llama.cpp refuses the file)");
  }
  SECTION("a name of 64 bytes") {
    GgufWriter d;
    d.tensor(std::string(63, 'n'), {8}, F32);
    CHECK_NOTHROW(parse(d.file()));
    GgufWriter l;
    l.tensor(std::string(64, 'n'), {8}, F32);
    CHECK_THROWS_WITH(parse(l.file()),
                      "x.gguf: tensor[0] name: 64 bytes long: ggml names are under 64 bytes (GGML_MAX_NAME)");
  }
  SECTION("general.alignment") {
    GgufWriter a;
    a.kv_u32("general.alignment", 24).tensor("a", {8}, F32);
    CHECK_THROWS_WITH(parse(a.file()), "x.gguf: general.alignment: must be a uint32 power of two");
    GgufWriter b;
    b.kv_raw("general.alignment", 10, std::string("\x20\0\0\0\0\0\0\0", 8));  // UINT64 32
    CHECK_THROWS_WITH(parse(b.file()), "x.gguf: general.alignment: must be a uint32 power of two");
  }
}

TEST_CASE("GGUF strictness: booleans, expert counts", "[gguf]") {
  const auto load = [](GgufWriter w) {
    return presets::model_from_gguf(presets::parse_gguf_header(w.file(), "x.gguf"), "x.gguf");
  };
  SECTION("a boolean head_count_kv (before: planned as MQA)") {
    GgufWriter w;
    w.kv_str("general.architecture", "llama")
        .kv_u32("llama.block_count", 2)
        .kv_u32("llama.embedding_length", 64)
        .kv_u32("llama.attention.head_count", 4)
        .kv_bool("llama.attention.head_count_kv", true);
    CHECK_THROWS_WITH(load(w),
                      "x.gguf: llama.attention.head_count_kv: must be an unsigned integer or an array of "
                      "them, not a boolean");
  }
  SECTION("booleans or floats in a per-layer array") {
    GgufWriter w;
    w.kv_str("general.architecture", "llama")
        .kv_u32("llama.block_count", 2)
        .kv_u32("llama.embedding_length", 64)
        .kv_u32("llama.attention.head_count", 4);
    std::string bools;
    GgufWriter::u32(bools, 7);  // of BOOL
    GgufWriter::u64(bools, 2);
    bools += std::string("\1\1", 2);
    w.kv_raw("llama.feed_forward_length", 9, bools);
    CHECK_THROWS_WITH(load(w),
                      "x.gguf: llama.feed_forward_length: must be an unsigned integer or an array of "
                      "them, not a boolean");
    GgufWriter f = tiny_llama_keys();
    f.kv_f32("llama.attention.key_length", 16.0F);
    CHECK_THROWS_WITH(load(f), "x.gguf: llama.attention.key_length: must be an unsigned integer");
    GgufWriter b = tiny_llama_keys();
    b.kv_bool("llama.context_length", true);
    CHECK_THROWS_WITH(load(b), "x.gguf: llama.context_length: must be an unsigned integer, not a boolean");
  }
  SECTION("expert_used_count: 1 to expert_count (llama-model.cpp's asserts)") {
    const auto moe = [](std::uint32_t experts, std::optional<std::uint32_t> used) {
      GgufWriter w = tiny_llama_keys();
      if (experts > 0) w.kv_u32("llama.expert_count", experts);
      if (used) w.kv_u32("llama.expert_used_count", *used);
      return w;
    };
    CHECK(load(moe(8, 2)).layers[0].mlp.experts_per_token == 2);
    CHECK(load(moe(8, 8)).layers[0].mlp.experts_per_token == 8);
    CHECK_THROWS_WITH(load(moe(8, 0)), "x.gguf: llama.expert_used_count: 0 must be in 1..8 (expert_count)");
    CHECK_THROWS_WITH(load(moe(8, std::nullopt)),
                      "x.gguf: llama.expert_used_count: missing (expert_count is given)");
    CHECK_THROWS_WITH(load(moe(8, 9)), "x.gguf: llama.expert_used_count: 9 must be in 1..8 (expert_count)");
    CHECK_THROWS_WITH(load(moe(0, 2)), "x.gguf: llama.expert_used_count: 2 without expert_count");
  }
}

TEST_CASE("GGUF hostile headers in a 2 GiB sparse file: refused in bounded time", "[gguf]") {
  // The bound is 5 s and 512 MB (tests/sources/gguf_bounds.cmake checks both on the real binary);
  // under ASan everything is several times slower. Before: the empty tokens took 12.4 s and 1.06 GB.
#if defined(__SANITIZE_ADDRESS__)
  constexpr double bound_s = 30;
#else
  constexpr double bound_s = 5;
#endif
  constexpr std::uint64_t two_gib = 2ULL << 30;
  const auto sparse = [&](const std::string& name, const std::string& header) {
    const fs::path p = fs::temp_directory_path() / "kvplan-test-gguf" / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << header;
    fs::resize_file(p, two_gib);
    return p;
  };
  std::string head = "GGUF";
  GgufWriter::u32(head, 3);
  GgufWriter::u64(head, 0);  // tensors
  GgufWriter::u64(head, 1);  // pairs
  std::string str_pair = head;
  GgufWriter::str(str_pair, "tokenizer.chat_template");
  GgufWriter::u32(str_pair, 8);
  GgufWriter::u64(str_pair, two_gib - 100);
  std::string tokens_pair = head;
  GgufWriter::str(tokens_pair, "tokenizer.ggml.tokens");
  GgufWriter::u32(tokens_pair, 9);
  GgufWriter::u32(tokens_pair, 8);
  GgufWriter::u64(tokens_pair, (two_gib - 100) / 8);  // every one empty: the zeros of the sparse tail
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(presets::read_gguf_header(sparse("string-2gib.gguf", str_pair)),
                    "string-2gib.gguf: tokenizer.chat_template: the header runs past 256 MiB: refused (real "
                    "headers are a few MiB)");
  CHECK_THROWS_WITH(presets::read_gguf_header(sparse("tokens-2gib.gguf", tokens_pair)),
                    "tokens-2gib.gguf: tokenizer.ggml.tokens: the header runs past 256 MiB: refused (real "
                    "headers are a few MiB)");
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  CHECK(took.count() < bound_s);
  fs::remove(fs::temp_directory_path() / "kvplan-test-gguf" / "string-2gib.gguf");
  fs::remove(fs::temp_directory_path() / "kvplan-test-gguf" / "tokens-2gib.gguf");
}

namespace {

/// kvplan's llama.cpp lines for one sequence of 4,096 tokens at f16, blanks squeezed as llama.cpp's
/// padding (%6u cells, %3d layers) is not part of what the case checks.
std::vector<std::string> llamacpp_lines(const ModelSpec& m) {
  EngineOptions o;
  o.engine = Engine::llamacpp;
  const auto r =
      llamacpp_policy(m, KvDtypes{DType::fp16, DType::fp16}, Parallelism{}, Tokens{4096}, 1, o, std::nullopt);
  std::vector<std::string> out;
  for (const auto& l : r.log_lines) {
    std::string line;
    for (const char ch : l)
      if (ch != ' ' || line.empty() || line.back() != ' ') line += ch;
    for (std::size_t at = line.find("( "); at != std::string::npos; at = line.find("( "))
      line.erase(at + 1, 1);
    out.push_back(line);
  }
  return out;
}

bool has_line(const std::vector<std::string>& lines, const std::string& want) {
  for (const auto& l : lines)
    if (l == want) return true;
  return false;
}

}  // namespace

// ../shared/cases/llamacpp-live.json: three hybrids the real llama.cpp (node-llama-cpp 3.21.1, llama.cpp
// 0.4.0) ran at n_ctx 4096, one sequence, f16 K and V; the metadata below is the case's.
TEST_CASE("llamacpp-live nemotronh/c4096-s1-f16-fa0: MLP-only layers have neither KV nor state", "[gguf]") {
  GgufWriter w;
  w.kv_str("general.architecture", "nemotron_h")
      .kv_u32("nemotron_h.context_length", 131072)
      .kv_u32("nemotron_h.embedding_length", 256)
      .kv_u32("nemotron_h.block_count", 8)
      .kv_u32("nemotron_h.attention.head_count", 4)
      .kv_u32s("nemotron_h.attention.head_count_kv", {0, 0, 0, 2, 0, 0, 0, 0})
      .kv_u32s("nemotron_h.feed_forward_length", {0, 512, 0, 0, 0, 512, 0, 512})
      .kv_u32("nemotron_h.attention.key_length", 64)
      .kv_u32("nemotron_h.attention.value_length", 64)
      .kv_u32("nemotron_h.ssm.conv_kernel", 4)
      .kv_u32("nemotron_h.ssm.inner_size", 512)
      .kv_u32("nemotron_h.ssm.state_size", 16)
      .kv_u32("nemotron_h.ssm.time_step_rank", 8)
      .kv_u32("nemotron_h.ssm.group_count", 2);
  const ModelSpec m = presets::load_gguf_file(w.write("nemotron-h-tiny.gguf"));
  // Layers 0, 2, 4, 6 Mamba2 (KV heads and feed-forward 0); 1, 5, 7 MLP only; 3 attention.
  const std::vector<AttentionKind> want{
      AttentionKind::recurrent, AttentionKind::mlp_only, AttentionKind::recurrent, AttentionKind::full,
      AttentionKind::recurrent, AttentionKind::mlp_only, AttentionKind::recurrent, AttentionKind::mlp_only};
  std::vector<AttentionKind> got;
  for (const auto& g : m.layers)
    for (std::uint64_t i = 0; i < g.count; ++i) got.push_back(g.attention.kind);
  CHECK(got == want);
  CHECK(m.layers[1].mlp.intermediate_size == 512);
  CHECK_FALSE(m.layers[1].mlp.gated);
  CHECK(m.layers[0].mlp.intermediate_size == 0);
  const KvDtypes f16{DType::fp16, DType::fp16};
  // llama.cpp: "size = 2.00 MiB (4096 cells, 1 layers, ...)": 2 heads x 64 x 2 (K, V) x 2 B = 512 B a token.
  CHECK(bytes_per_token(m, f16).value == 512);
  // llama.cpp: "R (f32): 0.03 MiB, S (f32): 0.12 MiB", 0.15 MiB in all. Four Mamba2 layers, f32:
  // conv 3 x (512 + 2 x 2 x 16) = 1,728 values = 6,912 B; SSM 16 x 512 = 8,192 values = 32,768 B;
  // 4 x 39,680 = 158,720 B = 0.151 MiB (R 27,648 B = 0.026 MiB, S 131,072 B = 0.125 MiB).
  CHECK(state_bytes_per_sequence(m, f16).value == 158720);
  const auto lines = llamacpp_lines(m);
  CHECK(has_line(lines,
                 "llama_kv_cache: size = 2.00 MiB (4096 cells, 1 layers, 1/1 seqs), K (f16): 1.00 MiB, V "
                 "(f16): 1.00 MiB"));
}

TEST_CASE("llamacpp-live qwen3next/c4096-s1-f16-fa0: full_attention_interval marks the DeltaNet layers",
          "[gguf]") {
  const auto qwen3next = [](std::optional<std::uint32_t> interval) {
    GgufWriter w;
    w.kv_str("general.architecture", "qwen3next")
        .kv_u32("qwen3next.context_length", 262144)
        .kv_u32("qwen3next.embedding_length", 128)
        .kv_u32("qwen3next.block_count", 4)
        .kv_u32("qwen3next.attention.head_count", 4)
        .kv_u32("qwen3next.attention.head_count_kv", 2)
        .kv_u32("qwen3next.attention.key_length", 64)
        .kv_u32("qwen3next.attention.value_length", 64)
        .kv_u32("qwen3next.rope.dimension_count", 16)
        .kv_u32("qwen3next.feed_forward_length", 64)
        .kv_u32("qwen3next.expert_count", 4)
        .kv_u32("qwen3next.expert_used_count", 2)
        .kv_u32("qwen3next.expert_feed_forward_length", 64)
        .kv_u32("qwen3next.expert_shared_feed_forward_length", 64)
        .kv_u32("qwen3next.ssm.conv_kernel", 4)
        .kv_u32("qwen3next.ssm.inner_size", 128)
        .kv_u32("qwen3next.ssm.state_size", 32)
        .kv_u32("qwen3next.ssm.group_count", 2)
        .kv_u32("qwen3next.ssm.time_step_rank", 4);
    if (interval) w.kv_u32("qwen3next.full_attention_interval", *interval);
    return presets::model_from_gguf(presets::parse_gguf_header(w.file(), "q.gguf"), "q.gguf");
  };
  const KvDtypes f16{DType::fp16, DType::fp16};
  // The case (interval 4) and the default when the key is absent (llama-model.cpp: 4).
  for (const auto interval : {std::optional<std::uint32_t>{4}, std::optional<std::uint32_t>{}}) {
    const ModelSpec m = qwen3next(interval);
    REQUIRE(m.layers.size() == 2);
    CHECK(m.layers[0].count == 3);
    CHECK(m.layers[0].attention.kind == AttentionKind::recurrent);
    const RecurrentSpec& r = m.layers[0].attention.recurrent;
    CHECK(r.kind == RecurrentSpec::Kind::gated_deltanet);
    CHECK(r.num_key_heads == 2);
    CHECK(r.key_head_dim == 32);
    CHECK(r.num_value_heads == 4);
    CHECK(r.value_head_dim == 32);  // 128 / 4
    CHECK(m.layers[1].attention.kind == AttentionKind::full);
    CHECK(m.layers[1].mlp.num_shared_experts == 1);
    // llama.cpp: "size = 2.00 MiB (4096 cells, 1 layers, ...)": 2 x 64 x 2 x 2 B = 512 B a token.
    CHECK(bytes_per_token(m, f16).value == 512);
    // llama.cpp: "R (f32): 0.01 MiB, S (f32): 0.05 MiB", 0.06 MiB in all. Three layers, f32: conv
    // 3 x (128 + 2 x 2 x 32) = 768 values = 3,072 B; state 32 x 128 = 4,096 values = 16,384 B;
    // 3 x 19,456 = 58,368 B = 0.056 MiB (R 9,216 B = 0.009 MiB, S 49,152 B = 0.047 MiB).
    CHECK(state_bytes_per_sequence(m, f16).value == 58368);
    CHECK(has_line(llamacpp_lines(m),
                   "llama_kv_cache: size = 2.00 MiB (4096 cells, 1 layers, 1/1 seqs), K "
                   "(f16): 1.00 MiB, V (f16): 1.00 MiB"));
  }
  // Interval 2: layers 1 and 3 attend, 0 and 2 are DeltaNet.
  CHECK(bytes_per_token(qwen3next(2), f16).value == 1024);
  CHECK_THROWS_WITH(qwen3next(0), "q.gguf: qwen3next.full_attention_interval: must be positive");
}

TEST_CASE("llamacpp-live gemma4/c4096-s1-f16-fa1: SWA head dims, shared KV layers", "[gguf]") {
  GgufWriter w;
  std::string pattern;  // sliding_window_pattern: one BOOL per layer
  GgufWriter::u32(pattern, 7);
  GgufWriter::u64(pattern, 6);
  pattern += std::string("\1\1\1\0\1\0", 6);
  w.kv_str("general.architecture", "gemma4")
      .kv_u32("gemma4.context_length", 131072)
      .kv_u32("gemma4.embedding_length", 128)
      .kv_u32("gemma4.block_count", 6)
      .kv_u32("gemma4.attention.head_count", 4)
      .kv_u32("gemma4.attention.head_count_kv", 2)
      .kv_u32("gemma4.attention.key_length", 128)
      .kv_u32("gemma4.attention.value_length", 128)
      .kv_u32("gemma4.attention.key_length_swa", 64)
      .kv_u32("gemma4.attention.value_length_swa", 64)
      .kv_u32("gemma4.attention.sliding_window", 512)
      .kv_raw("gemma4.attention.sliding_window_pattern", 9, pattern)
      .kv_u32("gemma4.attention.shared_kv_layers", 2)
      .kv_u32("gemma4.embedding_length_per_layer_input", 0)
      .kv_u32("gemma4.feed_forward_length", 256);
  const ModelSpec m = presets::model_from_gguf(presets::parse_gguf_header(w.file(), "g.gguf"), "g.gguf");
  std::vector<AttentionLayer> a;
  for (const auto& g : m.layers)
    for (std::uint64_t i = 0; i < g.count; ++i) a.push_back(g.attention);
  REQUIRE(a.size() == 6);
  for (const std::size_t il : {0, 1, 2, 4}) {
    CHECK(a[il].kind == AttentionKind::sliding);
    CHECK(a[il].head_dim_k == 64);
    CHECK(a[il].head_dim_v == 64);
  }
  CHECK(a[3].kind == AttentionKind::full);
  CHECK(a[3].head_dim_k == 128);
  CHECK_FALSE(a[3].kv_shared);
  CHECK(a[4].kv_shared);  // the last two layers reuse earlier K/V
  CHECK(a[5].kv_shared);
  // llama.cpp: non-SWA "4.00 MiB (4096 cells, 1 layers)": 2 x 128 x 2 x 2 B = 1,024 B a token; SWA
  // "1.50 MiB (1024 cells, 3 layers)": 3 x 2 x 64 x 2 x 2 B = 1,536 B a token; 2,560 B in all.
  CHECK(bytes_per_token(m, KvDtypes{DType::fp16, DType::fp16}).value == 2560);
  const auto lines = llamacpp_lines(m);
  CHECK(has_line(lines,
                 "llama_kv_cache: size = 4.00 MiB (4096 cells, 1 layers, 1/1 seqs), K (f16): 2.00 MiB, V "
                 "(f16): 2.00 MiB"));
  CHECK(has_line(lines,
                 "llama_kv_cache: size = 1.50 MiB (1024 cells, 3 layers, 1/1 seqs), K (f16): 0.75 MiB, V "
                 "(f16): 0.75 MiB"));
  GgufWriter bad;
  bad.kv_str("general.architecture", "gemma4")
      .kv_u32("gemma4.block_count", 2)
      .kv_u32("gemma4.embedding_length", 128)
      .kv_u32("gemma4.attention.head_count", 4)
      .kv_u32("gemma4.attention.shared_kv_layers", 2);
  CHECK_THROWS_WITH(
      presets::model_from_gguf(presets::parse_gguf_header(bad.file(), "g.gguf"), "g.gguf"),
      "g.gguf: gemma4.attention.shared_kv_layers: 2 shared layers leave none of the 2 to cache K/V");
}

TEST_CASE("GGUF GLM-4.5: llama.cpp v0.4.0 caches the NextN block with the trunk", "[gguf]") {
  // src/llama-model.cpp create_memory (v0.4.0): no layer filter for glm4moe, so the main context's KV cache
  // has every block_count layer (the live suite: 3 layers cached of a 3-block file with one NextN block).
  GgufWriter w;
  w.kv_str("general.architecture", "glm4moe")
      .kv_u32("glm4moe.embedding_length", 128)
      .kv_u32("glm4moe.block_count", 3)
      .kv_u32("glm4moe.nextn_predict_layers", 1)
      .kv_u32("glm4moe.attention.head_count", 4)
      .kv_u32("glm4moe.attention.head_count_kv", 2)
      .kv_u32("glm4moe.attention.key_length", 64);
  const ModelSpec m = presets::model_from_gguf(presets::parse_gguf_header(w.file(), "g.gguf"), "g.gguf");
  // 3 layers x 2 KV heads x 64 x (K + V) x 2 B = 1,536 B a token.
  CHECK(bytes_per_token(m, KvDtypes{DType::fp16, DType::fp16}).value == 1536);
  REQUIRE(m.warnings.size() == 1);
  CHECK_THAT(m.warnings[0], Catch::Contains("llama.cpp v0.4.0 caches their K/V with the trunk's"));
}

TEST_CASE("GGUF Qwen3.5: attention.recurrent_layers, and NextN blocks outside the trunk", "[gguf]") {
  // llama-model.cpp (qwen35, qwen35moe): recurrent_layers by get_key_or_arr, else the interval over the
  // trunk only; n_layer_kv_from_start = block_count - nextn_predict_layers.
  const auto qwen35 = [](const std::function<void(GgufWriter&)>& extra) {
    GgufWriter w;
    w.kv_str("general.architecture", "qwen35")
        .kv_u32("qwen35.embedding_length", 128)
        .kv_u32("qwen35.block_count", 5)
        .kv_u32("qwen35.attention.head_count", 4)
        .kv_u32("qwen35.attention.head_count_kv", 2)
        .kv_u32("qwen35.attention.key_length", 64)
        .kv_u32("qwen35.ssm.conv_kernel", 4)
        .kv_u32("qwen35.ssm.inner_size", 128)
        .kv_u32("qwen35.ssm.state_size", 32)
        .kv_u32("qwen35.ssm.group_count", 2)
        .kv_u32("qwen35.ssm.time_step_rank", 4);
    extra(w);
    return presets::model_from_gguf(presets::parse_gguf_header(w.file(), "q.gguf"), "q.gguf");
  };
  const auto kinds = [](const ModelSpec& m) {
    std::string s;
    for (const auto& g : m.layers)
      for (std::uint64_t i = 0; i < g.count; ++i)
        s += g.attention.kind == AttentionKind::recurrent ? 'R' : 'A';
    return s;
  };
  // Without NextN: interval 4 over 5 layers, layer 4 ((4 + 1) % 4 != 0) recurrent.
  CHECK(kinds(qwen35([](GgufWriter&) {})) == "RRRAR");
  // One NextN block: the trunk is 4 layers; the fifth is neither cached nor a DeltaNet layer.
  const ModelSpec mtp = qwen35([](GgufWriter& w) { w.kv_u32("qwen35.nextn_predict_layers", 1); });
  CHECK(kinds(mtp) == "RRRA");
  REQUIRE(mtp.warnings.size() == 1);
  CHECK_THAT(mtp.warnings[0], Catch::Contains("the last 1 of 5 blocks are NextN/MTP layers"));
  // One attention layer: 2 x 64 x 2 x 2 B = 512 B a token.
  CHECK(bytes_per_token(mtp, KvDtypes{DType::fp16, DType::fp16}).value == 512);
  std::string per_layer;  // recurrent_layers: BOOL per layer
  GgufWriter::u32(per_layer, 7);
  GgufWriter::u64(per_layer, 5);
  per_layer += std::string("\1\0\1\0\0", 5);
  CHECK(kinds(qwen35([&](GgufWriter& w) { w.kv_raw("qwen35.attention.recurrent_layers", 9, per_layer); })) ==
        "RARAA");
  CHECK(kinds(qwen35([](GgufWriter& w) { w.kv_bool("qwen35.attention.recurrent_layers", false); })) ==
        "AAAAA");
  CHECK_THROWS_WITH(qwen35([](GgufWriter& w) {
                      w.kv_u32s("qwen35.attention.recurrent_layers", {1, 0});
                    }),
                    "q.gguf: qwen35.attention.recurrent_layers: must be a boolean, or one per layer (5)");
  CHECK_THROWS_WITH(qwen35([](GgufWriter& w) { w.kv_u32("qwen35.nextn_predict_layers", 5); }),
                    "q.gguf: qwen35.nextn_predict_layers: 5 must be below block_count 5");
}

TEST_CASE("GGUF LFM2: short-convolution layers where head_count_kv is 0", "[gguf]") {
  // LFM2-1.2B's shape (config.json: full_attn_idxs 2, 5, 8, 10, 12, 14; conv_L_cache 3).
  GgufWriter w;
  w.kv_str("general.architecture", "lfm2")
      .kv_u32("lfm2.block_count", 16)
      .kv_u32("lfm2.embedding_length", 2048)
      .kv_u32("lfm2.attention.head_count", 32)
      .kv_u32s("lfm2.attention.head_count_kv", {0, 0, 8, 0, 0, 8, 0, 0, 8, 0, 8, 0, 8, 0, 8, 0})
      .kv_u32("lfm2.shortconv.l_cache", 3);
  const ModelSpec m = presets::model_from_gguf(presets::parse_gguf_header(w.file(), "l.gguf"), "l.gguf");
  REQUIRE(m.layers[0].attention.kind == AttentionKind::recurrent);
  CHECK(m.layers[0].attention.recurrent.kind == RecurrentSpec::Kind::short_conv);
  const KvDtypes f16{DType::fp16, DType::fp16};
  // Six attention layers: 6 x 2 x 8 heads x 64 (2048 / 32) x 2 B = 12,288 B a token.
  CHECK(bytes_per_token(m, f16).value == 12288);
  // Ten conv layers (llama.cpp n_embd_r = n_embd x (l_cache - 1), f32): 10 x 2048 x 2 x 4 B = 163,840 B.
  CHECK(state_bytes_per_sequence(m, f16).value == 163840);
  GgufWriter no_cache;
  no_cache.kv_str("general.architecture", "lfm2")
      .kv_u32("lfm2.block_count", 2)
      .kv_u32("lfm2.embedding_length", 2048)
      .kv_u32("lfm2.attention.head_count", 32)
      .kv_u32s("lfm2.attention.head_count_kv", {0, 8});
  CHECK_THROWS_WITH(presets::model_from_gguf(presets::parse_gguf_header(no_cache.file(), "l.gguf"), "l.gguf"),
                    "l.gguf: lfm2.shortconv.l_cache: missing");
}
