// A whole `kvplan size` run on a fuzzed model and fuzzed options: the input's first line is the
// command line after `size` (split on spaces), the rest is the model file (a preset or config.json)
// passed as MODEL when not empty. The run is the CLI's own: CLI11 parsing, build_inputs, make_plan,
// the table and the JSON; then the plan's figures are checked against each other.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "kvplan/kv.hpp"
#include "kvplan/prefill.hpp"
#include "kvplan/variants.hpp"
#include "options.hpp"
#include "render.hpp"

using namespace kvplan;

namespace {

void check_plan(const Plan& p) {
  const PlanInputs& in = p.inputs;
  const Parallelism& par = in.deployment.parallel;
  Bytes bpt{0}, seq{0};
  for (const auto& g : p.groups) {
    bpt += g.bytes_per_token;
    seq += g.kv_bytes_per_sequence;
    fuzz::check(g.bytes_per_token == g.bytes_per_token_per_layer * g.group.count, "group bytes per token");
  }
  fuzz::check(bpt == p.bytes_per_token, "bytes_per_token is not the sum of its groups");
  fuzz::check(seq == p.kv_bytes_per_sequence, "kv_bytes_per_sequence is not the sum of its groups");
  fuzz::check(p.full_bytes_per_token <= p.bytes_per_token, "full bytes per token exceed bytes per token");
  fuzz::check(p.kv_bytes_per_sequence <= p.bytes_per_token * in.context,
              "a sequence holds more than L tokens");
  fuzz::check(p.gpus == par.tp * par.pp * par.dp, "gpus is not tp x pp x dp");
  fuzz::check(p.per_gpu.users == (in.users + par.dp - 1) / par.dp, "users per replica");
  // Under an engine with memory known, the per-GPU KV is the engine's for the users (make_plan).
  if (in.engine.engine == Engine::ideal || !p.has_gpu)
    fuzz::check(p.per_gpu.kv_bytes_total == p.per_gpu.bytes_per_sequence * p.per_gpu.users,
                "per-GPU KV total");
  std::uint64_t layers = 0;
  for (const auto& s : p.stages) layers += s.stage.count;
  fuzz::check(layers == p.layers, "the stages do not hold every layer");
  if (in.engine.engine != Engine::ideal && par.pp == 1) {
    // Every engine allocates at least the exact layout of what it caches (paging and padding only add):
    // a wrapped product shows up as an engine figure below the ideal one.
    Bytes kv{0};
    for (const auto& s : p.stages) kv = std::max(kv, s.kv_bytes);
    const std::uint64_t seqs = in.engine.engine == Engine::llamacpp ? p.per_gpu.users : 1;
    fuzz::check(kv * seqs <= p.engine.kv_bytes_total,
                "engine " + std::string(name(in.engine.engine)) + " allocates " +
                    std::to_string(p.engine.kv_bytes_total.value) + " B, less than the exact " +
                    std::to_string(kv.value) + " B x " + std::to_string(seqs));
  }
  if (!p.has_gpu) return;
  const PerGpu& g = p.per_gpu;
  if (in.engine.engine == Engine::ideal) {
    fuzz::check(p.fits == (g.kv_bytes_total <= g.available_kv_bytes), "fits disagrees with the bytes");
    if (p.fits) fuzz::check(g.free_bytes + g.kv_bytes_total == g.available_kv_bytes, "free bytes");
    if (g.bytes_per_sequence != Bytes{0})
      fuzz::check(p.max_users == g.available_kv_bytes.value / g.bytes_per_sequence.value * par.dp,
                  "max_users");
    if (p.fits && g.users > 0) fuzz::check(p.max_users >= in.users, "fits, yet max_users is below the users");
  }
  if (in.engine.engine == Engine::ideal && p.max_context && p.max_context->value > 0) {
    // The longest context fits; one more token does not.
    const auto need = [&](std::uint64_t ctx) {
      Bytes most{0};
      for (const auto& s : per_gpu_sequence_bytes(in.model, in.kv, Tokens{ctx}, par))
        most = std::max(most, s.kv_bytes + s.state_bytes);
      return most * g.users;
    };
    fuzz::check(need(p.max_context->value) <= g.available_kv_bytes, "max_context does not fit");
    try {
      fuzz::check(p.max_context->value == std::numeric_limits<std::uint64_t>::max() ||
                      !(need(p.max_context->value + 1) <= g.available_kv_bytes),
                  "max_context + 1 still fits");
    } catch (const Error&) {
      // one more token overflows: it does not fit either
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // GPU presets and preset ids come from the source tree's presets.
  setenv("KVPLAN_PRESETS", KVPLAN_SOURCE_PRESETS, 1);
  setenv("HF_HUB_OFFLINE", "1", 1);  // a repo id never reaches the network
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto nl = text.find('\n');
  const std::string_view line = text.substr(0, nl);
  const std::string_view body = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);

  std::vector<std::string> args{"size"};
  std::istringstream words{std::string(line)};
  for (std::string w; words >> w && args.size() < 40;) args.push_back(w);
  if (!body.empty()) {
    const auto path = fuzz::scratch_dir() / "model.json";
    fuzz::write_file(path, body);
    args.push_back(path.string());
  }

  using namespace kvplan::cli;
  CLI::App app{"fuzz"};
  SizeOptions opts;
  auto* size_cmd = app.add_subcommand("size", "");
  add_size_options(*size_cmd, opts);
  const auto& d = opts.deploy;
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes argv reversed
  try {
    app.parse(reversed);
  } catch (const CLI::Error&) {
    return 0;  // CLI11's own errors (unknown flags, missing values)
  }

  try {
    reject_empty_values(app);
    const UnitSystem u = resolve_units(d.units);
    const Plan p = make_plan(build_inputs(opts));
    check_plan(p);
    const std::string table = plan_text(p, u);
    const std::string json = plan_json(p).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    fuzz::check(!table.empty() && !json.empty(), "empty output");
    // The other subcommands on the same model: show's layout, compare and prefill.
    (void)layout_text(p, u);
    try {
      const auto rows = compare_attention(p.inputs.model, p.inputs.kv, p.inputs.context);
      (void)compare_text(p.inputs.model, p.inputs.kv, p.inputs.context, rows, u);
    } catch (const Error& e) {
      fuzz::check_error(e);
    }
    try {
      // Prefill: every attention layer does work on every prompt, more on a longer one.
      const PrefillFlops f = prefill_flops(p.inputs.model, p.inputs.context.value);
      const PrefillFlops one = prefill_flops(p.inputs.model, 1);
      fuzz::check(f.total == f.linear + f.attention, "prefill total is not linear + attention");
      fuzz::check(f.attention >= one.attention && f.linear >= one.linear, "prefill shrinks with the prompt");
      bool attention = false;
      for (const auto& g : p.inputs.model.layers)
        attention = attention || g.attention.kind != AttentionKind::recurrent;
      fuzz::check(!attention || one.attention > 0, "attention layers that cost no prefill FLOPs");
    } catch (const Error& e) {
      fuzz::check_error(e);
    }
  } catch (const Error& e) {
    fuzz::check_error(e);
  }
  return 0;
}
