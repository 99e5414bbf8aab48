#pragma once
// Loading a config.json given as JSON in tests, and the one-line error a bad one gives.
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

}  // namespace kvplan::test
