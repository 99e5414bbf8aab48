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

/// Most heads, or values per head, latent or state dimension, in one layer (2^20). Published models stay
/// below a few thousand (head_dim 512, kv_lora_rank 1,536, 128 heads); a value past this is a typo or a
/// hostile file, and with it no KV figure per token can pass 2^64 B (2^20 heads x 2^20 values x K and V
/// x 4 B x 4,096 layers = 2^55 B), so an overflow is always the context's or the users'.
inline constexpr std::uint64_t kMaxDimension = std::uint64_t{1} << 20;

}  // namespace kvplan
