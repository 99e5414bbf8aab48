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
#include <array>
#include <limits>
#include <span>

#include "engine_common.hpp"
#include "engine_defaults.hpp"
#include "kvplan/budget.hpp"
#include "kvplan/format.hpp"
#include "kvplan/kv_spec.hpp"

namespace kvplan {

namespace {
constexpr std::uint64_t kPad = 256;

/// Per-layer K and V row bytes as llama.cpp stores them. `v_pad`: with flash attention off, the V values
/// of every (non-MLA) layer's row: the widest layer's n_embd_v_gqa (src/llama-kv-cache.cpp, llama_kv_cache
/// constructor, [TAG_V_CACHE_VARIABLE]: n_embd_v_gqa = v_trans ? hparams.n_embd_v_gqa_max() : ...).
/// `kv`: the layer's specs at tp 1 (llama.cpp has no tensor parallelism), geometry for its rows.
std::pair<Bytes, Bytes> rows(const AttentionLayer& a, const LayerKv& kv, const KvDtypes& t, bool mla_v,
                             std::optional<std::uint64_t> v_pad) {
  if (kv.is_mla() && a.mla_per_head_cache) {
    // A GGUF converted before the MLA split (llama-model.cpp: no attn_k_b / attn_v_b): the graph
    // decompresses K and V, and the cache holds them per head (n_embd_k_gqa = heads x key_length).
    return {row_bytes(t.k, checked_mul(a.num_attention_heads, a.head_dim_k, "head_dim")),
            row_bytes(t.v, checked_mul(a.num_attention_heads, a.head_dim_v, "head_dim"))};
  }
  if (kv.is_mla()) {
    // convert_hf_to_gguf.py DeepseekV2Model: MQA with key_length = kv_lora_rank + qk_rope_head_dim (the
    // spec's latent), value_length = kv_lora_rank, head_count_kv = 1.
    return {kv.attention.k_bytes, mla_v ? row_bytes(t.v, a.kv_lora_rank) : Bytes{0}};
  }
  return {kv.attention.k_bytes, v_pad ? row_bytes(t.v, *v_pad) : kv.attention.v_bytes};
}

/// llama_hparams::n_embd_v_gqa_max (src/llama-hparams.cpp): the widest V row of any layer, in values
/// (KV heads x value_length; 0 on a layer without KV). Every layer counts, those that share another's
/// K/V and the recurrent ones too (their 0 changes nothing).
std::uint64_t widest_v(const ModelSpec& m, const KvDtypes& t) {
  std::uint64_t widest = 0;
  for (const auto& g : kv_specs(m, t, 1))
    if (g.kv.attends() && !g.kv.is_mla()) widest = std::max(widest, g.kv.n_embd_v_gqa);
  return widest;
}

std::string type_name(DType d) {
  switch (d) {
    case DType::fp16: return "f16";
    case DType::fp32: return "f32";
    default: return std::string(name(d));
  }
}
/// printf's "%*s": `s` right-aligned in `width` characters.
std::string right(std::string s, std::size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}
/// llama.cpp's "%7.2f" of bytes in MiB, and "%*llu" of a count, without printf's cost (these log lines
/// are built on every plan).
std::string mib_field(Bytes b) { return right(mib(b), 7); }
std::string count_field(std::uint64_t n, std::size_t width) { return right(std::to_string(n), width); }

/// One device's layers as llama.cpp caches them (the whole model without a layer split).
struct Device {
  /// Layers of one kind with their K and V row bytes per cell summed (nullopt past 2^64): a buffer is
  /// these sums x cells x streams.
  struct Rows {
    std::uint64_t layers = 0;
    std::optional<std::uint64_t> k = 0, v = 0;
    void add(Bytes k_row, Bytes v_row, std::uint64_t count) {
      layers += count;
      const auto kc = engine_detail::mul(k_row.value, count), vc = engine_detail::mul(v_row.value, count);
      k = k && kc ? engine_detail::add(*k, *kc) : std::nullopt;
      v = v && vc ? engine_detail::add(*v, *vc) : std::nullopt;
    }
    bool operator==(const Rows&) const = default;
  };
  Rows plain, windowed;  // full / MLA layers; sliding and chunked layers
  Rows all;              // both: the one cache of a model that is not iSWA
  bool any_swa = false, any_full = false;
  std::uint64_t n_swa = 0;  // the widest window
  std::uint64_t layer_count = 0;
  std::uint64_t r_values = 0, s_values = 0, recurrent_layers = 0;  // recurrent R and S rows, per cell
  std::optional<Bytes> r_row, s_row;  // their f32 bytes per cell, all layers (nullopt past 2^64)
  std::uint64_t rs_rows = 1;          // recurrent rows per cell: 1 + n_rs_seq (llama-memory-recurrent.cpp)
  [[nodiscard]] bool iswa() const { return any_swa && any_full; }
  bool operator==(const Device&) const = default;
};

/// The device holding `parts` of the model's layers (engine_detail::for_each_class_stage).
Device make_device(const ModelSpec& m, std::span<const engine_detail::StagePart> parts, const KvDtypes& t,
                   bool mla_v, std::optional<std::uint64_t> v_pad, std::uint64_t rs_rows) {
  Device d;
  d.rs_rows = rs_rows;
  for (const auto& g : parts) {
    const auto& a = m.layers[g.group].attention;
    const LayerKv kv = layer_kv(a, t, 1);
    d.layer_count += g.count;
    if (kv.is_swa()) {  // is_swa(il)
      d.any_swa = true;
      d.n_swa = std::max(d.n_swa, kv.window);
    } else if (kv.attends()) {
      d.any_full = true;
    }
    if (kv.recurrent) {  // is_recurrent(il): n_embd_r (the conv taps) and n_embd_s (the SSM state)
      d.r_values = checked_add(d.r_values, checked_mul(kv.conv.values, g.count, "state"), "state");
      d.s_values = checked_add(d.s_values, checked_mul(kv.ssm.values, g.count, "state"), "state");
      d.recurrent_layers += g.count;
    }
    // Layers without attention, and those that reuse an earlier layer's K/V, get no cache
    // (llama_kv_cache: n_layer_kv_from_start).
    if (kv.attention.kind == KvKind::none) continue;
    if (kv.indexer.kind != KvKind::none)
      throw Error("engine",
                  "llama.cpp's cache for DeepSeek-V3.2's sparse-attention indexer is not modelled by "
                  "kvplan; use vllm, sglang or ideal");
    const auto [kr, vr] = rows(a, kv, t, mla_v, v_pad);
    (kv.is_swa() ? d.windowed : d.plain).add(kr, vr, g.count);
    d.all.add(kr, vr, g.count);
  }
  // Without recurrent layers both are 0 B, whatever f32's size.
  const std::uint64_t f32_bytes = d.recurrent_layers == 0 ? 0 : row_bytes(DType::fp32, 1).value;
  const auto f32 = [&](std::uint64_t values) {
    return engine_detail::as_bytes(engine_detail::mul(values, f32_bytes));
  };
  d.r_row = f32(d.r_values);
  d.s_row = f32(d.s_values);
  return d;
}

/// What llama.cpp allocates on one device for n_seq_max = n sequences of `context` tokens each.
struct Buffers {
  EngineCache full{"full", 0, 1, 0, Bytes{0}, Bytes{0}};
  EngineCache swa{"swa", 0, 1, 0, Bytes{0}, Bytes{0}};
  std::uint64_t recurrent_cells = 0;
  Bytes r_bytes{0}, s_bytes{0};
  Bytes total{0};  ///< every buffer
};

/// The cells of a stream: n_ctx = context x n_seq padded as the version pads it (`v2025_08`: version
/// "2025-08"'s rules), per stream unless unified; nullopt past 2^64.
std::optional<std::uint64_t> stream_cells(std::uint64_t n_seq, std::uint64_t context, const EngineOptions& o,
                                          bool v2025_08) {
  using engine_detail::mul;
  const auto pad = [](std::optional<std::uint64_t> x) { return x ? mul(ceil_div(*x, kPad), kPad) : x; };
  const auto n_ctx = mul(context, n_seq);
  if (v2025_08)
    return o.kv_unified ? pad(n_ctx) : pad(n_ctx ? std::optional(ceil_div(*n_ctx, n_seq)) : n_ctx);
  const auto padded = pad(n_ctx);
  return o.kv_unified ? padded : pad(padded ? std::optional(*padded / n_seq) : padded);
}

/// The SWA cache's cells per stream for `per_stream` full cells: pad(min(per_stream, want), 256) with
/// want = n_swa x (unified ? n_seq : 1) + n_ubatch (2025-08: min(per_stream, pad(want, 256))); the full
/// size without an iSWA cache or with --swa-full; nullopt past 2^64. `v2025_08`: version "2025-08".
std::optional<std::uint64_t> swa_cells(const Device& d, std::uint64_t n_seq, std::uint64_t per_stream,
                                       const EngineOptions& o, bool v2025_08) {
  using engine_detail::mul;
  if (!d.iswa() || o.swa_full) return per_stream;
  const std::uint64_t ubatch = o.ubatch ? o.ubatch : engine_defaults::kLlamacppUbatch;
  const auto scaled = mul(d.n_swa, o.kv_unified ? n_seq : 1);
  const auto want = scaled ? engine_detail::add(*scaled, ubatch) : scaled;
  if (!want) return std::nullopt;
  if (v2025_08) {
    const auto padded = mul(ceil_div(*want, kPad), kPad);
    return padded ? std::min(per_stream, *padded) : padded;
  }
  return mul(ceil_div(std::min(per_stream, *want), kPad), kPad);
}

/// The llama_kv_cache (and _iswa, and llama_memory_recurrent) sizes for n_seq sequences of
/// `per_stream` cells per stream (stream_cells, the same on every device): their total bytes, nullopt
/// past 2^64 (the probes of the policy never throw). With `out`, each buffer too (the report's);
/// without, no EngineCache is built (a capacity search's probes ask only the total).
std::optional<std::uint64_t> buffer_total(const Device& d, std::uint64_t n_seq,
                                          std::optional<std::uint64_t> per_stream, const EngineOptions& o,
                                          bool v2025_08, Buffers* out) {
  using engine_detail::add;
  using engine_detail::mul;
  if (!per_stream) return std::nullopt;
  const auto swa = swa_cells(d, n_seq, *per_stream, o, v2025_08);
  if (!swa) return std::nullopt;
  const std::uint64_t streams = o.kv_unified ? 1 : n_seq;
  if (out != nullptr) {
    out->full.cells = *per_stream;
    out->full.streams = streams;
    out->swa.cells = *swa;
    out->swa.streams = streams;
  }
  std::uint64_t total = 0;
  // K and V of one cache: the rows of its layers x cells x streams.
  const auto fill = [&](EngineCache* c, std::uint64_t cells_per_stream, const Device::Rows& r) {
    if (c != nullptr) c->layers = r.layers;
    if (r.layers == 0) return true;
    std::uint64_t cells = 0, k = 0, v = 0, t = 0;
    if (!r.k || !r.v || __builtin_mul_overflow(cells_per_stream, streams, &cells) ||
        __builtin_mul_overflow(*r.k, cells, &k) || __builtin_mul_overflow(*r.v, cells, &v) ||
        __builtin_add_overflow(total, k, &t) || __builtin_add_overflow(t, v, &t))
      return false;
    if (c != nullptr) {
      c->k_bytes = Bytes{k};
      c->v_bytes = Bytes{v};
    }
    total = t;
    return true;
  };
  EngineCache* full = out != nullptr ? &out->full : nullptr;
  EngineCache* swa_cache = out != nullptr ? &out->swa : nullptr;
  if (!(d.iswa() ? fill(full, *per_stream, d.plain) && fill(swa_cache, *swa, d.windowed)
                 : fill(full, *per_stream, d.all)))
    return std::nullopt;
  if (d.recurrent_layers != 0) {
    // src/llama-memory-recurrent.cpp: for each recurrent layer one R row (n_embd_r: the conv taps) and one
    // S row (n_embd_s: the SSM / recurrent state) per cell, both f32 (llama-model.cpp create_memory:
    // type_r = type_s = GGML_TYPE_F32, whatever --cache-type-k says); mem_size = max(1, n_seq_max) cells.
    // n_embd_r / n_embd_s (llama-hparams.cpp) hold the values of vLLM's state shapes at tp 1. Each tensor
    // has n_rows = mem_size x (1 + n_rs_seq) rows (the rollback snapshots).
    const std::uint64_t recurrent_cells = std::max<std::uint64_t>(1, n_seq);
    const auto rows = mul(recurrent_cells, d.rs_rows);
    const auto r = d.r_row && rows ? mul(d.r_row->value, *rows) : std::nullopt;
    const auto s = d.s_row && rows ? mul(d.s_row->value, *rows) : std::nullopt;
    const auto t = r && s ? add(total, *r) : std::nullopt;
    const auto t2 = t ? add(*t, *s) : t;
    if (!t2) return std::nullopt;
    if (out != nullptr) {
      out->recurrent_cells = recurrent_cells;
      out->r_bytes = Bytes{*r};
      out->s_bytes = Bytes{*s};
    }
    total = *t2;
  }
  if (out != nullptr) out->total = Bytes{total};
  return total;
}

/// buffer_total with every buffer; nullopt past 2^64.
std::optional<Buffers> try_buffers(const Device& d, std::uint64_t n_seq, std::uint64_t context,
                                   const EngineOptions& o, bool v2025_08) {
  Buffers b;
  if (!buffer_total(d, n_seq, stream_cells(n_seq, context, o, v2025_08), o, v2025_08, &b))
    return std::nullopt;
  return b;
}

/// try_buffers for the report; throws kvplan::Error("context", ...) past 2^64.
Buffers buffers(const Device& d, std::uint64_t n_seq, std::uint64_t context, const EngineOptions& o,
                bool v2025_08) {
  const auto b = try_buffers(d, n_seq, context, o, v2025_08);
  if (!b) throw Error("context", "overflows 64-bit arithmetic");
  return *b;
}

/// The n_rs_seq llama.cpp keeps: the option on an architecture with recurrent rollback, else 0
/// (src/llama-context.cpp llama_context: "n_rs_seq=%u requested but model does not support recurrent
/// partial rollback; clamping to 0"; src/llama-arch.cpp llm_arch_supports_rs_rollback). A config's
/// model_type names the same architectures (qwen3_5, qwen3_5_moe, nemotron_h, lfm2, lfm2_moe).
std::uint64_t rs_seq(const ModelSpec& m, const EngineOptions& o) {
  if (o.n_rs_seq == 0) return 0;
  const std::string_view t = m.context_keys.model_type;
  const bool rollback = m.llamacpp_rs_rollback || t == "qwen3_5" || t == "qwen3_5_text" ||
                        t == "qwen3_5_moe" || t == "qwen3_5_moe_text" || t == "nemotron_h" || t == "lfm2" ||
                        t == "lfm2_moe";
  return rollback ? o.n_rs_seq : 0;
}

/// ggml_is_quantized: the block types (src/ggml.c type_traits .is_quantized); f32, f16, bf16 are not.
bool quantized(DType d) { return info(d).block_values > 1; }

void llamacpp_checks(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, const EngineOptions& o) {
  if (p.tp > 1)
    throw Error("tp",
                "llama.cpp does not split the KV cache by heads: use `pp` for a layer split across devices");
  // One llama-server process drives every device of its layer split; ggml's CUDA backend has at most 16
  // (GGML_CUDA_MAX_DEVICES, ggml/include/ggml-cuda.h). fit offered 40-stage splits.
  constexpr std::uint64_t kMaxDevices = 16;
  if (p.pp > kMaxDevices)  // one text for every such pp: fit names the refusal once
    throw Error(
        "pp",
        "more than 16 stages: llama.cpp splits layers over the devices of one process, and ggml's CUDA "
        "backend drives at most 16 (GGML_CUDA_MAX_DEVICES)");
  // common/arg.cpp kv_cache_types: the types -ctk / -ctv accept (f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl,
  // q5_0, q5_1); mxfp4 is a weight type only.
  const auto unsupported = [](DType d) {
    return d == DType::fp8_e4m3 || d == DType::fp8_e5m2 || d == DType::int4 || d == DType::int8 ||
           d == DType::mxfp4;
  };
  if (unsupported(t.k) || unsupported(t.v))
    throw Error("kv_dtype", "llama.cpp has no cache type " + std::string(name(unsupported(t.k) ? t.k : t.v)) +
                                " (its types: f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1)");
  if (o.n_rs_seq != 0 && !o.version.empty() && o.version != "2026")
    throw Error("n_rs_seq",
                "llama.cpp " + o.version + " has no n_rs_seq (it came with the 2026 rules' releases)");
  // src/llama-context.cpp llama_init_from_model: "quantized V cache requires flash_attn to be enabled"
  // (with -fa auto, flash attention is turned on instead).
  if (o.flash_attn_off && quantized(t.v))
    throw Error("v_dtype",
                "llama.cpp refuses a quantised V cache (" + std::string(name(t.v)) +
                    ") with flash attention off (-fa off): use f16, bf16 or f32, or flash attention");
  // src/llama-context.cpp llama_init_from_model: "model does not support different K (%s) and V (%s) cache
  // types" for MLA models (hparams.is_mla()).
  const auto specs = kv_specs(m, t, 1);
  const bool mla =
      std::any_of(specs.begin(), specs.end(), [](const KvSpecGroup& g) { return g.kv.is_mla(); });
  if (mla && t.k != t.v)
    throw Error("v_dtype", "llama.cpp refuses different K and V cache types on an MLA model (K " +
                               std::string(name(t.k)) + ", V " + std::string(name(t.v)) + ")");
  // llama-model.cpp create_memory: the recurrent cache's r and s rows are always GGML_TYPE_F32; llama.cpp
  // has no option for them, so an override would be a figure the engine never allocates.
  if (t.state || t.ssm_state)
    throw Error(t.state ? "mamba_cache_dtype" : "mamba_ssm_cache_dtype",
                "llama.cpp keeps the recurrent state in f32 and has no option to change it");
}

/// llama.cpp as a policy: it allocates what it is asked (n_seq_max streams of the padded context), so
/// the questions are answered from its buffers per device (the layers each holds under --pp).
class LlamacppPolicy final : public engine_detail::PolicyBase {
 public:
  LlamacppPolicy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, const EngineOptions& o,
                 const engine_detail::GroupClasses& c)
      : PolicyBase(m, t, p, o),
        version_(o_.version.empty() ? std::string_view("2026") : std::string_view(o_.version)),
        v2025_08_(!o_.version.empty() && version_ == "2025-08") {
    const bool mla_v = !o_.version.empty() && version_ != "2026";
    const std::optional<std::uint64_t> v_pad =
        o_.flash_attn_off ? std::optional<std::uint64_t>(widest_v(m, t)) : std::nullopt;
    const std::uint64_t rs_rows = 1 + rs_seq(m, o_);
    // The whole model as one stage, its groups of one attention merged (for_each_class_stage).
    engine_detail::for_each_class_stage(m, 1, p.split, c,
                                        [&](const Stage&, std::span<const engine_detail::StagePart> parts) {
                                          whole_.device = make_device(m, parts, t, mla_v, v_pad, rs_rows);
                                        });
    if (p.pp == 1) return;
    // Devices that allocate the same (an even split of a uniform model) are sized once per probe
    // (Llama-3.1-70B at pp 4: one of four); every stage keeps its device for the report. A stage with the
    // parts of an earlier stage (gpt-oss-120b at pp 4: two part lists, alternating) has its device
    // without making it again: the first few part lists are kept, in a fixed array.
    struct Seen {
      std::size_t offset, size, slot;  // parts [offset, offset + size) of `seen`; the slot counting them
    };
    std::array<engine_detail::StagePart, PreparedModel::kMaxAttentionClasses> seen;
    std::array<Seen, 8> lists;
    std::size_t seen_size = 0, list_count = 0;
    engine_detail::for_each_class_stage(
        m, p.pp, p.split, c, [&](const Stage&, std::span<const engine_detail::StagePart> parts) {
          if (stages_.empty()) stages_.reserve(p.pp);  // pp checked by now
          const auto same_part = [](const engine_detail::StagePart& x, const engine_detail::StagePart& y) {
            return x.group == y.group && x.count == y.count;
          };
          for (std::size_t i = 0; i < list_count; ++i) {
            const auto from = seen.begin() + static_cast<std::ptrdiff_t>(lists[i].offset);
            if (std::equal(parts.begin(), parts.end(), from,
                           from + static_cast<std::ptrdiff_t>(lists[i].size), same_part)) {
              ++stages_[lists[i].slot].count;
              stages_.push_back({stages_[lists[i].slot].device, 0});
              return;
            }
          }
          Slot slot{make_device(m, parts, t, mla_v, v_pad, rs_rows), 1};
          const auto first = std::find_if(stages_.begin(), stages_.end(), [&](const Slot& e) {
            return e.count != 0 && e.device == slot.device;
          });
          const auto counting = static_cast<std::size_t>(first - stages_.begin());
          if (first != stages_.end()) {
            ++first->count;
            slot.count = 0;
          }
          stages_.push_back(std::move(slot));
          if (list_count < lists.size() && parts.size() <= seen.size() - seen_size) {
            std::copy(parts.begin(), parts.end(), seen.begin() + static_cast<std::ptrdiff_t>(seen_size));
            lists[list_count++] = {seen_size, parts.size(), counting};
            seen_size += parts.size();
          }
        });
  }
  [[nodiscard]] std::optional<Bytes> gpu_bytes(std::uint64_t n, Tokens len) const override {
    Bytes most{0};
    const auto cells = stream_cells(n, len.value, o_, v2025_08_);
    for (const Slot& s : slots()) {
      if (s.count == 0) continue;  // sized with its first stage
      const auto b = device_bytes(s.device, n, cells);
      if (!b) return std::nullopt;
      most = std::max(most, *b);
    }
    return most;
  }
  [[nodiscard]] std::optional<Bytes> replica_bytes(std::uint64_t n, Tokens len) const override {
    // Each distinct device's buffers times the devices that hold the same layers: past 2^64 exactly
    // where the sum over every device would be.
    const auto cells = stream_cells(n, len.value, o_, v2025_08_);
    return engine_detail::sum_parts(slots(), [&](const Slot& s) {
      if (s.count == 0) return std::optional<Bytes>(Bytes{0});  // counted with its first stage
      const auto b = device_bytes(s.device, n, cells);
      return b ? engine_detail::as_bytes(engine_detail::mul(b->value, s.count)) : std::nullopt;
    });
  }
  /// The most sequences (n_seq_max) whose buffers fit: more sequences never take less memory. Each
  /// sequence takes at least what one alone does (its stream, its recurrent cell), so memory over the
  /// buffers of one is the guess the search starts from.
  [[nodiscard]] std::uint64_t max_requests(Tokens len, Bytes memory) const override {
    const auto one = gpu_bytes(1, len);
    const std::uint64_t guess = one && one->value != 0 ? memory.value / one->value : 1;
    const auto n = engine_detail::longest_near(guess, [&](std::uint64_t k) {
      const auto b = gpu_bytes(k, len);
      return b && *b <= memory;
    });
    return n.value_or(kUnboundedRequests);
  }
  /// The longest context per slot whose buffers for n slots fit, from the closed form of
  /// context_guess.
  [[nodiscard]] std::optional<Tokens> max_context(std::uint64_t n, Bytes memory) const override {
    if (n == 0) return std::nullopt;
    std::uint64_t guess = ~std::uint64_t{0};
    for (const Slot& s : slots())
      if (s.count != 0) guess = std::min(guess, context_guess(s.device, n, memory.value));
    const auto l = engine_detail::longest_near(guess, [&](std::uint64_t len) {
      const auto b = gpu_bytes(n, Tokens{len});
      return b && *b <= memory;
    });
    if (!l) return std::nullopt;
    return Tokens{*l};
  }
  [[nodiscard]] EngineResult report(Tokens len, std::uint64_t n, std::optional<Bytes> memory) const override;

