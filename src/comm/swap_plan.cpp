// SwapPlan: the choice of the rank layout, the sub-domain geometry, the neighbours, the six ghost swaps
// and the selection kernel.
#include "comm/swap_plan.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "core/view_grow.hpp"
#include "domain/cart_decomp.hpp"

namespace stratus {

namespace {
const char* kAxis[3] = {"x", "y", "z"};
}  // namespace

Int3 SwapPlan::choose_dims(int nranks, Real3 lo, Real3 hi, std::array<bool, 3> periodic, Int3 req, double rc) {
  STRATUS_INPUT_REQUIRE(nranks >= 1, "md: rank count must be positive, got " << nranks);
  STRATUS_INPUT_REQUIRE(std::isfinite(rc) && rc > 0.0, "md: the cutoff + skin must be positive, got " << rc);
  for (int d = 0; d < 3; ++d) {
    STRATUS_INPUT_REQUIRE(
        std::isfinite(lo[d]) && std::isfinite(hi[d]) && hi[d] > lo[d],
        "md: the box must have hi > lo in " << kAxis[d] << ", got [" << lo[d] << ", " << hi[d] << ")");
    STRATUS_INPUT_REQUIRE(
        req[d] >= 0, "md: parallel.decomp: ranks in " << kAxis[d] << " must be >= 0 (0 = automatic), got " << req[d]);
  }
  // Narrowest sub-domain in direction d with p ranks, with the same bounds as the constructor.
  auto min_width = [&](int d, int p) {
    double w = std::numeric_limits<double>::max();
    for (int c = 0; c < p; ++c) {
      const double a = lo[d] + (hi[d] - lo[d]) * c / p;
      const double b = c + 1 == p ? hi[d] : lo[d] + (hi[d] - lo[d]) * (c + 1) / p;
      w = std::min(w, b - a);
    }
    return w;
  };
  // Every px * py * pz = nranks honouring the requested entries; the smallest sub-domain surface wins
  // (ties: the first in this order). best_any ignores the cutoff, for the error message.
  Int3 best{0, 0, 0}, best_any{0, 0, 0};
  double best_cost = std::numeric_limits<double>::max(), best_any_cost = best_cost;
  for (int px = 1; px <= nranks; ++px) {
    if (nranks % px) continue;
    for (int py = 1; py <= nranks / px; ++py) {
      if ((nranks / px) % py) continue;
      const Int3 p{px, py, nranks / px / py};
      bool honoured = true, wide = true;
      for (int d = 0; d < 3; ++d) {
        if (req[d] > 0 && p[d] != req[d]) honoured = false;
        if ((periodic[d] || p[d] > 1) && min_width(d, p[d]) < rc) wide = false;
      }
      if (!honoured) continue;
      const double l[3] = {(hi[0] - lo[0]) / px, (hi[1] - lo[1]) / py, (hi[2] - lo[2]) / p[2]};
      const double cost = l[0] * l[1] + l[1] * l[2] + l[2] * l[0];
      if (cost < best_any_cost) {
        best_any_cost = cost;
        best_any = p;
      }
      if (wide && cost < best_cost) {
        best_cost = cost;
        best = p;
      }
    }
  }
  if (best[0] > 0) return best;
  std::ostringstream os;
  if (best_any[0] == 0) {
    os << "md: no decomposition of " << nranks << " ranks matches parallel.decomp = " << req[0] << " " << req[1] << " "
       << req[2] << " (the ranks per direction must multiply to " << nranks << ")";
    throw InputError(os.str());
  }
  for (int d = 0; d < 3; ++d) {
    const int p = best_any[d];
    if (!(periodic[d] || p > 1) || min_width(d, p) >= rc) continue;
    const double len = hi[d] - lo[d];
    if (p == 1) {
      os << "md: the box is " << len << " wide in " << kAxis[d] << " (periodic), less than the cutoff + skin " << rc
         << ": use a larger box or a smaller cutoff";
    } else {
      os << "md: a sub-domain would be " << min_width(d, p) << " wide in " << kAxis[d] << " (box " << len << " over "
         << p << " ranks), less than the cutoff + skin " << rc << ": use fewer ranks in " << kAxis[d]
         << (req[d] > 0 ? " (parallel.decomp)" : " (parallel.decomp, or fewer MPI ranks)") << " or a larger box";
    }
    break;
  }
  throw InputError(os.str());
}

SwapPlan::SwapPlan(MPI_Comm comm, Real3 lo, Real3 hi, std::array<bool, 3> periodic, Int3 requested, double ghost_cutoff)
    : lo_(lo), hi_(hi), periodic_(periodic), rc_(ghost_cutoff) {
  int nranks = 1;
  MPI_Comm_size(comm, &nranks);
  dims_ = choose_dims(nranks, lo, hi, periodic, requested, ghost_cutoff);
  cart_ = create_cart_comm(comm, dims_, periodic_, coords_);
  MPI_Comm_rank(cart_, &rank_);
  MPI_Comm_size(cart_, &size_);
  for (int d = 0; d < 3; ++d) {
    len_[d] = hi_[d] - lo_[d];
    sub_lo_[d] = bound(coords_[d], d);
    sub_hi_[d] = bound(coords_[d] + 1, d);
    // Periodic shifts round: x + L may land a few ulps of the box beyond sub_hi + cutoff.
    const double margin =
        1e-6 * rc_ + 8.0 * std::numeric_limits<double>::epsilon() * (std::fabs(lo_[d]) + std::fabs(hi_[d]) + len_[d]);
    ghost_lo_[d] = sub_lo_[d] - rc_ - margin;
    ghost_hi_[d] = sub_hi_[d] + rc_ + margin;
    lower_[d] = neighbor_rank(d, -1);
    upper_[d] = neighbor_rank(d, +1);
  }
  // The swap plan: two per direction that has anybody to talk to.
  for (int d = 0; d < 3; ++d) {
    if (!periodic_[d] && dims_[d] == 1) continue;
    for (int to_lower = 1; to_lower >= 0; --to_lower) {
      Swap w;
      w.dim = d;
      w.to_lower = to_lower == 1;
      w.send_rank = w.to_lower ? lower_[d] : upper_[d];
      w.recv_rank = w.to_lower ? upper_[d] : lower_[d];
      w.self = dims_[d] == 1;
      w.bound = w.to_lower ? sub_lo_[d] + rc_ : sub_hi_[d] - rc_;
      if (w.to_lower && coords_[d] == 0) w.shift = len_[d];
      if (!w.to_lower && coords_[d] == dims_[d] - 1) w.shift = -len_[d];
      swaps_.push_back(w);
    }
  }
}

SwapPlan::~SwapPlan() {
  int fin = 0;
  MPI_Finalized(&fin);
  if (cart_ != MPI_COMM_NULL && !fin) MPI_Comm_free(&cart_);
}

double SwapPlan::bound(int c, int d) const {
  return c == dims_[d] ? hi_[d] : lo_[d] + (hi_[d] - lo_[d]) * c / dims_[d];
}

bool SwapPlan::owns(double x, double y, double z) const {
  const double r[3] = {x, y, z};
  for (int d = 0; d < 3; ++d)
    if (!(r[d] >= sub_lo_[d] && r[d] < sub_hi_[d])) return false;
  return true;
}

int SwapPlan::neighbor_rank(int d, int offset) const {
  int c[3] = {coords_[0], coords_[1], coords_[2]};
  c[d] += offset;
  if (c[d] < 0 || c[d] >= dims_[d]) {
    if (!periodic_[d]) return -1;
    c[d] = (c[d] + dims_[d]) % dims_[d];
  }
  int mcoord[3] = {c[2], c[1], c[0]};
  int r = -1;
  STRATUS_MPI_CHECK(MPI_Cart_rank(cart_, mcoord, &r));
  return r;
}

int select_rows(const ParticleVec& x, int n, Swap& w) {
  grow_rows(w.list, n, "particle_comm::send_list");
  const auto list = w.list;
  const int d = w.dim;
  const bool to_lower = w.to_lower;
  const double bound = w.bound;
  int count = 0;
  Kokkos::parallel_scan(
      "particle_comm::select", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(int i, int& pos, bool final) {
        const double xd = x(i, d);
        if (to_lower ? xd < bound : xd >= bound) {
          if (final) list(pos) = i;
          ++pos;
        }
      },
      count);
  w.n_send = count;
  return count;
}

}  // namespace stratus
