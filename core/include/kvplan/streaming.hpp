#pragma once
/// @file streaming.hpp
/// A StreamingLLM cache cap: attention sinks plus a recent window on the full-attention layers.

#include <cstdint>
#include <string>
#include <string_view>

#include "kvplan/engine.hpp"
#include "kvplan/model.hpp"

namespace kvplan {

/// StreamingLLM's cap as given (--sink-tokens S --recent-window W): tokens, recent at least 1.
struct StreamingCap {
  std::uint64_t sink = 4;
  std::uint64_t recent = 1020;
  bool operator==(const StreamingCap&) const = default;
};

/// "StreamingLLM 4+1,020": the label of a capped model's row, curve or column.
std::string streaming_label(const StreamingCap& cap);

/// The cap is kvplan's exact layout only: no serving engine keeps attention sinks plus a window in place of
/// the full cache, and under an engine's rules the capped layers would be planned as that engine's sliding
/// windows. Throws kvplan::Error(field, ...) naming the engine unless `engine` is Engine::ideal. `size`,
/// `compare` and `fit` share it.
void require_streaming_engine(Engine engine, std::string_view field = "sink_tokens");

/// The model with every full-attention layer capped as StreamingLLM does (Xiao et al. 2023, "Efficient
/// Streaming Language Models with Attention Sinks", section 3.2: the cache keeps the first `sink` tokens
/// and the `recent` most recent ones). Such a layer holds min(L, sink + recent) tokens at context L, which
/// is a sliding window of sink + recent tokens for every byte figure, so the layer becomes one (attention
/// FLOPs then count sink + recent keys per query too). Sliding and chunked layers already hold fewer and
/// are left alone; MLA layers are left uncapped, with a warning in the model's warnings, as are models
/// with no full-attention layer. Throws kvplan::Error("recent_window", ...) when recent is 0, or
/// ("sink_tokens", ...) when sink + recent overflows.
ModelSpec with_attention_sinks(ModelSpec m, std::uint64_t sink, std::uint64_t recent);

}  // namespace kvplan
