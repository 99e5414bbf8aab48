#pragma once
/// @file error.hpp
/// The one error type of kvplan: every bad input, overflow or impossible request ends here.

#include <stdexcept>
#include <string>

namespace kvplan {

/// A user-facing error: the field (or JSON path, or option) at fault and the reason.
/// `what()` is the one-line message "field: reason" that the CLI prints and the GUI shows.
class Error : public std::runtime_error {
 public:
  Error(std::string field, std::string reason)
      : std::runtime_error(field.empty() ? reason : field + ": " + reason),
        field_(std::move(field)),
        reason_(std::move(reason)) {}

  /// The field, option or JSON path the error is about (may be empty).
  [[nodiscard]] const std::string& field() const noexcept { return field_; }
  /// Why the value is rejected.
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 private:
  std::string field_;
  std::string reason_;
};

}  // namespace kvplan
