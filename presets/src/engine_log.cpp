// Engine start-up logs -> the KV memory the engine settled on (engine_log.hpp).
#include "kvplan/engine_log.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string_view>

#include "kvplan/error.hpp"
#include "kvplan/format.hpp"
#include "kvplan/presets.hpp"

namespace kvplan::presets {

namespace {

/// The number right after `key` in `line` (digits, one '.', thousands commas skipped), or nullopt.
std::optional<double> number_after(std::string_view line, std::string_view key) {
  const auto at = line.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + key.size());
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  std::string digits;
  while (!rest.empty() && (std::isdigit(static_cast<unsigned char>(rest.front())) != 0 ||
                           rest.front() == '.' || rest.front() == ',')) {
    if (rest.front() != ',') digits += rest.front();
    rest.remove_prefix(1);
  }
  if (digits.empty() || digits.size() > 32) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc{} || end != digits.data() + digits.size() || !std::isfinite(v) || v < 0)
    return std::nullopt;
  return v;
}

/// A count right after `key` (tokens), or nullopt when absent or past 2^53 (not a real count).
std::optional<std::uint64_t> count_after(std::string_view line, std::string_view key) {
  const auto v = number_after(line, key);
  if (!v || *v > 9007199254740992.0 || *v != std::floor(*v)) return std::nullopt;
  return static_cast<std::uint64_t>(*v);
}

/// The unit right after the number that follows `key` ("GiB", "GB", "MiB", "MB"): bytes per unit; 0 when
/// none. The engines' GB and MB are binary (SGLang and TensorRT-LLM divide by 2^30, llama.cpp by 2^20).
std::uint64_t unit_after(std::string_view line, std::string_view key) {
  const auto at = line.find(key);
  if (at == std::string_view::npos) return 0;
  std::string_view rest = line.substr(at + key.size());
  while (!rest.empty() &&
         (rest.front() == ' ' || std::isdigit(static_cast<unsigned char>(rest.front())) != 0 ||
          rest.front() == '.' || rest.front() == ','))
    rest.remove_prefix(1);
  if (rest.substr(0, 3) == "GiB" || rest.substr(0, 2) == "GB") return 1ULL << 30;
  if (rest.substr(0, 3) == "MiB" || rest.substr(0, 2) == "MB") return 1ULL << 20;
  return 0;
}

/// value x unit, rounded to whole bytes; nullopt past 2^63 or without a unit.
std::optional<Bytes> size_after(std::string_view line, std::string_view key) {
  const auto v = number_after(line, key);
  const std::uint64_t unit = unit_after(line, key);
  if (!v || unit == 0) return std::nullopt;
  const double bytes = std::round(*v * static_cast<double>(unit));
  if (!(bytes < 9.2e18)) return std::nullopt;
  return Bytes{static_cast<std::uint64_t>(bytes)};
}

/// The version word after `key` ("0.19.0" from "vLLM API server version 0.19.0"), without a leading 'v'.
std::string version_after(std::string_view line, std::string_view key) {
  const auto at = line.find(key);
  if (at == std::string_view::npos) return {};
  std::string_view rest = line.substr(at + key.size());
  if (!rest.empty() && rest.front() == 'v') rest.remove_prefix(1);
  std::string out;
  while (!rest.empty() && out.size() < 32 &&
         (std::isdigit(static_cast<unsigned char>(rest.front())) != 0 || rest.front() == '.'))
    out += rest.front(), rest.remove_prefix(1);
  return out;
}

}  // namespace

