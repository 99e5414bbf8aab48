#pragma once
/// @file presets.hpp
/// Files and JSON to kvplan value types: model presets, Hugging Face config.json files, GPUs.
/// Every parsing problem becomes kvplan::Error naming the file and the JSON path
/// ("config.json: /text_config/num_key_value_heads: must be a positive integer").

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kvplan/model.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/prefill.hpp"

namespace kvplan::presets {

/// One folder of presets: models/*.json (one model each), gpus.json ({"gpus": [...]}) and gpus/*.json
/// (one GPU object each, or {"gpus": [...]}), every part optional. `user`: not the built-in folder.
struct PresetDir {
  std::filesystem::path path;
  bool user = true;
};

/// Folders given on the command line (`kvplan --presets DIR`), searched before all others, first
/// given first. Process-wide: the CLI and the GUI set it once, before the first lookup.
void set_option_preset_dirs(std::vector<std::filesystem::path> dirs);

/// The built-in presets: `../share/kvplan` beside the running executable (an installed tree, wherever
/// it was moved; the part after the executable's folder is GNUInstallDirs' DATADIR relative to BINDIR),
/// else the source tree's presets/ compiled in (a build tree). Throws kvplan::Error("presets", ...)
/// naming both places when neither holds a models/ folder.
std::filesystem::path builtin_presets_dir();

/// The folders searched for presets, in order; an earlier folder's preset takes the place of a later
/// one with the same id. The --presets folders (set_option_preset_dirs), $KVPLAN_PRESETS (a
/// colon-separated list), $XDG_DATA_HOME/kvplan (default ~/.local/share/kvplan; skipped when absent),
/// then the built-in folder. A folder named by --presets or $KVPLAN_PRESETS that does not exist is an
/// error naming it (Error("--presets" or "KVPLAN_PRESETS", ...)); one listed twice, or the built-in
/// folder listed as a user one, is searched once.
std::vector<PresetDir> preset_dirs();

/// Reads a Hugging Face config.json (already parsed) into a ModelSpec. Understands configs that nest
/// the language model under `text_config`, GPT-2's n_layer/n_head/n_embd, num_key_value_heads
/// (absent: MHA), an explicit head_dim, Falcon's multi_query/new_decoder_architecture, sliding_window
/// with Qwen's use_sliding_window/max_window_layers, Gemma 2 alternation, Gemma 3's
/// sliding_window_pattern, layer_types, DeepSeek's MLA keys, Llama 4's attention_chunk_size and
/// no_rope_layers, Jamba's attn_layer_period/offset and Qwen3-Next's full_attention_interval.
/// `origin` prefixes error messages (the file name). Throws kvplan::Error naming the JSON path of a
/// missing or bad key; never guesses.
ModelSpec model_from_hf_config(const nlohmann::json& config, std::string_view origin);

/// One entry of the model preset index.
struct ModelPreset {
  std::string id;
  std::string name;
  std::string hf_repo;
  std::vector<std::string> aliases;
  std::filesystem::path path;
  bool user = false;  ///< from a user folder (preset_dirs()), not the built-in one
};

/// All model presets of preset_dirs() (models/*.json in each), sorted by id; of presets with the same
/// id (case-insensitive), the one in the earliest folder. Every user preset is read in full (its
/// config included), so a malformed one is an error naming the file and the JSON path wherever it is
/// listed or looked up; two presets with one id in the same folder are an error naming both files.
std::vector<ModelPreset> list_models();

/// Loads a model file: a GGUF file (the GGUF magic, or a name ending .gguf: one without the magic is
/// an error saying it is not a GGUF file), a kvplan preset (an object with "config") or a bare Hugging
/// Face config.json. Throws kvplan::Error naming the file.
ModelSpec load_model_file(const std::filesystem::path& path);

/// Resolves MODEL as the CLI takes it: an existing file path (a GGUF file, a config.json), a model folder
/// (config.json and safetensors), else a preset id or Hugging Face repo id (case-insensitive, aliases
/// included), else a repo id ORG/NAME found in the Hugging Face cache at `revision` (empty: main; see
/// hf_hub.hpp). Throws kvplan::Error("model", ...) when nothing matches, naming the cache folder searched.
ModelSpec find_model(std::string_view name_or_path, std::string_view revision = {});

/// One entry of the GPU presets: the GPU, the file it came from, and whether that is a user folder.
struct GpuPreset {
  Gpu gpu;
  std::filesystem::path path;
  bool user = false;
};

/// All GPU presets of preset_dirs(): the built-in ones in their file's order, a user GPU with a
/// built-in id in that one's place, other user GPUs after them. Same rules as list_models().
std::vector<GpuPreset> list_gpu_presets();

/// Reads every preset file of preset_dirs(), model and GPU alike, as list_models() and
/// list_gpu_presets() do, and throws the first problem (kvplan::Error naming the file and the JSON
/// path). `kvplan models` and `kvplan gpus` call it, so that a broken preset file of either kind is an
/// error whichever kind is listed, not only once a command happens to use that kind.
void check_presets();

/// The GPUs of list_gpu_presets().
std::vector<Gpu> list_gpus();

/// The GPU with this id (case-insensitive). Throws kvplan::Error("gpu", ...) naming the known ids.
Gpu find_gpu(std::string_view id);

/// Reads a kvplan-bench report (schema "kvplan-bench/1", bench/README.md) as a prefill calibration:
/// the run of the tiled backend (cuda-tiled, else cpu-tiled, else a naive one), causal, whose check
/// passed and whose fit has an attention rate, with the head_dim nearest `head_dim`; and the fastest
/// GEMM baseline on the same hardware. Throws kvplan::Error naming the file and JSON path.
PrefillCalibration load_calibration(const std::filesystem::path& path, std::uint64_t head_dim);

/// Index in /runs of the run of a kvplan-bench/1 report (parsed) that load_calibration calibrates with:
/// causal, check passed, a fitted attention rate; the tiled backend first (cuda-tiled, cpu-tiled, then
/// the naive ones), then the head_dim nearest `head_dim`. `origin` names the report in errors.
/// Throws kvplan::Error naming origin and the JSON path (not such a report, no run that qualifies).
std::size_t calibration_run(const nlohmann::json& report, const std::string& origin, std::uint64_t head_dim);

/// Largest JSON file kvplan reads (bytes): presets, configs, scenarios and bench reports are kilobytes.
inline constexpr std::size_t kMaxJsonBytes = std::size_t{64} << 20;
/// Deepest nesting of arrays and objects read_json_file accepts (real configs nest 3 or 4 levels).
inline constexpr std::size_t kMaxJsonDepth = 64;
/// Most JSON values (scalars, arrays and objects) in one file (524,288): a 100,000-layer layer_types
/// list fits, and a 1 MB array of empty objects; the bound keeps a parsed document near 100 MB at
/// worst whatever the 64 MiB hold.
inline constexpr std::size_t kMaxJsonValues = std::size_t{1} << 19;

/// Throws kvplan::Error(path, ...) unless `path` is a regular file (or a link to one), saying what it is
/// instead: no such file, a directory, a FIFO, a device, a socket, a symbolic link loop. Reading only
/// regular files keeps a FIFO or a device from blocking a read forever.
void require_regular_file(const std::filesystem::path& path);

/// A file opened for reading that never blocks: only a regular file (require_regular_file), opened with
/// O_NONBLOCK and checked again on the open descriptor (fstat), and not a file of the kernel's pseudo
/// file systems (/proc, /sys, debugfs, tracefs), whose "regular" files have no size and may block or be
/// consumed by a read (a link to /proc/kmsg hung every reader). A read that would block is an error too.
/// Every error is kvplan::Error(path, reason) naming what the file is.
class InputFile {
 public:
  explicit InputFile(const std::filesystem::path& path);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  /// The file's size in bytes when it was opened (fstat).
  [[nodiscard]] std::uint64_t size() const { return size_; }
  /// Exactly `n` more bytes; throws Error(path, "truncated ...") when the file ends first.
  std::string read_exact(std::size_t n);
  /// The rest of the file when it holds at most `max` more bytes, else nullopt (at most max + 1 bytes are
  /// read, whatever the file's size).
  std::optional<std::string> read_all(std::size_t max);

