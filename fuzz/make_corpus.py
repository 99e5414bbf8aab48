#!/usr/bin/env python3
"""Regenerates the committed seed corpora in fuzz/corpus/<target>/ from the shipped presets and the
test fixtures (run from anywhere; overwrites the seeds, keeps nothing else). One preset per
architecture family keeps the corpus small; the fuzzers' own findings go to build-fuzz/corpus."""
import json
import pathlib
import shutil

root = pathlib.Path(__file__).resolve().parent.parent
out = root / "fuzz" / "corpus"
# One preset per architecture family (every loader branch: GQA, MLA, Falcon, GPT-2, Gemma 2/3
# alternation, gpt-oss, Jamba, Llama 4 chunks, Mistral window, Mixtral/Qwen MoE, Qwen3-Next).
models = ["llama-3.1-8b", "deepseek-v3", "deepseek-v2-lite", "falcon-7b", "falcon-40b", "gemma-2-9b",
          "gemma-3-4b", "gemma-3-12b", "gpt-oss-20b", "gpt2", "jamba-1.5-mini", "llama-4-scout",
          "mistral-7b-v0.1", "mixtral-8x7b", "qwen2.5-7b", "qwen3-8b", "qwen3-235b-a22b",
          "qwen3-next-80b-a3b"]
fixtures = root / "tests" / "fixtures"

for target in ["preset", "hf_config", "units", "size"]:
    shutil.rmtree(out / target, ignore_errors=True)
    (out / target).mkdir(parents=True)

def config(name):
    return json.loads((root / "presets" / "models" / f"{name}.json").read_text())["config"]

# preset: whole preset files, the GPU list and the fixtures (bare configs, malformed, empty, a report).
for m in models:
    shutil.copy(root / "presets" / "models" / f"{m}.json", out / "preset" / f"{m}.json")
shutil.copy(root / "presets" / "gpus.json", out / "preset" / "gpus.json")
for f in ["malformed.json", "unknown-arch.json", "empty.json"]:
    shutil.copy(fixtures / f, out / "preset" / f)
shutil.copy(fixtures / "llama-like" / "config.json", out / "preset" / "llama-like-config.json")
shutil.copy(fixtures / "calibration.json", out / "preset" / "calibration.json")  # a kvplan-bench report

# hf_config: the "config" objects, as Hugging Face ships them.
for m in models:
    (out / "hf_config" / f"{m}.json").write_text(json.dumps(config(m), indent=1) + "\n")
shutil.copy(fixtures / "llama-like" / "config.json", out / "hf_config" / "llama-like-config.json")
shutil.copy(fixtures / "unknown-arch.json", out / "hf_config" / "unknown-arch.json")

# units: sizes, token counts and counts as users type them.
for i, s in enumerate(["80GiB", "6.51GiB", "85520809984", "1.5 TB", "512MiB", "32k", "128Ki", "4096",
                       "1M", "0.5Mi", "18446744073709551615", "00042", "+7 kB"]):
    (out / "units" / f"seed-{i:02}.txt").write_text(s)

# size: the first line is the command line after `size`, the rest the model file.
runs = [("--context 32768 --users 16 --gpu h100-sxm --tp 4", "llama-3.1-8b"),
        ("--context 128Ki --gpu h200 --tp 8 --pp 2 --json", "deepseek-v3"),
        ("--engine vllm --kv-memory 6.51GiB --context 32768", "qwen3-8b"),
        ("--engine llamacpp --context 131072 --users 4 --gpu-memory 24GiB --kv-dtype q8_0", "gpt-oss-20b"),
        ("--engine sglang --gpu h100-sxm --gpu-util 0.85 --users 8", "gemma-3-12b"),
        ("--engine trtllm --gpu a100-80gb --tp 2 --kv-dtype fp8 --max-tokens 100000", "mixtral-8x7b"),
        ("--gpu h100-sxm --gpus 8 --tp 2 --pp 2 --weights auto --overhead 2GiB", "jamba-1.5-mini"),
        ("--context 1M --users 2 --gpu-memory 80GB --units si --k-dtype fp16 --v-dtype int4", "llama-4-scout"),
        ("--engine vllm --engine-version v0 --block-size 32 --gpu h100-sxm", "qwen3-next-80b-a3b"),
        ("--engine llamacpp --swa-full --kv-unified --ubatch 256 --gpu-memory 16GiB", "gemma-2-9b")]
