#pragma once
// The subcommands, after CLI11's subcom_in_files pattern: each has an options struct (options.hpp; fit's in
// fit.hpp), a setup_x(App&, rc) that adds the subcommand and its options and sets its callback to run_x
// with them, and a run_x(const XOptions&), in a file of its own (cli/cmd_<x>.cpp; fit in fit.cpp). main
// sets the app up, parses (the callback of the subcommand given runs the command) and maps errors to exit
// codes. `rc` is where the callback leaves run_x's exit code; it must outlive the parse.

#include <CLI/CLI.hpp>

#include "fit.hpp"
#include "options.hpp"

namespace kvplan::cli {

/// `models` and `gpus`: only --json.
struct ListOptions {
  bool json = false;
};

/// `kvplan models [--json]`: one line per preset, or {"models": [...]} with each preset's key figures.
void setup_models(CLI::App& app, int& rc);
int run_models(const ListOptions& o);
/// `kvplan gpus [--json]`: one line per preset, or {"gpus": [...]} with every figure of each preset.
void setup_gpus(CLI::App& app, int& rc);
int run_gpus(const ListOptions& o);
/// `kvplan show`: the KV layout of a model.
void setup_show(CLI::App& app, int& rc);
int run_show(const ShowOptions& o);
/// `kvplan size`: the plan of one deployment (--from-launch is read by parse_command_line, aliases.hpp).
void setup_size(CLI::App& app, int& rc);
int run_size(const SizeOptions& o);
/// `kvplan compare`: the model as MHA, GQA, MQA, sliding window and MLA.
void setup_compare(CLI::App& app, int& rc);
int run_compare(const CompareOptions& o);
/// `kvplan fit`: the search (run_fit, fit.hpp).
void setup_fit(CLI::App& app, int& rc);
/// `kvplan prefill`: prefill FLOPs of a prompt.
void setup_prefill(CLI::App& app, int& rc);
int run_prefill(const PrefillOptions& o);

}  // namespace kvplan::cli
