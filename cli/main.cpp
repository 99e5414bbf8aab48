// kvplan: KV-cache capacity planning from the command line.
// Each subcommand has an options struct, a setup_x(App&) and a run_x(const XOptions&) (CLI11's
// subcom_in_files pattern). main has the one try block: every error is one line on stderr, exit 2.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "aliases.hpp"
#include "fit.hpp"
#include "kvplan/format.hpp"
#include "kvplan/kv.hpp"
#include "kvplan/options.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/version.hpp"
#include "kvplan/weights.hpp"
#include "options.hpp"
#include "parse_errors.hpp"
#include "render.hpp"

namespace kvplan::cli {
namespace {

void print(const std::string& s) { std::fwrite(s.data(), 1, s.size(), stdout); }
/// Indented JSON; bytes that are not UTF-8 (a file name's) become U+FFFD instead of an exception.
std::string dump(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// "  (user) PATH" after a preset from a user folder; nothing after a built-in one.
std::string user_mark(bool user, const std::filesystem::path& path) {
  return user ? "  (user) " + path.string() : std::string{};
}

/// `kvplan models [--json]`: one line per preset, or {"models": [...]} with each preset's key figures
/// (layers, dtypes, KV bytes per token at the model's dtype), read from its file.
int run_models(bool json) {
  presets::check_presets();  // a broken GPU preset too: listing is where a user looks for mistakes
  const auto list = presets::list_models();
  if (json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& p : list) {
      const ModelSpec m = presets::load_model_file(p.path);
      KvDtypes t;
      t.k = t.v = m.dtype;
      arr.push_back(
          {{"id", p.id},
           {"name", p.name},
           {"hf_repo", p.hf_repo},
           {"aliases", p.aliases},
           {"source", p.user ? "user" : "built-in"},
           {"path", p.path.string()},
           {"layers", num_layers(m)},
           {"dtype", std::string(name(m.dtype))},
           {"weight_dtype", std::string(name(m.weight_dtype))},
           {"max_position_embeddings",
            m.max_position_embeddings ? nlohmann::json(m.max_position_embeddings) : nlohmann::json()},
           {"published_params", m.published_params ? nlohmann::json(m.published_params) : nlohmann::json()},
           {"kv_bytes_per_token", bytes_per_token(m, t).value}});
    }
    print(dump(nlohmann::json{{"models", arr}}) + "\n");
    return 0;
  }
  std::string out;
  for (const auto& p : list)
    out += fmt::format("{:<22} {:<44} {}{}\n", printable(p.id), printable(p.hf_repo), printable(p.name),
                       user_mark(p.user, p.path));
  print(out);
  return 0;
}

/// `kvplan gpus [--json]`: one line per preset, or {"gpus": [...]} with every figure of the preset (0 as
/// null: not in the preset).
int run_gpus(bool json) {
  presets::check_presets();  // a broken model preset too
  const auto list = presets::list_gpu_presets();
  if (json) {
    const auto known = [](std::uint64_t v) { return v ? nlohmann::json(v) : nlohmann::json(); };
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& [g, path, user] : list)
      arr.push_back({{"id", g.id},
                     {"name", g.name},
                     {"memory_bytes", g.memory.value},
                     {"memory_bandwidth_bytes_per_s", known(g.memory_bandwidth_bytes_per_s)},
                     {"bf16_dense_flops", known(g.bf16_dense_flops)},
                     {"link_bandwidth_bytes_per_s", known(g.link_bandwidth_bytes_per_s)},
                     {"fp8", g.fp8},
                     {"figures_source", g.source},
                     {"source", user ? "user" : "built-in"},
                     {"path", path.string()}});
    print(dump(nlohmann::json{{"gpus", arr}}) + "\n");
    return 0;
  }
  std::string out;
  for (const auto& [g, path, user] : list)
    out += fmt::format("{:<11} {:>12}  {:<36} ({}){}\n", printable(g.id),
                       format_bytes(g.memory, UnitSystem::iec), printable(g.name),
                       format_bytes_exact(g.memory), user_mark(user, path));
  print(out);
  return 0;
}

Plan layout_plan(const ModelOptions& mo, const DtypeOptions& d, const EngineCliOptions& e, Tokens context) {
  PlanInputs in;
  in.model = apply_speculative_config(e.speculative_config, resolve_model(mo));
  in.engine = resolve_engine(e);
  in.kv = resolve_kv_dtypes(d, in.model, &in.engine);
  apply_weight_dtype(d, in.model, in.engine.engine);
  in.context = context;
  return make_plan(in);
}

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

/// `kvplan frobnicate`: CLI11 would take the word as a stray argument and say only that a subcommand
/// is required. Throws kvplan::Error naming the word and the real subcommands.
void require_known_subcommand(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return;
  std::string known;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->check_name(argv[1])) return;
    known += (known.empty() ? "" : ", ") + sub->get_name();
  }
  throw Error("subcommand", "unknown subcommand '" + std::string(argv[1]) + "' (" + known + ")");
}

