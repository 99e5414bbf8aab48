#pragma once
// The engines' names for kvplan's flags (vLLM's --max-model-len, SGLang's --page-size, llama.cpp's -np):
// one table that registers them as CLI11 aliases, reads the single-dash long ones CLI11 cannot name
// (-tp, -ctk), and remembers which spelling the user typed, so that an error names it.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "kvplan/engine.hpp"

namespace kvplan::cli {

/// One kvplan flag and the engines' names for it, each with the engine's meaning.
struct FlagAlias {
  std::string_view flag;   ///< kvplan's own name ("--context"), the one help lists first
  std::string_view names;  ///< the engines' names CLI11 takes, comma-separated ("--max-model-len,...")
  /// The engines' single-dash long names, space-separated ("-tp"): CLI11 2.1 takes one letter after a
  /// single dash, so parse_command_line reads these as `flag` before CLI11 parses.
  std::string_view dash_names;
  std::string_view engines;  ///< whose names they are, for --help ("vLLM, SGLang")
};

/// Every alias, by kvplan flag.
std::span<const FlagAlias> flag_aliases();

/// `flag` and its aliases as CLI11's add_option takes names ("--context,--max-model-len,--context-length");
/// `flag` alone when it has none. kvplan's own name comes first, so CLI11's get_name() stays `flag`.
std::string option_names(std::string_view flag);

/// `help` with whose names the aliases are and the single-dash names CLI11's help cannot list
/// ("tensor-parallel size (engine names: vLLM, SGLang; -tp too)"); `help` as is when `flag` has none.
std::string alias_help(std::string_view flag, std::string help);

/// Parses `argv` into `app` as App::parse does, after reading each single-dash long engine name as its
/// kvplan flag ("-tp 4", "-tp=4" -> "--tp 4") and noting the spelling of every flag with aliases, for
/// typed_flag. Arguments after "--" are left alone. `kvplan size --from-launch LINE` is expanded here
/// (launch.hpp). Throws CLI11's errors, and kvplan::Error for a launch line it cannot read.
void parse_command_line(CLI::App& app, int argc, char** argv);

/// The flag as the user spelled it in the last parse_command_line: "--max-model-len" for "--context" when
/// that was typed; "--context/--max-model-len" when both were; `flag` itself otherwise (no alias typed, or
/// a field that is no flag, such as "model").
std::string typed_flag(std::string_view flag);

/// The CLI's one wording of core's input keys: an error's field as the flag typed for it ("tp" -> "--tp",
/// "context" -> "--max-model-len" when that was typed); a field that names no input (a JSON path,
/// "model", a flag the CLI threw itself) as it is.
std::string cli_field(std::string_view key);

/// Core's text (an error's reason, fit's refusals) with each input it names in backticks worded as
/// cli_field words it ("give `gpu` for its peak" -> "give --gpu for its peak"; kvplan::word_inputs).
std::string cli_words(std::string_view text);

/// Whether `args` give kvplan's `flag` by any of its names ("--max-model-len 8192", "-tp=4" and
/// "--context" all give "--context" / "--tp").
bool given(const std::vector<std::string>& args, std::string_view flag);

/// Warnings for the engines' names typed in the last parse_command_line under another engine than theirs
/// (SGLang's --mem-fraction-static under --engine trtllm): kvplan reads the name as its own flag, with the
/// chosen engine's meaning, and says so. None under the exact layout (ideal), which takes any name, nor for
/// a launch line's own flags (trtllm-serve's --tp_size is no alias).
std::vector<std::string> other_engines_names(Engine engine);

/// Notes that `typed` was given for kvplan's `flag` (parse_command_line and the launch-line reader).
void note_typed(std::string_view flag, std::string_view typed);

}  // namespace kvplan::cli
