#include "reader.hpp"

namespace kvplan::presets::hf {

std::string a_type(const json& v) {
  // json_file.cpp reads Python's NaN, Infinity and -Infinity literals as those strings: name them.
  if (v.is_string())
    for (const char* lit : {"NaN", "Infinity", "-Infinity"})
      if (v.get_ref<const std::string&>() == lit) return lit;
  const std::string t = v.type_name();
  return (t == "array" || t == "object" ? "an " : "a ") + t;
}

Reader::Reader(const json& obj, std::string origin, std::string path, const json* defaults)
    : obj_(obj),
      defaults_(defaults),
      origin_(std::move(origin)),
      path_(std::move(path)),
      read_(std::make_shared<std::set<std::string>>()) {}

Reader Reader::with_defaults(const json& defaults) const {
  Reader r(obj_, origin_, path_, &defaults);
  r.read_ = read_;
  return r;
}

std::string Reader::where(std::string_view key) const {
  return origin_ + ": " + path_ + "/" + std::string(key);
}

void Reader::fail(std::string_view key, const std::string& reason) const { throw Error(where(key), reason); }

const json* Reader::get(std::string_view key) const {
  read_->insert(std::string(key));
  auto it = obj_.find(key);
  if (it == obj_.end() && defaults_ != nullptr) {
    it = defaults_->find(key);
    if (it == defaults_->end()) return nullptr;
  } else if (it == obj_.end()) {
    return nullptr;
  }
  return it->is_null() ? nullptr : &*it;
}

std::optional<std::uint64_t> Reader::u64(std::string_view key) const {
  const json* v = get(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_number_unsigned()) return v->get<std::uint64_t>();
  if (v->is_number_integer()) {
    if (v->get<std::int64_t>() < 0) fail(key, "must be a non-negative integer, got " + v->dump());
    return static_cast<std::uint64_t>(v->get<std::int64_t>());
  }
  if (v->is_number_float()) {
    const double d = v->get<double>();
    if (!std::isfinite(d) || d < 0 || d != std::floor(d) || d >= 18446744073709551616.0)
      fail(key, "must be a non-negative integer, got " + v->dump());
    return static_cast<std::uint64_t>(d);
  }
  fail(key, "must be a non-negative integer, got " + a_type(*v));
}

bool Reader::is_null(std::string_view key) const {
  const auto it = obj_.find(key);
  return it != obj_.end() && it->is_null();
}

void Reader::refuse_null(std::string_view key) const {
  if (is_null(key))
    fail(key,
         "is null: the transformers configuration class keeps None (its default applies only when the key is "
         "absent), so there is no size to read; give a number, or drop the key for the class default");
}

std::uint64_t Reader::positive(std::string_view key) const {
  refuse_null(key);
  const auto v = u64(key);
  if (!v) fail(key, "missing (required for this architecture)");
  if (*v == 0) fail(key, "must be a positive integer, got 0");
  return *v;
}

std::uint64_t Reader::positive_or(std::string_view key, std::uint64_t fallback) const {
  refuse_null(key);
  return has(key) ? positive(key) : fallback;
}

std::uint64_t Reader::positive_or_null(std::string_view key, std::uint64_t fallback) const {
  return has(key) ? positive(key) : fallback;
}

std::uint64_t Reader::positive_any(std::initializer_list<std::string_view> keys) const {
  for (const auto k : keys)
    if (has(k)) return positive(k);
  std::string names;
  for (const auto k : keys) names += (names.empty() ? "" : " / ") + std::string(k);
  throw Error(where(*keys.begin()), "missing (looked for " + names + ")");
}

std::optional<std::uint64_t> Reader::u64_any(std::initializer_list<std::string_view> keys) const {
  for (const auto k : keys)
    if (has(k)) return u64(k);
  return std::nullopt;
}

std::optional<bool> Reader::boolean(std::string_view key) const {
  const json* v = get(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) fail(key, "must be true or false, got " + a_type(*v));
  return v->get<bool>();
}

std::optional<std::string> Reader::string(std::string_view key) const {
  const json* v = get(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) fail(key, "must be a string, got " + a_type(*v));
  return v->get<std::string>();
}

std::optional<std::vector<std::uint64_t>> Reader::u64_list(std::string_view key, std::uint64_t bound) const {
  const json* v = get(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_array()) fail(key, "must be an array of integers, got " + a_type(*v));
  std::vector<std::uint64_t> out;
  out.reserve(v->size());
  for (std::size_t i = 0; i < v->size(); ++i) {
    const json& e = (*v)[i];
    const std::string at = std::string(key) + "/" + std::to_string(i);
    if (!e.is_number_unsigned() && !(e.is_number_integer() && e.get<std::int64_t>() >= 0))
      fail(at, "must be a non-negative integer, got " + (e.is_number() ? e.dump() : a_type(e)));
    const auto x = e.get<std::uint64_t>();
    if (bound > 0 && x >= bound)
      fail(at, std::to_string(x) + " is out of range (must be below " + std::to_string(bound) + ")");
    out.push_back(x);
  }
  return out;
}

std::optional<DType> Reader::dtype(std::string_view key) const {
  const auto s = string(key);
  if (!s) return std::nullopt;
  if (*s == "bfloat16") return DType::bf16;
  if (*s == "float16" || *s == "half") return DType::fp16;
  if (*s == "float32" || *s == "float") return DType::fp32;
  // torch's 8-bit float names (torch.float8_e4m3fn; the fnuz variants of ROCm), as some fp8
  // checkpoints write their torch_dtype.
  if (*s == "float8_e4m3fn" || *s == "float8_e4m3fnuz") return DType::fp8_e4m3;
  if (*s == "float8_e5m2" || *s == "float8_e5m2fnuz") return DType::fp8_e5m2;
  if (*s == "auto") return std::nullopt;
  fail(key, "unknown dtype '" + *s + "' (bfloat16, float16, float32, float8_e4m3fn, float8_e5m2)");
}

std::optional<Reader> Reader::object(std::string_view key) const {
  const json* v = get(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_object()) fail(key, "must be an object, got " + a_type(*v));
  Reader r(*v, origin_, path_ + "/" + std::string(key));
  return r;
}

}  // namespace kvplan::presets::hf
