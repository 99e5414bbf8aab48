#include "launch.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <span>

#include "aliases.hpp"
#include "kvplan/error.hpp"
#include "kvplan/fit.hpp"
#include "kvplan/format.hpp"
#include "kvplan/options.hpp"
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
  refuse,         ///< a flag whose effect kvplan does not model: refused, `kvplan` saying what it changes
  sequences,      ///< one scheduler's concurrent sequences: kvplan's --users (add_sequences), and
                  ///< `kvplan` too where it is not empty (vLLM's --max-num-seqs also sizes its sampler)
};

/// How the engine reads a flag's number, where kvplan's own rule would read more (a suffix, a separator).
enum class Num {
  any,      ///< not a count, or read as kvplan reads its flag
  integer,  ///< Python's int (argparse type=int; click's INT): digits only, else the engine refuses the line
  stoi,     ///< std::stoi (llama.cpp common/arg.cpp common_params_parse_ex: handler_int(params,
            ///< std::stoi(value))): it stops at the first other character, so "32K" is silently 32
  human,    ///< vLLM's human_readable_int (vllm/engine/arg_utils.py: max_model_len, max_num_batched_tokens,
            ///< kv_cache_memory_bytes): k m g t decimal, K M G T binary, as kvplan's parse_tokens
};

/// One launch flag of one engine.
struct LaunchFlag {
  std::string_view names;   ///< the engine's spellings, comma-separated
  std::string_view kvplan;  ///< kvplan's flag ("" for model and skip)
  Kind kind = Kind::value;
  bool takes_value = true;  ///< skip: whether a value follows
  Num num = Num::any;       ///< how the engine reads the value's number
};

// vllm/engine/arg_utils.py (EngineArgs.add_cli_args) and vllm/entrypoints/openai/cli_args.py.
// The ints are Python's int but for the three human_readable_ints (arg_utils.py _compute_kwargs).
constexpr std::array<LaunchFlag, 27> kVllm{{
    {"--model", "", Kind::model},
    // fp8 only: the weights quantised at load (core's apply_weight_dtype; check_value refuses the others).
    {"-q,--quantization", "--weight-dtype"},
    {"-dp,--data-parallel-size", "", Kind::data_parallel, true, Num::integer},
    {"--enable-expert-parallel", "", Kind::dp_attention, false},
    {"--dtype", "", Kind::skip},  // auto only (check_auto_dtype)
    {"--max-model-len", "--context", Kind::value, true, Num::human},
    {"-tp,--tensor-parallel-size", "--tp", Kind::value, true, Num::integer},
    {"-pp,--pipeline-parallel-size", "--pp", Kind::value, true, Num::integer},
    {"--kv-cache-dtype", "--kv-dtype"},
    {"--gpu-memory-utilization", "--gpu-util"},
    {"--max-num-batched-tokens", "--max-num-batched-tokens", Kind::value, true, Num::human},
    // SchedulerConfig.max_num_seqs: the sequences each scheduler (each data-parallel rank) runs at once, so
    // kvplan's --users (times the ranks), as SGLang's --max-running-requests is read; and the profile run's
    // sampler sequences in the memory budget (budget.hpp), kvplan's --max-num-seqs.
    {"--max-num-seqs", "--max-num-seqs", Kind::sequences, true, Num::integer},
    // The pinned pool (kvplan fit's lines carry it), in bytes read by human_readable_int.
    {"--kv-cache-memory-bytes", "--kv-memory", Kind::value, true, Num::human},
    {"--block-size", "--block-size", Kind::value, true, Num::integer},
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
    // A data-parallel group over several nodes: each node's share and address; the figures are per GPU.
    {"-dpl,--data-parallel-size-local,-dpa,--data-parallel-address,-dpp,--data-parallel-rpc-port,-dpr,"
     "--data-parallel-start-rank",
     "", Kind::skip},
    {"--headless", "", Kind::skip, false},
    {"--tool-call-parser,--reasoning-parser,--chat-template", "", Kind::skip},
}};

