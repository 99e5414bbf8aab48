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
  for (const char c : msg)
    check(c != '\n' && c != '\r', "error message is not one line: " + std::string(msg));
  check(!e.field().empty(), "error names no field: " + std::string(msg));
}

}  // namespace kvplan::fuzz
