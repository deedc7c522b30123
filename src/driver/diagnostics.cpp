// Declared diagnostics: the columns, their global reduction and the host-side finish.
#include "driver/diagnostics.hpp"

#include <cmath>

#include "core/error.hpp"

namespace stratus {

const double* Diagnostics::find(const std::string& name) const {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return &values[i];
  return nullptr;
}

double Diagnostics::get(const std::string& name) const {
  const double* v = find(name);
  STRATUS_REQUIRE(v != nullptr, "no diagnostic named '" << name << "'");
  return *v;
}

void DiagnosticsPlan::check_new(const std::string& name) const {
  for (const auto& c : columns_) STRATUS_REQUIRE(c.name != name, "diagnostic '" << name << "' declared twice");
}

int DiagnosticsPlan::reduced(const std::string& name, ReduceOp op, Finish finish) {
  check_new(name);
  const int slot = static_cast<int>(ops_.size());
  ops_.push_back(op);
  columns_.push_back(Column{name, slot, std::move(finish), {}});
  return slot;
}

void DiagnosticsPlan::derived(const std::string& name, Derive derive) {
  check_new(name);
  columns_.push_back(Column{name, -1, {}, std::move(derive)});
}

void DiagnosticsPlan::relative_change(const std::string& name, const std::string& of, const std::string& scale) {
  const std::string by = scale.empty() ? of : scale;
  derived(name, [this, of, by](const Diagnostics& d, double) {
    const Diagnostics& ref = has_reference_ ? reference_ : d;
    const double s = ref.get(by);
    return s != 0.0 ? (d.get(of) - ref.get(of)) / s : 0.0;
  });
}

int DiagnosticsPlan::error_norms(double cells, bool shown) {
  const int first = sum("err_l1", [cells](double s, double) { return s / cells; });
  sum("err_l2", [cells](double s, double) { return std::sqrt(s / cells); });
  max("err_max");
  for (std::size_t c = columns_.size() - 3; c < columns_.size(); ++c) columns_[c].hidden = !shown;
  return first;
}

LocalReductions DiagnosticsPlan::local() const {
  LocalReductions l;
  l.ops = ops_;
  l.reset();
  return l;
}

Diagnostics DiagnosticsPlan::evaluate(MPI_Comm comm, const LocalReductions& local, double dt, bool hidden) const {
  STRATUS_REQUIRE(local.ops == ops_, "diagnostics: the local reductions do not match the plan");
  const std::vector<double> global = allreduce(comm, local);
  Diagnostics d;
  for (const auto& c : columns_) {
    if (c.slot < 0) continue;
    const double v = global[static_cast<std::size_t>(c.slot)];
    d.add(c.name, c.finish ? c.finish(v, dt) : v);
  }
  // Derived columns see the reduced ones (and the derived ones before them); then the declared order.
  for (const auto& c : columns_)
    if (c.slot < 0) d.add(c.name, c.derive(d, dt));
  Diagnostics row;
  for (const auto& c : columns_)
    if (hidden || !c.hidden) row.add(c.name, d.get(c.name));
  return row;
}

}  // namespace stratus
