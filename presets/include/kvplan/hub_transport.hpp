#pragma once
/// @file hub_transport.hpp
/// For tests and the fuzz target only (fuzz/fuzz_hub.cpp): a stand-in for libcurl under the Hub fetch
/// (hub_fetch.hpp). With one set, every Hub request goes to it instead of the network, and its reply goes
/// through the same header and body handling, limits, status checks and error words as libcurl's. libcurl
/// stays the transport of every program that sets none.

#include <functional>
#include <string>
#include <vector>

namespace kvplan::presets::testing {

/// One Hub request: the URL, the byte range asked for ("a-b", empty for none), whether it carries the
/// token (an Authorization header), and the most body bytes the fetch keeps of it.
struct HubRequest {
  std::string url;
  std::string range;
  bool authorized = false;
  std::size_t limit = 0;
};

/// A transport's answer. `outcome` stands for libcurl's result: ok (the whole response came), timed_out
/// (CURLE_OPERATION_TIMEDOUT), unreachable (CURLE_COULDNT_CONNECT), truncated (CURLE_PARTIAL_FILE),
/// cancelled (CURLE_ABORTED_BY_CALLBACK), failed (any other). `header_lines` are the raw header lines of
/// every response on the way, as libcurl hands them over ("HTTP/1.1 302 Found", "X-Repo-Commit: ..."),
/// `status` the last response's code, `body` its body.
struct HubReply {
  enum class Outcome { ok, timed_out, unreachable, truncated, cancelled, failed };
  Outcome outcome = Outcome::ok;
  long status = 0;
  std::vector<std::string> header_lines;
  std::string body;
};

using HubTransport = std::function<HubReply(const HubRequest&)>;

/// Sets the transport of every later Hub request in this process; an empty one restores libcurl. Not
/// thread-safe: set it before any fetch starts.
void set_hub_transport(HubTransport transport);

}  // namespace kvplan::presets::testing
