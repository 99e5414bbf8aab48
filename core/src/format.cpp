#include "kvplan/format.hpp"

#include <array>
#include <charconv>
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

}  // namespace kvplan
