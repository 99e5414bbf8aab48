#include <catch2/catch.hpp>

#include "kvplan/units.hpp"

using namespace kvplan;

TEST_CASE("checked arithmetic detects overflow", "[units]") {
  CHECK(checked_mul(1ULL << 32, 1ULL << 31) == (1ULL << 63));
  CHECK_THROWS_AS(checked_mul(1ULL << 32, 1ULL << 32), Error);
  CHECK_THROWS_AS(checked_add(~0ULL, 1), Error);
  CHECK_THROWS_AS(Bytes{1ULL << 40} * (1ULL << 30), Error);
  CHECK_THROWS_AS(Bytes{1} - Bytes{2}, Error);
  CHECK((Bytes{3} + Bytes{4}).value == 7);
}

TEST_CASE("byte sizes parse exactly", "[units]") {
  CHECK(parse_bytes("131072").value == 131072);
  CHECK(parse_bytes("1GiB").value == 1073741824ULL);
  CHECK(parse_bytes("2 MiB").value == 2097152ULL);
  CHECK(parse_bytes("80GB").value == 80000000000ULL);
  CHECK(parse_bytes("1.5kb").value == 1500);
  // 6.51 GiB = 651 * 1,073,741,824 / 100 = 699,005,927,424 / 100 = 6,990,059,274.24 -> 6,990,059,274.
  CHECK(parse_bytes("6.51GiB").value == 6990059274ULL);
  CHECK_THROWS_AS(parse_bytes("-1GiB"), Error);
  CHECK_THROWS_AS(parse_bytes("12 parsecs"), Error);
  CHECK_THROWS_AS(parse_bytes(""), Error);
  CHECK_THROWS_AS(parse_bytes("1.5"), Error);  // a fraction of a byte
  CHECK_THROWS_AS(parse_bytes("99999999999TiB"), Error);
  CHECK_THROWS_AS(parse_bytes("abc"), Error);
}

TEST_CASE("a minus sign: -0 is zero, anything else negative", "[units]") {
  // Bytes may be 0 (--overhead 0): "-0" and "-0GiB" are 0 B; a negative size is refused as such.
  CHECK(parse_bytes("-0", "--overhead").value == 0);
  CHECK(parse_bytes("-0GiB", "--overhead").value == 0);
  CHECK_THROWS_WITH(parse_bytes("-1GiB", "--gpu-memory"), "--gpu-memory: must not be negative");
  // Tokens are positive: "-0" is 0, refused as 0 is; "-5" says what it got.
  CHECK_THROWS_WITH(parse_tokens("-0", "--context"), "--context: must be positive");
  CHECK_THROWS_WITH(parse_tokens("-5", "--context"), "--context: must be positive, got '-5'");
}

TEST_CASE("token counts and counts parse", "[units]") {
  CHECK(parse_tokens("4096").value == 4096);
  CHECK(parse_tokens("32k").value == 32000);
  CHECK(parse_tokens("128Ki").value == 131072);
  CHECK(parse_tokens("1.5k").value == 1500);
  CHECK_THROWS_AS(parse_tokens("0"), Error);
  CHECK_THROWS_AS(parse_tokens("1.0001k"), Error);
  CHECK_THROWS_AS(parse_tokens("-5"), Error);
  CHECK(parse_count("16", "--users") == 16);
  // A memory size: a plain number under 1 MiB is the slip "54" for 54 GiB; a unit or 0 or >= 2^20 passes.
  CHECK(parse_memory_size("54GiB", "kv") == Bytes{54ULL << 30});
  CHECK(parse_memory_size("0", "kv") == Bytes{0});
  CHECK(parse_memory_size("1048576", "kv") == Bytes{1ULL << 20});
  CHECK(parse_memory_size("512 B", "kv") == Bytes{512});  // a unit says bytes were meant
  CHECK_THROWS_WITH(parse_memory_size("54", "kv"),
                    "kv: '54' is 54 bytes (a plain number is bytes); give a unit, e.g. 54GiB");
  CHECK_THROWS_WITH(parse_memory_size(" 54. ", "kv"),
                    "kv: '54.' is 54 bytes (a plain number is bytes); give a unit, e.g. 54GiB");
  CHECK_THROWS_WITH(parse_memory_size("54,000", "kv"), Catch::StartsWith("kv: '54,000' is 54000 bytes"));
  // One leading '+', as parse_tokens takes "+5" for --context (and Python's int("+5") for vLLM's flags).
  CHECK(parse_count("+5", "--users") == 5);
  CHECK_THROWS_WITH(parse_count("++5", "--users"), "--users: must be a positive integer, got '++5'");
  CHECK_THROWS_WITH(parse_count("+", "--users"), "--users: must be a positive integer, got '+'");
  CHECK_THROWS_AS(parse_count("0", "--users"), Error);
  CHECK_THROWS_AS(parse_count("1.5", "--users"), Error);
  CHECK_THROWS_AS(parse_count("99999999999999999999", "--users"), Error);
  try {
    parse_count("-3", "--tp");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.field() == "--tp");
    CHECK(std::string(e.what()).find("--tp") == 0);
  }
}

