#pragma once
// Loading a config.json given as JSON in tests, and the one-line error a bad one gives.
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "kvplan/presets.hpp"

namespace kvplan::test {

/// The model a config gives, read as the file "test.json".
inline ModelSpec load(const nlohmann::json& j) { return presets::model_from_hf_config(j, "test.json"); }

/// The error a config gives ("no error" when it loads).
inline std::string error_of(const nlohmann::json& j) {
  try {
    (void)load(j);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

/// A model kvplan has no weight formula for: google/gemma-4-31B-it's config (tests/data/configs) with the
/// per-layer inputs of the E2B and E4B models (hidden_size_per_layer_input 256). Its KV layout is exact,
/// its weights_unknown says why the weights are not.
inline ModelSpec gemma4_with_per_layer_inputs() {
  std::ifstream in(std::string(KVPLAN_CORPUS) + "/gemma-4-31b.json");
  nlohmann::json config = nlohmann::json::parse(in);
  config["text_config"]["hidden_size_per_layer_input"] = 256;
  return load(config);
}

}  // namespace kvplan::test
