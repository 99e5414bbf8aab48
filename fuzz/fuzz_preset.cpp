// The preset loader on fuzzed files: a model preset (or bare config.json) read by load_model_file,
// the preset index (list_models, find_model), the GPU list (list_gpus) and a kvplan-bench report
// (load_calibration), all from a presets folder that holds the input as models/fuzz.json and gpus.json.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "fuzz_support.hpp"
#include "kvplan/kv.hpp"
#include "kvplan/presets.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::filesystem::create_directories(fuzz::scratch_dir() / "models");
  setenv("KVPLAN_PRESETS", fuzz::scratch_dir().c_str(), 1);
  setenv("HF_HUB_OFFLINE", "1", 1);  // a repo id never reaches the network
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto dir = fuzz::scratch_dir();
  const auto model_path = dir / "models" / "fuzz.json";
  fuzz::write_file(model_path, text);
  fuzz::write_file(dir / "gpus.json", text);

  try {
    const ModelSpec m = presets::load_model_file(model_path);
    validate(m);  // the loader promises a valid model
    fuzz::check(num_layers(m) > 0, "a loaded model has no layers");
    fuzz::check(!m.id.empty(), "a loaded model has no id");
    try {
      (void)bytes_per_token(m, KvDtypes{});
    } catch (const Error& e) {
      fuzz::check_error(e);
    }
  } catch (const Error& e) {
    fuzz::check_error(e);
  }

  try {
    // The scratch folder is a user folder ($KVPLAN_PRESETS): its one preset is listed beside the
    // built-in ones, in the place of one with its id.
    const auto models = presets::list_models();
    const auto mine = std::find_if(models.begin(), models.end(), [](const auto& p) { return p.user; });
    fuzz::check(std::count_if(models.begin(), models.end(), [](const auto& p) { return p.user; }) == 1,
                "list_models does not list the one user preset");
    const ModelSpec m = presets::find_model(mine->id);
    validate(m);
  } catch (const Error& e) {
    fuzz::check_error(e);
  }

  try {
    // The same file as a kvplan-bench report (prefill --calibration).
    const PrefillCalibration c = presets::load_calibration(model_path, 128);
    fuzz::check(std::isfinite(c.attention_flops_per_s) && c.attention_flops_per_s > 0,
                "a calibration without a rate");
    fuzz::check(std::isfinite(c.linear_flops_per_s) && c.linear_flops_per_s >= 0,
                "a calibration's GEMM rate");
  } catch (const Error& e) {
    fuzz::check_error(e);
  }

  try {
    for (const auto& g : presets::list_gpus()) {
      fuzz::check(g.memory.value > 0, "a GPU with no memory was accepted");
      fuzz::check(!g.id.empty(), "a GPU with no id was accepted");
    }
  } catch (const Error& e) {
    fuzz::check_error(e);
  }
  return 0;
}
