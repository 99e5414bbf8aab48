// llama.cpp's memory budget (budget.hpp llamacpp_budget): the GPU less the model buffer less the compute
// buffer is what the KV cache can take.
//
// The compute buffer is the graph allocator's peak. llama_context::sched_reserve (src/llama-context.cpp,
// llama.cpp v0.4.0 as node-llama-cpp@3.21.1 ships it) reserves the worst-case ubatch: n_tokens =
// min(n_ctx, n_ubatch), n_seqs = n_seq_max (graph_reserve rounds n_tokens up to a multiple of it),
// n_outputs = min(n_tokens, n_outputs_max = n_batch), over the whole cache (memory->init_full(): n_kv =
// every cell of a stream). ggml-alloc (ggml/src/ggml-alloc.c, ggml_gallocr) places each tensor in a free
// block and frees it after its last consumer, so the buffer is the peak of what one phase keeps live. The
// phases, per token of the ubatch, in f32 (4 B) as the graph computes them (src/llama-graph.cpp):
//  - the KQ masks (build_attn_inp_kq_mask: n_kv x n_tokens per cache, f16 with flash attention, else f32),
//    one per cache (the iSWA pair has two), live from the first layer to the last;
//  - attention (build_attn_mha): without flash attention the scores kq = n_kv x n_tokens x n_head
//    (soft_max_ext works in place), with it none; besides them Q, K, V, their RoPE'd copies and the
//    output: kAttentionRows rows of n_embd;
//  - the FFN (build_ffn, LLM_FFN_SILU / GELU with LLM_FFN_PAR): gate, up and their product, n_ff wide,
//    with kFfnEmbdRows rows of n_embd (the residual, the norm, the input and the output);
//  - MoE (build_moe_ffn): the router's logits and probabilities (n_expert), the selected experts' gate,
//    up and product (n_expert_used x n_ff_exp) and their outputs (n_expert_used x n_embd);
//  - the recurrent mixers (build_mamba2_layer, the delta-net and short-conv layers): kRecurrentRows rows
//    of d_inner (in_proj's output, the conv, the scan's y and its gate);
//  - the output (build_inp_out_ids, the final norm, build_lora_mm(model.output)): the logits n_vocab x
//    n_outputs and the normed hidden state n_embd x n_tokens (and the masks' block, see below).
// The row counts are fitted on the real llama.cpp over tiny models whose one term dominates in turn
// (docs/engines/llamacpp-budget.md has the sweep); the masks, scores, FFN and logits are exact there. What
// ggml-alloc's placement adds (a freed block too small for the next tensor) is within the tolerance
// the live suite states and checks.
#include <algorithm>
#include <string>

#include "kvplan/budget.hpp"
#include "kvplan/error.hpp"
#include "kvplan/format.hpp"
#include "kvplan/plan.hpp"

