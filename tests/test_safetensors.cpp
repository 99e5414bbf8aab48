// safetensors headers (presets/src/safetensors.cpp): sparse shards, header only, laid out as
// transformers' save_pretrained writes Llama-3.1-8B (meta-llama/Llama-3.1-8B model.safetensors.index.json:
// four shards, total_size 16,060,522,496), expected figures worked by hand.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <fstream>

#include <nlohmann/json.hpp>

#include "kvplan/plan.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/safetensors.hpp"

using namespace kvplan;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Tensor {
  std::string name;
  std::string dtype;
  std::vector<std::uint64_t> shape;
  std::uint64_t bytes_per_element = 2;
};

/// One shard: the 8-byte length, the JSON header, then the data region as a hole (resize_file).
void write_shard(const fs::path& p, const std::vector<Tensor>& tensors) {
  json h = json::object();
  std::uint64_t off = 0;
  for (const auto& t : tensors) {
    std::uint64_t n = t.bytes_per_element;
    for (const auto d : t.shape) n *= d;
    h[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {off, off + n}}};
    off += n;
  }
  h["__metadata__"] = {{"format", "pt"}};
  const std::string text = h.dump();
  {
    std::ofstream out(p, std::ios::binary);
    for (int i = 0; i < 8; ++i) out << static_cast<char>((text.size() >> (8 * i)) & 0xFF);
    out << text;
  }
  fs::resize_file(p, 8 + text.size() + off);
}

fs::path llama31_8b_folder() {
  const fs::path dir = fs::temp_directory_path() / "kvplan-test-safetensors" / "Llama-3.1-8B";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "config.json") << json{
      {"model_type", "llama"},
      {"architectures", {"LlamaForCausalLM"}},
      {"hidden_size", 4096},
      {"intermediate_size", 14336},
      {"num_hidden_layers", 32},
      {"num_attention_heads", 32},
      {"num_key_value_heads", 8},
      {"vocab_size", 128256},
      {"max_position_embeddings", 131072},
      {"tie_word_embeddings", false},
      {"torch_dtype", "bfloat16"}}.dump();
  // The published split puts the embeddings and layers 0-8 in shard 1, lm_head in shard 4; the layer
  // boundaries here are close to it (the totals do not depend on them).
  std::vector<std::vector<Tensor>> shards(4);
  json map = json::object();
  const auto put = [&](std::size_t shard, Tensor t) {
    map[t.name] = "model-0000" + std::to_string(shard + 1) + "-of-00004.safetensors";
    shards[shard].push_back(std::move(t));
  };
  put(0, {"model.embed_tokens.weight", "BF16", {128256, 4096}});
  for (int il = 0; il < 32; ++il) {
    const std::size_t s = il < 9 ? 0 : il < 20 ? 1 : il < 31 ? 2 : 3;
    const std::string b = "model.layers." + std::to_string(il) + ".";
    put(s, {b + "input_layernorm.weight", "BF16", {4096}});
    put(s, {b + "mlp.down_proj.weight", "BF16", {4096, 14336}});
    put(s, {b + "mlp.gate_proj.weight", "BF16", {14336, 4096}});
    put(s, {b + "mlp.up_proj.weight", "BF16", {14336, 4096}});
    put(s, {b + "post_attention_layernorm.weight", "BF16", {4096}});
    put(s, {b + "self_attn.k_proj.weight", "BF16", {1024, 4096}});
    put(s, {b + "self_attn.o_proj.weight", "BF16", {4096, 4096}});
    put(s, {b + "self_attn.q_proj.weight", "BF16", {4096, 4096}});
    put(s, {b + "self_attn.v_proj.weight", "BF16", {1024, 4096}});
  }
  put(3, {"model.norm.weight", "BF16", {4096}});
  put(3, {"lm_head.weight", "BF16", {128256, 4096}});
  for (std::size_t i = 0; i < 4; ++i)
    write_shard(dir / ("model-0000" + std::to_string(i + 1) + "-of-00004.safetensors"), shards[i]);
  std::ofstream(dir / "model.safetensors.index.json")
      << json{{"metadata", {{"total_size", 16060522496ULL}}}, {"weight_map", map}}.dump();
  return dir;
}

}  // namespace

