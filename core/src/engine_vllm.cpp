// vLLM's KV cache accounting.
//
// V1 (default), after vllm/v1/kv_cache_interface.py and vllm/v1/core/kv_cache_utils.py:
//  - AttentionSpec.page_size_bytes: block_size * num_kv_heads * (head_size + head_size_v) * dtype bytes
//    per layer (FullAttentionSpec.real_page_size_bytes); MLAAttentionSpec: block_size * 1 *
//    (kv_lora_rank + qk_rope_head_dim) * dtype bytes, or block_size * 656 for fp8_ds_mla.
//  - num_kv_heads per rank: ModelConfig.get_num_kv_heads = max(1, total // tp); MLA: 1 (not split).
//  - get_kv_cache_groups: one group when every layer has the same spec; otherwise
//    unify_kv_cache_spec_page_size (smaller pages raise their block size to the largest page) and
//    _get_kv_cache_groups_uniform_page_size (group_size = fewest layers of one type, or the most when
//    most < 1.5 x fewest; each type split into cdiv(n, group_size) groups).
//  - get_num_blocks: available // page_size // group_size; get_max_concurrency_for_kv_cache_config:
//    num_blocks / sum over groups of cdiv(max_memory_usage_bytes, page_size).
//  - GPU KV cache size (_report_kv_cache_config), version "v1" (the default; vLLM up to at least v0.19.0):
//    num_blocks // groups * min block_size tokens. Versions "0.20", "0.21" and "0.26" (vLLM v0.20 and later;
//    "0.21" is "0.20" by another name (their memory budgets are one row since the CUDA graph estimate
//    and the 0.92 default were found in 0.20.0, budget.cpp);
//    changed after v0.19.0, see docs/engines/vllm-kv-report.md): int(max_concurrency * max_model_len),
//    in Python floats.
//  - max_memory_usage_bytes: full cdiv(max_model_len, bs) pages; SlidingWindowSpec
//    cdiv(min(W - 1 + T, max_model_len), bs) + 1 pages; ChunkedLocalAttentionSpec
//    cdiv(min(C + T, max_model_len), bs) pages, where T is max_num_batched_tokens up to v0.25 and, in
//    version "0.26" (PR #47728, v0.26.0), max_in_flight_tokens = max_concurrent_batches x
//    max_num_batched_tokens (in_flight_tokens below).
//  - estimate_max_model_len: binary search for the largest length whose need fits the memory.
//  - Pipeline parallel (get_kv_cache_configs): each stage sizes its own blocks; all take the minimum.
// V0 (version "v0", 0.6-era), after vllm/worker/cache_engine.py CacheEngine.get_cache_block_size and
// vllm/worker/worker.py determine_num_available_blocks: one block holds block_size tokens of every
// layer of the stage; num_gpu_blocks = available // block bytes; concurrency = blocks x bs / max_model_len.
#include <algorithm>
#include <limits>

#include "engine_common.hpp"
#include "engine_defaults.hpp"
#include "kvplan/format.hpp"
#include "kvplan/kv_spec.hpp"

