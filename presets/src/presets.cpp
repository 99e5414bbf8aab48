#include "kvplan/presets.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "kvplan/format.hpp"
#include "kvplan/gguf.hpp"
#include "kvplan/hf_hub.hpp"
#include "kvplan/hub_fetch.hpp"
#include "kvplan/safetensors.hpp"

namespace kvplan::presets {

namespace {
using nlohmann::json;
namespace fs = std::filesystem;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// A name, id or repo a preset gives, which kvplan prints: control characters (ESC, NUL) and the
/// bidirectional ones (U+202E ...) would print as other text, so a preset holding one is refused (the
/// message shows it escaped, printable() of format.hpp).
const std::string& plain(const std::string& s, const std::string& at) {
  if (printable(s) != s)
    throw Error(at, "'" + s +
                        "' holds a control or bidirectional character (shown escaped): refused, as it "
                        "would print as other text");
  return s;
}

std::string str(const json& obj, const char* key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) throw Error(where + ": /" + key, "missing or not a string");
  return plain(it->get<std::string>(), where + ": /" + key);
}

/// The optional "name" of a preset, else its id.
std::string name_or(const json& j, const std::string& id, const std::string& where) {
  const auto it = j.find("name");
  return it != j.end() && it->is_string() ? plain(it->get<std::string>(), where + ": /name") : id;
}

/// The preset's metadata over the config: id, name, source, published params.
ModelSpec from_preset(const json& j, const std::string& origin) {
  const auto cfg = j.find("config");
  ModelSpec m = model_from_hf_config(*cfg, origin + " /config");
  m.id = str(j, "id", origin);
  m.name = name_or(j, m.id, origin);
  m.source = j.contains("hf_repo") && j["hf_repo"].is_string()
                 ? plain(j["hf_repo"].get<std::string>(), origin + ": /hf_repo")
                 : origin;
  if (const auto pp = j.find("published_params"); pp != j.end() && !pp->is_null()) {
    if (!pp->is_number_unsigned()) throw Error(origin + ": /published_params", "must be a positive integer");
    m.published_params = pp->get<std::uint64_t>();
  }
  return m;
}

bool is_preset(const json& j) { return j.is_object() && j.contains("config") && j["config"].is_object(); }

/// The .json files in `dir`, sorted (the same order on every file system); none when it is absent. A
/// folder that is there but cannot be listed (no permission, a link loop, an I/O error), or a file in its
/// place, is an error naming it: its presets would be missing without a word.
std::vector<fs::path> json_files(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
    throw Error(dir.string(), "cannot be read: " + ec.message());
  if (!fs::exists(st)) return out;
  if (!fs::is_directory(st)) throw Error(dir.string(), "is not a folder");
  fs::directory_iterator it(dir, ec);
  const auto unreadable = [&] { return Error(dir.string(), "cannot be listed: " + ec.message()); };
  if (ec) throw unreadable();
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw unreadable();
    if (it->path().extension() == ".json") out.push_back(it->path());
  }
  if (ec) throw unreadable();
  std::sort(out.begin(), out.end());
  return out;
}

