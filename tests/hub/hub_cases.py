#!/usr/bin/env python3
"""kvplan against a local Hub (hub_server.py): one case per run, as ctest runs them.
Usage: hub_cases.py CASE KVPLAN_BINARY

Every case works in a fresh temporary folder: HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME (kvplan's header
cache) under it, no token, HF_ENDPOINT the local server. An error case checks the exit code 2, one line
on stderr, nothing on stdout, and nothing written into either cache.

Expected figures, worked by hand from the configs:
  Qwen3-32B: 64 layers x 2 (K, V) x 8 KV heads x 128 x 2 B = 262,144 B per token; 32,768 tokens:
    8,589,934,592 B. Parameters: embeddings and lm_head 2 x 151,936 x 5,120 = 1,555,824,640; per layer
    q 5,120 x 8,192 + o 8,192 x 5,120 = 83,886,080, k and v 2 x 1,024 x 5,120 = 10,485,760, q/k norms
    256, MLP 3 x 5,120 x 25,600 = 393,216,000, layer norms 10,240: 487,598,336, x 64 = 31,206,293,504;
    final norm 5,120: 32,762,123,264 parameters, x 2 B = 65,524,246,528 B (Qwen/Qwen3-32B's index
    total_size).
  Llama-3.1-8B: 8,030,261,248 parameters, 16,060,522,496 B (tests/test_safetensors.cpp works it).
  kvplan-test/tiny: tests/sources/make_safetensors.py's tiny-llama without its vision tensor:
    138,048 elements x 2 B = 276,096 B.
  gguf/tiny:Q4_K_M: make_gguf.py's Llama-3.1-8B at a Q4_K_M-like mix, 5,172,420,864 B of tensors
    (tests/test_gguf.cpp works them); KV at llama.cpp's f16: 32 layers x 2 x 8 heads x 128 x 2 B = 131,072
    B per token.
  gguf/tiny:Q8_0 (split in 2): per block q 64x64 + k 64x32 + v 64x32 + o 64x64 + gate, up, down 3 x 64x128 =
    36,864 values, 2 blocks 73,728, embeddings and output 2 x 64 x 256 = 32,768: 106,496 x 4 B (F32) =
    425,984 B; KV 2 layers x 2 x 2 heads x 16 x 2 B = 256 B per token.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hub_server  # noqa: E402

QWEN_COMMIT = "1" * 40
LLAMA_COMMIT = "2" * 40


class Run:
    def __init__(self, tmp, endpoint):
        self.tmp, self.endpoint = tmp, endpoint
        self.cache = os.path.join(tmp, "hub")
        self.xdg = os.path.join(tmp, "xdg-cache")

    def __call__(self, *args, env=None):
        # No HF_* of the caller's, and no proxy: libcurl would send 127.0.0.1 through one.
        e = {k: v for k, v in os.environ.items()
             if not k.startswith("HF_") and k != "KVPLAN_HUB_TIMEOUT" and not k.lower().endswith("_proxy")}
        e.update({"HF_HUB_CACHE": self.cache, "HF_HOME": os.path.join(self.tmp, "hf-home"),
                  "XDG_CACHE_HOME": self.xdg, "HF_ENDPOINT": self.endpoint, "KVPLAN_PRESETS": "",
                  "XDG_DATA_HOME": os.path.join(self.tmp, "no-user-presets")})
        e.update(env or {})
        start = time.monotonic()
        p = subprocess.run([KVPLAN, *args], env=e, capture_output=True, text=True, timeout=60)
        p.seconds = time.monotonic() - start
        return p


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ok(p, what):
    if p.returncode != 0:
        fail(f"{what}: exit {p.returncode}, stderr: {p.stderr}")
    return json.loads(p.stdout) if p.stdout.lstrip().startswith("{") else p.stdout


def files_under(path):
    out = []
    for base, _, names in os.walk(path):
        out += [os.path.relpath(os.path.join(base, n), path) for n in names]
    return sorted(out)


def bad(run, p, what, *parts):
    """Exit 2, one line naming every part, no stdout, nothing written into the caches."""
    lines = p.stderr.splitlines()
    if p.returncode != 2 or len(lines) != 1 or p.stdout:
        fail(f"{what}: want exit 2 and one line; got exit {p.returncode}, stdout {p.stdout!r}, stderr {p.stderr!r}")
    for part in parts:
        if part not in lines[0]:
            fail(f"{what}: '{part}' not in: {lines[0]}")
    left = files_under(run.cache) + files_under(run.xdg)
    if left:
        fail(f"{what}: files left in the caches: {left}")
    print(f"ok: {what}: {lines[0]}")


def check_qwen(j, where):
    if j["bytes_per_token"] != 262144 or j["kv_bytes_per_sequence"] != 8589934592:
        fail(f"{where}: KV {j['bytes_per_token']} B/token, {j['kv_bytes_per_sequence']} B per sequence")
    if j["weights_source"] != "safetensors headers (exact)" or j["per_gpu"]["weights_bytes"] != 65524246528:
        fail(f"{where}: weights {j['per_gpu']['weights_bytes']} from {j['weights_source']}")
    if j["parameters"] != 32762123264 or j["model"]["id"] != "Qwen/Qwen3-32B":
        fail(f"{where}: {j['parameters']} parameters, model {j['model']}")


def case_qwen3(run, server):
    """Fetch, the cache written in huggingface_hub's layout, then offline reuse with the server stopped."""
    j = ok(run("size", "Qwen/Qwen3-32B", "--context", "32768", "--json"), "fetch")
    check_qwen(j, "fetch")
    if "Hugging Face Hub " + run.endpoint not in j["model"]["source"]:
        fail("fetch: source " + j["model"]["source"])
    # The commit main resolved to, in the source (text and JSON).
    if not j["model"]["source"].endswith(", commit " + QWEN_COMMIT):
        fail("fetch: no commit in the source " + j["model"]["source"])
    repo = os.path.join(run.cache, "models--Qwen--Qwen3-32B")
    with open(os.path.join(repo, "refs", "main")) as f:
        if f.read() != QWEN_COMMIT:
            fail("refs/main does not hold the commit")
    served = hub_server.Handler.repos["Qwen/Qwen3-32B"].files
    snap = os.path.join(repo, "snapshots", QWEN_COMMIT)
    for name in ("config.json", "model.safetensors.index.json"):
        link = os.path.join(snap, name)
        body = served[name]
        import hashlib
        etag = hashlib.sha1(b"blob %d\0" % len(body) + body).hexdigest()
        if not os.path.islink(link) or os.readlink(link) != os.path.join("..", "..", "blobs", etag):
            fail(f"{name}: not a link to ../../blobs/{etag}")
        with open(link, "rb") as f:
            if f.read() != body:
                fail(f"{name}: the cached bytes differ from the served ones")
    if sorted(os.listdir(snap)) != ["config.json", "model.safetensors.index.json"]:
        fail(f"the snapshot holds {os.listdir(snap)}: no shard may be there (it would pass for the whole file)")
    headers = files_under(os.path.join(run.xdg, "kvplan", "safetensors-headers", "models--Qwen--Qwen3-32B"))
    want = [f"{QWEN_COMMIT}/model-{i:05d}-of-00017.safetensors.json" for i in range(1, 18)]
    if headers != want:
        fail(f"header cache: {headers}")
    if any(".tmp" in f for f in files_under(run.cache) + files_under(run.xdg)):
        fail("temporary files left")
    print("ok: fetched, cache layout")
    server.shutdown()
    server.server_close()
    j = ok(run("size", "Qwen/Qwen3-32B", "--context", "32768", "--json", env={"HF_HUB_OFFLINE": "1"}), "offline")
    check_qwen(j, "offline")
    if "Hugging Face cache" not in j["model"]["source"] or not j["model"]["source"].endswith(QWEN_COMMIT):
        fail("offline: source " + j["model"]["source"])
    text = ok(run("size", "Qwen/Qwen3-32B", "--context", "32768", env={"HF_HUB_OFFLINE": "1"}), "offline text")
    if "32,762,123,264 parameters (safetensors headers (exact))" not in text:
        fail("offline text: " + text)
    if "Qwen/Qwen3-32B@main from the Hugging Face cache, commit " + QWEN_COMMIT not in text:
        fail("offline text: no commit: " + text)
    # Not offline, the server gone: the cache answers, no request is made.
    check_qwen(ok(run("size", "Qwen/Qwen3-32B", "--context", "32768", "--json"), "cached, online"), "cached")
    print("ok: offline reuse")


