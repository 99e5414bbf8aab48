#pragma once
// Rendering of core results: human tables (fmt) and JSON (nlohmann). No figure is computed here.

#include <string>

#include <nlohmann/json.hpp>

#include "kvplan/plan.hpp"
#include "kvplan/prefill.hpp"
#include "kvplan/variants.hpp"

namespace kvplan::cli {

nlohmann::json plan_json(const Plan& p);
std::string plan_text(const Plan& p, UnitSystem u);

nlohmann::json layout_json(const Plan& p);
std::string layout_text(const Plan& p, UnitSystem u);

nlohmann::json compare_json(const ModelSpec& m, const KvDtypes& t, Tokens context,
                            const std::vector<VariantFigures>& rows);
std::string compare_text(const ModelSpec& m, const KvDtypes& t, Tokens context,
                         const std::vector<VariantFigures>& rows, UnitSystem u);

}  // namespace kvplan::cli
