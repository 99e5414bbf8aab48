#pragma once
/// @file limits.hpp
/// Sizes kvplan refuses, past anything a real model or deployment reaches. Each bound keeps a plan
/// (every engine, every capacity search) within a second and a few megabytes; past it the input is
/// an error naming the limit, never an hour of work or an exhausted memory.

#include <cstdint>

namespace kvplan {

/// Most layers in one model (layer groups are at most as many). The deepest published decoders have
/// a few hundred (Llama 3.1 405B: 126, DeepSeek-V3: 61); validate(ModelSpec) refuses more.
inline constexpr std::uint64_t kMaxLayers = 4096;

}  // namespace kvplan
