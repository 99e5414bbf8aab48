#!/usr/bin/env python3
"""Writes header-only GGUF files for the CLI tests (ggml/docs/gguf.md, version 3, little-endian; the
tensor data is absent). Usage: make_gguf.py OUTDIR.

llama-3.1-8b-q4km.gguf: Llama-3.1-8B's metadata as convert_hf_to_gguf.py writes it, tensors in a
Q4_K_M-like mix (Q4_K, Q6_K for attn_v / ffn_down / output, F32 norms); tests/test_gguf.cpp works its
figures by hand (5,172,420,864 B, 8,030,261,312 elements).
deepseek-coder-v2-lite-legacy.gguf: the engine-logs case llamacpp-legacy-mla-gguf-deepseek-coder-v2-lite.
big-endian.gguf, truncated.gguf, bad-type.gguf: refusals.
hostile-*.gguf: headers that must be refused within 5 s and 512 MB (tests/sources/gguf_bounds.cmake):
a 2 GiB sparse file whose string or string array runs past the 256 MiB a header may have, distinct
keys past what a header may keep, and a 397-byte file claiming 1 PiB of tensors.
bool-kv-heads.gguf, duplicate-tensor.gguf, experts-9-of-8.gguf: refused, naming the key.
The files hold the tensor data region too, as a sparse tail of zeros: the tensors are packed in order,
each padded to 32 B (gguf.cpp's offset check), and kvplan refuses tensor data past the end of the file.
"""
import os
import struct
import sys

F32, Q4_K, Q6_K = 0, 12, 14
# (values per block, bytes per block): ggml.c type_traits.
BLOCK = {F32: (1, 4), Q4_K: (256, 144), Q6_K: (256, 210)}
ALIGN = 32


