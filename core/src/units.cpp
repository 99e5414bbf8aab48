#include "kvplan/units.hpp"

#include <cctype>
#include <string>

namespace kvplan {

namespace {
__extension__ typedef unsigned __int128 u128;

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

/// Splits "12.5GiB" into a decimal mantissa (digits, scale) and a suffix; exact.
struct Decimal {
  u128 digits = 0;     // all digits as an integer
  unsigned scale = 0;  // number of digits after the point
  std::string_view suffix;
  bool negative = false;  // a leading '-': the caller's rule decides (-0 is zero, not negative)
};

/// The text without its thousands separators: "131,072" -> "131072", "1,024.5GiB" -> "1024.5GiB" (what
/// the GUI shows, and a user copies). The separators must group the whole part's digits by three: the
/// first group 1-3 digits, every other exactly 3 ("4,09" and "40,96" are refused, not read as 409 or
/// 4096). Text without a comma is returned unchanged.
std::string without_separators(std::string_view text, std::string_view field) {
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == ',' ||
                               ((text[end] == '-' || text[end] == '+') && end == 0)))
    ++end;
  const std::string_view number = text.substr(0, end);
  if (number.find(',') == std::string_view::npos) return std::string(text);
  std::size_t start = number.find_first_not_of("+-");
  std::string out(number.substr(0, start));
  std::size_t group = 0;
  bool first = true;
  for (std::size_t i = start; i <= number.size(); ++i) {
    if (i == number.size() || number[i] == ',') {
      if ((first && (group == 0 || group > 3)) || (!first && group != 3))
        throw Error(std::string(field),
                    "'" + std::string(text) + "' has a misplaced thousands separator (131,072 or 131072)");
      first = false;
      group = 0;
      continue;
    }
    out += number[i];
    ++group;
  }
  return out + std::string(text.substr(end));
}

Decimal parse_decimal(std::string_view text, std::string_view field) {
  const std::string f(field);
  text = trim(text);
  if (text.empty()) throw Error(f, "is empty");
  Decimal d;
  if (text.front() == '-') {
    d.negative = true;
    text.remove_prefix(1);
  } else if (text.front() == '+') {
    text.remove_prefix(1);
  }
  std::size_t i = 0;
  bool any = false, point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.' && !point) {
      point = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    any = true;
    if (d.digits > (std::numeric_limits<u128>::max() - 9) / 10 || d.scale > 30)
      throw Error(f, "'" + std::string(text) + "' has too many digits");
    d.digits = d.digits * 10 + static_cast<unsigned>(c - '0');
    if (point) ++d.scale;
  }
  if (!any) throw Error(f, "'" + std::string(text) + "' is not a number");
  d.suffix = trim(text.substr(i));
  return d;
}

std::uint64_t to_u64(u128 v, std::string_view field) {
  if (v > std::numeric_limits<std::uint64_t>::max())
    throw Error(std::string(field), "overflows 64-bit arithmetic");
  return static_cast<std::uint64_t>(v);
}

u128 pow10(unsigned n) {
  u128 r = 1;
  while (n-- > 0) r *= 10;
  return r;
}

/// floor(a * b / d) for a < d < 2^126, exact although a * b may not fit 128 bits (binary long
/// multiplication keeping the remainder below d).
u128 mul_div_floor(u128 a, std::uint64_t b, u128 d) {
  u128 q = 0, r = 0;
  for (int bit = 63; bit >= 0; --bit) {
    q <<= 1;
    r <<= 1;
    if (r >= d) r -= d, ++q;
    if (((b >> bit) & 1U) != 0) {
      r += a;
      if (r >= d) r -= d, ++q;
    }
  }
  return q;
}

/// (a * b) mod d for a < d < 2^126, exact although a * b may not fit 128 bits (2^40 times 30 decimals).
u128 mul_mod(u128 a, std::uint64_t b, u128 d) {
  u128 r = 0;
  for (int bit = 63; bit >= 0; --bit) {
    r <<= 1;
    if (r >= d) r -= d;
    if (((b >> bit) & 1U) != 0) {
      r += a;
      if (r >= d) r -= d;
    }
  }
  return r;
}

/// floor(digits * unit / 10^scale), checked.
std::uint64_t scaled(const Decimal& d, std::uint64_t unit, std::string_view field) {
  const u128 den = pow10(d.scale);
  // digits < 10^31 and unit <= 2^40: the fraction's product can exceed 128 bits (30 decimals of GiB).
  const u128 whole = d.digits / den, frac = d.digits % den;
  // The result must fit 64 bits, so whole * unit must: checking that also keeps the sum below 2^128.
  if (whole > std::numeric_limits<std::uint64_t>::max() / unit)
    throw Error(std::string(field), "overflows 64-bit arithmetic");
  const u128 v = whole * unit + mul_div_floor(frac, unit, den);
  return to_u64(v, field);
}

/// The multiplier of a token count's suffix, as vLLM's human_readable_int reads it
/// (vllm/engine/arg_utils.py): one lowercase letter is decimal (k m g t = 10^3 .. 10^12), one uppercase
/// letter is binary (K M G T = 2^10 .. 2^40), and a letter with "i" is binary in any case (Ki Mi Gi Ti). Case
/// matters for the single letters only: "32k" is 32,000 and "32K" 32,768, as vLLM's --max-model-len takes
/// them.
std::uint64_t token_unit(std::string_view suffix, std::string_view field) {
  if (suffix.empty()) return 1;
  static constexpr std::string_view kLetters = "kmgt";
  const auto letter = [&](char c) {
    return kLetters.find(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  };
  if (suffix.size() == 1 && letter(suffix[0]) != std::string_view::npos) {
    const std::size_t power = letter(suffix[0]) + 1;  // k: 1, m: 2, g: 3, t: 4
    const bool binary = std::isupper(static_cast<unsigned char>(suffix[0])) != 0;
    std::uint64_t unit = 1;
    for (std::size_t i = 0; i < power; ++i) unit *= binary ? 1024 : 1000;
    return unit;
  }
  if (suffix.size() == 2 && letter(suffix[0]) != std::string_view::npos &&
      (suffix[1] == 'i' || suffix[1] == 'I'))
    return std::uint64_t{1} << (10 * (letter(suffix[0]) + 1));
  throw Error(std::string(field),
              "unknown suffix '" + std::string(suffix) +
                  "' (k m g t = 10^3 10^6 10^9 10^12; K M G T or Ki Mi Gi Ti = 2^10 2^20 2^30 2^40)");
}
}  // namespace

