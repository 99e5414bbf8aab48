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
/// One device's layers as llama.cpp caches them (the whole model without a layer split).
struct Device {
  struct Layer {
    Bytes k, v;  // row bytes per cell
    std::uint64_t count = 0;
    bool windowed = false;  // sliding or chunked
  };
  std::vector<Layer> layers;
  bool any_swa = false, any_full = false;
  std::uint64_t n_swa = 0;  // the widest window
  std::uint64_t layer_count = 0;
  std::uint64_t r_values = 0, s_values = 0, recurrent_layers = 0;  // recurrent R and S rows, per cell
  [[nodiscard]] bool iswa() const { return any_swa && any_full; }
};

template <class Groups>
Device make_device(const Groups& groups, const KvDtypes& t, bool mla_v) {
  Device d;
  for (const auto& g : groups) {
    const auto& a = g.attention;
    d.layer_count += g.count;
    const auto k = a.kind;
    if (k == AttentionKind::sliding || k == AttentionKind::chunked) {
      d.any_swa = true;
      d.n_swa = std::max(d.n_swa, a.window);
    } else if (has_attention(k)) {
      d.any_full = true;
    }
    if (has_state(a)) {
      const StateValues v = layer_state_values(a.recurrent, 1);
      d.r_values = checked_add(d.r_values, checked_mul(v.conv, g.count, "state"), "state");
      d.s_values = checked_add(d.s_values, checked_mul(v.ssm, g.count, "state"), "state");
      d.recurrent_layers += g.count;
    }
    // Layers that reuse an earlier layer's K/V get no cache (llama_kv_cache: n_layer_kv_from_start).
    if (!has_attention(k) || a.kv_shared) continue;
    if (a.indexer_head_dim != 0)
      throw Error("engine",
                  "llama.cpp's cache for DeepSeek-V3.2's sparse-attention indexer is not modelled by "
                  "kvplan; use --engine vllm, sglang or ideal");
    const auto [kr, vr] = rows(a, t, mla_v);
    d.layers.push_back({kr, vr, g.count, k == AttentionKind::sliding || k == AttentionKind::chunked});
  }
  return d;
}

/// What llama.cpp allocates on one device for n_seq_max = n sequences of `context` tokens each.
struct Buffers {
  EngineCache full{"full", 0, 1, 0, Bytes{0}, Bytes{0}};
  EngineCache swa{"swa", 0, 1, 0, Bytes{0}, Bytes{0}};
  std::uint64_t recurrent_cells = 0;
  Bytes r_bytes{0}, s_bytes{0};
  [[nodiscard]] Bytes total() const {
    return full.k_bytes + full.v_bytes + swa.k_bytes + swa.v_bytes + r_bytes + s_bytes;
  }
};

/// The llama_kv_cache (and _iswa, and llama_memory_recurrent) sizes; throws kvplan::Error("context", ...)
/// past 2^64.
Buffers buffers(const Device& d, std::uint64_t n_seq, std::uint64_t context, const EngineOptions& o,
                std::string_view version) {
  const std::uint64_t ubatch = o.ubatch ? o.ubatch : 512;
  const std::uint64_t n_ctx = checked_mul(context, n_seq, "context");
  std::uint64_t per_stream = 0;
  if (version == "2025-08") {
    per_stream = o.kv_unified ? pad(n_ctx, kPad) : pad(ceil_div(n_ctx, n_seq), kPad);
  } else {
    const std::uint64_t padded = pad(n_ctx, kPad);
    per_stream = o.kv_unified ? padded : pad(padded / n_seq, kPad);
  }
  const std::uint64_t streams = o.kv_unified ? 1 : n_seq;
  std::uint64_t swa_cells = per_stream;
  if (d.iswa() && !o.swa_full) {
    const std::uint64_t want =
        checked_add(checked_mul(d.n_swa, o.kv_unified ? n_seq : 1, "context"), ubatch, "context");
    swa_cells =
        version == "2025-08" ? std::min(per_stream, pad(want, kPad)) : pad(std::min(per_stream, want), kPad);
  }
  Buffers b;
  b.full.cells = per_stream;
  b.full.streams = streams;
  b.swa.cells = swa_cells;
  b.swa.streams = streams;
  for (const auto& l : d.layers) {
    EngineCache& c = d.iswa() && l.windowed ? b.swa : b.full;
    c.layers += l.count;
    const std::uint64_t cells = checked_mul(checked_mul(c.cells, streams, "context"), l.count, "context");
    c.k_bytes = Bytes{checked_add(c.k_bytes.value, checked_mul(l.k.value, cells, "context"), "context")};
    c.v_bytes = Bytes{checked_add(c.v_bytes.value, checked_mul(l.v.value, cells, "context"), "context")};
  }
  if (d.recurrent_layers != 0) {
    // src/llama-memory-recurrent.cpp: for each recurrent layer one R row (n_embd_r: the conv taps) and one
    // S row (n_embd_s: the SSM / recurrent state) per cell, both f32 (llama-model.cpp create_memory:
    // type_r = type_s = GGML_TYPE_F32, whatever --cache-type-k says); mem_size = max(1, n_seq_max) cells.
    // n_embd_r / n_embd_s (llama-hparams.cpp) hold the values of vLLM's state shapes at tp 1.
    b.recurrent_cells = std::max<std::uint64_t>(1, n_seq);
    b.r_bytes = row_bytes(DType::fp32, d.r_values) * b.recurrent_cells;
    b.s_bytes = row_bytes(DType::fp32, d.s_values) * b.recurrent_cells;
  }
  return b;
}

