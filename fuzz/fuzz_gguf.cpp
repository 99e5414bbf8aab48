// The GGUF reader on fuzzed whole files. Byte 0 picks the read size (8 to 263 bytes, so that every field
// crosses some read's end); the rest is the file, written to disk and read by read_gguf_header in reads
// of that size, and parsed in memory by parse_gguf_header. Both must give the same header or the same
// error; then model_from_gguf on the header.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "kvplan/gguf.hpp"

using namespace kvplan;

namespace {

/// The header's fields as one string, to compare two readings.
std::string describe(const presets::GgufHeader& h) {
  std::string s = std::to_string(h.version) + "/" + std::to_string(h.alignment) + "/" +
                  std::to_string(h.data_offset) + "\n";
  for (const auto& [key, v] : h.metadata) {
    s += key + " " + std::to_string(static_cast<unsigned>(v.type)) + " " + std::to_string(v.count) + " " +
         v.str + " " + std::to_string(v.uints.size()) + " " + std::to_string(v.floats.size());
    for (const auto u : v.uints) s += " " + std::to_string(u);
    s += "\n";
  }
  for (const auto& t : h.tensors) {
    s +=
        t.name + " " + std::to_string(t.type) + " " + std::to_string(t.offset) + " " + std::to_string(t.size);
    for (const auto d : t.shape) s += " " + std::to_string(d);
    s += "\n";
  }
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = 8 + data[0];
  const std::string_view file(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto path = fuzz::scratch_dir() / "f.gguf";
  fuzz::write_file(path, file);

  std::string from_memory, memory_error;
  presets::GgufHeader header;
  try {
    header = presets::parse_gguf_header(file, "f.gguf");
    from_memory = describe(header);
  } catch (const Error& e) {
    fuzz::check_error(e);
    memory_error = e.what();
  }
  try {
    const std::string from_file = describe(presets::read_gguf_header(path, chunk));
    fuzz::check(memory_error.empty(), "the file read, the same bytes in memory did not: " + memory_error);
    fuzz::check(from_file == from_memory, "the file and memory readings differ");
  } catch (const Error& e) {
    fuzz::check_error(e);
    fuzz::check(e.what() == memory_error, "the file and memory readings fail differently: " +
                                              std::string(e.what()) + " / " + memory_error);
  }
  if (!memory_error.empty()) return 0;

  // Every tensor lies in the file, packed in order after the header.
  std::uint64_t end = header.data_offset;
  for (const auto& t : header.tensors) {
    fuzz::check(t.offset >= end - header.data_offset, "tensors overlap");
    end = header.data_offset + t.offset + t.size;
    fuzz::check(end <= file.size(), "a tensor past the end of the file");
  }
  try {
    const ModelSpec m = presets::model_from_gguf(header, "f.gguf");
    fuzz::check(!m.layers.empty(), "a model without layers");
    if (m.weights_bytes)
      fuzz::check(m.weights_bytes->value <= file.size(), "more weight bytes than the file holds");
  } catch (const Error& e) {
    fuzz::check_error(e);
  }
  return 0;
}
