// Diagnostics a simulation declares once: named columns of the history table, each reduced over the
// cells (or atoms) and ranks with its operation (sum, min, max), optionally finished on the host (a
// scale, a square root, a product with the step), or derived from other columns (a relative change
// against the value at time 0). The physics fills this rank's partial values in one fused device
// reduction (core/reduction.hpp); the framework does one MPI reduction per operation and the rest.
#pragma once
#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "core/reduction.hpp"

namespace stratus {

/// Named scalar diagnostics for the history table and the log (values identical on every rank).
struct Diagnostics {
  std::vector<std::string> names;
  std::vector<double> values;
  void add(const std::string& name, double v) {
    names.push_back(name);
    values.push_back(v);
  }
  /// The value of a column, or nullptr when there is none of that name.
  const double* find(const std::string& name) const;
  /// The value of a column; Error (a bug) when there is none of that name.
  double get(const std::string& name) const;
};

class DiagnosticsPlan {
 public:
  DiagnosticsPlan() = default;
  DiagnosticsPlan(const DiagnosticsPlan&) = delete;  // derived columns refer to the plan's reference row
  DiagnosticsPlan& operator=(const DiagnosticsPlan&) = delete;
  /// Host step applied to a reduced value: f(value, dt), dt the step just taken.
  using Finish = std::function<double(double, double)>;
  /// A column computed from the columns before it (finished values), and dt.
  using Derive = std::function<double(const Diagnostics&, double)>;

  /// Declares a reduced column; returns its slot in the fused reduction (0, 1, ... in declaration order).
  int sum(const std::string& name, Finish finish = {}) { return reduced(name, ReduceOp::sum, std::move(finish)); }
  int min(const std::string& name, Finish finish = {}) { return reduced(name, ReduceOp::min, std::move(finish)); }
  int max(const std::string& name, Finish finish = {}) { return reduced(name, ReduceOp::max, std::move(finish)); }
  /// Declares a summed quantity that derived columns use but the history table does not show.
  int hidden_sum(const std::string& name, Finish finish = {}) {
    const int s = sum(name, std::move(finish));
    columns_.back().hidden = true;
    return s;
  }
  /// Declares a column computed on the host from the columns declared before it.
  void derived(const std::string& name, Derive derive);
  /// Declares `name` = (x - x0) / scale0 for the column `of`, x0 its value at the reference (see
  /// set_reference) and scale0 that of the column `scale` (default: `of` itself).
  void relative_change(const std::string& name, const std::string& of, const std::string& scale = "");
  /// Declares the L1, L2 (root mean square) and max norms of an error over `cells` cells: three reduced
  /// columns err_l1, err_l2, err_max; the kernel adds |e| and e^2 to the first two slots and raises the third
  /// with |e|; returns the first of the three slots. With shown = false the columns are hidden (a case
  /// without an exact solution keeps the same slots).
  int error_norms(double cells, bool shown = true);

  /// The operations of the reduced slots, and a buffer of their identities.
  LocalReductions local() const;
  int slots() const { return static_cast<int>(ops_.size()); }
  /// Collective over comm: the row from this rank's partial values (hidden columns too with `hidden`).
  Diagnostics evaluate(MPI_Comm comm, const LocalReductions& local, double dt, bool hidden = false) const;
  /// Records the reference values of relative_change columns from a row of this plan (with hidden columns).
  void set_reference(const Diagnostics& d) {
    reference_ = d;
    has_reference_ = true;
  }
  bool has_reference() const { return has_reference_; }

 private:
  struct Column {
    std::string name;
    int slot = -1;  // reduced columns; -1: derived
    Finish finish;
    Derive derive;
    bool hidden = false;
  };
  int reduced(const std::string& name, ReduceOp op, Finish finish);
  void check_new(const std::string& name) const;
  std::vector<Column> columns_;
  std::vector<ReduceOp> ops_;
  Diagnostics reference_;
  bool has_reference_ = false;
};

}  // namespace stratus