TEST_CASE("safetensors Llama-3.1-8B: exact parameters and bytes from four shard headers", "[safetensors]") {
  const fs::path dir = llama31_8b_folder();
  const auto s = presets::read_safetensors_folder(dir);
  REQUIRE(s);
  CHECK(s->files == 4);
  // Embeddings 128,256 x 4,096 = 525,336,576, twice (lm_head untied); per layer q 16,777,216 + k 4,194,304 +
  // v 4,194,304 + o 16,777,216 + MLP 3 x 58,720,256 + norms 8,192 = 218,112,000, x 32 = 6,979,584,000;
  // norm 4,096: 1,050,673,152 + 6,979,584,000 + 4,096 = 8,030,261,248; x 2 B (BF16) = 16,060,522,496 B, the
  // index's total_size.
  CHECK(s->total.elements == 8030261248ULL);
  CHECK(s->total.bytes == 16060522496ULL);
  CHECK(s->by_dtype.at("BF16").bytes == 16060522496ULL);
  CHECK(s->has_lm_head);
  CHECK(s->vision.bytes == 0);
  REQUIRE(s->index_total_size);
  CHECK(*s->index_total_size == s->total.bytes);

  const ModelSpec m = presets::find_model(dir.string());
  REQUIRE(m.weights_bytes);
  CHECK(m.weights_bytes->value == 16060522496ULL);
  CHECK(m.weights_parameters == 8030261248ULL);
  CHECK(m.weights_origin == "safetensors headers (exact)");
  CHECK(m.warnings.empty());  // total_size agrees: no warning
  PlanInputs in;
  in.model = m;
  CHECK(make_plan(in).weights_bytes.value == 16060522496ULL);
}

TEST_CASE("safetensors dtypes, packed formats, vision and MTP apart", "[safetensors]") {
  const fs::path dir = fs::temp_directory_path() / "kvplan-test-safetensors" / "mixed";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // A GPTQ int4 qweight of a 4096 x 4096 matrix: 4096 / 8 = 512 rows of 4096 I32 = 2,097,152 elements,
  // 8,388,608 B; its F16 scales for groups of 128: 32 x 4096 = 131,072 elements, 262,144 B.
  // An FP8 weight 1024 x 1024 (1,048,576 B) and its F32 block scales 8 x 8 (256 B).
  // MXFP4 blocks 32 x 90 x 16 U8 = 46,080 B and scales 32 x 90 U8 = 2,880 B.
  // A vision tensor 1024 x 1024 BF16 (2,097,152 B) and an MTP tensor 512 BF16 (1,024 B).
  write_shard(dir / "model.safetensors",
              {{"model.layers.0.self_attn.q_proj.qweight", "I32", {512, 4096}, 4},
               {"model.layers.0.self_attn.q_proj.scales", "F16", {32, 4096}, 2},
               {"model.layers.0.mlp.fp8.weight", "F8_E4M3", {1024, 1024}, 1},
               {"model.layers.0.mlp.fp8.weight_scale_inv", "F32", {8, 8}, 4},
               {"model.layers.0.mlp.experts.gate_up_proj_blocks", "U8", {32, 90, 16}, 1},
               {"model.layers.0.mlp.experts.gate_up_proj_scales", "U8", {32, 90}, 1},
               {"model.visual.blocks.0.attn.qkv.weight", "BF16", {1024, 1024}, 2},
               {"model.mtp.norm.weight", "BF16", {512}, 2}});
  presets::SafetensorsSummary s;
  presets::add_safetensors_header(dir / "model.safetensors", s);
  CHECK(s.by_dtype.at("I32").bytes == 8388608);
  CHECK(s.by_dtype.at("I32").elements == 2097152);
  CHECK(s.by_dtype.at("F8_E4M3").bytes == 1048576);
  CHECK(s.by_dtype.at("U8").bytes == 48960);  // 46,080 + 2,880
  CHECK(s.vision.bytes == 2097152);
  CHECK(s.mtp.bytes == 1024);
  // Language: 8,388,608 + 262,144 + 1,048,576 + 256 + 48,960 = 9,748,544 B.
  CHECK(s.language.bytes == 9748544);
  CHECK_FALSE(s.has_lm_head);
}