namespace kvplan {

namespace {
using namespace engine_detail;

constexpr std::uint64_t kDefaultBlockSize = engine_defaults::kVllmBlockSize;
constexpr std::uint64_t kDefaultMaxNumBatchedTokens = engine_defaults::kVllmMaxNumBatchedTokens;

/// One layer's KV cache spec as vLLM builds it: the layer's attention spec (kv_spec.hpp; kind full,
/// sliding, chunked or mla), or a MambaSpec (kind recurrent_state, its page padded to the attention
/// page), at vLLM's bytes per token and block size.
struct Spec {
  KvSpec kv;        // kind and window; the state kinds' `state` is the padded Mamba page
  Bytes per_token;  // bytes per token of this layer on one rank, as vLLM counts them (vllm_layer_bytes)
  std::uint64_t block_size = 0;
  [[nodiscard]] Bytes page() const { return kv.is_state() ? kv.state : per_token * block_size; }
  /// vLLM's type_id (kind, window, page size): layers with equal ids share a group type.
  [[nodiscard]] bool same_type(const Spec& o) const {
    return kv.kind == o.kv.kind && kv.window == o.kv.window && page() == o.page();
  }
  /// Pages of this spec's own page size that a request of `len` tokens needs (max_memory_usage_bytes /
  /// page_size_bytes: KvSpec::max_pages).
  [[nodiscard]] std::uint64_t pages(std::uint64_t len, std::uint64_t in_flight) const {
    return kv.max_pages(len, block_size, in_flight);
  }
};

/// Bytes per token of one layer's page as vLLM allocates it (AttentionSpec.real_page_size_bytes /
/// block_size): K and V of the attention spec (one cache type for both); an MLA layer's latent, or 656 B
/// under fp8_ds_mla (flashmla_sparse.py: 512 fp8 + 4 fp32 scales + 64 bf16 RoPE), with DeepSeek-V3.2's
/// indexer keys (DeepseekV32IndexerCache), allocated per layer beside the latent with the same block
/// size, counted as part of the layer's page.
Bytes vllm_layer_bytes(const LayerKv& kv, bool fp8_ds_mla) {
  if (!kv.is_mla()) return kv.attention.bytes_per_token();
  return (fp8_ds_mla ? Bytes{656} : kv.attention.bytes_per_token()) + kv.indexer.bytes_per_token();
}

/// The groups of one stage: (spec, layers in the group).
struct Groups {
  std::vector<std::pair<Spec, std::uint64_t>> groups;
  std::uint64_t group_size = 0;  // layers per group (the number of per-layer tensors)
  Bytes page;
  bool hybrid = false;
};

Groups group_stage(const StageView& stage, const KvDtypes& t, std::uint64_t tp, const EngineOptions& o,
                   std::uint64_t bs, Bytes mamba_page) {
  // The layer types in order of first appearance, with their layer counts.
  std::vector<std::pair<Spec, std::uint64_t>> by_type;
  const auto count = [&by_type](const Spec& s, std::uint64_t n) {
    for (auto& e : by_type)
      if (e.first.same_type(s)) {
        e.second += n;
        return;
      }
    by_type.emplace_back(s, n);
  };
  for (const auto& g : stage.layers) {
    const LayerKv kv = layer_kv(g.attention, t, tp);
    if (kv.recurrent) {
      // A MambaSpec for the layer's state (Falcon-H1's parallel mixer registers one beside its attention).
      Spec m;
      m.kv.kind = KvKind::recurrent_state;
      m.kv.state = mamba_page;
      m.block_size = bs;
      count(m, g.count);
    }
    // No cache of their own: recurrent and MLP-only blocks, and layers that read another layer's K/V
    // (kv_sharing_target_layer_name: vLLM allocates nothing for them).
    if (kv.attention.kind == KvKind::none) continue;
    Spec s;
    s.kv = kv.attention;
    if (o.disable_hybrid_kv_cache_manager &&
        s.kv.windowed()) {  // unify_hybrid_kv_cache_specs: every layer full
      s.kv.kind = KvKind::full;
      s.kv.window = 0;
    }
    s.per_token = vllm_layer_bytes(kv, o.fp8_ds_mla);
    s.block_size = bs;
    count(s, g.count);
  }
  Groups out;
  if (by_type.empty()) return out;
  if (by_type.size() == 1) {
    const auto& [spec, n] = by_type.front();
    out.groups.push_back({spec, n});
    out.group_size = n;
    out.page = spec.page();
    return out;
  }
  out.hybrid = true;
  // unify_kv_cache_spec_page_size: raise the block size of smaller pages to the largest page.
  Bytes max_page{0};
  for (const auto& e : by_type) max_page = std::max(max_page, e.first.page());
  for (auto& e : by_type) {
    const Bytes page = e.first.page();
    if (page == Bytes{0}) throw Error("page_size_bytes", "is 0 B for a layer: vLLM cannot page it");
    if (max_page.value % page.value != 0)
      throw Error("engine", "vLLM cannot unify the page sizes of this model's layers (" +
                                std::to_string(page.value) + " B and " + std::to_string(max_page.value) +
                                " B)");
    e.first.block_size = checked_mul(bs, max_page.value / page.value, "block_size");
  }
  std::uint64_t fewest = ~0ULL, most = 0;
  for (const auto& e : by_type) {
    fewest = std::min(fewest, e.second);
    most = std::max(most, e.second);
  }
  out.group_size = most * 2 < fewest * 3 ? most : fewest;  // most < 1.5 x fewest
  for (const auto& [spec, n] : by_type) {
    const std::uint64_t groups = ceil_div(n, out.group_size);
    for (std::uint64_t i = 0; i < groups; ++i)
      out.groups.push_back({spec, std::min(out.group_size, n - i * out.group_size)});
  }
  out.page = max_page;
  return out;
}

__extension__ typedef unsigned __int128 U128;

/// Pages of the stage's page size one request of `len` tokens needs, over all groups
/// (cdiv(max_memory_usage_bytes, page_size) per group); nullopt past 2^64.
std::optional<std::uint64_t> stage_pages(const Groups& g, std::uint64_t len, std::uint64_t in_flight) {
  if (g.page == Bytes{0}) return 0;
  std::uint64_t pages = 0;
  for (const auto& [spec, n] : g.groups) {
    const U128 bytes = static_cast<U128>(spec.pages(len, in_flight)) * spec.page().value;
    const U128 k = bytes / g.page.value + (bytes % g.page.value != 0);
    if (k > ~std::uint64_t{0}) return std::nullopt;
    const auto sum = add(pages, static_cast<std::uint64_t>(k));
    if (!sum) return std::nullopt;
    pages = *sum;
  }
  return pages;
}

/// A length near the longest whose stage_pages stay within `budget` pages: full-attention groups grow
/// by one page per block of tokens, windowed groups and Mamba states are taken at their most (the
/// usual case: the answer is past every window). Only the starting point of longest_near, which checks
/// it.
std::uint64_t length_guess(const Groups& g, std::uint64_t budget, std::uint64_t in_flight) {
  constexpr std::uint64_t top = ~std::uint64_t{0};
  double fixed = 0, per_token = 0;
  for (const auto& [spec, n] : g.groups) {
    if (spec.kv.grows())
      per_token += 1.0 / static_cast<double>(spec.block_size);
    else
      fixed += static_cast<double>(spec.pages(top, in_flight));
  }
  if (per_token == 0) return top;
  const double len = (static_cast<double>(budget) - fixed) / per_token;
  return len < 1 ? 1 : len >= 1.8e19 ? top : static_cast<std::uint64_t>(len);
}

/// stage_pages, throwing: the report's figures name what overflowed.
std::uint64_t pages_per_request(const Groups& g, std::uint64_t len, std::uint64_t in_flight) {
  if (g.page == Bytes{0}) throw Error("page_size_bytes", "is 0 B: vLLM cannot page this model");
  const auto pages = stage_pages(g, len, in_flight);
  if (!pages) throw Error("context", "overflows 64-bit arithmetic");
  return *pages;
}

/// The pool of one stage: memory // page_size // group_size blocks (get_num_blocks); nullopt for a stage
/// without KV layers (it has no pool). The one formula of vLLM's block pool: pool_blocks, the policy's
/// questions and the report all read it.
std::optional<std::uint64_t> stage_blocks(const Groups& s, std::uint64_t memory) {
  if (s.page.value == 0 || s.group_size == 0) return std::nullopt;
  return memory / s.page.value / s.group_size;
}

/// The pool: the fewest blocks over the stages (get_kv_cache_configs); kUnboundedRequests without KV
/// layers.
std::uint64_t pool_blocks(const std::vector<Groups>& stages, std::uint64_t memory) {
  std::uint64_t blocks = EnginePolicy::kUnboundedRequests;
  for (const auto& s : stages)
    if (const auto b = stage_blocks(s, memory)) blocks = std::min(blocks, *b);
  return blocks;
}

/// Whether one request of `len` tokens fits every stage's own pool (estimate_max_model_len on each
/// worker).
bool fits_every_stage(const std::vector<Groups>& stages, std::uint64_t len, std::uint64_t in_flight,
                      std::uint64_t memory) {
  for (const auto& s : stages) {
    const auto blocks = stage_blocks(s, memory);
    if (!blocks) continue;  // no KV layers on this stage
    const auto need = stage_pages(s, len, in_flight);
    if (!need || *need > *blocks) return false;
  }
  return true;
}

/// Everything vLLM V1 derives from the model before any request: the block size (raised for Mamba
/// states), the padded Mamba page, each stage's KV cache groups, and the stage the report follows.
struct Layout {
  std::uint64_t in_flight = 0;
  std::uint64_t block = 0;
  std::vector<std::string> block_lines;  // the block-size and padding lines vLLM logs
  std::vector<Groups> stages;
  std::size_t worst = 0;  // the stage with the fewest blocks
};

Layout vllm_layout(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, const EngineOptions& o,
                   const GroupClasses& c);

/// V0's block of one stage: block_size tokens of every cached layer (CacheEngine.get_cache_block_size).
Bytes v0_block(const StageView& stage, const KvDtypes& t, std::uint64_t tp, std::uint64_t bs) {
  Bytes per_token{0};
  for (const auto& g : stage.layers) {
    const LayerKv kv = layer_kv(g.attention, t, tp);
    if (kv.attention.kind != KvKind::none) per_token += vllm_layer_bytes(kv, false) * g.count;
  }
  return per_token * bs;
}

/// Tokens scheduled but not yet settled, that a sliding or chunked group keeps per request beyond its
/// window (VllmConfig.max_in_flight_tokens). Up to v0.25: max_num_batched_tokens (the argument of
/// SlidingWindowSpec.max_memory_usage_bytes). Version "0.26" (PR #47728, in v0.26.0):
/// max_concurrent_batches x max_num_batched_tokens, where max_concurrent_batches is 2 under async
/// scheduling (vLLM's default) at pp 1 and pp otherwise (vllm/config/vllm.py, V1 model runner).
std::uint64_t in_flight_tokens(const EngineOptions& o, std::uint64_t pp) {
  const std::uint64_t mnbt =
      o.max_num_batched_tokens ? o.max_num_batched_tokens : kDefaultMaxNumBatchedTokens;
  if (o.version != "0.26") return mnbt;
  return checked_mul(mnbt, pp <= 1 ? 2 : pp, "max_num_batched_tokens");
}

Layout vllm_layout(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, const EngineOptions& o,
                   const GroupClasses& c) {
  Layout l;
  const std::uint64_t bs = o.block_size ? o.block_size : kDefaultBlockSize;
  l.in_flight = in_flight_tokens(o, p.pp);
  l.block = bs;
  // Hybrid attention + Mamba / linear attention (vllm/model_executor/models/config.py,
  // HybridAttentionMambaModelConfig.verify_and_update_config, mamba_cache_mode "none"): the attention
  // block size becomes the smallest multiple of 16 whose page holds a Mamba state, and the Mamba page
  // is padded to the attention page.
  Bytes mamba_page{0};
  if (has_recurrent(m, c)) {
    if (o.disable_hybrid_kv_cache_manager)
      throw Error("disable_hybrid_kv_cache_manager",
                  "vLLM needs its hybrid manager for Mamba / linear-attention layers");
    Bytes attn_1{0}, state{0};
    for_each_attention(m, c, [&](const AttentionLayer& a) {
      const LayerKv kv = layer_kv(a, t, p.tp);
      if (kv.recurrent) state = std::max(state, kv.state_bytes());
      if (kv.attention.kind != KvKind::none) attn_1 = std::max(attn_1, vllm_layer_bytes(kv, o.fp8_ds_mla));
    });
    if (attn_1 == Bytes{0}) throw Error("engine", "vLLM: a model without attention layers is not modelled");
    if (state == Bytes{0})
      throw Error("recurrent", "the Mamba / linear-attention state is 0 B: no state fields");
    const std::uint64_t align = 16;
    const std::uint64_t needed =
        checked_mul(align, ceil_div(state.value, checked_mul(align, attn_1.value, "bytes")), "bytes");
    if (o.block_size == 0 || o.block_size < needed) {
      l.block = needed;
      l.block_lines.push_back("Setting attention block size to " + std::to_string(l.block) +
                              " tokens to ensure that attention page size is >= mamba page size.");
    }
    mamba_page = attn_1 * l.block;
    if (mamba_page != state)
      l.block_lines.push_back(
          "Padding mamba page size by " +
          format_fixed(
              100.0 * static_cast<double>((mamba_page - state).value) / static_cast<double>(state.value), 2) +
          "% to ensure that mamba page size and attention page size are exactly equal.");
  }
  for (const auto& s : class_stage_views(m, p.pp, p.split, c))
    l.stages.push_back(group_stage(s, t, p.tp, o, l.block, mamba_page));
  // The reported figures follow the stage with the fewest blocks; with equal memory that is the one
  // with the most layers per group (ties: the first).
  for (std::size_t i = 1; i < l.stages.size(); ++i)
    if (l.stages[i].page * l.stages[i].group_size > l.stages[l.worst].page * l.stages[l.worst].group_size)
      l.worst = i;
  return l;
}

/// Checks vLLM makes before it sizes anything (the cache type, fp8_ds_mla on MLA, the version).
void vllm_checks(const ModelSpec& m, const KvDtypes& t, const EngineOptions& o) {
  if (o.fp8_ds_mla) {
    bool mla = false;
    for (const auto& g : m.layers) mla = mla || layer_kv(g.attention, t, 1).is_mla();
    if (!mla) throw Error("kv_dtype", "fp8_ds_mla applies to MLA models only");
  }
  require_plain_dtypes(t, "vLLM", false);
  // vllm/config/cache.py: BlockSize = Literal[1, 8, 16, 32, 64, 128, 256], the --block-size choices.
  constexpr std::uint64_t kBlockSizes[] = {1, 8, 16, 32, 64, 128, 256};
  if (o.block_size != 0 &&
      std::find(std::begin(kBlockSizes), std::end(kBlockSizes), o.block_size) == std::end(kBlockSizes))
    throw Error("block_size", "vLLM takes 1, 8, 16, 32, 64, 128 or 256 (its BlockSize choices), got " +
                                  std::to_string(o.block_size));
  if (o.version == "v0" && has_recurrent(m))
    throw Error("engine_version", "vLLM V0's Mamba cache is not modelled; use v1");
  if (o.version.empty()) return;
  const auto versions = engine_versions(Engine::vllm);
  if (std::find(versions.begin(), versions.end(), o.version) == versions.end())
    throw Error("engine_version", "is not a vLLM version kvplan models: '" + o.version + "'");
}

/// "GPU KV cache size" as vLLM v0.20 and later print it (_report_kv_cache_config):
/// int(max_concurrency * max_model_len), where max_concurrency = num_blocks / blocks per request is a
/// Python float; the product is rounded to a double and truncated toward zero, so it can be one below
/// the exact floor(num_blocks * max_model_len / blocks per request). Tokens; throws past 2^64.
std::uint64_t concurrency_tokens(double max_concurrency, std::uint64_t max_model_len) {
  const double tokens = max_concurrency * static_cast<double>(max_model_len);
  if (!(tokens < 18446744073709551616.0)) throw Error("tokens", "overflows 64-bit arithmetic");
  return static_cast<std::uint64_t>(tokens);
}

/// vLLM V1's questions over its KV cache groups: a request needs stage_pages pages of each stage's
/// page size; the pool holds pool_blocks of them.
class VllmPolicy final : public PolicyBase {
 public:
  VllmPolicy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, const EngineOptions& o,
             const GroupClasses& c)
      : PolicyBase(m, t, p, o), l_(vllm_layout(m, t, p, o, c)) {}
  [[nodiscard]] std::optional<Bytes> gpu_bytes(std::uint64_t n, Tokens len) const override {
    return stage_bytes(l_.stages[l_.worst], n, len.value, 1);
  }
  [[nodiscard]] std::optional<Bytes> replica_bytes(std::uint64_t n, Tokens len) const override {
    return engine_detail::sum_parts(l_.stages,
                                    [&](const auto& s) { return stage_bytes(s, n, len.value, p_.tp); });
  }
  [[nodiscard]] std::uint64_t max_requests(Tokens len, Bytes memory) const override {
    const auto pages = stage_pages(l_.stages[l_.worst], len.value, l_.in_flight);
    if (!pages) return 0;
    return *pages == 0 ? kUnboundedRequests : pool_blocks(l_.stages, memory.value) / *pages;
  }
  /// The longest len at which n requests' pages fit the pool: searched from length_guess.
  [[nodiscard]] std::optional<Tokens> max_context(std::uint64_t n, Bytes memory) const override {
    if (n == 0) return std::nullopt;
    const std::uint64_t blocks = pool_blocks(l_.stages, memory.value);
    const auto l = longest_near(length_guess(l_.stages[l_.worst], blocks / n, l_.in_flight),
                                [&](std::uint64_t len) { return max_requests(Tokens{len}, memory) >= n; });
    if (!l) return std::nullopt;
    return Tokens{*l};
  }
  [[nodiscard]] EngineResult report(Tokens len, std::uint64_t n, std::optional<Bytes> memory) const override;

