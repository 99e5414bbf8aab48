// `kvplan show`: the KV layout of a model (commands.hpp).
#include <memory>

#include "commands.hpp"
#include "kvplan/plan.hpp"
#include "render.hpp"

namespace kvplan::cli {

namespace {
/// The layout of the model at one token: show's plan.
Plan layout_plan(const ModelOptions& mo, const DtypeOptions& d, const EngineCliOptions& e, Tokens context) {
  PlanInputs in;
  in.model = apply_speculative_config(e.speculative_config, resolve_model(mo));
  in.engine = resolve_engine(e);
  in.kv = resolve_kv_dtypes(d, in.model, &in.engine);
  apply_weight_dtype(d, in.model, in.engine.engine);
  in.context = context;
  return make_plan(in);
}
}  // namespace

int run_show(const ShowOptions& o) {
  const UnitSystem u = resolve_units(o.units);
  const Plan p = blaming_drafter(o.engine.speculative_config, [&](bool drafter) {
    EngineCliOptions e = o.engine;
    if (!drafter) e.speculative_config.clear();
    return layout_plan(o.model, o.dtypes, e, Tokens{1});
  });
  warn(p.inputs.model.warnings);
  print(o.json ? dump(layout_json(p)) + "\n" : layout_text(p, u));
  return 0;
}

void setup_show(CLI::App& app, int& rc) {
  auto o = std::make_shared<ShowOptions>();
  auto* cmd = app.add_subcommand("show", "the KV layout of a model: layer groups and bytes per token");
  add_model_options(*cmd, o->model);
  add_dtype_options(*cmd, o->dtypes);
  add_engine_options(*cmd, o->engine, false);
  cmd->add_option("--units", o->units, "iec (GiB, default) or si (GB)");
  cmd->add_flag("--json", o->json, "one JSON object");
  cmd->callback([o, &rc] { rc = run_show(*o); });
}

}  // namespace kvplan::cli
