#pragma once
// CLI11's parse errors in kvplan's words: one line naming the flag and the reason.

#include <string>

#include <CLI/CLI.hpp>

namespace kvplan::cli {

/// The message for a CLI11 parse failure, as CLI11's failure_message hook (App::failure_message) takes
/// it: "--tp: given 2 times; give it once", "--tp: needs a value", "--frob: not an option of `kvplan
/// size` (kvplan size --help)", "--prompt: missing (required by `kvplan prefill`)". `app` is the top-level
/// app after the failed parse: the flag is found from its state (remaining arguments, option counts and
/// results, required options) and, where CLI11 keeps none (a value missing, a conversion), as the option of
/// the parsed command that CLI11's message names. Ends without a newline.
std::string parse_error_message(const CLI::App* app, const CLI::Error& e);

}  // namespace kvplan::cli