EngineLogFigures read_engine_log(const std::filesystem::path& path) {
  const std::string p = path.string();
  // A plain file, read without blocking (InputFile: a FIFO, a device or /proc/kmsg is refused).
  InputFile file(path);
  const auto text = file.read_all(kMaxEngineLogBytes);
  if (!text)
    throw Error(p, "is larger than " + format_count(kMaxEngineLogBytes >> 20) + " MiB: not a start-up log");

  // Each engine's lines, as found. A log of one server holds one engine's; several ranks (tp, pp, dp)
  // each print their line, and every stage takes the smallest pool, so the smallest is taken.
  EngineLogFigures vllm, sglang, trt, llama;
  bool llama_done = false;  // the first context's buffers are summed; a later context's are not
  std::string vllm_version;
  std::optional<std::uint64_t> vllm_tokens;
  std::uint64_t number = 0;
  const auto bad = [&](std::string_view l, const char* what) {
    std::string shown = printable(l.substr(0, 160));
    throw Error(p + ": line " + std::to_string(number),
                "'" + shown + (l.size() > 160 ? "...'" : "'") + ": " + what);
  };
  const auto smallest = [](EngineLogFigures& e, Engine engine, Bytes kv, std::string line) {
    if (e.lines.empty() || kv < e.kv_memory) e.kv_memory = kv;
    e.engine = engine;
    e.lines.push_back(std::move(line));
  };
  std::string_view rest(*text);
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find('\n'), rest.size());
    std::string_view l = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    ++number;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);  // CRLF
    if (l.size() > kMaxEngineLogLine) continue;
    if (vllm_version.empty()) {
      vllm_version = version_after(l, "vLLM API server version ");
      if (vllm_version.empty()) vllm_version = version_after(l, "Initializing a V1 LLM engine (");
    }
    if (!vllm_tokens)
      if (const auto t = count_after(l, "GPU KV cache size:");
          t && l.find("tokens") != std::string_view::npos)
        vllm_tokens = *t;
    if (l.find("Available KV cache memory:") != std::string_view::npos) {
      const auto kv = size_after(l, "Available KV cache memory:");
      if (!kv || *kv == Bytes{0}) bad(l, "not a positive size in GiB");
      smallest(vllm, Engine::vllm, *kv, std::string(l));
    } else if (l.find("KV Cache is allocated.") != std::string_view::npos) {
      const auto k = size_after(l, "K size:"), v = size_after(l, "V size:");
      if (!k || !v || *k + *v == Bytes{0}) bad(l, "K size and V size are not sizes in GB");
      const bool first = sglang.lines.empty();
      smallest(sglang, Engine::sglang, *k + *v, std::string(l));
      if (first || sglang.kv_memory == *k + *v) sglang.kv_cache_tokens = count_after(l, "#tokens:");
    } else if (l.find("for max tokens in paged KV cache") != std::string_view::npos) {
      // The PyTorch backend allocates a small cache to estimate the real one first (its "Allocated 0.00
      // GiB" line, tensorrt_llm/_torch/pyexecutor/_util.py): the last such line is the cache it serves with.
      const auto kv = size_after(l, "Allocated ");
      if (!kv) bad(l, "not a size in GiB");
      trt.engine = Engine::trtllm;
      trt.kv_memory = *kv;
      trt.kv_cache_tokens = count_after(l, "paged KV cache (");
      trt.lines = {std::string(l)};
    } else if ((l.find("llama_kv_cache") != std::string_view::npos ||
                l.find("llama_memory_recurrent") != std::string_view::npos) &&
               l.find(": size =") != std::string_view::npos) {  // not the "buffer size =" lines
      const auto kv = size_after(l, ": size =");
      if (!kv) bad(l, "not a size in MiB");
      if (!llama_done) {  // one context's buffers: the full cache, the SWA cache, the recurrent state
        llama.engine = Engine::llamacpp;
        llama.kv_memory = llama.kv_memory + *kv;
        llama.lines.push_back(std::string(l));
      }
    } else if (!llama.lines.empty() && l.find("compute buffer size") != std::string_view::npos) {
      llama_done = true;
    }
  }
  std::vector<EngineLogFigures*> found;
  for (EngineLogFigures* e : {&vllm, &sglang, &trt, &llama})
    if (!e->lines.empty()) found.push_back(e);
  if (found.empty())
    throw Error(
        p,
        "is not an engine start-up log kvplan reads: no line 'Available KV cache memory: X GiB' (vLLM), "
        "'KV Cache is allocated. ... K size: X GB, V size: Y GB' (SGLang), 'llama_kv_cache...: size = X "
        "MiB' (llama.cpp) or 'Allocated X GiB for max tokens in paged KV cache (N)' (TensorRT-LLM)");
  if (found.size() > 1)
    throw Error(p, "holds the KV lines of " + std::string(name(found[0]->engine)) + " and " +
                       std::string(name(found[1]->engine)) + ": give the log of one server");
  EngineLogFigures f = std::move(*found.front());
  if (f.kv_memory == Bytes{0}) throw Error(p, "the KV cache it logged is 0 B: no capacity to plan against");
  if (f.engine == Engine::vllm) {
    f.version = vllm_version;
    f.kv_cache_tokens = vllm_tokens;
  }
  return f;
}

}  // namespace kvplan::presets