def pad(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


class Writer:
    def __init__(self):
        self.kv, self.ti, self.n_kv, self.n_t, self.data = b"", b"", 0, 0, 0

    @staticmethod
    def s(x):
        b = x.encode()
        return struct.pack("<Q", len(b)) + b

    def u32(self, k, v):
        self.kv += self.s(k) + struct.pack("<II", 4, v)
        self.n_kv += 1
        return self

    def str(self, k, v):
        self.kv += self.s(k) + struct.pack("<I", 8) + self.s(v)
        self.n_kv += 1
        return self

    def tokens(self, n):
        self.kv += self.s("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, n) + self.s("t") * n
        self.n_kv += 1
        return self

    def tensor(self, name, shape, t):
        self.ti += self.s(name) + struct.pack("<I", len(shape)) + b"".join(struct.pack("<Q", d) for d in shape)
        self.ti += struct.pack("<IQ", t, self.data)
        values, size = BLOCK[t]
        n = 1
        for d in shape:
            n *= d
        self.data += pad(n // values * size)
        self.n_t += 1
        return self

    def bytes(self):
        """The header, unpadded; file() adds the padding and the data's length."""
        return b"GGUF" + struct.pack("<IQQ", 3, self.n_t, self.n_kv) + self.kv + self.ti

    def file(self):
        h = self.bytes()
        return h + bytes(pad(len(h)) - len(h)), self.data


def llama():
    w = Writer()
    w.str("general.architecture", "llama").str("general.name", "Meta Llama 3.1 8B Instruct")
    for k, v in [("block_count", 32), ("context_length", 131072), ("embedding_length", 4096),
                 ("feed_forward_length", 14336), ("attention.head_count", 32), ("attention.head_count_kv", 8),
                 ("rope.dimension_count", 128)]:
        w.u32("llama." + k, v)
    w.tokens(128256)
    w.tensor("rope_freqs.weight", [64], F32).tensor("token_embd.weight", [4096, 128256], Q4_K)
    w.tensor("output_norm.weight", [4096], F32).tensor("output.weight", [4096, 128256], Q6_K)
    for il in range(32):
        b = f"blk.{il}."
        for name, shape, t in [("attn_norm", [4096], F32), ("attn_q", [4096, 4096], Q4_K),
                               ("attn_k", [4096, 1024], Q4_K), ("attn_v", [4096, 1024], Q6_K),
                               ("attn_output", [4096, 4096], Q4_K), ("ffn_norm", [4096], F32),
                               ("ffn_gate", [4096, 14336], Q4_K), ("ffn_up", [4096, 14336], Q4_K),
                               ("ffn_down", [14336, 4096], Q6_K)]:
            w.tensor(b + name + ".weight", shape, t)
    return w


def deepseek_legacy():
    """DeepSeek-Coder-V2-Lite converted before llama.cpp's MLA split: no key_length_mla, no attn_k_b."""
    w = Writer()
    w.str("general.architecture", "deepseek2")
    for k, v in [("block_count", 27), ("embedding_length", 2048), ("feed_forward_length", 10944),
                 ("attention.head_count", 16), ("attention.head_count_kv", 16), ("attention.key_length", 192),
                 ("attention.value_length", 128), ("attention.kv_lora_rank", 512), ("rope.dimension_count", 64),
                 ("leading_dense_block_count", 1), ("expert_count", 64), ("expert_used_count", 6),
                 ("expert_shared_count", 2), ("expert_feed_forward_length", 1408)]:
        w.u32("deepseek2." + k, v)
    w.tokens(102400)
    return w


GIB = 1 << 30


def hostile():
    """name -> (header, length of the sparse tail)."""
    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 1)
    key = Writer.s("tokenizer.chat_template")
    string = head + key + struct.pack("<IQ", 8, 2 * GIB - 100)
    toks = head + Writer.s("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, (2 * GIB - 100) // 8)
    n = 600000  # 21 B each: 8 + 8 key bytes + 4 + 1
    keys = b"GGUF" + struct.pack("<IQQ", 3, 0, n) + b"".join(
        Writer.s("k%07d" % i) + struct.pack("<IB", 0, 0) for i in range(n))
    pib = Writer().str("general.architecture", "llama").tensor("token_embd.weight", [1 << 24, 1 << 24], F32)
    pib = pib.bytes()
    return {
        "hostile-string-2gib.gguf": (string, 2 * GIB - len(string)),
        "hostile-tokens-2gib.gguf": (toks, 2 * GIB - len(toks)),
        "hostile-keys.gguf": (keys, 0),
        "hostile-1pib.gguf": (pib, 397 - len(pib)),
    }


def strict():
    """Files llama.cpp refuses (or misreads) and kvplan refuses, naming the key."""
    b = Writer().str("general.architecture", "llama")
    for k, v in [("block_count", 2), ("embedding_length", 64), ("attention.head_count", 4)]:
        b.u32("llama." + k, v)
    b.kv += Writer.s("llama.attention.head_count_kv") + struct.pack("<IB", 7, 1)  # BOOL true
    b.n_kv += 1
    d = Writer().str("general.architecture", "llama")
    for k, v in [("block_count", 2), ("embedding_length", 64), ("attention.head_count", 4)]:
        d.u32("llama." + k, v)
    d.tensor("blk.0.attn_q.weight", [64, 64], F32).tensor("blk.0.attn_q.weight", [64, 64], F32)
    e = Writer().str("general.architecture", "llama")
    for k, v in [("block_count", 2), ("embedding_length", 64), ("attention.head_count", 4), ("expert_count", 8),
                 ("expert_used_count", 9)]:
        e.u32("llama." + k, v)
    return {"bool-kv-heads.gguf": b.file(), "duplicate-tensor.gguf": d.file(), "experts-9-of-8.gguf": e.file()}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    good = llama().bytes()
    files = {
        "llama-3.1-8b-q4km.gguf": llama().file(),
        "deepseek-coder-v2-lite-legacy.gguf": deepseek_legacy().file(),
        "big-endian.gguf": (b"GGUF" + struct.pack(">I", 3) + good[8:], 0),
        "truncated.gguf": (good[:-5], 0),
        # general.architecture's value type (at 24 + 8 + 20) made 13: no such GGUF type.
        "bad-type.gguf": (good[:52] + struct.pack("<I", 13) + good[56:], 0),
    }
    files.update(hostile())
    files.update(strict())
    for name, (header, data) in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(header)
            f.truncate(len(header) + data)  # a sparse tail: the data is never read


if __name__ == "__main__":
    main()
