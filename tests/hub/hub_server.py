#!/usr/bin/env python3
"""A Hugging Face Hub stand-in for kvplan's tests: http.server on 127.0.0.1, a port chosen at run time.

It serves what huggingface.co serves for /{org}/{name}/resolve/{revision}/{file} (huggingface_hub
file_download.py hf_hub_url, get_hf_file_metadata):
  - config.json and model.safetensors.index.json with X-Repo-Commit and an ETag (the git blob SHA-1 of the
    body, as the Hub gives for regular files);
  - *.safetensors as the Hub serves LFS files: a 302 to a CDN path carrying X-Repo-Commit, X-Linked-Etag
    and X-Linked-Size; the CDN path answers Range requests (206, Content-Range bytes a-b/size). A shard is
    header-only and sparse: the 8-byte length and the JSON header, then zeros made up on the fly;
  - 404 with X-Error-Code RepoNotFound, RevisionNotFound or EntryNotFound; 401 GatedRepo for a gated repo
    without `Authorization: Bearer hf_kvplan_test`.
GGUF repos (gguf/*) as the Hub serves them for llama.cpp's -hf: /api/models/{repo}/tree/{revision} lists
the files (huggingface_hub list_repo_tree: type, path, size, lfs), and the .gguf files are LFS files whose
bytes are the header tests/sources/make_gguf.py writes, then zeros (the tensors, never asked for by
kvplan); every byte served of them is counted in Handler.gguf_served.
Models come from real configs (presets/models/qwen3-32b.json, tests/data/configs/llama-3.1-8b.json) with
the tensor names and shapes transformers' save_pretrained writes for them; broken/* repos misbehave (HTML for JSON, a cut connection, a slow answer, a
Range request ignored or answered short).
"""
import hashlib
import json
import os
import re
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKEN = "hf_kvplan_test"
sys.path.insert(0, os.path.join(ROOT, "tests", "sources"))
import make_gguf  # noqa: E402


def llama_tensors(cfg, q_k_norm=False):
    """(name, dtype, shape) of a Llama-style checkpoint (transformers LlamaForCausalLM / Qwen3ForCausalLM)."""
    h, inter, vocab = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    heads, kv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    hd = cfg.get("head_dim", h // heads)
    layers = []
    for il in range(cfg["num_hidden_layers"]):
        b = f"model.layers.{il}."
        t = [(b + "input_layernorm.weight", [h]), (b + "mlp.down_proj.weight", [h, inter]),
             (b + "mlp.gate_proj.weight", [inter, h]), (b + "mlp.up_proj.weight", [inter, h]),
             (b + "post_attention_layernorm.weight", [h]), (b + "self_attn.k_proj.weight", [kv * hd, h]),
             (b + "self_attn.o_proj.weight", [h, heads * hd]), (b + "self_attn.q_proj.weight", [heads * hd, h]),
             (b + "self_attn.v_proj.weight", [kv * hd, h])]
        if q_k_norm:
            t += [(b + "self_attn.k_norm.weight", [hd]), (b + "self_attn.q_norm.weight", [hd])]
        layers.append([(n, "BF16", s) for n, s in t])
    first = [("model.embed_tokens.weight", "BF16", [vocab, h])]
    last = [("model.norm.weight", "BF16", [h])]
    if not cfg.get("tie_word_embeddings", False):
        last.append(("lm_head.weight", "BF16", [vocab, h]))
    return first, layers, last


def split(first, layers, last, shards):
    """Layers spread over `shards` files in order; the embeddings in the first, norm and lm_head in the last."""
    out = [[] for _ in range(shards)]
    out[0] += first
    for il, t in enumerate(layers):
        out[il * shards // len(layers)] += t
    out[-1] += last
    return out


def shard_prefix(tensors):
    """The first bytes of a safetensors file (8-byte little-endian length + JSON header) and its size."""
    header, off = {}, 0
    for name, dtype, shape in tensors:
        n = 2 if dtype in ("BF16", "F16") else 4
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [off, off + n]}
        off += n
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header).encode()
    prefix = struct.pack("<Q", len(text)) + text
    return prefix, len(prefix) + off, off


