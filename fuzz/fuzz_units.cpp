// The size and token parsers (parse_bytes, parse_tokens, parse_count) and the human formatting of
// byte counts, on fuzzed text. Besides "no crash, one-line errors", each accepted value is held
// against an independent long double evaluation of the same text, so a wrong number is a finding.
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "fuzz_support.hpp"
#include "kvplan/format.hpp"
#include "kvplan/units.hpp"

using namespace kvplan;

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// The digits of a whole part written with thousands separators, as units.hpp documents them: groups of
/// three after a first group of one to three ("131,072", "1,024"); nullopt when a comma is misplaced
/// ("4,09", ",5", "5,"). Without a comma, the digits as they are.
std::optional<std::string> ungrouped(std::string_view whole) {
  if (whole.find(',') == std::string_view::npos) return std::string(whole);
  std::string out;
  std::size_t group = 0, groups = 0;
  for (std::size_t i = 0; i <= whole.size(); ++i) {
    if (i == whole.size() || whole[i] == ',') {
      const bool ok = groups == 0 ? group >= 1 && group <= 3 : group == 3;
      if (!ok) return std::nullopt;
      ++groups;
      group = 0;
      continue;
    }
    out += whole[i];
    ++group;
  }
  return out;
}

/// "12.5 GiB" -> (12.5, "gib"): the number as long double and the lower-case suffix; nullopt when
/// the text is not [+|-]digits[.digits] followed by a suffix, the whole part optionally grouped by
/// thousands separators. A '-' is kept only on zero ("-0" is 0, units.hpp); on any other value
/// nullopt: the parsers must refuse it.
struct Reference {
  long double value = 0;
  std::string suffix;
  std::string raw_suffix;  // as typed: a token count's single-letter suffix is case-sensitive
  bool fraction = false;   // a non-zero digit after the point
};
std::optional<Reference> reference(std::string_view text) {
  text = trim(text);
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) != 0 || text[i] == ',')) ++i;
  const auto whole = ungrouped(text.substr(0, i));
  if (!whole) return std::nullopt;
  std::string number = *whole;
  bool digit = !number.empty();
  Reference r;
  if (i < text.size() && text[i] == '.') {
    number += '.';
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0; ++i) {
      digit = true;
      if (text[i] != '0') r.fraction = true;
      number += text[i];
    }
  }
  if (!digit) return std::nullopt;
  r.value = std::strtold(number.c_str(), nullptr);
  if (negative && r.value != 0) return std::nullopt;
  r.raw_suffix = std::string(trim(text.substr(i)));
  r.suffix = lower(r.raw_suffix);
  return r;
}

/// |got - want| within rounding: floor() of the exact value, and long double's own error.
bool close(std::uint64_t got, long double want) {
  const long double g = static_cast<long double>(got);
  const long double tol = 1.0L + std::fabs(want) * 1e-15L;
  return std::fabs(g - want) <= tol;
}

void check_bytes(std::string_view text) {
  const auto ref = reference(text);
  Bytes b;
  try {
    b = parse_bytes(text, "--gpu-memory");
  } catch (const Error& e) {
    fuzz::check_error(e);
    return;
  }
  fuzz::check(ref.has_value(), "parse_bytes accepted '" + std::string(text) + "'");
  const std::string& u = ref->suffix;
  const long double unit = u.empty() || u == "b" ? 1.0L
                           : u == "kb"           ? 1e3L
                           : u == "mb"           ? 1e6L
                           : u == "gb"           ? 1e9L
                           : u == "tb"           ? 1e12L
                           : u == "kib"          ? 1024.0L
                           : u == "mib"          ? 1048576.0L
                           : u == "gib"          ? 1073741824.0L
                           : u == "tib"          ? 1099511627776.0L
                                                 : -1.0L;
  fuzz::check(unit > 0, "parse_bytes accepted the unit '" + u + "'");
  fuzz::check(unit != 1.0L || !ref->fraction, "parse_bytes accepted fractional bytes: " + std::string(text));
  fuzz::check(close(b.value, std::floor(ref->value * unit)),
              "parse_bytes('" + std::string(text) + "') = " + std::to_string(b.value));
  // The plain integer it printed reads back the same.
  fuzz::check(parse_bytes(std::to_string(b.value), "x") == b, "bytes do not round-trip");
}

