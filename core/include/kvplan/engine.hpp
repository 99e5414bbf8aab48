#pragma once
/// @file engine.hpp
/// Engine policies: what a serving engine allocates for an exact KV layout. The `ideal` policy is
/// the exact layout (no paging); vllm, sglang, llamacpp and trtllm each follow the engine's own
/// source (cited in each policy's file: core/src/engine_<name>.cpp) and report the figures the
/// engine itself logs, so a prediction can be held against a server's log.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/kv.hpp"
#include "kvplan/model.hpp"

namespace kvplan {

/// Serving engines kvplan models.
enum class Engine { ideal, vllm, sglang, llamacpp, trtllm };

/// "ideal", "vllm", "sglang", "llamacpp", "trtllm".
std::string_view name(Engine e);
/// Where engine `e` puts the layers that pp stages do not divide evenly (Parallelism::split): vLLM on the
/// stages before the last (get_pp_indices), SGLang on the last stages (its get_pp_indices), TensorRT-LLM
/// on the first (Mapping.pp_layers: torch.tensor_split); llama.cpp and ideal as kvplan always split
/// (the first). The engines' manual overrides (VLLM_PP_LAYER_PARTITION, ...) are not modelled.
PipelineSplit pipeline_split(Engine e);

/// Parses an engine name (case-insensitive; "llama.cpp", "tensorrt-llm" accepted).
/// Throws kvplan::Error(field, ...) naming the known engines.
Engine parse_engine(std::string_view text, std::string_view field = "engine");

/// Engine options, each defaulting to the engine's own default (0 or empty = that default).
struct EngineOptions {
  Engine engine = Engine::ideal;
  /// Engine version whose rules apply; empty = the current one. vllm: "v1" (default, 0.11 to 0.19), "0.20",
  /// "0.21" (0.21 to 0.25), "0.26", "v0" (a release number maps to one: vllm_rules_for_release);
  /// llamacpp: "2026" (default), "2025-11", "2025-08" (see engine_llamacpp.cpp for what changed); sglang:
  /// "0.5" (default), "0.4" (their default mem_fraction_static differs: sglang_default_mem_fraction_static).
  std::string version;
  /// vLLM: the release number typed with --engine-version ("0.15.1"), which picks the budget's rules by
  /// release (budget.hpp vllm_budget_release); empty when a rule-set name or nothing was typed.
  std::string release;
  std::uint64_t block_size =
      0;  ///< vLLM block_size (16), TRT-LLM tokens_per_block (32), SGLang page_size (1)
  std::uint64_t max_num_batched_tokens = 0;  ///< vLLM sliding-window / chunk reserve (default 8192)
  /// vLLM max_num_seqs: the sequences of the profile run's sampler (budget.hpp vllm_budget); default 1,024
  /// on GPUs of 70 GiB or more but A100, else 256 (vllm_default_max_num_seqs).
  std::uint64_t max_num_seqs = 0;
  std::uint64_t ubatch = 0;  ///< llama.cpp n_ubatch (512)
  bool swa_full = false;     ///< llama.cpp --swa-full: sliding layers get a full-size cache
  bool kv_unified = false;   ///< llama.cpp --kv-unified: one stream shared by all sequences
  /// llama.cpp -fa off: V stored transposed, every layer's V row padded to the widest layer's
  /// (llama-kv-cache.cpp, TAG_V_CACHE_VARIABLE), and a quantised V refused. -fa on and auto (the default,
  /// which llama_context resolves to on where the device has FLASH_ATTN_EXT) are the same to the cache.
  bool flash_attn_off = false;
  /// llama.cpp n_rs_seq: recurrent-state snapshots per sequence for speculative decoding's rollback
  /// (common.h need_n_rs_seq: --spec-draft-n-max with --spec-type draft-mtp, eagle3, dflash or dspark;
  /// else 0). Each recurrent layer keeps (1 + n_rs_seq) x n_seq_max rows of R and S
  /// (src/llama-memory-recurrent.cpp);
  /// llama.cpp clamps it to 0 on an architecture without rollback (llama-context.cpp).
  std::uint64_t n_rs_seq = 0;
  bool disable_hybrid_kv_cache_manager = false;  ///< vLLM: every layer treated as full attention
  bool fp8_ds_mla = false;  ///< vLLM kv_cache_dtype fp8_ds_mla (656 B per token per MLA layer)
  /// A cap on the pool's tokens (0: none): TRT-LLM KvCacheConfig.max_tokens; SGLang --max-total-tokens
  /// (model_runner.py init_memory_pool: min(profiled, max_total_tokens), read in engine_sglang.cpp).
  std::uint64_t max_tokens = 0;
  double swa_full_tokens_ratio = 0.8;  ///< SGLang --swa-full-tokens-ratio
  /// The engine's setting for a context past its derived limit is on (long_context_env: a launch line's
  /// VLLM_ALLOW_LONG_MAX_MODEL_LEN=1): context_warning says the engine takes it rather than refusing it.
  bool long_context_allowed = false;
  bool operator==(const EngineOptions&) const = default;
};

/// Versions of an engine's rules that kvplan models, the default first (vllm: "v1", "0.20", "0.21", "0.26",
/// "v0"; sglang: "0.5", "0.4"; llamacpp: "2026", "2025-11", "2025-08"); empty for an engine with one version.
/// EngineOptions::version takes one of them (or stays empty for the default).
std::vector<std::string_view> engine_versions(Engine e);

/// Largest values validate_engine_options accepts (tokens): no engine's page, batch or budget comes
/// near them, and past them the byte figures could overflow.
inline constexpr std::uint64_t kMaxEngineBlockSize = 1ULL << 20;
inline constexpr std::uint64_t kMaxEngineBatchedTokens = 1ULL << 30;
inline constexpr std::uint64_t kMaxEngineMaxNumSeqs = 1ULL << 20;
inline constexpr std::uint64_t kMaxEngineUbatch = 1ULL << 20;
inline constexpr std::uint64_t kMaxEngineRsSeq = 1ULL
                                                 << 16;  ///< llama.cpp n_rs_seq (uint32_t; drafts are short)
inline constexpr std::uint64_t kMaxEngineMaxTokens = (1ULL << 31) - 1;  ///< TRT-LLM's int32 SizeType32

/// Checks that every option set away from its default applies to `o.engine` (block_size: vllm, sglang,
/// trtllm; max_num_batched_tokens, disable_hybrid_kv_cache_manager, fp8_ds_mla: vllm; ubatch, swa_full,
/// kv_unified: llamacpp; max_tokens: trtllm, sglang; swa_full_tokens_ratio: sglang, in (0, 1]) and that the
/// version is one of engine_versions(o.engine), that the numbers are within the kMaxEngine* bounds,
/// and that vLLM V0 gets no V1-only option. apply_engine calls it first.
/// Throws kvplan::Error naming the CLI flag of the first offending option.
void validate_engine_options(const EngineOptions& o);

/// One KV buffer as the engine logs it (llama.cpp: the full-attention cache and the SWA cache).
struct EngineCache {
  std::string name;           ///< "full", "swa"
  std::uint64_t cells = 0;    ///< cells (token slots) per stream
  std::uint64_t streams = 1;  ///< llama.cpp streams (sequences when not unified)
  std::uint64_t layers = 0;
  Bytes k_bytes;
  Bytes v_bytes;
};

/// What an engine allocates, per GPU (one tp rank, the fullest pipeline stage), and the figures it logs.
struct EngineResult {
  Engine engine = Engine::ideal;
  std::string rules;                     ///< which engine version's rules, with the source files
  std::uint64_t block_size = 0;          ///< tokens per block/page (0: no paging)
  Bytes page_bytes;                      ///< bytes of one page of one layer (vLLM), of one block (TRT-LLM)
  std::optional<Bytes> bytes_per_token;  ///< per GPU, as the engine stores it; nullopt when meaningless
  std::string per_token_note;            ///< why there is no per-token figure, or what it means
  // With KV memory given:
  std::optional<std::uint64_t> num_blocks;
  std::optional<std::uint64_t>
      kv_cache_tokens;  ///< vLLM "GPU KV cache size", SGLang max_total_num_tokens, TRT-LLM tokens
  std::optional<double> max_concurrency;  ///< requests of the context length, as the engine prints it
  /// Whole requests of the context length the pool holds at once, each in whole blocks/pages (what
  /// make_plan's fits and max_users use; vLLM V0, SGLang and TRT-LLM print tokens / context instead).
  std::optional<std::uint64_t> max_requests;
  std::optional<std::uint64_t>
      max_context;                     ///< longest single request that fits (vLLM's estimate_max_model_len)
  bool max_context_unbounded = false;  ///< every layer windowed: any length fits
  // llama.cpp: the buffers it allocates for the given context and sequences.
  std::vector<EngineCache> caches;
  Bytes kv_bytes_total;  ///< what the engine allocates for the request (llama.cpp: every buffer)
  std::vector<std::string> log_lines;  ///< the lines the engine itself would print
  std::vector<std::string> notes;      ///< what the policy does not model, said plainly
};

/// What every engine answers for one model, KV dtypes, parallelism and options: the uniform interface
/// make_plan's capacity step and fit's search run over. make_policy builds one (the per-layer-group work
/// done once: vLLM's KV cache groups and pages, llama.cpp's buffers per device, the exact layout's
/// bytes per stage); each question is then a few operations per layer group, with no exception and no
/// string built. Figures are per GPU for the fullest pipeline stage of one tp rank, unless named otherwise.
/// A figure past 2^64 bytes is nullopt (it does not fit); a request that needs no memory fits
/// kUnboundedRequests times. Valid while the ModelSpec it was made from lives.
class EnginePolicy {
 public:
  /// max_requests' answer when one request needs no memory at all.
  static constexpr std::uint64_t kUnboundedRequests = ~std::uint64_t{0};
  virtual ~EnginePolicy() = default;
  [[nodiscard]] virtual Engine engine() const = 0;
  /// Bytes the engine holds on the fullest GPU for `n` sequences of `len` tokens (vLLM and TRT-LLM: whole
  /// pages, SGLang: token slots, llama.cpp: its buffers for n_seq_max = n).
  [[nodiscard]] virtual std::optional<Bytes> gpu_bytes(std::uint64_t n, Tokens len) const = 0;
  /// The same over every GPU of one replica (tp x pp GPUs): each stage's share times the tp ranks.
  [[nodiscard]] virtual std::optional<Bytes> replica_bytes(std::uint64_t n, Tokens len) const = 0;
  /// Whole requests of `len` tokens held at once in `memory` bytes per GPU (what make_plan's fits and
  /// max_users use). Non-increasing in len.
  [[nodiscard]] virtual std::uint64_t max_requests(Tokens len, Bytes memory) const = 0;
  /// The longest len at which max_requests(len, memory) >= n; Tokens{0} when not even one token fits;
  /// nullopt when every length fits (every cached layer windowed). The default bisects over
  /// max_requests (64 probes, each O(layer groups)); policies with a closed form per layer group
  /// override it (ideal, SGLang, TRT-LLM, vLLM V0).
  [[nodiscard]] virtual std::optional<Tokens> max_context(std::uint64_t n, Bytes memory) const;
  /// The full report: the buffers, the lines the engine logs and the notes (apply_engine's result).
  /// Throws kvplan::Error on what the engine does not support (a dtype it lacks, tp under llama.cpp).
  [[nodiscard]] virtual EngineResult report(Tokens len, std::uint64_t n,
                                            std::optional<Bytes> memory) const = 0;
};

/// Builds the policy of `o.engine` for the model: validates the model, the parallelism and the options
/// (validate_engine_options) first. Throws kvplan::Error as apply_engine does.
std::unique_ptr<EnginePolicy> make_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                          const EngineOptions& o);