void llamacpp_checks(const KvDtypes& t, const Parallelism& p) {
  if (p.tp > 1)
    throw Error("tp",
                "llama.cpp does not split the KV cache by heads: use --pp for a layer split across devices");
  if (t.k == DType::fp8_e4m3 || t.k == DType::fp8_e5m2 || t.k == DType::int4 || t.k == DType::int8 ||
      t.v == DType::fp8_e4m3 || t.v == DType::fp8_e5m2 || t.v == DType::int4 || t.v == DType::int8)
    throw Error("kv_dtype", "llama.cpp cache types are f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1");
}

/// llama.cpp as a policy: it allocates what it is asked (n_seq_max streams of the padded context), so
/// the questions are answered from its buffers per device (the layers each holds under --pp).
class LlamacppPolicy final : public engine_detail::PolicyBase {
 public:
  LlamacppPolicy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, const EngineOptions& o)
      : PolicyBase(m, t, p, o), version_(o.version.empty() ? "2026" : o.version) {
    const bool mla_v = version_ != "2026";
    whole_ = make_device(m.layers, t, mla_v);
    if (p.pp == 1)
      devices_ = {whole_};
    else
      for (const auto& view : stage_views(m, p.pp)) devices_.push_back(make_device(view.layers, t, mla_v));
  }
  [[nodiscard]] std::optional<Bytes> gpu_bytes(std::uint64_t n, Tokens len) const override {
    Bytes most{0};
    for (const Device& d : devices()) {
      const auto b = device_bytes(d, n, len.value);
      if (!b) return std::nullopt;
      most = std::max(most, *b);
    }
    return most;
  }
  [[nodiscard]] std::optional<Bytes> replica_bytes(std::uint64_t n, Tokens len) const override {
    return engine_detail::sum_parts(devices(), [&](const auto& d) { return device_bytes(d, n, len.value); });
  }
  /// The most sequences (n_seq_max) whose buffers fit: more sequences never take less memory.
  [[nodiscard]] std::uint64_t max_requests(Tokens len, Bytes memory) const override {
    const auto n = engine_detail::longest([&](std::uint64_t k) {
      const auto b = gpu_bytes(k, len);
      return b && *b <= memory;
    });
    return n.value_or(kUnboundedRequests);
  }
  /// The longest context per slot whose buffers for n slots fit.
  [[nodiscard]] std::optional<Tokens> max_context(std::uint64_t n, Bytes memory) const override {
    if (n == 0) return std::nullopt;
    const auto l = engine_detail::longest([&](std::uint64_t len) {
      const auto b = gpu_bytes(n, Tokens{len});
      return b && *b <= memory;
    });
    if (!l) return std::nullopt;
    return Tokens{*l};
  }
  [[nodiscard]] EngineResult report(Tokens len, std::uint64_t n, std::optional<Bytes> memory) const override;

 private:
  [[nodiscard]] const std::vector<Device>& devices() const { return devices_; }
  [[nodiscard]] std::optional<Bytes> device_bytes(const Device& d, std::uint64_t n, std::uint64_t len) const {
    try {
      return buffers(d, n, len, o_, version_).total();
    } catch (const Error&) {
      return std::nullopt;  // past 2^64 bytes: it does not fit
    }
  }
  std::string version_;
  Device whole_;
  std::vector<Device> devices_;  // each device's layers (with --pp; else the whole model)
};

