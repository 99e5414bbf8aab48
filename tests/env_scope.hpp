#pragma once
// An environment variable set for one scope (the Hub and cache tests).
#include <cstdlib>
#include <optional>
#include <string>

namespace kvplan::test {

/// Sets (or, with nullptr, unsets) an environment variable for one scope, then restores it.
class EnvScope {
 public:
  EnvScope(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~EnvScope() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  EnvScope(const EnvScope&) = delete;
  EnvScope& operator=(const EnvScope&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace kvplan::test
