// The live suite: the real llama.cpp (node-llama-cpp's prebuilt CPU library) creates a context for each
// case of cases.mjs over a tiny GGUF (models.mjs, tensors.json), and its KV / recurrent lines must be
// kvplan's, text for text (kvplan size FILE --engine llamacpp ... --json: log_lines). A case llama.cpp
// refuses must be refused by kvplan (exit 2). Usage:
//   node tests/live/live.mjs --kvplan PATH [--harness PATH --backends DIR] GROUP
// (a group of cases.mjs; exit 1 on any mismatch). The "harness" group's cases set what node-llama-cpp's
// binding cannot (kv_unified, n_rs_seq, n_batch apart from n_ubatch): they run through harness.cpp,
// built against the same library (--harness; --backends: the directory of its ggml CPU backends).
// node-llama-cpp comes from tests/live/node_modules (scripts/setup.sh installs it); missing, the suite
// fails: it is never skipped. LIVE_MODEL=name runs one model's cases; LIVE_DEBUG=1 echoes llama.cpp's log.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { writeGguf, spmVocab } from "./gguf.mjs";
import { fullMeta, llamaFile, vocabOf } from "./models.mjs";
import { groups } from "./cases.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name) => (args.indexOf(name) >= 0 ? args[args.indexOf(name) + 1] : undefined);
const kvplan = option("--kvplan"), harness = option("--harness"), backends = option("--backends");
const group = args.filter((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"))[0];
if (!kvplan || args.indexOf("--kvplan") < 0 || !groups[group]) {
  console.error(`usage: live.mjs --kvplan PATH GROUP (GROUP: ${Object.keys(groups).join(", ")})`);
  process.exit(2);
}

let nlc;
try {
  nlc = await import("node-llama-cpp");
} catch (e) {
  console.error(`FAIL: node-llama-cpp is not installed (${e.code ?? e.message}); run scripts/setup.sh, which ` +
                `installs node-llama-cpp@3.21.1 into tests/live/node_modules`);
  process.exit(1);
}
const { getLlama, LlamaLogLevel } = nlc;

// ggml.h enum ggml_type, for the cache types the cases use.
const ggmlType = { f32: 0, f16: 1, q4_0: 2, q4_1: 3, q5_0: 6, q5_1: 7, q8_0: 8, iq4_nl: 20, bf16: 30, mxfp4: 39 };

let logs = [];
const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.debug, progressLogs: false,
                               logger: (_level, message) => { logs.push(message); if (process.env.LIVE_DEBUG) process.stderr.write(message); } });
const tensors = JSON.parse(readFileSync(join(here, "tensors.json"), "utf8"));
const settle = () => new Promise((r) => setTimeout(r, 10));  // the native logger's lines come asynchronously
const kvLine = /^(llama_kv_cache(_iswa)?: (size =|creating)|llama_memory_recurrent: size =)/;
const dir = mkdtempSync(join(tmpdir(), "kvplan-live-"));
console.log(`llama.cpp ${llama.llamaCppRelease.release} (node-llama-cpp ${nlc.getModuleVersion ? await nlc.getModuleVersion() : "3.21.1"}, ${llama.buildType} ${llama.gpu || "cpu"}), group ${group}`);

if (group === "harness" && !harness) {
  console.error("FAIL: the harness group needs the C++ harness (--harness), which CMake builds once scripts/setup.sh " +
                "has installed node-llama-cpp and its headers: run setup.sh, then configure again");
  process.exit(1);
}

/// llama.cpp through harness.cpp: its log lines and whether the context was created.
function viaHarness(c, path) {
  const fa = c.fa === "auto" ? -1 : c.fa ? 1 : 0;
  // llama-server's n_outputs_max (server_output_limits): one output per slot, 1 + the draft tokens with
  // speculative decoding (kvplan's --n-rs-seq is --spec-draft-n-max), at most n_batch.
  const nBatch = c.n_batch ?? 2048;  // llama-server's -b default
  const outputs = Math.min(nBatch, c.seqs * (1 + (c.n_rs_seq ?? 0)));
  const argv = [backends, path, c.n_ctx, c.seqs, nBatch, c.ubatch ?? 512, ggmlType[c.ctk], ggmlType[c.ctv],
                fa, c.swa_full ? 1 : 0, c.kv_unified ? 1 : 0, c.n_rs_seq ?? 0, outputs].map(String);
  const run = spawnSync(harness, argv, { encoding: "utf8" });
  if (run.status !== 0) return { ok: false, loaded: false, lines: (run.stdout + run.stderr).split("\n") };
  const lines = run.stdout.split("\n").map((l) => l.trimEnd());
  return { ok: lines.includes("context: ok"), loaded: true, lines };
}

