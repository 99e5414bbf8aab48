// The live suite's matrix: each case a llama.cpp context over one model of models.mjs. Fields:
// n_ctx (llama.cpp's -c, every sequence's cells together), seqs (n_seq_max, -np), ctk / ctv (cache
// types, -ctk / -ctv), fa (flash attention: true, false or "auto"), swa_full, ubatch (n_batch = n_ubatch
// = ubatch when given: node-llama-cpp passes one batch size; else llama.cpp's 2048 / 512).
// kv_unified, n_rs_seq, n_batch (apart from ubatch): the "harness" group only (harness.cpp).
// server_refuses: llama-server's options refuse what the library takes; kvplan must refuse it (exit 2).
// over_max_seq: more sequences than LLAMA_MAX_SEQ, which llama.cpp must refuse; kvplan, given a GPU, must
// plan it with its concurrency limit (llama.cpp's 256 slots per server) rather than as running at once.
// -c need not be a multiple of -np: llama.cpp pads n_ctx / n_seq_max (llama-context.cpp), kvplan plans
// ceil(-c / -np) per slot (cli/options.cpp per_slot_context); the cases with n_ctx 10000 / 3 check it.
const base = { n_ctx: 4096, seqs: 1, ctk: "f16", ctv: "f16", fa: true, swa_full: false };
const c = (model, over = {}) => ({ model, ...base, ...over });

