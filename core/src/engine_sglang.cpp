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
//  - One request of L tokens on a hybrid pool (managers/schedule_batch.py ScheduleBatch.maybe_evict_swa /
//    _evict_swa): its full layers hold L tokens; its sliding layers only what has not been evicted. The
//    model's sliding_window_size is config.sliding_window - 1 (models/gemma3_causal.py, gpt_oss.py
//    get_attention_sliding_window_size: "SGLang assumes exclusive"); every sliding_window_size decode
//    steps the slots below seqlen - 1 - sliding_window_size (floored to a page) are freed, and a prompt
//    inserted into the radix cache keeps out-of-window slots only as evictable tree nodes. So a request
//    holds at most sliding_window_size (the window) + sliding_window_size (the tokens decoded until the
//    next eviction) + page_size (the floor to a page) sliding-layer tokens.
#include <algorithm>
#include <cmath>

#include "engine_common.hpp"
#include "engine_defaults.hpp"
#include "kvplan/format.hpp"
#include "kvplan/kv_spec.hpp"

namespace kvplan {

namespace {
using namespace engine_detail;

/// SGLang's cell sizes: of the fullest stage (the pool is the minimum over pipeline ranks), split into
/// full-attention and sliding layers and into K and V, and each stage's cell for the replica's total.
struct Cells {
  Bytes cell{0}, full_pt{0}, swa_pt{0}, k_pt{0}, v_pt{0};
  bool mla = false;
  std::uint64_t window = 0;  ///< the widest sliding window of the fullest stage (config sliding_window)
  std::vector<Bytes> stage_cells;
  /// Each stage's full-attention and sliding parts of its cell (hybrid SWA pools).
  std::vector<std::pair<Bytes, Bytes>> stage_parts;
  [[nodiscard]] bool hybrid_swa() const { return swa_pt != Bytes{0} && full_pt != Bytes{0}; }
};

/// Whether SGLang turns its hybrid SWA pool off for this model and caches every layer at full length:
/// Gemma 2, 3 and 3n ("Disable hybrid SWA memory for ... as it is not yet supported", server_args.py
/// _handle_model_specific_adjustments, later _gemma2_gemma3_overrides; sglang PR #7367 is not compatible
/// with them) and OLMo 2 / 3 ("Disabling hybrid SWA memory for Olmo2ForCausalLM"), read by model_type.
bool sglang_disables_hybrid_swa(const ModelSpec& m) {
  const std::string_view t = m.context_keys.model_type;
  for (const std::string_view family : {"gemma2", "gemma3", "olmo2", "olmo3"})
    if (t.rfind(family, 0) == 0) return true;  // gemma3_text, gemma3n, gemma3n_text too
  return false;
}

Cells sglang_cells(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, const GroupClasses& c) {
  Cells out;
  const bool swa_pool = !sglang_disables_hybrid_swa(m);
  for (const auto& stage : class_stage_views(m, p.pp, p.split, c)) {
    Bytes c{0}, f{0}, s{0}, k{0}, v{0};
    std::uint64_t window = 0;
    for (const auto& g : stage.layers) {
      const LayerKv kv = layer_kv(g.attention, t, p.tp);
      if (kv.attention.kind == KvKind::none) continue;  // no attention, or another layer's K/V
      // MHATokenToKVPool: K and V per token; MLATokenToKVPool: the latent as K; NSATokenToKVPool
      // (DeepSeek-V3.2): the indexer's fp8 keys and scales beside the latent.
      Bytes kb = kv.attention.k_bytes;
      const Bytes vb = kv.attention.v_bytes;
      if (kv.is_mla()) {
        out.mla = true;
        kb += kv.indexer.bytes_per_token();
      }
      c += (kb + vb) * g.count;
      k += kb * g.count;
      v += vb * g.count;
      // The SWA pool holds sliding layers only (chunked ones stay in the full pool).
      const bool windowed = kv.attention.kind == KvKind::sliding && swa_pool;
      (windowed ? s : f) += (kb + vb) * g.count;
      if (windowed) window = std::max(window, kv.attention.window);
    }
    out.stage_cells.push_back(c);
    out.stage_parts.emplace_back(f, s);
    if (c > out.cell) {
      out.cell = c;
      out.full_pt = f;
      out.swa_pt = s;
      out.k_pt = k;
      out.v_pt = v;
      out.window = window;
    }
  }
  return out;
}

/// max_total_num_tokens for `memory` bytes per GPU (full-layer tokens for a hybrid SWA pool), whole pages;
/// with the "Use sliding window memory pool" line for the hybrid case when `line` is given. `cap` is
/// --max-total-tokens (0: none): model_runner.py init_memory_pool takes min(profiled, max_total_tokens)
/// before the floor to pages and the hybrid split.
std::uint64_t sglang_tokens(const Cells& c, std::uint64_t memory, std::uint64_t page, double ratio,
                            std::uint64_t cap, std::string* line) {
  std::uint64_t tokens = memory / c.cell.value;
  if (cap != 0) tokens = std::min(tokens, cap);
  if (!c.hybrid_swa()) return tokens / page * page;
  const double total = static_cast<double>(tokens) * static_cast<double>(c.cell.value);
  const auto full = static_cast<std::uint64_t>(
      total / (static_cast<double>(c.full_pt.value) + ratio * static_cast<double>(c.swa_pt.value)));
  const std::uint64_t full_tokens = full / page * page;
  if (line != nullptr) {
    const std::uint64_t swa_tokens =
        static_cast<std::uint64_t>(static_cast<double>(full_tokens) * ratio) / page * page;
    *line = "Use sliding window memory pool. full_layer_tokens=" + std::to_string(full_tokens) +
            ", swa_layer_tokens=" + std::to_string(swa_tokens);
  }
  return full_tokens;
}

/// Sliding-layer tokens one request of `len` tokens holds at most in SGLang's hybrid SWA pool, for a
/// model whose config sliding_window is `window` (>= 1) and pages of `page` tokens:
/// min(len, 2 x (window - 1) + page) (see the header comment: maybe_evict_swa frees what falls out of the
/// window every sliding_window_size = window - 1 decode steps).
std::uint64_t swa_request_tokens(std::uint64_t window, std::uint64_t page, std::uint64_t len) {
  const std::uint64_t kept = checked_add(checked_mul(window - 1, 2, "sliding_window"), page, "block_size");
  return std::min(len, kept);
}

/// SGLang's token pool as a policy: a request of L tokens takes cdiv(L, page) pages of the pool;
/// closed form for the longest request.
class SglangPolicy final : public PolicyBase {
 public:
  SglangPolicy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, const EngineOptions& o,
               const GroupClasses& c)
      : PolicyBase(m, t, p, o),
        c_(sglang_cells(m, t, p, c)),
        page_(o.block_size ? o.block_size : engine_defaults::kSglangPageSize) {}
  [[nodiscard]] std::optional<Bytes> gpu_bytes(std::uint64_t n, Tokens len) const override {
    if (c_.hybrid_swa()) return swa_pool_bytes(c_.full_pt, c_.swa_pt, n, len.value, 1);
    return bytes(c_.cell, n, len.value, 1);
  }
  [[nodiscard]] std::optional<Bytes> replica_bytes(std::uint64_t n, Tokens len) const override {
    if (c_.hybrid_swa())
      return engine_detail::sum_parts(c_.stage_parts, [&](const auto& fs) {
        return swa_pool_bytes(fs.first, fs.second, n, len.value, p_.tp);
      });
    return engine_detail::sum_parts(c_.stage_cells,
                                    [&](const auto& c) { return bytes(c, n, len.value, p_.tp); });
  }
  [[nodiscard]] std::uint64_t max_requests(Tokens len, Bytes memory) const override {
    if (c_.cell.value == 0) return kUnboundedRequests;
    return tokens(memory) / page_ / ceil_div(len.value, page_);
  }
  [[nodiscard]] std::optional<Tokens> max_context(std::uint64_t n, Bytes memory) const override {
    if (n == 0 || c_.cell.value == 0) return std::nullopt;
    return Tokens{mul_sat(tokens(memory) / page_ / n, page_)};
  }
  [[nodiscard]] EngineResult report(Tokens len, std::uint64_t n, std::optional<Bytes> memory) const override;

