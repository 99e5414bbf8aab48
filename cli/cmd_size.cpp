// `kvplan size`: the plan of one deployment (commands.hpp).
#include <memory>

#include "commands.hpp"
#include "kvplan/format.hpp"
#include "kvplan/presets.hpp"
#include "render.hpp"

namespace kvplan::cli {

int run_size(const SizeOptions& o) {
  const UnitSystem u = resolve_units(o.deploy.units);
  std::optional<presets::EngineLogFigures> log;
  const Plan p = blaming_drafter(o.engine.speculative_config, [&](bool drafter) {
    SizeOptions asked = o;
    if (!drafter) asked.engine.speculative_config.clear();
    const PlanInputs in = build_inputs(asked, &log);
    return naming_overflow(in, [&] { return make_plan(in); });
  });
  warn(p.warnings);
  // The log's own token count against what its (rounded) memory holds for this model: a log of another
  // model, tp, pp or KV dtype holds another count.
  if (log && log->kv_cache_tokens && p.engine.kv_cache_tokens && p.engine.bytes_per_token &&
      p.engine.bytes_per_token->value != 0) {
    const std::uint64_t logged = *log->kv_cache_tokens, planned = *p.engine.kv_cache_tokens;
    // The printed memory is rounded to 0.01 GiB: up to 0.005 GiB of tokens, plus a page, either way.
    const std::uint64_t slack =
        (5ULL << 30) / 1000 / p.engine.bytes_per_token->value + p.engine.block_size + 1;
    if ((logged > planned ? logged - planned : planned - logged) > slack)
      warn({"--from-log: the log's " + format_count(logged) + " KV cache tokens are not what its " +
            format_bytes(log->kv_memory, UnitSystem::iec) + " hold for this plan (" + format_count(planned) +
            "): is it the log of this model, tp, pp and KV dtype?"});
  }
  // The speed roofline assumes tensor parallel over every GPU: not modelled under DP attention.
  const bool dp_attention = p.inputs.deployment.dp_attention > 1;
  if (dp_attention && p.has_gpu && !p.inputs.kv_memory)
    warn({"--dp-attention: speed figures are not modelled for DP attention and are left out"});
  const bool speed = p.has_gpu && !p.inputs.kv_memory && !dp_attention;
  if (o.deploy.json) {
    nlohmann::json j = plan_json(p);
    if (speed) j["speed"] = speed_json(p.inputs);
    if (log) j["from_log"] = log_json(*log);
    print(dump(j) + "\n");
  } else {
    print(plan_text(p, u) + (speed ? speed_text(p.inputs) : std::string()) +
          (log ? log_text(*log, p, u) : std::string()));
  }
  return 0;
}

void setup_size(CLI::App& app, int& rc) {
  auto o = std::make_shared<SizeOptions>();
  auto* cmd = app.add_subcommand("size", "plan KV cache, weights and capacity for a deployment");
  add_size_options(*cmd, *o);
  cmd->callback([o, &rc] { rc = run_size(*o); });
}

}  // namespace kvplan::cli
