#pragma once
// `kvplan fit`: search deployments that hold a model, a context and a number of users; and the speed
// figures `size` adds when a GPU is given. Options struct, setup and run as the other subcommands.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "kvplan/fit.hpp"
#include "options.hpp"

namespace kvplan::cli {

struct FitOptions : CapacityOptions {
  ModelOptions model;
  EngineCliOptions engine;
  StreamingOptions streaming;
  std::string max_gpus = "64", tp, pp, dp_attention, gpus_per_node, kv_dtype, weight_dtype, price, ttft, tpot,
              top = "10", mem_eff, compute_eff, link_eff;
  std::vector<std::string> gpus;
};

/// Every option of `fit`.
void add_fit_options(CLI::App& app, FitOptions& o);
/// The search request from the options; throws kvplan::Error naming the flag.
FitRequest build_fit_request(const FitOptions& o);
/// Runs `fit`: the ranked table or {"configurations": [...]}; exit 0 also when nothing fits.
int run_fit(const FitOptions& o);

/// The speed section `size` prints and its "speed" JSON object (estimate_speed's figures); empty / null
/// when the plan has no GPU or the GPU lacks a bandwidth, peak or link figure.
std::string speed_text(const PlanInputs& in);
nlohmann::json speed_json(const PlanInputs& in);

}  // namespace kvplan::cli
