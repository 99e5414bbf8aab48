// safetensors headers -> exact weight bytes (huggingface/safetensors README "Format" and
// safetensors/src/tensor.rs: Dtype, the 100 MB header limit, data_offsets relative to the byte after the
// header). The tensor data is never read.
#include "kvplan/safetensors.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fstream>

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
  presets::require_regular_file(file);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file.string(), "cannot open");
  std::error_code ec;
  const std::uint64_t size = fs::file_size(file, ec);
  if (ec) throw Error(file.string(), "cannot read its size: " + ec.message());
  unsigned char len[8] = {};
  if (size >= 8 && !in.read(reinterpret_cast<char*>(len), 8)) throw Error(origin, "read error");
  const std::uint64_t n = safetensors_header_length(len, size, origin);
  std::string text(n, '\0');
  if (!in.read(text.data(), static_cast<std::streamsize>(n))) throw Error(origin, "read error");
  add_safetensors_header_text(text, size, origin, into);
}

void add_safetensors_header_text(std::string_view text, std::uint64_t file_size, const std::string& origin,
                                 SafetensorsSummary& into) {
  if (text.size() > kMaxSafetensorsHeader || file_size < 8 || text.size() > file_size - 8)
    throw Error(origin, "truncated: a " + std::to_string(text.size()) + "-byte header in a " +
                            std::to_string(file_size) + "-byte file");
  const json header = json::parse(text, nullptr, false);
  if (header.is_discarded() || !header.is_object()) throw Error(origin, "the header is not a JSON object");
  const std::uint64_t data = file_size - 8 - text.size();
  for (const auto& [name, t] : header.items()) {
    if (name == "__metadata__") continue;
    const std::string f = origin + ": /" + name;
    if (!t.is_object()) throw Error(f, "must be an object with dtype, shape and data_offsets");
    const auto dt = t.find("dtype");
    if (dt == t.end() || !dt->is_string()) throw Error(f + "/dtype", "missing");
    const auto bits = dtype_bits(dt->get<std::string>());
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
    const std::uint64_t bytes = end - begin;
    add(into.by_dtype[dt->get<std::string>()], elements, bytes, f);
    add(into.total, elements, bytes, f);
    if (has_part(name, "vision") || has_part(name, "visual") || has_part(name, "vision_tower") ||
        has_part(name, "vision_model"))
      add(into.vision, elements, bytes, f);
    else if (has_part(name, "mtp"))
      add(into.mtp, elements, bytes, f);
    else
      add(into.language, elements, bytes, f);
    if (const auto layer = layer_index(name)) add(into.by_layer[*layer], elements, bytes, f);
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
  for (const auto& [tensor, shard] : map->items()) {
    if (!shard.is_string() || shard.get<std::string>().empty() ||
        shard.get<std::string>().find('/') != std::string::npos ||
        shard.get<std::string>().find('\\') != std::string::npos || shard.get<std::string>() == "." ||
        shard.get<std::string>() == "..")
      throw Error(origin + ": /weight_map/" + tensor, "must be a file name in the folder");
    if (std::find(shards.begin(), shards.end(), shard.get<std::string>()) == shards.end())
      shards.push_back(shard.get<std::string>());
  }
  return shards;
}

std::optional<SafetensorsSummary> read_safetensors_folder(const fs::path& folder,
                                                          const ShardSource& elsewhere) {
  std::error_code ec;
  SafetensorsSummary s;
  const auto add_shard = [&](const std::string& shard, const std::string& origin) {
    if (fs::is_regular_file(folder / shard, ec)) {
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
  if (fs::is_regular_file(index, ec)) {
    const std::string origin = index.filename().string();
    const json j = read_json_file(index);
    for (const auto& shard : safetensors_index_shards(j, origin))
      if (!add_shard(shard, origin)) return std::nullopt;
    if (const auto meta = j.find("metadata"); meta != j.end() && meta->is_object())
      if (const auto t = meta->find("total_size"); t != meta->end() && t->is_number_unsigned())
        s.index_total_size = t->get<std::uint64_t>();
    return s;
  }
  if (fs::is_regular_file(folder / "model.safetensors", ec) || elsewhere) {
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
  m.weights_bytes = Bytes{checked_add(s.language.bytes, s.vision.bytes, f)};
  m.weights_parameters = checked_add(s.language.elements, s.vision.elements, f);
  m.weights_origin = "safetensors headers (exact)";
  if (s.vision.bytes > 0)
    m.warnings.push_back("safetensors: the vision tower's " + std::to_string(s.vision.elements) +
                         " parameters (" + std::to_string(s.vision.bytes) + " B) are in the weights");
  if (s.index_total_size && *s.index_total_size != s.total.bytes)
    m.warnings.push_back("safetensors: the index's total_size is " + std::to_string(*s.index_total_size) +
                         " B, the headers' tensors " + std::to_string(s.total.bytes) + " B");
  if (s.mtp.bytes > 0)
    m.warnings.push_back("safetensors: " + std::to_string(s.mtp.elements) + " MTP parameters (" +
                         std::to_string(s.mtp.bytes) +
                         " B) left out of the weights (loaded only for speculative decoding)");
}

}  // namespace kvplan::presets
