#pragma once
// `kvplan size --from-launch "vllm serve org/model --tensor-parallel-size 4 ..."`: an engine's launch line
// read as kvplan's own arguments, flag by flag, with each engine's meaning.

#include <string>
#include <string_view>
#include <vector>

#include "kvplan/model.hpp"

namespace kvplan::cli {

/// The words of `line` as a POSIX shell splits them: blanks separate words; '...' is literal; in "..."
/// a backslash escapes only $ ` " \ and a newline; outside quotes a backslash escapes the next character,
/// and a backslash-newline joins lines; a word starting with # starts a comment to the end of the line.
/// What only a shell could do is refused: an unquoted ; | & < > or ( ), and $ or ` outside single quotes.
/// Throws kvplan::Error("--from-launch", reason) naming the character or the unterminated quote.
std::vector<std::string> shell_words(std::string_view line);

/// kvplan's `size` arguments for an engine's launch line: "--engine vllm", the model, then each flag as
/// kvplan's own ("--tensor-parallel-size 4" -> "--tp 4"), with its spelling noted for typed_flag so an
/// error names the launch line's flag. Reads `vllm serve MODEL`, `python -m
/// vllm.entrypoints.openai.api_server --model MODEL`, `python -m sglang.launch_server --model-path MODEL`,
/// `llama-server -m FILE` and `trtllm-serve [serve] MODEL`, after any NAME=value environment words.
/// Data-parallel ranks (vLLM -dp, SGLang --dp) are replicas (--gpus), or with DP attention (vLLM
/// --enable-expert-parallel, SGLang --enable-dp-attention) kvplan's --dp-attention. Flags that change no
/// memory (--host, --port, --served-model-name ...) are skipped. `others` are the command's other arguments:
/// a line without its context flag is refused unless they give one (the engine would take the model's own
/// length), and llama-server without -np gets its default, 4 slots with --kv-unified, unless they give
/// --users or --engine-version. Throws
/// kvplan::Error("--from-launch", ...) for another program, and naming the flag for one kvplan does not
/// model ("--from-launch: --quantization (vllm serve): not modelled by kvplan; ...") or one without its
/// value.
std::vector<std::string> launch_arguments(std::string_view line, const std::vector<std::string>& others);

/// What the last launch line leaves to check once the model is known, and what it warns of.
struct LaunchChecks {
  std::string gpu_layers_flag;        ///< llama.cpp's -ngl as typed; "" when the line gives none
  std::string gpu_layers;             ///< its value: a count, "auto" or "all"
  std::string dtype;                  ///< vLLM's / SGLang's --dtype other than auto; "" when none
  std::vector<std::string> warnings;  ///< what the engine does with the line that kvplan plans as it does
  /// The line's environment turns on the engine's long-context setting (long_context_env_on).
  bool long_context_allowed = false;
};

/// The last launch_arguments call's checks (cleared by clear_launch_checks and each launch_arguments).
const LaunchChecks& launch_checks();

/// Forgets the last launch line's checks (parse_command_line, before it reads a command).
void clear_launch_checks();

/// Adds the launch line's warnings to `m`'s and checks its -ngl against the model's layers (build_inputs,
/// once the model is resolved): a count past them is every layer and the output layer on the GPU; the
/// count of the layers leaves the output layer on the CPU (a warning); fewer is a partial offload, which
/// moves KV to the CPU. Throws kvplan::Error naming -ngl for a partial offload.
void apply_launch_checks(ModelSpec& m);

}  // namespace kvplan::cli
