#include "kvplan/streaming.hpp"

#include "kvplan/format.hpp"
#include "kvplan/units.hpp"

namespace kvplan {

std::string streaming_label(const StreamingCap& cap) {
  return "StreamingLLM " + format_count(cap.sink) + "+" + format_count(cap.recent);
}

void require_streaming_engine(Engine engine, std::string_view field) {
  if (engine != Engine::ideal)
    throw Error(std::string(field), "StreamingLLM's cache is kvplan's exact layout only (`engine` ideal); " +
                                        std::string(name(engine)) + " has no attention-sink cache");
}

ModelSpec with_attention_sinks(ModelSpec m, std::uint64_t sink, std::uint64_t recent) {
  if (recent == 0) throw Error("recent_window", "must be positive");
  const std::uint64_t window = checked_add(sink, recent, "sink_tokens");
  bool capped = false, mla = false;
  for (auto& g : m.layers) {
    if (g.attention.kind == AttentionKind::full) {
      g.attention.kind = AttentionKind::sliding;
      g.attention.window = window;
      capped = true;
    }
    mla = mla || g.attention.kind == AttentionKind::mla;
  }
  if (mla)
    m.warnings.push_back(
        "the attention-sink cap (sink tokens + recent window) caps full-attention layers only: MLA "
        "layers are not capped");
  if (!capped)
    m.warnings.push_back(
        "the attention-sink cap (sink tokens + recent window): the model has no full-attention layer to "
        "cap");
  m.layers = compress(std::move(m.layers));
  return m;
}

}  // namespace kvplan
