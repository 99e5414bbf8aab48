// The safetensors readers on fuzzed bytes, as the Hub fetch and a model folder feed them. Byte 0 picks the
// reader: even, the rest is a whole .safetensors file (its 8-byte length, the JSON header, the data), read
// through safetensors_header_length and add_safetensors_header_text as hub_fetch.cpp reads a Range
// response; odd, the rest is a model.safetensors.index.json for parse_json_text and
// safetensors_index_shards. Then apply_safetensors on a small model.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/safetensors.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if ((data[0] & 1) != 0) {
      const auto shards =
          presets::safetensors_index_shards(presets::parse_json_text(rest, "index.json"), "i");
      for (const auto& s : shards)
        fuzz::check(!s.empty() && s.find('/') == std::string::npos && s != "..",
                    "a shard name leaves the folder");
      return 0;
    }
    unsigned char prefix[8] = {};
    for (std::size_t i = 0; i < 8 && i < rest.size(); ++i) prefix[i] = static_cast<unsigned char>(rest[i]);
    const std::uint64_t n = presets::safetensors_header_length(prefix, rest.size(), "f.safetensors");
    fuzz::check(8 + n <= rest.size(), "a header length past the file was accepted");
    presets::SafetensorsSummary s;
    presets::add_safetensors_header_text(rest.substr(8, n), rest.size(), "f.safetensors", s);
    // The tensors tile the data region exactly (tensor.rs Metadata::validate): every data byte is counted
    // once, none twice.
    fuzz::check(s.total.bytes == rest.size() - 8 - n, "the tensors' bytes are not the data region's");
    std::uint64_t bytes = 0;
    for (const auto& [dtype, t] : s.by_dtype) bytes += t.bytes;
    fuzz::check(bytes == s.total.bytes, "the dtypes do not add up to the total");
    fuzz::check(s.language.bytes + s.vision.bytes + s.mtp.bytes == s.total.bytes, "the parts do not add up");
    ModelSpec m = fuzz::small_model();
    presets::apply_safetensors(s, m);
    fuzz::check(m.weights_bytes && m.weights_bytes->value <= s.total.bytes,
                "weights past the headers' bytes");
  } catch (const Error& e) {
    fuzz::check_error(e);
  }
  return 0;
}
