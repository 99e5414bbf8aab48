// Reading real start-up logs (presets/engine_log.hpp): the fixtures' lines and where they come from are in
// tests/fixtures/logs/README.md. Expected bytes are the printed figures x 2^30 (GiB, and SGLang's and
// TensorRT-LLM's GB) or x 2^20 (llama.cpp's MiB), rounded to whole bytes.
#include <catch2/catch.hpp>

#include "kvplan/engine_log.hpp"

using namespace kvplan;
using presets::read_engine_log;

namespace {
std::string log_path(const char* name) { return std::string(KVPLAN_FIXTURES) + "/logs/" + name; }
}  // namespace

TEST_CASE("engine logs: vLLM's Available KV cache memory, tokens and version", "[engine_log]") {
  const auto f = read_engine_log(log_path("vllm-0.19-llama-3.1-8b.log"));
  CHECK(f.engine == Engine::vllm);
  // 58.11 x 1,073,741,824 = 62,395,137,392.64 -> 62,395,137,393.
  CHECK(f.kv_memory.value == 62395137393ULL);
  REQUIRE(f.kv_cache_tokens);
  CHECK(*f.kv_cache_tokens == 476016);
  CHECK(f.version == "0.19.0");
  REQUIRE(f.lines.size() == 1);
  CHECK(f.lines[0].find("Available KV cache memory: 58.11 GiB") != std::string::npos);
}

TEST_CASE("engine logs: SGLang's K and V sizes added", "[engine_log]") {
  const auto f = read_engine_log(log_path("sglang-qwen3-235b-fp8-tp4.log"));
  CHECK(f.engine == Engine::sglang);
  // 8.23 GB (2^30) each: 8,589,934,592 + 246,960,619.52 = 8,836,895,211.52 -> 8,836,895,212, twice.
  CHECK(f.kv_memory.value == 2 * 8836895212ULL);
  REQUIRE(f.kv_cache_tokens);
  CHECK(*f.kv_cache_tokens == 367404);
}

TEST_CASE("engine logs: TensorRT-LLM's last allocation, not the estimation cache", "[engine_log]") {
  const auto f = read_engine_log(log_path("trtllm-two-allocations.log"));
  CHECK(f.engine == Engine::trtllm);
  // 26.91 x 2^30 = 28,894,392,483.84 -> 28,894,392,484.
  CHECK(f.kv_memory.value == 28894392484ULL);
  REQUIRE(f.kv_cache_tokens);
  CHECK(*f.kv_cache_tokens == 220480);
}

TEST_CASE("engine logs: llama.cpp's KV and recurrent buffers of one context, summed", "[engine_log]") {
  const auto f = read_engine_log(log_path("llamacpp-nemotronh.log"));
  CHECK(f.engine == Engine::llamacpp);
  // 2.00 MiB of KV + 0.15 MiB of state (157,286.4 -> 157,286); the "buffer size" lines are not added again.
  CHECK(f.kv_memory.value == 2097152ULL + 157286ULL);
  CHECK(f.lines.size() == 2);
}

TEST_CASE("engine logs: a file without an engine line is refused naming the lines looked for", "[engine_log]") {
  CHECK_THROWS_WITH(read_engine_log(log_path("not-a-log.txt")),
                    Catch::Contains("is not an engine start-up log") &&
                        Catch::Contains("Available KV cache memory") && Catch::Contains("K size"));
  CHECK_THROWS_WITH(read_engine_log(log_path("no-such.log")), Catch::Contains("no such file"));
  CHECK_THROWS_WITH(read_engine_log(std::string(KVPLAN_FIXTURES) + "/logs"), Catch::Contains("directory"));
}