/// One GPU object, at JSON path `at` ("" for the whole file, "/gpus/3") of file `origin`.
Gpu gpu_from_json(const json& g, const std::string& origin, const std::string& at) {
  const auto where = [&](const char* key) { return origin + ": " + at + "/" + key; };
  if (!g.is_object()) throw Error(origin + ": " + (at.empty() ? "/" : at), "must be an object");
  const auto text = [&](const char* key) {
    const auto it = g.find(key);
    if (it == g.end() || !it->is_string() || it->get<std::string>().empty())
      throw Error(where(key), "missing or not a string");
    return plain(it->get<std::string>(), where(key));
  };
  // presets/README.md lists every key a GPU preset has and promises no extension keys: a misspelt one
  // (memory_bandwdith_bytes_per_s) would drop its figure without a word, so an unknown key is refused.
  static constexpr std::string_view known[] = {"id",
                                               "name",
                                               "memory_bytes",
                                               "memory_source",
                                               "memory_bandwidth_bytes_per_s",
                                               "bf16_dense_flops",
                                               "datasheet_source",
                                               "link_bandwidth_bytes_per_s",
                                               "link_source",
                                               "fp8",
                                               "fp8_source",
                                               "runtime_memory_bytes",
                                               "runtime_memory_source",
                                               "notes"};
  for (const auto& [key, value] : g.items())
    if (std::find(std::begin(known), std::end(known), key) == std::end(known))
      throw Error(origin + ": " + at + "/" + printable(key),
                  "unknown key (a GPU preset has id, name, memory_bytes, memory_source, "
                  "memory_bandwidth_bytes_per_s, bf16_dense_flops, datasheet_source, "
                  "link_bandwidth_bytes_per_s, link_source, fp8, fp8_source, runtime_memory_bytes, "
                  "runtime_memory_source, notes)");
  Gpu gpu;
  gpu.id = text("id");
  // --gpu a,b and fit's --gpus split on commas, and a shell splits on whitespace: such an id could never be
  // asked for.
  if (gpu.id.find_first_of(", \t\n\r\v\f") != std::string::npos)
    throw Error(where("id"),
                "'" + gpu.id +
                    "' holds a comma or whitespace: a list of GPUs splits on commas, so it could "
                    "never be named; use letters, digits, '-', '_' or '.'");
  gpu.name = text("name");
  const auto mem = g.find("memory_bytes");
  if (mem == g.end() || !mem->is_number_unsigned() || mem->get<std::uint64_t>() == 0)
    throw Error(where("memory_bytes"), "must be a positive integer");
  gpu.memory = Bytes{mem->get<std::uint64_t>()};
  const auto opt = [&](const char* key) -> std::uint64_t {
    const auto it = g.find(key);
    if (it == g.end() || it->is_null()) return 0;
    // 0 is not "unknown" (null or absent is): a 0 bandwidth or runtime total would be taken as none.
    if (!it->is_number_unsigned() || it->get<std::uint64_t>() == 0)
      throw Error(where(key), "must be a positive integer or null");
    return it->get<std::uint64_t>();
  };
  gpu.memory_bandwidth_bytes_per_s = opt("memory_bandwidth_bytes_per_s");
  gpu.bf16_dense_flops = opt("bf16_dense_flops");
  gpu.link_bandwidth_bytes_per_s = opt("link_bandwidth_bytes_per_s");
  if (const auto f8 = g.find("fp8"); f8 != g.end() && !f8->is_null()) {
    if (!f8->is_boolean()) throw Error(where("fp8"), "must be true, false or null");
    gpu.fp8 = f8->get<bool>();
  }
  if (const auto src = g.find("datasheet_source"); src != g.end() && src->is_string())
    gpu.source = src->get<std::string>();
  // The CUDA runtime's total (torch's total_memory), what vLLM budgets from: never above nvidia-smi's, and
  // never without its source.
  if (const std::uint64_t runtime = opt("runtime_memory_bytes"); runtime != 0) {
    if (runtime > gpu.memory.value)
      throw Error(where("runtime_memory_bytes"), "must not exceed memory_bytes (the runtime sees less)");
    gpu.runtime_memory = Bytes{runtime};
    gpu.runtime_memory_source = text("runtime_memory_source");
  }
  return gpu;
}

/// The GPUs of one file: {"gpus": [...]} (gpus.json), or one GPU object (a file in gpus/).
std::vector<GpuPreset> gpus_in_file(const fs::path& path) {
  const json j = read_json_file(path);
  const std::string origin = path.string();
  std::vector<GpuPreset> out;
  if (j.is_object() && !j.contains("gpus") && j.contains("id")) {
    out.push_back({gpu_from_json(j, origin, ""), path, true});
    return out;
  }
  if (!j.is_object() || !j.contains("gpus") || !j["gpus"].is_array())
    throw Error(origin + ": /gpus", "must be an array (or the file one GPU object with an id)");
  for (std::size_t i = 0; i < j["gpus"].size(); ++i)
    out.push_back({gpu_from_json(j["gpus"][i], origin, "/gpus/" + std::to_string(i)), path, true});
  return out;
}
}  // namespace

namespace {
/// `read(dir)`, read once per process and folder (a cache per T, the last folder's): for the built-in
/// folder, the installation's files. Thread-safe (the GUI looks presets up from worker threads).
template <class T>
std::vector<T> read_once(const PresetDir& dir, std::vector<T> (*read)(const PresetDir&)) {
  static std::mutex mutex;
  static std::optional<std::pair<fs::path, std::vector<T>>> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!cache || cache->first != dir.path) cache.emplace(dir.path, read(dir));
  return cache->second;
}

