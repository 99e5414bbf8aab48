// `kvplan models`: the model presets (commands.hpp).
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "kvplan/format.hpp"
#include "kvplan/kv.hpp"
#include "kvplan/presets.hpp"
#include "render.hpp"

namespace kvplan::cli {

/// `kvplan models [--json]`: one line per preset, or {"models": [...]} with each preset's key figures
/// (layers, dtypes, KV bytes per token at the model's dtype), read from its file.
int run_models(const ListOptions& o) {
  const bool json = o.json;
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

void setup_models(CLI::App& app, int& rc) {
  auto o = std::make_shared<ListOptions>();
  auto* cmd = app.add_subcommand("models", "list the model presets");
  cmd->add_flag("--json", o->json, "one JSON object: {\"models\": [...]} with each preset's key figures");
  cmd->callback([o, &rc] { rc = run_models(*o); });
}

}  // namespace kvplan::cli
