// `kvplan gpus`: the GPU presets (commands.hpp).
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "kvplan/format.hpp"
#include "kvplan/presets.hpp"
#include "render.hpp"

namespace kvplan::cli {

/// `kvplan gpus [--json]`: one line per preset, or {"gpus": [...]} with every figure of the preset (0 as
/// null: not in the preset).
int run_gpus(const ListOptions& o) {
  const bool json = o.json;
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

void setup_gpus(CLI::App& app, int& rc) {
  auto o = std::make_shared<ListOptions>();
  auto* cmd = app.add_subcommand("gpus", "list the GPU presets");
  cmd->add_flag("--json", o->json, "one JSON object: {\"gpus\": [...]} with every figure of each preset");
  cmd->callback([o, &rc] { rc = run_gpus(*o); });
}

}  // namespace kvplan::cli