/// The presets of one folder's models/, in file order. Throws kvplan::Error naming the file and the JSON
/// path for a file that is not a preset, an id that differs from its file name, or two presets of one id.
std::vector<ModelPreset> presets_in(const PresetDir& dir) {
  std::vector<ModelPreset> here;
  std::unordered_map<std::string, std::size_t> here_ids;  // lowercase id -> index in `here`
  for (const auto& path : json_files(dir.path / "models")) {
    const json j = read_json_file(path, true);  // its config verbatim, as transformers reads it
    const std::string origin = path.string();
    if (!is_preset(j)) throw Error(origin, "not a kvplan preset (no /config object)");
    // A user's preset is read in full now, so that a mistake in it is reported whatever is asked.
    if (dir.user) (void)from_preset(j, origin);
    ModelPreset p;
    p.id = str(j, "id", origin);
    // Lookups go by id, and presets/README.md says the file is <id>.json: a preset whose id differs
    // from its file name would be listed, yet not found by the name a user sees on disk.
    if (p.id != path.stem().string())
      throw Error(origin + ": /id", "'" + p.id + "' differs from the file name '" + path.stem().string() +
                                        "' (a model preset is models/<id>.json)");
    p.name = name_or(j, p.id, origin);
    p.hf_repo = str(j, "hf_repo", origin);
    // Aliases are names the preset answers to: one that is not a string would be dropped, and the preset
    // not found by it, without a word (docs/presets.md: a field kvplan cannot read is an error).
    if (const auto a = j.find("aliases"); a != j.end() && !a->is_null()) {
      if (!a->is_array())
        throw Error(origin + ": /aliases", "must be an array of strings (repo ids or names)");
      for (std::size_t i = 0; i < a->size(); ++i) {
        const std::string at = origin + ": /aliases/" + std::to_string(i);
        if (!(*a)[i].is_string()) throw Error(at, "must be a string (a repo id or a name)");
        p.aliases.push_back(plain((*a)[i].get<std::string>(), at));
      }
    }
    p.path = path;
    p.user = dir.user;
    if (const auto [at, fresh] = here_ids.emplace(lower(p.id), here.size()); !fresh)
      throw Error(origin + ": /id", "'" + p.id + "' is also the id of " + here[at->second].path.string());
    here.push_back(std::move(p));
  }
  return here;
}

/// The built-in folder's presets, read once per process and folder: they are the installation's files,
/// not the user's, and reading their 200 KB of JSON again on every lookup was most of a lookup's time
/// (fuzz_preset ran 56 inputs a second under ASan). A user's folder is read every time. Thread-safe (the
/// GUI looks models up from worker threads).
std::vector<ModelPreset> builtin_presets(const PresetDir& dir) { return read_once(dir, presets_in); }
}  // namespace

