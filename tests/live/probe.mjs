// Development tool (not run by ctest): llama.cpp's compute buffer over a sweep, through harness.cpp.
//   node tests/live/probe.mjs HARNESS BACKENDS '<json list of cases>'
// A case: { model, vocab, llama: {embd, head, head_kv, ff, layers, head_dim}, n_ctx, seqs, ubatch, n_batch, fa }
// "llama" writes a llama-architecture file of those dimensions; "vocab" pads the vocabulary to that size.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeGguf } from "./gguf.mjs";
import { fullMeta, llamaFile, vocabOf } from "./models.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const [harness, backends, spec] = process.argv.slice(2);
const tensors = JSON.parse(readFileSync(join(here, "tensors.json"), "utf8"));

const dir = mkdtempSync(join(tmpdir(), "kvplan-probe-"));
for (const c of JSON.parse(spec)) {
  const nv = c.vocab ?? 266;
  const path = `${dir}/${JSON.stringify([c.model, c.llama, nv]).replace(/[^a-z0-9]/gi, "_")}.gguf`;
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
