// A Catch2 matcher for exceptions whose message contains every one of several parts.
#pragma once
#include <catch2/catch.hpp>

#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"

// Matches an exception whose what() contains every one of `parts` (Contains works on strings only).
class MessageContains : public Catch::MatcherBase<std::exception> {
 public:
  explicit MessageContains(std::vector<std::string> parts) : parts_(std::move(parts)) {}
  bool match(const std::exception& e) const override {
    const std::string msg = e.what();
    for (const auto& p : parts_)
      if (msg.find(p) == std::string::npos) return false;
    return true;
  }
  std::string describe() const override {
    std::string d = "has a message containing";
    for (const auto& p : parts_) d += " '" + p + "'";
    return d;
  }

 private:
  std::vector<std::string> parts_;
};

// The message of the InputError that f throws (the case fails when it throws none).
inline std::string input_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const stratus::InputError& e) {
    return e.what();
  }
  FAIL("expected an InputError");
  return {};
}