// sglang/srt/server_args.py (ServerArgs.add_cli_args): every count is argparse's type=int.
// --max-running-requests is the concurrent requests each scheduler holds (model_runner: divided among the
// DP attention ranks, whole for each plain data-parallel replica): kvplan's --users (add_sequences; fit's
// SGLang lines write it so). --max-total-tokens caps the profiled pool (model_runner.py init_memory_pool:
// max_total_num_tokens = min(profiled, max_total_tokens), then floored to pages): kvplan's --max-tokens.
constexpr std::array<LaunchFlag, 21> kSglang{{
    {"--quantization", "--weight-dtype"},  // fp8 only, as vLLM's (check_value)
    {"--model-path,--model", "", Kind::model},
    {"--dp,--dp-size,--data-parallel-size", "", Kind::data_parallel, true, Num::integer},
    {"--enable-dp-attention", "", Kind::dp_attention, false},
    // Expert parallel within tp: the routed experts are split over the tp GPUs whatever the EP size (ep
    // groups of tp / ep ranks each split theirs), so no figure changes (kvplan fit's DP attention lines).
    {"--ep-size,--expert-parallel-size", "", Kind::skip},
    {"--dtype", "", Kind::skip},  // auto only (check_auto_dtype)
    {"--context-length", "--context", Kind::value, true, Num::integer},
    {"--max-running-requests", "", Kind::sequences, true, Num::integer},
    {"--max-total-tokens", "--max-tokens", Kind::value, true, Num::integer},
    {"--tp,--tp-size,--tensor-parallel-size", "--tp", Kind::value, true, Num::integer},
    {"--pp-size,--pipeline-parallel-size", "--pp", Kind::value, true, Num::integer},
    {"--kv-cache-dtype", "--kv-dtype"},
    {"--mem-fraction-static", "--gpu-util"},
    {"--page-size", "--block-size", Kind::value, true, Num::integer},
    {"--swa-full-tokens-ratio", "--swa-full-tokens-ratio"},
    {"--revision", "--revision"},
    // The prefill chunk: the pool's share of memory only through SGLang's default --mem-fraction-static
    // (server_args.py reserves max(chunked_prefill_size, 2048) x 1.5 MB of activations for it), which
    // kvplan computes for the default chunk: read only beside --mem-fraction-static (add_engine_defaults).
    {"--chunked-prefill-size", "", Kind::skip, true, Num::integer},
    // server_args.py "TP size for MoE dense MLP layers"; 1 is the DP dense FFN of SGLang's DeepSeek
    // recipes (deepseek_v2.py builds the dense layers' MLP at that tp).
    {"--moe-dense-tp-size",
     "sets the tp of the dense MLP layers (1: each GPU holds them whole), whose weights "
     "kvplan splits over --tp: not modelled",
     Kind::refuse},
    // Nodes: a DP attention (or tp) group over --nnodes is one deployment; the figures are per GPU.
    {"--nnodes,--node-rank,--dist-init-addr", "", Kind::skip},
    {"--host,--port,--served-model-name,--api-key,--log-level,--tokenizer-path,--chat-template", "",
     Kind::skip},
    {"--trust-remote-code,--enable-metrics", "", Kind::skip, false},
}};

