#pragma once
/// @file measured.hpp
/// Measured prefill points to overlay on the prefill-cost chart.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "kvplan/series.hpp"

namespace kvplan::gui {

/// Measured points and what they timed.
struct MeasuredSet {
  std::vector<MeasuredPrefill> points;  ///< sorted by prompt length
  bool attention_only = false;          ///< timed the attention kernel alone (a kvplan-bench run)
  std::string label;                    ///< what the chart's legend says
  bool operator==(const MeasuredSet&) const = default;
};

/// Reads measured prefill times from either
///  - a kvplan-bench report (schema "kvplan-bench/1", bench/README.md): the run a planner calibrates
///    with, chosen by presets::calibration_run as `kvplan prefill --calibration` chooses it (causal,
///    check passed, fitted; the tiled backend of the hardware first; head_dim nearest `head_dim`), its
///    points with status "ok", n and time_s.median (attention only);
///  - or a plain list {"points": [{"n": 2048, "seconds": 0.153}, ...]} ("prompt_tokens" for "n") of
///    whole prefills.
/// Throws kvplan::Error naming the file and the JSON path of a bad point, or saying that no run fits.
MeasuredSet load_measured_prefill(const std::filesystem::path& path, std::uint64_t head_dim);

}  // namespace kvplan::gui
