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
//  - get_num_blocks: available // page_size // group_size; GPU KV cache size (_report_kv_cache_config)
//    = num_blocks // groups * block_size tokens; get_max_concurrency_for_kv_cache_config: num_blocks /
//    sum over groups of cdiv(max_memory_usage_bytes, page_size).
//  - max_memory_usage_bytes: full cdiv(max_model_len, bs) pages; SlidingWindowSpec
//    cdiv(min(W - 1 + max_num_batched_tokens, max_model_len), bs) + 1 pages; ChunkedLocalAttentionSpec
//    cdiv(min(C + max_num_batched_tokens, max_model_len), bs) pages.
//  - estimate_max_model_len: binary search for the largest length whose need fits the memory.
//  - Pipeline parallel (get_kv_cache_configs): each stage sizes its own blocks; all take the minimum.
// V0 (version "v0", 0.6-era), after vllm/worker/cache_engine.py CacheEngine.get_cache_block_size and
// vllm/worker/worker.py determine_num_available_blocks: one block holds block_size tokens of every
// layer of the stage; num_gpu_blocks = available // block bytes; concurrency = blocks x bs / max_model_len.
#include <algorithm>
#include <limits>
#include <map>

#include "engine_common.hpp"
#include "kvplan/format.hpp"

namespace kvplan {

namespace {
using namespace engine_detail;

constexpr std::uint64_t kDefaultBlockSize = 16;              // vllm/platforms/cuda.py check_and_update_config
constexpr std::uint64_t kDefaultMaxNumBatchedTokens = 8192;  // vllm serve on large GPUs (V1)

/// One layer's KV cache spec as vLLM builds it.
struct Spec {
  AttentionKind kind = AttentionKind::full;  // full (incl. MLA), sliding, chunked, none (MambaSpec)
  bool mla = false;
  Bytes mamba_page;  // MambaSpec: the state, padded to the attention page
  std::uint64_t window = 0;
  Bytes per_token;  // bytes per token of this layer on one rank
  std::uint64_t block_size = 0;
  [[nodiscard]] Bytes page() const {
    return kind == AttentionKind::recurrent ? mamba_page : per_token * block_size;
  }
  /// vLLM's type_id: layers with equal ids share a group type.
  [[nodiscard]] std::string type_id() const {
    return std::string(name(kind)) + (mla ? "_mla" : "") + "_" + std::to_string(window) + "_" +
           std::to_string(page().value);
  }
  /// max_memory_usage_bytes for a request of `len` tokens.
  [[nodiscard]] Bytes max_memory(std::uint64_t len, std::uint64_t mnbt) const {
    // min(a + b, len) without wrapping when a window is near 2^64.
    const auto capped = [len](std::uint64_t a, std::uint64_t b) {
      return a >= len || b >= len - a ? len : a + b;
    };
    switch (kind) {
      case AttentionKind::recurrent: return page();  // mamba_cache_mode "none": one state per request
      case AttentionKind::sliding: return page() * (ceil_div(capped(window - 1, mnbt), block_size) + 1);
      case AttentionKind::chunked: return page() * ceil_div(capped(window, mnbt), block_size);
      default: return page() * ceil_div(len, block_size);
    }
  }
};

Bytes vllm_layer_bytes(const AttentionLayer& a, const KvDtypes& t, std::uint64_t tp, bool fp8_ds_mla) {
  if (a.kind == AttentionKind::mla) {
    // DeepSeek-V3.2's indexer keys (DeepseekV32IndexerCache) are allocated per layer beside the latent,
    // with the same block size; counted here as part of the layer's page.
    if (fp8_ds_mla)
      return Bytes{656} +
             indexer_bytes_per_token(a);  // flashmla_sparse.py: 512 fp8 + 4 fp32 scales + 64 bf16 RoPE
    return row_bytes(t.k, checked_add(a.kv_lora_rank, a.qk_rope_head_dim, "kv_lora_rank")) +
           indexer_bytes_per_token(a);
  }
  const std::uint64_t heads = kv_heads_per_rank(a, tp);
  return row_bytes(t.k, checked_mul(heads, checked_add(a.head_dim_k, a.head_dim_v, "head_dim"), "head_dim"));
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
  std::map<std::string, std::pair<Spec, std::uint64_t>> by_type;
  std::vector<std::string> order;
  for (const auto& g : stage.layers) {
    const auto& a = g.attention;
    Spec s;
    if (has_state(a)) {
      // A MambaSpec for the layer's state (Falcon-H1's parallel mixer registers one beside its attention).
      Spec m;
      m.kind = AttentionKind::recurrent;
      m.mamba_page = mamba_page;
      m.block_size = bs;
      const std::string id = "mamba_" + std::to_string(mamba_page.value);
      if (!by_type.count(id)) order.push_back(id);
      by_type[id].first = m;
      by_type[id].second += g.count;
      if (a.kind == AttentionKind::recurrent) continue;
    }
    // No cache of their own: MLP-only blocks, and layers that read another layer's K/V
    // (kv_sharing_target_layer_name: vLLM allocates nothing for them).
    if (a.kind == AttentionKind::mlp_only || a.kv_shared) continue;
    s.kind = a.kind == AttentionKind::mla ? AttentionKind::full : a.kind;
    s.mla = a.kind == AttentionKind::mla;
    s.window = s.kind == AttentionKind::full ? 0 : a.window;
    if (o.disable_hybrid_kv_cache_manager) {  // unify_hybrid_kv_cache_specs: every layer full
      s.kind = AttentionKind::full;
      s.window = 0;
    }
    s.per_token = vllm_layer_bytes(a, t, tp, o.fp8_ds_mla);
    s.block_size = bs;
    const std::string id = s.type_id();
    if (!by_type.count(id)) order.push_back(id);
    auto& e = by_type[id];
    e.first = s;
    e.second += g.count;
  }
  Groups out;
  if (by_type.empty()) return out;
  if (by_type.size() == 1) {
    const auto& [spec, n] = by_type.begin()->second;
    out.groups.push_back({spec, n});
    out.group_size = n;
    out.page = spec.page();
    return out;
  }
  out.hybrid = true;
  // unify_kv_cache_spec_page_size: raise the block size of smaller pages to the largest page.
  Bytes max_page{0};
  for (const auto& [id, e] : by_type) max_page = std::max(max_page, e.first.page());
  for (auto& [id, e] : by_type) {
    const Bytes page = e.first.page();
    if (page == Bytes{0}) throw Error("page_size_bytes", "is 0 B for a layer: vLLM cannot page it");
    if (max_page.value % page.value != 0)
      throw Error("--engine", "vLLM cannot unify the page sizes of this model's layers (" +
                                  std::to_string(page.value) + " B and " + std::to_string(max_page.value) +
                                  " B)");
    e.first.block_size = checked_mul(bs, max_page.value / page.value, "--block-size");
  }
  std::uint64_t fewest = ~0ULL, most = 0;
  for (const auto& [id, e] : by_type) {
    fewest = std::min(fewest, e.second);
    most = std::max(most, e.second);
  }
  out.group_size = most * 2 < fewest * 3 ? most : fewest;  // most < 1.5 x fewest
  for (const auto& id : order) {
    const auto& [spec, n] = by_type[id];
    const std::uint64_t groups = ceil_div(n, out.group_size);
    for (std::uint64_t i = 0; i < groups; ++i)
      out.groups.push_back({spec, std::min(out.group_size, n - i * out.group_size)});
  }
  out.page = max_page;
  return out;
}

/// Pages one request of `len` tokens needs, over all groups.
std::uint64_t pages_per_request(const Groups& g, std::uint64_t len, std::uint64_t mnbt) {
  if (g.page == Bytes{0}) throw Error("page_size_bytes", "is 0 B: vLLM cannot page this model");
  std::uint64_t pages = 0;
  for (const auto& [spec, n] : g.groups)
    pages = checked_add(pages, ceil_div(spec.max_memory(len, mnbt).value, g.page.value), "context");
  return pages;
}

EngineResult vllm_v0(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                     const EngineOptions& o, std::optional<Bytes> kv_memory) {
  EngineResult r;
  r.engine = Engine::vllm;
  r.rules =
      "vLLM V0 (0.6-era): vllm/worker/cache_engine.py CacheEngine.get_cache_block_size, "
      "vllm/worker/worker.py determine_num_available_blocks";
  const std::uint64_t bs = o.block_size ? o.block_size : kDefaultBlockSize;
  r.block_size = bs;
  Bytes block{0};
  for (const auto& stage : stage_views(m, p.pp)) {
    Bytes per_token{0};
    for (const auto& g : stage.layers)
      if (has_attention(g.attention.kind) && !g.attention.kv_shared)
        per_token += vllm_layer_bytes(g.attention, t, p.tp, false) * g.count;
    block = std::max(block, per_token * bs);
  }
  r.page_bytes = block;
  r.bytes_per_token = Bytes{block.value / bs};
  r.per_token_note =
      "per GPU: one block holds block_size tokens of every layer; V0 caches every layer in full";
  for (const auto& g : m.layers)
    if (g.attention.kind == AttentionKind::sliding || g.attention.kind == AttentionKind::chunked) {
      r.notes.push_back("V0 allocates sliding-window and chunked layers at full length");
      break;
    }
  r.kv_bytes_total = block * ceil_div(context.value, bs);
  if (!kv_memory) return r;
  const std::uint64_t blocks = divide(kv_memory->value, block.value, "page_size_bytes");
  r.num_blocks = blocks;
  r.kv_cache_tokens = checked_mul(blocks, bs, "tokens");
  r.max_concurrency = static_cast<double>(*r.kv_cache_tokens) / static_cast<double>(context.value);
  r.max_requests = blocks / ceil_div(context.value, bs);  // the block manager allocates whole blocks
  r.max_context =
      r.kv_cache_tokens;  // raise_if_cache_size_invalid: max_seq_len = block_size * num_gpu_blocks
  r.log_lines.push_back("# GPU blocks: " + std::to_string(blocks) + ", # CPU blocks: 0");
  r.log_lines.push_back("Maximum concurrency for " + std::to_string(context.value) +
                        " tokens per request: " + format_fixed(*r.max_concurrency, 2) + "x");
  return r;
}
}  // namespace

EngineResult vllm_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                         const EngineOptions& o, std::optional<Bytes> kv_memory) {
  if (o.fp8_ds_mla) {
    bool mla = false;
    for (const auto& g : m.layers) mla = mla || g.attention.kind == AttentionKind::mla;
    if (!mla) throw Error("--kv-dtype", "fp8_ds_mla applies to MLA models only");
  }
  require_plain_dtypes(t, "vLLM", false);
  if (o.version == "v0") {
    if (has_recurrent(m)) throw Error("--engine-version", "vLLM V0's Mamba cache is not modelled; use v1");
    return vllm_v0(m, t, p, context, o, kv_memory);
  }
  if (!o.version.empty() && o.version != "v1")
    throw Error("--engine-version", "vllm versions: v1 (default), v0; got '" + o.version + "'");

  EngineResult r;
  r.engine = Engine::vllm;
  r.rules =
      "vLLM V1: vllm/v1/kv_cache_interface.py (page_size_bytes, max_memory_usage_bytes), "
      "vllm/v1/core/kv_cache_utils.py (get_kv_cache_groups, get_num_blocks, _report_kv_cache_config)";
  const std::uint64_t bs = o.block_size ? o.block_size : kDefaultBlockSize;
  const std::uint64_t mnbt =
      o.max_num_batched_tokens ? o.max_num_batched_tokens : kDefaultMaxNumBatchedTokens;
  r.block_size = bs;
  for (const auto& g : m.layers)
    if (g.attention.kind == AttentionKind::mla && !o.block_size) {
      r.notes.push_back(
          "vLLM forces block_size 64 for FlashMLA (Hopper) and 128 for CUTLASS MLA (Blackwell): "
          "pass --block-size to match your backend");
      break;
    }

  // Hybrid attention + Mamba / linear attention (vllm/model_executor/models/config.py,
  // HybridAttentionMambaModelConfig.verify_and_update_config, mamba_cache_mode "none"): the attention
  // block size becomes the smallest multiple of 16 whose page holds a Mamba state, and the Mamba page
  // is padded to the attention page.
  Bytes mamba_page{0};
  std::uint64_t block = bs;
  if (has_recurrent(m)) {
    if (o.disable_hybrid_kv_cache_manager)
      throw Error("--disable-hybrid-kv-cache-manager",
                  "vLLM needs its hybrid manager for Mamba / linear-attention layers");
    Bytes attn_1{0}, state{0};
    for (const auto& g : m.layers) {
      if (has_state(g.attention)) state = std::max(state, layer_state_bytes(g.attention, t, p.tp));
      if (has_attention(g.attention.kind) && !g.attention.kv_shared)
        attn_1 = std::max(attn_1, vllm_layer_bytes(g.attention, t, p.tp, o.fp8_ds_mla));
    }
    if (attn_1 == Bytes{0}) throw Error("--engine", "vLLM: a model without attention layers is not modelled");
    if (state == Bytes{0})
      throw Error("recurrent", "the Mamba / linear-attention state is 0 B: no state fields");
    const std::uint64_t align = 16;
    const std::uint64_t needed =
        checked_mul(align, ceil_div(state.value, checked_mul(align, attn_1.value, "bytes")), "bytes");
    if (o.block_size == 0 || o.block_size < needed) {
      block = needed;
      r.log_lines.push_back("Setting attention block size to " + std::to_string(block) +
                            " tokens to ensure that attention page size is >= mamba page size.");
    }
    mamba_page = attn_1 * block;
    if (mamba_page != state)
      r.log_lines.push_back(
          "Padding mamba page size by " +
          format_fixed(
              100.0 * static_cast<double>((mamba_page - state).value) / static_cast<double>(state.value), 2) +
          "% to ensure that mamba page size and attention page size are exactly equal.");
    r.block_size = block;
  }
  const auto stages = stage_views(m, p.pp);
  std::vector<Groups> groups;
  for (const auto& s : stages) groups.push_back(group_stage(s, t, p.tp, o, block, mamba_page));
  // The reported figures follow the stage with the fewest blocks; with equal memory that is the one
  // with the most layers per group (ties: the first).
  std::size_t worst = 0;
  for (std::size_t i = 1; i < groups.size(); ++i)
    if (groups[i].page * groups[i].group_size > groups[worst].page * groups[worst].group_size) worst = i;
  const Groups& g = groups[worst];
  r.page_bytes = g.page;
  if (!g.hybrid) {
    r.bytes_per_token = Bytes{g.page.value / block * g.group_size};
    r.per_token_note = "per GPU: page_size_bytes / block_size x layers";
  } else {
    r.per_token_note =
        "not meaningful under vLLM's hybrid allocator: " + std::to_string(g.groups.size()) +
        " KV cache groups of " + std::to_string(g.group_size) +
        " layers share one block pool; sliding and chunked groups hold at most the window plus "
        "max_num_batched_tokens (" +
        format_count(mnbt) + ") tokens; read the token and concurrency figures";
  }
  // KV for one request of the context length, all groups, this GPU.
  r.kv_bytes_total = g.page * checked_mul(pages_per_request(g, context.value, mnbt), g.group_size, "context");
  if (!kv_memory) return r;

  std::uint64_t blocks = ~0ULL;
  for (const auto& s : groups)
    blocks = std::min(
        blocks, divide(divide(kv_memory->value, s.page.value, "page_size_bytes"), s.group_size, "layers"));
  r.num_blocks = blocks;
  std::uint64_t min_block = ~0ULL;
  for (const auto& [spec, n] : g.groups) min_block = std::min(min_block, spec.block_size);
  r.kv_cache_tokens = checked_mul(divide(blocks, g.groups.size(), "layers"), min_block, "tokens");
  const std::uint64_t pages = pages_per_request(g, context.value, mnbt);
  r.max_concurrency = static_cast<double>(blocks) / static_cast<double>(pages);
  r.max_requests = divide(blocks, pages, "context");
  // estimate_max_model_len: the largest length whose pages fit, on every stage.
  const auto fits = [&](std::uint64_t len) {
    for (const auto& s : groups) {
      try {
        if (pages_per_request(s, len, mnbt) >
            divide(divide(kv_memory->value, s.page.value, "page_size_bytes"), s.group_size, "layers"))
          return false;
      } catch (const Error&) {
        return false;
      }
    }
    return true;
  };
  // Every length a request can have: only a model that fits at all of them is unbounded.
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max();
  if (fits(limit)) {
    r.max_context_unbounded = true;
  } else {
    r.max_context = largest_fitting(limit, fits);
  }
  r.log_lines.push_back("Available KV cache memory: " + gib(*kv_memory) + " GiB");
  r.log_lines.push_back("GPU KV cache size: " + format_count(*r.kv_cache_tokens) + " tokens");
  r.log_lines.push_back("Maximum concurrency for " + format_count(context.value) +
                        " tokens per request: " + format_fixed(*r.max_concurrency, 2) + "x");
  return r;
}

}  // namespace kvplan