std::vector<ModelPreset> list_models() {
  std::vector<ModelPreset> out;
  // Ids taken, lowercase: by an earlier folder (its preset stands), and in this folder (a clash). Hash
  // sets: comparing each id with every earlier one made 10,000 user presets take 6 to 22 s a lookup.
  std::unordered_set<std::string> taken;
  for (const auto& dir : preset_dirs()) {
    std::vector<ModelPreset> here = dir.user ? presets_in(dir) : builtin_presets(dir);
    for (auto& p : here)
      if (taken.insert(lower(p.id)).second) out.push_back(std::move(p));  // else an earlier folder's stands
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return out;
}

ModelSpec load_model_file(const fs::path& path) {
  // Opened first as every reader here opens a file (InputFile): a FIFO, a device or a file of /proc is
  // refused naming what it is before the GGUF check reads its first bytes (which waited forever on a link
  // to /proc/kmsg).
  { const InputFile probe(path); }
  // A file named .gguf is read as GGUF whatever it holds, so that one without the magic is reported as
  // not a GGUF file (gguf.cpp), not as malformed JSON.
  if (is_gguf_file(path) || lower(path.extension().string()) == ".gguf") return load_gguf_file(path);
  const json j = read_json_file(path, true);  // a config.json as transformers reads it (Infinity ...)
  const std::string origin = path.filename().string();
  if (is_preset(j)) return from_preset(j, origin);
  ModelSpec m = model_from_hf_config(j, origin);
  m.id = path.stem().string() == "config" && path.has_parent_path() ? path.parent_path().filename().string()
                                                                    : path.stem().string();
  m.name = m.id;
  m.source = path.string();
  // A config.json beside its checkpoint: the exact weights from the safetensors headers.
  if (path.filename() == "config.json")
    if (const auto st = read_safetensors_folder(path.has_parent_path() ? path.parent_path() : fs::path(".")))
      apply_safetensors(*st, m);
  return m;
}

namespace {
/// A model name as an error echoes it: whole up to 200 bytes; a longer one (a pasted file, a runaway
/// script) cut to its first 120 bytes with its length, so that the one-line error stays readable.
std::string shown_name(std::string_view name) {
  if (name.size() <= 200) return std::string(name);
  const std::size_t cut = utf8_char_start(name, 120);  // not inside a UTF-8 character
  return std::string(name.substr(0, cut)) + "... (" + format_count(name.size()) + " bytes)";
}
}  // namespace

ModelSpec find_model(std::string_view name_or_path, std::string_view revision) {
  if (name_or_path.empty()) throw Error("model", "is empty");
  const fs::path as_path{std::string(name_or_path)};
  std::error_code ec;
  // A revision is a Hub commit, branch or tag: a local file or a preset has none, and reading it at its
  // one version while saying nothing would answer for a revision that was not read.
  const auto no_revision = [&](std::string_view what) {
    if (!revision.empty())
      throw Error("revision", "'" + shown_name(revision) + "' applies to a Hugging Face repo id, and '" +
                                  shown_name(name_or_path) + "' is " + std::string(what));
  };
  if (fs::is_regular_file(as_path, ec)) {
    no_revision("a local file");
    return load_model_file(as_path);
  }
  // A model folder (config.json, and safetensors shards for exact weights).
  if (fs::is_directory(as_path, ec) && fs::is_regular_file(as_path / "config.json", ec)) {
    no_revision("a local folder");
    return load_model_file(as_path / "config.json");
  }
  const std::string key = lower(name_or_path);
  auto presets = list_models();
  // An id first; then a repo id or an alias, a user's preset before a built-in one.
  std::stable_partition(presets.begin(), presets.end(), [](const auto& p) { return p.user; });
  for (const auto& p : presets)
    if (lower(p.id) == key) {
      no_revision(p.hf_repo.empty()
                      ? std::string("a preset id")
                      : "a preset id (its hf_repo '" + p.hf_repo + "' reads that revision from the Hub)");
      return load_model_file(p.path);
    }
  const ModelPreset* preset = nullptr;
  for (const auto& p : presets) {
    bool match = lower(p.hf_repo) == key;
    for (const auto& a : p.aliases) match = match || lower(a) == key;
    if (!match) continue;
    if (preset == nullptr) {
      preset = &p;
    } else if (p.user) {
      // Two user presets answer for one name: which one is meant is the user's to say, not file order's
      // (a user's preset before a built-in one is the intended override, and stays silent).
      throw Error("model", "'" + shown_name(name_or_path) + "' is the hf_repo or an alias of two presets, " +
                               preset->path.string() + " and " + p.path.string() + ": give a preset id");
    }
  }
  if (preset == nullptr) {
    // A folder is a model when it holds a config.json: say that it lacks one.
    if (fs::is_directory(as_path, ec))
      throw Error(std::string(name_or_path), "a model folder needs a config.json, and this one has none");
    // A path that exists but is no regular file (a FIFO, a link loop): say what it is.
    if (fs::exists(fs::symlink_status(as_path, ec))) require_regular_file(as_path);
    const auto colon = name_or_path.find(':');
    const bool tagged = colon != std::string_view::npos && is_hf_repo_id(name_or_path.substr(0, colon));
    if (!tagged && (name_or_path.find(".json") != std::string_view::npos || name_or_path.ends_with(".gguf")))
      throw Error(shown_name(name_or_path), "no such file");
  }
  // A repo id: the Hugging Face cache, then the Hub (hub_fetch.hpp); the preset of that repo when
  // neither answers (offline, the Hub not reached, gated without a token) and no revision was asked for.
  if (is_hf_repo_id(name_or_path)) {
    if (preset == nullptr) {
      try {
        return load_hf_repo(name_or_path, revision);
      } catch (const HubEntryNotFound& e) {
        if (e.file() != "config.json") throw;
        // No config.json: a GGUF repo, read as llama.cpp's -hf reads one without a tag (Q4_K_M, then Q8_0,
        // then the first model listed: common/download.cpp find_best_model; hub_fetch.hpp load_hf_gguf).
        try {
          return load_hf_gguf(name_or_path, "", revision);
        } catch (const HubError& g) {
          throw HubError("model", e.reason() + ", and as a GGUF repo: " + g.reason());
        }
      }
    }
    if (!revision.empty()) return load_hf_repo(name_or_path, revision);
    try {
      return load_hf_repo(name_or_path, revision);
    } catch (const HubError& e) {
      ModelSpec m = load_model_file(preset->path);
      if (!hf_hub_offline())
        m.warnings.push_back("Hugging Face Hub: " + std::string(e.reason()) + "; the preset " + preset->id +
                             " is used instead");
      return m;
    }
  }
  if (preset != nullptr) return load_model_file(preset->path);
  // org/repo:TAG, a GGUF repo and a quant tag as llama.cpp's -hf takes it (common/download.cpp
  // common_download_split_repo_tag: the text after the ':' is the tag, the rest must be <user>/<model>), and
  // as gguf-parser's --hf-repo: its listing and the chosen file's GGUF header over Range requests
  // (hub_fetch.hpp load_hf_gguf).
  if (const auto colon = name_or_path.find(':');
      colon != std::string_view::npos && colon + 1 < name_or_path.size()) {
    const std::string_view repo = name_or_path.substr(0, colon);
    const std::string_view tag = name_or_path.substr(colon + 1);
    if (is_hf_repo_id(repo)) return load_hf_gguf(repo, tag, revision);
  }
  throw Error("model", "unknown model '" + shown_name(name_or_path) +
                           "': not a file, a preset id or a Hugging Face repo id (see `kvplan models`)");
}

namespace {
/// The GPUs of one folder: its gpus.json, then the files of its gpus/, in file order. Throws kvplan::Error
/// naming the file and the JSON path for a malformed GPU, or two GPUs of one id in the folder.
std::vector<GpuPreset> gpus_in(const PresetDir& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_regular_file(dir.path / "gpus.json", ec)) files.push_back(dir.path / "gpus.json");
  for (auto& f : json_files(dir.path / "gpus")) files.push_back(std::move(f));
  std::vector<GpuPreset> here;
  std::unordered_map<std::string, std::size_t> here_ids;  // lowercase id -> index in `here`
  for (const auto& path : files)
    for (auto& gpu : gpus_in_file(path)) {
      if (const auto [at, fresh] = here_ids.emplace(lower(gpu.gpu.id), here.size()); !fresh)
        throw Error(gpu.path.string() + ": /id", "'" + gpu.gpu.id + "' is also the id of a GPU in " +
                                                     here[at->second].path.filename().string());
      gpu.user = dir.user;
      here.push_back(std::move(gpu));
    }
  return here;
}

/// The built-in folder's GPUs, read once per process and folder, as builtin_presets reads its models: the
/// installation's file, not the user's, and every GPU lookup read and checked it again. Thread-safe.
std::vector<GpuPreset> builtin_gpus(const PresetDir& dir) { return read_once(dir, gpus_in); }
}  // namespace

