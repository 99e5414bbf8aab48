#pragma once
/// @file error.hpp
/// The one error type of kvplan: every bad input, overflow or impossible request ends here.

#include <stdexcept>
#include <string>
#include <string_view>

namespace kvplan {

namespace detail {
/// A message part from a file or a flag as one line safe for a terminal: the implementation of
/// printable() (format.hpp, which documents what is escaped). Here, inline, so that error.hpp stays
/// header-only (the bench's CUDA module uses Error without linking core).
inline std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  constexpr const char* hex = "0123456789abcdef";
  const auto escape_u = [&](unsigned cp) {
    out += {'\\', 'u', hex[(cp >> 12) & 15], hex[(cp >> 8) & 15], hex[(cp >> 4) & 15], hex[cp & 15]};
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const auto at = [&](std::size_t k) {
      return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0;
    };
    if (c == 0xd8 && at(1) == 0x9c) {  // U+061C ARABIC LETTER MARK
      escape_u(0x061c);
      ++i;
      continue;
    }
    if (c == 0xe2 && (at(1) == 0x80 || at(1) == 0x81)) {
      const unsigned cp = 0x2000u + ((at(1) & 0x3fu) << 6) + (at(2) & 0x3fu);
      const bool hidden =
          cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
      if (hidden && (at(2) & 0xc0) == 0x80) {
        escape_u(cp);
        i += 2;
        continue;
      }
    }
    if (c == 0xc2 && i + 1 < text.size()) {
      const auto n = static_cast<unsigned char>(text[i + 1]);
      if (n >= 0x80 && n <= 0x9f) {  // a C1 control, as UTF-8
        escape_u(n);
        ++i;
        continue;
      }
    }
    if (c >= 0x80) {
      // A well-formed UTF-8 sequence is copied whole; any other byte (0xff, a lone continuation byte, an
      // overlong or surrogate form, a sequence cut short) is \xNN: invalid UTF-8 reaching a terminal or a
      // JSON string is garbled or refused (Unicode 15, Table 3-7, well-formed byte sequences).
      const std::size_t len = c >= 0xc2 && c <= 0xdf   ? 2
                              : c >= 0xe0 && c <= 0xef ? 3
                              : c >= 0xf0 && c <= 0xf4 ? 4
                                                       : 0;
      const int lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
      const int hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
      bool ok = len != 0 && at(1) >= lo && at(1) <= hi;
      for (std::size_t k = 2; ok && k < len; ++k) ok = at(k) >= 0x80 && at(k) <= 0xbf;
      if (ok) {
        out.append(text.substr(i, len));
        i += len - 1;
      } else {
        out += {'\\', 'x', hex[c >> 4], hex[c & 15]};
      }
      continue;
    }
    if (c >= 0x20 && c != 0x7f) {
      out += text[i];
      continue;
    }
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += {'\\', 'x', hex[c >> 4], hex[c & 15]};
    }
  }
  return out;
}
}  // namespace detail

/// A user-facing error: the field (or JSON path, or option) at fault and the reason.
/// `what()` is the one-line message "field: reason" that the CLI prints and the GUI shows; control and
/// bidirectional characters in either (from a file name, a JSON string, a flag's value) are escaped.
class Error : public std::runtime_error {
 public:
  Error(std::string field, std::string reason)
      : Error(Escaped{detail::one_line(field), detail::one_line(reason)}) {}

  /// The field, option or JSON path the error is about (may be empty).
  [[nodiscard]] const std::string& field() const noexcept { return field_; }
  /// Why the value is rejected.
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 private:
  struct Escaped {
    std::string field, reason;
  };
  explicit Error(Escaped e)
      : std::runtime_error(e.field.empty() ? e.reason : e.field + ": " + e.reason),
        field_(std::move(e.field)),
        reason_(std::move(e.reason)) {}

  std::string field_;
  std::string reason_;
};

}  // namespace kvplan