 private:
  /// n requests' pages of one stage, in bytes, times `ranks`.
  [[nodiscard]] std::optional<Bytes> stage_bytes(const Groups& g, std::uint64_t n, std::uint64_t len,
                                                 std::uint64_t ranks) const {
    const auto pages = stage_pages(g, len, l_.in_flight);
    return pages ? as_bytes(product({*pages, g.page.value, g.group_size, n, ranks})) : std::nullopt;
  }
  Layout l_;
};

EngineResult VllmPolicy::report(Tokens context, std::uint64_t, std::optional<Bytes> kv_memory) const {
  const Groups& g = l_.stages[l_.worst];
  const std::uint64_t in_flight = l_.in_flight, block = l_.block;
  EngineResult r;
  r.engine = Engine::vllm;
  // vLLM v0.20 and later report the size as max_concurrency x max_model_len (see concurrency_tokens).
  const bool concurrency_report = o_.version == "0.20" || o_.version == "0.21" || o_.version == "0.26";
  r.rules = std::string(o_.version == "0.26"   ? "vLLM V1 (v0.26 and later)"
                        : o_.version == "0.21" ? "vLLM V1 (v0.21 to v0.25)"
                        : concurrency_report   ? "vLLM V1 (v0.20)"
                                               : "vLLM V1") +
            ": vllm/v1/kv_cache_interface.py (page_size_bytes, max_memory_usage_bytes), "
            "vllm/v1/core/kv_cache_utils.py (get_kv_cache_groups, get_num_blocks, _report_kv_cache_config)";
  r.block_size = block;
  for (const auto& lg : kv_specs(m_, t_, p_.tp))
    if (lg.kv.is_mla() && !o_.block_size) {
      r.notes.push_back(
          "vLLM forces block_size 64 for FlashMLA (Hopper) and 128 for CUTLASS MLA (Blackwell): "
          "set the block size to match your backend");
      break;
    }
  r.log_lines = l_.block_lines;
  r.page_bytes = g.page;
  if (!g.hybrid) {
    r.bytes_per_token = Bytes{g.page.value / block * g.group_size};
    r.per_token_note = "per GPU: page_size_bytes / block_size x layers";
  } else {
    r.per_token_note =
        "not meaningful under vLLM's hybrid allocator: " + std::to_string(g.groups.size()) +
        " KV cache groups of " + std::to_string(g.group_size) +
        " layers share one block pool; sliding and chunked groups hold at most the window plus " +
        std::string(o_.version == "0.26" ? "max_concurrent_batches x max_num_batched_tokens ("
                                         : "max_num_batched_tokens (") +
        format_count(in_flight) + ") tokens; read the token and concurrency figures";
  }
  // KV for one request of the context length, all groups, this GPU.
  r.kv_bytes_total =
      g.page * checked_mul(pages_per_request(g, context.value, in_flight), g.group_size, "context");
  if (!kv_memory) return r;

  for (const auto& s : l_.stages)  // every stage sizes a pool: one without KV layers cannot
    if (!stage_blocks(s, kv_memory->value))
      throw Error("page_size_bytes", "is 0 B: the engine cannot size a cache from it");
  const std::uint64_t blocks = pool_blocks(l_.stages, kv_memory->value);
  r.num_blocks = blocks;
  const std::uint64_t pages = pages_per_request(g, context.value, in_flight);
  r.max_concurrency = static_cast<double>(blocks) / static_cast<double>(pages);
  if (concurrency_report) {
    r.kv_cache_tokens = concurrency_tokens(*r.max_concurrency, context.value);
  } else {  // num_blocks // len(kv_cache_groups) * min(block_size over the groups)
    std::uint64_t min_block = ~0ULL;
    for (const auto& [spec, n] : g.groups) min_block = std::min(min_block, spec.block_size);
    r.kv_cache_tokens = checked_mul(divide(blocks, g.groups.size(), "layers"), min_block, "tokens");
  }
  r.max_requests = max_requests(context, *kv_memory);
  // estimate_max_model_len: the largest length whose pages fit, on every stage.
  const auto longest_len = longest_near(length_guess(g, blocks, in_flight), [&](std::uint64_t len) {
    return fits_every_stage(l_.stages, len, in_flight, kv_memory->value);
  });
  r.max_context_unbounded = !longest_len.has_value();
  if (longest_len) r.max_context = *longest_len;
  r.log_lines.push_back("Available KV cache memory: " + gib(*kv_memory) + " GiB");
  r.log_lines.push_back("GPU KV cache size: " + format_count(*r.kv_cache_tokens) + " tokens");
  r.log_lines.push_back("Maximum concurrency for " + format_count(context.value) +
                        " tokens per request: " + format_fixed(*r.max_concurrency, 2) + "x");
  return r;
}

/// vLLM V0: one block holds block_size tokens of every layer of the stage; a request needs
/// cdiv(len, block_size) blocks. Closed form for the longest request.
class VllmV0Policy final : public PolicyBase {
 public:
  VllmV0Policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, const EngineOptions& o)
      : PolicyBase(m, t, p, o), bs_(o.block_size ? o.block_size : kDefaultBlockSize) {
    for (const auto& stage : stage_views(m, p.pp, p.split)) {
      blocks_.push_back(v0_block(stage, t, p.tp, bs_));
      block_ = std::max(block_, blocks_.back());
    }
  }
  [[nodiscard]] std::optional<Bytes> gpu_bytes(std::uint64_t n, Tokens len) const override {
    return bytes(block_, n, len.value, 1);
  }
  [[nodiscard]] std::optional<Bytes> replica_bytes(std::uint64_t n, Tokens len) const override {
    return engine_detail::sum_parts(blocks_, [&](const auto& b) { return bytes(b, n, len.value, p_.tp); });
  }
  [[nodiscard]] std::uint64_t max_requests(Tokens len, Bytes memory) const override {
    if (block_.value == 0) return kUnboundedRequests;
    return pool(memory) / ceil_div(len.value, bs_);  // the block manager allocates whole blocks
  }
  [[nodiscard]] std::optional<Tokens> max_context(std::uint64_t n, Bytes memory) const override {
    if (n == 0 || block_.value == 0) return std::nullopt;
    return Tokens{mul_sat(pool(memory) / n, bs_)};
  }
  [[nodiscard]] EngineResult report(Tokens len, std::uint64_t n, std::optional<Bytes> memory) const override;

