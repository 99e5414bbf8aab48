// `kvplan compare`: the model as MHA, GQA, MQA, sliding window and MLA side by side (commands.hpp).
#include <algorithm>
#include <memory>

#include "commands.hpp"
#include "kvplan/variants.hpp"
#include "render.hpp"

namespace kvplan::cli {

int run_compare(const CompareOptions& o) {
  const UnitSystem u = resolve_units(o.units);
  // --speculative-config is taken by every command with engine options: the drafter's layers count.
  const ModelSpec target = resolve_model(o.model);
  ModelSpec m = apply_speculative_config(o.engine.speculative_config, target);
  warn(m.warnings);
  EngineOptions engine = resolve_engine(o.engine);
  // The cap is one more row, beside the variants of the uncapped model (as the GUI's StreamingLLM curve).
  VariantOptions variants;
  variants.streaming = parse_streaming(o.streaming, engine.engine);
  const KvDtypes t = resolve_kv_dtypes(o.dtypes, m, &engine);
  const Tokens ctx = parse_tokens(o.context, "--context");
  // An overflow with the context is the context's; one at a single token is the model's.
  const auto rows = [&] {
    try {
      return blaming_drafter(o.engine.speculative_config, [&](bool drafter) {
        return compare_attention(drafter ? m : target, t, ctx, variants, engine);
      });
    } catch (const Error& e) {
      if (e.field() != "bytes") throw;
      try {
        (void)compare_attention(m, t, Tokens{1}, variants, engine);
      } catch (const Error& one) {
        if (one.field() != "bytes") throw;
        throw Error("bytes_per_token", one.reason());
      }
      throw Error("--context", e.reason());
    }
  }();
  // After the figures: a failing command prints its one error line only.
  if (auto w = context_warning(m, ctx, engine.engine)) warn({*w});
  if (variants.streaming) {
    // What with_attention_sinks added to the capped row's copy of the model (MLA layers left uncapped).
    const auto& w = rows.back().model.warnings;
    warn({w.begin() + static_cast<std::ptrdiff_t>(std::min(w.size(), m.warnings.size())), w.end()});
  }
  print(o.json ? dump(compare_json(m, t, ctx, rows, variants.streaming)) + "\n"
               : compare_text(m, t, ctx, rows, u, variants.streaming));
  return 0;
}

void setup_compare(CLI::App& app, int& rc) {
  auto o = std::make_shared<CompareOptions>();
  auto* cmd =
      app.add_subcommand("compare", "the model as MHA, GQA, MQA, sliding window and MLA side by side");
  add_model_options(*cmd, o->model);
  add_dtype_options(*cmd, o->dtypes);
  add_engine_options(*cmd, o->engine, false);
  add_streaming_options(*cmd, o->streaming);
  cmd->add_option("--context", o->context, "tokens per sequence (default 4096)");
  cmd->add_option("--units", o->units, "iec (GiB, default) or si (GB)");
  cmd->add_flag("--json", o->json, "one JSON object");
  cmd->callback([o, &rc] { rc = run_compare(*o); });
}

}  // namespace kvplan::cli