TEST_CASE("safetensors refusals: one line naming the file and tensor", "[safetensors]") {
  const fs::path dir = fs::temp_directory_path() / "kvplan-test-safetensors" / "bad";
  fs::remove_all(dir);
  fs::create_directories(dir);
  presets::SafetensorsSummary s;
  SECTION("a header length past the file") {
    std::ofstream(dir / "a.safetensors", std::ios::binary)
        << std::string("\xff\x00\x00\x00\x00\x00\x00\x00{}", 10);
    CHECK_THROWS_WITH(presets::add_safetensors_header(dir / "a.safetensors", s),
                      "a.safetensors: truncated: a 255-byte header in a 10-byte file");
  }
  SECTION("offsets that disagree with the shape") {
    write_shard(dir / "b.safetensors", {{"w", "BF16", {4, 4}, 1}});  // 16 bytes for 16 BF16 values
    CHECK_THROWS_WITH(presets::add_safetensors_header(dir / "b.safetensors", s),
                      "b.safetensors: /w/data_offsets: 16 bytes for 16 BF16 elements (32 expected)");
  }
  SECTION("an unknown dtype") {
    write_shard(dir / "c.safetensors", {{"w", "Q4", {4}, 1}});
    CHECK_THROWS_WITH(presets::add_safetensors_header(dir / "c.safetensors", s),
                      "c.safetensors: /w/dtype: unknown safetensors dtype 'Q4'");
  }
}

TEST_CASE("safetensors headers read elsewhere: the same checks, the file's size from outside",
          "[safetensors]") {
  presets::SafetensorsSummary s;
  // One BF16 tensor 2 x 3: 12 bytes of data after an N-byte header; the file is 8 + N + 12 bytes.
  const std::string text = R"({"w":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]}})";
  presets::add_safetensors_header_text(text, 8 + text.size() + 12, "s.safetensors", s);
  CHECK(s.total.elements == 6);
  CHECK(s.total.bytes == 12);
  CHECK(s.files == 1);
  // One data byte short: the tensor's end is past the file.
  CHECK_THROWS_WITH(presets::add_safetensors_header_text(text, 8 + text.size() + 11, "s.safetensors", s),
                    "s.safetensors: /w/data_offsets: [0, 12] is outside the file's 11 data bytes");
  CHECK_THROWS_WITH(
      presets::add_safetensors_header_text(text, 20, "s.safetensors", s),
      "s.safetensors: truncated: a " + std::to_string(text.size()) + "-byte header in a 20-byte file");
  // The length prefix: 16 little-endian, checked against the file's size and the format's 100 MB.
  const unsigned char sixteen[8] = {16, 0, 0, 0, 0, 0, 0, 0};
  CHECK(presets::safetensors_header_length(sixteen, 24, "x") == 16);
  CHECK_THROWS_WITH(presets::safetensors_header_length(sixteen, 23, "x"),
                    "x: truncated: a 16-byte header in a 23-byte file");
  CHECK_THROWS_WITH(presets::safetensors_header_length(sixteen, 7, "x"),
                    "x: truncated: no 8-byte header length");
  const unsigned char huge[8] = {0x01, 0xe1, 0xf5, 0x05, 0, 0, 0, 0};  // 0x05f5e101 = 100,000,001
  CHECK_THROWS_WITH(presets::safetensors_header_length(huge, std::uint64_t{1} << 40, "x"),
                    "x: header length 100000001 is over the format's 100 MB");
}

TEST_CASE("safetensors index: shard names, each once, and only plain file names", "[safetensors]") {
  const json good = {{"weight_map",
                      {{"a", "model-00002.safetensors"},
                       {"b", "model-00001.safetensors"},
                       {"c", "model-00002.safetensors"}}}};
  // nlohmann's object keeps its keys sorted: a, b, c; first use order gives shard 2 then shard 1.
  CHECK(presets::safetensors_index_shards(good, "i.json") ==
        std::vector<std::string>{"model-00002.safetensors", "model-00001.safetensors"});
  for (const std::string shard : {"../x.safetensors", "", "..", "a\\b"})
    CHECK_THROWS_WITH(presets::safetensors_index_shards(json{{"weight_map", {{"t", shard}}}}, "i.json"),
                      "i.json: /weight_map/t: must be a file name in the folder");
  CHECK_THROWS_WITH(presets::safetensors_index_shards(json::array(), "i.json"),
                    "i.json: must be a JSON object with a weight_map");
  CHECK_THROWS_WITH(presets::safetensors_index_shards(json{{"metadata", {}}}, "i.json"),
                    "i.json: /weight_map: must be an object of tensor -> shard file");
}