TEST_CASE("token suffixes as vLLM's human_readable_int reads them", "[units]") {
  // vllm/engine/arg_utils.py human_readable_int: one lowercase letter is decimal, one uppercase letter
  // binary; kvplan's Ki Mi Gi Ti stay binary in any case.
  CHECK(parse_tokens("32k").value == 32000);    // 32 x 10^3
  CHECK(parse_tokens("32K").value == 32768);    // 32 x 2^10
  CHECK(parse_tokens("32Ki").value == 32768);   // 32 x 2^10
  CHECK(parse_tokens("32KI").value == 32768);   // the "i" says binary, whatever the case
  CHECK(parse_tokens("2m").value == 2000000);   // 2 x 10^6
  CHECK(parse_tokens("2M").value == 2097152);   // 2 x 2^20
  CHECK(parse_tokens("2mi").value == 2097152);  // 2 x 2^20
  CHECK(parse_tokens("1g").value == 1000000000ULL);
  CHECK(parse_tokens("1G").value == 1073741824ULL);  // 2^30
  CHECK(parse_tokens("1Gi").value == 1073741824ULL);
  CHECK(parse_tokens("3t").value == 3000000000000ULL);
  CHECK(parse_tokens("3T").value == 3298534883328ULL);  // 3 x 2^40 = 3 x 1,099,511,627,776
  CHECK(parse_tokens("25.6k").value == 25600);          // vLLM's own example
  CHECK(parse_tokens("1.5k").value == 1500);            // 1.5 x 1,000
  // A decimal with a binary suffix is refused, as human_readable_int refuses it: int("1.5") raises before
  // the multiplier ("Decimals are not allowed with binary suffixes like K"), whether or not the product
  // would be whole (1.5K = 1,536 was taken). kvplan's Ki Mi Gi Ti are binary too.
  for (const char* bad : {"1.5K", "0.5M", "1.1K", "2.0G", "1.5Ki", "0.5mi", "32.K"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_tokens(bad, "--context"),
                      Catch::StartsWith(std::string("--context: '") + bad +
                                        "': decimals are not allowed with binary suffixes like "));
  }
  // A plain number is an integer: int("8192.0") raises in human_readable_int.
  CHECK_THROWS_WITH(parse_tokens("8192.0", "--context"),
                    Catch::StartsWith("--context: '8192.0': a count without a suffix is a whole number"));
  // A fraction of a token is refused, not rounded (vLLM truncates 1.0001k to 1,000).
  CHECK_THROWS_WITH(parse_tokens("1.0001k", "--context"), "--context: must be a whole number of tokens");
  // 30 decimals times 10^12: the exactness check must not overflow 128 bits.
  CHECK(parse_tokens("1.000000000000000000000000000000t").value == 1000000000000ULL);
  CHECK_THROWS_WITH(parse_tokens("1.000000000000000000000000000001t", "--context"),
                    "--context: must be a whole number of tokens");
  for (const char* bad : {"32kb", "32KiB", "32x", "32kk", "32Kii", "32iK", "32 ki b"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_tokens(bad, "--context"), Catch::StartsWith("--context: unknown suffix '"));
  }
  // 2^24 x 2^40 = 2^64: one past the largest count.
  CHECK(parse_tokens("16777215T").value == 18446742974197923840ULL);  // 2^64 - 2^40
  CHECK_THROWS_WITH(parse_tokens("16777216T", "--context"), "--context: overflows 64-bit arithmetic");
}

TEST_CASE("thousands separators: grouped by three, or an error", "[units]") {
  // What the GUI shows ("131,072") is what the CLI takes; a misplaced separator is never read as
  // another number.
  CHECK(parse_tokens("131,072").value == 131072);
  CHECK(parse_tokens("1,000k").value == 1000000);
  CHECK(parse_count("1,000", "users") == 1000);
  CHECK(parse_count("12,345,678", "users") == 12345678);
  CHECK(parse_bytes("1,024GiB").value == 1024ULL << 30);
  CHECK(parse_bytes("80,000,000,000").value == 80000000000ULL);
  for (const char* bad : {"4,09", "40,96", ",096", "1,0000", "1,,000", "1234,567", "1,000,"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_tokens(bad, "--context"),
                      Catch::StartsWith("--context: '") && Catch::Contains("misplaced thousands separator"));
    CHECK_THROWS_WITH(parse_count(bad, "--users"), Catch::Contains("misplaced thousands separator"));
  }
}
