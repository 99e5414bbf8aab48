#include "launch.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <span>

#include "aliases.hpp"
#include "kvplan/error.hpp"
#include "kvplan/format.hpp"
#include "kvplan/units.hpp"

namespace kvplan::cli {

namespace {
constexpr const char* kField = "--from-launch";

bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// What a launch flag becomes.
enum class Kind {
  value,          ///< kvplan's flag with the launch line's value
  flag,           ///< kvplan's flag, no value
  model,          ///< the model (MODEL)
  skip,           ///< changes no memory: read and dropped (with its value when `takes_value`)
  data_parallel,  ///< N data-parallel ranks: replicas, or DP attention with `dp_attention`
                  ///< (add_data_parallel)
  dp_attention,   ///< DP attention with expert parallel on the data-parallel ranks
};

/// One launch flag of one engine.
struct LaunchFlag {
  std::string_view names;   ///< the engine's spellings, comma-separated
  std::string_view kvplan;  ///< kvplan's flag ("" for model and skip)
  Kind kind = Kind::value;
  bool takes_value = true;  ///< skip: whether a value follows
};

// vllm/engine/arg_utils.py (EngineArgs.add_cli_args) and vllm/entrypoints/openai/cli_args.py.
constexpr std::array<LaunchFlag, 24> kVllm{{
    {"--model", "", Kind::model},
    {"-dp,--data-parallel-size", "", Kind::data_parallel},
    {"--enable-expert-parallel", "", Kind::dp_attention, false},
    {"--dtype", "", Kind::skip},  // auto only (check_auto_dtype)
    {"--max-model-len", "--context"},
    {"-tp,--tensor-parallel-size", "--tp"},
    {"-pp,--pipeline-parallel-size", "--pp"},
    {"--kv-cache-dtype", "--kv-dtype"},
    {"--gpu-memory-utilization", "--gpu-util"},
    {"--max-num-batched-tokens", "--max-num-batched-tokens"},
    {"--max-num-seqs", "--max-num-seqs"},        // the sampler's sequences in the memory budget (budget.hpp)
    {"--kv-cache-memory-bytes", "--kv-memory"},  // the pinned pool (kvplan fit's lines carry it)
    {"--block-size", "--block-size"},
    {"--disable-hybrid-kv-cache-manager", "--disable-hybrid-kv-cache-manager", Kind::flag},
    {"--speculative-config", "--speculative-config"},
    {"--mamba-cache-dtype", "--mamba-cache-dtype"},
    {"--mamba-ssm-cache-dtype", "--mamba-ssm-cache-dtype"},
    {"--revision", "--revision"},
    {"--host,--port,--served-model-name,--api-key,--uvicorn-log-level", "", Kind::skip},
    {"--trust-remote-code,--disable-log-requests,--disable-log-stats,--enable-log-requests", "", Kind::skip,
     false},
    {"--enable-prefix-caching,--no-enable-prefix-caching", "", Kind::skip, false},
    {"--tokenizer,--download-dir,--seed", "", Kind::skip},
    {"--enable-auto-tool-choice", "", Kind::skip, false},
    {"--tool-call-parser,--reasoning-parser,--chat-template", "", Kind::skip},
}};

// sglang/srt/server_args.py (ServerArgs.add_cli_args).
// --max-running-requests is the concurrent requests the server holds: kvplan's --users (fit's SGLang lines
// write it so). --max-total-tokens (a cap on the profiled pool) is refused: kvplan does not model it.
constexpr std::array<LaunchFlag, 16> kSglang{{
    {"--model-path,--model", "", Kind::model},
    {"--dp,--dp-size,--data-parallel-size", "", Kind::data_parallel},
    {"--enable-dp-attention", "", Kind::dp_attention, false},
    // Expert parallel within tp: the routed experts are split over the tp GPUs whatever the EP size (ep
    // groups of tp / ep ranks each split theirs), so no figure changes (kvplan fit's DP attention lines).
    {"--ep-size,--expert-parallel-size", "", Kind::skip},
    {"--dtype", "", Kind::skip},  // auto only (check_auto_dtype)
    {"--context-length", "--context"},
    {"--max-running-requests", "--users"},
    {"--tp,--tp-size,--tensor-parallel-size", "--tp"},
    {"--pp-size,--pipeline-parallel-size", "--pp"},
    {"--kv-cache-dtype", "--kv-dtype"},
    {"--mem-fraction-static", "--gpu-util"},
    {"--page-size", "--block-size"},
    {"--swa-full-tokens-ratio", "--swa-full-tokens-ratio"},
    {"--revision", "--revision"},
    {"--host,--port,--served-model-name,--api-key,--log-level,--tokenizer-path,--chat-template", "",
     Kind::skip},
    {"--trust-remote-code,--enable-metrics", "", Kind::skip, false},
}};

// llama.cpp common/arg.cpp (llama-server). -c is every slot's cells together: kvplan's --ctx-size.
constexpr std::array<LaunchFlag, 11> kLlamacpp{{
    {"-m,--model", "", Kind::model},
    {"-c,--ctx-size", "--ctx-size"},
    {"-np,--parallel", "--users"},
    {"-ctk,--cache-type-k", "--k-dtype"},
    {"-ctv,--cache-type-v", "--v-dtype"},
    {"-ub,--ubatch-size", "--ubatch"},
    {"--swa-full", "--swa-full", Kind::flag},
    {"-kvu,--kv-unified", "--kv-unified", Kind::flag},
    {"--host,--port,-a,--alias,--api-key,-t,--threads,--chat-template", "", Kind::skip},
    {"--jinja,--no-webui,--metrics", "", Kind::skip, false},
    // -ngl and -fa are read apart (check_gpu_layers; flash_attention_off: -fa off is --no-flash-attn).
    {"-ngl,--gpu-layers,--n-gpu-layers,-fa,--flash-attn", "", Kind::skip},
}};

// tensorrt_llm/commands/serve.py (trtllm-serve).
// --max_batch_size is refused: kvplan's TensorRT-LLM budget is the flat reserve, which it would not change.
constexpr std::array<LaunchFlag, 5> kTrtllm{{
    {"--tp_size", "--tp"},
    {"--pp_size", "--pp"},
    {"--max_seq_len", "--context"},
    {"--host,--port,--log_level,--tokenizer", "", Kind::skip},
    {"--trust_remote_code", "", Kind::skip, false},
}};

/// The engine of a launch line and where its flags start.
struct Program {
  std::string_view engine;           ///< kvplan's --engine
  std::string_view command;          ///< for messages: "vllm serve"
  std::size_t first = 0;             ///< index of the first word after the program (and its subcommand)
  std::optional<std::string> model;  ///< a positional model (vllm serve MODEL, trtllm-serve MODEL)
};

bool listed(std::string_view list, std::string_view name) {
  while (!list.empty()) {
    const std::size_t end = std::min(list.find(','), list.size());
    if (list.substr(0, end) == name) return true;
    list.remove_prefix(std::min(end + 1, list.size()));
  }
  return false;
}

std::string_view basename(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

/// Whether `w` is an environment assignment (NAME=value) before the command.
bool assignment(std::string_view w) {
  const std::size_t eq = w.find('=');
  if (eq == 0 || eq == std::string_view::npos) return false;
  return std::all_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(eq), [](char c) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  });
}

Program program(const std::vector<std::string>& w) {
  std::size_t i = 0;
  while (i < w.size() && assignment(w[i])) ++i;
  const auto at = [&](std::size_t k) -> std::string_view { return k < w.size() ? w[k] : std::string_view{}; };
  const std::string_view exe = basename(at(i));
  // A positional model follows `vllm serve` and `trtllm-serve [serve]` unless a flag comes first.
  const auto positional = [&](std::size_t k) -> std::optional<std::string> {
    if (k < w.size() && !w[k].empty() && w[k][0] != '-') return w[k];
    return std::nullopt;
  };
  if (exe == "vllm" && at(i + 1) == "serve") {
    auto m = positional(i + 2);
    return {"vllm", "vllm serve", i + 2 + (m ? 1 : 0), m};
  }
  if (exe.substr(0, 6) == "python" && at(i + 1) == "-m") {
    if (at(i + 2) == "vllm.entrypoints.openai.api_server")
      return {"vllm", "python -m vllm.entrypoints.openai.api_server", i + 3, std::nullopt};
    if (at(i + 2) == "sglang.launch_server")
      return {"sglang", "python -m sglang.launch_server", i + 3, std::nullopt};
  }
  if (exe == "llama-server") return {"llamacpp", "llama-server", i + 1, std::nullopt};
  if (exe == "trtllm-serve") {
    const std::size_t k = at(i + 1) == "serve" ? i + 2 : i + 1;
    auto m = positional(k);
    return {"trtllm", "trtllm-serve", k + (m ? 1 : 0), m};
  }
  throw Error(kField, "'" + printable(std::string(at(i))) +
                          "' is not a launch line kvplan reads (vllm serve, python -m "
                          "vllm.entrypoints.openai.api_server, python -m sglang.launch_server, llama-server, "
                          "trtllm-serve)");
}

/// The engine's flag for the context: without it, the engine takes the model's own context length
/// (vLLM's derived max_model_len, SGLang's context_length, llama.cpp's n_ctx_train, TensorRT-LLM's
/// max_position_embeddings), which kvplan does not derive.
std::string_view context_flag(std::string_view engine) {
  if (engine == "vllm") return "--max-model-len";
  if (engine == "sglang") return "--context-length";
  if (engine == "llamacpp") return "-c";
  return "--max_seq_len";
}

std::span<const LaunchFlag> flags_of(std::string_view engine) {
  if (engine == "vllm") return kVllm;
  if (engine == "sglang") return kSglang;
  if (engine == "llamacpp") return kLlamacpp;
  return kTrtllm;
}

/// llama.cpp's -ngl: kvplan plans every layer on the GPU, which is what a count past the layers, "all",
/// "auto" or -1 asks for (999 is what kvplan's own launch line writes).
void check_gpu_layers(std::string_view flag, std::string_view value) {
  if (value == "all" || value == "auto" || value == "-1") return;
  const bool digits =
      !value.empty() && std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || value.size() < 3)
    throw Error(std::string(flag), "'" + printable(std::string(value)) +
                                       "': kvplan plans every layer on the GPU (-ngl 999, all or auto)");
}

