// Development tool, not run by the suite: finds the tensors llama.cpp's loader demands for each model
// of models.mjs by loading the file and reading the loader's errors ("missing tensor 'X'", "tensor 'X'
// has wrong shape; expected A, B, got ..."), adding or reshaping one tensor per round. Writes
// tensors.json. Usage: node tests/live/discover.mjs [model ...]
import { getLlama, LlamaLogLevel } from "node-llama-cpp";
import { readFileSync, writeFileSync, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { writeGguf, spmVocab } from "./gguf.mjs";
import { models, fullMeta } from "./models.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "tensors.json");
const known = existsSync(out) ? JSON.parse(readFileSync(out, "utf8")) : {};
let logs = [];
const wantedAll = [/\.ssm_conv1d\.bias$/, /\.ssm_in\.weight$/];
// Qwen3.5's Gated DeltaNet layers (0 to 2 of the tiny model; 3 is full attention, whose fused attn_qkv
// would leave attn_q/k/v unused) take attn_qkv and attn_gate (llama_model_qwen35::graph::build_qkvz).
const wantedFor = { qwen35: [/\.ssm_conv1d\.bias$/, /^blk\.[0-2]\.attn_(qkv|gate)\.weight$/] };
wantedFor.qwen35mtp = wantedFor.qwen35;
let wanted = wantedAll;
const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.debug,
                               logger: (_l, m) => logs.push(m), progressLogs: false });
const dir = mkdtempSync(join(tmpdir(), "kvplan-discover-"));
for (const name of process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(models)) {
  // GLM-4.5's and Qwen3.5's loaders take a file without blk.0.attn_norm for an MTP-only file (mtp_only):
  // seeded, its trunk is required.
  const seeds = { glm4moe: [{ name: "blk.0.attn_norm.weight", shape: [1] }],
                  qwen35mtp: [{ name: "blk.0.attn_norm.weight", shape: [1] }] };
  const tensors = known[name] ?? seeds[name] ?? [];
  wanted = wantedFor[name] ?? wantedAll;
  const path = join(dir, `${name}.gguf`);
  for (let round = 0; round < 2000; ++round) {
    writeGguf(path, fullMeta(name, spmVocab()), tensors);
    logs = [];
    try {
      const m = await llama.loadModel({ modelPath: path, gpuLayers: 0 });
      await m.dispose();
      await new Promise((r) => setTimeout(r, 20));
      // Optional tensors (TENSOR_NOT_REQUIRED) that a graph uses unconditionally (wanted): Mamba2's conv bias
      // (llm_build_mamba_base::build_mamba2_layer adds ssm_conv1d_b) and Qwen3-Next's ssm_in (build_qkvz, when
      // attn_qkv is absent): without them graph_reserve crashes.
      const want = [...new Set(logs.join("\n").match(/loading tensor \S+/g) ?? [])].map((l) => l.slice(15))
        .filter((n) => wanted.some((w) => w.test(n)) && !tensors.some((t) => t.name === n));
      if (want.length) {
        for (const n of want) tensors.push({ name: n, shape: [1] });
        continue;
      }
      console.log(`${name}: ${tensors.length} tensors`);
      break;
    } catch (e) {
      await new Promise((r) => setTimeout(r, 20));  // the native logger's lines arrive asynchronously
      const text = logs.join("\n");
      const missing = text.match(/missing tensor '([^']+)'/) ?? text.match(/check_tensor_dims: tensor '([^']+)' not found/);
      const shape = text.match(/tensor '([^']+)' has wrong shape; expected ([^,]*(?:,[^,g]*)*), got/);
      if (shape) {
        const dims = shape[2].split(",").map((s) => Number(s.trim()));
        tensors.find((t) => t.name === shape[1]).shape = dims;
      } else if (missing) {
        tensors.push({ name: missing[1], shape: [1] });
      } else {
        console.log(`${name}: stopped: ${e.message}: ${logs.filter((l) => /error|failed|not found/i.test(l)).join(" | ")}`);
        break;
      }
    }
  }
  known[name] = tensors;
}
writeFileSync(out, JSON.stringify(known, null, 0).replace(/\],"/g, '],\n"').replace(/\},\{/g, "},\n{") + "\n");
