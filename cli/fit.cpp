#include "fit.hpp"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "aliases.hpp"
#include "commands.hpp"
#include "kvplan/context_limit.hpp"
#include "kvplan/format.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/serving_dtype.hpp"
#include "kvplan/speed.hpp"
#include "kvplan/weights.hpp"
#include "render.hpp"

namespace kvplan::cli {

namespace {
using nlohmann::json;

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

/// The --speculative-config JSON as the engine's line must carry it: a drafter given as a kvplan preset id
/// ("llama-3.1-8b") becomes the preset's Hugging Face repo, which the engine can load (it passed the id
/// unchanged; the target was already translated). A drafter given as a local file stays as given, and
/// `note` says the engine needs the drafter's repo or weights folder there.
std::string speculative_config_for_launch(const std::string& text, std::string& note) {
  if (text.empty()) return text;
  auto j = nlohmann::json::parse(text, nullptr, false);  // apply_speculative_config has checked it
  const auto it = j.is_object() ? j.find("model") : j.end();
  if (it == j.end() || !it->is_string()) return text;
  const std::string model = it->get<std::string>();
  for (const auto& p : presets::list_models())
    if (p.id == model && !p.hf_repo.empty()) {
      *it = p.hf_repo;
      return j.dump();
    }
  std::error_code ec;
  if (std::filesystem::exists(model, ec))
    note =
        "the drafter " + model + " is a local file: give the engine its Hugging Face repo or weights folder";
  return text;
}

std::vector<std::uint64_t> counts(const std::string& text, const char* flag) {
  std::vector<std::uint64_t> out;
  if (text.empty()) return out;
  for (const auto& part : split(text)) out.push_back(parse_count(part, flag));
  return out;
}

std::string kv_name(const KvDtypes& t) {
  return t.k == t.v ? std::string(name(t.k)) : fmt::format("{}/{}", name(t.k), name(t.v));
}

/// Tokens per second: one decimal while it reads as a rate, three significant digits below 1 (billions of
/// users give 1e-07, not "0.0").
std::string rate(double v, int decimals) {
  return v >= 1.0 || v == 0.0 ? fmt::format("{:.{}f}", v, decimals) : fmt::format("{:.3g}", v);
}

/// A cost per million tokens in a bounded width: three decimals from 0.001 up to a million, the whole
/// part with thousands separators as every other figure ("12,345.678"), else three significant digits
/// ("2.5e+08"), so a huge price or a tiny rate never prints hundreds of digits.
std::string cost_text(double v) {
  if (!(v >= 0.001 && v < 1e6)) return fmt::format("{:.3g}", v);
  const std::string s = fmt::format("{:.3f}", v);  // below 10^6 (7 digits) even rounded up
  const std::size_t dot = s.find('.');
  return format_count(std::stoull(s.substr(0, dot))) + s.substr(dot);
}

/// The table's max-context cell: "*" marks a context past the limit the engine derives (context_limit).
std::string context_cell(const Plan& p) {
  if (!p.max_context) return "any";
  return format_count(p.max_context->value) +
         (past_max_position(p.inputs.model, *p.max_context, p.inputs.engine.engine) ? "*" : "");
}

json row_json(const FitRow& r) {
  const Plan& p = r.plan;
  const auto& par = p.inputs.deployment.parallel;
  json j{{"gpu", p.inputs.gpu->id},
         {"gpus", p.gpus},
         {"tp", par.tp},
         {"pp", par.pp},
         {"dp", par.dp},
         // DP attention N (1: off): N attention ranks of tp / N GPUs, the routed experts over ep = tp.
         {"dp_attention", p.inputs.deployment.dp_attention},
         {"attention_tp", par.tp / p.inputs.deployment.dp_attention},
         {"ep", p.inputs.deployment.dp_attention > 1 ? par.tp : 1},
         {"kv_dtype", kv_name(p.inputs.kv)},
         {"weight_dtype", std::string(name(p.inputs.model.weight_dtype))},
         // What the weights are (weight_dtype_label), and whether the row asks the engine for that type
         // (the weight search) rather than taking the model as given.
         {"weights", weight_dtype_label(p.inputs.model)},
         {"weight_dtype_searched", r.weight_dtype.has_value()},
         {"fits", p.fits},
         {"users_per_replica", p.per_gpu.users},
         {"max_users", p.max_users},
         {"max_context", p.max_context ? json(p.max_context->value) : json(nullptr)},
         {"max_context_past_max_position_embeddings",
          p.max_context.has_value() &&
              past_max_position(p.inputs.model, *p.max_context, p.inputs.engine.engine)},
         {"engine_max_context",  // the limit that flag is against (null: unknown)
          engine_max_context(p.inputs.model, p.inputs.engine.engine)
              ? json(engine_max_context(p.inputs.model, p.inputs.engine.engine)->value)
              : json(nullptr)},
         {"weights_bytes_per_gpu", p.per_gpu.weights_bytes.value},
         {"kv_bytes_per_gpu", p.per_gpu.kv_bytes_total.value},
         {"available_kv_bytes_per_gpu", p.per_gpu.available_kv_bytes.value},
         {"free_bytes_per_gpu", p.per_gpu.free_bytes.value}};
  if (r.speed) {
    j["tpot_s"] = r.speed->tpot_s;
    j["tokens_per_s_per_user"] = r.speed->tokens_per_s_per_user;
    j["tokens_per_s_per_gpu"] = r.speed->tokens_per_s_per_gpu;
    j["ttft_s"] = r.speed->ttft_s;
    j["decode_memory_bound"] = r.speed->step.memory_bound;
  } else {
    j["tpot_s"] = j["tokens_per_s_per_user"] = j["tokens_per_s_per_gpu"] = j["ttft_s"] = nullptr;
  }
  if (r.cost_per_million_tokens) j["cost_per_million_tokens"] = *r.cost_per_million_tokens;
  j["launch"] = r.launch;
  return j;
}

/// The weight dtype column: the type a searched row asks the engine for (FitRow::weight_dtype); else the
/// model's, or "ckpt" where the checkpoint mixes types (the line under the table names them:
/// weight_dtype_label).
std::string weight_cell(const FitRow& r) {
  if (r.weight_dtype) return std::string(name(*r.weight_dtype));
  const ModelSpec& m = r.plan.inputs.model;
  if (m.quant.at_load) return std::string(name(m.weight_dtype));  // --weight-dtype fp8 alone
  const std::string label = weight_dtype_label(m);
  return label == name(m.weight_dtype) ? label : std::string("ckpt");
}

/// One row of the table: the headers and every layout.
constexpr const char* kRow =
    "  {:>2}  {:<10} {:>4}  {:<18} {:<9} {:<9} {:>10} {:>10} {:>10} {:>6} {:>9} {:>9} {:>7} {:>8} {:>8}{}\n";

std::string table(const std::vector<FitRow>& rows, bool cost, UnitSystem u) {
  std::string out = fmt::format(fmt::runtime(kRow), "#", "GPU", "GPUs", "tp x pp x dp", "KV", "wts",
                                "weights", "KV", "free", "users", "context", "TPOT", "tok/s", "tok/s", "TTFT",
                                cost ? fmt::format("  {:>11}", "$/Mtok") : "");
  out += fmt::format(fmt::runtime(kRow), "", "", "", "", "", "", "per GPU", "per GPU", "per GPU", "max",
                     "max", "", "/user", "/GPU", "", "");
  std::size_t i = 0;
  for (const auto& r : rows) {
    const Plan& p = r.plan;
    const auto& par = p.inputs.deployment.parallel;
    const auto& g = p.per_gpu;
    out += fmt::format(
        fmt::runtime(kRow), ++i, p.inputs.gpu->id, p.gpus,
        fmt::format("{} x {} x {}{}", par.tp, par.pp, par.dp,
                    p.inputs.deployment.dp_attention > 1
                        ? fmt::format(" dpa{}", p.inputs.deployment.dp_attention)
                        : std::string()),
        kv_name(p.inputs.kv), weight_cell(r), format_bytes(g.weights_bytes, u),
        format_bytes(g.kv_bytes_total, u), format_bytes(g.free_bytes, u), format_count(p.max_users),
        context_cell(p), r.speed ? format_seconds(r.speed->tpot_s) : "?",
        r.speed ? rate(r.speed->tokens_per_s_per_user, 1) : "?",
        r.speed ? rate(r.speed->tokens_per_s_per_gpu, 0) : "?",
        r.speed ? format_seconds(r.speed->ttft_s) : "?",
        // 11 wide: "999,999.999", the widest cost_text.
        cost
            ? fmt::format("  {:>11}", r.cost_per_million_tokens ? cost_text(*r.cost_per_million_tokens) : "?")
            : "");
    out += "      " + r.launch + "\n";
  }
  const ModelSpec& m = rows.front().plan.inputs.model;
  const Engine engine = rows.front().plan.inputs.engine.engine;
  if (std::any_of(rows.begin(), rows.end(),
                  [](const FitRow& r) { return r.plan.inputs.deployment.dp_attention > 1; }))
    out +=
        "  dpaN: DP attention, N ranks of tp/N GPUs each holding only its own users' KV, the routed experts "
        "split over all tp GPUs (expert parallel); speed not modelled (?)\n";
  for (const auto& r : rows)
    if (weight_cell(r) == "ckpt") {
      out += "  wts ckpt: as in the checkpoint (" + weight_dtype_label(r.plan.inputs.model) + ")\n";
      break;
    }
  std::vector<DType> noted;  // each searched weight type once
  for (const auto& r : rows) {
    const ModelSpec& q = r.plan.inputs.model;
    const std::optional<DType> t = r.weight_dtype    ? r.weight_dtype
                                   : q.quant.at_load ? std::optional<DType>(q.weight_dtype)
                                                     : std::nullopt;
    if (!t || std::find(noted.begin(), noted.end(), *t) != noted.end()) continue;
    noted.push_back(*t);
    out += q.quant.at_load ? fmt::format("  wts {}: the engine quantises the checkpoint at load ({})\n",
                                         name(*t), weight_dtype_label(q))
           : engine == Engine::llamacpp
               ? fmt::format("  wts {}: needs a GGUF file quantised so\n", name(*t))
               : fmt::format("  wts {}: needs a checkpoint quantised so\n", name(*t));
  }
  if (std::any_of(rows.begin(), rows.end(), [&](const FitRow& r) {
        return r.plan.max_context && past_max_position(m, *r.plan.max_context, engine);
      })) {
    const auto l = context_limit(m, engine);
    out += engine == Engine::ideal
               ? fmt::format(
                     "  * context max past the model's {} max_position_embeddings: "
                     "what memory holds; each engine derives its own limit\n",
                     format_count(m.max_position_embeddings))
               : fmt::format("  * context max past {}: what memory holds; {}\n", l->text, l->effect);
  }
  return out;
}
}  // namespace

void add_fit_options(CLI::App& app, FitOptions& o) {
  add_model_options(app, o.model);
  add_engine_options(app, o.engine, false);
  add_streaming_options(app, o.streaming);
  add_capacity_options(app, o);
  app.add_option("--gpu", o.gpus,
                 "GPU preset ids to search, repeatable or comma-separated (default: every preset)");
  app.add_option("--max-gpus", o.max_gpus, "most GPUs in all, replicas included (default 64)");
  app.add_option("--tp", o.tp,
                 "tensor-parallel sizes, comma-separated (default: every size the model takes)");
  app.add_option("--pp", o.pp, "pipeline stages, comma-separated (default: 1 up to the budget)");
  app.add_option("--dp-attention", o.dp_attention,
                 "DP attention sizes, comma-separated, each dividing tp; 1 is off (default: 1 and, for MoE "
                 "models under ideal, vllm and sglang, every divisor of tp, with expert parallel)");
  app.add_option("--gpus-per-node", o.gpus_per_node,
                 "GPUs in one node: tp (a DP attention group with it) stays within a node, pp and replicas "
                 "span nodes (default 8)");
  app.add_option(
      "--kv-dtype", o.kv_dtype,
      "KV dtypes, comma-separated (default: bf16, plus fp8_e4m3 on GPUs with fp8; llamacpp: fp16,q8_0)");
  app.add_option(
      "--weight-dtype", o.weight_dtype,
      "weight types, comma-separated: the first (or ckpt, the model as given) is the model's and is "
      "preferred on as many GPUs, the others are searched too; one type searches no other (default: "
      "ckpt, plus fp8_e4m3 quantised at load under vllm and ideal on GPUs with fp8)");
  app.add_option("--price-per-gpu-hour", o.price,
                 "rank by cost per million output tokens at this price, in USD per GPU-hour (more than 0, at "
                 "most 1,000,000)");
  app.add_option("--ttft", o.ttft,
                 "keep layouts whose time to first token (one context-long prompt) is at most S seconds");
  app.add_option("--tpot", o.tpot, "keep layouts whose time per output token is at most S seconds");
  app.add_option("--top", o.top, "rows to print (default 10)");
  app.add_option("--bandwidth-efficiency", o.mem_eff,
                 "share of memory bandwidth decode reaches (default 0.8)");
  app.add_option("--compute-efficiency", o.compute_eff, "share of dense bf16 peak reached (default 0.5)");
  app.add_option("--link-efficiency", o.link_eff,
                 "share of link bandwidth an all-reduce reaches (default 0.7)");
}

FitRequest build_fit_request(const FitOptions& o) {
  FitRequest r;
  r.model = apply_speculative_config(o.engine.speculative_config, resolve_model(o.model));
  r.engine = resolve_engine(o.engine);
  // As `size` does: the cap on the model's full-attention layers, refused under an engine's rules.
  r.attention_sinks = apply_streaming(o.streaming, r.engine.engine, r.model);
  // --weight-dtype: none, the model as given and the default weight search (default_weight_dtypes); one
  // type, or ckpt, the model at it and no search; a list, the first as the model and the rest searched.
  std::vector<std::string> weight_items;
  if (!o.weight_dtype.empty())
    for (const auto& part : split(o.weight_dtype)) {
      if (part.empty()) throw Error("--weight-dtype", "has an empty item");
      weight_items.push_back(part);
    }
  const auto is_ckpt = [](const std::string& t) { return lowercase(t) == "ckpt"; };
  DtypeOptions d;
  if (!weight_items.empty() && !is_ckpt(weight_items.front())) d.weight_dtype = weight_items.front();
  const DType checkpoint_weights = r.model.weight_dtype;
  apply_weight_dtype(d, r.model, r.engine.engine);
  // The launch line carries what was applied to the model: the engine must be told too.
  if (!d.weight_dtype.empty() && r.model.weight_dtype != checkpoint_weights)
    r.launch.weight_dtype = r.model.weight_dtype;
  r.search_weight_dtypes = weight_items.size() != 1;
  for (std::size_t i = 1; i < weight_items.size(); ++i) {
    if (is_ckpt(weight_items[i])) {
      if (is_ckpt(weight_items.front())) continue;  // given twice: searched once
      throw Error("--weight-dtype", "ckpt (the model as given) can only be the first item");
    }
    r.weight_dtypes.push_back(parse_dtype(weight_items[i], "--weight-dtype"));
  }
  // A list that names only the model's own type searches nothing more (not the default search).
  if (weight_items.size() > 1 && r.weight_dtypes.empty()) r.search_weight_dtypes = false;
  std::string drafter_note;
  r.launch.speculative_config = speculative_config_for_launch(o.engine.speculative_config, drafter_note);
  r.launch.note = drafter_note;
  r.context = parse_context(o.context, r.model, r.engine.engine);
  r.users = parse_count(o.users, "--users");
  r.max_gpus = parse_count(o.max_gpus, "--max-gpus");
  r.tp = counts(o.tp, "--tp");
  r.pp = counts(o.pp, "--pp");
  r.dp_attention = counts(o.dp_attention, "--dp-attention");
  r.search_dp_attention = true;  // the table and the JSON carry each row's DP attention
  if (!o.gpus_per_node.empty()) r.gpus_per_node = parse_count(o.gpus_per_node, "--gpus-per-node");
  if (!o.kv_dtype.empty())
    for (const auto& part : split(o.kv_dtype)) {
      DtypeOptions one;
      one.kv_dtype = part;
      if (part.empty()) throw Error("--kv-dtype", "has an empty item");
      r.kv_dtypes.push_back(resolve_kv_dtypes(one, r.model, &r.engine));
    }
  if (o.gpus.empty())
    r.gpus = presets::list_gpus();
  else
    for (const auto& item : o.gpus)
      for (const auto& id : split(item)) {
        // One GPU named twice (`--gpu h100-sxm,H100-SXM`) is one candidate, not two.
        Gpu g = presets::find_gpu(id);
        if (std::none_of(r.gpus.begin(), r.gpus.end(), [&](const Gpu& x) { return x.id == g.id; }))
          r.gpus.push_back(std::move(g));
      }
  if (!o.gpu_util.empty())
    r.deployment.gpu_memory_utilization = parse_positive(o.gpu_util, "--gpu-util", true);
  if (!o.overhead.empty()) r.deployment.reserve = parse_memory_size(o.overhead, "--overhead");
  refuse_weights_with_weight_dtype(o.weights, o.weight_dtype);
  if (!o.weights.empty() && !is_auto(o.weights))
    r.deployment.weights = parse_memory_size(o.weights, "--weights");
  if (!o.price.empty()) {
    // One text for every miss (not a number, infinite, 0 or less, past the bound): the range, with units.
    const Error range("--price-per-gpu-hour", price_range_text() + ", got '" + o.price + "'");
    try {
      r.price_per_gpu_hour = parse_positive(o.price, "--price-per-gpu-hour", false);
    } catch (const Error&) {
      throw range;
    }
    if (*r.price_per_gpu_hour > static_cast<double>(kMaxPricePerGpuHour)) throw range;
  }
  if (!o.ttft.empty()) r.max_ttft_s = parse_positive(o.ttft, "--ttft", false);
  if (!o.tpot.empty()) r.max_tpot_s = parse_positive(o.tpot, "--tpot", false);
  r.top = parse_count(o.top, "--top");
  if (!o.mem_eff.empty()) r.efficiency.memory = parse_positive(o.mem_eff, "--bandwidth-efficiency", true);
  if (!o.compute_eff.empty())
    r.efficiency.compute = parse_positive(o.compute_eff, "--compute-efficiency", true);
  if (!o.link_eff.empty()) r.efficiency.link = parse_positive(o.link_eff, "--link-efficiency", true);
  return r;
}

int run_fit(const FitOptions& o) {
  const UnitSystem u = resolve_units(o.units);
  const FitRequest r = build_fit_request(o);
  // A drafter the engine refuses is --speculative-config's to explain (the search is run again without it,
  // on that error only).
  const auto search = [&](const FitRequest& req) {
    return blaming_drafter(o.engine.speculative_config, [&](bool drafter) {
      if (drafter) return fit(req);
      FitOptions without = o;
      without.engine.speculative_config.clear();
      return fit(build_fit_request(without));
    });
  };
  // The model's warnings, and the context's: every row plans the same context.
  std::vector<std::string> warnings = r.model.warnings;
  if (auto w = context_warning(r.model, r.context, r.engine.engine)) warnings.push_back(std::move(*w));
  // An overflow names the input, as size does: the exact layout of the first KV dtype searched.
  PlanInputs overflow_inputs;
  overflow_inputs.model = r.model;
  overflow_inputs.context = r.context;
  overflow_inputs.users = r.users;
  overflow_inputs.kv = !r.kv_dtypes.empty() ? r.kv_dtypes.front()
                       : !r.gpus.empty()    ? default_kv_dtypes(r.gpus.front(), r.engine.engine).front()
                                            : KvDtypes{};
  const FitResult res = naming_overflow(overflow_inputs, [&] { return search(r); });
  warn(warnings);  // after the search: a failing fit prints its one error line only
  const auto& m = r.model;
  if (o.json) {
    json rows = json::array();
    for (const auto& row : res.rows) rows.push_back(row_json(row));
    std::vector<std::string> refused;  // core names the inputs by key; the CLI by flag
    for (const auto& line : res.refused) refused.push_back(cli_words(line));
    json j{
        {"model", {{"id", m.id}, {"name", m.name}, {"source", m.source}}},
        {"context", r.context.value},
        {"users", r.users},
        {"max_position_embeddings",
         m.max_position_embeddings ? json(m.max_position_embeddings) : json(nullptr)},
        {"engine", std::string(name(r.engine.engine))},
        {"max_gpus", r.max_gpus},
        {"layouts_judged", res.candidates},
        {"searched", res.searched},
        {"gpus_per_node", r.gpus_per_node},
        {"fitting", res.fitting},
        {"holding", res.holding},
        {"ranked_by", r.price_per_gpu_hour ? "cost_per_million_tokens" : "gpus, then free_bytes_per_gpu"},
        {"efficiency",
         {{"memory", r.efficiency.memory}, {"compute", r.efficiency.compute}, {"link", r.efficiency.link}}},
        {"configurations", rows},
        {"refused", refused},
        {"warnings", warnings}};
    if (res.nearest) {
      j["nearest"] = row_json(*res.nearest);
      // What it lacks: speed (it holds the users, but misses --ttft / --tpot) or memory.
      j["nearest_misses"] = res.nearest_misses_sla ? "sla" : "memory";
    }
    if (!res.nearest_note.empty()) j["note"] = res.nearest_note;
    print(dump(j) + "\n");
    return 0;
  }
  std::string out = fmt::format("{} ({}): {} x {} tokens, engine rules: {}\n", printable(m.name),
                                printable(m.source), format_count(r.users, "user", "users"),
                                format_count(r.context.value), name(r.engine.engine));
  out += fmt::format("{} judged over {} GPU preset{} up to {} GPUs; {} fit{}. Ranked by {}.\n",
                     format_count(res.candidates, "layout", "layouts"), r.gpus.size(),
                     r.gpus.size() == 1 ? "" : "s", format_count(r.max_gpus), format_count(res.fitting),
                     r.max_ttft_s || r.max_tpot_s ? " within the SLA" : "",
                     r.price_per_gpu_hour ? "cost per million output tokens"
                     : res.weights_searched
                         ? "fewest GPUs, then the weights as given, then most free KV memory per GPU"
                         : "fewest GPUs, then most free KV memory per GPU");
  out += "Searched: " + res.searched + ".\n";
  // Layouts the model or the engine refuses: left out, and said so, never offered.
  for (const auto& line : res.refused) out += "Not searched: " + printable(cli_words(line)) + "\n";
  if (!res.rows.empty()) {
    out += "\n" + table(res.rows, r.price_per_gpu_hour.has_value(), u);
    out += fmt::format(
        "\nSpeed: decode roofline at {:.0f}% of memory bandwidth, {:.0f}% of dense bf16 peak, {:.0f}% of "
        "link "
        "bandwidth; TPOT at the full context, TTFT for one {}-token prompt.\n",
        r.efficiency.memory * 100, r.efficiency.compute * 100, r.efficiency.link * 100,
        format_count(r.context.value));
    if (!r.model.weights_unknown.empty())
      out +=
          "Speed not estimated (?): the model's parameters are unknown (" + r.model.weights_unknown + ").\n";
  } else {
    out += "\n" + res.nearest_note + "\n";
    if (res.nearest) out += "\n" + table({*res.nearest}, false, u);
  }
  print(out);
  return 0;
}

std::string speed_text(const PlanInputs& in) {
  if (in.gpu && !in.model.weights_unknown.empty())
    return "\nSpeed: not estimated: the model's parameters are unknown (" + in.model.weights_unknown + ")\n";
  const json j = speed_json(in);
  if (j.is_null()) return "";
  std::string out = "\nSpeed (roofline; kvplan fit --help for the efficiencies)\n";
  const auto row = [&](const std::string& label, const std::string& value) {
    out += fmt::format("  {:<38}{}\n", label, value);
  };
  row("decode TPOT at the full context",
      format_seconds(j["tpot_s"].get<double>()) +
          (j["decode_memory_bound"].get<bool>() ? " (memory-bound)" : " (compute-bound)"));
  row("tokens/s per user", rate(j["tokens_per_s_per_user"].get<double>(), 1));
  row("tokens/s per GPU", rate(j["tokens_per_s_per_gpu"].get<double>(), 1));
  row(fmt::format("TTFT ({} tokens)", format_count(in.context.value)),
      format_seconds(j["ttft_s"].get<double>()));
  return out;
}

json speed_json(const PlanInputs& in) {
  if (!in.gpu || !in.model.weights_unknown.empty()) return nullptr;
  const Gpu& g = *in.gpu;
  if (g.memory_bandwidth_bytes_per_s == 0 || g.bf16_dense_flops == 0 ||
      (in.deployment.parallel.tp > 1 && g.link_bandwidth_bytes_per_s == 0))
    return nullptr;
  const SpeedFigures f = estimate_speed(in);
  return json{
      {"tpot_s", f.tpot_s},
      {"tokens_per_s_per_user", f.tokens_per_s_per_user},
      {"tokens_per_s_per_gpu", f.tokens_per_s_per_gpu},
      {"ttft_s", f.ttft_s},
      {"decode_memory_bound", f.step.memory_bound},
      {"decode_weight_bytes_per_gpu", f.step.weight_bytes_per_gpu},
      {"decode_kv_bytes_per_gpu", f.step.kv_bytes_per_gpu.value},
      {"decode_memory_s", f.step.memory_s},
      {"decode_compute_s", f.step.compute_s},
      {"decode_allreduce_s", f.step.allreduce_s},
      {"efficiency",
       {{"memory", f.efficiency.memory}, {"compute", f.efficiency.compute}, {"link", f.efficiency.link}}}};
}

void setup_fit(CLI::App& app, int& rc) {
  auto o = std::make_shared<FitOptions>();
  auto* cmd = app.add_subcommand("fit",
                                 "search GPUs, counts, tp/pp/replica and DP-attention layouts and KV "
                                 "dtypes that hold the users; ranked, "
                                 "with speed");
  add_fit_options(*cmd, *o);
  cmd->callback([o, &rc] { rc = run_fit(*o); });
}

}  // namespace kvplan::cli
