// The engine option table and the names of kvplan's inputs (options.hpp).
#include "kvplan/options.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <utility>

#include "engine_defaults.hpp"
#include "kvplan/budget.hpp"
#include "kvplan/error.hpp"
#include "kvplan/format.hpp"

namespace kvplan {

namespace {
constexpr std::uint32_t bit(Engine e) { return 1U << static_cast<unsigned>(e); }

// EngineOptionSpec::engine_default from (engine, value) pairs.
constexpr std::array<std::uint64_t, 5> defaults(
    std::initializer_list<std::pair<Engine, std::uint64_t>> values) {
  std::array<std::uint64_t, 5> out{};
  for (const auto& [e, v] : values) out.at(static_cast<std::size_t>(e)) = v;
  return out;
}
constexpr std::array<std::uint64_t, 5> kNoDefault{};

// EngineOptionSpec::launch_flag from (engine, flag) pairs.
constexpr std::array<std::string_view, 5> flags(
    std::initializer_list<std::pair<Engine, std::string_view>> values) {
  std::array<std::string_view, 5> out{};
  for (const auto& [e, v] : values) out.at(static_cast<std::size_t>(e)) = v;
  return out;
}

// One record per engine option; the engines' own defaults come from engine_defaults.hpp, which the
// policies use too (engine_default, for the front ends to show), and are named in each help text.
const std::array<EngineOptionSpec, 11> kEngineOptions{{
    {"block_size", "--block-size", "Block / page size",
     "vLLM block_size (16), TensorRT-LLM tokens_per_block (32), SGLang page_size (1)", OptionKind::count,
     &EngineOptions::block_size, kMaxEngineBlockSize,
     bit(Engine::vllm) | bit(Engine::sglang) | bit(Engine::trtllm), "",
     defaults({{Engine::vllm, engine_defaults::kVllmBlockSize},
               {Engine::sglang, engine_defaults::kSglangPageSize},
               {Engine::trtllm, engine_defaults::kTrtllmTokensPerBlock}}),
     false,
     flags({{Engine::vllm, "--block-size"},
            {Engine::sglang, "--page-size"},
            {Engine::trtllm, "tokens_per_block"}})},
    {"max_num_batched_tokens", "--max-num-batched-tokens", "Max batched tokens",
     "vLLM: sliding-window reserve and the profile run's forward pass (default 8192); TensorRT-LLM "
     "max_num_tokens: the profile run's forward pass, in the memory budget (default 8192)",
     OptionKind::tokens, &EngineOptions::max_num_batched_tokens, kMaxEngineBatchedTokens,
     bit(Engine::vllm) | bit(Engine::trtllm), "v0",
     defaults({{Engine::vllm, engine_defaults::kVllmMaxNumBatchedTokens},
               {Engine::trtllm, kTrtllmDefaultMaxNumTokens}}),
     false, flags({{Engine::vllm, "--max-num-batched-tokens"}, {Engine::trtllm, "--max_num_tokens"}})},
    {"max_num_seqs", "--max-num-seqs", "Max sequences",
     "vLLM: sequences of the profile run's sampler, in the memory budget (default 1024 on GPUs of 70 GiB or "
     "more but A100, else 256)",
     OptionKind::count, &EngineOptions::max_num_seqs, kMaxEngineMaxNumSeqs, bit(Engine::vllm), "v0",
     defaults({{Engine::vllm, 1024}}), false, flags({{Engine::vllm, "--max-num-seqs"}})},
    {"ubatch", "--ubatch", "Micro-batch (n_ubatch)", "llama.cpp n_ubatch (default 512)", OptionKind::count,
     &EngineOptions::ubatch, kMaxEngineUbatch, bit(Engine::llamacpp), "",
     defaults({{Engine::llamacpp, engine_defaults::kLlamacppUbatch}}), false,
     flags({{Engine::llamacpp, "-ub"}})},
    {"swa_full", "--swa-full", "Full-size SWA cache", "llama.cpp: full-size cache for sliding-window layers",
     OptionKind::flag, &EngineOptions::swa_full, 0, bit(Engine::llamacpp), "", kNoDefault, false,
     flags({{Engine::llamacpp, "--swa-full"}})},
    {"kv_unified", "--kv-unified", "Unified KV stream", "llama.cpp: one KV stream shared by all sequences",
     OptionKind::flag, &EngineOptions::kv_unified, 0, bit(Engine::llamacpp), "", kNoDefault, false,
     flags({{Engine::llamacpp, "--kv-unified"}})},
    {"flash_attn_off", "--no-flash-attn", "Flash attention off",
     "llama.cpp -fa off: V padded to the widest layer's, no quantised V (default: auto, as on)",
     OptionKind::flag, &EngineOptions::flash_attn_off, 0, bit(Engine::llamacpp), "", kNoDefault, false,
     flags({{Engine::llamacpp, "-fa off"}})},
    {"n_rs_seq", "--n-rs-seq", "Recurrent rollback states (n_rs_seq)",
     "llama.cpp n_rs_seq: 1 + n recurrent states per sequence (speculative decoding with MTP/EAGLE3 sets it "
     "to --spec-draft-n-max; default 0)",
     OptionKind::count, &EngineOptions::n_rs_seq, kMaxEngineRsSeq, bit(Engine::llamacpp), "", kNoDefault,
     false, flags({{Engine::llamacpp, "--spec-type draft-mtp --spec-draft-n-max"}})},
    {"disable_hybrid_kv_cache_manager", "--disable-hybrid-kv-cache-manager", "No hybrid KV cache manager",
     "vLLM: every layer as full attention", OptionKind::flag, &EngineOptions::disable_hybrid_kv_cache_manager,
     0, bit(Engine::vllm), "v0", kNoDefault, false,
     flags({{Engine::vllm, "--disable-hybrid-kv-cache-manager"}})},
    // SGLang's line writes the pin instead where it pins the pool (fit.cpp sglang_pins_pool).
    {"max_tokens", "--max-tokens", "Max tokens (pool cap)",
     "a cap on the KV pool's tokens: TensorRT-LLM KvCacheConfig.max_tokens, SGLang --max-total-tokens",
     OptionKind::tokens, &EngineOptions::max_tokens, kMaxEngineMaxTokens,
     bit(Engine::trtllm) | bit(Engine::sglang), "", kNoDefault, true,
     flags({{Engine::trtllm, "max_tokens"}, {Engine::sglang, "--max-total-tokens"}})},
    {"swa_full_tokens_ratio", "--swa-full-tokens-ratio", "SWA / full tokens ratio",
     "SGLang: SWA pool / full pool tokens (default 0.8)", OptionKind::ratio,
     &EngineOptions::swa_full_tokens_ratio, 0, bit(Engine::sglang), "", kNoDefault, false,
     flags({{Engine::sglang, "--swa-full-tokens-ratio"}})},
}};

// The other inputs core names in its errors. The GUI's labels are the words its input panel uses.
const std::array<InputName, 30> kInputs{{
    {"tp", "--tp", "tensor parallel (tp)"},
    {"pp", "--pp", "pipeline stages (pp)"},
    {"gpus", "--gpus", "GPUs"},
    {"gpu", "--gpu", "GPU"},
    {"context", "--context", "context"},
    {"users", "--users", "users"},
    {"gpu_util", "--gpu-util", "utilisation"},
    {"weights", "--weights", "weights override"},
    {"reserve", "--overhead", "reserve"},
    {"engine", "--engine", "engine rules"},
    {"engine_version", "--engine-version", "engine version"},
    {"kv_dtype", "--kv-dtype", "KV cache dtype"},
    {"weight_dtype", "--weight-dtype", "weight dtype"},
    {"k_dtype", "--k-dtype", "K cache dtype"},
    {"v_dtype", "--v-dtype", "V cache dtype"},
    {"mamba_cache_dtype", "--mamba-cache-dtype", "recurrent state dtype"},
    {"mamba_ssm_cache_dtype", "--mamba-ssm-cache-dtype", "SSM state dtype"},
    {"kv_memory", "--kv-memory", "KV memory"},
    {"speculative_config", "--speculative-config", "speculative decoding"},
    {"sink_tokens", "--sink-tokens", "sink tokens"},
    {"recent_window", "--recent-window", "recent window"},
    {"max_gpus", "--max-gpus", "most GPUs"},
    {"price_per_gpu_hour", "--price-per-gpu-hour", "price per GPU hour"},
    {"prompt", "--prompt", "prompt"},
    {"vs", "--vs", "compared with"},
    {"efficiency", "--efficiency", "efficiency"},
    {"calibration", "--calibration", "calibration"},
    {"dp_attention", "--dp-attention", "data-parallel attention"},
    {"gpus_per_node", "--gpus-per-node", "GPUs per node"},
    {"revision", "--revision", "revision"},
}};
}  // namespace

std::span<const EngineOptionSpec> engine_option_table() { return kEngineOptions; }

const EngineOptionSpec* find_engine_option(std::string_view key_or_flag) {
  for (const auto& o : kEngineOptions)
    if (o.key == key_or_flag || o.cli_flag == key_or_flag) return &o;
  return nullptr;
}

bool engine_option_set(const EngineOptionSpec& o, const EngineOptions& e) {
  static const EngineOptions d;
  return std::visit([&](auto member) { return e.*member != d.*member; }, o.member);
}

std::string engine_list(std::uint32_t engines) {
  std::vector<std::string> names;
  for (const Engine e : {Engine::ideal, Engine::vllm, Engine::sglang, Engine::llamacpp, Engine::trtllm})
    if ((engines & bit(e)) != 0) names.emplace_back(name(e));
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

bool engine_option_applies(const EngineOptionSpec& o, const EngineOptions& e) {
  return (o.engines & bit(e.engine)) != 0 &&
         (o.not_under_version.empty() || e.version != o.not_under_version);
}

void require_engine_option_applies(const EngineOptionSpec& o, const EngineOptions& e) {
  if ((o.engines & bit(e.engine)) == 0)
    throw Error(std::string(o.key), "applies to `engine` " + engine_list(o.engines));
  if (!o.not_under_version.empty() && e.version == o.not_under_version)
    throw Error(std::string(o.key), "has no effect under vLLM V0's rules (a V1 option)");
}

std::span<const InputName> input_names() {
  static const std::vector<InputName> all = [] {
    std::vector<InputName> v(kInputs.begin(), kInputs.end());
    for (const auto& o : kEngineOptions) v.push_back({o.key, o.cli_flag, o.gui_label});
    return v;
  }();
  return all;
}

std::string_view cli_flag_for(std::string_view key) {
  for (const auto& n : input_names())
    if (n.key == key) return n.cli_flag;
  return key;
}

std::string_view gui_label_for(std::string_view key) {
  for (const auto& n : input_names())
    if (n.key == key) return n.gui_label;
  return key;
}

bool is_input_key(std::string_view key) {
  const auto names = input_names();
  return std::any_of(names.begin(), names.end(), [&](const InputName& n) { return n.key == key; });
}

std::string input_ref(std::string_view key) {
  return is_input_key(key) ? "`" + std::string(key) + "`" : std::string(key);
}

std::string word_inputs(std::string_view text, const std::function<std::string(std::string_view key)>& name) {
  std::string out;
  out.reserve(text.size());
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find('`', at);
    const std::size_t close = open == std::string_view::npos ? open : text.find('`', open + 1);
    if (close == std::string_view::npos) break;
    const std::string_view key = text.substr(open + 1, close - open - 1);
    out.append(text.substr(at, open - at));
    if (is_input_key(key)) {
      out += name(key);
      at = close + 1;
    } else {
      out += '`';  // not an input: the backtick as written, the next one may open a key
      at = open + 1;
    }
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace kvplan