void check_tokens(std::string_view text) {
  const auto ref = reference(text);
  Tokens t;
  try {
    t = parse_tokens(text, "--context");
  } catch (const Error& e) {
    fuzz::check_error(e);
    return;
  }
  fuzz::check(ref.has_value(), "parse_tokens accepted '" + std::string(text) + "'");
  // vLLM's human_readable_int: one lowercase letter decimal, one uppercase letter binary; "Ki" ... binary.
  const std::string& u = ref->suffix;
  const std::string& raw = ref->raw_suffix;
  const long double unit = u.empty()                 ? 1.0L
                           : raw == "k"              ? 1e3L
                           : raw == "m"              ? 1e6L
                           : raw == "g"              ? 1e9L
                           : raw == "t"              ? 1e12L
                           : raw == "K" || u == "ki" ? 1024.0L
                           : raw == "M" || u == "mi" ? 1048576.0L
                           : raw == "G" || u == "gi" ? 1073741824.0L
                           : raw == "T" || u == "ti" ? 1099511627776.0L
                                                     : -1.0L;
  fuzz::check(unit > 0, "parse_tokens accepted the suffix '" + u + "'");
  fuzz::check(t.value > 0, "parse_tokens accepted zero");
  // Whole tokens only: the value times the unit has no fraction.
  fuzz::check(close(t.value, ref->value * unit),
              "parse_tokens('" + std::string(text) + "') = " + std::to_string(t.value));
}

void check_count(std::string_view text) {
  std::uint64_t n = 0;
  try {
    n = parse_count(text, "--users");
  } catch (const Error& e) {
    fuzz::check_error(e);
    return;
  }
  // Digits only, optionally grouped by thousands separators (units.hpp), after at most one leading '+'
  // (units.cpp parse_count, as Python's int("+5") takes it).
  std::string_view body = trim(text);
  if (body.size() > 1 && body.front() == '+') body.remove_prefix(1);
  const auto digits = ungrouped(body);
  fuzz::check(digits.has_value(), "parse_count took a misplaced separator: '" + std::string(text) + "'");
  const std::string_view t = *digits;
  for (const char c : t)
    fuzz::check(std::isdigit(static_cast<unsigned char>(c)) != 0, "parse_count took a non-digit");
  fuzz::check(n > 0, "parse_count accepted zero");
  fuzz::check(std::to_string(n) == std::string(t.substr(std::min(t.find_first_not_of('0'), t.size()))),
              "parse_count('" + std::string(text) + "') = " + std::to_string(n));
}

void check_format(std::uint64_t v) {
  // format_count: the digits with a comma every three.
  std::string digits;
  for (const char c : format_count(v))
    if (c != ',') digits += c;
  fuzz::check(digits == std::to_string(v), "format_count(" + std::to_string(v) + ")");
  for (const auto units : {UnitSystem::iec, UnitSystem::si}) {
    const std::string s = format_bytes(Bytes{v}, units);
    // Three significant digits: the shown figure is within 0.5% (and rounding) of the value.
    const auto sp = s.find(' ');
    fuzz::check(sp != std::string::npos, "format_bytes without a unit: " + s);
    const long double shown = std::strtold(s.substr(0, sp).c_str(), nullptr);
    const std::string unit = s.substr(sp + 1);
    const char* iec[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    const char* si[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    long double scale = 1;
    bool found = false;
    for (int i = 0; i < 7 && !found; ++i) {
      if (unit == (units == UnitSystem::iec ? iec[i] : si[i])) {
        found = true;
      } else {
        scale *= units == UnitSystem::iec ? 1024.0L : 1000.0L;
      }
    }
    fuzz::check(found, "format_bytes with an unknown unit: " + s);
    const long double back = shown * scale, want = static_cast<long double>(v);
    fuzz::check(std::fabs(back - want) <= want * 0.0051L + 0.5L,
                "format_bytes(" + std::to_string(v) + ") = " + s);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check_bytes(text);
  check_tokens(text);
  check_count(text);
  if (size >= 8) {
    std::uint64_t v = 0;
    std::memcpy(&v, data, sizeof v);
    check_format(v);
  }
  return 0;
}