def case_refresh(run, server):
    """Issue 29: a cached branch is asked again when online, as huggingface_hub does: unchanged, the cache
    answers (and says it checked); moved, the new commit is fetched, cached and named; the Hub gone, the
    cache answers."""
    ok(run("size", "Qwen/Qwen3-32B", "--json"), "first fetch")
    j = ok(run("size", "Qwen/Qwen3-32B", "--json"), "unchanged")
    if j["model"]["source"] != "Qwen/Qwen3-32B@main from the Hugging Face cache, main checked on the Hub, commit " + QWEN_COMMIT:
        fail("unchanged: source " + j["model"]["source"])
    moved = "e" * 40
    hub_server.Handler.repos["Qwen/Qwen3-32B"].commit = moved
    j = ok(run("size", "Qwen/Qwen3-32B", "--context", "32768", "--json"), "moved")
    check_qwen(j, "moved")
    if f"(main moved from {QWEN_COMMIT[:12]}), now cached, commit {moved}" not in j["model"]["source"]:
        fail("moved: source " + j["model"]["source"])
    with open(os.path.join(run.cache, "models--Qwen--Qwen3-32B", "refs", "main")) as f:
        if f.read() != moved:
            fail("moved: refs/main does not hold the new commit")
    server.shutdown()
    server.server_close()
    j = ok(run("size", "Qwen/Qwen3-32B", "--json"), "Hub gone")
    if j["model"]["source"] != "Qwen/Qwen3-32B@main from the Hugging Face cache, commit " + moved:
        fail("Hub gone: source " + j["model"]["source"])
    print("ok: refresh")


