#pragma once
/// @file context_scale.hpp
/// The context slider's log scale: 100 steps per doubling from 256 to 1,048,576 tokens.

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kvplan/gui/controller.hpp"

namespace kvplan::gui {

/// Slider steps per doubling of the context.
inline constexpr int kContextStepsPerDoubling = 100;
/// Last slider position: 12 doublings from 2^8 to 2^20 tokens.
inline constexpr int kContextSliderMax = 12 * kContextStepsPerDoubling;

/// Tokens at a slider position: round(256 x 2^(position / 100)), position clamped to [0, 1200].
inline std::uint64_t context_for_slider(int position) {
  const int p = std::clamp(position, 0, kContextSliderMax);
  return static_cast<std::uint64_t>(std::llround(
      static_cast<double>(kMinChartContext) * std::exp2(static_cast<double>(p) / kContextStepsPerDoubling)));
}

/// The slider position nearest to a context (clamped to the slider's ends); the inverse of
/// context_for_slider on its values.
inline int slider_for_context(std::uint64_t tokens) {
  if (tokens <= kMinChartContext) return 0;
  const double p = std::log2(static_cast<double>(tokens) / static_cast<double>(kMinChartContext)) *
                   kContextStepsPerDoubling;
  return std::clamp(static_cast<int>(std::lround(p)), 0, kContextSliderMax);
}

}  // namespace kvplan::gui