/// Flushes standard output and checks that every write reached it (a full disk, a closed pipe, a
/// closed descriptor): a plan that was not delivered is exit 1 with one line, not a silent 0.
int finish_output(int rc) {
  std::cout.flush();
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout;
  if (!failed) return rc;
  const int err = errno;
  std::fprintf(stderr, "kvplan: error: standard output: %s\n",
               err != 0 ? std::strerror(err) : "write failed");
  return 1;
}

}  // namespace
}  // namespace kvplan::cli

int main(int argc, char** argv) {
  using namespace kvplan::cli;
  // A closed pipe (`kvplan fit ... | head`) makes a write fail with EPIPE instead of killing the process,
  // so it ends as the README says: exit code 1 with one line (flush_stdout below).
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"kvplan: KV-cache capacity planner for LLM inference"};
  // CLI11's own failures in kvplan's words (subcommands inherit the hook).
  app.failure_message(parse_error_message);
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("kvplan ") + kvplan::kVersion);
  // Global options may follow the subcommand too (`kvplan size --presets DIR ...`): subcommands pass
  // what they do not know to the app. Set before the subcommands, which inherit it.
  app.fallthrough();
  std::vector<std::string> preset_dirs;
  app.add_option("--presets", preset_dirs,
                 "a folder of your presets (models/*.json, gpus/*.json), searched first; repeatable")
      ->allow_extra_args(false)
      ->type_name("DIR");
  app.footer(
      "Presets are searched in: --presets DIR (an option of every command, repeatable, first given first),\n"
      "$KVPLAN_PRESETS (folders separated by ':'), $XDG_DATA_HOME/kvplan (default ~/.local/share/kvplan),\n"
      "then the built-in ones; of presets with one id, the first found is used. Each folder holds\n"
      "models/<id>.json and gpus/*.json; `kvplan models` and `kvplan gpus` mark yours: (user) FILE.\n"
      "Each command has its own --help (kvplan size --help). Errors: one line on stderr, exit code 2.");

  bool models_json = false, gpus_json = false;
  auto* models = app.add_subcommand("models", "list the model presets");
  models->add_flag("--json", models_json,
                   "one JSON object: {\"models\": [...]} with each preset's key figures");
  auto* gpus = app.add_subcommand("gpus", "list the GPU presets");
  gpus->add_flag("--json", gpus_json, "one JSON object: {\"gpus\": [...]} with every figure of each preset");

  ShowOptions show;
  auto* show_cmd = app.add_subcommand("show", "the KV layout of a model: layer groups and bytes per token");
  add_model_options(*show_cmd, show.model);
  add_dtype_options(*show_cmd, show.dtypes);
  add_engine_options(*show_cmd, show.engine, false);
  show_cmd->add_option("--units", show.units, "iec (GiB, default) or si (GB)");
  show_cmd->add_flag("--json", show.json, "one JSON object");

  SizeOptions size;
  auto* size_cmd = app.add_subcommand("size", "plan KV cache, weights and capacity for a deployment");
  add_size_options(*size_cmd, size);

  CompareOptions cmp;
  auto* cmp_cmd =
      app.add_subcommand("compare", "the model as MHA, GQA, MQA, sliding window and MLA side by side");
  add_model_options(*cmp_cmd, cmp.model);
  add_dtype_options(*cmp_cmd, cmp.dtypes);
  add_engine_options(*cmp_cmd, cmp.engine, false);
  add_streaming_options(*cmp_cmd, cmp.streaming);
  cmp_cmd->add_option("--context", cmp.context, "tokens per sequence (default 4096)");
  cmp_cmd->add_option("--units", cmp.units, "iec (GiB, default) or si (GB)");
  cmp_cmd->add_flag("--json", cmp.json, "one JSON object");

  FitOptions fit_opts;
  auto* fit_cmd = app.add_subcommand("fit",
                                     "search GPUs, counts, tp/pp/replica and DP-attention layouts and KV "
                                     "dtypes that hold the users; ranked, "
                                     "with speed");
  add_fit_options(*fit_cmd, fit_opts);

  PrefillOptions pre;
  auto* pre_cmd =
      app.add_subcommand("prefill", "prefill FLOPs of a prompt: linear and quadratic attention parts");
  add_model_options(*pre_cmd, pre.model);
  pre_cmd->add_option("--prompt", pre.prompt, "prompt tokens")->required();
  pre_cmd->add_option("--vs", pre.vs, "a second prompt length to compare against");
  pre_cmd->add_option("--gpu", pre.gpu, "GPU preset: estimate time from its dense bf16 peak");
  pre_cmd->add_option("--efficiency", pre.efficiency, "share of the peak reached, (0, 1] (default 0.5)");
  pre_cmd->add_option("--calibration", pre.calibration,
                      "a kvplan-bench report: time from its measured rates");
  pre_cmd->add_flag("--json", pre.json, "one JSON object");

  try {
    require_known_subcommand(app, argc, argv);
    parse_command_line(app, argc, argv);  // the engines' flag names (-tp) too
    reject_empty_values(app);
    kvplan::presets::set_option_preset_dirs({preset_dirs.begin(), preset_dirs.end()});
    int rc = 2;
    if (*models) rc = run_models(models_json);
    if (*gpus) rc = run_gpus(gpus_json);
    if (*show_cmd) rc = run_show(show);
    if (*size_cmd) rc = run_size(size);
    if (*cmp_cmd) rc = run_compare(cmp);
    if (*pre_cmd) rc = run_prefill(pre);
    if (*fit_cmd) rc = run_fit(fit_opts);
    return finish_output(rc);
  } catch (const CLI::Success& e) {
    return finish_output(app.exit(e));
  } catch (const CLI::ParseError& e) {
    // App::exit prints through the failure_message hook; its exit codes are CLI11's, kvplan's is 2.
    std::ostringstream err;
    (void)app.exit(e, std::cout, err);
    std::string msg = err.str();
    if (const auto nl = msg.find('\n'); nl != std::string::npos) msg.resize(nl);
    std::fprintf(stderr, "kvplan: error: %s\n", msg.c_str());
    return 2;
  } catch (const kvplan::Error& e) {
    // Core names an input by its key; here it is worded as the flag the user typed ("tp" -> "--tp").
    const std::string field = typed_flag(kvplan::cli_flag_for(e.field()));
    std::fprintf(stderr, "kvplan: error: %s\n",
                 field.empty() ? e.reason().c_str() : (std::string(field) + ": " + e.reason()).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "kvplan: error: out of memory: the input is too large to plan\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kvplan: error: %s\n", e.what());
    return 2;
  }
}