// llama.cpp common/arg.cpp (llama-server). -c is every slot's cells together: kvplan's --ctx-size. Every
// count is read with std::stoi (Num::stoi).
constexpr std::array<LaunchFlag, 17> kLlamacpp{{
    {"-m,--model", "", Kind::model},
    // The model from the Hub (common/arg.cpp): -hf ORG/NAME[:quant] as kvplan's ORG/NAME[:TAG], and -hff a
    // file of that repo by its path, over the quant (common/download.cpp).
    {"-hf,-hfr,--hf-repo", "", Kind::model},
    {"-hff,--hf-file", "--hf-file"},
    {"-c,--ctx-size", "--ctx-size", Kind::value, true, Num::stoi},
    {"-np,--parallel", "--users", Kind::value, true, Num::stoi},
    // A type given alone leaves the other at llama.cpp's f16 (common.h cache_type_k / cache_type_v:
    // GGML_TYPE_F16): add_engine_defaults adds it.
    {"-ctk,--cache-type-k", "--k-dtype"},
    {"-ctv,--cache-type-v", "--v-dtype"},
    {"-ub,--ubatch-size", "--ubatch", Kind::value, true, Num::stoi},
    // n_batch: llama_context takes n_ubatch = min(n_batch, n_ubatch) (src/llama-context.cpp), so a -b
    // under the micro-batch is the micro-batch (add_engine_defaults); the KV cache is otherwise unchanged.
    {"-b,--batch-size", "", Kind::skip, true, Num::stoi},
    {"--swa-full", "--swa-full", Kind::flag},
    // -kvu / -no-kvu (common/arg.cpp): the last given wins; without -np the server turns it on anyway
    // (tools/server/server.cpp: n_parallel auto -> 4 slots, kv_unified = true).
    {"-kvu,--kv-unified", "--kv-unified", Kind::flag},
    {"-no-kvu,--no-kv-unified", "", Kind::skip, false},
    // llama_kv_cache puts a layer's cache on its layer's device only with offload on
    // (src/llama-kv-cache.cpp).
    {"-nkvo,--no-kv-offload", "keeps the whole KV cache in host memory, not on the GPUs kvplan plans",
     Kind::refuse, false},
    {"--host,--port,-a,--alias,--api-key,-t,--threads,--chat-template", "", Kind::skip},
    {"--jinja,--no-webui,--metrics", "", Kind::skip, false},
    // -ngl is checked with the model (apply_launch_checks); -fa off is --no-flash-attn (flash_attention_off).
    {"-ngl,--gpu-layers,--n-gpu-layers", "", Kind::skip, true, Num::stoi},
    {"-fa,--flash-attn", "", Kind::skip},
}};

