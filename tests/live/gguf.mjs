// A GGUF v3 writer for the live suite (ggml/docs/gguf.md, little-endian), laid out as gguf-py's
// GGUFWriter lays a file out: header, metadata, tensor infos with offsets packed in order and padded to
// the alignment, then the data region (zeros). The same layout as tests/gguf_writer.hpp, in JavaScript so
// that the suite needs only node besides kvplan.
import { openSync, writeSync, closeSync, ftruncateSync } from "node:fs";

// ggml.h enum ggml_type; bytes per block and values per block from ggml.c type_traits.
export const F32 = 0, F16 = 1;
const typeSize = { [F32]: [4, 1], [F16]: [2, 1] };

// gguf.md value types.
const T = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, str: 8, arr: 9, u64: 10, i64: 11, f64: 12 };

class Out {
  constructor() { this.parts = []; this.length = 0; }
  push(b) { this.parts.push(b); this.length += b.length; }
  u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v); this.push(b); }
  i32(v) { const b = Buffer.alloc(4); b.writeInt32LE(v); this.push(b); }
  u64(v) { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); this.push(b); }
  f32(v) { const b = Buffer.alloc(4); b.writeFloatLE(v); this.push(b); }
  u8(v) { this.push(Buffer.from([v])); }
  str(s) { const b = Buffer.from(s, "utf8"); this.u64(b.length); this.push(b); }
  bytes() { return Buffer.concat(this.parts); }
}

/// One metadata value of an explicit type: {type: "u32"|"f32"|"bool"|"str"|..., value}, or an array
/// {type: "arr", of: "u32"|..., value: [...]}.
function writeValue(o, type, value) {
  switch (type) {
    case "u32": o.u32(value); break;
    case "i32": o.i32(value); break;
    case "f32": o.f32(value); break;
    case "bool": o.u8(value ? 1 : 0); break;
    case "str": o.str(value); break;
    case "u64": o.u64(value); break;
    default: throw new Error(`gguf: no writer for type ${type}`);
  }
}

/// Infers a value's GGUF type as gguf-py does for Python values: integers u32 (i32 when negative),
/// fractions f32, booleans bool, strings str, arrays of the first element's type.
export function typed(value) {
  if (value !== null && typeof value === "object" && !Array.isArray(value) && "type" in value) return value;
  if (typeof value === "boolean") return { type: "bool", value };
  if (typeof value === "string") return { type: "str", value };
  if (typeof value === "number") {
    if (Number.isInteger(value)) return { type: value < 0 ? "i32" : "u32", value };
    return { type: "f32", value };
  }
  if (Array.isArray(value)) {
    const of = value.length ? typed(value[0]).type : "u32";
    return { type: "arr", of, value };
  }
  throw new Error(`gguf: cannot type ${JSON.stringify(value)}`);
}

/// Writes `path`: `meta` (key -> value, typed by typed()), `tensors` ([{name, shape, type}]; shape
/// innermost first, as ggml's ne), alignment from general.alignment (32 by default). The data region is
/// a sparse run of zeros (ftruncate). Returns the file's size in bytes.
export function writeGguf(path, meta, tensors) {
  const align = meta["general.alignment"] ?? 32;
  const o = new Out();
  o.push(Buffer.from("GGUF"));
  o.u32(3);
  o.u64(tensors.length);
  o.u64(Object.keys(meta).length);
  for (const [k, raw] of Object.entries(meta)) {
    const v = typed(raw);
    o.str(k);
    o.u32(T[v.type]);
    if (v.type === "arr") {
      o.u32(T[v.of]);
      o.u64(v.value.length);
      for (const x of v.value) writeValue(o, v.of, x);
    } else {
      writeValue(o, v.type, v.value);
    }
  }
  let offset = 0;
  for (const t of tensors) {
    const [size, block] = typeSize[t.type ?? F32];
    const n = t.shape.reduce((a, b) => a * b, 1);
    o.str(t.name);
    o.u32(t.shape.length);
    for (const d of t.shape) o.u64(d);
    o.u32(t.type ?? F32);
    o.u64(offset);
    offset += Math.ceil((n / block) * size / align) * align;
  }
  const header = o.bytes();
  const start = Math.ceil(header.length / align) * align;
  const fd = openSync(path, "w");
  writeSync(fd, header);
  ftruncateSync(fd, start + offset);
  closeSync(fd);
  return start + offset;
}

/// The vocabulary of the live suite's files: SentencePiece ("llama") with <unk>, <s>, </s>, the 256
/// byte tokens <0x00>..<0xFF> and a few words (266 tokens), what llama.cpp's llama_vocab needs to load.
export function spmVocab() {
  const tokens = ["<unk>", "<s>", "</s>"];
  for (let i = 0; i < 256; ++i) tokens.push(`<0x${i.toString(16).toUpperCase().padStart(2, "0")}>`);
  tokens.push("\u2581the", "\u2581a", "\u2581of", "\u2581to", "\u2581and", "\u2581in", "\u2581is");
  const types = tokens.map((t, i) => (i === 0 ? 2 : i < 3 ? 3 : i < 259 ? 6 : 1));  // unknown, control, byte, normal
  return {
    "tokenizer.ggml.model": "llama",
    "tokenizer.ggml.tokens": tokens,
    "tokenizer.ggml.scores": { type: "arr", of: "f32", value: tokens.map(() => 0) },
    "tokenizer.ggml.token_type": { type: "arr", of: "i32", value: types },
    "tokenizer.ggml.bos_token_id": 1,
    "tokenizer.ggml.eos_token_id": 2,
    "tokenizer.ggml.unknown_token_id": 0,
  };
}
