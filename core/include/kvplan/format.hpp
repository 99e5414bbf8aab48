#pragma once
/// @file format.hpp
/// The one formatting module for humans, shared by the CLI and the GUI.

#include <cstdint>
#include <string>
#include <string_view>

#include "kvplan/units.hpp"

namespace kvplan {

/// "131,072": an integer with thousands separators.
std::string format_count(std::uint64_t n);

/// A byte figure with three significant digits and its unit: IEC ("1.25 GiB", "320 KiB") or
/// SI ("2.62 MB", "10.7 GB"); below 1 KiB / 1 kB: "512 B".
std::string format_bytes(Bytes b, UnitSystem units);

/// "131,072 B": the exact integer.
std::string format_bytes_exact(Bytes b);

/// A double with `decimals` decimals ("1.30").
std::string format_fixed(double v, int decimals);

/// The shortest decimal text that reads back as exactly `v` ("0.5", "4", "40", "1e-07",
/// "0.3333333333333333"): std::to_chars without a format, so strtod (the CLI's flag parser) and
/// nlohmann_json read the same double back. "nan", "inf", "-inf" for the non-finite values.
std::string format_shortest(double v);

/// "1 user", "16 users": format_count(n) and the noun, singular for exactly one.
std::string format_count(std::uint64_t n, std::string_view one, std::string_view many);

/// A duration in the unit that keeps it short: "21.4 ms" below 1 s, "3.05 s" below a minute, then
/// "12.5 min", "3.2 h", "41.7 days", "1.3e+03 years" (365.25 days); "?" for a negative or non-finite
/// value. For TPOT and TTFT figures, which reach years at billions of users.
std::string format_seconds(double s);

/// Text from a file or a flag (a model's name, an id, a path) made safe for a terminal: C0 controls
/// as \n, \r, \t or \xNN, DEL as \x7f, the C1 controls U+0080..U+009F (UTF-8 C2 80..C2 9F) as
/// \u0080..\u009f, and the characters that reorder or break a line without showing (the bidirectional
/// controls U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069 of Unicode UAX #9, and the line and
/// paragraph separators U+2028, U+2029) as \u061c .. \u2069, and a byte that is not well-formed UTF-8
/// as \xNN, so that no escape sequence from a file reaches the terminal, no name displays as other text
/// (CVE-2021-42574, "Trojan Source"), no invalid UTF-8 reaches a terminal or a JSON string, and a line
/// stays one.
std::string printable(std::string_view text);

/// The start of the UTF-8 character at byte `at` of `text` (at itself, or the lead byte before its
/// continuation bytes); `at` past the end is the end. For cutting text without splitting a character.
std::size_t utf8_char_start(std::string_view text, std::size_t at);

}  // namespace kvplan
