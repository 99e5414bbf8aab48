// Development tool (not run by ctest): llama.cpp's compute buffer over a sweep, through harness.cpp.
//   node tests/live/probe.mjs HARNESS BACKENDS '<json list of cases>'
// A case: { model, vocab, llama: {embd, head, head_kv, ff, layers, head_dim}, n_ctx, seqs, ubatch, n_batch, fa }
// "llama" writes a llama-architecture file of those dimensions; "vocab" pads the vocabulary to that size.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeGguf, spmVocab } from "./gguf.mjs";
import { fullMeta, models } from "./models.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const [harness, backends, spec] = process.argv.slice(2);
const tensors = JSON.parse(readFileSync(join(here, "tensors.json"), "utf8"));

export function vocabOf(n) {
  const v = spmVocab();
  const tokens = [...v["tokenizer.ggml.tokens"]];
  for (let i = tokens.length; i < n; ++i) tokens.push(`\u2581w${i}`);
  return { ...v, "tokenizer.ggml.tokens": tokens,
           "tokenizer.ggml.scores": { type: "arr", of: "f32", value: tokens.map(() => 0) },
           "tokenizer.ggml.token_type": { type: "arr", of: "i32",
             value: tokens.map((t, i) => (i === 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1)) } };
}

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

const out = [];
for (const c of JSON.parse(spec)) {
  const nv = c.vocab ?? 266;
  const path = `/tmp/probe/${JSON.stringify([c.model, c.llama, nv]).replace(/[^a-z0-9]/gi, "_")}.gguf`;
  if (c.llama) {
    const { meta, t } = llamaFile(c.llama, nv);
    writeGguf(path, { "general.alignment": 32, "general.file_type": 0, "general.name": "probe", ...meta, ...vocabOf(nv) }, t);
  } else {
    const t = tensors[c.model].map((x) => ({ ...x, shape: x.shape.map((s) => (s === 266 ? nv : s)) }));
    writeGguf(path, fullMeta(c.model, vocabOf(nv)), t);
  }
  const fa = c.fa === "auto" ? -1 : c.fa === false ? 0 : 1;
  const argv = [backends, path, c.n_ctx ?? 4096, c.seqs ?? 1, c.n_batch ?? c.ubatch ?? 512, c.ubatch ?? 512, 1, 1, fa, 0,
                c.kv_unified ? 1 : 0, 0].map(String);
  const run = spawnSync(harness, argv, { encoding: "utf8" });
  const bufs = run.stdout.split("\n").filter((l) => /compute buffer size =|graph nodes|graph splits/.test(l));
  console.log(JSON.stringify(c), "=>", bufs.map((l) => l.replace(/^\S+\s+/, "").trim()).join(" | ") || run.stdout.slice(-300));
}