EngineResult LlamacppPolicy::report(Tokens context, std::uint64_t users,
                                    std::optional<Bytes> kv_memory) const {
  EngineResult r;
  r.engine = Engine::llamacpp;
  r.rules = "llama.cpp " + version_ +
            ": src/llama-kv-cache.cpp, src/llama-kv-cache-iswa.cpp, src/llama-context.cpp";
  r.block_size = 0;
  const std::uint64_t n_seq = users;
  const Device& d = whole_;
  if (d.any_swa && !d.any_full)
    r.notes.push_back(
        "every layer is windowed: llama.cpp's iSWA cache is for models that mix windowed and "
        "global layers; this model is counted with a full-size cache on every layer");
  const Buffers b = buffers(d, n_seq, context.value, o_, version_);
  Bytes per_token{0};
  for (const auto& l : d.layers) per_token += (l.k + l.v) * l.count;
  r.bytes_per_token = per_token;
  r.per_token_note =
      d.iswa() ? "per cell, every layer; the SWA cache holds only " + format_count(b.swa.cells) + " cells"
               : "per cell, every layer";
  const auto log_cache = [&](const EngineCache& c) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "llama_kv_cache: size = %7.2f MiB (%6llu cells, %3llu layers, %2llu/%llu seqs), "
                  "K (%s): %7.2f MiB, V (%s): %7.2f MiB",
                  static_cast<double>((c.k_bytes + c.v_bytes).value) / 1048576.0,
                  static_cast<unsigned long long>(c.cells), static_cast<unsigned long long>(c.layers),
                  static_cast<unsigned long long>(n_seq), static_cast<unsigned long long>(c.streams),
                  type_name(t_.k).c_str(), static_cast<double>(c.k_bytes.value) / 1048576.0,
                  type_name(t_.v).c_str(), static_cast<double>(c.v_bytes.value) / 1048576.0);
    return std::string(buf);
  };
  if (d.iswa()) {
    r.log_lines.push_back(
        "llama_kv_cache_iswa: creating non-SWA KV cache, size = " + std::to_string(b.full.cells) + " cells");
    r.log_lines.push_back(log_cache(b.full));
    r.log_lines.push_back(
        "llama_kv_cache_iswa: creating     SWA KV cache, size = " + std::to_string(b.swa.cells) + " cells");
    r.log_lines.push_back(log_cache(b.swa));
    r.caches = {b.full, b.swa};
  } else {
    r.log_lines.push_back(log_cache(b.full));
    r.caches = {b.full};
  }
  r.kv_bytes_total = b.total();
  if (d.recurrent_layers != 0) {
    char buf[256];
    std::snprintf(
        buf, sizeof buf,
        "llama_memory_recurrent: size = %7.2f MiB (%6llu cells, %3llu layers, %2llu seqs), R (f32): "
        "%7.2f MiB, S (f32): %7.2f MiB",
        static_cast<double>((b.r_bytes + b.s_bytes).value) / 1048576.0,
        static_cast<unsigned long long>(b.recurrent_cells), static_cast<unsigned long long>(d.layer_count),
        static_cast<unsigned long long>(n_seq), static_cast<double>(b.r_bytes.value) / 1048576.0,
        static_cast<double>(b.s_bytes.value) / 1048576.0);
    r.log_lines.emplace_back(buf);
    r.notes.push_back("recurrent state: " + format_count(d.recurrent_layers) +
                      " layers, kept in f32 by llama.cpp whatever the KV cache type (" +
                      format_bytes_exact(b.r_bytes + b.s_bytes) + " for " + format_count(b.recurrent_cells) +
                      " cells)");
  }
  // Per device with a layer split (--pp): the layers each device holds. kv_bytes_total is then the
  // fullest device's buffers (an EngineResult is per GPU); the caches and the log keep the whole model.
  if (p_.pp > 1) {
    std::uint64_t dev = 0;
    Bytes fullest{0};
    for (const Device& part : devices_) {
      const Bytes bytes = buffers(part, n_seq, context.value, o_, version_).total();
      r.log_lines.push_back("llama_kv_cache: device " + std::to_string(dev++) +
                            " KV buffer size = " + mib(bytes) + " MiB");
      fullest = std::max(fullest, bytes);
    }
    r.kv_bytes_total = fullest;
  }
  if (kv_memory) {
    const auto l = max_context(users, *kv_memory);
    r.max_context = l ? l->value : std::numeric_limits<std::uint64_t>::max();
  }
  return r;
}
}  // namespace

namespace engine_detail {
std::unique_ptr<EnginePolicy> make_llamacpp_policy(const ModelSpec& m, const KvDtypes& t,
                                                   const Parallelism& p, const EngineOptions& o) {
  llamacpp_checks(t, p);
  return std::make_unique<LlamacppPolicy>(m, t, p, o);
}
}  // namespace engine_detail

EngineResult llamacpp_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                             std::uint64_t users, const EngineOptions& o, std::optional<Bytes> kv_memory) {
  return engine_detail::make_llamacpp_policy(m, t, p, o)->report(context, users, kv_memory);
}

}  // namespace kvplan
