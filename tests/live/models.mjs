import { spmVocab } from "./gguf.mjs";
// The live suite's tiny models: each a GGUF's metadata as convert_hf_to_gguf.py would write it for one
// llama.cpp architecture, small enough that llama.cpp loads it in milliseconds. Their tensors (names
// and shapes as llama.cpp's loader demands, zero weights) are in tensors.json, made by discover.mjs.
// nemotronh, qwen3next and gemma4 are ../shared/cases/llamacpp-live.json's three cases (issue 25).
/// A float value: 1.0 in JavaScript is an integer, which gguf.mjs would write as u32.
const f = (value) => ({ type: "f32", value });

export const models = {
  // Dense GQA: head_dim = embedding_length / head_count = 32.
  llama: {
    "general.architecture": "llama", "llama.context_length": 8192, "llama.embedding_length": 256,
    "llama.block_count": 4, "llama.attention.head_count": 8, "llama.attention.head_count_kv": 2,
    "llama.feed_forward_length": 512, "llama.attention.layer_norm_rms_epsilon": 1e-5,
    "llama.rope.dimension_count": 32,
  },
  // An explicit head_dim (key_length 64 against embedding_length / head_count = 32).
  qwen3: {
    "general.architecture": "qwen3", "qwen3.context_length": 40960, "qwen3.embedding_length": 128,
    "qwen3.block_count": 3, "qwen3.attention.head_count": 4, "qwen3.attention.head_count_kv": 2,
    "qwen3.attention.key_length": 64, "qwen3.attention.value_length": 64,
    "qwen3.feed_forward_length": 256, "qwen3.attention.layer_norm_rms_epsilon": 1e-6,
  },
  // Gemma 3: five sliding layers to one global (llama.cpp's fixed pattern), a 512-token window.
  gemma3: {
    "general.architecture": "gemma3", "gemma3.context_length": 131072, "gemma3.embedding_length": 128,
    "gemma3.block_count": 8, "gemma3.attention.head_count": 4, "gemma3.attention.head_count_kv": 2,
    "gemma3.attention.key_length": 64, "gemma3.attention.value_length": 64,
    "gemma3.attention.sliding_window": 512, "gemma3.feed_forward_length": 256,
    "gemma3.attention.layer_norm_rms_epsilon": 1e-6,
  },
  // gpt-oss: sliding and full layers alternating, a 128-token window, attention sinks, MoE.
  gptoss: {
    "general.architecture": "gpt-oss", "gpt-oss.context_length": 131072, "gpt-oss.embedding_length": 128,
    "gpt-oss.block_count": 4, "gpt-oss.attention.head_count": 4, "gpt-oss.attention.head_count_kv": 2,
    "gpt-oss.attention.key_length": 64, "gpt-oss.attention.value_length": 64,
    "gpt-oss.attention.sliding_window": 128, "gpt-oss.feed_forward_length": 128,
    "gpt-oss.expert_count": 4, "gpt-oss.expert_used_count": 2, "gpt-oss.expert_feed_forward_length": 128,
    "gpt-oss.attention.layer_norm_rms_epsilon": 1e-5, "gpt-oss.rope.freq_base": f(150000.0),
  },
  // DeepSeek-V2-style MLA as converted after llama.cpp's MLA split: key_length_mla / value_length_mla
  // per head, key_length = kv_lora_rank + rope dims with one KV head.
  deepseek2: {
    "general.architecture": "deepseek2", "deepseek2.context_length": 163840,
    "deepseek2.embedding_length": 128, "deepseek2.block_count": 3, "deepseek2.attention.head_count": 4,
    "deepseek2.attention.head_count_kv": 1, "deepseek2.attention.key_length": 96,
    "deepseek2.attention.value_length": 64, "deepseek2.attention.key_length_mla": 48,
    "deepseek2.attention.value_length_mla": 32, "deepseek2.attention.kv_lora_rank": 64,
    "deepseek2.attention.q_lora_rank": 64, "deepseek2.rope.dimension_count": 32,
    "deepseek2.feed_forward_length": 256, "deepseek2.leading_dense_block_count": 1,
    "deepseek2.expert_count": 4, "deepseek2.expert_used_count": 2, "deepseek2.expert_shared_count": 1,
    "deepseek2.expert_feed_forward_length": 64, "deepseek2.expert_weights_scale": f(1.0),
    "deepseek2.expert_weights_norm": true, "deepseek2.expert_gating_func": 2,
    "deepseek2.attention.layer_norm_rms_epsilon": 1e-6,
  },
  // Granite 4.0-H: Mamba2 layers with attention layers where head_count_kv is non-zero.
  granitehybrid: {
    "general.architecture": "granitehybrid", "granitehybrid.context_length": 131072,
    "granitehybrid.embedding_length": 128, "granitehybrid.block_count": 4,
    "granitehybrid.attention.head_count": 4, "granitehybrid.attention.head_count_kv": [0, 2, 0, 0],
    "granitehybrid.feed_forward_length": 256, "granitehybrid.attention.layer_norm_rms_epsilon": 1e-5,
    "granitehybrid.ssm.conv_kernel": 4, "granitehybrid.ssm.inner_size": 256,
    "granitehybrid.ssm.state_size": 16, "granitehybrid.ssm.time_step_rank": 8,
    "granitehybrid.ssm.group_count": 1, "granitehybrid.residual_scale": f(0.22),
    "granitehybrid.embedding_scale": f(12.0), "granitehybrid.attention.scale": f(0.0078125),
    "granitehybrid.logit_scale": f(6.0),
  },
  // Jamba: Mamba-1 layers and one attention layer.
  jamba: {
    "general.architecture": "jamba", "jamba.context_length": 262144, "jamba.embedding_length": 128,
    "jamba.block_count": 4, "jamba.attention.head_count": 4, "jamba.attention.head_count_kv": [0, 0, 2, 0],
    "jamba.feed_forward_length": 256, "jamba.attention.layer_norm_rms_epsilon": 1e-6,
    "jamba.ssm.conv_kernel": 4, "jamba.ssm.inner_size": 256, "jamba.ssm.state_size": 16,
    "jamba.ssm.time_step_rank": 8,
  },
  nemotronh: {
    "general.architecture": "nemotron_h", "nemotron_h.context_length": 131072,
    "nemotron_h.embedding_length": 256, "nemotron_h.block_count": 8,
    "nemotron_h.attention.layer_norm_rms_epsilon": 1e-6, "nemotron_h.attention.head_count": 4,
    "nemotron_h.attention.head_count_kv": [0, 0, 0, 2, 0, 0, 0, 0],
    "nemotron_h.feed_forward_length": [0, 512, 0, 0, 0, 512, 0, 512],
    "nemotron_h.attention.key_length": 64, "nemotron_h.attention.value_length": 64,
    "nemotron_h.attention.layer_norm_epsilon": 1e-5, "nemotron_h.ssm.conv_kernel": 4,
    "nemotron_h.ssm.inner_size": 512, "nemotron_h.ssm.state_size": 16,
    "nemotron_h.ssm.time_step_rank": 8, "nemotron_h.ssm.group_count": 2,
  },
  qwen3next: {
    "general.architecture": "qwen3next", "qwen3next.context_length": 262144,
    "qwen3next.embedding_length": 128, "qwen3next.block_count": 4,
    "qwen3next.attention.layer_norm_rms_epsilon": 1e-6, "qwen3next.attention.head_count": 4,
    "qwen3next.attention.head_count_kv": 2, "qwen3next.attention.key_length": 64,
    "qwen3next.attention.value_length": 64, "qwen3next.rope.dimension_count": 16,
    "qwen3next.feed_forward_length": 64, "qwen3next.expert_count": 4, "qwen3next.expert_used_count": 2,
    "qwen3next.expert_feed_forward_length": 64, "qwen3next.expert_shared_feed_forward_length": 64,
    "qwen3next.ssm.conv_kernel": 4, "qwen3next.ssm.inner_size": 128, "qwen3next.ssm.state_size": 32,
    "qwen3next.ssm.group_count": 2, "qwen3next.ssm.time_step_rank": 4,
    "qwen3next.full_attention_interval": 4,
  },
  gemma4: {
    "general.architecture": "gemma4", "gemma4.context_length": 131072, "gemma4.embedding_length": 128,
    "gemma4.block_count": 6, "gemma4.attention.layer_norm_rms_epsilon": 1e-6,
    "gemma4.attention.head_count": 4, "gemma4.attention.head_count_kv": 2,
    "gemma4.attention.key_length": 128, "gemma4.attention.value_length": 128,
    "gemma4.attention.key_length_swa": 64, "gemma4.attention.value_length_swa": 64,
    "gemma4.attention.sliding_window": 512,
    "gemma4.attention.sliding_window_pattern": [true, true, true, false, true, false],
    "gemma4.attention.shared_kv_layers": 2, "gemma4.embedding_length_per_layer_input": 0,
    "gemma4.feed_forward_length": 256, "gemma4.rope.freq_base": f(1000000.0),
  },
  // LFM2: gated short-convolution layers and attention layers (head_count_kv 0 on the conv layers).
  lfm2: {
    "general.architecture": "lfm2", "lfm2.context_length": 128000, "lfm2.embedding_length": 128,
    "lfm2.block_count": 4, "lfm2.attention.head_count": 4, "lfm2.attention.head_count_kv": [0, 2, 0, 2],
    "lfm2.feed_forward_length": 256, "lfm2.attention.layer_norm_rms_epsilon": 1e-5,
    "lfm2.shortconv.l_cache": 3,
  },
  // Qwen3.5 (dense FFN): Gated DeltaNet with attention every 4th layer; an architecture with recurrent
  // rollback (n_rs_seq).
  qwen35: {
    "general.architecture": "qwen35", "qwen35.context_length": 262144, "qwen35.embedding_length": 128,
    "qwen35.block_count": 4, "qwen35.attention.layer_norm_rms_epsilon": 1e-6, "qwen35.attention.head_count": 4,
    "qwen35.attention.head_count_kv": 2, "qwen35.attention.key_length": 64, "qwen35.attention.value_length": 64,
    "qwen35.rope.dimension_count": 16, "qwen35.rope.dimension_sections": [4, 2, 2, 0],
    "qwen35.feed_forward_length": 256, "qwen35.ssm.conv_kernel": 4, "qwen35.ssm.inner_size": 128,
    "qwen35.ssm.state_size": 32, "qwen35.ssm.group_count": 2, "qwen35.ssm.time_step_rank": 4,
    "qwen35.full_attention_interval": 4,
  },
  // Pure Mamba2: every layer recurrent, no KV cache.
  mamba2: {
    "general.architecture": "mamba2", "mamba2.context_length": 1048576, "mamba2.embedding_length": 128,
    "mamba2.block_count": 3, "mamba2.ssm.conv_kernel": 4, "mamba2.ssm.inner_size": 256,
    "mamba2.ssm.state_size": 16, "mamba2.ssm.time_step_rank": 8, "mamba2.ssm.group_count": 1,
    "mamba2.attention.layer_norm_rms_epsilon": 1e-5,
  },
  // Falcon-H1: attention and Mamba2 in parallel in every layer (KV and state on each).
  falconh1: {
    "general.architecture": "falcon-h1", "falcon-h1.context_length": 16384, "falcon-h1.embedding_length": 128,
    "falcon-h1.block_count": 3, "falcon-h1.attention.head_count": 4, "falcon-h1.attention.head_count_kv": 2,
    "falcon-h1.attention.key_length": 32, "falcon-h1.attention.value_length": 32,
    "falcon-h1.feed_forward_length": 256, "falcon-h1.attention.layer_norm_rms_epsilon": 1e-5,
    "falcon-h1.ssm.conv_kernel": 4, "falcon-h1.ssm.inner_size": 256, "falcon-h1.ssm.state_size": 16,
    "falcon-h1.ssm.time_step_rank": 8, "falcon-h1.ssm.group_count": 1,
  },
  // Gemma 2: sliding and global layers alternating (llama.cpp's fixed pattern 2), a 256-token window.
  gemma2: {
    "general.architecture": "gemma2", "gemma2.context_length": 8192, "gemma2.embedding_length": 128,
    "gemma2.block_count": 4, "gemma2.attention.head_count": 4, "gemma2.attention.head_count_kv": 2,
    "gemma2.attention.key_length": 64, "gemma2.attention.value_length": 64,
    "gemma2.attention.sliding_window": 256, "gemma2.feed_forward_length": 256,
    "gemma2.attention.layer_norm_rms_epsilon": 1e-6,
  },
  // Qwen3-MoE: GQA with an explicit head_dim and routed experts.
  qwen3moe: {
    "general.architecture": "qwen3moe", "qwen3moe.context_length": 40960, "qwen3moe.embedding_length": 128,
    "qwen3moe.block_count": 2, "qwen3moe.attention.head_count": 4, "qwen3moe.attention.head_count_kv": 1,
    "qwen3moe.attention.key_length": 128, "qwen3moe.attention.value_length": 128,
    "qwen3moe.feed_forward_length": 256, "qwen3moe.expert_count": 4, "qwen3moe.expert_used_count": 2,
    "qwen3moe.expert_feed_forward_length": 64, "qwen3moe.attention.layer_norm_rms_epsilon": 1e-6,
  },
  // Qwen2: GQA with Q/K/V biases.
  qwen2: {
    "general.architecture": "qwen2", "qwen2.context_length": 32768, "qwen2.embedding_length": 128,
    "qwen2.block_count": 2, "qwen2.attention.head_count": 4, "qwen2.attention.head_count_kv": 2,
    "qwen2.feed_forward_length": 256, "qwen2.attention.layer_norm_rms_epsilon": 1e-6,
  },
  // GLM-4.5-style MoE: a leading dense block, routed and shared experts, and one NextN (MTP) block after
  // the trunk that llama.cpp neither runs nor caches without speculative decoding.
  glm4moe: {
    "general.architecture": "glm4moe", "glm4moe.context_length": 131072, "glm4moe.embedding_length": 128,
    "glm4moe.block_count": 3, "glm4moe.attention.head_count": 4, "glm4moe.attention.head_count_kv": 2,
    "glm4moe.attention.key_length": 64, "glm4moe.attention.value_length": 64,
    "glm4moe.rope.dimension_count": 32, "glm4moe.feed_forward_length": 256,
    "glm4moe.expert_count": 4, "glm4moe.expert_used_count": 2, "glm4moe.expert_shared_count": 1,
    "glm4moe.expert_feed_forward_length": 64, "glm4moe.leading_dense_block_count": 1,
    "glm4moe.nextn_predict_layers": 1, "glm4moe.expert_weights_scale": f(1.0),
    "glm4moe.expert_weights_norm": true, "glm4moe.expert_gating_func": 2,
    "glm4moe.attention.layer_norm_rms_epsilon": 1e-5,
  },
  // Qwen3.5 with one NextN (MTP) block after a 4-layer trunk.
  qwen35mtp: {
    "general.architecture": "qwen35", "qwen35.context_length": 262144, "qwen35.embedding_length": 128,
    "qwen35.block_count": 5, "qwen35.nextn_predict_layers": 1, "qwen35.attention.layer_norm_rms_epsilon": 1e-6,
    "qwen35.attention.head_count": 4, "qwen35.attention.head_count_kv": 2, "qwen35.attention.key_length": 64,
    "qwen35.attention.value_length": 64, "qwen35.rope.dimension_count": 16,
    "qwen35.rope.dimension_sections": [4, 2, 2, 0], "qwen35.feed_forward_length": 256,
    "qwen35.ssm.conv_kernel": 4, "qwen35.ssm.inner_size": 128, "qwen35.ssm.state_size": 32,
    "qwen35.ssm.group_count": 2, "qwen35.ssm.time_step_rank": 4, "qwen35.full_attention_interval": 4,
  },
};

