#include <catch2/catch.hpp>

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
