// PhysicsRegistry bookkeeping.
#include "driver/simulation.hpp"

#include "core/error.hpp"

namespace stratus {

void PhysicsRegistry::add(PhysicsEntry e) {
  STRATUS_REQUIRE(find(e.name) == nullptr, "physics '" << e.name << "' registered twice");
  entries_.push_back(std::move(e));
}

const PhysicsEntry* PhysicsRegistry::find(const std::string& name) const {
  for (const auto& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

std::vector<std::string> PhysicsRegistry::names() const {
  std::vector<std::string> n;
  for (const auto& e : entries_) n.push_back(e.name);
  return n;
}

}  // namespace stratus
