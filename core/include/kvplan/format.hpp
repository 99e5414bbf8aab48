#pragma once
/// @file format.hpp
/// The one formatting module for humans, shared by the CLI and the GUI.

#include <cstdint>
#include <string>

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

}  // namespace kvplan