def case_config_only(run, server):
    """A cache holding config.json alone, as a Python tool that read only the config leaves it: online, the
    index and the shard headers are fetched and cached; offline, the estimate; headers gone and the Hub
    unreachable, the estimate with a warning saying why."""
    repo = os.path.join(run.cache, "models--Qwen--Qwen3-32B")
    snap = os.path.join(repo, "snapshots", QWEN_COMMIT)
    os.makedirs(os.path.join(repo, "refs"))
    os.makedirs(snap)
    with open(os.path.join(repo, "refs", "main"), "w") as f:
        f.write(QWEN_COMMIT)
    with open(os.path.join(snap, "config.json"), "wb") as f:
        f.write(hub_server.Handler.repos["Qwen/Qwen3-32B"].files["config.json"])
    args = ("size", "Qwen/Qwen3-32B", "--context", "32768", "--json")
    j = ok(run(*args, env={"HF_HUB_OFFLINE": "1"}), "config only, offline")
    if j["weights_source"] != "architecture (estimate)" or j.get("warnings"):
        fail(f"config only, offline: {j['weights_source']}, {j.get('warnings')}")
    j = ok(run(*args), "config only, online")
    check_qwen(j, "config only, online")
    if "Hugging Face cache" not in j["model"]["source"]:
        fail("config only: source " + j["model"]["source"])
    if not os.path.islink(os.path.join(snap, "model.safetensors.index.json")):
        fail("config only: the index was not cached")
    check_qwen(ok(run(*args, env={"HF_HUB_OFFLINE": "1"}), "config only, then offline"), "config only, then offline")
    import shutil
    shutil.rmtree(run.xdg)
    server.shutdown()
    server.server_close()
    j = ok(run(*args), "headers gone, Hub gone")
    w = " ".join(j.get("warnings", []))
    if j["weights_source"] != "architecture (estimate)" or "-of-00017.safetensors is neither in the snapshot" not in w or \
            "the Hub did not give it (cannot reach " + run.endpoint not in w:
        fail(f"headers gone, Hub gone: {j['weights_source']}, {w}")
    print("ok: config only")


