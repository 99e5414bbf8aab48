// SGLang's token pool, after python/sglang/srt/model_executor/model_runner.py (profile_max_num_token;
// later model_runner_kv_cache_mixin.py get_cell_size_per_token / _resolve_token_capacity) and
// python/sglang/srt/mem_cache/memory_pool.py (MHATokenToKVPool / MLATokenToKVPool._create_buffers):
//  - cell_size (bytes per token, all layers of this rank): MHA/GQA num_kv_heads_per_rank x
//    (head_dim + v_head_dim) x layers x dtype bytes; MLA (kv_lora_rank + qk_rope_head_dim) x layers x
//    dtype bytes (not split by tp).
//  - max_total_num_tokens = int(rest_memory) // cell_size, floored to whole pages (page_size, default 1).
//  - Buffers are one page larger than the token count (slot 0 is a dummy); the log "KV Cache is
//    allocated. #tokens: N, K size: X GB, V size: Y GB" divides by 2^30.
//  - Hybrid sliding-window models (_resolve_hybrid_swa_tokens): full_tokens =
//    align(total / (full_per_token + swa_full_tokens_ratio x swa_per_token)), swa_tokens =
//    align(full_tokens x ratio), where total = capacity x cell_size.
#include <algorithm>
#include <cmath>

#include "engine_common.hpp"
#include "kvplan/format.hpp"

namespace kvplan {

EngineResult sglang_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                           const EngineOptions& o, std::optional<Bytes> kv_memory) {
  using namespace engine_detail;
  require_plain_dtypes(t, "SGLang", false);
  if (!o.version.empty()) throw Error("--engine-version", "sglang has one version of its rules (2025)");
  EngineResult r;
  r.engine = Engine::sglang;
  r.rules = "SGLang (2025): model_runner.py profile_max_num_token, mem_cache/memory_pool.py";
  const std::uint64_t page = o.block_size ? o.block_size : 1;
  r.block_size = page;
  if (has_recurrent(m))
    r.notes.push_back(
        "SGLang sizes the Mamba / linear-attention state pool separately (handle_max_mamba_cache): "
        "not modelled; tokens assume all the memory goes to the attention layers");

  // The fullest stage decides (the pool is the minimum over pipeline ranks).
  Bytes cell{0}, full_pt{0}, swa_pt{0}, k_pt{0}, v_pt{0};
  bool mla = false;
  for (const auto& stage : stage_views(m, p.pp)) {
    Bytes c{0}, f{0}, s{0}, k{0}, v{0};
    for (const auto& g : stage.layers) {
      const auto& a = g.attention;
      if (!has_attention(a.kind) || a.kv_shared) continue;
      Bytes kb{0}, vb{0};
      if (a.kind == AttentionKind::mla) {
        mla = true;
        // NSATokenToKVPool (DeepSeek-V3.2): the indexer's fp8 keys and scales beside the latent.
        kb = row_bytes(t.k, checked_add(a.kv_lora_rank, a.qk_rope_head_dim, "kv_lora_rank")) +
             indexer_bytes_per_token(a);
      } else {
        const std::uint64_t heads = kv_heads_per_rank(a, p.tp);
        kb = row_bytes(t.k, checked_mul(heads, a.head_dim_k, "head_dim"));
        vb = row_bytes(t.v, checked_mul(heads, a.head_dim_v, "head_dim"));
      }
      c += (kb + vb) * g.count;
      k += kb * g.count;
      v += vb * g.count;
      (a.kind == AttentionKind::sliding ? s : f) += (kb + vb) * g.count;
    }
    if (c > cell) {
      cell = c;
      full_pt = f;
      swa_pt = s;
      k_pt = k;
      v_pt = v;
    }
  }
  const bool hybrid_swa = swa_pt != Bytes{0} && full_pt != Bytes{0};
  if (swa_pt != Bytes{0} && full_pt == Bytes{0})
    r.notes.push_back("every layer slides: SGLang keeps a full-length cache for each (no window pool)");
  r.bytes_per_token = cell;
  r.per_token_note = hybrid_swa ? "per GPU, cell_size: every layer; the SWA pool then holds fewer tokens"
                                : "per GPU, cell_size: every layer of this rank";
  r.kv_bytes_total = cell * context.value;
  if (!kv_memory) return r;
  if (cell == Bytes{0})
    throw Error("--engine",
                "SGLang's token pool is for attention layers and this model has none: use --engine ideal");

  std::uint64_t tokens = divide(kv_memory->value, cell.value, "cell_size");
  if (hybrid_swa) {
    const double ratio = o.swa_full_tokens_ratio;
    if (!std::isfinite(ratio) || ratio <= 0.0 || ratio > 1.0)
      throw Error("--swa-full-tokens-ratio", "must be in (0, 1]");
    const double total = static_cast<double>(tokens) * static_cast<double>(cell.value);
    const auto full = static_cast<std::uint64_t>(
        total / (static_cast<double>(full_pt.value) + ratio * static_cast<double>(swa_pt.value)));
    const std::uint64_t full_tokens = full / page * page;
    const std::uint64_t swa_tokens =
        static_cast<std::uint64_t>(static_cast<double>(full_tokens) * ratio) / page * page;
    r.log_lines.push_back("Use sliding window memory pool. full_layer_tokens=" + std::to_string(full_tokens) +
                          ", swa_layer_tokens=" + std::to_string(swa_tokens));
    tokens = full_tokens;
  } else {
    tokens = tokens / page * page;
  }
  r.kv_cache_tokens = tokens;
  r.max_context = tokens;
  r.max_concurrency = static_cast<double>(tokens) / static_cast<double>(context.value);
  r.max_requests = tokens / page / ceil_div(context.value, page);  // whole pages per request (full pool)
  const auto gb = [](Bytes b) { return format_fixed(static_cast<double>(b.value) / 1073741824.0, 2); };
  if (!hybrid_swa) {
    const std::uint64_t slots = checked_add(tokens, page, "--block-size");
    if (mla)
      r.log_lines.push_back("KV Cache is allocated. #tokens: " + std::to_string(tokens) +
                            ", KV size: " + gb(k_pt * slots) + " GB");
    else
      r.log_lines.push_back("KV Cache is allocated. #tokens: " + std::to_string(tokens) +
                            ", K size: " + gb(k_pt * slots) + " GB, V size: " + gb(v_pt * slots) + " GB");
  }
  r.log_lines.push_back("max_total_num_tokens=" + std::to_string(tokens) +
                        ", context_len=" + std::to_string(context.value));
  return r;
}

}  // namespace kvplan