 private:
  /// The pool: num_gpu_blocks = available // block bytes (determine_num_available_blocks), the block of
  /// the fullest stage; block_ must be positive.
  [[nodiscard]] std::uint64_t pool(Bytes memory) const { return memory.value / block_.value; }
  [[nodiscard]] std::optional<Bytes> bytes(Bytes block, std::uint64_t n, std::uint64_t len,
                                           std::uint64_t ranks) const {
    return as_bytes(product({block.value, ceil_div(len, bs_), n, ranks}));
  }
  std::uint64_t bs_;
  Bytes block_{0};
  std::vector<Bytes> blocks_;  // per stage
};

EngineResult VllmV0Policy::report(Tokens context, std::uint64_t, std::optional<Bytes> kv_memory) const {
  EngineResult r;
  r.engine = Engine::vllm;
  r.rules =
      "vLLM V0 (0.6-era): vllm/worker/cache_engine.py CacheEngine.get_cache_block_size, "
      "vllm/worker/worker.py determine_num_available_blocks";
  r.block_size = bs_;
  r.page_bytes = block_;
  r.bytes_per_token = Bytes{block_.value / bs_};
  r.per_token_note =
      "per GPU: one block holds block_size tokens of every layer; V0 caches every layer in full";
  for (const auto& g : kv_specs(m_, t_, p_.tp))
    if (g.kv.is_swa()) {
      r.notes.push_back("V0 allocates sliding-window and chunked layers at full length");
      break;
    }
  r.kv_bytes_total = block_ * ceil_div(context.value, bs_);
  if (!kv_memory) return r;
  if (block_.value == 0) throw Error("page_size_bytes", "is 0 B: the engine cannot size a cache from it");
  const std::uint64_t blocks = pool(*kv_memory);
  r.num_blocks = blocks;
  r.kv_cache_tokens = checked_mul(blocks, bs_, "tokens");
  r.max_concurrency = static_cast<double>(*r.kv_cache_tokens) / static_cast<double>(context.value);
  r.max_requests = max_requests(context, *kv_memory);
  r.max_context =
      r.kv_cache_tokens;  // raise_if_cache_size_invalid: max_seq_len = block_size * num_gpu_blocks
  r.log_lines.push_back("# GPU blocks: " + std::to_string(blocks) + ", # CPU blocks: 0");
  r.log_lines.push_back("Maximum concurrency for " + std::to_string(context.value) +
                        " tokens per request: " + format_fixed(*r.max_concurrency, 2) + "x");
  return r;
}
}  // namespace

namespace engine_detail {
std::unique_ptr<EnginePolicy> make_vllm_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p,
                                               const EngineOptions& o, const GroupClasses& c) {
  vllm_checks(m, t, o);
  const Parallelism q = with_split(p, Engine::vllm);
  if (o.version == "v0") return std::make_unique<VllmV0Policy>(m, t, q, o);
  return std::make_unique<VllmPolicy>(m, t, q, o, c);
}
}  // namespace engine_detail

EngineResult vllm_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                         const EngineOptions& o, std::optional<Bytes> kv_memory) {
  return make_vllm_policy(m, t, p, o)->report(context, 1, kv_memory);
}

}  // namespace kvplan
