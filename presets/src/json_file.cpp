// Reading JSON files: only regular files, at most kMaxJsonBytes, parsed by a SAX handler that bounds
// nesting and the number of values and keeps the JSON path of the value being parsed for errors.
//
// Why SAX and not json::parse with a callback: the callback makes nlohmann's DOM parser re-check the
// parent array after every object (quadratic: 21 s for a 1 MB array of empty objects), and the DOM
// parser's memory is bounded by neither depth nor count (4 MiB of "[" took 504 MB).
#include <array>
#include <cerrno>
#include <cstring>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif

#include <nlohmann/json.hpp>

#include "kvplan/format.hpp"
#include "kvplan/presets.hpp"

namespace kvplan::presets {

namespace {
using nlohmann::json;
namespace fs = std::filesystem;

/// Builds the document, counting values and levels; throws kvplan::Error naming the path on a limit.
class BoundedBuilder : public nlohmann::json_sax<json> {
 public:
  explicit BoundedBuilder(std::string file) : file_(std::move(file)) {}

  bool null() override { return put(json(nullptr)); }
  bool boolean(bool v) override { return put(json(v)); }
  bool number_integer(number_integer_t v) override { return put(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return put(json(v)); }
  bool number_float(number_float_t v, const string_t& /*text*/) override { return put(json(v)); }
  bool string(string_t& v) override { return put(json(std::move(v))); }
  bool binary(binary_t& v) override { return put(json::binary(std::move(v))); }
  bool start_object(std::size_t /*size*/) override { return open(json::object(), false); }
  bool start_array(std::size_t /*size*/) override { return open(json::array(), true); }
  bool key(string_t& k) override {
    Frame& f = frames_.back();
    // A key given twice: Python's json (transformers, vLLM) keeps the last value, other readers the first,
    // and nlohmann would keep the last without a word. Which one the author meant cannot be known, so the
    // file is refused, naming the key and both values (place() sees the second).
    f.duplicate = f.value->contains(k);
    f.key = std::move(k);
    return true;
  }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool parse_error(std::size_t /*pos*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& e) override {
    // nlohmann's message is one line: "[json.exception.parse_error.101] parse error at line 1, ...".
    std::string what = e.what();
    if (const auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    // A syntax error is located by line and column; a value the parser cannot hold (1e400) by its path.
    if (dynamic_cast<const json::parse_error*>(&e) != nullptr) throw Error(file_, "malformed JSON: " + what);
    throw Error(located(), what);
  }

  json take() { return std::move(root_); }

 private:
  struct Frame {
    json* value;
    bool array;
    std::string key;
    std::size_t index;
    bool duplicate = false;  ///< `key` is already in this object
  };

  /// "file: /a/3/b", or the file alone at the top level.
  [[nodiscard]] std::string located() const {
    if (frames_.empty()) return file_;
    std::string out = file_ + ": ";
    for (const auto& f : frames_) {
      out += '/';
      if (f.array) {
        out += std::to_string(f.index);
        continue;
      }
      // JSON Pointer syntax (RFC 6901): "~" as "~0", "/" as "~1".
      for (const char c : f.key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    }
    return out;
  }

  /// A value for a message: a scalar as JSON (at most 40 characters), a container by its type.
  static std::string shown(const json& v) {
    if (v.is_object()) return "an object";
    if (v.is_array()) return "an array";
    std::string s = v.dump();
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
  }

  void count() {
    if (++values_ > kMaxJsonValues)
      throw Error(located(),
                  "more than " + format_count(kMaxJsonValues) + " JSON values in the file (the limit)");
  }

  /// Stores v where the parser is (the root, the next array element, the current key) and returns it.
  json& place(json v) {
    if (frames_.empty()) {
      root_ = std::move(v);
      return root_;
    }
    Frame& f = frames_.back();
    if (f.array) {
      f.value->push_back(std::move(v));
      return f.value->back();
    }
    json& slot = (*f.value)[f.key];
    if (f.duplicate)
      throw Error(located(), "duplicate key: first " + shown(slot) + ", then " + shown(v) +
                                 "; JSON readers differ on which counts (Python's json, as "
                                 "transformers and vLLM read it, keeps the last): remove one");
    slot = std::move(v);
    return slot;
  }

  bool put(json v) {
    count();
    (void)place(std::move(v));
    advance();
    return true;
  }

  bool open(json container, bool array) {
    count();
    if (frames_.size() >= kMaxJsonDepth)
      throw Error(located(), "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels (the limit)");
    // Pointers to the open containers stay valid: a container only grows while it is the innermost.
    json& slot = place(std::move(container));
    frames_.push_back({&slot, array, {}, 0, false});
    return true;
  }

  bool close() {
    frames_.pop_back();
    advance();
    return true;
  }

  void advance() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }

  std::string file_;
  json root_;
  std::vector<Frame> frames_;
  std::size_t values_ = 0;
};
/// Python's json literals NaN, Infinity and -Infinity, outside strings, as JSON strings. Outside a string
/// the only other words are true, false and null, so no other text can match.
std::string quote_python_literals(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      out += ch;
      if (ch == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (ch == '"')
        in_string = false;
      continue;
    }
    if (ch == '"') in_string = true;
    bool literal = false;
    for (const std::string_view word : {"-Infinity", "Infinity", "NaN"})
      if (text.substr(i, word.size()) == word) {
        out += '"';
        out += word;
        out += '"';
        i += word.size() - 1;
        literal = true;
        break;
      }
    if (!literal) out += ch;
  }
  return out;
}
}  // namespace

void require_regular_file(const fs::path& path) {
  const std::string p = path.string();
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // follows symbolic links
  if (ec) {
    if (ec == std::errc::no_such_file_or_directory) {
      // A dangling link exists but names nothing.
      if (fs::is_symlink(fs::symlink_status(path, ec))) throw Error(p, "is a symbolic link to nothing");
      throw Error(p, "no such file");
    }
    if (ec == std::errc::too_many_symbolic_link_levels) throw Error(p, "is a symbolic link loop");
    throw Error(p, "cannot be read: " + ec.message());
  }
  switch (st.type()) {
    case fs::file_type::regular: return;
    case fs::file_type::not_found: throw Error(p, "no such file");
    case fs::file_type::directory: throw Error(p, "is a directory, not a file");
    case fs::file_type::fifo: throw Error(p, "is a FIFO (named pipe), not a regular file");
    case fs::file_type::character:
    case fs::file_type::block: throw Error(p, "is a device, not a regular file");
    case fs::file_type::socket: throw Error(p, "is a socket, not a regular file");
    default: throw Error(p, "is not a regular file");
  }
}

namespace {
/// The kernel's pseudo file system holding the open file `fd`, or null: their "regular" files report no
/// size and may block (/proc/kmsg, tracefs's trace_pipe) or be consumed by a read.
const char* pseudo_file_system([[maybe_unused]] int fd) {
#ifdef __linux__
  struct statfs fs_info {};
  if (fstatfs(fd, &fs_info) != 0) return nullptr;
  // linux/magic.h: PROC_SUPER_MAGIC, SYSFS_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC.
  switch (static_cast<unsigned long>(fs_info.f_type)) {
    case 0x9fa0UL: return "/proc";
    case 0x62656572UL: return "sysfs (/sys)";
    case 0x64626720UL: return "debugfs";
    case 0x74726163UL: return "tracefs";
    default: return nullptr;
  }
#else
  return nullptr;
#endif
}
}  // namespace

InputFile::InputFile(const fs::path& path) : path_(path.string()) {
  require_regular_file(path);
  // O_NONBLOCK: opening or reading a special file must not wait (require_regular_file looked at the path,
  // and what is opened may differ); O_NOCTTY: a terminal never becomes ours.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) throw Error(path_, "cannot be read: " + std::string(std::strerror(errno)));
  struct stat st {};
  const char* pseudo = nullptr;
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || (pseudo = pseudo_file_system(fd_)) != nullptr) {
    const std::string why = pseudo != nullptr
                                ? std::string("is a file of ") + pseudo + " (the kernel's, not a plain file)"
                                : "is not a regular file";
    ::close(fd_);
    fd_ = -1;
    throw Error(path_, why);
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t InputFile::read_some(char* into, std::size_t n) {
  for (;;) {
    const ssize_t got = ::read(fd_, into, n);
    if (got >= 0) return static_cast<std::size_t>(got);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) throw Error(path_, "a read would block: not a plain file");
    throw Error(path_, "cannot be read: " + std::string(std::strerror(errno)));
  }
}

std::string InputFile::read_exact(std::size_t n) {
  std::string out(n, '\0');
  std::size_t have = 0;
  while (have < n) {
    const std::size_t got = read_some(out.data() + have, n - have);
    if (got == 0)
      throw Error(path_, "truncated: it ended after " + std::to_string(have) + " of " + std::to_string(n) +
                             " more bytes");
    have += got;
  }
  return out;
}

std::optional<std::string> InputFile::read_all(std::size_t max) {
  std::string text;
  std::array<char, 1 << 16> buf{};
  for (;;) {
    const std::size_t got = read_some(buf.data(), buf.size());
    if (got == 0) return text;
    text.append(buf.data(), got);
    if (text.size() > max) return std::nullopt;
  }
}

json read_json_file(const fs::path& path, bool python_literals) {
  const std::string p = path.string();
  InputFile in(path);
  // Read at most the limit: a huge file is not a config.
  const auto text = in.read_all(kMaxJsonBytes);
  if (!text)
    throw Error(p, "is larger than " + format_count(kMaxJsonBytes >> 20) + " MiB (the limit): not a config");
  return parse_json_text(*text, p, python_literals);
}

json parse_json_text(std::string_view text, const std::string& origin, bool python_literals) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) throw Error(origin, "is empty");
  BoundedBuilder builder(origin);
  // The handler throws kvplan::Error itself; a false return cannot happen.
  if (python_literals) {
    const std::string quoted = quote_python_literals(text);
    json::sax_parse(quoted.begin(), quoted.end(), &builder);
  } else {
    json::sax_parse(text.begin(), text.end(), &builder);
  }
  // nlohmann's lexer reads a NUL byte as the end of the text (for C strings), so "{}\0garbage" parsed
  // whole; JSON has no raw NUL anywhere (RFC 8259: not even in a string), so the text is refused. (Text
  // that is malformed before its first NUL, a binary file, has its syntax error named above.)
  if (const auto nul = text.find('\0'); nul != std::string_view::npos)
    throw Error(origin,
                "malformed JSON: a NUL byte at offset " + std::to_string(nul) + " (JSON text has none)");
  return builder.take();
}

}  // namespace kvplan::presets