 private:
  [[nodiscard]] std::uint64_t tokens(Bytes memory) const {
    return sglang_tokens(c_, memory.value, page_, o_.swa_full_tokens_ratio, o_.max_tokens, nullptr);
  }
  static std::optional<Bytes> bytes(Bytes cell, std::uint64_t n, std::uint64_t len, std::uint64_t ranks) {
    return as_bytes(product({cell.value, len, n, ranks}));
  }
  /// What n requests of len tokens take of a hybrid SWA pool (_resolve_hybrid_swa_tokens): the pool is
  /// split so that every full-layer token comes with swa_full_tokens_ratio sliding-layer tokens, so
  /// the requests' n x len full-layer tokens cost n x len x full_pt plus
  /// ceil(n x len x ratio) x swa_pt. Not cell x tokens: that would count every sliding layer at full
  /// length, beyond what the pool sets aside (more than the GPU, on Gemma 3).
  [[nodiscard]] std::optional<Bytes> swa_pool_bytes(Bytes full_pt, Bytes swa_pt, std::uint64_t n,
                                                    std::uint64_t len, std::uint64_t ranks) const {
    const auto full_tokens = product({len, n});
    if (!full_tokens) return std::nullopt;
    const double swa = std::ceil(static_cast<double>(*full_tokens) * o_.swa_full_tokens_ratio);
    if (!(swa < 18446744073709551616.0)) return std::nullopt;
    const auto full = product({*full_tokens, full_pt.value, ranks});
    const auto sliding = product({static_cast<std::uint64_t>(swa), swa_pt.value, ranks});
    return as_bytes(full && sliding ? add(*full, *sliding) : std::nullopt);
  }
  Cells c_;
  std::uint64_t page_;
};

EngineResult SglangPolicy::report(Tokens context, std::uint64_t, std::optional<Bytes> kv_memory) const {
  EngineResult r;
  r.engine = Engine::sglang;
  r.rules = "SGLang (2025): model_runner.py profile_max_num_token, mem_cache/memory_pool.py";
  const std::uint64_t page = page_;
  r.block_size = page;
  if (has_recurrent(m_))
    r.notes.push_back(
        "SGLang sizes the Mamba / linear-attention state pool separately (handle_max_mamba_cache): "
        "not modelled; tokens assume all the memory goes to the attention layers");
  const bool hybrid_swa = c_.hybrid_swa();
  const auto specs = kv_specs(m_, t_, p_.tp);
  if (sglang_disables_hybrid_swa(m_) && std::any_of(specs.begin(), specs.end(), [](const KvSpecGroup& g) {
        return g.kv.kind == KvKind::sliding;
      }))
    r.log_lines.push_back("Disable hybrid SWA memory for " + m_.context_keys.model_type +
                          " as it is not yet supported.");
  if (c_.swa_pt != Bytes{0} && c_.full_pt == Bytes{0})
    r.notes.push_back("every layer slides: SGLang keeps a full-length cache for each (no window pool)");
  r.bytes_per_token = c_.cell;
  r.per_token_note = hybrid_swa ? "per GPU, cell_size: every layer; the SWA pool then holds fewer tokens"
                                : "per GPU, cell_size: every layer of this rank";
  r.kv_bytes_total =
      hybrid_swa ? c_.full_pt * context.value + c_.swa_pt * swa_request_tokens(c_.window, page, context.value)
                 : c_.cell * context.value;
  if (!kv_memory) return r;
  if (c_.cell == Bytes{0})
    throw Error("engine", "SGLang's token pool is for attention layers and this model has none: use ideal");
  std::string swa_line;
  const std::uint64_t tokens =
      sglang_tokens(c_, kv_memory->value, page, o_.swa_full_tokens_ratio, o_.max_tokens, &swa_line);
  if (hybrid_swa) r.log_lines.push_back(swa_line);
  r.kv_cache_tokens = tokens;
  r.max_context = tokens;
  r.max_concurrency = static_cast<double>(tokens) / static_cast<double>(context.value);
  r.max_requests = tokens / page / ceil_div(context.value, page);  // whole pages per request (full pool)
  const auto gb = [](Bytes b) { return format_fixed(static_cast<double>(b.value) / 1073741824.0, 2); };
  if (!hybrid_swa) {
    const std::uint64_t slots = checked_add(tokens, page, "block_size");
    if (c_.mla)
      r.log_lines.push_back("KV Cache is allocated. #tokens: " + std::to_string(tokens) +
                            ", KV size: " + gb(c_.k_pt * slots) + " GB");
    else
      r.log_lines.push_back("KV Cache is allocated. #tokens: " + std::to_string(tokens) + ", K size: " +
                            gb(c_.k_pt * slots) + " GB, V size: " + gb(c_.v_pt * slots) + " GB");
  }
  r.log_lines.push_back("max_total_num_tokens=" + std::to_string(tokens) +
                        ", context_len=" + std::to_string(context.value));
  return r;
}
}  // namespace

namespace engine_detail {
std::unique_ptr<EnginePolicy> make_sglang_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                                 const EngineOptions& o, const GroupClasses& c) {
  require_plain_dtypes(t, "SGLang", false);
  // The rule sets ("0.5", "0.4"; validate_engine_options checks the name) differ in the default
  // mem_fraction_static only (budget.hpp); the token pool is the same.
  return std::make_unique<SglangPolicy>(m, t, with_split(p, Engine::sglang), o, c);
}
}  // namespace engine_detail

EngineResult sglang_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                           const EngineOptions& o, std::optional<Bytes> kv_memory) {
  return engine_detail::make_sglang_policy(m, t, p, o)->report(context, 1, kv_memory);
}

}  // namespace kvplan