TEST_CASE("safetensors folder: shards the folder lacks come from elsewhere, or not at all", "[safetensors]") {
  const fs::path dir = fs::temp_directory_path() / "kvplan-test-safetensors" / "elsewhere";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "model.safetensors.index.json")
      << json{{"weight_map", {{"w", "s1.safetensors"}, {"x", "s2.safetensors"}}}}.dump();
  write_shard(dir / "s1.safetensors", {{"w", "BF16", {4}}});  // 8 B in the folder
  const std::string text = R"({"x":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}})";
  std::vector<std::string> asked;
  const auto found = presets::read_safetensors_folder(dir, [&](const std::string& shard) {
    asked.push_back(shard);
    return std::optional<presets::ShardHeader>(presets::ShardHeader{8 + text.size() + 12, text});
  });
  REQUIRE(found);
  CHECK(asked == std::vector<std::string>{"s2.safetensors"});
  CHECK(found->total.bytes == 20);  // 8 + 12
  CHECK(found->total.elements == 7);
  CHECK_FALSE(found->index_total_size);  // the index has no metadata
  // An index whose total_size disagrees with the headers: said in a warning.
  presets::SafetensorsSummary off = *found;
  off.index_total_size = 21;
  ModelSpec m;
  m.id = m.name = "x";
  presets::apply_safetensors(off, m);
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0] == "safetensors: the index's total_size is 21 B, the headers' tensors 20 B");
  CHECK_FALSE(presets::read_safetensors_folder(
      dir, [](const std::string&) { return std::optional<presets::ShardHeader>(); }));
  CHECK_THROWS_WITH(
      presets::read_safetensors_folder(dir),
      "model.safetensors.index.json: names the shard s2.safetensors, which is not in " + dir.string());
}

// Issue 28: the header goes through the JSON readers' bounds (json_file.cpp), not an unbounded DOM parse
// (32 MiB of "[" took 2.5 GB; tests/reliability/bounds.cmake runs that one under /usr/bin/time).
TEST_CASE("safetensors header: nesting and value count bounded as for JSON files", "[safetensors][hostile]") {
  presets::SafetensorsSummary s;
  // 65 levels of "[": one past kMaxJsonDepth (64). The old parser said only "not a JSON object".
  const std::string deep(65, '[');
  CHECK_THROWS_WITH(
      presets::add_safetensors_header_text(deep, 8 + deep.size(), "d.safetensors", s),
      Catch::Contains("d.safetensors: /0/0") && Catch::EndsWith("nested deeper than 64 levels (the limit)"));
  // 524,288 values: the outer array is the first, so the array's element 524,287 is one too many.
  std::string wide = "[";
  for (std::size_t i = 0; i < presets::kMaxJsonValues; ++i) wide += "0,";
  wide += "0]";
  CHECK_THROWS_WITH(presets::add_safetensors_header_text(wide, 8 + wide.size(), "w.safetensors", s),
                    "w.safetensors: /524287: more than 524,288 JSON values in the file (the limit)");
  // Malformed JSON is named as such, with the place.
  CHECK_THROWS_WITH(presets::add_safetensors_header_text("{\"a\":", 20, "m.safetensors", s),
                    Catch::StartsWith("m.safetensors: malformed JSON: "));
  CHECK(s.files == 0);
}

