// kvplan: KV-cache capacity planning from the command line.
// Each subcommand has an options struct, a setup_x(App&, rc) and a run_x(const XOptions&) in a file of its
// own (CLI11's subcom_in_files pattern, commands.hpp); setup_x sets the subcommand's callback, which runs the
// command when the parse finds it. main has the one try block: every error is one line on stderr, exit 2.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>

#include "aliases.hpp"
#include "commands.hpp"
#include "kvplan/format.hpp"
#include "kvplan/options.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/version.hpp"
#include "options.hpp"
#include "parse_errors.hpp"

namespace kvplan::cli {
namespace {

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

/// An error line as printed: whole up to 2,000 bytes; a longer one (a flag's 100 kB value echoed back) keeps
/// its first 1,000 and last 500 bytes around the count, so that the one line stays one readable line.
std::string readable(const std::string& line) {
  if (line.size() <= 2000) return line;
  // Never inside a UTF-8 character: the head ends before one, the tail starts at the next one.
  const std::size_t head = utf8_char_start(line, 1000);
  std::size_t tail = line.size() - 500;
  while (tail < line.size() && utf8_char_start(line, tail) != tail) ++tail;
  return line.substr(0, head) + " [... " + format_count(tail - head) + " bytes left out ...] " +
         line.substr(tail);
}

}  // namespace
}  // namespace kvplan::cli

int main(int argc, char** argv) {
  using namespace kvplan::cli;
  // A closed pipe (`kvplan fit ... | head`) makes a write fail with EPIPE instead of killing the process,
  // so it ends as docs/cli.md says: exit code 1 with one line (flush_stdout below).
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

  // The subcommands in the order --help lists them; each runs from its callback, after the parse completes
  // (app's parse_complete_callback first: empty values refused, the preset folders set).
  int rc = 2;
  setup_models(app, rc);
  setup_gpus(app, rc);
  setup_show(app, rc);
  setup_size(app, rc);
  setup_compare(app, rc);
  setup_fit(app, rc);
  setup_prefill(app, rc);
  app.parse_complete_callback([&] {
    reject_empty_values(app);
    kvplan::presets::set_option_preset_dirs({preset_dirs.begin(), preset_dirs.end()});
  });

  try {
    require_known_subcommand(app, argc, argv);
    // The engines' flag names (-tp) too; the subcommand's callback runs the command.
    parse_command_line(app, argc, argv);
    return finish_output(rc);
  } catch (const CLI::Success& e) {
    return finish_output(app.exit(e));
  } catch (const CLI::ParseError& e) {
    // App::exit prints through the failure_message hook; its exit codes are CLI11's, kvplan's is 2.
    std::ostringstream err;
    (void)app.exit(e, std::cout, err);
    std::string msg = err.str();
    if (const auto nl = msg.find('\n'); nl != std::string::npos) msg.resize(nl);
    std::fprintf(stderr, "kvplan: error: %s\n", readable(msg).c_str());
    return 2;
  } catch (const kvplan::Error& e) {
    // Core names an input by its key, as the field and in the reason; here each is worded as the flag the
    // user typed ("tp" -> "--tp", "use `pp` for a layer split" -> "use --pp for a layer split").
    const std::string field = cli_field(e.field()), reason = cli_words(e.reason());
    std::fprintf(stderr, "kvplan: error: %s\n",
                 readable(field.empty() ? reason : field + ": " + reason).c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "kvplan: error: out of memory: the input is too large to plan\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kvplan: error: %s\n", readable(e.what()).c_str());
    return 2;
  }
}