class Repo:
    def __init__(self, commit, config, shards=None, gated=False, single=False):
        self.commit, self.gated = commit, gated
        self.files = {"config.json": json.dumps(config, indent=2).encode()}
        self.lfs = {}  # file -> (prefix, size)
        if shards:
            names = ([f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors" for i in range(len(shards))]
                     if not single else ["model.safetensors"])
            weight_map, total = {}, 0
            for name, tensors in zip(names, shards):
                prefix, size, data = shard_prefix(tensors)
                self.lfs[name] = (prefix, size)
                total += data
                for t in tensors:
                    weight_map[t[0]] = name
            if not single:
                index = {"metadata": {"total_size": total}, "weight_map": weight_map}
                self.files["model.safetensors.index.json"] = json.dumps(index, indent=2).encode()


def repos():
    with open(os.path.join(ROOT, "presets", "models", "qwen3-32b.json")) as f:
        qwen = json.load(f)["config"]
    with open(os.path.join(ROOT, "tests", "data", "configs", "llama-3.1-8b.json")) as f:
        llama = json.load(f)
    tiny = {"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
            "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000,
            "max_position_embeddings": 4096, "tie_word_embeddings": True, "torch_dtype": "bfloat16"}
    c = lambda i: f"{i:x}" * 40  # a commit hash per repo
    # Issue 28: an index naming 1,025 shards (one past kvplan's cap; none is served), 40 shards answered
    # slowly (the overall deadline), a 32 MiB header of "[" (the bounded JSON reader), overlapping offsets.
    many = Repo("a" * 40, tiny)
    many.files["model.safetensors.index.json"] = json.dumps(
        {"weight_map": {f"t{i}": f"model-{i + 1:05d}-of-01025.safetensors" for i in range(1025)}}).encode()
    slow_shards = Repo("b" * 40, tiny, [[(f"model.layers.{i}.w", "BF16", [4])] for i in range(40)])
    deep = Repo("c" * 40, tiny, [[("w", "BF16", [4])]], single=True)
    n = 32 << 20
    deep.lfs["model.safetensors"] = (struct.pack("<Q", n) + b"[" * n, 8 + n)
    overlap = Repo("d" * 40, tiny, [[("w", "BF16", [4])]], single=True)
    text = json.dumps({k: {"dtype": "BF16", "shape": [1000], "data_offsets": [0, 2000]} for k in "abc"}).encode()
    overlap.lfs["model.safetensors"] = (struct.pack("<Q", len(text)) + text, 8 + len(text) + 2000)
    # A valid header of 34 MB whose metadata string is escaped quotes: 68 MB as kvplan caches it (escaped
    # again), past the 64 MiB it reads back.
    quotes = Repo("e" * 40, tiny, [[("w", "BF16", [4])]], single=True)
    text = json.dumps({"w": {"dtype": "BF16", "shape": [4], "data_offsets": [0, 8]},
                       "__metadata__": {"q": '"' * (17 << 20)}}).encode()
    quotes.lfs["model.safetensors"] = (struct.pack("<Q", len(text)) + text, 8 + len(text) + 8)
    return {
        **gguf_repos(),
        # Qwen/Qwen3-32B is published in 17 shards; Llama-3.1-8B in 4 and gated.
        "Qwen/Qwen3-32B": Repo(c(1)[:40], qwen, split(*llama_tensors(qwen, q_k_norm=True), 17)),
        "meta-llama/Llama-3.1-8B": Repo(c(2)[:40], llama, split(*llama_tensors(llama), 4), gated=True),
        "kvplan-test/tiny": Repo(c(3)[:40], tiny, [sum(split(*llama_tensors(tiny), 1), [])], single=True),
        "kvplan-test/no-weights": Repo(c(4)[:40], tiny),
        "broken/not-json": Repo(c(5)[:40], tiny),
        "broken/truncated": Repo(c(6)[:40], tiny),
        "broken/slow": Repo(c(7)[:40], tiny),
        "broken/no-range": Repo(c(8)[:40], tiny, [sum(split(*llama_tensors(tiny), 1), [])], single=True),
        "broken/short-range": Repo(c(9)[:40], tiny, [sum(split(*llama_tensors(tiny), 1), [])], single=True),
        "kvplan-test/many-shards": many,
        "broken/slow-shards": slow_shards,
        "broken/deep-header": deep,
        "broken/overlap": overlap,
        "broken/escaped-header": quotes,
    }


def tiny_gguf(split=None, tensors=()):
    """A tiny llama GGUF (2 blocks, 64 wide, F32): the metadata in the first shard only; split=(no, count)."""
    w = make_gguf.Writer()
    if split is None or split[0] == 0:
        w.str("general.architecture", "llama")
        for k, v in [("block_count", 2), ("context_length", 4096), ("embedding_length", 64),
                     ("feed_forward_length", 128), ("attention.head_count", 4), ("attention.head_count_kv", 2)]:
            w.u32("llama." + k, v)
        w.tokens(256)
    if split is not None:
        for k, v in (("split.no", split[0]), ("split.count", split[1])):
            w.kv += w.s(k) + struct.pack("<IH", 2, v)  # uint16, as gguf-split writes them
            w.n_kv += 1
    for name, shape in tensors:
        w.tensor(name, shape, make_gguf.F32)
    return w


def tiny_block(il):
    b = f"blk.{il}."
    return [(b + "attn_q.weight", [64, 64]), (b + "attn_k.weight", [64, 32]), (b + "attn_v.weight", [64, 32]),
            (b + "attn_output.weight", [64, 64]), (b + "ffn_gate.weight", [64, 128]),
            (b + "ffn_up.weight", [64, 128]), (b + "ffn_down.weight", [128, 64])]


def gguf_repos():
    def lfs(w):
        head, data = w.file()
        return head, len(head) + data
    g = Repo("f" * 40, {})
    del g.files["config.json"]  # a GGUF-only repo: no config.json
    g.files["README.md"] = b"# GGUF\n"
    # Llama-3.1-8B at Q4_K_M: a 1.15 MB header (128,256 tokens), past kvplan's first 1 MiB Range request.
    g.lfs["Llama-3.1-8B-Instruct-Q4_K_M.gguf"] = lfs(make_gguf.llama())
    g.lfs["mmproj-Llama-3.1-8B-f16.gguf"] = lfs(tiny_gguf())
    # A tiny model split in two shards, in a folder as bartowski publishes big quants.
    emb = [("token_embd.weight", [64, 256])]
    g.lfs["Q8_0/tiny-Q8_0-00001-of-00002.gguf"] = lfs(tiny_gguf((0, 2), emb + tiny_block(0)))
    g.lfs["Q8_0/tiny-Q8_0-00002-of-00002.gguf"] = lfs(tiny_gguf((1, 2), tiny_block(1) + [("output.weight", [64, 256])]))
    # Hostile: 2^32 empty strings claimed in a 1 TiB file (the zeros served past the header are empty strings).
    w = make_gguf.Writer()
    w.str("general.architecture", "llama")
    w.kv += w.s("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 1 << 32)
    w.n_kv += 1
    g.lfs["Hostile-IQ1_S.gguf"] = (w.bytes(), 1 << 40)
    # Neither a config.json nor a GGUF file: a bare repo id is neither kind of model.
    readme_only = Repo("8" * 40, {})
    readme_only.files = {"README.md": b"# nothing\n"}
    return {"gguf/tiny": g, "gguf/empty": Repo("9" * 40, {}), "gguf/readme-only": readme_only}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    repos = {}
    gguf_served = 0

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", headers=None, length=None):
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def error(self, status, code, message):
        self.send(status, json.dumps({"error": message}).encode(),
                  {"X-Error-Code": code, "Content-Type": "application/json"})

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        m = re.fullmatch(r"/api/models/([^/]+/[^/]+)/tree/([^/?]+)\?recursive=true", self.path)
        if m:
            if m.group(1) not in self.repos:
                return self.error(404, "RepoNotFound", "Repository not found")
            repo = self.repos[m.group(1)]
            if m.group(2) not in ("main", repo.commit):
                return self.error(404, "RevisionNotFound", "Invalid rev id: " + m.group(2))
            listing = [{"type": "file", "oid": "0" * 40, "size": len(b), "path": n} for n, b in repo.files.items()]
            listing += [{"type": "file", "oid": "0" * 40, "size": size, "path": n,
                         "lfs": {"oid": hashlib.sha256(prefix).hexdigest(), "size": size, "pointerSize": 134}}
                        for n, (prefix, size) in repo.lfs.items()]
            listing += [{"type": "directory", "oid": "0" * 40, "size": 0, "path": d}
                        for d in sorted({n.rsplit("/", 1)[0] for n in repo.lfs if "/" in n})]
            return self.send(200, json.dumps(listing).encode(), {"Content-Type": "application/json"})
        m = re.fullmatch(r"/cdn/([^/]+/[^/]+)/([0-9a-f]{40})/(.+)", self.path)
        if m:
            return self.cdn(self.repos[m.group(1)], m.group(3))
        m = re.fullmatch(r"/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", self.path)
        if not m or m.group(1) not in self.repos:
            return self.error(404, "RepoNotFound", "Repository not found")
        name, rev, file = m.groups()
        repo = self.repos[name]
        if repo.gated and self.headers.get("Authorization") != "Bearer " + TOKEN:
            return self.error(401, "GatedRepo", "Access to model " + name + " is restricted.")
        if rev not in ("main", repo.commit):
            return self.error(404, "RevisionNotFound", "Invalid rev id: " + rev)
        if name == "broken/slow":
            time.sleep(5)
        if name == "broken/not-json" and file == "config.json":
            body = b"<!DOCTYPE html><html><body>Proxy login</body></html>"
            return self.send(200, body, {"X-Repo-Commit": repo.commit, "ETag": '"0"', "Content-Type": "text/html"})
        if name == "broken/truncated" and file == "config.json":
            body = repo.files[file]
            self.send_response(200)
            self.send_header("X-Repo-Commit", repo.commit)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        common = {"X-Repo-Commit": repo.commit}
        if file in repo.files:
            body = repo.files[file]
            etag = hashlib.sha1(b"blob %d\0" % len(body) + body).hexdigest()
            return self.send(200, body, {**common, "ETag": f'"{etag}"', "Content-Type": "application/json"})
        if file in repo.lfs:
            prefix, size = repo.lfs[file]
            return self.send(302, b"", {**common, "Location": f"/cdn/{name}/{repo.commit}/{file}",
                                        "X-Linked-Etag": '"' + hashlib.sha256(prefix).hexdigest() + '"',
                                        "X-Linked-Size": str(size)})
        return self.error(404, "EntryNotFound", file + " does not exist on " + rev)

    def cdn(self, repo, file):
        prefix, size = repo.lfs[file]
        if repo is self.repos["broken/slow-shards"]:
            time.sleep(0.1)
        rng = re.fullmatch(r"bytes=(\d+)-(\d+)", self.headers.get("Range", ""))
        if repo is self.repos["broken/no-range"] or not rng:
            # The whole file: the header then zeros, in pieces (a client that asked for a range stops).
            self.send_response(200)
            self.send_header("Content-Length", str(size))
            self.end_headers()
            try:
                self.wfile.write(prefix)
                for _ in range(64):
                    self.wfile.write(bytes(1 << 16))
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
            return
        a, b = int(rng.group(1)), min(int(rng.group(2)), size - 1)
        body = (prefix[a: b + 1] + bytes(max(0, b + 1 - max(a, len(prefix))))) if a < len(prefix) else bytes(b + 1 - a)
        if file.endswith(".gguf"):
            Handler.gguf_served += len(body)
        if repo is self.repos["broken/short-range"] and a > 0:
            body = body[: len(body) // 2]  # a complete response, shorter than the range asked for
        self.send(206, body, {"Content-Range": f"bytes {a}-{b}/{size}"})


def start(port=0):
    """Starts the server on 127.0.0.1 at `port` (0: a free one); returns (server, endpoint URL)."""
    Handler.repos = repos()
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


if __name__ == "__main__":
    import sys
    srv, url = start(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(url, flush=True)
    threading.Event().wait()