// safetensors/src/tensor.rs Metadata::validate: sorted by offsets, each tensor starts where the previous
// ended, and the last ends at the data region's end. Before, 6,000 B of tensors were counted from 2,000
// data bytes.
TEST_CASE("safetensors offsets: overlaps, gaps and uncovered bytes refused naming the tensor",
          "[safetensors][hostile]") {
  presets::SafetensorsSummary s;
  const auto tensor = [](const std::string& name, std::uint64_t begin, std::uint64_t end) {
    // BF16 [n]: (end - begin) / 2 elements.
    return "\"" + name + "\":{\"dtype\":\"BF16\",\"shape\":[" + std::to_string((end - begin) / 2) +
           "],\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(end) + "]}";
  };
  const auto header = [](std::initializer_list<std::string> parts) {
    std::string h = "{";
    for (const auto& p : parts) h += (h.size() > 1 ? "," : "") + p;
    return h + "}";
  };
  SECTION("three tensors on the same 2,000 bytes") {
    const std::string h = header({tensor("a", 0, 2000), tensor("b", 0, 2000), tensor("c", 0, 2000)});
    CHECK_THROWS_WITH(presets::add_safetensors_header_text(h, 8 + h.size() + 2000, "o.safetensors", s),
                      "o.safetensors: /b/data_offsets: [0, 2000] overlaps a, which ends at byte 2000 (each "
                      "data byte belongs to one tensor)");
  }
  SECTION("a partial overlap") {
    const std::string h = header({tensor("a", 0, 100), tensor("b", 98, 198)});
    CHECK_THROWS_WITH(presets::add_safetensors_header_text(h, 8 + h.size() + 198, "o.safetensors", s),
                      Catch::StartsWith("o.safetensors: /b/data_offsets: [98, 198] overlaps a, which ends at "
                                        "byte 100"));
  }
  SECTION("a gap between two tensors") {
    const std::string h = header({tensor("a", 0, 100), tensor("b", 200, 300)});
    CHECK_THROWS_WITH(presets::add_safetensors_header_text(h, 8 + h.size() + 300, "g.safetensors", s),
                      "g.safetensors: /b/data_offsets: [200, 300] leaves bytes 100 to 200 of the data region "
                      "to no tensor (the tensors must follow each other)");
  }
  SECTION("bytes after the last tensor") {
    const std::string h = header({tensor("model.layers.0.w", 0, 2000)});
    CHECK_THROWS_WITH(presets::add_safetensors_header_text(h, 8 + h.size() + 6000, "u.safetensors", s),
                      "u.safetensors: the tensors cover 2000 of the file's 6000 data bytes (the last, "
                      "model.layers.0.w, ends there): the rest belongs to no tensor");
  }
  SECTION("no tensor, but data bytes") {
    CHECK_THROWS_WITH(presets::add_safetensors_header_text("{}", 8 + 2 + 16, "e.safetensors", s),
                      "e.safetensors: the tensors cover 0 of the file's 16 data bytes: the rest belongs to "
                      "no tensor");
  }
  // Nothing counted from a refused header.
  CHECK(s.files == 0);
  CHECK(s.total.bytes == 0);
  SECTION("tensors tiling the region, listed out of order, with an empty one, are fine") {
    const std::string h =
        header({tensor("z", 100, 300), tensor("e", 100, 100), tensor("a", 0, 100), "\"__metadata__\":{}"});
    presets::add_safetensors_header_text(h, 8 + h.size() + 300, "f.safetensors", s);
    CHECK(s.total.bytes == 300);  // 100 + 0 + 200
    CHECK(s.total.elements == 150);
  }
}

TEST_CASE("safetensors index: 250,000 distinct shards listed once each, in first-use order",
          "[safetensors][hostile]") {
  // The de-duplication was a linear search (quadratic: 100,000 shards took 15 to 23 s, 250,000 never
  // ended). Its cost is measured under /usr/bin/time in tests/reliability/bounds.cmake; here the answer.
  json map = json::object();
  for (int i = 0; i < 250000; ++i) map["t" + std::to_string(i)] = "s" + std::to_string(i % 125000) + ".st";
  const auto shards = presets::safetensors_index_shards(json{{"weight_map", map}}, "i.json");
  REQUIRE(shards.size() == 125000);
  // Keys sorted: t0, t1, t10, t100, ...: the first use of each shard decides its place.
  CHECK(shards[0] == "s0.st");
  CHECK(shards[1] == "s1.st");
  CHECK(shards[2] == "s10.st");
}