/// llama.cpp's -fa (common/arg.cpp: on, off, auto; 1/true and 0/false for on and off): whether it is
/// off, kvplan's --no-flash-attn. Throws kvplan::Error(flag, ...) for another value.
bool flash_attention_off(std::string_view flag, std::string_view value) {
  if (value == "on" || value == "auto" || value == "1" || value == "true") return false;
  if (value == "off" || value == "0" || value == "false") return true;
  throw Error(std::string(flag),
              "'" + printable(std::string(value)) + "': llama.cpp's -fa is on, off or auto");
}

/// --dtype: kvplan plans the checkpoint's dtype, as "auto" does; another casts weights and the KV cache.
void check_auto_dtype(std::string_view flag, std::string_view value) {
  if (value == "auto") return;
  throw Error(std::string(flag), "'" + printable(std::string(value)) +
                                     "': kvplan plans the checkpoint's dtype (auto); give --weight-dtype and "
                                     "--kv-dtype for another");
}

/// The value after kvplan flag `flag` in `out`, or `fallback` when it is not there.
std::uint64_t count_in(const std::vector<std::string>& out, std::string_view flag, std::uint64_t fallback) {
  const auto it = std::find(out.begin(), out.end(), flag);
  return it == out.end() || it + 1 == out.end() ? fallback : parse_count(*(it + 1), typed_flag(flag));
}