def case_llama_gated(run, server):
    page = run.endpoint + "/meta-llama/Llama-3.1-8B"
    bad(run, run("size", "meta-llama/Llama-3.1-8B", "--revision", "main"), "gated 401 without a token",
        "HTTP 401", "HF_TOKEN", page)
    # Without --revision, the preset of that repo stands in, and says why.
    p = run("size", "meta-llama/Llama-3.1-8B", "--json")
    j = ok(p, "gated, preset")
    if j["model"]["id"] != "llama-3.1-8b" or j["weights_source"] != "architecture (estimate)":
        fail(f"gated, preset: {j['model']} {j['weights_source']}")
    if "HF_TOKEN" not in json.dumps(j.get("warnings", [])) + p.stderr:
        fail("gated, preset: no warning naming HF_TOKEN: " + p.stdout[:2000] + p.stderr)
    # Every command says so, in one line (show printed nothing, and planned the preset silently).
    p = run("show", "meta-llama/Llama-3.1-8B")
    if p.returncode != 0 or p.stderr.count("\n") != 1 or not p.stderr.startswith("kvplan: warning: Hugging Face Hub: ") \
            or "HF_TOKEN" not in p.stderr or "the preset llama-3.1-8b is used instead" not in p.stderr:
        fail("gated, preset, show: not one warning line: " + p.stderr)
    # With the token from the file huggingface_hub writes ($HF_HOME/token).
    os.makedirs(os.path.join(run.tmp, "hf-home"), exist_ok=True)
    with open(os.path.join(run.tmp, "hf-home", "token"), "w") as f:
        f.write(hub_server.TOKEN + "\n")
    j = ok(run("size", "meta-llama/Llama-3.1-8B", "--revision", "main", "--json"), "gated with token")
    if j["parameters"] != 8030261248 or j["per_gpu"]["weights_bytes"] != 16060522496:
        fail(f"Llama-3.1-8B: {j['parameters']} parameters, {j['per_gpu']['weights_bytes']} B")
    if j["weights_source"] != "safetensors headers (exact)" or j["bytes_per_token"] != 131072:
        fail(f"Llama-3.1-8B: {j['weights_source']}, {j['bytes_per_token']} B/token")
    with open(os.path.join(run.cache, "models--meta-llama--Llama-3.1-8B", "snapshots", LLAMA_COMMIT,
                           "model.safetensors.index.json")) as f:
        if json.load(f)["metadata"]["total_size"] != 16060522496:
            fail("index total_size")
    # A wrong token from HF_TOKEN: named as such.
    cache2 = Run(os.path.join(run.tmp, "second"), run.endpoint)
    bad(cache2, cache2("size", "meta-llama/Llama-3.1-8B", "--revision", "main", env={"HF_TOKEN": "hf_wrong"}),
        "gated 401 with a wrong token", "the token from HF_TOKEN has no access", page)
    print("ok: gated")


def case_not_found(run, server):
    bad(run, run("size", "kvplan-test/absent"), "404 repo", "no repo 'kvplan-test/absent'", "HTTP 404")
    bad(run, run("size", "Qwen/Qwen3-32B", "--revision", "nope"), "404 revision",
        "'Qwen/Qwen3-32B' has no revision 'nope'", "HTTP 404")


