#include "kvplan/format.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

namespace kvplan {

std::string format_count(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_shortest(double v) {
  char buf[32];  // the longest shortest double, "-2.2250738585072014e-308", is 24 characters
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string format_fixed(double v, int decimals) {
  // std::to_chars gives printf's "%.*f" (C locale, correctly rounded) without its cost: engine log lines
  // are formatted on every plan. Past the buffer (|v| >= 1e63), printf's, cut as before.
  std::array<char, 64> buf{};
  const auto r =
      std::to_chars(buf.data(), buf.data() + buf.size() - 1, v, std::chars_format::fixed, decimals);
  if (r.ec == std::errc{}) return std::string(buf.data(), r.ptr);
  std::snprintf(buf.data(), buf.size(), "%.*f", decimals, v);
  return buf.data();
}

std::string format_count(std::uint64_t n, std::string_view one, std::string_view many) {
  return format_count(n) + " " + std::string(n == 1 ? one : many);
}

std::string format_seconds(double s) {
  if (!(s >= 0.0) || !std::isfinite(s)) return "?";
  constexpr double minute = 60.0, hour = 3600.0, day = 86400.0, year = 365.25 * day;
  // Each unit below the value that would print as the next one ("60.0 s" is "1.0 min").
  if (s < 0.99995) return format_fixed(s * 1e3, 1) + " ms";
  if (s < 59.995) return format_fixed(s, 2) + " s";
  if (s < 59.95 * minute) return format_fixed(s / minute, 1) + " min";
  if (s < 23.95 * hour) return format_fixed(s / hour, 1) + " h";
  if (s < 364.95 * day) return format_fixed(s / day, 1) + " days";
  if (s < 999.95 * year) return format_fixed(s / year, 1) + " years";
  std::array<char, 32> buf{};
  std::snprintf(buf.data(), buf.size(), "%.1e years", s / year);
  return buf.data();
}

std::string format_bytes(Bytes b, UnitSystem units) {
  static constexpr std::array<const char*, 7> iec{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  static constexpr std::array<const char*, 7> si{"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  const double base = units == UnitSystem::iec ? 1024.0 : 1000.0;
  const auto& names = units == UnitSystem::iec ? iec : si;
  if (static_cast<double>(b.value) < base) return std::to_string(b.value) + " B";
  double v = static_cast<double>(b.value);
  std::size_t u = 0;
  while (v >= base && u + 1 < names.size()) {
    v /= base;
    ++u;
  }
  // Three significant digits; rounding can carry into the next unit (999.5 kB -> 1.00 MB).
  int decimals = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
  if (decimals == 0 && v >= 999.5 && u + 1 < names.size()) {
    v /= base;
    ++u;
    decimals = 2;
  }
  return format_fixed(v, decimals) + " " + names[u];
}

std::string format_bytes_exact(Bytes b) { return format_count(b.value) + " B"; }

}  // namespace kvplan

namespace kvplan {

std::string printable(std::string_view text) { return detail::one_line(text); }

std::size_t utf8_char_start(std::string_view text, std::size_t at) {
  if (at >= text.size()) return text.size();
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xc0) == 0x80) --at;  // a continuation byte
  return at;
}

}  // namespace kvplan
