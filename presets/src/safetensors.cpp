// safetensors headers -> exact weight bytes (huggingface/safetensors README "Format" and
// safetensors/src/tensor.rs: Dtype, the 100 MB header limit, data_offsets relative to the byte after the
// header). The tensor data is never read.
#include "kvplan/safetensors.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "kvplan/error.hpp"
#include "kvplan/presets.hpp"

namespace kvplan::presets {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// safetensors/src/tensor.rs Dtype, with its bitsize().
constexpr std::array<std::pair<std::string_view, std::uint64_t>, 20> kDtypeBits{{
    {"BOOL", 8}, {"U8", 8},   {"I8", 8},    {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"I16", 16},
    {"U16", 16}, {"F16", 16}, {"BF16", 16}, {"I32", 32},    {"U32", 32},    {"F32", 32},    {"F64", 64},
    {"I64", 64}, {"U64", 64}, {"F4", 4},    {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"C64", 64},
}};

std::optional<std::uint64_t> dtype_bits(std::string_view d) {
  for (const auto& [name, bits] : kDtypeBits)
    if (name == d) return bits;
  return std::nullopt;
}

/// A dotted name part: "model.visual.blocks.0" has the part "visual".
bool has_part(const std::string& name, std::string_view part) {
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t dot = name.find('.', start);
    const std::string_view piece = std::string_view(name).substr(start, dot - start);
    if (piece == part || piece.starts_with(std::string(part) + "_")) return true;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return false;
}

/// N of a "...layers.N..." name (DeepSeek-V3's MTP layer is model.layers.61, past num_hidden_layers).
std::optional<std::uint64_t> layer_index(const std::string& name) {
  const auto at = name.find("layers.");
  if (at == std::string::npos || (at > 0 && name[at - 1] != '.')) return std::nullopt;
  const std::size_t start = at + 7;
  std::size_t end = start;
  while (end < name.size() && end - start < 6 && name[end] >= '0' && name[end] <= '9') ++end;
  if (end == start || end >= name.size() || name[end] != '.') return std::nullopt;
  return std::stoull(name.substr(start, end - start));
}

void add(TensorTotals& t, std::uint64_t elements, std::uint64_t bytes, const std::string& f) {
  t.elements = checked_add(t.elements, elements, f);
  t.bytes = checked_add(t.bytes, bytes, f);
}

}  // namespace

std::uint64_t safetensors_header_length(const unsigned char (&prefix)[8], std::uint64_t file_size,
                                        const std::string& origin) {
  if (file_size < 8) throw Error(origin, "truncated: no 8-byte header length");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | prefix[i];
  if (n > kMaxSafetensorsHeader)
    throw Error(origin, "header length " + std::to_string(n) + " is over the format's 100 MB");
  if (n > file_size - 8)
    throw Error(origin, "truncated: a " + std::to_string(n) + "-byte header in a " +
                            std::to_string(file_size) + "-byte file");
  return n;
}

void add_safetensors_header(const fs::path& file, SafetensorsSummary& into) {
  const std::string origin = file.filename().string();
  // Never blocks, only a plain file (a FIFO, a device, /proc/kmsg are refused naming what they are).
  InputFile in(file);
  const std::uint64_t size = in.size();
  unsigned char len[8] = {};
  if (size >= 8) {
    const std::string prefix = in.read_exact(8);
    std::copy(prefix.begin(), prefix.end(), len);
  }
  const std::uint64_t n = safetensors_header_length(len, size, origin);
  add_safetensors_header_text(in.read_exact(static_cast<std::size_t>(n)), size, origin, into);
}