TEST_CASE("safetensors folder: a shard that is no plain file is named as what it is",
          "[safetensors][hostile]") {
  const fs::path dir = fs::temp_directory_path() / "kvplan-test-safetensors" / "special";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "model.safetensors.index.json")
      << json{{"weight_map", {{"w", "s.safetensors"}}}}.dump();
  const fs::path shard = dir / "s.safetensors";
  const std::string at = shard.string() + ": ";
  SECTION("a folder") {
    fs::create_directory(shard);
    CHECK_THROWS_WITH(presets::read_safetensors_folder(dir), at + "is a directory, not a file");
  }
  SECTION("a FIFO (no reader: reading it would block)") {
    REQUIRE(::mkfifo(shard.c_str(), 0600) == 0);
    CHECK_THROWS_WITH(presets::read_safetensors_folder(dir),
                      at + "is a FIFO (named pipe), not a regular file");
    // The Hub's snapshot path (shards from elsewhere) says the same, and asks nothing.
    bool asked = false;
    CHECK_THROWS_WITH(presets::read_safetensors_folder(dir,
                                                       [&](const std::string&) {
                                                         asked = true;
                                                         return std::optional<presets::ShardHeader>();
                                                       }),
                      at + "is a FIFO (named pipe), not a regular file");
    CHECK_FALSE(asked);
  }
  SECTION("a device") {
    fs::create_symlink("/dev/null", shard);
    CHECK_THROWS_WITH(presets::read_safetensors_folder(dir), at + "is a device, not a regular file");
  }
  SECTION("a link loop") {
    fs::create_symlink("s.safetensors", shard);
    CHECK_THROWS_WITH(presets::read_safetensors_folder(dir), at + "is a symbolic link loop");
  }
  SECTION("a link to a file of /proc (size 0, may block or be consumed by a read)") {
    fs::create_symlink("/proc/self/status", shard);
    CHECK_THROWS_WITH(presets::read_safetensors_folder(dir),
                      at + "is a file of /proc (the kernel's, not a plain file)");
  }
}

TEST_CASE("safetensors: an empty checkpoint, a tensor in two files, a stale index entry",
          "[safetensors][hostile]") {
  const fs::path dir = fs::temp_directory_path() / "kvplan-test-safetensors" / "two-files";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // A header of __metadata__ only: no tensor of the language model, not 0 B of exact weights.
  write_shard(dir / "model.safetensors", {});
  auto empty = presets::read_safetensors_folder(dir);
  REQUIRE(empty);
  ModelSpec m;
  m.id = m.name = "x";
  CHECK_THROWS_WITH(presets::apply_safetensors(*empty, m),
                    "safetensors: the 1 file holds no tensor of the language model: not a checkpoint an "
                    "engine can load");
  fs::remove(dir / "model.safetensors");
  // The embeddings in both files, the index naming only a.safetensors: counted twice before (128,000
  // parameters for 64,000); refused naming the tensor and both files.
  std::ofstream(dir / "model.safetensors.index.json") << json{
      {"weight_map",
       {{"model.embed_tokens.weight", "a.safetensors"},
        {"model.norm.weight", "b.safetensors"}}}}.dump();
  write_shard(dir / "a.safetensors", {{"model.embed_tokens.weight", "BF16", {1000, 64}}});
  write_shard(dir / "b.safetensors",
              {{"model.embed_tokens.weight", "BF16", {1000, 64}}, {"model.norm.weight", "BF16", {64}}});
  CHECK_THROWS_WITH(
      presets::read_safetensors_folder(dir),
      "b.safetensors: /model.embed_tokens.weight: is also in a.safetensors: a tensor in two files");
  // The norm in a.safetensors, though the index names b: the files' tensors are counted (64,000 + 64 BF16
  // values), with a warning naming the entry.
  write_shard(dir / "a.safetensors",
              {{"model.embed_tokens.weight", "BF16", {1000, 64}}, {"model.norm.weight", "BF16", {64}}});
  write_shard(dir / "b.safetensors", {{"lm_head.weight", "BF16", {8, 64}}});
  const auto stale = presets::read_safetensors_folder(dir);
  REQUIRE(stale);
  CHECK(stale->total.elements == 64000 + 64 + 512);
  presets::apply_safetensors(*stale, m);
  REQUIRE(m.warnings.size() == 1);
  CHECK(m.warnings[0] ==
        "safetensors: 1 index entry does not match the files (model.safetensors.index.json: "
        "/weight_map/model.norm.weight names b.safetensors, but a.safetensors holds it); the weights are the "
        "files' tensors");
}
