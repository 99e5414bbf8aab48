// The calibration reader on fuzzed files: the input as a kvplan-bench report read by
// presets::load_calibration (kvplan prefill --calibration), then the prefill time of a fixed model.
// The first input byte picks the head_dim asked for (64 x (1 + byte % 4)); the rest is the report.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "kvplan/prefill.hpp"
#include "kvplan/presets.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint64_t head_dim = 64 * (1 + data[0] % 4);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto path = fuzz::scratch_dir() / "report.json";
  fuzz::write_file(path, text);
  PrefillCalibration c;
  try {
    c = presets::load_calibration(path, head_dim);
  } catch (const Error& e) {
    fuzz::check_error(e);
    return 0;
  }
  fuzz::check(std::isfinite(c.attention_flops_per_s) && c.attention_flops_per_s >= 1.0,
              "a calibration with an attention rate below 1 FLOP/s");
  fuzz::check(std::isfinite(c.linear_flops_per_s) && c.linear_flops_per_s >= 0.0, "a bad linear rate");
  fuzz::check(!c.source.empty(), "a calibration without its source");
  try {
    const PrefillFlops f = prefill_flops(fuzz::small_model(), 4096);
    const PrefillSeconds s = prefill_seconds(f, c, 1e12);
    // What the CLI prints: finite, non-negative seconds that add up.
    fuzz::check(std::isfinite(s.total) && s.attention >= 0 && s.linear >= 0, "prefill time is not finite");
    fuzz::check(std::fabs(s.total - (s.attention + s.linear)) <= 1e-9 * s.total, "times do not add up");
  } catch (const Error& e) {
    fuzz::check_error(e);
  }
  return 0;
}