/// The metadata every file shares: alignment, file type (all f32) and a name.
export function fullMeta(name, vocab) {
  return { "general.alignment": 32, "general.file_type": 0, "general.name": `kvplan live ${name}`,
           ...models[name], ...vocab };
}

/// spmVocab padded with normal tokens to `n` entries (the logits' width).
export function vocabOf(n) {
  const v = spmVocab();
  const tokens = [...v["tokenizer.ggml.tokens"]];
  for (let i = tokens.length; i < n; ++i) tokens.push(`\u2581w${i}`);
  return { ...v, "tokenizer.ggml.tokens": tokens,
           "tokenizer.ggml.scores": { type: "arr", of: "f32", value: tokens.map(() => 0) },
           "tokenizer.ggml.token_type": { type: "arr", of: "i32",
             value: tokens.map((t, i) => (i === 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1)) } };
}

/// A llama-architecture file of any dimensions (the compute buffer's sweeps): its metadata and tensors for
/// d = { embd, head, head_kv, ff, layers (2), head_dim (embd / head), untied } and a vocabulary of nv.
export function llamaFile(d, nv) {
  const hd = d.head_dim ?? d.embd / d.head;
  const meta = { "general.architecture": "llama", "llama.context_length": 1 << 20, "llama.embedding_length": d.embd,
    "llama.block_count": d.layers ?? 2, "llama.attention.head_count": d.head, "llama.attention.head_count_kv": d.head_kv,
    "llama.feed_forward_length": d.ff, "llama.attention.layer_norm_rms_epsilon": 1e-5, "llama.rope.dimension_count": hd };
  if (d.head_dim) { meta["llama.attention.key_length"] = hd; meta["llama.attention.value_length"] = hd; }
  const t = [{ name: "token_embd.weight", shape: [d.embd, nv] }, { name: "output_norm.weight", shape: [d.embd] }];
  for (let i = 0; i < (d.layers ?? 2); ++i) {
    const b = `blk.${i}.`;
    t.push({ name: b + "attn_norm.weight", shape: [d.embd] }, { name: b + "attn_q.weight", shape: [d.embd, d.head * hd] },
           { name: b + "attn_k.weight", shape: [d.embd, d.head_kv * hd] }, { name: b + "attn_v.weight", shape: [d.embd, d.head_kv * hd] },
           { name: b + "attn_output.weight", shape: [d.head * hd, d.embd] }, { name: b + "ffn_norm.weight", shape: [d.embd] },
           { name: b + "ffn_gate.weight", shape: [d.embd, d.ff] }, { name: b + "ffn_down.weight", shape: [d.ff, d.embd] },
           { name: b + "ffn_up.weight", shape: [d.embd, d.ff] });
  }
  if (d.untied) t.push({ name: "output.weight", shape: [d.embd, nv] });
  return { meta, t };
}