def case_offline_miss(run, server):
    bad(run, run("size", "kvplan-test/tiny", env={"HF_HUB_OFFLINE": "1"}), "offline cache miss",
        "not in the Hugging Face cache (searched " + run.cache + ")", "HF_HUB_OFFLINE")
    # A preset's repo id, offline and not cached: the preset, silently.
    j = ok(run("size", "Qwen/Qwen3-32B", "--json", env={"HF_HUB_OFFLINE": "yes"}), "offline preset")
    if j["model"]["id"] != "qwen3-32b" or j["weights_source"] != "architecture (estimate)":
        fail(f"offline preset: {j['model']}")
    print("ok: offline preset")


def case_no_network(run, server):
    server.shutdown()
    server.server_close()  # the port is closed now: connection refused
    bad(run, run("size", "kvplan-test/tiny"), "no network", "cannot reach " + run.endpoint,
        "searched " + run.cache)


def case_truncated(run, server):
    bad(run, run("size", "broken/truncated"), "truncated response", "truncated response", "config.json")


def case_slow(run, server):
    p = run("size", "broken/slow", env={"KVPLAN_HUB_TIMEOUT": "0.5"})
    bad(run, p, "slow server", "timed out after 0.5 s", "KVPLAN_HUB_TIMEOUT")
    if p.seconds > 4:
        fail(f"slow server: {p.seconds:.1f} s, the limit was 0.5 s")
    bad(run, run("size", "broken/slow", env={"KVPLAN_HUB_TIMEOUT": "soon"}), "bad timeout",
        "KVPLAN_HUB_TIMEOUT: 'soon' is not a number of seconds")


def case_not_json(run, server):
    bad(run, run("size", "broken/not-json"), "not JSON", "is not JSON", "<!DOCTYPE html>")


def case_no_range(run, server):
    bad(run, run("size", "broken/no-range"), "Range ignored", "ignored the Range request", "model.safetensors")


def case_short_range(run, server):
    bad(run, run("size", "broken/short-range"), "short Range answer", "truncated response for 'broken/short-range'",
        "model.safetensors", " of ")


def case_unwritable(run, server):
    """A cache folder that cannot be made (its parent is a file; root ignores permissions): one line for a
    repo id, the preset with a warning for a preset's repo id."""
    blocker = os.path.join(run.tmp, "a-file")
    with open(blocker, "w") as f:
        f.write("x")
    env = {"HF_HUB_CACHE": os.path.join(blocker, "hub")}
    bad(run, run("size", "kvplan-test/tiny", env=env), "unwritable cache", "a-file/hub/models--kvplan-test--tiny",
        "cannot create the folder")
    j = ok(run("size", "Qwen/Qwen3-32B", "--json", env=env), "unwritable cache, preset")
    w = " ".join(j.get("warnings", []))
    if j["model"]["id"] != "qwen3-32b" or "cannot create the folder" not in w or "the preset qwen3-32b" not in w:
        fail(f"unwritable cache, preset: {j['model']}, {w}")
    print("ok: unwritable cache")


def case_single(run, server):
    j = ok(run("size", "kvplan-test/tiny", "--json"), "single file")
    if j["per_gpu"]["weights_bytes"] != 276096 or j["weights_source"] != "safetensors headers (exact)":
        fail(f"single file: {j['per_gpu']['weights_bytes']} from {j['weights_source']}")
    j = ok(run("size", "kvplan-test/no-weights", "--json"), "no safetensors")
    if j["weights_source"] != "architecture (estimate)":
        fail("no safetensors: " + j["weights_source"])
    print("ok: single file, none")


def case_many_shards(run, server):
    """Issue 28: an index naming more shards than kvplan fetches is refused before any request for them."""
    p = run("size", "kvplan-test/many-shards")
    bad(run, p, "1,025 shards", "names 1,025 shard files", "at most 1,024 (the limit)")
    if p.seconds > 4:
        fail(f"1,025 shards: {p.seconds:.1f} s")


