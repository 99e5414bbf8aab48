#pragma once
/// @file replicas.hpp
/// Data-parallel replicas from a GPU count: one rule for every front end (the CLI's --gpus, a GUI
/// scenario's "gpus", the GUI's GPU box).

#include <cstdint>

namespace kvplan {

/// The replicas (dp) that `gpus` GPUs make at tensor parallel `tp` and pipeline parallel `pp`: gpus / (tp
/// x pp). Throws kvplan::Error("gpus", ...) when gpus is 0, when tp x pp passes 2^64 or when gpus is not a
/// multiple of tp x pp (each replica holds the whole model on tp x pp GPUs); front ends name their own
/// flag or key.
std::uint64_t replicas_of(std::uint64_t gpus, std::uint64_t tp, std::uint64_t pp);

}  // namespace kvplan
