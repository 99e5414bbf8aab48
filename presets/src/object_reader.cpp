// The strict reader of kvplan's own JSON objects (scenarios, model JSON); moved from the GUI's scenario.cpp
// so that the model's reader in presets and the scenario's in the GUI share it.
#include "kvplan/object_reader.hpp"

#include <algorithm>
#include <utility>

#include "kvplan/error.hpp"
#include "kvplan/format.hpp"

namespace kvplan::presets {

using nlohmann::json;

ObjectReader::ObjectReader(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {
  if (!obj_.is_object()) throw Error(where_, std::string("must be an object, got ") + obj_.type_name());
}

std::string ObjectReader::at(std::string_view key) const { return where_ + "/" + std::string(key); }

void ObjectReader::only(std::initializer_list<std::string_view> keys,
                        std::initializer_list<std::string_view> nullable) const {
  const auto in = [](std::initializer_list<std::string_view> list, const std::string& key) {
    return std::find(list.begin(), list.end(), key) != list.end();
  };
  for (const auto& [key, value] : obj_.items()) {
    if (!in(keys, key)) {
      std::string known;
      for (const auto k : keys) known += (known.empty() ? "" : ", ") + std::string(k);
      throw Error(at(printable(key)), "unknown key (known here: " + known + ")");
    }
    if (value.is_null() && !in(nullable, key)) throw Error(at(key), "must not be null");
  }
}

void ObjectReader::one_of(std::initializer_list<std::string_view> keys) const {
  std::string given;
  int n = 0;
  for (const auto k : keys)
    if (get(k) != nullptr) {
      given += (given.empty() ? "" : " and ") + std::string(k);
      ++n;
    }
  if (n > 1) throw Error(where_, given + " given together: give one");
}

const json* ObjectReader::get(std::string_view key) const {
  const auto it = obj_.find(key);
  return it == obj_.end() || it->is_null() ? nullptr : &*it;
}

std::uint64_t ObjectReader::u64(std::string_view key, std::uint64_t fallback) const {
  const json* v = get(key);
  if (v == nullptr) return fallback;
  if (v->is_number_unsigned()) return v->get<std::uint64_t>();
  if (v->is_number_integer() && v->get<std::int64_t>() >= 0)
    return static_cast<std::uint64_t>(v->get<std::int64_t>());
  throw Error(at(key), "must be a non-negative integer, got " + v->dump());
}

std::uint64_t ObjectReader::positive(std::string_view key, std::uint64_t fallback) const {
  const std::uint64_t v = u64(key, fallback);
  if (v == 0) throw Error(at(key), "must be a positive integer");
  return v;
}

bool ObjectReader::boolean(std::string_view key, bool fallback) const {
  const json* v = get(key);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) throw Error(at(key), "must be true or false, got " + v->dump());
  return v->get<bool>();
}

std::string ObjectReader::str(std::string_view key, const std::string& fallback) const {
  const json* v = get(key);
  if (v == nullptr) return fallback;
  if (!v->is_string()) throw Error(at(key), "must be a string, got " + v->dump());
  return v->get<std::string>();
}

double ObjectReader::number(std::string_view key, double fallback) const {
  const json* v = get(key);
  if (v == nullptr) return fallback;
  if (!v->is_number()) throw Error(at(key), "must be a number, got " + v->dump());
  return v->get<double>();
}

DType ObjectReader::dtype(std::string_view key, DType fallback) const {
  const json* v = get(key);
  if (v == nullptr) return fallback;
  if (!v->is_string()) throw Error(at(key), "must be a dtype name, got " + v->dump());
  return parse_dtype(v->get<std::string>(), at(key));
}

}  // namespace kvplan::presets
