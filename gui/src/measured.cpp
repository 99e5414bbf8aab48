#include "kvplan/gui/measured.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "kvplan/presets.hpp"

namespace kvplan::gui {

namespace {
using nlohmann::json;

bool positive_number(const json& v) {
  return v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0;
}

/// The points of the run a planner calibrates with (presets::calibration_run, the run `kvplan prefill
/// --calibration` reads): attention-only times.
MeasuredSet from_bench_report(const json& j, const std::string& origin, std::uint64_t head_dim) {
  const std::size_t index = presets::calibration_run(j, origin, head_dim);
  const json& best = j["runs"][index];
  MeasuredSet out;
  out.attention_only = true;
  const auto text = [&](const char* key) {
    return best.contains(key) && !best[key].is_null() ? best[key].dump() : std::string("?");
  };
  out.label = "measured attention (kvplan-bench " +
              (best["backend"].is_string() ? best["backend"].get<std::string>() : "?") + ", head_dim " +
              text("head_dim") + ")";
  if (best.contains("points") && best["points"].is_array())
    for (const auto& p : best["points"]) {
      if (!p.is_object() || !p.contains("status") || p["status"] != "ok" || !p.contains("n") ||
          !p["n"].is_number_unsigned() || !p.contains("time_s") || !p["time_s"].is_object() ||
          !p["time_s"].contains("median") || !positive_number(p["time_s"]["median"]) ||
          p["n"].get<std::uint64_t>() == 0)
        continue;
      out.points.push_back({p["n"].get<std::uint64_t>(), p["time_s"]["median"].get<double>()});
    }
  if (out.points.empty())
    throw Error(origin + ": /runs/" + std::to_string(index), "the chosen run has no point with status ok");
  return out;
}

MeasuredSet from_points(const json& j, const std::string& origin) {
  if (!j.is_object() || !j.contains("points") || !j["points"].is_array())
    throw Error(origin + "/points", "must be an array of {\"n\": tokens, \"seconds\": time}");
  MeasuredSet out;
  out.label = "measured";
  const auto& points = j["points"];
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string where = origin + "/points/" + std::to_string(i);
    const auto& p = points[i];
    if (!p.is_object()) throw Error(where, "must be an object");
    const char* key = p.contains("n") ? "n" : "prompt_tokens";
    if (!p.contains(key) || !p[key].is_number_unsigned() || p[key].get<std::uint64_t>() == 0)
      throw Error(where + "/n", "must be a positive number of tokens");
    if (!p.contains("seconds") || !positive_number(p["seconds"]))
      throw Error(where + "/seconds", "must be a positive number of seconds");
    out.points.push_back({p[key].get<std::uint64_t>(), p["seconds"].get<double>()});
  }
  if (out.points.empty()) throw Error(origin + "/points", "is empty");
  return out;
}
}  // namespace

MeasuredSet load_measured_prefill(const std::filesystem::path& path, std::uint64_t head_dim) {
  const json j = presets::read_json_file(path);
  const std::string name = path.filename().string();
  MeasuredSet out = j.is_object() && j.contains("schema") ? from_bench_report(j, name, head_dim)
                                                          : from_points(j, name + ": ");
  std::sort(out.points.begin(), out.points.end(),
            [](const auto& a, const auto& b) { return a.prompt_tokens < b.prompt_tokens; });
  return out;
}

}  // namespace kvplan::gui