 private:
  std::size_t read_some(char* into, std::size_t n);
  int fd_ = -1;
  std::uint64_t size_ = 0;
  std::string path_;
};

/// Reads and parses a JSON file (a regular file of at most kMaxJsonBytes); errors name the file
/// (missing, not a regular file, unreadable, too large, empty, malformed) or the JSON path of the value
/// at fault (a number out of range, nesting past kMaxJsonDepth, more than kMaxJsonValues values).
/// Time and memory are linear in the file's size.
/// With `python_literals` (model configs and presets), NaN, Infinity and -Infinity outside strings are read
/// as Python's json module reads them (transformers and vLLM load config.json with it; NemotronH configs
/// carry "time_step_limit": [0.0, Infinity]), kept as the strings "NaN", "Infinity", "-Infinity": a key
/// kvplan reads as a number then fails naming itself, one it does not read is left alone.
nlohmann::json read_json_file(const std::filesystem::path& path, bool python_literals = false);

/// Parses JSON text as read_json_file does, with its limits; `origin` (the file name) starts every error.
/// A NUL byte is refused: as a syntax error where the text before it is already malformed or it is in a
/// string, else naming its offset (nlohmann's lexer takes it for the end of the text, so anything after it
/// would be accepted unread).
nlohmann::json parse_json_text(std::string_view text, const std::string& origin,
                               bool python_literals = false);

}  // namespace kvplan::presets
