#include "parse_errors.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include "aliases.hpp"
#include "kvplan/format.hpp"

namespace kvplan::cli {

namespace {
/// The app and the commands the user gave, innermost last ("kvplan", "kvplan size").
std::vector<const CLI::App*> parsed_chain(const CLI::App* app) {
  std::vector<const CLI::App*> chain{app};
  while (true) {
    const auto subs = chain.back()->get_subcommands();
    if (subs.empty()) return chain;
    chain.push_back(subs.front());
  }
}

/// "`kvplan size`": the command as typed.
std::string command_name(const std::vector<const CLI::App*>& chain) {
  std::string out = "kvplan";
  for (std::size_t i = 1; i < chain.size(); ++i) out += " " + chain[i]->get_name();
  return out;
}

/// Every option of the given commands, their option groups included ("model by flags").
void collect_options(const CLI::App* app, std::vector<const CLI::Option*>& out) {
  for (const CLI::Option* o : app->get_options()) out.push_back(o);
  for (const CLI::App* group : app->get_subcommands([](const CLI::App* a) { return a->get_name().empty(); }))
    collect_options(group, out);
}

std::vector<const CLI::Option*> options_of(const std::vector<const CLI::App*>& chain) {
  std::vector<const CLI::Option*> out;
  for (const CLI::App* a : chain) collect_options(a, out);
  return out;
}

/// The option whose name CLI11's message gives as a whole word: CLI11 2.1.2 keeps no other trace of the
/// option that lacks a value or failed to convert. The longest name wins (--kv-dtype, not --kv).
const CLI::Option* named_in(const std::string& message, const std::vector<const CLI::Option*>& options) {
  const CLI::Option* best = nullptr;
  const auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  };
  for (const CLI::Option* o : options) {
    const std::string name = o->get_name();
    if (name.empty() || (best && best->get_name().size() >= name.size())) continue;
    for (std::size_t at = message.find(name); at != std::string::npos; at = message.find(name, at + 1)) {
      const std::size_t end = at + name.size();
      if ((at == 0 || !word_char(message[at - 1])) && (end == message.size() || !word_char(message[end]))) {
        best = o;
        break;
      }
    }
  }
  return best;
}

/// By class: CLI11 names some errors after the app ("kvplan" for ExtrasError), not their type.
template <class T>
bool is(const CLI::Error& e) {
  return dynamic_cast<const T*>(&e) != nullptr;
}

std::string joined(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "'" : ", '") + printable(v) + "'";
  return out;
}
}  // namespace

std::string parse_error_message(const CLI::App* app, const CLI::Error& e) {
  const auto chain = parsed_chain(app);
  const std::string cmd = command_name(chain);
  const std::string help = " (" + cmd + " --help)";
  const auto options = options_of(chain);
  const std::string what = e.what();

  if (is<CLI::ExtrasError>(e)) {
    std::vector<std::string> extra;
    for (const CLI::App* a : chain)
      for (auto& r : a->remaining()) extra.push_back(r);
    if (extra.empty()) return "unexpected arguments" + help;
    const std::string& first = extra.front();
    const std::string more =
        extra.size() > 1 ? " (and " + format_count(extra.size() - 1, "more", "more") + ")" : "";
    // An option of the command left over: it came after `--`, which ends the options (CLI11 reads what
    // follows as arguments).
    if (std::any_of(options.begin(), options.end(),
                    [&](const CLI::Option* o) { return o->check_name(first); }))
      return printable(first) +
             ": read as an argument, not an option: it follows `--`, which ends the options; "
             "give it before `--`" +
             help;
    if (!first.empty() && first[0] == '-')
      return printable(first) + ": not an option of `" + cmd + "`" + more + help;
    const bool takes_positional = std::any_of(options.begin(), options.end(), [](const CLI::Option* o) {
      return o->get_positional() && !o->nonpositional();
    });
    return "'" + printable(first) + "': unexpected argument" + more + "; `" + cmd + "` takes " +
           (takes_positional ? "one MODEL" : "no arguments") + help;
  }
  if (is<CLI::RequiredError>(e)) {
    for (const CLI::Option* o : options)
      if (o->get_required() && o->count() == 0)
        return typed_flag(o->get_name()) + ": missing (required by `" + cmd + "`)";
    if (chain.size() == 1) {
      // `kvplan --frob`: the unknown flag is the mistake to name, before the missing command.
      const auto extra = app->remaining();
      if (!extra.empty() && !extra.front().empty() && extra.front()[0] == '-')
        return printable(extra.front()) + ": not an option of `kvplan`; give a command first (kvplan --help)";
      std::string known;
      for (const CLI::App* sub : app->get_subcommands({}))
        if (!sub->get_name().empty()) known += (known.empty() ? "" : ", ") + sub->get_name();
      return "a command is required: " + known + " (kvplan --help)";
    }
  }
  const CLI::Option* o = named_in(what, options);
  // "A excludes B" / "A requires B": each side on its own (the longest name in the whole message may be B's).
  const std::string verb = is<CLI::ExcludesError>(e) ? " excludes " : " requires ";
  const std::size_t verb_at = what.find(verb);
  const bool pair = (is<CLI::ExcludesError>(e) || is<CLI::RequiresError>(e)) && verb_at != std::string::npos;
  if (pair) o = named_in(what.substr(0, verb_at), options);
  if (o != nullptr) {
    // Named as the user spelled it ("--max-model-len", not kvplan's "--context").
    const std::string name = o->get_name(), flag = typed_flag(name);
    if (is<CLI::ArgumentMismatch>(e)) {
      // More values than it takes: given more than once (CLI11 counts each occurrence); else too few.
      if (o->count() > 1 && o->results().size() > static_cast<std::size_t>(o->get_items_expected_max()))
        return flag + ": given " + format_count(o->count()) + " times; give it once";
      return flag + ": needs a value" + help;
    }
    if (is<CLI::ConversionError>(e))
      return flag +
             (o->get_expected_max() == 0 ? ": is a flag and takes no value (or true / false), got "
                                         : ": cannot read ") +
             joined(o->results());
    if (is<CLI::ValidationError>(e)) return flag + ": invalid value " + joined(o->results());
    if (is<CLI::ExcludesError>(e) || is<CLI::RequiresError>(e)) {
      std::vector<const CLI::Option*> others;
      for (const CLI::Option* x : options)
        if (x != o) others.push_back(x);
      const CLI::Option* other = named_in(
          pair ? what.substr(verb_at + verb.size()) : what.substr(what.find(name) + name.size()), others);
      const std::string with = other ? typed_flag(other->get_name()) : std::string("another option");
      return flag + (is<CLI::ExcludesError>(e) ? ": cannot be given with " : ": needs ") + with;
    }
    if (is<CLI::RequiredError>(e)) return flag + ": missing (required by `" + cmd + "`)";
  }
  // Past every case above (CLI11 errors kvplan's options cannot raise): CLI11's words, marked as such.
  return "command line: " + printable(what) + help;
}

}  // namespace kvplan::cli