def case_deadline(run, server):
    """Issue 28: 40 shards at 0.1 s a request (8 s in all) under an overall limit of 1 s: stopped at it,
    saying how far it got; nothing written."""
    p = run("size", "broken/slow-shards", env={"KVPLAN_HUB_DEADLINE": "1"})
    bad(run, p, "overall deadline", "'broken/slow-shards'", "reached the overall limit of 1 s for one fetch at",
        "shard headers fetched)", "KVPLAN_HUB_DEADLINE sets it in seconds")
    if p.seconds > 4:
        fail(f"overall deadline: {p.seconds:.1f} s, the limit was 1 s")
    bad(run, run("size", "broken/slow-shards", env={"KVPLAN_HUB_DEADLINE": "-1"}), "bad deadline",
        "KVPLAN_HUB_DEADLINE: '-1' is not a number of seconds")


def case_progress(run, server):
    """Issue 29: a fetch past a second shows a progress line on a terminal's stderr (rewritten in place,
    cleared at the end); with stderr a pipe, the error stays the one line scripts read (case_deadline)."""
    import pty
    master, slave = pty.openpty()
    e = {k: v for k, v in os.environ.items()
         if not k.startswith("HF_") and k != "KVPLAN_HUB_TIMEOUT" and not k.lower().endswith("_proxy")}
    e.update({"HF_HUB_CACHE": run.cache, "HF_HOME": os.path.join(run.tmp, "hf-home"), "XDG_CACHE_HOME": run.xdg,
              "HF_ENDPOINT": run.endpoint, "KVPLAN_PRESETS": "", "KVPLAN_HUB_DEADLINE": "2",
              "XDG_DATA_HOME": os.path.join(run.tmp, "no-user-presets")})
    # 40 shards at 0.1 s a request under a 2 s limit: the line shows after 1 s, then the limit's error.
    p = subprocess.Popen([KVPLAN, "size", "broken/slow-shards"], env=e, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        err += chunk
    p.wait(timeout=60)
    os.close(master)
    text = err.decode(errors="replace")
    if p.returncode != 2 or "\rkvplan: fetching 'broken/slow-shards' from " + run.endpoint not in text \
            or "of 40 shard headers)" not in text or "\r\x1b[K" not in text \
            or "reached the overall limit of 2 s" not in text:
        fail(f"progress: exit {p.returncode}, stderr {text!r}")
    print("ok: progress line")


def case_hostile_headers(run, server):
    """Issue 28: a Hub header of 32 MiB of "[" goes through the bounded JSON reader (2.5 GB before);
    overlapping offsets are refused as for a local file."""
    bad(run, run("size", "broken/deep-header"), "32 MiB of [", "model.safetensors: /0/0",
        "nested deeper than 64 levels (the limit)")
    bad(run, run("size", "broken/overlap"), "overlapping offsets", "model.safetensors: /b/data_offsets",
        "overlaps a, which ends at byte 2000")
    # A header that kvplan's cache could not read back: refused before anything is written.
    bad(run, run("size", "broken/escaped-header"), "header too long to cache", "'broken/escaped-header' model.safetensors",
        "as kvplan caches it: over the 64 MiB it reads back (the limit)")


def case_secrets(run, server):
    """Issue 28: a password in HF_ENDPOINT is never printed: errors, warnings and the model's source show
    the endpoint as http://***@host."""
    secret = "s3cret-pass"
    shown = run.endpoint.replace("http://", "http://***@")
    env = {"HF_ENDPOINT": run.endpoint.replace("http://", "http://user:" + secret + "@")}
    p = run("size", "kvplan-test/absent", env=env)
    bad(run, p, "404 with a password in HF_ENDPOINT", "no repo 'kvplan-test/absent' on " + shown)
    # A token given as the user name, without a password.
    p2 = run("size", "kvplan-test/absent", env={"HF_ENDPOINT": run.endpoint.replace("http://", "http://hf_" + secret + "@")})
    bad(run, p2, "404 with a token as HF_ENDPOINT's user", "no repo 'kvplan-test/absent' on " + shown)
    # A token in a query string: refused, unprinted (file paths are appended to the endpoint).
    p3 = run("size", "kvplan-test/absent", env={"HF_ENDPOINT": run.endpoint + "/?token=" + secret})
    bad(run, p3, "a query in HF_ENDPOINT", "HF_ENDPOINT: must be the Hub's base URL, without a query")
    j = ok(run("size", "kvplan-test/tiny", "--json", env=env), "fetch with a password in HF_ENDPOINT")
    if "Hugging Face Hub " + shown not in j["model"]["source"]:
        fail("source: " + j["model"]["source"])
    server.shutdown()
    server.server_close()
    p = run("size", "kvplan-test/other", env=env)
    if p.returncode != 2 or "cannot reach " + shown not in p.stderr:
        fail(f"no network with a password: exit {p.returncode}, {p.stderr}")
    for out in (p.stdout, p.stderr, p2.stderr, p3.stderr, json.dumps(j)):
        if secret in out:
            fail("the password was printed: " + out[:500])
    print("ok: secrets")


GGUF_COMMIT = "f" * 40


def case_gguf(run, server):
    """Issue 29 item 5: org/repo:TAG read as llama.cpp's -hf picks the file, its header by Range (past the
    first 1 MiB request), never the tensors; cached in kvplan's cache; offline from it; a split model."""
    hub_server.Handler.gguf_served = 0
    j = ok(run("size", "gguf/tiny:q4_k_m", "--engine", "llamacpp", "--context", "8192", "--json"), "fetch")
    if j["per_gpu"]["weights_bytes"] != 5172420864 or j["bytes_per_token"] != 131072:
        fail(f"weights {j['per_gpu']['weights_bytes']}, {j['bytes_per_token']} B/token")
    src = j["model"]["source"]
    want = ("gguf/tiny:q4_k_m@main Llama-3.1-8B-Instruct-Q4_K_M.gguf from the Hugging Face Hub " + run.endpoint +
            ", now cached, commit " + GGUF_COMMIT)
    if src != want:
        fail("source: " + src)
    # The probe's 8 bytes, then 1 MiB, then up to 2 MiB: the header (1.15 MB), not the 4.8 GiB of tensors.
    if hub_server.Handler.gguf_served != 8 + (2 << 20):
        fail(f"{hub_server.Handler.gguf_served} bytes served")
    cache = os.path.join(run.xdg, "kvplan", "gguf-headers", "models--gguf--tiny")
    want_files = ["refs/main", f"{GGUF_COMMIT}/Llama-3.1-8B-Instruct-Q4_K_M.gguf.header", f"{GGUF_COMMIT}/files.json"]
    if files_under(cache) != sorted(want_files) or files_under(run.cache):
        fail(f"cache: {files_under(cache)}, Hub cache {files_under(run.cache)}")
    text = ok(run("size", "gguf/tiny:Q4_K_M", "--engine", "llamacpp", env={"HF_HUB_OFFLINE": "1"}), "offline")
    if "Llama-3.1-8B-Instruct-Q4_K_M.gguf from kvplan's cache, commit " + GGUF_COMMIT not in text:
        fail("offline: " + text)
    j = ok(run("size", "gguf/tiny:Q8_0", "--engine", "llamacpp", "--json"), "split")
    if j["per_gpu"]["weights_bytes"] != 425984 or j["bytes_per_token"] != 256:
        fail(f"split: weights {j['per_gpu']['weights_bytes']}, {j['bytes_per_token']} B/token")
    if "Q8_0/tiny-Q8_0-00001-of-00002.gguf (2 shards) from the Hugging Face Hub" not in j["model"]["source"]:
        fail("split: source " + j["model"]["source"])
    # A bare repo id whose repo has no config.json is a GGUF repo at llama.cpp's default tag (Q4_K_M first:
    # common/download.cpp find_best_model), as `llama-server -hf gguf/tiny` takes it.
    j = ok(run("size", "gguf/tiny", "--engine", "llamacpp", "--json"), "bare repo")
    if j["per_gpu"]["weights_bytes"] != 5172420864 or "Llama-3.1-8B-Instruct-Q4_K_M.gguf" not in j["model"]["source"]:
        fail(f"bare repo: weights {j['per_gpu']['weights_bytes']}, source {j['model']['source']}")
    # --hf-file, and llama-server's -hf / -hff (common/arg.cpp): the repo's file by its path, over the tag.
    for args in (("size", "gguf/tiny:Q4_K_M", "--hf-file", "Q8_0/tiny-Q8_0-00001-of-00002.gguf"),
                 ("size", "--from-launch",
                  "llama-server -hf gguf/tiny -hff Q8_0/tiny-Q8_0-00001-of-00002.gguf -c 4096 -np 1")):
        j = ok(run(*args, "--engine", "llamacpp", "--json") if args[1] != "--from-launch" else run(*args, "--json"),
               "hf-file")
        if j["per_gpu"]["weights_bytes"] != 425984 or "(2 shards)" not in j["model"]["source"]:
            fail(f"hf-file {args}: weights {j['per_gpu']['weights_bytes']}, source {j['model']['source']}")
    server.shutdown()
    server.server_close()
    j = ok(run("size", "gguf/tiny:Q8_0", "--engine", "llamacpp", "--json"), "split, Hub gone")
    if "from kvplan's cache (the Hub did not answer: cannot reach" not in j["model"]["source"]:
        fail("Hub gone: source " + j["model"]["source"])
    print("ok: gguf")


def case_gguf_refusals(run, server):
    """A tag that matches no file lists the tags; a repo without GGUF says so; a hostile header is refused at
    kvplan's 64 MiB cap, no more served; nothing is cached."""
    bad(run, run("size", "gguf/tiny:Q5_K_S", "--engine", "llamacpp"), "missing tag",
        "'gguf/tiny' at revision 'main' has no GGUF file for tag 'Q5_K_S' (its tags: IQ1_S, Q4_K_M, Q8_0)")
    bad(run, run("size", "gguf/empty:Q4_K_M"), "no GGUF", "'gguf/empty' at revision 'main' has no .gguf file")
    bad(run, run("size", "gguf/none:Q4_K_M"), "no repo", "no repo 'gguf/none'")
    bad(run, run("size", "gguf/readme-only"), "bare repo, neither config.json nor GGUF",
        "'gguf/readme-only' has no config.json at revision 'main' (HTTP 404), and as a GGUF repo: "
        "'gguf/readme-only' at revision 'main' has no .gguf file")
    hub_server.Handler.gguf_served = 0
    p = run("size", "gguf/tiny:IQ1_S", "--engine", "llamacpp")
    bad(run, p, "hostile header", "Hostile-IQ1_S.gguf: the GGUF header runs past the 64 MiB", "(the limit")
    if hub_server.Handler.gguf_served > 8 + (64 << 20):
        fail(f"hostile: {hub_server.Handler.gguf_served} bytes served")
    print("ok: gguf refusals")


if __name__ == "__main__":
    case, KVPLAN = sys.argv[1], sys.argv[2]
    srv, endpoint = hub_server.start()
    with tempfile.TemporaryDirectory(prefix="kvplan-hub-") as tmp:
        try:
            globals()["case_" + case](Run(tmp, endpoint), srv)
        finally:
            try:
                srv.shutdown()
            except Exception:
                pass
    print("PASS")