/// llama.cpp through node-llama-cpp's native binding: its log lines and whether the context was created.
async function viaBinding(c, path) {
  logs = [];
  const model = new llama._bindings.AddonModel(path, { addonExports: llama._bindings, gpuLayers: 0, useMmap: true });
  if (!(await model.init())) {
    await settle();
    return { ok: false, loaded: false, lines: logs };
  }
  await settle();
  logs = [];
  const params = { contextSize: c.n_ctx, sequences: c.seqs, flashAttention: c.fa, threads: 1,
                   kvCacheKeyType: ggmlType[c.ctk], kvCacheValueType: ggmlType[c.ctv], swaFullCache: c.swa_full };
  if (c.ubatch) params.batchSize = c.ubatch;
  const ctx = new llama._bindings.AddonContext(model, params);
  const ok = await ctx.init();
  await settle();
  const lines = logs.map((l) => l.trimEnd());
  if (ok) await ctx.dispose();
  await model.dispose();
  return { ok, loaded: true, lines };
}

const name = (c) => `${c.model}${c.llama ? `[${Object.entries(c.llama).map(([k, v]) => k + v).join(",")}]` : ""}` +
  `${c.vocab ? `-v${c.vocab}` : ""}/c${c.n_ctx}-s${c.seqs}-${c.ctk}-${c.ctv}-fa${c.fa === "auto" ? "auto" : c.fa ? 1 : 0}` +
  (c.swa_full ? "-swafull" : "") + (c.ubatch ? `-ub${c.ubatch}` : "") + (c.n_batch ? `-b${c.n_batch}` : "") +
  (c.kv_unified ? "-unified" : "") + (c.n_rs_seq ? `-rs${c.n_rs_seq}` : "");

/// The MiB figure of a "compute buffer size = X MiB" line; null without one.
const computeLine = /compute buffer size =/;
const mibOf = (line) => { const m = /compute buffer size = +([0-9.]+) MiB/.exec(line ?? ""); return m ? Number(m[1]) : null; };
/// How far kvplan's compute buffer may be from llama.cpp's: 2 MiB (ggml-alloc's placement on these
/// models: a freed block too small for the next tensor moves it up by a few rows of n_embd x n_ubatch),
/// or 10% of the buffer, whichever is larger. docs/engines/llamacpp-budget.md gives the measured errors.
const computeTolerance = (real) => Math.max(2, 0.1 * (real ?? 0));
const computeErrors = [];

