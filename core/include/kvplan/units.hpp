#pragma once
/// @file units.hpp
/// Strong integer types for byte and token counts, with overflow-checked arithmetic.
/// A byte figure is never a double: every product is checked and an overflow throws
/// kvplan::Error instead of wrapping.

#include <compare>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "kvplan/error.hpp"

namespace kvplan {

/// Throws kvplan::Error(field, "overflows 64-bit arithmetic") (out of line: the checked operations below
/// stay inline and cheap on every planner probe).
[[noreturn]] void throw_overflow(std::string_view field);
/// a * b, or kvplan::Error(field, "overflows 64-bit arithmetic") when the product does not fit.
inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, std::string_view field = "size") {
  std::uint64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) [[unlikely]]
    throw_overflow(field);
  return r;
}
/// a + b, or kvplan::Error(field, ...) on overflow.
inline std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, std::string_view field = "size") {
  std::uint64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) [[unlikely]]
    throw_overflow(field);
  return r;
}
/// ceil(a / b); b must be non-zero.
constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

/// A count of bytes (uint64_t). Explicit construction; + and * are overflow-checked.
struct Bytes {
  std::uint64_t value = 0;
  constexpr Bytes() = default;
  constexpr explicit Bytes(std::uint64_t v) : value(v) {}
  friend constexpr auto operator<=>(Bytes, Bytes) = default;
  friend Bytes operator+(Bytes a, Bytes b) { return Bytes{checked_add(a.value, b.value, "bytes")}; }
  /// Difference; throws when b > a (a byte count is never negative).
  friend Bytes operator-(Bytes a, Bytes b) {
    if (b.value > a.value) throw Error("bytes", "negative difference");
    return Bytes{a.value - b.value};
  }
  Bytes& operator+=(Bytes b) { return *this = *this + b; }
  /// Bytes times a count (tokens, users, layers): checked.
  friend Bytes operator*(Bytes a, std::uint64_t n) { return Bytes{checked_mul(a.value, n, "bytes")}; }
  friend Bytes operator*(std::uint64_t n, Bytes a) { return a * n; }
};

/// A count of tokens (uint64_t). Explicit construction.
struct Tokens {
  std::uint64_t value = 0;
  constexpr Tokens() = default;
  constexpr explicit Tokens(std::uint64_t v) : value(v) {}
  friend constexpr auto operator<=>(Tokens, Tokens) = default;
  friend Tokens operator+(Tokens a, Tokens b) { return Tokens{checked_add(a.value, b.value, "tokens")}; }
};

/// Bytes per token times tokens: checked.
inline Bytes operator*(Bytes per_token, Tokens n) { return per_token * n.value; }

/// Unit system for human output and parsing: IEC (KiB, MiB, GiB, 1024-based) or SI (kB, MB, GB).
enum class UnitSystem { iec, si };

/// Parses a byte size: a plain integer is bytes; a decimal number with a unit suffix
/// (B, KB, MB, GB, TB = 10^3..10^12; KiB, MiB, GiB, TiB = 2^10..2^40; case-insensitive,
/// optional space) is converted exactly and rounded down to whole bytes
/// ("6.51GiB" = floor(651 * 2^30 / 100)).
/// Throws kvplan::Error(field, reason) for anything else, negative values ("-0" is 0) or overflow.
/// parse_bytes, parse_tokens and parse_count also take thousands separators grouping the whole part by
/// three ("131,072", "1,024GiB"); a misplaced one ("4,09") is an error, never a different number.
Bytes parse_bytes(std::string_view text, std::string_view field = "size");

/// Parses a GPU-scale memory size (a GPU's memory, a KV budget, weights, a reserve) as parse_bytes does,
/// and refuses a number without a unit below 1 MiB: "54" for 54 GiB is the slip to catch ("'54' is 54
/// bytes (a plain number is bytes); give a unit, e.g. 54GiB"). 0 stays 0, and a plain number of 1 MiB or
/// more is bytes, as vLLM's --kv-cache-memory-bytes takes it. Throws kvplan::Error(field, reason).
Bytes parse_memory_size(std::string_view text, std::string_view field);

/// Parses a positive token count: a plain integer, or a decimal with a suffix as vLLM's human_readable_int
/// reads it (vllm/engine/arg_utils.py): one lowercase letter is decimal (k m g t = 10^3 .. 10^12), one
/// uppercase letter binary (K M G T = 2^10 .. 2^40), and Ki Mi Gi Ti binary in any case ("32k" = 32,000;
/// "32K" = "32Ki" = 32,768; "1.5k" = 1,500). The result must be a whole number of tokens. Throws
/// kvplan::Error(field, reason) when not a positive integer: "must be positive" for 0 and "-0", "must be
/// positive, got '-5'" for a negative one, "unknown suffix 'x' (...)" for another suffix.
Tokens parse_tokens(std::string_view text, std::string_view field = "tokens");

/// Parses a positive integer count (layers, heads, users, tp ...): digits only, > 0, fits uint64.
std::uint64_t parse_count(std::string_view text, std::string_view field);

}  // namespace kvplan
