#pragma once
/// @file options.hpp
/// The inputs kvplan takes, once: each engine option as one record (its key, CLI flag, GUI label, kind,
/// default, bound and the engines and versions it applies to), and the names of the deployment inputs.
/// Core's errors name an input by its stable key ("tp", "block_size"): as the error's field, and inside
/// its reason in backticks ("use `pp` for a layer split"); each front end words the key at its edge (the
/// CLI as its flag, "--tp"; the GUI as its label) with word_inputs. No core text names a CLI flag. Validation
/// (validate_engine_options), the CLI's options, scenario files and the GUI's engine rows all loop over
/// engine_option_table(), so adding an engine option is one record here plus its use in the policy.

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "kvplan/engine.hpp"

namespace kvplan {

/// How an option's value is written.
enum class OptionKind {
  count,   ///< a positive integer ("16")
  tokens,  ///< a token count ("8192", "8k")
  flag,    ///< on or off
  ratio,   ///< a number in (0, 1]
};

/// One engine option.
struct EngineOptionSpec {
  std::string_view key;        ///< stable key: core's errors, scenario JSON ("block_size")
  std::string_view cli_flag;   ///< "--block-size"
  std::string_view gui_label;  ///< "Block size"
  std::string_view help;       ///< one sentence, with each engine's own default
  OptionKind kind = OptionKind::count;
  /// The EngineOptions member it sets (0 / false / the ratio's default mean the engine's default).
  std::variant<std::uint64_t EngineOptions::*, bool EngineOptions::*, double EngineOptions::*> member;
  std::uint64_t max = 0;      ///< count and tokens: the largest accepted (past it figures could overflow)
  std::uint32_t engines = 0;  ///< the engines it applies to, as a set of bits (1 << Engine)
  std::string_view not_under_version;  ///< a version of those engines it has no effect under ("v0"), or ""
  /// count and tokens: the value each engine uses when the option is left at 0 (index: Engine), 0 where
  /// the engine has none; the same figures as the policies' defaults (core/src/engine_<name>.cpp).
  std::array<std::uint64_t, 5> engine_default{};
  bool capacity_only = false;  ///< only meaningful with a KV memory (the CLI's size, not show or compare)
  /// The engine's own launch flag for the option (index: Engine), what `kvplan fit` writes on the launch
  /// line when the option is set: "--block-size" (vllm serve), "--page-size" (SGLang), "-ub"
  /// (llama-server). A name without a leading '-' is a field of TensorRT-LLM's `kv_cache_config`, given in
  /// the --extra_llm_api_options YAML file. "" where the engine does not take the option.
  std::array<std::string_view, 5> launch_flag{};
};

/// Every engine option, in the order front ends list them.
std::span<const EngineOptionSpec> engine_option_table();

/// The record of `key` (or of a CLI flag such as "--block-size"); nullptr when none.
const EngineOptionSpec* find_engine_option(std::string_view key_or_flag);

/// Whether `o` is set away from its default in `e`.
bool engine_option_set(const EngineOptionSpec& o, const EngineOptions& e);

/// Whether option `o` may be given under `e`'s engine and version (require_engine_option_applies without
/// the error): what decides which engine rows a front end shows.
bool engine_option_applies(const EngineOptionSpec& o, const EngineOptions& e);

/// Checks that option `o` may be given under `e`'s engine and version; throws kvplan::Error(o.key,
/// "applies to ...") naming the engines it applies to, or saying which version it has no effect under.
void require_engine_option_applies(const EngineOptionSpec& o, const EngineOptions& e);

/// "vllm, sglang or trtllm": the engines of a record, for messages and help.
std::string engine_list(std::uint32_t engines);

/// The name of one input in each front end.
struct InputName {
  std::string_view key;        ///< core's errors
  std::string_view cli_flag;   ///< the CLI
  std::string_view gui_label;  ///< the GUI
};

/// The deployment and engine inputs core names in its errors (tp, pp, context, users, the dtypes, the
/// engine and its version...), the engine options included.
std::span<const InputName> input_names();

/// The CLI flag for a key ("tp" -> "--tp"); the key itself when it names no input (a config field, a
/// JSON path).
std::string_view cli_flag_for(std::string_view key);
/// The GUI label for a key ("tp" -> "tensor parallel (tp)"); the key itself when it names no input.
std::string_view gui_label_for(std::string_view key);

/// Whether `key` names an input of input_names() ("tp", "block_size"; not "model" or a JSON path).
bool is_input_key(std::string_view key);

/// How core's text names another input: its key in backticks ("`gpu`"), worded by the front end with
/// word_inputs; a field that names no input (a JSON path, "model") as it is.
std::string input_ref(std::string_view key);

/// `text` from core (an error's reason, a refusal) with each input it names in backticks by its key
/// ("give `gpu` for its peak") worded by `name`: the CLI's flag ("give --gpu for its peak"), the GUI's
/// label. A backticked word that is no input's key, and an unpaired backtick, stay as written.
std::string word_inputs(std::string_view text, const std::function<std::string(std::string_view key)>& name);

}  // namespace kvplan
