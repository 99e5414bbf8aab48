// llama.cpp's KV caches, after src/llama-kv-cache.cpp (llama_kv_cache constructor: one K and one V
// tensor per layer of ggml_row_size(type, n_embd_{k,v}_gqa) x kv_size x n_stream),
// src/llama-kv-cache-iswa.cpp (llama_kv_cache_iswa: a base cache for the non-SWA layers and an SWA
// cache for the sliding / chunked layers) and src/llama-context.cpp (context padding).
// Versions (--engine-version):
//  - "2026" (default; PR #17046, 2025-11-06, and PR #19067, 2026-01-24): n_ctx = pad(n_ctx, 256);
//    per stream n_ctx_seq = pad(n_ctx / n_seq_max, 256) (unified: n_ctx); SWA cells =
//    pad(min(n_ctx_seq, n_swa x (unified ? n_seq_max : 1) + n_ubatch), 256); MLA caches K only
//    (kv_lora_rank + qk_rope_head_dim), no V ("V-less cache").
//  - "2025-11": the same padding, MLA with its 512-wide V cache beside K (PR #12801, April 2025).
//  - "2025-08": padding 256 (flash attention on or auto): n_ctx per stream = pad(ceil(n_ctx / n_seq_max),
//    256); SWA cells = min(n_ctx per stream, pad(n_swa x (unified ? n_seq_max : 1) + n_ubatch, 256));
//    MLA with V.
// --swa-full: the SWA cache gets the base size. Streams: n_seq_max unless --kv-unified.
// llama.cpp has no tensor parallelism for the KV cache: each layer's K/V lives on the device holding
// the layer (--pp here: an even layer split; the real split follows the devices' free memory).
#include <algorithm>
#include <limits>

#include "engine_common.hpp"
#include "kvplan/format.hpp"