// tensorrt_llm/commands/serve.py (trtllm-serve, its `serve` command's click options). Its counts are click's
// INT: digits only. --max_batch_size is the requests its scheduler holds: kvplan's --users, as vLLM's
// --max-num-seqs is read. --kv_cache_free_gpu_memory_fraction and --max_num_tokens are the memory budget's
// fraction and profile tokens (budget.hpp trtllm_budget). --backend: the PyTorch backend only (check_value).
// --config / --extra_llm_api_options name a YAML file kvplan does not read: refused, saying what to give.
constexpr std::array<LaunchFlag, 13> kTrtllm{{
    {"--tp_size,--tensor_parallel_size", "--tp", Kind::value, true, Num::integer},
    {"--pp_size,--pipeline_parallel_size", "--pp", Kind::value, true, Num::integer},
    {"--max_seq_len", "--context", Kind::value, true, Num::integer},
    {"--max_batch_size", "", Kind::sequences, true, Num::integer},
    {"--max_num_tokens", "--max-num-batched-tokens", Kind::value, true, Num::integer},
    {"--free_gpu_memory_fraction,--kv_cache_free_gpu_memory_fraction", "--gpu-util"},
    {"--revision", "--revision"},
    {"--backend", "", Kind::skip},
    // Expert parallel within tp (moe_tp_size x moe_ep_size = tp_size): the routed experts are split over
    // the tp GPUs either way, so no figure changes.
    {"--ep_size,--moe_expert_parallel_size", "", Kind::skip, true, Num::integer},
    {"--config,--extra_llm_api_options",
     "reads a YAML file of LLM API options (kv_cache_config's dtype, max_tokens, tokens_per_block) that "
     "kvplan "
     "does not read: give them as --kv-dtype, --max-tokens and --block-size",
     Kind::refuse},
    {"--host,--port,--log_level,--tokenizer,--served_model_name,--reasoning_parser,--tool_parser,"
     "--chat_template,--num_postprocess_workers,--gpus_per_node",
     "", Kind::skip},
    {"--trust_remote_code,--enable_chunked_prefill", "", Kind::skip, false},
    {"--max_beam_width", "", Kind::skip, true, Num::integer},  // checked: 1 only (check_value)
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

/// The number std::stoi reads from `value` (leading blanks, a sign, digits: it stops at the first other
/// character), or nullopt when it reads none (std::stoi throws, and llama-server refuses the line).
std::optional<std::string> stoi_prefix(std::string_view value) {
  std::size_t i = 0;
  while (i < value.size() && std::string_view(" \t\n\r\f\v").find(value[i]) != std::string_view::npos) ++i;
  const std::size_t start = i;
  if (i < value.size() && (value[i] == '-' || value[i] == '+')) ++i;
  const std::size_t digits = i;
  while (i < value.size() && value[i] >= '0' && value[i] <= '9') ++i;
  if (i == digits) return std::nullopt;
  return std::string(value.substr(start, i - start));
}

/// Whether `value` is an integer as the engine writes one: an optional '-' (or '+'), then digits.
bool plain_integer(std::string_view value) {
  if (!value.empty() && (value.front() == '-' || value.front() == '+')) value.remove_prefix(1);
  return !value.empty() &&
         std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Checks the value of a launch flag read as the engine reads its number (Num), and returns it as kvplan's
/// flag takes it. Throws kvplan::Error(name, ...) where the engine would read another number, or refuse it.
std::string engine_number(Num num, const std::string& name, const std::string& value,
                          std::string_view command) {
  const std::string shown = "'" + printable(value) + "'";
  switch (num) {
    case Num::any: return value;
    case Num::integer:
      if (!plain_integer(value))
        throw Error(name, shown + ": " + std::string(command) +
                              " reads an integer here (Python's int), and refuses it: give the digits");
      return value;
    case Num::stoi: {
      // -ngl's words are read before the number (common/arg.cpp: "auto" -1, "all" -2).
      if ((name == "-ngl" || name == "--gpu-layers" || name == "--n-gpu-layers") &&
          (value == "auto" || value == "all"))
        return value;
      if (plain_integer(value)) {
        // std::stoi throws std::out_of_range past int's range, and llama-server refuses the line.
        const std::string_view digits =
            std::string_view(value).substr(value.front() == '-' || value.front() == '+');
        const std::size_t first = digits.find_first_not_of('0');
        const std::string_view significant = first == std::string_view::npos ? "0" : digits.substr(first);
        if (significant.size() > 10 || (significant.size() == 10 && significant > "2147483647"))
          throw Error(name, shown +
                                ": llama-server reads it with std::stoi (common/arg.cpp), which refuses a "
                                "number past 2,147,483,647 (out of range)");
        return value;
      }
      const auto read = stoi_prefix(value);
      throw Error(name, shown + ": llama-server reads it with std::stoi (common/arg.cpp), " +
                            (read ? "which stops at the first other character and takes " + *read
                                  : std::string("which reads no number from it and refuses the line")) +
                            ": give the digits");
    }
    case Num::human:
      // human_readable_int's regex and int() take no thousands separator, which kvplan's own flags do.
      if (value.find(',') != std::string::npos)
        throw Error(name, shown + ": vLLM's human_readable_int refuses a thousands separator");
      // Its suffixes are one letter (k m g t decimal, K M G T binary): "32Ki" matches none.
      if (value.size() >= 2 && value.back() == 'i' &&
          std::isalpha(static_cast<unsigned char>(value[value.size() - 2])))
        throw Error(name, shown +
                              ": vLLM's human_readable_int takes one-letter suffixes (k, m, g, t: x 1000; "
                              "K, M, G, T: x 1024), not '" +
                              value.substr(value.size() - 2) + "'");
      // --kv-cache-memory-bytes is bytes by the token rule (40G = 40 x 2^30); kvplan's --kv-memory reads
      // units, so it gets the number.
      if (name == "--kv-cache-memory-bytes") return std::to_string(parse_tokens(value, name).value);
      return value;
  }
  return value;
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
/// The checkpoint's own dtype named (bfloat16 over a bf16 checkpoint) is auto's plan too: it is checked
/// with the model (apply_launch_checks). vllm/config/model.py _STR_DTYPE_TO_TORCH_DTYPE (SGLang's
/// model_config.py the same): half / float16, bfloat16, float / float32.
LaunchChecks& checks();

std::optional<DType> launch_dtype(std::string_view value) {
  if (value == "half" || value == "float16") return DType::fp16;
  if (value == "bfloat16") return DType::bf16;
  if (value == "float" || value == "float32") return DType::fp32;
  return std::nullopt;
}

void check_auto_dtype(std::string_view flag, std::string_view value) {
  if (value == "auto") return;
  if (launch_dtype(value)) {
    checks().dtype = value;
    return;
  }
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

/// The values kvplan models only in part: -fa and --dtype (-ngl is checked with the model:
/// apply_launch_checks).
void check_value(const std::string& name, const std::string& value) {
  if (name == "-fa" || name == "--flash-attn") flash_attention_off(name, value);
  if (name == "--dtype") check_auto_dtype(name, value);
  // --quantization fp8 over an unquantised checkpoint is the engine's quantisation at load, kvplan's
  // --weight-dtype fp8_e4m3; a checkpoint's own method (awq, gptq, compressed-tensors ...) is read from its
  // config.json, and naming another one is refused by vLLM (vllm/config/model.py _verify_quantization).
  if ((name == "--quantization" || name == "-q") && value != "fp8")
    throw Error(kField, name + " " + value +
                            ": kvplan reads fp8 only (the weights quantised at load); a checkpoint quantised "
                            "so is read from its config.json: remove the flag");
  // trtllm-serve: the PyTorch backend's KV cache and budget are the ones kvplan models (engine_trtllm.cpp,
  // trtllm_budget); the TensorRT engine backend sizes its cache otherwise. Beams other than 1 keep a cache
  // per beam, which kvplan does not plan.
  if (name == "--backend" && value != "pytorch")
    throw Error(kField,
                name + " " + value + ": kvplan models TensorRT-LLM's PyTorch backend only (its default)");
  if (name == "--max_beam_width" && value != "1")
    throw Error(kField,
                name + " " + value + ": beam search keeps a KV cache per beam, which kvplan does not plan");
}

/// What the line gave that the engines read together (each flag and its value, as typed).
struct LineState {
  std::optional<std::pair<std::string, std::string>> data_parallel;  ///< -dp / --dp N
  std::optional<std::pair<std::string, std::string>> sequences;  ///< --max-num-seqs / --max-running-requests
  std::optional<std::pair<std::string, std::string>> batch;      ///< llama.cpp -b
  std::optional<std::string> chunked_prefill;                    ///< SGLang --chunked-prefill-size
  std::optional<std::string> dp_attention;                       ///< --enable-dp-attention as typed
  bool no_kv_unified = false;  ///< llama.cpp's last of -kvu / -no-kvu was -no-kvu
};

LaunchChecks& checks() {
  static LaunchChecks c;
  return c;
}

/// The value after kvplan flag `flag` in `out` (nullptr when none).
std::string* value_in(std::vector<std::string>& out, std::string_view flag) {
  const auto it = std::find(out.begin(), out.end(), flag);
  return it == out.end() || it + 1 == out.end() ? nullptr : &*(it + 1);
}

/// One scheduler's sequences (vLLM --max-num-seqs, SGLang --max-running-requests) as kvplan's --users: every
/// scheduler's together. vLLM has one per data-parallel rank (SchedulerConfig per engine core), replicas or
/// DP attention alike; SGLang one per plain data-parallel replica, while its DP attention ranks share the
/// value (model_runner: max_running_requests // dp_size under enable_dp_attention).
void add_sequences(const Program& p, const LineState& st, bool attention, std::vector<std::string>& out) {
  const auto& [flag, value] = *st.sequences;
  std::uint64_t n = parse_count(value, flag);
  if (st.data_parallel && (p.engine == "vllm" || !attention))
    n = checked_mul(n, parse_count(st.data_parallel->second, st.data_parallel->first), flag);
  note_typed("--users", flag);
  out.insert(out.end(), {"--users", std::to_string(n)});
}

/// What the engine does when the line leaves a flag out, where kvplan's default differs, and the flags the
/// engine reads together. `out` holds the line's kvplan arguments, `others` the rest of the command.
void add_engine_defaults(const Program& p, const LineState& st, const std::vector<std::string>& others,
                         std::vector<std::string>& out) {
  const auto anywhere = [&](std::string_view flag) {
    return std::find(out.begin(), out.end(), flag) != out.end() || given(others, flag);
  };
  // llama-server without -c takes n_ctx_train and then shrinks it (down to 4,096) until the model fits the
  // devices' free memory (common/common.h: n_ctx = 0, fit_params = true; llama_params_fit), which kvplan
  // does not follow; -c 0 takes n_ctx_train whole (common/arg.cpp sets fit_params_min_ctx = UINT32_MAX).
  // vLLM, SGLang and TensorRT-LLM without their context flag take the limit they derive from the config
  // (context_limit.hpp): kvplan's --context max.
  if (!anywhere("--context") && !anywhere("--ctx-size")) {
    if (p.engine == "llamacpp")
      throw Error(kField, std::string(p.command) + " without " + std::string(context_flag(p.engine)) +
                              " takes the model's trained context shrunk to fit the free memory "
                              "(llama_params_fit), which kvplan does not follow: give -c N, or -c 0 for the "
                              "whole trained context");
    out.insert(out.end(), {"--context", "max"});
  }
  // SGLang reserves activation memory for the prefill chunk in its default mem_fraction_static
  // (server_args.py: max(chunked_prefill_size, 2048) x 1.5 MB), which kvplan computes for the default chunk
  // (budget.cpp sglang_batch_defaults); beside a fraction given, the chunk changes no figure.
  if (st.chunked_prefill && !anywhere("--gpu-util"))
    throw Error(
        *st.chunked_prefill,
        "changes SGLang's default --mem-fraction-static (server_args.py reserves max(chunk, 2048) x "
        "1.5 MB for it), which kvplan computes for the default chunk: give --mem-fraction-static too");
  // SGLang's _handle_data_parallelism (server_args.py) turns DP attention off at dp_size 1, the default.
  if (st.dp_attention && p.engine == "sglang" && !st.data_parallel)
    checks().warnings.push_back(*st.dp_attention +
                                " without --dp: SGLang turns DP attention off when dp_size is 1 "
                                "(server_args.py _handle_data_parallelism); planned without it");
  if (p.engine != "llamacpp") return;
  // A K or V type given alone leaves the other at llama.cpp's default f16 (common/common.h).
  // An error about that type then names the engine's flag for it (-ctv), not kvplan's --v-dtype.
  if (anywhere("--k-dtype") != anywhere("--v-dtype") && !anywhere("--kv-dtype")) {
    const bool v = anywhere("--k-dtype");
    note_typed(v ? "--v-dtype" : "--k-dtype", v ? "-ctv" : "-ctk");
    out.insert(out.end(), {v ? "--v-dtype" : "--k-dtype", "f16"});
  }
  // n_ubatch = min(n_batch, n_ubatch) (src/llama-context.cpp llama_context::llama_context), n_batch 2048
  // when -b is not given (common/common.h common_params::n_batch).
  {
    constexpr std::uint64_t kDefaultBatch = 2048;
    const std::uint64_t b = st.batch ? parse_count(st.batch->second, st.batch->first) : kDefaultBatch;
    std::string* ub = value_in(out, "--ubatch");
    const auto* spec = find_engine_option("ubatch");
    const std::uint64_t ubatch = ub != nullptr
                                     ? parse_count(*ub, typed_flag("--ubatch"))
                                     : spec->engine_default.at(static_cast<std::size_t>(Engine::llamacpp));
    if (b < ubatch) {
      if (st.batch)
        note_typed("--ubatch", st.batch->first);
      else
        checks().warnings.push_back(typed_flag("--ubatch") + " " + std::to_string(ubatch) +
                                    " past llama.cpp's default -b 2048: it runs micro-batches of 2048 "
                                    "(n_ubatch = min(n_batch, n_ubatch)), as planned; give -b to raise it");
      if (ub != nullptr)
        *ub = std::to_string(b);
      else
        out.insert(out.end(), {"--ubatch", std::to_string(b)});
    }
  }
  // llama-server without -np (or -np -1): 4 slots sharing one unified cache (-np -1 = auto, with
  // --kv-unified on when the slots are auto, whatever -no-kvu said: tools/server/server.cpp; llama.cpp PR
  // #16736, 2025-10, and #17997), the engine version kvplan defaults to. An --engine-version given beside
  // the line may predate it (2025-08: one slot).
  if (!anywhere("--users") && !given(others, "--engine-version")) {
    out.insert(out.end(), {"--users", "4"});
    if (!anywhere("--kv-unified")) out.emplace_back("--kv-unified");
    if (st.no_kv_unified)
      checks().warnings.push_back(
          "--no-kv-unified: llama-server without -np (slots auto) turns kv_unified on anyway "
          "(tools/server/server.cpp), as planned");
  }
}
}  // namespace

const LaunchChecks& launch_checks() { return checks(); }

void clear_launch_checks() { checks() = {}; }

void apply_launch_checks(ModelSpec& m) {
  const LaunchChecks& c = checks();
  m.warnings.insert(m.warnings.end(), c.warnings.begin(), c.warnings.end());
  // --dtype naming the unquantised checkpoint's own dtype changes nothing; another casts it.
  if (!c.dtype.empty() &&
      (m.quant.method != WeightQuant::Method::none || launch_dtype(c.dtype) != m.weight_dtype ||
       m.expert_weight_dtype != m.weight_dtype))
    throw Error("--dtype", "'" + printable(c.dtype) + "': " + m.id + "'s checkpoint is " +
                               std::string(name(m.weight_dtype)) +
                               (m.quant.method != WeightQuant::Method::none ? " (quantised)" : "") +
                               "; kvplan plans the checkpoint's dtype (auto, or its own dtype named): give "
                               "--weight-dtype and --kv-dtype for another");
  if (c.gpu_layers_flag.empty() || c.gpu_layers == "auto" || c.gpu_layers == "all") return;
  // common/arg.cpp: "auto" is -1, "all" -2; a count is std::stoi's. src/llama-model.cpp load_tensors:
  // the last n of the n_layer repeating layers are offloaded (i_gpu_start = n_layer - n), and the output
  // layer only when n > n_layer; each layer's KV cache lives on its layer's device (llama-kv-cache.cpp).
  const long long n = std::stoll(c.gpu_layers);
  if (n < 0) return;
  const std::uint64_t layers = num_layers(m) - m.draft_layers;
  const auto count = static_cast<std::uint64_t>(n);
  if (count > layers) return;
  if (count == layers) {
    m.warnings.push_back(c.gpu_layers_flag + " " + c.gpu_layers +
                         ": llama.cpp keeps the output layer on the " +
                         "CPU (offloaded only past the model's " + format_count(layers) +
                         " layers, src/llama-model.cpp); the weights per GPU count it");
    return;
  }
  throw Error(c.gpu_layers_flag,
              "'" + c.gpu_layers + "': llama.cpp keeps the first " + format_count(layers - count) + " of " +
                  m.name + "'s " + format_count(layers) +
                  " layers on the CPU with their KV cache (src/llama-kv-cache.cpp: a layer's cache on its "
                  "layer's device); kvplan plans every layer on the GPU: give " +
                  std::to_string(layers + 1) + " or more, all or 999");
}

std::vector<std::string> launch_arguments(std::string_view line, const std::vector<std::string>& others) {
  clear_launch_checks();
  const std::vector<std::string> w = shell_words(line);
  if (w.empty()) throw Error(kField, "is empty");
  const Program p = program(w);
  std::vector<std::string> out{"--engine", std::string(p.engine)};
  note_typed("--engine", kField);
  // NAME=value words before the command: the engine's long-context setting is the one that changes a plan
  // (the context warning); the others change no memory kvplan models.
  for (std::size_t i = 0; i < w.size() && assignment(w[i]); ++i)
    if (long_context_env_on(parse_engine(p.engine, kField), w[i])) checks().long_context_allowed = true;
  std::optional<std::string> model = p.model;
  LineState st;
  bool dp_attention = false;
  const auto flags = flags_of(p.engine);
  std::string after;  // the last flag with its value, for a stray word after it
  for (std::size_t i = p.first; i < w.size(); ++i) {
    if (w[i].size() < 2 || w[i][0] != '-')
      throw Error(kField, "'" + printable(w[i]) + "' (" + std::string(p.command) + "): " +
                              (after.empty() ? std::string("an argument kvplan does not read")
                                             : "a stray word after " + after + ", which " +
                                                   std::string(p.command) + " would refuse too") +
                              "; remove it, or quote a value with blanks");
    const std::string name = w[i].substr(0, w[i].find('='));
    const auto f =
        std::find_if(flags.begin(), flags.end(), [&](const LaunchFlag& x) { return listed(x.names, name); });
    if (f == flags.end())
      throw Error(kField, printable(name) + " (" + std::string(p.command) +
                              "): not modelled by kvplan; remove it to plan without it");
    if (f->kind == Kind::refuse)
      throw Error(kField, printable(name) + " (" + std::string(p.command) + ") " + std::string(f->kvplan) +
                              "; remove it to plan without it");
    const bool wants = f->kind == Kind::value || f->kind == Kind::model || f->kind == Kind::data_parallel ||
                       f->kind == Kind::sequences || (f->kind == Kind::skip && f->takes_value);
    const std::string value = engine_number(f->num, name, take_value(w, i, name, wants), p.command);
    after = wants ? printable(name) + " " + printable(value) : std::string();
    check_value(name, value);
    if ((name == "-fa" || name == "--flash-attn") && flash_attention_off(name, value)) {
      note_typed("--no-flash-attn", name);
      out.emplace_back("--no-flash-attn");
    }
    if (name == "-ngl" || name == "--gpu-layers" || name == "--n-gpu-layers")
      checks().gpu_layers_flag = name, checks().gpu_layers = value;
    if (name == "-b" || name == "--batch-size") st.batch = {name, value};
    if (name == "--chunked-prefill-size") st.chunked_prefill = name;
    if (name == "-no-kvu" || name == "--no-kv-unified") {
      st.no_kv_unified = true;
      out.erase(std::remove(out.begin(), out.end(), "--kv-unified"), out.end());
    }
    if (f->kind == Kind::model) {
      if (model) throw Error(name, "a second model in the launch line (in --from-launch)");
      model = value;
    } else if (f->kind == Kind::value && !(f->kvplan == "--users" && value == "-1")) {  // -np -1: auto
      note_typed(f->kvplan, name);
      out.insert(out.end(), {std::string(f->kvplan), value});
    } else if (f->kind == Kind::flag) {
      if (f->kvplan == "--kv-unified") st.no_kv_unified = false;
      note_typed(f->kvplan, name);
      if (std::find(out.begin(), out.end(), f->kvplan) == out.end()) out.emplace_back(f->kvplan);
    } else if (f->kind == Kind::data_parallel) {
      st.data_parallel = {name, value};
    } else if (f->kind == Kind::dp_attention) {
      dp_attention = true;
      st.dp_attention = name;
    } else if (f->kind == Kind::sequences) {
      st.sequences = {name, value};
      if (!f->kvplan.empty()) {
        note_typed(f->kvplan, name);
        out.insert(out.end(), {std::string(f->kvplan), value});
      }
    }
  }
  // After every flag: the data-parallel layout needs the tp and pp, wherever they stood; the sequences
  // the data-parallel ranks.
  if (st.data_parallel)
    add_data_parallel(p.engine, st.data_parallel->first, st.data_parallel->second, dp_attention, out);
  if (st.sequences) add_sequences(p, st, dp_attention, out);
  // Every engine needs its model (size has no default model).
  if (!model) throw Error(kField, "names no model (" + std::string(p.command) + ")");
  add_engine_defaults(p, st, others, out);
  out.insert(out.begin() + 2, *model);
  return out;
}

}  // namespace kvplan::cli