 private:
  /// The buffers on `d` for n sequences of `cells` per stream (stream_cells).
  [[nodiscard]] std::optional<Bytes> device_bytes(const Device& d, std::uint64_t n,
                                                  std::optional<std::uint64_t> cells) const {
    const auto b = buffer_total(d, n, cells, o_, v2025_08_, nullptr);
    return b ? std::optional<Bytes>(Bytes{*b}) : std::nullopt;  // past 2^64 bytes: it does not fit
  }
  /// The longest context of n slots whose buffers on `d` fit in `memory`, nearly: the buffers are
  /// full x c + swa x min(c, W) + the recurrent cells, with c the cells per stream (a multiple of 256)
  /// and W the SWA cache's cells; the largest such c is solved for, then the longest context whose
  /// padding gives at most c cells. Only the search's starting point: longest_near checks it.
  [[nodiscard]] std::uint64_t context_guess(const Device& d, std::uint64_t n, std::uint64_t memory) const {
    __extension__ typedef unsigned __int128 U128;
    const std::uint64_t streams = o_.kv_unified ? 1 : n;
    const auto rows = [&](const Device::Rows& r) {
      return r.k && r.v ? (static_cast<U128>(*r.k) + *r.v) * streams : ~U128{0};
    };
    const U128 full = rows(d.iswa() ? d.plain : d.all), swa = d.iswa() ? rows(d.windowed) : 0;
    U128 fixed = 0;
    if (d.recurrent_layers != 0 && d.r_row && d.s_row)
      fixed =
          (static_cast<U128>(d.r_row->value) + d.s_row->value) * std::max<std::uint64_t>(1, n) * d.rs_rows;
    if (fixed > memory) return 1;
    const U128 budget = memory - fixed;
    if (full + swa == 0) return ~std::uint64_t{0};
    // W: the SWA cells once the full cache is past the window (the full size without an iSWA cache).
    const auto w = swa == 0 ? std::nullopt : swa_cells(d, n, ~std::uint64_t{0} / kPad * kPad, o_, v2025_08_);
    U128 cells = budget / (full + swa);
    if (w && cells > *w) cells = full == 0 ? ~std::uint64_t{0} : (budget - swa * *w) / full;
    cells = cells / kPad * kPad;
    if (cells > ~std::uint64_t{0}) return ~std::uint64_t{0};
    // The longest context whose n_ctx = context x n pads to at most `cells` cells per stream.
    const auto c = static_cast<std::uint64_t>(cells);
    if (o_.kv_unified) return c / n;
    if (v2025_08_) return c;
    const U128 ctx = ((static_cast<U128>(c) + 1) * n - 1) / kPad * kPad;  // pad(ctx) / n <= c
    return static_cast<std::uint64_t>(std::min<U128>(ctx / n, ~std::uint64_t{0}));
  }
  std::string_view version_;  // the version's name: o_.version, or the default's
  bool v2025_08_;             // version "2025-08"'s padding
  /// A device and how many stages allocate as it does: 0 for a stage whose device an earlier stage's
  /// slot already counts (the probes skip it; the report lists every stage's).
  struct Slot {
    Device device;
    std::uint64_t count = 1;
  };
  /// The devices the probes size: each stage's with --pp, else the whole model's.
  [[nodiscard]] std::span<const Slot> slots() const {
    return stages_.empty() ? std::span<const Slot>(&whole_, 1) : std::span<const Slot>(stages_);
  }
  Slot whole_;                // the whole model on one device
  std::vector<Slot> stages_;  // with --pp: each stage's device, in stage order; else empty
};

EngineResult LlamacppPolicy::report(Tokens context, std::uint64_t users,
                                    std::optional<Bytes> kv_memory) const {
  EngineResult r;
  r.engine = Engine::llamacpp;
  r.rules = "llama.cpp " + std::string(version_) +
            ": src/llama-kv-cache.cpp, src/llama-kv-cache-iswa.cpp, src/llama-context.cpp";
  r.block_size = 0;
  const std::uint64_t n_seq = users;
  const Device& d = whole_.device;
  if (o_.n_rs_seq != 0 && rs_seq(m_, o_) == 0)
    r.notes.push_back("n_rs_seq " + format_count(o_.n_rs_seq) +
                      ": llama.cpp clamps it to 0, this architecture has no recurrent rollback "
                      "(src/llama-arch.cpp llm_arch_supports_rs_rollback)");
  else if (o_.n_rs_seq != 0 && d.recurrent_layers == 0)
    r.notes.push_back("n_rs_seq changes nothing here: the model has no recurrent layers");
  if (d.any_swa && !d.any_full)
    r.notes.push_back(
        "every layer is windowed: llama.cpp's iSWA cache is for models that mix windowed and "
        "global layers; this model is counted with a full-size cache on every layer");
  const Buffers b = buffers(d, n_seq, context.value, o_, v2025_08_);
  if (!d.all.k || !d.all.v) throw Error("bytes", "overflows 64-bit arithmetic");
  r.bytes_per_token = Bytes{*d.all.k} + Bytes{*d.all.v};
  r.per_token_note =
      d.iswa() ? "per cell, every layer; the SWA cache holds only " + format_count(b.swa.cells) + " cells"
               : "per cell, every layer";
  const auto log_cache = [&](const EngineCache& c) {
    return "llama_kv_cache: size = " + mib_field(c.k_bytes + c.v_bytes) + " MiB (" + count_field(c.cells, 6) +
           " cells, " + count_field(c.layers, 3) + " layers, " + count_field(n_seq, 2) + "/" +
           std::to_string(c.streams) + " seqs), K (" + type_name(t_.k) + "): " + mib_field(c.k_bytes) +
           " MiB, V (" + type_name(t_.v) + "): " + mib_field(c.v_bytes) + " MiB";
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
    // src/llama-model.cpp create_memory: a recurrent architecture (llm_arch_is_recurrent: Mamba, Mamba2,
    // RWKV) gets llama_memory_recurrent alone, no llama_kv_cache and so no line for it.
    if (d.all.layers != 0 || d.recurrent_layers == 0) r.log_lines.push_back(log_cache(b.full));
    r.caches = {b.full};
  }
  r.kv_bytes_total = b.total;
  if (d.recurrent_layers != 0) {
    // src/llama-memory-recurrent.cpp llama_memory_recurrent constructor: "%2u seqs %2u rs_seq" and the P
    // (per-layer-embedding conv history) buffer since n_rs_seq (llama.cpp v0.4.0); the older text before.
    // P is 0: kvplan plans no PLE layers with recurrent state.
    const std::string counts = count_field(b.recurrent_cells, 6) + " cells, " +
                               count_field(d.layer_count, 3) + " layers, " + count_field(n_seq, 2) + " seqs";
    const std::string rs = " MiB, S (f32): " + mib_field(b.s_bytes) + " MiB";
    r.log_lines.push_back(
        version_ == "2026" ? "llama_memory_recurrent: size = " + mib_field(b.r_bytes + b.s_bytes) + " MiB (" +
                                 counts + " " + count_field(rs_seq(m_, o_), 2) +
                                 " rs_seq), R (f32): " + mib_field(b.r_bytes) + rs + ", P (f32):    0.00 MiB"
                           : "llama_memory_recurrent: size = " + mib_field(b.r_bytes + b.s_bytes) + " MiB (" +
                                 counts + "), R (f32): " + mib_field(b.r_bytes) + rs);
    r.notes.push_back("recurrent state: " + format_count(d.recurrent_layers) +
                      " layers, kept in f32 by llama.cpp whatever the KV cache type (" +
                      format_bytes_exact(b.r_bytes + b.s_bytes) + " for " + format_count(b.recurrent_cells) +
                      " cells)");
  }
  // The compute buffer of the graph llama.cpp reserves for these sequences (budget_llamacpp.cpp).
  r.log_lines.push_back(
      llamacpp_compute_line(llamacpp_compute_buffer(m_, llamacpp_graph(m_, o_, n_seq, context.value)).total));
  // Per device with a layer split (--pp): the layers each device holds. kv_bytes_total is then the
  // fullest device's buffers (an EngineResult is per GPU); the caches and the log keep the whole model.
  if (p_.pp > 1) {
    std::uint64_t dev = 0;
    Bytes fullest{0};
    for (const Slot& part : stages_) {
      const Bytes bytes = buffers(part.device, n_seq, context.value, o_, v2025_08_).total;
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
                                                   const Parallelism& p, const EngineOptions& o,
                                                   const GroupClasses& c) {
  llamacpp_checks(m, t, p, o);
  return std::make_unique<LlamacppPolicy>(m, t, with_split(p, Engine::llamacpp), o, c);
}
}  // namespace engine_detail

LlamacppGraph llamacpp_graph(const ModelSpec& m, const EngineOptions& o, std::uint64_t n_seq,
                             std::uint64_t context) {
  // Which caches the model has and its widest window, as make_device finds them (is_swa(il)).
  Device d;
  bool attends = false;
  for (const auto& g : m.layers) {
    if (!has_attention(g.attention.kind) || g.attention.kv_shared) continue;
    attends = true;
    if (g.attention.kind == AttentionKind::sliding || g.attention.kind == AttentionKind::chunked) {
      d.any_swa = true;
      d.n_swa = std::max(d.n_swa, g.attention.window);
    } else {
      d.any_full = true;
    }
  }
  const bool v2025_08 = o.version == "2025-08";
  const auto cells = stream_cells(n_seq, context, o, v2025_08);
  const auto swa = cells ? swa_cells(d, n_seq, *cells, o, v2025_08) : cells;
  const auto n_ctx = engine_detail::mul(context, n_seq);
  if (!cells || !swa || !n_ctx) throw Error("context", "llama.cpp's context past 2^64 tokens");
  LlamacppGraph g;
  // sched_reserve: n_tokens = min(n_ctx, n_ubatch), n_outputs = min(n_tokens, n_outputs_max); graph_reserve
  // rounds n_tokens up to a multiple of n_seq_max (src/llama-context.cpp). n_ctx is padded.
  const std::uint64_t padded = o.kv_unified ? *cells : *cells * n_seq;
  const std::uint64_t ubatch = o.ubatch ? o.ubatch : engine_defaults::kLlamacppUbatch;
  const std::uint64_t tokens = std::min(padded, ubatch);
  g.n_tokens = ceil_div(tokens, n_seq) * n_seq;
  // llama-server asks one output per slot, 1 + the draft tokens with speculative decoding (v0.4.0
  // tools/server/server-context.cpp server_output_limits: n_outputs_max = n_parallel x (1 + n_draft), at most
  // n_batch); the library's default, and the releases before n_outputs_max (2025-11, 2025-08), n_batch.
  g.n_outputs = tokens;
  if (o.version.empty() || o.version == "2026") {
    const auto per_seq = engine_detail::add(1, o.n_rs_seq);
    const auto wanted = per_seq ? engine_detail::mul(n_seq, *per_seq) : per_seq;
    if (wanted) g.n_outputs = std::min(tokens, *wanted);
  }
  g.flash_attn = !o.flash_attn_off;
  if (attends) {
    g.full_cells = d.iswa() || !d.any_swa ? *cells : 0;
    if (d.iswa()) g.swa_cells = *swa;
    if (!d.any_full) g.swa_cells = *swa;  // every layer sliding: still the iSWA pair, the SWA cache read
  }
  return g;
}

EngineResult llamacpp_policy(const ModelSpec& m, const KvDtypes& t, const Parallelism& p, Tokens context,
                             std::uint64_t users, const EngineOptions& o, std::optional<Bytes> kv_memory) {
  return engine_detail::make_llamacpp_policy(m, t, p, o)->report(context, users, kv_memory);
}

}  // namespace kvplan
