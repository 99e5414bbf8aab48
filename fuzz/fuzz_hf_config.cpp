// The Hugging Face config loader on fuzzed JSON: model_from_hf_config, then the per-token and
// per-sequence figures of what it accepted.
#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "kvplan/kv.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/weights.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;  // malformed JSON: the file loader's job (fuzz_preset)
  ModelSpec m;
  try {
    m = presets::model_from_hf_config(j, "config.json");
  } catch (const Error& e) {
    fuzz::check_error(e);
    return 0;
  }
  validate(m);
  fuzz::check(num_layers(m) > 0, "an accepted config has no layers");
  try {
    const Bytes all = bytes_per_token(m, KvDtypes{});
    const Bytes full = full_bytes_per_token(m, KvDtypes{});
    fuzz::check(full <= all, "full bytes per token exceed bytes per token");
    // One token of context caches exactly one token in every cached layer.
    fuzz::check(kv_bytes_per_sequence(m, KvDtypes{}, Tokens{1}) == all,
                "one token's KV is not bytes_per_token");
    (void)state_bytes_per_sequence(m, KvDtypes{});
    (void)parameter_count(m);
    fuzz::check(active_parameter_count(m) <= parameter_count(m), "active parameters exceed the total");
  } catch (const Error& e) {
    fuzz::check_error(e);
  }
  return 0;
}
