// kvplan-bench reports -> PrefillCalibration (schema "kvplan-bench/1", documented in bench/README.md).
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "kvplan/presets.hpp"

namespace kvplan::presets {

namespace {
using nlohmann::json;

int backend_rank(const std::string& b) {
  if (b == "cuda-tiled") return 0;
  if (b == "cpu-tiled") return 1;
  if (b == "cuda-naive") return 2;
  if (b == "cpu-naive") return 3;
  return 4;
}

std::string shortest(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

bool is_gpu(const std::string& backend) { return backend.rfind("cuda", 0) == 0; }

/// obj[key] as a string (empty when absent or null), a bool (`fallback`) or an unsigned integer (0); a
/// value of another type is an error naming its JSON path (json::value threw nlohmann's type_error).
std::string text(const json& obj, const char* key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return {};
  if (!it->is_string()) throw Error(where + "/" + key, "must be a string");
  return it->get<std::string>();
}
bool flag(const json& obj, const char* key, bool fallback, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) throw Error(where + "/" + key, "must be true or false");
  return it->get<bool>();
}
std::uint64_t count(const json& obj, const char* key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return 0;
  if (!it->is_number_unsigned()) throw Error(where + "/" + key, "must be a non-negative integer");
  return it->get<std::uint64_t>();
}
/// Rates a machine could measure: 1 FLOP/s to 1e21 (a thousand times a GB200 rack). Outside, a time
/// would print as 0 s or inf s.
constexpr double kMinFlopsPerS = 1.0;
constexpr double kMaxFlopsPerS = 1e21;

/// Throws kvplan::Error(where, ...) unless the number v lies in [lo, hi].
void in_range(const json& v, double lo, double hi, const std::string& where, const char* unit) {
  const double x = v.get<double>();
  if (std::isfinite(x) && x >= lo && x <= hi) return;
  const std::string u = *unit != '\0' ? std::string(" ") + unit : "";
  throw Error(where, "must be between " + shortest(lo) + " and " + shortest(hi) + u + ", got " + v.dump());
}
}  // namespace

std::size_t calibration_run(const json& report, const std::string& origin, std::uint64_t head_dim) {
  const json& j = report;
  const std::string& file = origin;
  if (!j.is_object() || !j.contains("schema") || !j["schema"].is_string() || j["schema"] != "kvplan-bench/1")
    throw Error(file + ": /schema", "not a kvplan-bench/1 report");
  const auto runs = j.find("runs");
  if (runs == j.end() || !runs->is_array()) throw Error(file + ": /runs", "must be an array");

  const json* best = nullptr;
  std::size_t best_index = 0;
  const auto where = [&](std::size_t i) { return file + ": /runs/" + std::to_string(i); };
  const auto key = [&](std::size_t i) {
    const json& r = (*runs)[i];
    const auto d = count(r, "head_dim", where(i));
    const std::uint64_t dist = d > head_dim ? d - head_dim : head_dim - d;
    return std::make_pair(backend_rank(text(r, "backend", where(i))), dist);
  };
  for (std::size_t i = 0; i < runs->size(); ++i) {
    const json& r = (*runs)[i];
    if (!r.is_object() || !flag(r, "causal", false, where(i))) continue;
    const auto check = r.find("check");
    if (check != r.end() && check->is_object() && !flag(*check, "passed", false, where(i) + "/check"))
      continue;
    const auto fit = r.find("fit");
    if (fit == r.end() || !fit->is_object()) continue;
    const auto rate = fit->find("attention_flops_per_s");
    if (rate == fit->end() || !rate->is_number()) continue;
    in_range(*rate, kMinFlopsPerS, kMaxFlopsPerS, where(i) + "/fit/attention_flops_per_s", "FLOP/s");
    if (best == nullptr || key(i) < key(best_index)) {
      best = &r;
      best_index = i;
    }
  }
  if (best == nullptr)
    throw Error(file + ": /runs", "no causal run with a passed check and a fitted attention_flops_per_s");
  return best_index;
}

PrefillCalibration load_calibration(const std::filesystem::path& path, std::uint64_t head_dim) {
  const json j = read_json_file(path);
  const std::string file = path.string();
  const std::size_t best_index = calibration_run(j, file, head_dim);
  const json* best = &j["runs"][best_index];
  const auto where = [&](std::size_t i) { return file + ": /runs/" + std::to_string(i); };

  PrefillCalibration c;
  c.backend = text(*best, "backend", where(best_index));
  c.head_dim = count(*best, "head_dim", where(best_index));
  c.causal = true;
  c.source = file + " /runs/" + std::to_string(best_index) + " (" + c.backend + ", head_dim " +
             std::to_string(c.head_dim) + ", causal)";
  const json& fit = (*best)["fit"];
  c.attention_flops_per_s = fit["attention_flops_per_s"].get<double>();
  if (const auto e = fit.find("exponent"); e != fit.end() && e->is_number()) {
    in_range(*e, 0.0, 4.0, where(best_index) + "/fit/exponent", "");
    c.exponent = e->get<double>();
  }
  // The fastest GEMM baseline on the same hardware as the run: cuBLAS for a GPU run, CPU libraries otherwise.
  if (const auto gemm = j.find("gemm"); gemm != j.end() && gemm->is_array()) {
    for (std::size_t i = 0; i < gemm->size(); ++i) {
      const json& g = (*gemm)[i];
      if (!g.is_object()) continue;
      const std::string lib = text(g, "library", file + ": /gemm/" + std::to_string(i));
      if ((lib == "cuBLAS") != is_gpu(c.backend)) continue;
      const auto t = g.find("tflops");
      if (t == g.end() || !t->is_number()) continue;
      in_range(*t, kMinFlopsPerS / 1e12, kMaxFlopsPerS / 1e12,
               file + ": /gemm/" + std::to_string(i) + "/tflops", "TFLOP/s");
      c.linear_flops_per_s = std::max(c.linear_flops_per_s, t->get<double>() * 1e12);
    }
  }
  return c;
}

}  // namespace kvplan::presets
