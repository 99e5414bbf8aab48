#pragma once
// Rendering of core results: human tables (fmt) and JSON (nlohmann). No figure is computed here.

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kvplan/engine_log.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/prefill.hpp"
#include "kvplan/variants.hpp"

namespace kvplan::cli {

/// Writes `s` to standard output as it is (main's finish_output checks that every write got there).
void print(const std::string& s);
/// Indented JSON; bytes that are not UTF-8 (a file name's) become U+FFFD instead of an exception.
std::string dump(const nlohmann::json& j);
/// "  (user) PATH" after a preset from a user folder; nothing after a built-in one.
std::string user_mark(bool user, const std::filesystem::path& path);

nlohmann::json plan_json(const Plan& p);
std::string plan_text(const Plan& p, UnitSystem u);
/// --from-log's figures: the engine, its version, the KV memory and tokens it logged, the lines read.
nlohmann::json log_json(const presets::EngineLogFigures& f);
/// The same for people, beside the plan's own token count.
std::string log_text(const presets::EngineLogFigures& f, const Plan& p, UnitSystem u);

nlohmann::json layout_json(const Plan& p);
std::string layout_text(const Plan& p, UnitSystem u);

/// `compare`'s object and table; `streaming`: the cap the last row (streaming_label) was planned with,
/// stated with the rows (the others are uncapped).
nlohmann::json compare_json(const ModelSpec& m, const KvDtypes& t, Tokens context,
                            const std::vector<VariantFigures>& rows,
                            const std::optional<StreamingCap>& streaming = std::nullopt);
std::string compare_text(const ModelSpec& m, const KvDtypes& t, Tokens context,
                         const std::vector<VariantFigures>& rows, UnitSystem u,
                         const std::optional<StreamingCap>& streaming = std::nullopt);

/// Each warning as one line on stderr, "kvplan: warning: ...", made printable (format.hpp): every
/// command prints its model's warnings (a Hub fallback to a preset, an unmodelled quant_method).
void warn(const std::vector<std::string>& warnings);

}  // namespace kvplan::cli