for i, (line, m) in enumerate(runs):
    (out / "size" / f"{m}.txt").write_text(line + "\n" + json.dumps(config(m)) + "\n")
for i, line in enumerate(["--layers 80 --heads 64 --kv-heads 8 --head-dim 128 --kv-dtype fp16 --context 4096",
                          "--layers 32 --heads 32 --head-dim 128 --window 4096 --gpu h100-sxm --users 64",
                          "llama-3.1-70b --context 32768 --users 16 --gpu h100-sxm --tp 4"]):
    (out / "size" / f"flags-{i}.txt").write_text(line + "\n")

# gguf: small whole GGUF files (tests/sources/make_gguf.py's writer), each after the read-size byte that
# fuzz_gguf.cpp takes first (0: reads of 8 bytes, 92: of 100).
import importlib.util
import struct

spec = importlib.util.spec_from_file_location("make_gguf", root / "tests" / "sources" / "make_gguf.py")
make_gguf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_gguf)
shutil.rmtree(out / "gguf", ignore_errors=True)
(out / "gguf").mkdir(parents=True)


def gguf(arch, keys, tensors=(), strings=()):
    w = make_gguf.Writer()
    w.str("general.architecture", arch)
    for k, v in strings:
        w.str(k, v)
    for k, v in keys:
        if isinstance(v, list):
            w.kv += w.s(f"{arch}.{k}") + struct.pack("<IIQ", 9, 4, len(v)) + b"".join(struct.pack("<I", x) for x in v)
            w.n_kv += 1
        else:
            w.u32(f"{arch}.{k}", v)
    for name, shape, t in tensors:
        w.tensor(name, shape, t)
    header, data = w.file()
    return header + bytes(data)


F32 = make_gguf.F32
seeds = {
    "llama": gguf("llama", [("block_count", 2), ("embedding_length", 64), ("feed_forward_length", 128),
                            ("attention.head_count", 4), ("attention.head_count_kv", 2)],
                  [("token_embd.weight", [64, 16], F32), ("output_norm.weight", [64], F32)],
                  [("tokenizer.chat_template", "{% for m in messages %}{{ m.content }}{% endfor %}")]),
    "granitehybrid": gguf("granitehybrid", [("block_count", 4), ("embedding_length", 64),
                                            ("attention.head_count", 4), ("attention.head_count_kv", [0, 0, 2, 0]),
                                            ("ssm.conv_kernel", 4), ("ssm.inner_size", 128), ("ssm.state_size", 16),
                                            ("ssm.time_step_rank", 4), ("ssm.group_count", 1)]),
    "gemma3": gguf("gemma3", [("block_count", 6), ("embedding_length", 64), ("attention.head_count", 4),
                              ("attention.head_count_kv", 1), ("attention.key_length", 16),
                              ("attention.sliding_window", 32)]),
    "deepseek2": gguf("deepseek2", [("block_count", 2), ("embedding_length", 64), ("attention.head_count", 4),
                                    ("attention.kv_lora_rank", 32), ("rope.dimension_count", 16),
                                    ("attention.key_length_mla", 48), ("expert_count", 4),
                                    ("expert_used_count", 2), ("leading_dense_block_count", 1)]),
    "nemotron_h": gguf("nemotron_h", [("block_count", 4), ("embedding_length", 64), ("attention.head_count", 4),
                                      ("attention.head_count_kv", [0, 0, 2, 0]),
                                      ("feed_forward_length", [0, 128, 0, 0]), ("ssm.conv_kernel", 4),
                                      ("ssm.inner_size", 128), ("ssm.state_size", 16), ("ssm.time_step_rank", 4),
                                      ("ssm.group_count", 2)]),
    "qwen35": gguf("qwen35", [("block_count", 5), ("embedding_length", 64), ("attention.head_count", 4),
                              ("attention.head_count_kv", 2), ("full_attention_interval", 4),
                              ("nextn_predict_layers", 1), ("ssm.conv_kernel", 4), ("ssm.inner_size", 128),
                              ("ssm.state_size", 32), ("ssm.group_count", 2), ("ssm.time_step_rank", 4)]),
    "gemma4": gguf("gemma4", [("block_count", 6), ("embedding_length", 64), ("attention.head_count", 4),
                              ("attention.head_count_kv", 2), ("attention.key_length", 32),
                              ("attention.key_length_swa", 16), ("attention.sliding_window", 64),
                              ("attention.sliding_window_pattern", 3), ("attention.shared_kv_layers", 2)]),
}
for name, data in seeds.items():
    for size_byte in (0, 92):
        (out / "gguf" / f"{name}-{size_byte}.gguf").write_bytes(bytes([size_byte]) + data)

