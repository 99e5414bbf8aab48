// TensorRT-LLM's paged KV cache, after tensorrt_llm/_torch/pyexecutor/resource_manager.py
// (KVCacheManager.get_cache_bytes_per_token, calculate_max_num_blocks) and the C++ KVCacheManager
// (cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp allocatePools):
//  - bytes per token: kv_factor (2; 1 for MLA, SELFKONLY) x sum over local layers of
//    ceil(num_kv_heads / tp) x head_dim x dtype bytes; MLA head_dim = kv_lora_rank + qk_rope_head_dim.
//  - max_tokens = memory // bytes per token (KvCacheCreator), min with the user's max_tokens;
//    blocks = ceil(max_tokens / tokens_per_block) (the budget rounds UP to whole blocks);
//    log "[MemUsageChange] Allocated X GiB for max tokens in paged KV cache (blocks x tokens_per_block)".
#include <algorithm>

#include "engine_common.hpp"
#include "engine_defaults.hpp"
#include "kvplan/format.hpp"
#include "kvplan/kv_spec.hpp"

namespace kvplan {

namespace {
using namespace engine_detail;

/// Bytes per token of each stage as TensorRT-LLM counts them (kv_factor x ceil(kv_heads / tp) x head_dim
/// per layer; MLA: the latent, K only); with a note when windowed layers are counted at full length.
std::vector<Bytes> trtllm_stage_bytes(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                      const GroupClasses& c, bool* windowed) {
  std::vector<Bytes> out;
  for (const auto& stage : class_stage_views(m, p.pp, p.split, c)) {
    Bytes s{0};
    for (const auto& g : stage.layers) {
      const LayerKv kv = layer_kv(g.attention, t, p.tp);
      if (kv.attention.kind == KvKind::none) continue;  // no attention, or another layer's K/V
      if (kv.indexer.kind != KvKind::none)
        throw Error("engine",
                    "TensorRT-LLM's sparse-attention indexer cache (DeepSeek-V3.2) is not modelled by "
                    "kvplan; use vllm, sglang or ideal");
      // MLA: the latent as K only (SELFKONLY). Other layers: ceil(kv_heads / tp) heads, which is the
      // spec's kv_heads_per_rank for every tp validate_tp accepts (tp divides the heads, or they divide
      // tp and each rank keeps one).
      if (kv.attention.windowed()) *windowed = true;
      s += kv.attention.k_bytes * g.count + kv.attention.v_bytes * g.count;
    }
    out.push_back(s);
  }
  return out;
}

/// TensorRT-LLM's paged pool as a policy: a request of L tokens takes cdiv(L, tokens_per_block) blocks;
/// closed form for the longest request.
class TrtllmPolicy final : public PolicyBase {
 public:
  TrtllmPolicy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, const EngineOptions& o,
               const GroupClasses& c)
      : PolicyBase(m, t, p, o),
        stages_(trtllm_stage_bytes(m, t, p, c, &windowed_)),
        tpb_(o.block_size ? o.block_size : engine_defaults::kTrtllmTokensPerBlock) {
    for (const Bytes b : stages_) bpt_ = std::max(bpt_, b);
  }
  [[nodiscard]] std::optional<Bytes> gpu_bytes(std::uint64_t n, Tokens len) const override {
    return bytes(bpt_, n, len.value, 1);
  }
  [[nodiscard]] std::optional<Bytes> replica_bytes(std::uint64_t n, Tokens len) const override {
    return engine_detail::sum_parts(stages_, [&](const auto& b) { return bytes(b, n, len.value, p_.tp); });
  }
  [[nodiscard]] std::uint64_t max_requests(Tokens len, Bytes memory) const override {
    if (bpt_.value == 0) return kUnboundedRequests;
    return blocks(memory) / ceil_div(len.value, tpb_);  // each sequence holds whole blocks
  }
  [[nodiscard]] std::optional<Tokens> max_context(std::uint64_t n, Bytes memory) const override {
    if (n == 0 || bpt_.value == 0) return std::nullopt;
    return Tokens{mul_sat(blocks(memory) / n, tpb_)};
  }
  [[nodiscard]] EngineResult report(Tokens len, std::uint64_t n, std::optional<Bytes> memory) const override;