export const groups = {
  dense: [
    c("llama"), c("llama", { n_ctx: 1000 }), c("llama", { n_ctx: 8190, seqs: 3 }),
    c("llama", { ctk: "q8_0", ctv: "q8_0" }), c("llama", { ctk: "q4_0", ctv: "q4_1" }),
    c("llama", { ctk: "q5_0", ctv: "q5_1" }), c("llama", { ctk: "bf16", ctv: "f32" }),
    c("llama", { ctk: "iq4_nl", ctv: "iq4_nl" }), c("llama", { fa: false }), c("llama", { fa: "auto" }),
    c("llama", { fa: false, ctk: "q8_0", ctv: "f16" }), c("llama", { fa: false, ctk: "f16", ctv: "q8_0" }),
    c("llama", { fa: false, ctk: "f16", ctv: "iq4_nl" }), c("llama", { fa: "auto", ctk: "q4_0", ctv: "q4_0" }),
    // The library allocates mxfp4, but llama-server's -ctk / -ctv refuse it (common/arg.cpp
    // kv_cache_types): kvplan plans llama-server and refuses it too.
    c("llama", { ctk: "mxfp4", ctv: "mxfp4", server_refuses: true }),
    c("qwen2"), c("glm4moe"), c("glm4moe", { n_ctx: 8192, seqs: 2, ctk: "q8_0", ctv: "q8_0" }),
    c("qwen3moe"), c("qwen3moe", { n_ctx: 6144, seqs: 3, ctk: "q4_0", ctv: "q4_0" }),
    c("qwen3"), c("qwen3", { n_ctx: 12346, seqs: 2, ctk: "q8_0", ctv: "q8_0" }),
    c("llama", { n_ctx: 10000, seqs: 3 }), c("llama", { n_ctx: 4097, seqs: 5, fa: false }),
  ],
  iswa: [
    c("gemma3"), c("gemma3", { n_ctx: 16384, seqs: 2 }), c("gemma3", { swa_full: true }),
    c("gemma3", { ubatch: 64 }), c("gemma3", { n_ctx: 700 }), c("gemma3", { fa: false }),
    c("gptoss"), c("gptoss", { n_ctx: 32768, seqs: 4, ctk: "q8_0", ctv: "q8_0" }),
    c("gptoss", { ubatch: 1024 }),
    c("gemma2"), c("gemma2", { n_ctx: 8192, seqs: 2, ubatch: 128 }),
    c("gemma4"), c("gemma4", { fa: false }), c("gemma4", { fa: false, ctk: "q8_0", ctv: "f16", n_ctx: 2048 }), c("gemma4", { n_ctx: 8192, seqs: 2 }),
  ],
  mla: [
    c("deepseek2"), c("deepseek2", { n_ctx: 10000, seqs: 2 }), c("deepseek2", { ctk: "q8_0", ctv: "q8_0" }),
    c("deepseek2", { fa: false }), c("deepseek2", { ctk: "q8_0", ctv: "f16" }),
  ],
  hybrid: [
    c("granitehybrid"), c("granitehybrid", { seqs: 4, n_ctx: 8192 }), c("granitehybrid", { fa: false }),
    c("jamba"), c("jamba", { seqs: 2, ctk: "q8_0", ctv: "q8_0" }),
    c("nemotronh", { fa: false }), c("nemotronh", { n_ctx: 4095, seqs: 3 }),
    c("qwen3next", { fa: false }), c("qwen3next", { seqs: 2, n_ctx: 16384 }),
    c("lfm2"), c("lfm2", { seqs: 2 }),
    c("qwen35mtp"), c("qwen35"), c("qwen35", { seqs: 3, n_ctx: 6144, fa: false }), c("mamba2"), c("mamba2", { seqs: 4 }),
    c("falconh1"), c("falconh1", { seqs: 2, ctk: "q8_0", ctv: "q8_0" }),
  ],
  // The compute buffer's terms one by one (docs/engines/llamacpp-budget.md): llama files of their own
  // dimensions ("llama": n_embd, heads, n_ff; two layers) and vocabularies, so that the FFN, the scores and
  // the logits each decide the buffer in turn.
  compute: [
    c("llama", { llama: { embd: 256, head: 8, head_kv: 2, ff: 8192 } }),
    c("llama", { llama: { embd: 1024, head: 8, head_kv: 2, ff: 4096 } }),
    c("llama", { llama: { embd: 256, head: 16, head_kv: 16, ff: 512 }, fa: false }),
    c("llama", { llama: { embd: 1024, head: 8, head_kv: 2, ff: 512 }, fa: false, n_ctx: 8192 }),
    c("llama", { vocab: 32000 }), c("llama", { vocab: 128000 }), c("llama", { vocab: 32000, ubatch: 128 }),
    c("llama", { vocab: 32000, fa: false, n_ctx: 1024 }),
    c("qwen2", { vocab: 32000 }), c("gemma3", { vocab: 32000 }), c("deepseek2", { vocab: 32000 }),
    c("qwen3moe", { vocab: 32000 }), c("nemotronh", { vocab: 32000 }), c("mamba2", { vocab: 32000 }),
  ],
  harness: [
    c("llama", { n_ctx: 8192, seqs: 4, kv_unified: true }), c("llama", { n_ctx: 1000, seqs: 4, kv_unified: true }),
    c("llama", { n_batch: 4096, ubatch: 128 }),
    c("gemma3", { n_ctx: 8192, seqs: 4, kv_unified: true, ubatch: 256 }), c("gemma3", { n_batch: 2048, ubatch: 128 }),
    c("gemma3", { n_ctx: 10000, seqs: 3 }), c("llama", { n_ctx: 1000, seqs: 3, kv_unified: true }),
    c("gemma3", { n_ctx: 2048, seqs: 4, kv_unified: true }),
    c("gptoss", { n_ctx: 16384, seqs: 2, kv_unified: true }),
    c("jamba", { n_ctx: 6144, seqs: 3, kv_unified: true }),
    c("nemotronh", { seqs: 2, n_rs_seq: 3 }), c("nemotronh", { seqs: 1, n_rs_seq: 8, kv_unified: true }),
    c("lfm2", { seqs: 2, n_rs_seq: 4 }), c("qwen35", { seqs: 2, n_rs_seq: 2, kv_unified: true, n_ctx: 8192 }),
    // LLAMA_MAX_SEQ: 256 slots are allocated; 257 are refused ("n_seq_max must be <= 256"), and kvplan, given a
    // GPU, answers with its concurrency limit (over_max_seq: 256 sequences per server, add replicas).
    c("llama", { n_ctx: 4096, seqs: 256 }), c("llama", { n_ctx: 4112, seqs: 257, over_max_seq: true }),
    // No rollback on these architectures: llama.cpp clamps n_rs_seq to 0.
    c("qwen3next", { n_rs_seq: 2 }), c("granitehybrid", { seqs: 2, n_rs_seq: 2 }),
  ],
};