# hub: whole exchanges with the Hub stand-in (fuzz_hub.cpp): byte 0 (even: a safetensors repo, odd: a GGUF
# repo by tag), then the answers in request order, split by "@@@\n" (status line, header lines, a blank
# line, the body).
import hashlib

shutil.rmtree(out / "hub", ignore_errors=True)
(out / "hub").mkdir(parents=True)
commit = "1" * 40


def reply(status, headers, body=b""):
    return (status + "\n" + "".join(h + "\n" for h in headers) + "\n").encode() + body


def exchange(kind, replies):
    return bytes([kind]) + b"@@@\n".join(replies)


cfg = json.dumps({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                  "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 256,
                  "max_position_embeddings": 4096, "tie_word_embeddings": True,
                  "torch_dtype": "bfloat16"}).encode()
st = json.dumps({"model.embed_tokens.weight": {"dtype": "BF16", "shape": [256, 64],
                                                "data_offsets": [0, 32768]}}).encode()
st_size = 8 + len(st) + 32768
(out / "hub" / "safetensors-single").write_bytes(exchange(0, [
    reply("200", ["X-Repo-Commit: " + commit, 'ETag: "' + hashlib.sha1(cfg).hexdigest() + '"'], cfg),
    reply("404", ["X-Error-Code: EntryNotFound"], b'{"error":"x"}'),
    reply("206", ["X-Repo-Commit: " + commit, "HTTP/1.1 206", f"Content-Range: bytes 0-7/{st_size}"],
          struct.pack("<Q", len(st))),
    reply("206", [f"Content-Range: bytes 8-{8 + len(st) - 1}/{st_size}"], st)]))
(out / "hub" / "gated").write_bytes(exchange(0, [reply("401", ["X-Error-Code: GatedRepo"], b"{}")]))

llama_keys = [("block_count", 1), ("embedding_length", 64), ("feed_forward_length", 128),
              ("attention.head_count", 4), ("attention.head_count_kv", 2)]


def shard(no, count, tensors):
    """A GGUF shard: the metadata in the first; split.no and split.count as uint16 when count > 1."""
    w = make_gguf.Writer()
    if no == 0:
        w.str("general.architecture", "llama")
        for k, v in llama_keys:
            w.u32("llama." + k, v)
        w.tokens(16)
    if count > 1:
        for k, v in (("split.count", count), ("split.no", no)):
            w.kv += w.s(k) + struct.pack("<IH", 2, v)
            w.n_kv += 1
    for t in tensors:
        w.tensor(t, [64, 16], F32)
    header, data = w.file()
    return header + bytes(data)


def listing(files):
    return reply("200", [], json.dumps([{"type": "file", "path": n, "size": len(b)} for n, b in files]).encode())


def header_replies(data, first):
    """The probe (its answer carries the commit when `first`), then the whole file in one Range answer."""
    probe_headers = (["X-Repo-Commit: " + commit] if first else []) + [f"Content-Range: bytes 0-7/{len(data)}"]
    return [reply("206", probe_headers, data[:8]),
            reply("206", [f"Content-Range: bytes 0-{len(data) - 1}/{len(data)}"], data)]


single = shard(0, 1, ["token_embd.weight"])
(out / "hub" / "gguf-single").write_bytes(exchange(1, [
    listing([("m-Q4_K_M.gguf", single), ("README.md", b"hello")]), *header_replies(single, True)]))
s1, s2 = shard(0, 2, ["token_embd.weight"]), shard(1, 2, ["output.weight"])
n1, n2 = "m-Q4_K_M-00001-of-00002.gguf", "m-Q4_K_M-00002-of-00002.gguf"
(out / "hub" / "gguf-split").write_bytes(exchange(1, [
    listing([(n1, s1), (n2, s2)]), *header_replies(s1, True), *header_replies(s2, False)]))
(out / "hub" / "listing-next-page").write_bytes(exchange(1, [
    reply("200", ['Link: <http://fuzz:fuzzsecretpw@hub.fuzz/api/models/org/name/tree/main?cursor=x>; rel="next"'],
          b"[]"),
    reply("200", [], b"[]")]))
