// The GUI's scenario loader on fuzzed files: the input as a scenario (gui/src/scenario.cpp
// load_scenario), then the plan the GUI would make from it. A scenario names a preset, a file or its own
// architecture; the architecture must be checked as strictly as a config (a recurrent group with no
// state once reached vLLM's page arithmetic and died with SIGFPE).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "fuzz_support.hpp"
#include "kvplan/gui/scenario.hpp"
#include "kvplan/kv.hpp"
#include "kvplan/plan.hpp"

using namespace kvplan;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Preset ids in a scenario resolve against the source tree's presets.
  setenv("KVPLAN_PRESETS", KVPLAN_SOURCE_PRESETS, 1);
  setenv("HF_HUB_OFFLINE", "1", 1);  // a repo id never reaches the network
  // A scenario's model "file" may name this neighbour: a valid config to load.
  fuzz::write_file(fuzz::scratch_dir() / "config.json",
                   R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
                       "num_attention_heads": 4, "num_hidden_layers": 2, "num_key_value_heads": 2,
                       "vocab_size": 256})");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto path = fuzz::scratch_dir() / "scenario.json";
  fuzz::write_file(path, text);
  gui::Scenario s;
  try {
    s = gui::load_scenario(path);
  } catch (const Error& e) {
    fuzz::check_error(e);
    return 0;
  }
  // What loaded is a model core accepts, and a plan is a plan or one error naming a field.
  try {
    validate(s.inputs.model);
  } catch (const Error& e) {
    fuzz::check(false, std::string("a loaded scenario's model does not validate: ") + e.what());
  }
  try {
    const Plan p = make_plan(s.inputs);
    fuzz::check(p.layers == num_layers(s.inputs.model), "the plan's layers differ from the model's");
    fuzz::check(p.per_gpu.kv_bytes_total.value >= p.per_gpu.bytes_per_sequence.value,
                "per-GPU KV below one sequence");
  } catch (const Error& e) {
    fuzz::check_error(e);
  }
  return 0;
}
