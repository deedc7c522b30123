// The diagnostics plumbing of Simulation, and PhysicsRegistry bookkeeping.
#include "driver/simulation.hpp"

#include "core/error.hpp"

namespace stratus {

DiagnosticsPlan& Simulation::plan() {
  if (!plan_) {
    plan_ = std::make_unique<DiagnosticsPlan>();
    declare_diagnostics(*plan_);
  }
  return *plan_;
}

Diagnostics Simulation::diagnostics(const Clock& clock, double dt) {
  DiagnosticsPlan& p = plan();
  LocalReductions local = p.local();
  reduce_diagnostics(clock, dt, local);
  return p.evaluate(communicator(), local, dt);
}

void Simulation::set_diagnostics_reference() {
  DiagnosticsPlan& p = plan();
  LocalReductions local = p.local();
  reduce_diagnostics(Clock{}, 0.0, local);
  p.set_reference(p.evaluate(communicator(), local, 0.0, true));
}

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