 private:
  /// The pool, calculate_max_num_blocks: max_tokens = memory // bytes per token (bpt_ positive), capped
  /// by the user's max_tokens, rounded up to whole blocks; without memory, the user's max_tokens alone.
  [[nodiscard]] std::uint64_t blocks(std::optional<Bytes> memory) const {
    std::uint64_t max_tokens = memory ? memory->value / bpt_.value : o_.max_tokens;
    if (o_.max_tokens != 0) max_tokens = std::min(max_tokens, o_.max_tokens);
    return ceil_div(max_tokens, tpb_);
  }
  [[nodiscard]] std::optional<Bytes> bytes(Bytes bpt, std::uint64_t n, std::uint64_t len,
                                           std::uint64_t ranks) const {
    return as_bytes(product({bpt.value, ceil_div(len, tpb_), tpb_, n, ranks}));
  }
  bool windowed_ = false;
  std::vector<Bytes> stages_;
  std::uint64_t tpb_;
  Bytes bpt_{0};
};

EngineResult TrtllmPolicy::report(Tokens context, std::uint64_t, std::optional<Bytes> kv_memory) const {
  EngineResult r;
  r.engine = Engine::trtllm;
  r.rules =
      "TensorRT-LLM (PyTorch backend, 2025): _torch/pyexecutor/resource_manager.py KVCacheManager "
      "(get_cache_bytes_per_token, calculate_max_num_blocks)";
  const std::uint64_t tpb = tpb_;
  r.block_size = tpb;
  if (windowed_)
    r.notes.push_back(
        "TensorRT-LLM's variable sliding-window pools are not modelled: windowed layers "
        "are counted at full length (an upper bound)");
  const Bytes bpt = bpt_;
  r.bytes_per_token = bpt;
  r.per_token_note = "per GPU: kv_factor x ceil(kv_heads / tp) x head_dim x layers x dtype bytes";
  r.page_bytes = bpt * tpb;
  r.kv_bytes_total = bpt * checked_mul(ceil_div(context.value, tpb), tpb, "context");
  if (!kv_memory && o_.max_tokens == 0) return r;
  if (kv_memory && bpt.value == 0)
    throw Error("bytes_per_token", "is 0 B: the engine cannot size a cache from it");
  const std::uint64_t blocks = this->blocks(kv_memory);
  r.num_blocks = blocks;
  r.kv_cache_tokens = checked_mul(blocks, tpb, "tokens");
  r.max_context = r.kv_cache_tokens;
  r.max_concurrency = static_cast<double>(*r.kv_cache_tokens) / static_cast<double>(context.value);
  r.max_requests = blocks / ceil_div(context.value, tpb);  // each sequence holds whole blocks
  const Bytes allocated = bpt * *r.kv_cache_tokens;
  r.log_lines.push_back("Number of tokens per block: " + std::to_string(tpb) + ".");
  r.log_lines.push_back("[MemUsageChange] Allocated " + gib(allocated) +
                        " GiB for max tokens in paged KV cache (" + std::to_string(*r.kv_cache_tokens) +
                        ").");
  return r;
}
}  // namespace

namespace engine_detail {
std::unique_ptr<EnginePolicy> make_trtllm_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                                 const EngineOptions& o, const GroupClasses& c) {
  require_plain_dtypes(t, "TensorRT-LLM", false);
  if (!o.version.empty())
    throw Error("engine_version", "trtllm has one version of its rules (PyTorch backend, 2025)");
  if (has_recurrent(m, c))
    throw Error("engine", "TensorRT-LLM's Mamba state cache is not modelled by kvplan; use ideal");
  return std::make_unique<TrtllmPolicy>(m, t, with_split(p, Engine::trtllm), o, c);
}
}  // namespace engine_detail

EngineResult trtllm_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                           const EngineOptions& o, std::optional<Bytes> kv_memory) {
  return engine_detail::make_trtllm_policy(m, t, p, o)->report(context, 1, kv_memory);
}

}  // namespace kvplan
