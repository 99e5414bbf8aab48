// Where presets are found: the folders of the command line, $KVPLAN_PRESETS, the user's XDG data
// folder, then the built-in folder, located from the executable so that an installed tree still finds
// it after it is moved.
#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>

#include <sys/stat.h>

#include "kvplan/hf_hub.hpp"
#include "kvplan/presets.hpp"

#ifndef KVPLAN_PRESETS_DIR
#define KVPLAN_PRESETS_DIR "presets"
#endif
#ifndef KVPLAN_INSTALLED_PRESETS_RELDIR
#define KVPLAN_INSTALLED_PRESETS_RELDIR "../share/kvplan"
#endif

namespace kvplan::presets {

namespace {
namespace fs = std::filesystem;

std::vector<fs::path>& option_dirs() {
  static std::vector<fs::path> dirs;
  return dirs;
}

bool has_models(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir / "models", ec);
}

/// The running executable's folder, or empty where /proc/self/exe cannot be read.
fs::path exe_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path{} : exe.parent_path();
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string{} : std::string{v};
}

/// $XDG_DATA_HOME/kvplan, or ~/.local/share/kvplan; a relative XDG_DATA_HOME is ignored, as the XDG
/// Base Directory specification says.
fs::path user_data_dir() {
  if (const std::string xdg = env("XDG_DATA_HOME"); !xdg.empty() && fs::path(xdg).is_absolute())
    return fs::path(xdg) / "kvplan";
  try {
    return home_dir() / ".local" / "share" / "kvplan";  // $HOME, else the password database's
  } catch (const Error&) {
    return {};  // no home folder: no user folder
  }
}

/// The folders found so far, and which files they are (device, inode: what fs::equivalent compares).
struct Folders {
  std::vector<PresetDir> dirs;
  std::set<std::pair<dev_t, ino_t>> seen;
};

/// Adds `dir`, made absolute (so that `kvplan models` names a user's file in full), unless the same
/// folder is already in `f` (or is the built-in one). A set of (device, inode): fs::equivalent against
/// every folder already added made 5,000 KVPLAN_PRESETS folders take 42 s.
void add_once(Folders& f, const fs::path& dir, bool user) {
  struct stat st {};
  // A folder that cannot be looked at is never equivalent to another (fs::equivalent's answer too).
  if (::stat(dir.c_str(), &st) == 0 && !f.seen.emplace(st.st_dev, st.st_ino).second) return;
  std::error_code ec;
  const fs::path full = fs::absolute(dir, ec);
  f.dirs.push_back({ec ? dir : full.lexically_normal(), user});
}

/// Throws kvplan::Error(`field`, ...) unless `dir` is a folder (or a link to one): "no such folder"
/// when nothing is there, "is not a folder" when something else (a file) is.
void require_folder(const fs::path& dir, const char* field) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return;
  const bool exists = fs::exists(fs::symlink_status(dir, ec));
  throw Error(field, dir.string() + (exists ? ": is not a folder" : ": no such folder"));
}
}  // namespace

void set_option_preset_dirs(std::vector<fs::path> dirs) { option_dirs() = std::move(dirs); }

fs::path builtin_presets_dir() {
  const fs::path here = exe_dir();
  const fs::path installed =
      here.empty() ? fs::path{} : (here / KVPLAN_INSTALLED_PRESETS_RELDIR).lexically_normal();
  if (!installed.empty() && has_models(installed)) return installed;
  const fs::path source{KVPLAN_PRESETS_DIR};
  if (has_models(source)) return source;
  throw Error("presets", "no built-in presets: no models/ folder in " +
                             (installed.empty() ? std::string{} : installed.string() + " or ") +
                             source.string());
}

std::vector<PresetDir> preset_dirs() {
  Folders out;
  std::error_code ec;
  // The built-in folder goes in first so that add_once sees it, and moves to the end below.
  const fs::path builtin = builtin_presets_dir();
  if (struct stat st{}; ::stat(builtin.c_str(), &st) == 0) out.seen.emplace(st.st_dev, st.st_ino);
  out.dirs.push_back({builtin, false});
  for (const auto& d : option_dirs()) {
    require_folder(d, "--presets");
    add_once(out, d, true);
  }
  const std::string list = env("KVPLAN_PRESETS");
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t end = std::min(list.find(':', start), list.size());
    const fs::path d = list.substr(start, end - start);
    start = end + 1;
    if (d.empty()) continue;
    require_folder(d, "KVPLAN_PRESETS");
    add_once(out, d, true);
  }
  if (const fs::path d = user_data_dir(); !d.empty() && fs::is_directory(d, ec)) add_once(out, d, true);
  std::rotate(out.dirs.begin(), out.dirs.begin() + 1, out.dirs.end());
  return std::move(out.dirs);
}

}  // namespace kvplan::presets
