// `kvplan prefill`: prefill FLOPs of a prompt, linear and quadratic attention parts (commands.hpp).
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "kvplan/format.hpp"
#include "kvplan/prefill.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/weights.hpp"
#include "render.hpp"

namespace kvplan::cli {

int run_prefill(const PrefillOptions& o) {
  const ModelSpec m = resolve_model(o.model);
  warn(m.warnings);
  if (o.prompt.empty()) throw Error("--prompt", "missing");
  const std::uint64_t n = parse_tokens(o.prompt, "--prompt").value;
  const std::uint64_t vs = o.vs.empty() ? 0 : parse_tokens(o.vs, "--vs").value;
  std::optional<Gpu> gpu;
  if (!o.gpu.empty()) gpu = presets::find_gpu(o.gpu);
  if (!o.vs.empty() && vs == 0) throw Error("--vs", "must be positive");
  // Checked whether or not a time is asked for: a value is never silently ignored.
  const double eff = parse_positive(o.efficiency, "--efficiency", true);
  // An overflow is the prompt length's (or --vs's): named by its flag and value, as size names --context.
  constexpr std::string_view kFlopsOverflow =
      "the prefill FLOPs overflow 2^64 (2 x active parameters per token, plus the attention's causal pairs)";
  const PrefillFlops f = naming_overflow("--prompt", n, kFlopsOverflow, [&] { return prefill_flops(m, n); });
  std::optional<PrefillComparison> c;
  if (vs != 0) c = naming_overflow("--vs", vs, kFlopsOverflow, [&] { return compare_prefill(m, n, vs); });
  std::optional<double> secs, vs_secs;
  std::optional<PrefillCalibration> cal;
  std::optional<PrefillSeconds> cal_secs, cal_vs;
  if (!o.calibration.empty()) {
    std::uint64_t head_dim = 0;
    for (const auto& g : m.layers)
      if (has_attention(g.attention.kind) && head_dim == 0) head_dim = g.attention.head_dim_k;
    cal = presets::load_calibration(o.calibration, head_dim);
    // Without a GEMM baseline in the report, the linear part runs at the GPU's peak x efficiency.
    const double fallback =
        gpu && gpu->bf16_dense_flops > 0 ? static_cast<double>(gpu->bf16_dense_flops) * eff : 0.0;
    if (gpu) (void)prefill_seconds(1, gpu->bf16_dense_flops, eff);  // checks the efficiency
    cal_secs = prefill_seconds(f, *cal, fallback);
    if (c) cal_vs = prefill_seconds(c->versus, *cal, fallback);
  } else if (gpu) {
    secs = prefill_seconds(f.total, gpu->bf16_dense_flops, eff);
    if (c) vs_secs = prefill_seconds(c->versus.total, gpu->bf16_dense_flops, eff);
  }
  if (o.json) {
    nlohmann::json j{{"model", {{"id", m.id}, {"name", m.name}}},
                     {"prompt_tokens", n},
                     {"flops_convention",
                      "multiply-add = 2 FLOPs; linear = 2 x active parameters x N; attention = "
                      "2 x causal pairs x heads x (head_dim_k + head_dim_v) per layer"},
                     {"linear_flops", f.linear},
                     {"attention_flops", f.attention},
                     {"total_flops", f.total}};
    if (c) {
      j["vs_tokens"] = vs;
      j["vs"] = {{"linear_flops", c->versus.linear},
                 {"attention_flops", c->versus.attention},
                 {"total_flops", c->versus.total}};
      j["attention_ratio"] = c->attention_ratio;
      j["linear_ratio"] = c->linear_ratio;
      j["total_ratio"] = c->total_ratio;
    }
    if (cal) {
      j["calibration"] = {{"source", cal->source},
                          {"backend", cal->backend},
                          {"head_dim", cal->head_dim},
                          {"attention_flops_per_s", cal->attention_flops_per_s},
                          {"linear_flops_per_s", cal->linear_flops_per_s},
                          {"exponent", cal->exponent}};
      j["attention_seconds"] = cal_secs->attention;
      j["linear_seconds"] = cal_secs->linear;
      j["seconds"] = cal_secs->total;
      if (cal_vs) j["vs_seconds"] = cal_vs->total;
    } else if (gpu) {
      j["gpu"] = gpu->id;
      j["efficiency"] = eff;
      j["seconds"] = *secs;
      if (vs_secs) j["vs_seconds"] = *vs_secs;
    }
    print(dump(j) + "\n");
    return 0;
  }
  std::string out = fmt::format("{}: prefill of {} tokens\n", printable(m.name), format_count(n));
  const auto flops = [](std::uint64_t v) { return fmt::format("{:.3g} FLOPs", static_cast<double>(v)); };
  const auto line = [&](const std::string& label, const std::string& value) {
    out += fmt::format("  {:<52}{}\n", label, value);
  };
  line(fmt::format("linear (2 x {} active params x N)", format_count(active_parameter_count(m))),
       flops(f.linear));
  line("attention (quadratic, causal)", flops(f.attention));
  line("total", flops(f.total));
  if (secs)
    line(fmt::format("time on {} at {:.0f}% of dense bf16 peak", gpu->id, eff * 100),
         fmt::format("{:.3f} s", *secs));
  if (cal) {
    out += fmt::format("\ncalibration: {}\n", printable(cal->source));
    line(fmt::format("measured attention rate (exponent {:.2f})", cal->exponent),
         fmt::format("{:.3g} FLOP/s", cal->attention_flops_per_s));
    line("attention time", fmt::format("{:.3f} s", cal_secs->attention));
    line("linear time", fmt::format("{:.3f} s", cal_secs->linear));
    line("total time", fmt::format("{:.3f} s", cal_secs->total));
  }
  if (c) {
    out += fmt::format("\nagainst {} tokens: attention {:.1f}x, linear {:.1f}x, total {:.1f}x\n",
                       format_count(vs), c->attention_ratio, c->linear_ratio, c->total_ratio);
  }
  print(out);
  return 0;
}

void setup_prefill(CLI::App& app, int& rc) {
  auto o = std::make_shared<PrefillOptions>();
  auto* cmd =
      app.add_subcommand("prefill", "prefill FLOPs of a prompt: linear and quadratic attention parts");
  add_model_options(*cmd, o->model);
  cmd->add_option("--prompt", o->prompt, "prompt tokens")->required();
  cmd->add_option("--vs", o->vs, "a second prompt length to compare against");
  cmd->add_option("--gpu", o->gpu, "GPU preset: estimate time from its dense bf16 peak");
  cmd->add_option("--efficiency", o->efficiency, "share of the peak reached, (0, 1] (default 0.5)");
  cmd->add_option("--calibration", o->calibration, "a kvplan-bench report: time from its measured rates");
  cmd->add_flag("--json", o->json, "one JSON object");
  cmd->callback([o, &rc] { rc = run_prefill(*o); });
}

}  // namespace kvplan::cli