/// N data-parallel ranks (`flag` N). With DP attention (SGLang --enable-dp-attention, vLLM
/// --enable-expert-parallel), kvplan's --dp-attention N over every GPU of the replica: SGLang's --tp already
/// counts them all (--tp 8 --dp 8), vLLM's is per rank (-tp 1 -dp 8 is kvplan's --tp 8). Without, N replicas
/// of tp x pp GPUs: kvplan's --gpus.
void add_data_parallel(std::string_view engine, const std::string& flag, const std::string& value,
                       bool attention, std::vector<std::string>& out) {
  const std::uint64_t n = parse_count(value, flag);
  const std::uint64_t tp = count_in(out, "--tp", 1), pp = count_in(out, "--pp", 1);
  if (!attention) {
    note_typed("--gpus", flag);
    // The engine's tp is 1 when the line gives none; kvplan's --gpus alone would make it tensor parallel.
    if (std::find(out.begin(), out.end(), "--tp") == out.end()) out.insert(out.end(), {"--tp", "1"});
    out.insert(out.end(), {"--gpus", std::to_string(checked_mul(checked_mul(tp, pp, flag), n, flag))});
    return;
  }
  note_typed("--dp-attention", flag);
  out.insert(out.end(), {"--dp-attention", std::to_string(n)});
  if (engine != "vllm") return;
  const std::string all = std::to_string(checked_mul(tp, n, flag));
  if (const auto it = std::find(out.begin(), out.end(), "--tp"); it != out.end()) {
    *(it + 1) = all;
  } else {
    note_typed("--tp", flag);
    out.insert(out.end(), {"--tp", all});
  }
}
}  // namespace

