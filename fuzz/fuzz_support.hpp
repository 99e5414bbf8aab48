#pragma once
// Shared by the fuzz targets: a private scratch folder, writing an input to a file, and checks that
// abort (a libFuzzer finding) with a message when an invariant fails.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "kvplan/error.hpp"
#include "kvplan/model.hpp"

namespace kvplan::fuzz {

/// A fresh folder of this process (removed at exit).
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/kvplan-fuzz-XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    static const std::string keep = templ;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(keep, ec);
    });
    return std::filesystem::path(templ);
  }();
  return dir;
}

inline void write_file(const std::filesystem::path& path, std::string_view data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::abort();
  }
}

/// An invariant: abort with the message when it fails (libFuzzer reports the input).
inline void check(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "kvplan fuzz invariant failed: %s\n", what.c_str());
  std::abort();
}

/// The promise for every error: one line that names something (a field, path or option).
inline void check_error(const Error& e) {
  const std::string_view msg = e.what();
  check(!msg.empty(), "empty error message");
  // The message is built only on failure: built for every character, it made each error cost its length
  // squared in allocations (most of fuzz_units' time under ASan).
  for (const char c : msg)
    if (c == '\n' || c == '\r') check(false, "error message is not one line: " + std::string(msg));
  check(!e.field().empty(), "error names no field: " + std::string(msg));
}

/// A small fixed model: 2 layers of 4 heads of 64 (GQA 2), 64 wide, MLP 128, vocabulary 256, so that
/// figures computed on it are small and exact.
inline ModelSpec small_model() {
  ModelSpec m;
  m.id = m.name = "fuzz";
  LayerGroup g;
  g.attention.num_attention_heads = 4;
  g.attention.num_key_value_heads = 2;
  g.attention.head_dim_k = g.attention.head_dim_v = 64;
  g.mlp.intermediate_size = 128;
  g.count = 2;
  m.layers = {g};
  m.hidden_size = 64;
  m.vocab_size = 256;
  return m;
}

}  // namespace kvplan::fuzz