namespace {
/// One tensor of a header, checked alone: where its bytes are and what they count.
struct TensorEntry {
  const std::string* name;
  std::string_view dtype;
  std::uint64_t elements;
  std::uint64_t begin;
  std::uint64_t end;
};

/// The checks of safetensors/src/tensor.rs Metadata::validate on the tensors sorted by data_offsets: each
/// begins where the one before ends (an overlap or a gap is InvalidOffset, naming the tensor), and the last
/// ends at the data region's end (MetadataIncompleteBuffer): the tensors tile the data bytes exactly, so
/// no byte is counted twice and none is left out.
void check_coverage(std::vector<TensorEntry>& tensors, std::uint64_t data, const std::string& origin) {
  std::sort(tensors.begin(), tensors.end(), [](const TensorEntry& a, const TensorEntry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t at = 0;
  const std::string* before = nullptr;
  for (const auto& t : tensors) {
    const std::string where = origin + ": /" + *t.name + "/data_offsets";
    const std::string span = "[" + std::to_string(t.begin) + ", " + std::to_string(t.end) + "]";
    if (t.begin < at)
      throw Error(where, span + " overlaps " + *before + ", which ends at byte " + std::to_string(at) +
                             " (each data byte belongs to one tensor)");
    if (t.begin > at)
      throw Error(where, span + " leaves bytes " + std::to_string(at) + " to " + std::to_string(t.begin) +
                             " of the data region to no tensor (the tensors must follow each other)");
    at = t.end;
    before = t.name;
  }
  if (at != data)
    throw Error(origin, "the tensors cover " + std::to_string(at) + " of the file's " + std::to_string(data) +
                            " data bytes" +
                            (before != nullptr ? " (the last, " + *before + ", ends there)" : "") +
                            ": the rest belongs to no tensor");
}
}  // namespace

void add_safetensors_header_text(std::string_view text, std::uint64_t file_size, const std::string& origin,
                                 SafetensorsSummary& into) {
  if (text.size() > kMaxSafetensorsHeader || file_size < 8 || text.size() > file_size - 8)
    throw Error(origin, "truncated: a " + std::to_string(text.size()) + "-byte header in a " +
                            std::to_string(file_size) + "-byte file");
  // The readers' own bounds (depth, value count; json_file.cpp): 32 MiB of "[" took 2.5 GB in a DOM
  // parse. The format is strict JSON: no Python literals.
  const json header = parse_json_text(text, origin);
  if (!header.is_object()) throw Error(origin, "the header is not a JSON object");
  const std::uint64_t data = file_size - 8 - text.size();
  std::vector<TensorEntry> tensors;
  tensors.reserve(header.size());
  for (const auto& [name, t] : header.items()) {
    if (name == "__metadata__") continue;
    const std::string f = origin + ": /" + name;
    if (!t.is_object()) throw Error(f, "must be an object with dtype, shape and data_offsets");
    const auto dt = t.find("dtype");
    if (dt == t.end() || !dt->is_string()) throw Error(f + "/dtype", "missing");
    const auto bits = dtype_bits(dt->get_ref<const std::string&>());
    if (!bits) throw Error(f + "/dtype", "unknown safetensors dtype '" + dt->get<std::string>() + "'");
    const auto shape = t.find("shape");
    if (shape == t.end() || !shape->is_array()) throw Error(f + "/shape", "must be an array");
    std::uint64_t elements = 1;
    for (const auto& d : *shape) {
      if (!d.is_number_unsigned()) throw Error(f + "/shape", "must hold non-negative integers");
      elements = checked_mul(elements, d.get<std::uint64_t>(), f);
    }
    const auto off = t.find("data_offsets");
    if (off == t.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
        !(*off)[1].is_number_unsigned())
      throw Error(f + "/data_offsets", "must be [begin, end]");
    const auto begin = (*off)[0].get<std::uint64_t>();
    const auto end = (*off)[1].get<std::uint64_t>();
    if (begin > end || end > data)
      throw Error(f + "/data_offsets", "[" + std::to_string(begin) + ", " + std::to_string(end) +
                                           "] is outside the file's " + std::to_string(data) + " data bytes");
    // tensor.rs validate: nbytes = elements x bits / 8 (sub-byte types pack to whole bytes).
    const std::uint64_t want = ceil_div(checked_mul(elements, *bits, f), 8);
    if (end - begin != want)
      throw Error(f + "/data_offsets", std::to_string(end - begin) + " bytes for " +
                                           std::to_string(elements) + " " + dt->get<std::string>() +
                                           " elements (" + std::to_string(want) + " expected)");
    tensors.push_back({&name, dt->get_ref<const std::string&>(), elements, begin, end});
  }
  check_coverage(tensors, data, origin);
  // A tensor another file already holds would be counted twice (transformers and vLLM load it once): the
  // checkpoint is refused, as llama.cpp refuses a GGUF with a tensor named twice.
  for (const auto& t : tensors)
    if (const auto it = into.tensor_files.find(*t.name); it != into.tensor_files.end())
      throw Error(origin + ": /" + *t.name, "is also in " + it->second + ": a tensor in two files");
  // Counted only once the whole header is known good: a refused file adds nothing.
  for (const auto& t : tensors) into.tensor_files.emplace(*t.name, origin);
  for (const auto& t : tensors) {
    const std::string& name = *t.name;
    const std::string f = origin + ": /" + name;
    const std::uint64_t bytes = t.end - t.begin;
    add(into.by_dtype[std::string(t.dtype)], t.elements, bytes, f);
    add(into.total, t.elements, bytes, f);
    if (has_part(name, "vision") || has_part(name, "visual") || has_part(name, "vision_tower") ||
        has_part(name, "vision_model"))
      add(into.vision, t.elements, bytes, f);
    else if (has_part(name, "mtp"))
      add(into.mtp, t.elements, bytes, f);
    else
      add(into.language, t.elements, bytes, f);
    if (const auto layer = layer_index(name)) add(into.by_layer[*layer], t.elements, bytes, f);
    if (has_part(name, "lm_head")) into.has_lm_head = true;
  }
  into.files += 1;
}

std::vector<std::string> safetensors_index_shards(const json& index, const std::string& origin) {
  if (!index.is_object()) throw Error(origin, "must be a JSON object with a weight_map");
  const auto map = index.find("weight_map");
  if (map == index.end() || !map->is_object())
    throw Error(origin + ": /weight_map", "must be an object of tensor -> shard file");
  std::vector<std::string> shards;
  // Seen shards in a hash set: a linear search made 100,000 distinct shards take 15 to 23 s.
  std::unordered_set<std::string_view> seen;
  for (const auto& [tensor, shard] : map->items()) {
    const std::string* name = shard.is_string() ? &shard.get_ref<const std::string&>() : nullptr;
    if (name == nullptr || name->empty() || name->find('/') != std::string::npos ||
        name->find('\\') != std::string::npos || *name == "." || *name == "..")
      throw Error(origin + ": /weight_map/" + tensor, "must be a file name in the folder");
    // The views point into `index`, which outlives the set.
    if (seen.insert(*name).second) shards.push_back(*name);
  }
  return shards;
}

std::optional<SafetensorsSummary> read_safetensors_folder(const fs::path& folder,
                                                          const ShardSource& elsewhere) {
  std::error_code ec;
  SafetensorsSummary s;
  // Whatever is at these names counts (a FIFO, a device, a folder is refused naming what it is).
  const auto there = [&](const fs::path& p) { return fs::exists(fs::symlink_status(p, ec)); };
  const auto add_shard = [&](const std::string& shard, const std::string& origin) {
    // Anything at that name is read there: a FIFO, a device, a folder or a link loop is refused naming
    // what it is (add_safetensors_header, require_regular_file), not reported as missing.
    if (there(folder / shard)) {
      add_safetensors_header(folder / shard, s);
      return true;
    }
    if (!elsewhere) throw Error(origin, "names the shard " + shard + ", which is not in " + folder.string());
    const auto h = elsewhere(shard);
    if (!h) return false;
    add_safetensors_header_text(h->text, h->file_size, shard, s);
    return true;
  };
  const fs::path index = folder / "model.safetensors.index.json";
  if (there(index)) {
    const std::string origin = index.filename().string();
    const json j = read_json_file(index);
    for (const auto& shard : safetensors_index_shards(j, origin))
      if (!add_shard(shard, origin)) return std::nullopt;
    // Each entry's tensor should be in the file it names (transformers loads it from there); vLLM reads the
    // files whatever the map says, so a stale entry changes no figure: noted, not refused.
    for (const auto& [tensor, shard] : j.at("weight_map").items()) {
      const auto it = s.tensor_files.find(tensor);
      const std::string& named = shard.get_ref<const std::string&>();
      if (it != s.tensor_files.end() && fs::path(it->second).filename().string() == named) continue;
      s.index_mismatches.push_back(origin + ": /weight_map/" + tensor + " names " + named + ", " +
                                   (it == s.tensor_files.end()
                                        ? "and no file holds that tensor"
                                        : "but " + fs::path(it->second).filename().string() + " holds it"));
    }
    if (const auto meta = j.find("metadata"); meta != j.end() && meta->is_object())
      if (const auto t = meta->find("total_size"); t != meta->end() && t->is_number_unsigned())
        s.index_total_size = t->get<std::uint64_t>();
    return s;
  }
  if (there(folder / "model.safetensors") || elsewhere) {
    if (!add_shard("model.safetensors", "model.safetensors")) return std::nullopt;
    return s;
  }
  return std::nullopt;
}

void apply_safetensors(const SafetensorsSummary& summary, ModelSpec& m) {
  const std::string f = "safetensors";
  SafetensorsSummary s = summary;
  // Layers past the config's num_hidden_layers are MTP layers (DeepSeek-V3 num_nextn_predict_layers).
  const std::uint64_t n = num_layers(m);
  for (const auto& [layer, t] : s.by_layer)
    if (layer >= n && s.language.bytes >= t.bytes && s.language.elements >= t.elements) {
      s.language.bytes -= t.bytes;
      s.language.elements -= t.elements;
      add(s.mtp, t.elements, t.bytes, f);
    }
  // A checkpoint without a language-model tensor (a header of {} or of __metadata__ only, an index whose
  // weight_map is empty) is no model any engine loads: 0 B of weights, labelled exact, would pass for one.
  if (s.language.elements == 0)
    throw Error(f, "the " + std::to_string(s.files) + (s.files == 1 ? " file holds" : " files hold") +
                       " no tensor of the language model: not a checkpoint an engine can load");
  m.weights_bytes = Bytes{checked_add(s.language.bytes, s.vision.bytes, f)};
  m.weights_parameters = checked_add(s.language.elements, s.vision.elements, f);
  m.weights_origin = "safetensors headers (exact)";
  if (s.vision.bytes > 0)
    m.warnings.push_back("safetensors: the vision tower's " + std::to_string(s.vision.elements) +
                         " parameters (" + std::to_string(s.vision.bytes) + " B) are in the weights");
  if (s.index_total_size && *s.index_total_size != s.total.bytes)
    m.warnings.push_back("safetensors: the index's total_size is " + std::to_string(*s.index_total_size) +
                         " B, the headers' tensors " + std::to_string(s.total.bytes) + " B");
  if (!s.index_mismatches.empty())
    m.warnings.push_back("safetensors: " + std::to_string(s.index_mismatches.size()) +
                         (s.index_mismatches.size() == 1 ? " index entry does" : " index entries do") +
                         " not match the files (" + s.index_mismatches.front() +
                         "); the weights are the files' tensors");
  if (s.mtp.bytes > 0)
    m.warnings.push_back("safetensors: " + std::to_string(s.mtp.elements) + " MTP parameters (" +
                         std::to_string(s.mtp.bytes) +
                         " B) left out of the weights (loaded only for speculative decoding)");
}

}  // namespace kvplan::presets
