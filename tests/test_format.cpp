#include <catch2/catch.hpp>

#include <cstdlib>
#include <limits>

#include "kvplan/error.hpp"
#include "kvplan/format.hpp"

using namespace kvplan;

TEST_CASE("human formatting", "[format]") {
  CHECK(format_count(0) == "0");
  CHECK(format_count(999) == "999");
  CHECK(format_count(131072) == "131,072");
  CHECK(format_count(85520809984ULL) == "85,520,809,984");
  CHECK(format_bytes_exact(Bytes{131072}) == "131,072 B");
  CHECK(format_bytes(Bytes{512}, UnitSystem::iec) == "512 B");
  CHECK(format_bytes(Bytes{1342177280}, UnitSystem::iec) == "1.25 GiB");  // 1.25 * 2^30
  // The lesson's figures in SI: 2,621,440 B = 2.62 MB; 10,737,418,240 B = 10.7 GB; 1,342,177,280 B = 1.34 GB.
  CHECK(format_bytes(Bytes{2621440}, UnitSystem::si) == "2.62 MB");
  CHECK(format_bytes(Bytes{10737418240ULL}, UnitSystem::si) == "10.7 GB");
  CHECK(format_bytes(Bytes{1342177280}, UnitSystem::si) == "1.34 GB");
  CHECK(format_bytes(Bytes{327680}, UnitSystem::iec) == "320 KiB");
  CHECK(format_bytes(Bytes{999999}, UnitSystem::si) == "1.00 MB");  // rounding carries into the next unit
  CHECK(format_fixed(1.3, 2) == "1.30");
}

TEST_CASE("counts with their noun, durations in a unit that keeps them short", "[format]") {
  CHECK(format_count(1, "user", "users") == "1 user");
  CHECK(format_count(0, "user", "users") == "0 users");
  CHECK(format_count(4294967296ULL, "user", "users") == "4,294,967,296 users");
  CHECK(format_seconds(0.0214) == "21.4 ms");
  CHECK(format_seconds(3.05) == "3.05 s");
  CHECK(format_seconds(0.99996) == "1.00 s");  // not "1000.0 ms"
  CHECK(format_seconds(59.996) == "1.0 min");  // 0.99993 min, not "60.00 s"
  CHECK(format_seconds(750) == "12.5 min");    // 750 / 60
  CHECK(format_seconds(11520) == "3.2 h");     // 3 h 12 min = 11,520 s
  CHECK(format_seconds(41.7 * 86400) == "41.7 days");
  // 10^12 s / (365.25 x 86,400 s) = 31,688.1 years
  CHECK(format_seconds(1e12) == "3.2e+04 years");
  CHECK(format_seconds(-1.0) == "?");
  CHECK(format_seconds(std::numeric_limits<double>::quiet_NaN()) == "?");
  CHECK(format_seconds(std::numeric_limits<double>::infinity()) == "?");
}

TEST_CASE("printable escapes what a terminal would obey", "[format]") {
  CHECK(printable("Llama 3.1 8B") == "Llama 3.1 8B");
  CHECK(printable("a\x1b[31mb") == "a\\x1b[31mb");
  CHECK(printable("two\nlines\r\t") == "two\\nlines\\r\\t");
  CHECK(printable("del\x7f") == "del\\x7f");
  // U+009B (CSI) as UTF-8 is C2 9B; U+00E9 (C3 A9) stays.
  CHECK(printable("\xc2\x9b"
                  "2J caf\xc3\xa9") == "\\u009b2J caf\xc3\xa9");
  // Bidirectional controls (Trojan Source) and line separators: U+202E is E2 80 AE, U+2066 E2 81 A6,
  // U+061C D8 9C, U+2028 E2 80 A8. Their neighbours U+2027 (E2 80 A7) and U+2070 (E2 81 B0) stay, as does
  // Arabic text (U+0627, D8 A7).
  CHECK(printable("gpt\xe2\x80\xae"
                  "4o") == "gpt\\u202e4o");
  CHECK(printable("a\xe2\x81\xa6"
                  "b\xe2\x81\xa9"
                  "c\xd8\x9c\xe2\x80\xa8") == "a\\u2066b\\u2069c\\u061c\\u2028");
  CHECK(printable("\xe2\x80\xa7\xe2\x81\xb0\xd8\xa7") == "\xe2\x80\xa7\xe2\x81\xb0\xd8\xa7");
  CHECK(printable(std::string("nul\0x", 5)) == "nul\\x00x");
  // Bytes that are not well-formed UTF-8 (Unicode 15, Table 3-7): 0xFF and 0xC0 never occur, 0x80 alone is
  // a continuation byte, E0 80 AF an overlong '/', ED A0 80 a surrogate, F4 90 80 80 past U+10FFFF, and
  // E2 82 cut short. Well-formed 2-, 3- and 4-byte characters (U+00E9, U+20AC, U+1F600) stay.
  CHECK(printable("key\xff\xc0z") == "key\\xff\\xc0z");
  CHECK(printable("\x80"
                  "a") == "\\x80a");
  CHECK(printable("\xe0\x80\xaf") == "\\xe0\\x80\\xaf");
  CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");
  CHECK(printable("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");
  CHECK(printable("\xe2\x82") == "\\xe2\\x82");
  CHECK(printable("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80") == "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  // Error messages go through the same escaping.
  CHECK(std::string(Error("name", "x\xe2\x80\xaey\x1b").what()) == "name: x\\u202ey\\x1b");
}

TEST_CASE("format_shortest: the shortest decimal that reads back as the same double", "[format]") {
  // std::to_chars's shortest form: the fewest significant digits that round-trip, fixed or scientific
  // (two exponent digits at least), whichever is shorter ("0.0000001" is 9 characters, "1e-07" 5).
  CHECK(format_shortest(0.5) == "0.5");
  CHECK(format_shortest(4.0) == "4");
  CHECK(format_shortest(40.0) == "40");
  CHECK(format_shortest(0.9) == "0.9");
  CHECK(format_shortest(1e-7) == "1e-07");
  CHECK(format_shortest(1e300) == "1e+300");
  // 1/3 needs 16 significant digits (0.3333333333333333); it reads back as the same double.
  const double third = 1.0 / 3.0;
  CHECK(format_shortest(third) == "0.3333333333333333");
  CHECK(std::strtod(format_shortest(third).c_str(), nullptr) == third);
  for (const double v : {0.5, 4.0, 40.0, 0.9, 1e-7, 0.1 + 0.2, 2.2250738585072014e-308})
    CHECK(std::strtod(format_shortest(v).c_str(), nullptr) == v);
}

TEST_CASE("utf8_char_start: a cut never splits a character", "[format]") {
  // "a" is one byte; "é" is C3 A9; "€" is E2 82 AC: "aé€" is 61 C3 A9 E2 82 AC.
  const std::string s = "a\xc3\xa9\xe2\x82\xac";
  CHECK(utf8_char_start(s, 0) == 0);
  CHECK(utf8_char_start(s, 1) == 1);  // the lead byte of é
  CHECK(utf8_char_start(s, 2) == 1);  // A9 continues é
  CHECK(utf8_char_start(s, 3) == 3);  // the lead byte of €
  CHECK(utf8_char_start(s, 5) == 3);  // AC continues €
  CHECK(utf8_char_start(s, 6) == 6);  // the end
  CHECK(utf8_char_start(s, 100) == 6);
}