let failed = 0;
const files = {};
for (const c of groups[group].filter((x) => !process.env.LIVE_MODEL || x.model === process.env.LIVE_MODEL)) {
  // A "llama" case is a llama file of its own dimensions, "vocab" pads the vocabulary (the compute group).
  const key = JSON.stringify([c.model, c.llama ?? null, c.vocab ?? null]);
  const path = files[key] ??= (() => {
    const p = join(dir, `f${Object.keys(files).length}-${c.model}.gguf`);
    if (c.llama) {
      const { meta, t } = llamaFile(c.llama, c.vocab ?? 266);
      writeGguf(p, { ...fullMeta(c.model, vocabOf(c.vocab ?? 266)), ...meta }, t);
    } else {
      const t = c.vocab ? tensors[c.model].map((x) => ({ ...x, shape: x.shape.map((s) => (s === 266 ? c.vocab : s)) }))
                        : tensors[c.model];
      writeGguf(p, fullMeta(c.model, c.vocab ? vocabOf(c.vocab) : spmVocab()), t);
    }
    return p;
  })();
  // llama.cpp: load, create the context, take its lines.
  // Every group through the harness when it is built (llama-server's n_outputs_max, which the binding
  // cannot pass); the binding without it (the harness group then fails, saying so).
  const h = harness ? viaHarness(c, path) : await viaBinding(c, path);
  if (!h.loaded) {
    console.log(`FAIL ${name(c)}: llama.cpp did not load the model: ` +
                `${h.lines.filter((l) => /error|usage|not/.test(l)).join(" | ")}`);
    ++failed;
    continue;
  }
  const { ok, lines } = h;
  const engine = lines.filter((l) => kvLine.test(l));
  const compute = lines.filter((l) => /compute buffer size =/.test(l));

  // kvplan on the same file and settings.
  const argv = ["size", path, "--engine", "llamacpp", "--ctx-size", String(c.n_ctx), "--users", String(c.seqs),
                "--k-dtype", c.ctk, "--v-dtype", c.ctv, "--json"];
  if (c.fa === false) argv.push("--no-flash-attn");  // -fa off; on and auto are kvplan's default rules
  if (c.swa_full) argv.push("--swa-full");
  if (c.ubatch) argv.push("--ubatch", String(c.ubatch));
  if (c.kv_unified) argv.push("--kv-unified");
  if (c.n_rs_seq) argv.push("--n-rs-seq", String(c.n_rs_seq));
  if (c.over_max_seq) argv.push("--gpu", "h100-sxm");  // the concurrency limit is a verdict against a GPU
  const run = spawnSync(kvplan, argv, { encoding: "utf8" });
  let planned = null, plannedCompute = null;
  if (run.status === 0) {
    const out = JSON.parse(run.stdout);
    planned = (out.engine?.log_lines ?? []).filter((l) => kvLine.test(l));
    plannedCompute = mibOf((out.engine?.log_lines ?? []).find((l) => computeLine.test(l)));
  }

  const why = [];
  if (c.over_max_seq) {
    const limit = run.status === 0 ? JSON.parse(run.stdout).limit ?? "" : "";
    if (ok) why.push(`llama.cpp created ${c.seqs} sequences: LLAMA_MAX_SEQ is not the 256 kvplan plans with`);
    else if (!/^concurrency: llamacpp holds at most 256 sequences per replica/.test(limit))
      why.push(`llama.cpp refused ${c.seqs} sequences but kvplan's limit is '${limit}' (exit ${run.status}: ` +
               `${run.stderr.trim()})`);
  } else if (c.server_refuses) {
    if (run.status !== 2) why.push(`llama-server refuses these settings but kvplan exited ${run.status}`);
  } else if (!ok) {
    if (run.status !== 2)
      why.push(`llama.cpp refused (${lines.filter((l) => /requires|not supported|failed|error/i.test(l))[0] ?? "no reason"}) ` +
               `but kvplan exited ${run.status}${run.status === 0 ? " with a plan" : ""}: ${run.stderr.trim()}`);
  } else if (run.status !== 0) {
    why.push(`kvplan exited ${run.status}: ${run.stderr.trim()}\n  llama.cpp:\n    ${engine.join("\n    ")}`);
  } else if (JSON.stringify(engine) !== JSON.stringify(planned)) {
    why.push("llama.cpp:\n    " + engine.join("\n    ") + "\n  kvplan:\n    " + planned.join("\n    "));
  }
  // The compute buffer: llama.cpp's "CPU compute buffer size" against kvplan's prediction, within the
  // tolerance docs/engines/llamacpp-budget.md states (computeTolerance).
  let computeNote = "";
  if (ok && run.status === 0 && !c.server_refuses && !c.over_max_seq) {
    const real = mibOf(compute[0]);
    const tol = computeTolerance(real);
    computeNote = ` | compute predicted ${plannedCompute?.toFixed(2)} MiB (${(plannedCompute - real >= 0 ? "+" : "") + (plannedCompute - real).toFixed(2)})`;
    computeErrors.push({ name: name(c), real, planned: plannedCompute });
    if (real === null || plannedCompute === null || Math.abs(plannedCompute - real) > tol)
      why.push(`compute buffer: llama.cpp ${real} MiB, kvplan ${plannedCompute} MiB (tolerance ${tol.toFixed(2)} MiB)`);
  }
  const tag = why.length ? "FAIL" : "PASS";
  if (why.length) ++failed;
  const said = c.over_max_seq && !ok ? `llama.cpp refused; kvplan: ${run.status === 0 ? JSON.parse(run.stdout).limit : run.stderr.trim()}`
             : ok ? engine.concat(compute).join(" | ") + computeNote : `refused: ${run.stderr.trim()}`;
  console.log(`${tag} ${name(c)}${why.length ? "\n  " + why.join("\n  ") : ": " + said}`);
}
rmSync(dir, { recursive: true, force: true });
if (computeErrors.length) {
  const errs = computeErrors.map((e) => Math.abs(e.planned - e.real));
  const exact = errs.filter((e) => e < 0.005).length;
  console.log(`compute buffer: ${exact} of ${errs.length} exact to the printed 0.01 MiB, largest error ` +
              `${Math.max(...errs).toFixed(2)} MiB`);
}
console.log(`${groups[group].length - failed} of ${groups[group].length} cases match llama.cpp ${llama.llamaCppRelease.release}`);
await llama.dispose();
process.exit(failed ? 1 : 0);
