#pragma once
/// @file report.hpp
/// The JSON report (schema "kvplan-bench/1", documented in bench/README.md), the text summary,
/// and the reading back of reports for the plot.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kvplan/bench/sweep.hpp"

namespace kvplan::bench {

/// The schema id written to and expected in every report.
inline constexpr const char* kSchema = "kvplan-bench/1";

/// The report as JSON, keys in a fixed order (schema first): machine, device, conventions, settings,
/// GEMM baselines, and per run the check, the points and the fit (with the calibration a planner
/// reads). See bench/README.md.
nlohmann::ordered_json to_json(const Report& r);

/// One run as a human table: n, median / min time, spread, TFLOP/s, extra memory; then the fits.
std::string run_text(const RunResult& r);
/// The GEMM baselines and each tiled run against the best of them.
std::string gemm_text(const Report& r);

/// One series of a plot: a run read back from a report.
struct Series {
  std::string label;  ///< "cpu-tiled d=64 causal"
  std::string backend;
  std::uint64_t head_dim = 0;
  bool causal = false;
  std::string statistic = "median";  ///< the time the run's fit used: "median" or "min"
  std::vector<std::uint64_t> n;      ///< points that ran
  std::vector<double> seconds;       ///< their times (the statistic)
  std::optional<double> exponent;
  std::optional<QuadraticFit> quadratic;
};

/// The runs of a report, for plotting. Throws kvplan::Error naming `source` and the JSON path
/// when the document is not a kvplan-bench/1 report.
std::vector<Series> read_series(const nlohmann::json& report, const std::string& source);

/// Reads and parses a report file, then read_series. Throws kvplan::Error("FILE", ...).
std::vector<Series> read_series_file(const std::string& path);

}  // namespace kvplan::bench
