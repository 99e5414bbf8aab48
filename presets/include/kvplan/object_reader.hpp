#pragma once
/// @file object_reader.hpp
/// Reading kvplan's own JSON files (scenarios, the model JSON of model_json.hpp) one object at a time,
/// strictly: an unknown key or a null where a value belongs is an error, and every error is one
/// kvplan::Error naming the origin and the JSON path ("s.json: /model/architecture/layers/0/count: must
/// be a positive integer"). For Hugging Face config.json, whose keys are read leniently with the
/// transformers class's defaults, see presets/src/hf/reader.hpp instead.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kvplan/dtype.hpp"

namespace kvplan::presets {

/// Reads the keys of one JSON object; every error names the origin and the JSON path. Holds a reference
/// to the object: it must outlive the reader.
class ObjectReader {
 public:
  /// `where` is the object's own location, "origin: /json/pointer" ("s.json: /gpu"), or the origin alone
  /// for a file's top. Throws kvplan::Error(where, "must be an object, got ...") when `obj` is not one.
  ObjectReader(const nlohmann::json& obj, std::string where);

  /// The location of `key` in this object, for messages: where + "/" + key.
  [[nodiscard]] std::string at(std::string_view key) const;

  /// Refuses a key outside `keys` (a misspelt "context_length" was dropped and the plan made at the
  /// default) and a null one outside `nullable` (null read as absent, the default again). Throws
  /// kvplan::Error at the key: "unknown key (known here: ...)" or "must not be null".
  void only(std::initializer_list<std::string_view> keys,
            std::initializer_list<std::string_view> nullable = {}) const;

  /// Refuses two of `keys` given together (the reader would take one and drop the other): throws
  /// kvplan::Error(where, "a and b given together: give one").
  void one_of(std::initializer_list<std::string_view> keys) const;

  /// The value of `key`, or nullptr when it is absent or null.
  [[nodiscard]] const nlohmann::json* get(std::string_view key) const;

  /// A non-negative integer (fits uint64_t), or `fallback` when absent or null; else throws naming the key.
  [[nodiscard]] std::uint64_t u64(std::string_view key, std::uint64_t fallback) const;
  /// As u64, and 0 is refused ("must be a positive integer").
  [[nodiscard]] std::uint64_t positive(std::string_view key, std::uint64_t fallback) const;
  /// true or false, or `fallback` when absent or null.
  [[nodiscard]] bool boolean(std::string_view key, bool fallback) const;
  /// A string, or `fallback` when absent or null.
  [[nodiscard]] std::string str(std::string_view key, const std::string& fallback) const;
  /// Any JSON number as a double, or `fallback` when absent or null (range checks are the caller's).
  [[nodiscard]] double number(std::string_view key, double fallback) const;
  /// A kvplan dtype name (kvplan::parse_dtype: "bf16", "fp8_e4m3", "q8_0" ...), or `fallback`.
  [[nodiscard]] DType dtype(std::string_view key, DType fallback) const;

 private:
  const nlohmann::json& obj_;
  std::string where_;
};

}  // namespace kvplan::presets