void throw_overflow(std::string_view field) {
  throw Error(std::string(field), "overflows 64-bit arithmetic");
}

Bytes parse_bytes(std::string_view text, std::string_view field) {
  const std::string plain = without_separators(trim(text), field);
  const Decimal d = parse_decimal(plain, field);
  if (d.negative && d.digits != 0) throw Error(std::string(field), "must not be negative");
  const std::string u = lower(d.suffix);
  std::uint64_t unit = 0;
  if (u.empty() || u == "b")
    unit = 1;
  else if (u == "kb")
    unit = 1000ULL;
  else if (u == "mb")
    unit = 1000ULL * 1000;
  else if (u == "gb")
    unit = 1000ULL * 1000 * 1000;
  else if (u == "tb")
    unit = 1000ULL * 1000 * 1000 * 1000;
  else if (u == "kib")
    unit = 1ULL << 10;
  else if (u == "mib")
    unit = 1ULL << 20;
  else if (u == "gib")
    unit = 1ULL << 30;
  else if (u == "tib")
    unit = 1ULL << 40;
  else
    throw Error(std::string(field),
                "unknown unit '" + std::string(d.suffix) + "' (use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB)");
  if (unit == 1 && d.scale != 0 && d.digits % pow10(d.scale) != 0)
    throw Error(std::string(field), "a plain number of bytes must be a whole number");
  return Bytes{scaled(d, unit, field)};
}

Bytes parse_memory_size(std::string_view text, std::string_view field) {
  const Bytes b = parse_bytes(text, field);
  const std::string shown(trim(text));
  // The unit as parse_bytes read it: none is a plain number ("54", "54.", "54,000").
  const bool plain = parse_decimal(without_separators(shown, field), field).suffix.empty();
  if (plain && b != Bytes{0} && b < Bytes{std::uint64_t{1} << 20})
    throw Error(std::string(field), "'" + shown + "' is " + std::to_string(b.value) +
                                        " bytes (a plain number is bytes); give a unit, e.g. " +
                                        shown.substr(0, shown.find_last_not_of('.') + 1) + "GiB");
  return b;
}

Tokens parse_tokens(std::string_view text, std::string_view field) {
  const std::string plain = without_separators(trim(text), field);
  const Decimal d = parse_decimal(plain, field);
  // A token count is positive: "-5" says so, as parse_count does; "-0" is 0, refused below.
  if (d.negative && d.digits != 0)
    throw Error(std::string(field), "must be positive, got '" + std::string(trim(text)) + "'");
  const std::uint64_t unit = token_unit(d.suffix, field);
  // vLLM's human_readable_int (vllm/engine/arg_utils.py; later vllm/utils/argparse_utils.py) takes a
  // decimal only with a decimal suffix (25.6k): int(number) refuses "1.5" before a binary one ("Decimals
  // are not allowed with binary suffixes like K"), and int(value) a plain "8192.0".
  if (plain.find('.') != std::string::npos) {
    const std::string shown(trim(text));
    if (d.suffix.empty())
      throw Error(std::string(field), "'" + shown +
                                          "': a count without a suffix is a whole number (decimals go with "
                                          "k m g t only, as vLLM's human_readable_int reads them)");
    if (d.suffix.size() == 2 || std::isupper(static_cast<unsigned char>(d.suffix[0])) != 0)
      throw Error(std::string(field),
                  "'" + shown + "': decimals are not allowed with binary suffixes like " +
                      std::string(d.suffix) +
                      " (vLLM's human_readable_int): a decimal suffix (k m g t) takes them");
  }
  if (mul_mod(d.digits % pow10(d.scale), unit, pow10(d.scale)) != 0)
    throw Error(std::string(field), "must be a whole number of tokens");
  const std::uint64_t v = scaled(d, unit, field);
  if (v == 0) throw Error(std::string(field), "must be positive");
  return Tokens{v};
}

std::uint64_t parse_count(std::string_view text, std::string_view field) {
  const std::string f(field);
  const std::string plain = without_separators(trim(text), field);
  std::string_view t = plain;
  if (t.empty()) throw Error(f, "is empty");
  if (t.front() == '-') throw Error(f, "must be positive, got '" + std::string(t) + "'");
  // One leading '+', as parse_tokens (parse_decimal) and the engines' own parsers take it (Python's
  // int("+5"), argparse type=int; llama.cpp's std::stoi).
  if (t.size() > 1 && t.front() == '+') t.remove_prefix(1);
  u128 v = 0;
  for (const char c : t) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      throw Error(f, "must be a positive integer, got '" + plain + "'");
    v = v * 10 + static_cast<unsigned>(c - '0');
    if (v > std::numeric_limits<std::uint64_t>::max()) throw Error(f, "overflows 64-bit arithmetic");
  }
  if (v == 0) throw Error(f, "must be positive, got 0");
  return static_cast<std::uint64_t>(v);
}

}  // namespace kvplan
