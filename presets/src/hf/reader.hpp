#pragma once
// Reading a Hugging Face config.json: one Reader per JSON object, naming the origin and the JSON path in
// every error, and remembering which keys were read, so that a key which shapes the cache and that no
// rule read is reported instead of ignored (see hf_config.cpp, check_unread_cache_keys).
#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kvplan/error.hpp"
#include "kvplan/model.hpp"

namespace kvplan::presets::hf {

using nlohmann::json;

/// "a string", "an array", "an object": a JSON value's type for messages; "NaN", "Infinity" or
/// "-Infinity" for Python's literals, which json_file.cpp reads as those strings.
std::string a_type(const json& v);

/// Reads keys of one JSON object. `defaults` (the transformers configuration class's defaults for keys
/// real configs omit) answer for keys the object lacks. Copies share the record of keys read.
class Reader {
 public:
  Reader(const json& obj, std::string origin, std::string path, const json* defaults = nullptr);

  [[nodiscard]] std::string where(std::string_view key) const;
  [[noreturn]] void fail(std::string_view key, const std::string& reason) const;

  [[nodiscard]] bool has(std::string_view key) const { return get(key) != nullptr; }
  /// The value (null counts as absent); marks the key as read.
  [[nodiscard]] const json* get(std::string_view key) const;
  /// Marks a key as read without using it: its value does not change any figure (say why at the call).
  void consider(std::string_view key) const { read_->insert(std::string(key)); }
  [[nodiscard]] bool was_read(const std::string& key) const { return read_->count(key) != 0; }

  /// A non-negative integer (JSON integer, or a float with no fraction); absent or null: nullopt.
  [[nodiscard]] std::optional<std::uint64_t> u64(std::string_view key) const;
  /// True when the object sets the key to null (not when it is absent).
  [[nodiscard]] bool is_null(std::string_view key) const;
  /// Fails naming the key when the object sets it to null. transformers passes config.json's values to the
  /// configuration class's __init__, so null becomes None, not the class default; where the class and
  /// the modeling code do not map None to a value (GraniteMoeHybridConfig, FalconH1Config, JambaConfig,
  /// NemotronHConfig keep mamba_d_state = None), the model has no size.
  void refuse_null(std::string_view key) const;
  /// A positive integer that must be present (null is refused, naming the key).
  [[nodiscard]] std::uint64_t positive(std::string_view key) const;
  /// A positive integer, or `fallback` when absent (the configuration class's default); null is refused
  /// (refuse_null).
  [[nodiscard]] std::uint64_t positive_or(std::string_view key, std::uint64_t fallback) const;
  /// As positive_or, but null also gives `fallback`: only for keys whose class or modeling code maps None
  /// to that value (say which at the call).
  [[nodiscard]] std::uint64_t positive_or_null(std::string_view key, std::uint64_t fallback) const;
  /// The first present key of several (aliases), positive.
  [[nodiscard]] std::uint64_t positive_any(std::initializer_list<std::string_view> keys) const;
  [[nodiscard]] std::optional<std::uint64_t> u64_any(std::initializer_list<std::string_view> keys) const;
  [[nodiscard]] std::optional<bool> boolean(std::string_view key) const;
  [[nodiscard]] std::optional<std::string> string(std::string_view key) const;
  /// An array of non-negative integers, each below `bound` (when bound > 0).
  [[nodiscard]] std::optional<std::vector<std::uint64_t>> u64_list(std::string_view key,
                                                                   std::uint64_t bound = 0) const;
  /// A dtype string ("bfloat16", "float16", "float32", "float"); absent: nullopt.
  [[nodiscard]] std::optional<DType> dtype(std::string_view key) const;
  /// A nested object as a Reader of its own (sharing the record of keys read under its own path).
  [[nodiscard]] std::optional<Reader> object(std::string_view key) const;

  [[nodiscard]] const json& obj() const { return obj_; }
  [[nodiscard]] Reader with_defaults(const json& defaults) const;
  [[nodiscard]] const std::string& origin() const { return origin_; }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  const json& obj_;
  const json* defaults_;
  std::string origin_;
  std::string path_;
  std::shared_ptr<std::set<std::string>> read_;
};

}  // namespace kvplan::presets::hf
