#include "aliases.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <vector>

#include "kvplan/error.hpp"
#include "kvplan/options.hpp"
#include "launch.hpp"

namespace kvplan::cli {

namespace {
// Each name keeps its engine's meaning; where an engine means something else by a name, the name is not
// an alias (llama.cpp's -c is the context of all slots together: --ctx-size, its own option in options.cpp).
// vLLM's --max-num-seqs is kvplan's own flag (the engine option table); SGLang's --max-running-requests is
// not an alias: kvplan's SGLang budget does not model it.
constexpr std::array<FlagAlias, 11> kAliases{{
    // vllm/engine/arg_utils.py --max-model-len; sglang/srt/server_args.py --context-length.
    {"--context", "--max-model-len,--context-length", "", "vLLM, SGLang"},
    // llama.cpp common/arg.cpp: -c, --ctx-size (n_ctx, every slot's cells together).
    {"--ctx-size", "-c", "", "llama.cpp"},
    // llama.cpp -np, --parallel: the slots (n_seq_max), kvplan's sequences.
    {"--users", "--parallel", "-np", "llama.cpp"},
    {"--tp", "--tensor-parallel-size,--tp-size", "-tp", "vLLM, SGLang"},
    {"--pp", "--pipeline-parallel-size,--pp-size", "-pp", "vLLM, SGLang"},
    // vLLM's and SGLang's fp8 is fp8_e4m3 (parse_dtype reads "fp8" so).
    {"--kv-dtype", "--kv-cache-dtype", "", "vLLM, SGLang"},
    {"--k-dtype", "--cache-type-k", "-ctk", "llama.cpp"},
    {"--v-dtype", "--cache-type-v", "-ctv", "llama.cpp"},
    // SGLang's mem_fraction_static: the share of GPU memory for weights and KV pool, as kvplan's fit
    // writes it on SGLang's launch line.
    {"--gpu-util", "--gpu-memory-utilization,--mem-fraction-static", "", "vLLM, SGLang"},
    {"--block-size", "--page-size", "", "SGLang"},
    {"--ubatch", "--ubatch-size", "-ub", "llama.cpp"},
}};

/// The spellings typed for each flag with aliases, in the order given.
std::map<std::string, std::vector<std::string>, std::less<>>& typed_names() {
  static std::map<std::string, std::vector<std::string>, std::less<>> names;
  return names;
}

const FlagAlias* alias_of(std::string_view flag) {
  for (const auto& a : kAliases)
    if (a.flag == flag) return &a;
  return nullptr;
}

/// Whether `name` is one of the `sep`-separated names of `list`.
bool listed(std::string_view list, std::string_view name, char sep) {
  while (!list.empty()) {
    const std::size_t end = std::min(list.find(sep), list.size());
    if (list.substr(0, end) == name) return true;
    list.remove_prefix(std::min(end + 1, list.size()));
  }
  return false;
}

/// The argument with a single-dash engine name read as its kvplan flag, noting what was typed.
std::string read_argument(const std::string& arg) {
  if (arg.size() < 2 || arg[0] != '-') return arg;
  const std::size_t eq = arg.find('=');
  const std::string_view name = std::string_view(arg).substr(0, eq);
  for (const auto& a : kAliases)
    if (listed(a.dash_names, name, ' ')) {
      note_typed(a.flag, name);
      return std::string(a.flag) + (eq == std::string::npos ? "" : arg.substr(eq));
    }
  for (const auto& a : kAliases) {
    // A one-letter name may carry its value ("-c8192", as CLI11 reads it).
    const bool short_with_value = arg[1] != '-' && listed(a.names, arg.substr(0, 2), ',');
    if (name == a.flag || listed(a.names, name, ',') || short_with_value)
      note_typed(a.flag, short_with_value ? std::string_view(arg).substr(0, 2) : name);
  }
  return arg;
}
}  // namespace

std::vector<std::string> other_engines_names(Engine engine) {
  std::vector<std::string> out;
  if (engine == Engine::ideal) return out;
  const std::string_view chosen = engine == Engine::vllm       ? "vLLM"
                                  : engine == Engine::sglang   ? "SGLang"
                                  : engine == Engine::llamacpp ? "llama.cpp"
                                                               : "TensorRT-LLM";
  for (const auto& a : kAliases) {
    if (a.engines.find(chosen) != std::string_view::npos) continue;
    const auto it = typed_names().find(a.flag);
    if (it == typed_names().end()) continue;
    for (const std::string& one : it->second)
      if (listed(a.names, one, ',') || listed(a.dash_names, one, ' ')) {
        // --ctx-size is llama.cpp's n_ctx whatever the engine: every slot's context together.
        const std::string meaning =
            std::string_view(a.flag) == "--ctx-size"
                ? "llama.cpp's meaning: every user's context together, ceil(N / --users) tokens each (" +
                      std::string(chosen) + " has no such flag: give --context for one user's)"
                : std::string(chosen) + "'s meaning";
        out.push_back(one + " (a name from " + std::string(a.engines) + ") under --engine " +
                      std::string(name(engine)) + " is read as " + std::string(a.flag) + ", with " + meaning);
        break;
      }
  }
  return out;
}

std::span<const FlagAlias> flag_aliases() { return kAliases; }

std::string option_names(std::string_view flag) {
  const FlagAlias* a = alias_of(flag);
  return a == nullptr ? std::string(flag) : std::string(flag) + "," + std::string(a->names);
}

std::string alias_help(std::string_view flag, std::string help) {
  const FlagAlias* a = alias_of(flag);
  if (a == nullptr) return help;
  // CLI11 lists the names it registered; the single-dash ones are named here.
  return help + " (engine names: " + std::string(a->engines) +
         (a->dash_names.empty() ? "" : "; " + std::string(a->dash_names) + " too") + ")";
}

bool given(const std::vector<std::string>& args, std::string_view flag) {
  const FlagAlias* a = alias_of(flag);
  return std::any_of(args.begin(), args.end(), [&](const std::string& arg) {
    const std::string_view name = std::string_view(arg).substr(0, arg.find('='));
    return name == flag ||
           (a != nullptr && (listed(a->names, name, ',') || listed(a->dash_names, name, ' ')));
  });
}

void note_typed(std::string_view flag, std::string_view typed) {
  auto& seen = typed_names()[std::string(flag)];
  if (std::find(seen.begin(), seen.end(), typed) == seen.end()) seen.emplace_back(typed);
}

std::string typed_flag(std::string_view flag) {
  const auto it = typed_names().find(flag);
  if (it == typed_names().end() || it->second.empty()) return std::string(flag);
  std::string out;
  for (const auto& name : it->second) out += (out.empty() ? "" : "/") + name;
  return out;
}

std::string cli_field(std::string_view key) { return typed_flag(cli_flag_for(key)); }

std::string cli_words(std::string_view text) { return word_inputs(text, cli_field); }

void parse_command_line(CLI::App& app, int argc, char** argv) {
  typed_names().clear();
  clear_launch_checks();
  std::vector<std::string> args;
  std::optional<std::pair<std::size_t, std::string>> launch;  // where --from-launch stood, and its line
  bool options_end = false, size = false;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    size = size || (i > 0 && !options_end && arg == "size");
    const bool from_launch = arg == "--from-launch" || arg.rfind("--from-launch=", 0) == 0;
    if (i > 0 && !options_end && size && from_launch) {
      if (launch) throw Error("--from-launch", "given 2 times; give it once");
      if (arg == "--from-launch" && i + 1 >= argc)
        throw Error("--from-launch", "needs a value (a launch line)");
      launch = {args.size(), arg == "--from-launch" ? std::string(argv[++i]) : arg.substr(arg.find('=') + 1)};
      continue;
    }
    args.push_back(i == 0 || options_end ? arg : read_argument(arg));
    options_end = options_end || (i > 0 && arg == "--");
  }
  if (launch) {
    // `size --from-launch LINE`: the line's flags in its place, as kvplan's own (launch.hpp), read knowing
    // what the rest of the command gives.
    const auto line = launch_arguments(launch->second, args);
    args.insert(args.begin() + static_cast<std::ptrdiff_t>(launch->first), line.begin(), line.end());
  }
  // The launch line names the engine: a second --engine would be CLI11's "given 2 times" on a flag not typed.
  const auto engine_flag = [](const std::string& a) {
    return a == "--engine" || a.rfind("--engine=", 0) == 0;
  };
  if (std::count_if(args.begin(), args.end(), engine_flag) > 1 && typed_flag("--engine") == "--from-launch")
    throw Error("--from-launch", "names the engine, and --engine was given too: give one or the other");
  // CLI11 reads the program name from argv[0], as App::parse(argc, argv) does.
  std::vector<const char*> pointers;
  pointers.reserve(args.size());
  for (const auto& a : args) pointers.push_back(a.c_str());
  app.parse(static_cast<int>(pointers.size()), pointers.data());
}

}  // namespace kvplan::cli
