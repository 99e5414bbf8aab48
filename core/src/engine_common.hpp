#pragma once
// Helpers shared by the engine policies (private to core).
#include <functional>
#include <string>
#include <string_view>

#include "kvplan/engine.hpp"

namespace kvplan::engine_detail {

/// The largest x in [1, hi] with fits(x), for a monotone predicate; 0 when fits(1) fails.
std::uint64_t largest_fitting(std::uint64_t hi, const std::function<bool(std::uint64_t)>& fits);
/// Every attention layer is sliding or chunked (no full or MLA layer).
bool has_windowed_only(const ModelSpec& m);
/// Some layer is Mamba or linear attention.
bool has_recurrent(const ModelSpec& m);
/// Throws kvplan::Error("--kv-dtype", ...) for KV types the engine lacks (block types unless allowed).
void require_plain_dtypes(const KvDtypes& t, std::string_view engine, bool allow_block_types);
/// a / b where b is a figure of the model (a page, a cell, a block): throws kvplan::Error(field,
/// "is 0 B ...") instead of dividing by zero.
std::uint64_t divide(std::uint64_t a, std::uint64_t b, std::string_view field);
/// "42,656".
std::string tokens_str(std::uint64_t n);

}  // namespace kvplan::engine_detail
