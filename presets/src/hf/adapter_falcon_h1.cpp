// Falcon-H1 (configuration_falcon_h1.py FalconH1Config): every layer runs attention and a Mamba2 mixer in
// parallel, so each layer keeps both a per-token K/V cache and a fixed state. kvplan's layer groups hold
// one token mixer per layer, so this family is refused with the reason rather than read wrong.
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_falcon_h1(const HfConfig& c) {
  c.r.fail("mamba_d_ssm",
           "Falcon-H1 runs attention and Mamba2 in parallel in every layer, which kvplan does not "
           "model yet: no figure rather than a wrong one");
}

}  // namespace kvplan::presets::hf