std::vector<GpuPreset> list_gpu_presets() {
  const auto dirs = preset_dirs();
  std::vector<GpuPreset> out;
  std::unordered_map<std::string, std::size_t> out_ids;  // lowercase id -> index in `out` (hash: linear)
  // From the built-in folder back to the first: a GPU of an earlier folder takes the place of one
  // with its id, or comes after those already there.
  for (auto dir = dirs.rbegin(); dir != dirs.rend(); ++dir) {
    std::vector<GpuPreset> here = dir->user ? gpus_in(*dir) : builtin_gpus(*dir);
    for (auto& g : here) {
      if (const auto [at, fresh] = out_ids.emplace(lower(g.gpu.id), out.size()); !fresh)
        out[at->second] = std::move(g);
      else
        out.push_back(std::move(g));
    }
  }
  return out;
}

void check_presets() {
  (void)list_models();
  (void)list_gpu_presets();
}

std::vector<Gpu> list_gpus() {
  std::vector<Gpu> out;
  for (auto& g : list_gpu_presets()) out.push_back(std::move(g.gpu));
  return out;
}

Gpu find_gpu(std::string_view id) {
  const auto gpus = list_gpus();
  std::string known;
  for (const auto& g : gpus) {
    if (lower(g.id) == lower(id)) return g;
    known += (known.empty() ? "" : ", ") + g.id;
  }
  throw Error("gpu", "unknown GPU '" + std::string(id) + "' (known: " + known + ")");
}

}  // namespace kvplan::presets
