#pragma once
/// @file error.hpp
/// The one error type of kvplan: every bad input, overflow or impossible request ends here.

#include <stdexcept>
#include <string>
#include <string_view>

namespace kvplan {

/// Text made safe for a terminal, one line (format.hpp; defined in format.cpp).
std::string printable(std::string_view text);

namespace detail {
/// A message part from a file or flag as one printable line: printable() (format.hpp).
inline std::string one_line(std::string_view s) { return printable(s); }
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