namespace kvplan {

namespace {
constexpr std::uint64_t kPad = 256;
std::uint64_t pad(std::uint64_t x, std::uint64_t n) { return checked_mul(ceil_div(x, n), n, "context"); }

/// Per-layer K and V row bytes as llama.cpp stores them.
std::pair<Bytes, Bytes> rows(const AttentionLayer& a, const KvDtypes& t, bool mla_v) {
  if (a.kind == AttentionKind::mla && a.mla_per_head_cache) {
    // A GGUF converted before the MLA split (llama-model.cpp: no attn_k_b / attn_v_b): the graph
    // decompresses K and V, and the cache holds them per head (n_embd_k_gqa = heads x key_length).
    return {row_bytes(t.k, checked_mul(a.num_attention_heads, a.head_dim_k, "head_dim")),
            row_bytes(t.v, checked_mul(a.num_attention_heads, a.head_dim_v, "head_dim"))};
  }
  if (a.kind == AttentionKind::mla) {
    // convert_hf_to_gguf.py DeepseekV2Model: MQA with key_length = kv_lora_rank + qk_rope_head_dim,
    // value_length = kv_lora_rank, head_count_kv = 1.
    return {row_bytes(t.k, checked_add(a.kv_lora_rank, a.qk_rope_head_dim, "kv_lora_rank")),
            mla_v ? row_bytes(t.v, a.kv_lora_rank) : Bytes{0}};
  }
  return {row_bytes(t.k, checked_mul(a.num_key_value_heads, a.head_dim_k, "head_dim")),
          row_bytes(t.v, checked_mul(a.num_key_value_heads, a.head_dim_v, "head_dim"))};
}

std::string type_name(DType d) {
  switch (d) {
    case DType::fp16: return "f16";
    case DType::fp32: return "f32";
    default: return std::string(name(d));
  }
}
}  // namespace

EngineResult llamacpp_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                             std::uint64_t users, const EngineOptions& o, std::optional<Bytes> kv_memory) {
  using namespace engine_detail;
  if (p.tp > 1)
    throw Error("--tp",
                "llama.cpp does not split the KV cache by heads: use --pp for a layer split across devices");
  const std::string version = o.version.empty() ? "2026" : o.version;
  if (version != "2026" && version != "2025-11" && version != "2025-08")
    throw Error("--engine-version",
                "llamacpp versions: 2026 (default), 2025-11, 2025-08; got '" + o.version + "'");
  if (t.k == DType::fp8_e4m3 || t.k == DType::fp8_e5m2 || t.k == DType::int4 || t.k == DType::int8 ||
      t.v == DType::fp8_e4m3 || t.v == DType::fp8_e5m2 || t.v == DType::int4 || t.v == DType::int8)
    throw Error("--kv-dtype", "llama.cpp cache types are f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1");
  const bool mla_v = version != "2026";
  const std::uint64_t ubatch = o.ubatch ? o.ubatch : 512;

  EngineResult r;
  r.engine = Engine::llamacpp;
  r.rules =
      "llama.cpp " + version + ": src/llama-kv-cache.cpp, src/llama-kv-cache-iswa.cpp, src/llama-context.cpp";
  r.block_size = 0;

  // Context: n_seq_max = users, context per slot = context.
  const std::uint64_t n_seq = users;
  const std::uint64_t n_ctx = checked_mul(context.value, n_seq, "context");
  std::uint64_t per_stream = 0;
  if (version == "2025-08") {
    per_stream = o.kv_unified ? pad(n_ctx, kPad) : pad(ceil_div(n_ctx, n_seq), kPad);
  } else {
    const std::uint64_t padded = pad(n_ctx, kPad);
    per_stream = o.kv_unified ? padded : pad(padded / n_seq, kPad);
  }
  const std::uint64_t streams = o.kv_unified ? 1 : n_seq;

  bool any_swa = false, any_full = false;
  std::uint64_t n_swa = 0;
  for (const auto& g : m.layers) {
    const auto k = g.attention.kind;
    if (k == AttentionKind::sliding || k == AttentionKind::chunked) {
      any_swa = true;
      n_swa = std::max(n_swa, g.attention.window);
    } else if (has_attention(k)) {
      any_full = true;
    }
  }
  const bool iswa = any_swa && any_full;
  if (any_swa && !any_full)
    r.notes.push_back(
        "every layer is windowed: llama.cpp's iSWA cache is for models that mix windowed and "
        "global layers; this model is counted with a full-size cache on every layer");
  std::uint64_t swa_cells = per_stream;
  if (iswa && !o.swa_full) {
    const std::uint64_t want =
        checked_add(checked_mul(n_swa, o.kv_unified ? n_seq : 1, "context"), ubatch, "context");
    swa_cells =
        version == "2025-08" ? std::min(per_stream, pad(want, kPad)) : pad(std::min(per_stream, want), kPad);
  }

  EngineCache full{"full", per_stream, streams, 0, Bytes{0}, Bytes{0}};
  EngineCache swa{"swa", swa_cells, streams, 0, Bytes{0}, Bytes{0}};
  Bytes per_token{0};
  for (const auto& g : m.layers) {
    const auto& a = g.attention;
    // Layers that reuse an earlier layer's K/V get no cache (llama_kv_cache: n_layer_kv_from_start).
    if (!has_attention(a.kind) || a.kv_shared) continue;
    if (a.indexer_head_dim != 0)
      throw Error("--engine",
                  "llama.cpp's cache for DeepSeek-V3.2's sparse-attention indexer is not modelled by "
                  "kvplan; use --engine vllm, sglang or ideal");
    const auto [kr, vr] = rows(a, t, mla_v);
    per_token += (kr + vr) * g.count;
    const bool is_swa = iswa && (a.kind == AttentionKind::sliding || a.kind == AttentionKind::chunked);
    EngineCache& c = is_swa ? swa : full;
    c.layers += g.count;
    c.k_bytes += kr * checked_mul(c.cells, streams, "context") * g.count;
    c.v_bytes += vr * checked_mul(c.cells, streams, "context") * g.count;
  }
  r.bytes_per_token = per_token;
  r.per_token_note =
      iswa ? "per cell, every layer; the SWA cache holds only " + format_count(swa_cells) + " cells"
           : "per cell, every layer";
  const auto log_cache = [&](const EngineCache& c) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "llama_kv_cache: size = %7.2f MiB (%6llu cells, %3llu layers, %2llu/%llu seqs), "
                  "K (%s): %7.2f MiB, V (%s): %7.2f MiB",
                  static_cast<double>((c.k_bytes + c.v_bytes).value) / 1048576.0,
                  static_cast<unsigned long long>(c.cells), static_cast<unsigned long long>(c.layers),
                  static_cast<unsigned long long>(n_seq), static_cast<unsigned long long>(streams),
                  type_name(t.k).c_str(), static_cast<double>(c.k_bytes.value) / 1048576.0,
                  type_name(t.v).c_str(), static_cast<double>(c.v_bytes.value) / 1048576.0);
    return std::string(buf);
  };
  if (iswa) {
    r.log_lines.push_back(
        "llama_kv_cache_iswa: creating non-SWA KV cache, size = " + std::to_string(per_stream) + " cells");
    r.log_lines.push_back(log_cache(full));
    r.log_lines.push_back(
        "llama_kv_cache_iswa: creating     SWA KV cache, size = " + std::to_string(swa_cells) + " cells");
    r.log_lines.push_back(log_cache(swa));
    r.caches = {full, swa};
  } else {
    r.log_lines.push_back(log_cache(full));
    r.caches = {full};
  }
  r.kv_bytes_total = full.k_bytes + full.v_bytes + swa.k_bytes + swa.v_bytes;
  if (has_recurrent(m)) {
    // src/llama-memory-recurrent.cpp: for each recurrent layer one R row (n_embd_r: the conv taps) and one
    // S row (n_embd_s: the SSM / recurrent state) per cell, both f32 (llama-model.cpp create_memory:
    // type_r = type_s = GGML_TYPE_F32, whatever --cache-type-k says); mem_size = max(1, n_seq_max) cells.
    // n_embd_r / n_embd_s (llama-hparams.cpp) hold the values of vLLM's state shapes at tp 1.
    std::uint64_t r_values = 0, s_values = 0, recurrent_layers = 0;
    for (const auto& g : m.layers) {
      if (!has_state(g.attention)) continue;
      const StateValues v = layer_state_values(g.attention.recurrent, 1);
      r_values = checked_add(r_values, checked_mul(v.conv, g.count, "state"), "state");
      s_values = checked_add(s_values, checked_mul(v.ssm, g.count, "state"), "state");
      recurrent_layers += g.count;
    }
    const std::uint64_t cells = std::max<std::uint64_t>(1, n_seq);
    const Bytes rb = row_bytes(DType::fp32, r_values) * cells, sb = row_bytes(DType::fp32, s_values) * cells;
    char buf[256];
    std::snprintf(
        buf, sizeof buf,
        "llama_memory_recurrent: size = %7.2f MiB (%6llu cells, %3llu layers, %2llu seqs), R (f32): "
        "%7.2f MiB, S (f32): %7.2f MiB",
        static_cast<double>((rb + sb).value) / 1048576.0, static_cast<unsigned long long>(cells),
        static_cast<unsigned long long>(num_layers(m)), static_cast<unsigned long long>(n_seq),
        static_cast<double>(rb.value) / 1048576.0, static_cast<double>(sb.value) / 1048576.0);
    r.log_lines.emplace_back(buf);
    r.notes.push_back("recurrent state: " + format_count(recurrent_layers) +
                      " layers, kept in f32 by llama.cpp whatever the KV cache type (" +
                      format_bytes_exact(rb + sb) + " for " + format_count(cells) + " cells)");
    r.kv_bytes_total += rb + sb;
  }
  // Per device with a layer split (--pp): the layers each device holds. kv_bytes_total is then the
  // fullest device's buffers (an EngineResult is per GPU); the caches and the log keep the whole model.
  if (p.pp > 1) {
    std::uint64_t dev = 0;
    Bytes fullest{0};
    // One copy of the model's metadata, its layers replaced by each stage's in turn: O(groups + pp).
    ModelSpec stage = m;
    for (const auto& view : stage_views(m, p.pp)) {
      stage.layers.clear();
      for (const auto& g : view.layers) stage.layers.push_back({g.attention, g.mlp, g.count});
      EngineOptions one = o;
      const auto part = llamacpp_policy(stage, t, Parallelism{1, 1, 1}, context, users, one, std::nullopt);
      r.log_lines.push_back("llama_kv_cache: device " + std::to_string(dev++) +
                            " KV buffer size = " + mib(part.kv_bytes_total) + " MiB");
      fullest = std::max(fullest, part.kv_bytes_total);
    }
    r.kv_bytes_total = fullest;
  }
  if (kv_memory) {
    // The longest context per slot whose buffers fit the memory (llama.cpp allocates what it is asked).
    const auto fits = [&](std::uint64_t ctx) {
      try {
        return llamacpp_policy(m, t, p, Tokens{ctx}, users, o, std::nullopt).kv_bytes_total <= *kv_memory;
      } catch (const Error&) {
        return false;
      }
    };
    r.max_context = largest_fitting(std::numeric_limits<std::uint64_t>::max(), fits);
  }
  return r;
}

}  // namespace kvplan
