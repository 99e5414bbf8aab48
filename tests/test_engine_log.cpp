// Reading real start-up logs (presets/engine_log.hpp): the fixtures' lines and where they come from are in
// tests/fixtures/logs/README.md. Expected bytes are the printed figures x 2^30 (GiB, and SGLang's and
// TensorRT-LLM's GB) or x 2^20 (llama.cpp's MiB), rounded to whole bytes.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>

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

TEST_CASE("engine logs: a file without an engine line is refused naming the lines looked for",
          "[engine_log]") {
  CHECK_THROWS_WITH(read_engine_log(log_path("not-a-log.txt")),
                    Catch::Contains("is not an engine start-up log") &&
                        Catch::Contains("Available KV cache memory") && Catch::Contains("K size"));
  CHECK_THROWS_WITH(read_engine_log(log_path("no-such.log")), Catch::Contains("no such file"));
  CHECK_THROWS_WITH(read_engine_log(std::string(KVPLAN_FIXTURES) + "/logs"), Catch::Contains("directory"));
}

namespace {
/// A log written for the test into the temporary folder (removed when the test ends).
struct TempLog {
  std::filesystem::path path;
  explicit TempLog(const std::string& text) {
    path = std::filesystem::temp_directory_path() /
           ("kvplan-engine-log-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)) + ".log");
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempLog() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
};
}  // namespace

TEST_CASE("engine logs: several ranks' lines give the smallest pool", "[engine_log]") {
  // tp 2, each worker prints its own line; every rank then takes the smallest (get_kv_cache_configs).
  const TempLog log(
      "(VllmWorker TP0 pid=1) INFO [gpu_worker.py:391] Available KV cache memory: 20.00 GiB\r\n"
      "(VllmWorker TP1 pid=2) INFO [gpu_worker.py:391] Available KV cache memory: 18.00 GiB\r\n");
  const auto f = read_engine_log(log.path);
  CHECK(f.kv_memory.value == 18ULL << 30);
  CHECK(f.lines.size() == 2);
  CHECK(f.lines[0].find('\r') == std::string::npos);  // CRLF read as one line end
}

TEST_CASE("engine logs: two engines' lines, or a line whose value is not a size, are refused",
          "[engine_log]") {
  const TempLog mixed(
      "Available KV cache memory: 20.00 GiB\n"
      "KV Cache is allocated. #tokens: 1000, K size: 1.00 GB, V size: 1.00 GB\n");
  CHECK_THROWS_WITH(read_engine_log(mixed.path), Catch::Contains("holds the KV lines of vllm and sglang"));
  for (const char* value : {"-5.00 GiB", "nan GiB", "1e400 GiB", "5 TiB", "0.00 GiB", "twenty GiB"}) {
    INFO(value);
    const TempLog bad(std::string("INFO hello\nAvailable KV cache memory: ") + value + "\n");
    CHECK_THROWS_WITH(read_engine_log(bad.path),
                      Catch::Contains(": line 2") && Catch::Contains("not a positive size in GiB"));
  }
  const TempLog zero(
      "[TensorRT-LLM][INFO] [MemUsageChange] Allocated 0.00 GiB for max tokens in paged KV cache "
      "(3958272).\n");
  CHECK_THROWS_WITH(read_engine_log(zero.path), Catch::Contains("is 0 B"));
}
