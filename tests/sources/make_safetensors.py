#!/usr/bin/env python3
"""Writes a small model folder for the CLI tests, and a Hugging Face Hub cache holding it
(hub/models--kvplan-test--tiny-llama/refs/main -> snapshots/<hash>/): config.json and one header-only model.safetensors (the
8-byte little-endian header length, the JSON header, then the data region as a hole). Usage:
make_safetensors.py OUTDIR.

tiny-llama: hidden 64, 2 layers, 4 heads of 16, 2 KV heads, MLP 128, vocab 1000, tied embeddings, BF16,
plus one vision tensor. Elements: embeddings 64,000; per layer q 4,096 + k 2,048 + v 2,048 + o 4,096 +
MLP 3 x 8,192 + norms 128 = 36,992, x 2 = 73,984; norm 64; vision 4,096: 142,144 elements x 2 B = 284,288 B.
"""
import json
import os
import struct
import sys


def main():
    write_model(os.path.join(sys.argv[1], "tiny-llama"))
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = os.path.join(sys.argv[1], "hub", "models--kvplan-test--tiny-llama")
    os.makedirs(os.path.join(repo, "refs"), exist_ok=True)
    with open(os.path.join(repo, "refs", "main"), "w") as f:
        f.write(commit)
    write_model(os.path.join(repo, "snapshots", commit))


def write_model(out):
    os.makedirs(out, exist_ok=True)
    config = {"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
              "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000,
              "max_position_embeddings": 4096, "tie_word_embeddings": True, "torch_dtype": "bfloat16"}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f)
    tensors = [("model.embed_tokens.weight", [1000, 64])]
    for il in range(2):
        b = f"model.layers.{il}."
        tensors += [(b + "input_layernorm.weight", [64]), (b + "post_attention_layernorm.weight", [64]),
                    (b + "self_attn.q_proj.weight", [64, 64]), (b + "self_attn.k_proj.weight", [32, 64]),
                    (b + "self_attn.v_proj.weight", [32, 64]), (b + "self_attn.o_proj.weight", [64, 64]),
                    (b + "mlp.gate_proj.weight", [128, 64]), (b + "mlp.up_proj.weight", [128, 64]),
                    (b + "mlp.down_proj.weight", [64, 128])]
    tensors += [("model.norm.weight", [64]), ("visual.patch_embed.proj.weight", [64, 64])]
    header, off = {}, 0
    for name, shape in tensors:
        n = 2
        for d in shape:
            n *= d
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [off, off + n]}
        off += n
    text = json.dumps(header).encode()
    path = os.path.join(out, "model.safetensors")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        f.truncate(8 + len(text) + off)


if __name__ == "__main__":
    main()
