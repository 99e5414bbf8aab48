#include "kvplan/presets.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <nlohmann/json.hpp>

#ifndef KVPLAN_PRESETS_DIR
#define KVPLAN_PRESETS_DIR "presets"
#endif

namespace kvplan::presets {

namespace {
using nlohmann::json;
namespace fs = std::filesystem;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string str(const json& obj, const char* key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) throw Error(where + ": /" + key, "missing or not a string");
  return it->get<std::string>();
}

/// The preset's metadata over the config: id, name, source, published params.
ModelSpec from_preset(const json& j, const std::string& origin) {
  const auto cfg = j.find("config");
  ModelSpec m = model_from_hf_config(*cfg, origin + " /config");
  m.id = str(j, "id", origin);
  m.name = j.contains("name") && j["name"].is_string() ? j["name"].get<std::string>() : m.id;
  m.source = j.contains("hf_repo") && j["hf_repo"].is_string() ? j["hf_repo"].get<std::string>() : origin;
  if (const auto pp = j.find("published_params"); pp != j.end() && !pp->is_null()) {
    if (!pp->is_number_unsigned()) throw Error(origin + ": /published_params", "must be a positive integer");
    m.published_params = pp->get<std::uint64_t>();
  }
  return m;
}

bool is_preset(const json& j) { return j.is_object() && j.contains("config") && j["config"].is_object(); }
}  // namespace

fs::path presets_dir() {
  if (const char* env = std::getenv("KVPLAN_PRESETS"); env != nullptr && *env != '\0') return env;
  return KVPLAN_PRESETS_DIR;
}

std::vector<ModelPreset> list_models() {
  const fs::path dir = presets_dir() / "models";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error("presets", "no model presets folder at " + dir.string());
  std::vector<ModelPreset> out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".json") continue;
    const json j = read_json_file(e.path());
    const std::string origin = e.path().string();
    if (!is_preset(j)) throw Error(origin, "not a kvplan preset (no /config object)");
    ModelPreset p;
    p.id = str(j, "id", origin);
    p.name = j.contains("name") && j["name"].is_string() ? j["name"].get<std::string>() : p.id;
    p.hf_repo = str(j, "hf_repo", origin);
    if (const auto a = j.find("aliases"); a != j.end() && a->is_array())
      for (const auto& s : *a)
        if (s.is_string()) p.aliases.push_back(s.get<std::string>());
    p.path = e.path();
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

ModelSpec load_model_file(const fs::path& path) {
  const json j = read_json_file(path);
  const std::string origin = path.filename().string();
  if (is_preset(j)) return from_preset(j, origin);
  ModelSpec m = model_from_hf_config(j, origin);
  m.id = path.stem().string() == "config" && path.has_parent_path() ? path.parent_path().filename().string()
                                                                    : path.stem().string();
  m.name = m.id;
  m.source = path.string();
  return m;
}

ModelSpec find_model(std::string_view name_or_path) {
  if (name_or_path.empty()) throw Error("model", "is empty");
  const fs::path as_path{std::string(name_or_path)};
  std::error_code ec;
  if (fs::is_regular_file(as_path, ec)) return load_model_file(as_path);
  const std::string key = lower(name_or_path);
  const auto presets = list_models();
  for (const auto& p : presets) {
    bool match = lower(p.id) == key || lower(p.hf_repo) == key;
    for (const auto& a : p.aliases) match = match || lower(a) == key;
    if (match) return load_model_file(p.path);
  }
  // A path that exists but is no regular file (a directory, a FIFO, a link loop): say what it is.
  if (fs::exists(fs::symlink_status(as_path, ec))) require_regular_file(as_path);
  if (name_or_path.find(".json") != std::string_view::npos)
    throw Error(std::string(name_or_path), "no such file");
  throw Error("model", "unknown model '" + std::string(name_or_path) +
                           "': not a file, a preset id or a Hugging Face repo id (see `kvplan models`)");
}

std::vector<Gpu> list_gpus() {
  const fs::path path = presets_dir() / "gpus.json";
  const json j = read_json_file(path);
  const std::string origin = path.string();
  if (!j.is_object() || !j.contains("gpus") || !j["gpus"].is_array())
    throw Error(origin + ": /gpus", "must be an array");
  std::vector<Gpu> out;
  for (std::size_t i = 0; i < j["gpus"].size(); ++i) {
    const json& g = j["gpus"][i];
    const std::string where = origin + ": /gpus/" + std::to_string(i);
    if (!g.is_object()) throw Error(where, "must be an object");
    Gpu gpu;
    gpu.id = str(g, "id", where);
    gpu.name = str(g, "name", where);
    const auto mem = g.find("memory_bytes");
    if (mem == g.end() || !mem->is_number_unsigned() || mem->get<std::uint64_t>() == 0)
      throw Error(where + "/memory_bytes", "must be a positive integer");
    gpu.memory = Bytes{mem->get<std::uint64_t>()};
    const auto opt = [&](const char* key) -> std::uint64_t {
      const auto it = g.find(key);
      if (it == g.end() || it->is_null()) return 0;
      if (!it->is_number_unsigned()) throw Error(where + "/" + key, "must be a positive integer or null");
      return it->get<std::uint64_t>();
    };
    gpu.memory_bandwidth_bytes_per_s = opt("memory_bandwidth_bytes_per_s");
    gpu.bf16_dense_flops = opt("bf16_dense_flops");
    if (const auto src = g.find("datasheet_source"); src != g.end() && src->is_string())
      gpu.source = src->get<std::string>();
    out.push_back(std::move(gpu));
  }
  return out;
}

Gpu find_gpu(std::string_view id) {
  const auto gpus = list_gpus();
  std::string known;
  for (const auto& g : gpus) {
    if (lower(g.id) == lower(id)) return g;
    known += (known.empty() ? "" : ", ") + g.id;
  }
  throw Error("gpu", "unknown GPU '" + std::string(id) + "' (known: " + known + ")");
}

}  // namespace kvplan::presets
