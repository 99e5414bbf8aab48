#!/usr/bin/env python3
"""Writes the hostile inputs of issue 28 (round 3) into DIR, for tests/reliability/bounds.cmake:
  deep-st/           a model folder whose model.safetensors header is 32 MiB of "[" (2.5 GB before)
  shards-250000/     a model folder whose index names 250,000 distinct shards, none there (never ended)
  overlap/           model.safetensors: three 2,000-byte tensors on the same 2,000 data bytes (counted 6,000)
  fifo-shard/        model.safetensors is a FIFO (reported "not in the folder" before)
  kmsg-shard/        model.safetensors is a link to /proc/kmsg (read forever as root)
  kmsg.json          a link to /proc/kmsg
  presets-10000/     10,000 user model presets (6 to 22 s a lookup before)
  d/0 ... d/4999     5,000 empty presets folders (42 s before), named short: KVPLAN_PRESETS lists them
  hub/models--org--big/refs/main   3 GiB without a line break, sparse (12 s and 4.1 GB before)
Usage: make_hostile.py DIR LLAMA_CONFIG PRESET
"""
import json
import os
import shutil
import struct
import sys

out, llama_path, preset_path = sys.argv[1:4]
with open(llama_path) as f:
    llama = json.load(f)
with open(preset_path) as f:
    preset = json.load(f)
os.makedirs(out, exist_ok=True)


def folder(name):
    d = os.path.join(out, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(llama, f)
    return d


d = folder("deep-st")
n = 32 << 20
with open(os.path.join(d, "model.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", n))
    f.write(b"[" * n)

d = folder("shards-250000")
with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
    json.dump({"weight_map": {f"t{i}": f"s{i}.safetensors" for i in range(250000)}}, f)

d = folder("overlap")
text = json.dumps({f"model.layers.0.w{i}": {"dtype": "BF16", "shape": [1000], "data_offsets": [0, 2000]}
                   for i in range(3)}).encode()
with open(os.path.join(d, "model.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + bytes(2000))

d = folder("fifo-shard")
os.mkfifo(os.path.join(d, "model.safetensors"))
d = folder("kmsg-shard")
os.symlink("/proc/kmsg", os.path.join(d, "model.safetensors"))
if os.path.lexists(os.path.join(out, "kmsg.json")):
    os.remove(os.path.join(out, "kmsg.json"))
os.symlink("/proc/kmsg", os.path.join(out, "kmsg.json"))

d = os.path.join(out, "presets-10000")
shutil.rmtree(d, ignore_errors=True)
os.makedirs(os.path.join(d, "models"))
preset.pop("aliases", None)
for i in range(10000):
    p = dict(preset, id=f"user-{i}", name=f"User {i}", hf_repo=f"user/m{i}")
    with open(os.path.join(d, "models", f"user-{i}.json"), "w") as f:
        json.dump(p, f)

for i in range(5000):
    os.makedirs(os.path.join(out, "d", str(i)), exist_ok=True)

refs = os.path.join(out, "hub", "models--org--big", "refs")
os.makedirs(refs, exist_ok=True)
with open(os.path.join(refs, "main"), "wb") as f:
    f.truncate(3 << 30)