/// Applies an engine policy. `context` is the context per sequence (vLLM's max_model_len, llama.cpp's
/// context per slot), `users` the sequences (llama.cpp n_seq_max), `kv_memory` the KV memory per GPU
/// as the engine logs it (vLLM "Available KV cache memory"); without it no capacity figures.
/// Throws kvplan::Error on options the engine does not support (a dtype it lacks, tp under llama.cpp).
EngineResult apply_engine(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                          std::uint64_t users, const EngineOptions& o, std::optional<Bytes> kv_memory);

/// The ideal policy: the exact layout, no paging; with kv_memory, tokens = memory / bytes per token.
EngineResult ideal_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                          std::uint64_t users, std::optional<Bytes> kv_memory);
/// vLLM V1 (and V0 with version "v0").
EngineResult vllm_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                         const EngineOptions& o, std::optional<Bytes> kv_memory);
/// SGLang's token pool.
EngineResult sglang_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                           const EngineOptions& o, std::optional<Bytes> kv_memory);
/// llama.cpp's KV caches (llama_kv_cache, llama_kv_cache_iswa).
EngineResult llamacpp_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                             std::uint64_t users, const EngineOptions& o, std::optional<Bytes> kv_memory);
/// TensorRT-LLM's paged KV cache (PyTorch backend KVCacheManager).
EngineResult trtllm_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                           const EngineOptions& o, std::optional<Bytes> kv_memory);

/// The share of one layer group a pipeline stage holds: a view of the model's group and the layers
/// of it in the stage. Valid while the ModelSpec it came from lives.
struct StageGroup {
  const AttentionLayer& attention;
  const MlpSpec& mlp;
  std::uint64_t count;
};

/// The layers one pipeline stage (one GPU of a tp rank) holds, as views into the model's groups.
struct StageView {
  Stage stage;
  std::vector<StageGroup> layers;
};

/// The pp stages of pipeline_stages(num_layers(m), pp, m.draft_layers, split), each with the parts of the
/// groups it holds. Nothing of the model is copied: all stages together hold groups + pp - 1 views, so
/// engines can walk them on every probe of a capacity search. Throws kvplan::Error("pp", ...) as
/// pipeline_stages does.
std::vector<StageView> stage_views(const ModelSpec& m, std::uint64_t pp, PipelineSplit split);

/// "1,234.56 MiB"-style helpers for engine log lines: value / 2^20 with `decimals` decimals.
std::string mib(Bytes b, int decimals = 2);
/// value / 2^30 with two decimals, as engines print GiB.
std::string gib(Bytes b);

}  // namespace kvplan
