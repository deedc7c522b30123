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

Diagnostics Simulation::evaluate_diagnostics(const Clock& clock, double dt, bool hidden) {
  DiagnosticsPlan& p = plan();
  LocalReductions local = p.local();
  reduce_diagnostics(clock, dt, local);
  return p.evaluate(communicator(), local, dt, hidden);
}

Diagnostics Simulation::diagnostics(const Clock& clock, double dt) { return evaluate_diagnostics(clock, dt, false); }

void Simulation::set_diagnostics_reference() { plan().set_reference(evaluate_diagnostics(Clock{}, 0.0, true)); }

void PhysicsRegistry::add(PhysicsEntry e) {
  STRATUS_REQUIRE(find(e.name) == nullptr, "physics '" << e.name << "' registered twice");
  entries_.push_back(std::move(e));
}

const PhysicsEntry* PhysicsRegistry::find(const std::string& name) const {
  for (const auto& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

RunEnd PhysicsRegistry::run_end(const std::string& name) const {
  const PhysicsEntry* e = find(name);
  return e ? e->end : RunEnd::at_time;
}

std::vector<std::string> PhysicsRegistry::names() const {
  std::vector<std::string> n;
  for (const auto& e : entries_) n.push_back(e.name);
  return n;
}

}  // namespace stratus