std::vector<std::string> shell_words(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  const auto refuse = [](char c, std::string_view why) {
    throw Error(kField,
                std::string("'") + c + "' " + std::string(why) + ": paste the command with its values");
  };
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (blank(c)) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '#' && !in_word) {
      while (i < line.size() && line[i] != '\n') ++i;
    } else if (c == '\\') {
      if (i + 1 < line.size() && line[i + 1] != '\n') word += line[i + 1], in_word = true;
      ++i;  // a backslash-newline joins the lines
    } else if (c == '\'') {
      const std::size_t end = line.find('\'', i + 1);
      if (end == std::string_view::npos) throw Error(kField, "a ' quote is not closed");
      word += line.substr(i + 1, end - i - 1);
      in_word = true;
      i = end;
    } else if (c == '"') {
      in_word = true;
      for (++i; i < line.size() && line[i] != '"'; ++i) {
        if (line[i] == '$' || line[i] == '`') refuse(line[i], "needs a shell to expand it");
        if (line[i] == '\\' && i + 1 < line.size() &&
            std::string_view("$`\"\\\n").find(line[i + 1]) != std::string_view::npos) {
          if (line[++i] != '\n') word += line[i];
        } else {
          word += line[i];
        }
      }
      if (i >= line.size()) throw Error(kField, "a \" quote is not closed");
    } else if (c == '$' || c == '`') {
      refuse(c, "needs a shell to expand it");
    } else if (std::string_view(";|&<>()").find(c) != std::string_view::npos) {
      refuse(c, "joins commands or redirects: kvplan reads one command");
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

namespace {
/// The value of launch flag `name` at w[i] ("--flag=value", or the next word, which `i` then passes);
/// "" for a flag without one. Throws naming `name` when a value is missing or not wanted.
std::string take_value(const std::vector<std::string>& w, std::size_t& i, const std::string& name,
                       bool wants) {
  const std::size_t eq = w[i].find('=');
  if (eq != std::string::npos) {
    if (!wants) throw Error(name, "takes no value (in --from-launch)");
    return w[i].substr(eq + 1);
  }
  if (!wants) return "";
  // llama.cpp's bare -fa (before its value became on/off/auto) is flash attention on.
  if ((name == "-fa" || name == "--flash-attn") && (i + 1 >= w.size() || w[i + 1].rfind('-', 0) == 0))
    return "on";
  if (i + 1 >= w.size()) throw Error(name, "needs a value (in --from-launch)");
  return w[++i];
}

/// The values kvplan models only in part: -ngl, -fa and --dtype.
void check_value(const std::string& name, const std::string& value) {
  if (name == "-ngl" || name == "--gpu-layers" || name == "--n-gpu-layers") check_gpu_layers(name, value);
  if (name == "-fa" || name == "--flash-attn") flash_attention_off(name, value);
  if (name == "--dtype") check_auto_dtype(name, value);
}

/// What the engine does when the line leaves a flag out, where kvplan's default differs. `out` holds the
/// line's kvplan arguments, `others` the rest of the command.
void add_engine_defaults(const Program& p, const std::vector<std::string>& others,
                         std::vector<std::string>& out) {
  const auto anywhere = [&](std::string_view flag) {
    return std::find(out.begin(), out.end(), flag) != out.end() || given(others, flag);
  };
  if (!anywhere("--context") && !anywhere("--ctx-size"))
    throw Error(kField, std::string(p.command) + " without " + std::string(context_flag(p.engine)) +
                            " takes the model's own context length, which kvplan does not derive: give " +
                            std::string(context_flag(p.engine)));
  // llama-server without -np (or -np -1): 4 slots sharing one unified cache (-np -1 = auto, with
  // --kv-unified on when the slots are auto; llama.cpp PR #16736, 2025-10, and #17997), the engine version
  // kvplan defaults to. An --engine-version given beside the line may predate it (2025-08: one slot).
  if (p.engine == "llamacpp" && !anywhere("--users") && !given(others, "--engine-version")) {
    out.insert(out.end(), {"--users", "4"});
    if (!anywhere("--kv-unified")) out.emplace_back("--kv-unified");
  }
}
}  // namespace

std::vector<std::string> launch_arguments(std::string_view line, const std::vector<std::string>& others) {
  const std::vector<std::string> w = shell_words(line);
  if (w.empty()) throw Error(kField, "is empty");
  const Program p = program(w);
  std::vector<std::string> out{"--engine", std::string(p.engine)};
  note_typed("--engine", kField);
  std::optional<std::string> model = p.model;
  std::optional<std::pair<std::string, std::string>> data_parallel;  // the flag and its value
  bool dp_attention = false;
  const auto flags = flags_of(p.engine);
  for (std::size_t i = p.first; i < w.size(); ++i) {
    if (w[i].size() < 2 || w[i][0] != '-')
      throw Error(kField, "'" + printable(w[i]) + "' (" + std::string(p.command) +
                              "): an argument kvplan does not read; remove it to plan without it");
    const std::string name = w[i].substr(0, w[i].find('='));
    const auto f =
        std::find_if(flags.begin(), flags.end(), [&](const LaunchFlag& x) { return listed(x.names, name); });
    if (f == flags.end())
      throw Error(kField, printable(name) + " (" + std::string(p.command) +
                              "): not modelled by kvplan; remove it to plan without it");
    const bool wants = f->kind == Kind::value || f->kind == Kind::model || f->kind == Kind::data_parallel ||
                       (f->kind == Kind::skip && f->takes_value);
    const std::string value = take_value(w, i, name, wants);
    check_value(name, value);
    if ((name == "-fa" || name == "--flash-attn") && flash_attention_off(name, value)) {
      note_typed("--no-flash-attn", name);
      out.emplace_back("--no-flash-attn");
    }
    if (f->kind == Kind::model) {
      if (model) throw Error(name, "a second model in the launch line (in --from-launch)");
      model = value;
    } else if (f->kind == Kind::value && !(f->kvplan == "--users" && value == "-1")) {  // -np -1: auto
      note_typed(f->kvplan, name);
      out.insert(out.end(), {std::string(f->kvplan), value});
    } else if (f->kind == Kind::flag) {
      note_typed(f->kvplan, name);
      out.emplace_back(f->kvplan);
    } else if (f->kind == Kind::data_parallel) {
      data_parallel = {name, value};
    } else if (f->kind == Kind::dp_attention) {
      dp_attention = true;
    }
  }
  // After every flag: the data-parallel layout needs the tp and pp, wherever they stood.
  if (data_parallel)
    add_data_parallel(p.engine, data_parallel->first, data_parallel->second, dp_attention, out);
  // Every engine needs its model (size has no default model).
  if (!model) throw Error(kField, "names no model (" + std::string(p.command) + ")");
  add_engine_defaults(p, others, out);
  out.insert(out.begin() + 2, *model);
  return out;
}

}  // namespace kvplan::cli