namespace kvplan {

namespace {

constexpr std::uint64_t kF32 = 4;  // ggml's GGML_TYPE_F32
constexpr std::uint64_t kF16 = 2;  // the flash-attention mask's GGML_TYPE_F16
/// Rows of n_embd x n_tokens the attention phase keeps besides scores and masks. Fitted: 8 to 13 on the
/// live suite's models with flash attention (llama, qwen3, gemma3: 9; qwen2 8; deepseek2, gpt-oss 11;
/// gemma4, whose head dim is 4 x n_embd / n_head, 13), whatever the query width (qwen3's is 2 x n_embd).
constexpr std::uint64_t kAttentionRows = 9;
/// Rows of n_embd x n_tokens the FFN phase keeps besides its n_ff-wide tensors: exact on llama files with
/// n_ff >= 8 x n_embd (n_embd 256, n_ff 2048 and 8192; n_embd 1024, n_ff 4096: 18.01, 54.01, 36.01 MiB).
constexpr std::uint64_t kFfnEmbdRows = 4;
/// Rows of d_inner x n_tokens a recurrent layer keeps: 6.9 to 7.0 on mamba2 and nemotron-h (3.46 MiB at
/// d_inner 256, 6.95 MiB at 512, n_ubatch 512).
constexpr std::uint64_t kRecurrentRows = 7;

std::uint64_t mul(std::uint64_t a, std::uint64_t b) { return checked_mul(a, b, "compute buffer"); }
std::uint64_t add(std::uint64_t a, std::uint64_t b) { return checked_add(a, b, "compute buffer"); }

/// The widest recurrent mixer's inner width: Mamba's d_inner, the delta nets' value (or key) heads x dims.
std::uint64_t recurrent_width(const RecurrentSpec& r) {
  return std::max(
      {r.d_inner, mul(r.num_value_heads, r.value_head_dim), mul(r.num_key_heads, r.key_head_dim)});
}

/// printf's "%*s": `v` right-aligned in `w` characters.
std::string field(std::string v, std::size_t w) {
  return std::string(w > v.size() ? w - v.size() : 0, ' ') + v;
}

}  // namespace

std::string llamacpp_compute_line(Bytes b) {
  // "%s: %10s compute buffer size = %8.2f MiB" (src/llama-context.cpp sched_reserve).
  return "sched_reserve: " + field("CUDA0", 10) + " compute buffer size = " + field(mib(b), 8) + " MiB";
}

LlamacppComputeBuffer llamacpp_compute_buffer(const ModelSpec& m, const LlamacppGraph& g) {
  LlamacppComputeBuffer out;
  const std::uint64_t t = g.n_tokens;
  const std::uint64_t embd = m.hidden_size;
  const std::uint64_t mask_b = g.flash_attn ? kF16 : kF32;
  const std::uint64_t masks = add(mul(mul(g.full_cells, t), mask_b), mul(mul(g.swa_cells, t), mask_b));
  out.masks = Bytes{masks};

  std::uint64_t scores = 0, ffn = 0, moe = 0, rec = 0;
  for (const auto& l : m.layers) {
    const AttentionLayer& a = l.attention;
    if (has_attention(a.kind)) {
      const bool swa = a.kind == AttentionKind::sliding || a.kind == AttentionKind::chunked;
      const std::uint64_t cells = swa && g.swa_cells != 0 ? g.swa_cells : g.full_cells;
      if (!g.flash_attn) scores = std::max(scores, mul(mul(a.num_attention_heads, cells), mul(t, kF32)));
    }
    if (has_state(a))
      rec = std::max(rec, mul(mul(kRecurrentRows, recurrent_width(a.recurrent)), mul(t, kF32)));
    const MlpSpec& f = l.mlp;
    const std::uint64_t rows_embd = mul(kFfnEmbdRows, embd);
    if (f.intermediate_size != 0)
      ffn = std::max(ffn, mul(add(mul(f.gated ? 3 : 2, f.intermediate_size), rows_embd), mul(t, kF32)));
    if (f.num_experts != 0) {
      const std::uint64_t k = f.experts_per_token;
      const std::uint64_t per_token =
          add(add(mul(2, f.num_experts), mul(k, add(mul(3, f.expert_intermediate_size), embd))),
              add(rows_embd, mul(3, mul(f.num_shared_experts, f.shared_intermediate_size))));
      moe = std::max(moe, mul(per_token, mul(t, kF32)));
    }
  }
  const std::uint64_t attention = add(scores, mul(mul(kAttentionRows, embd), mul(t, kF32)));
  out.attention = Bytes{add(masks, attention)};
  out.ffn = Bytes{add(masks, std::max(ffn, moe))};
  out.recurrent = Bytes{rec == 0 ? 0 : add(masks, rec)};
  // The masks' block is free by the output phase, but ggml-alloc places the logits below it or above it
  // as the earlier phases left the blocks (the live suite's llama: above, qwen2: below): counted, the
  // larger answer.
  out.output = Bytes{add(masks, add(mul(mul(m.vocab_size, g.n_outputs), kF32), mul(mul(embd, t), kF32)))};
  // The token ids and positions (build_inp_embd, build_inp_pos): int32 x n_tokens each, live throughout.
  const Bytes inputs{mul(2, mul(t, 4))};
  out.total = out.attention;
  out.phase = "attention";
  const auto take = [&](Bytes b, const char* phase) {
    if (b > out.total) {
      out.total = b;
      out.phase = phase;
    }
  };
  take(out.ffn, moe > ffn ? "moe" : "ffn");
  take(out.recurrent, "recurrent");
  take(out.output, "output");
  out.total = out.total + inputs;
  return out;
}

MemoryBudget llamacpp_budget(const BudgetInputs& in, const LlamacppGraph& g) {
  const LlamacppComputeBuffer c = llamacpp_compute_buffer(in.model, g);
  const Bytes total = in.gpu.runtime_memory.value_or(in.gpu.memory);
  MemoryBudget b = flat_budget(total, in.gpu_memory_utilization.value_or(1.0), in.weights_per_gpu, c.total);
  b.modelled = true;
  b.runtime_total = in.gpu.runtime_memory.has_value();
  b.rules = "llama.cpp v0.4.0: src/llama-context.cpp sched_reserve, ggml/src/ggml-alloc.c";
  // llama.cpp's own format: "%s: %12s model buffer size = %8.2f MiB" (llama-model.cpp load_tensors).
  b.lines.push_back("load_tensors: " + field("CUDA0", 12) +
                    " model buffer size = " + field(mib(b.weights), 8) + " MiB");
  b.lines.push_back(llamacpp_compute_line(c.total));
  b.notes.push_back(
      "compute buffer: the " + c.phase + " phase's peak at n_ubatch " + format_count(g.n_tokens) +
      (g.flash_attn ? ", flash attention on"
                    : ", flash attention off (KQ scores " +
                          format_bytes(c.attention - c.masks, UnitSystem::iec) + " at its widest)") +
      ", fitted on the real llama.cpp v0.4.0 CPU backend (docs/engines/llamacpp-budget.md)");
  if (in.parallel.pp > 1)
    b.notes.push_back("layer split over " + format_count(in.parallel.pp) +
                      " GPUs: each is given the whole graph's compute buffer, not checked against a log (a "
                      "device holds its layers' phases, the last one the output's; llama.cpp's pipeline "
                      "parallelism keeps copies of the split inputs)");
  if (!in.gpu_memory_utilization)
    b.notes.push_back(
        "llama.cpp has no utilisation fraction: the whole GPU, less the model and compute buffers");
  b.notes.push_back(
      "not counted: the CUDA context and cuBLAS workspace outside llama.cpp's buffers, the host-side output "
      "and CUDA_Host compute buffers, layer splits over several GPUs (-ts, -sm)");
  return b;
}

}  // namespace kvplan
