// ParticleComm: choice of the decomposition, migration (exchange), ghost swaps (borders) and their
// replays (forward, reverse). Kernels are free functions in the anonymous namespace (CUDA does not allow
// device lambdas in private member functions); members only sequence them around the MPI calls.
#include "comm/particle_comm.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include "core/agree.hpp"
#include "core/error.hpp"
#include "domain/cart_decomp.hpp"

namespace stratus {

namespace {

const char* kAxis[3] = {"x", "y", "z"};
// Whether MPI can read the default memory space directly (true on host backends).
constexpr bool kHostAccessible = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
constexpr int kMigrant = 12;  // doubles per migrating atom: x[3], v[3], type, id, image[3], q
constexpr int kBorder = 6;    // doubles per ghost atom: x[3], type, id, q
// Message tags, one range per operation (the swap or direction index is added).
constexpr int kTagExchange = 100, kTagBorders = 200, kTagForward = 300, kTagReverse = 400;

using RowList = Kokkos::View<int*, MemSpace>;
using Policy = Kokkos::RangePolicy<ExecSpace>;

// What migrate() does with an owned atom in one direction.
enum Move : int { kKeep = 0, kLower = 1, kUpper = 2, kFaceLower = 3, kFaceUpper = 4, kTooFar = 5 };

// One direction of the decomposition, as the migration kernels need it.
struct Axis {
  int d;
  double slo, shi;     // this rank's sub-domain
  double lo, hi, len;  // the box
  int coord, dims;
  bool periodic;
};

template <class V>
void ensure(V& v, long long n, const char* label) {
  if (static_cast<long long>(v.extent(0)) >= n && v.data() != nullptr) return;
  v = V(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), static_cast<std::size_t>(n + n / 5 + 64));
}

// Flags every owned atom (kKeep, kLower, kUpper or an error) and wraps in place those that cross the
// periodic boundary, updating their image flags. A wrapped coordinate that rounds to hi was within
// rounding of lo: it is set to lo and does not cross (its image flag stays). Returns the first row with
// an error flag, or INT_MAX.
int classify(const ParticleVec& x, const ParticleImage& image, const RowList& flag, int n, const Axis a) {
  int first = std::numeric_limits<int>::max();
  Kokkos::parallel_reduce(
      "particle_comm::classify", Policy(0, n),
      KOKKOS_LAMBDA(int i, int& bad) {
        const double xd = x(i, a.d);
        int f = kKeep;
        if (xd < a.slo) {
          if (a.coord > 0) {
            f = kLower;
          } else if (!a.periodic) {
            f = kFaceLower;
          } else {
            const double xn = xd + a.len;
            if (xn >= a.hi) {
              x(i, a.d) = a.lo;
            } else if (a.dims == 1 && xn < a.lo) {
              f = kTooFar;
            } else {
              x(i, a.d) = xn;
              image(i, a.d) -= 1;
              f = a.dims == 1 ? kKeep : kLower;
            }
          }
        } else if (xd >= a.shi) {
          if (a.coord < a.dims - 1) {
            f = kUpper;
          } else if (!a.periodic) {
            f = kFaceUpper;
          } else {
            double xn = xd - a.len;
            if (a.dims == 1 && xn >= a.hi) {
              f = kTooFar;
            } else {
              if (xn < a.lo) xn = a.lo;
              x(i, a.d) = xn;
              image(i, a.d) += 1;
              f = a.dims == 1 ? kKeep : kUpper;
            }
          }
        }
        flag(i) = f;
        if (f >= kFaceLower && i < bad) bad = i;
      },
      Kokkos::Min<int>(first));
  return first;
}

// Exclusive prefix counts of the atoms moving down (high 32 bits) and up (low 32 bits) before each row,
// in one scan; the low half cannot carry into the high one because n < 2^31. Returns the totals.
long long scan_moves(const RowList& flag, const Kokkos::View<long long*, MemSpace>& prefix, int n) {
  long long total = 0;
  Kokkos::parallel_scan(
      "particle_comm::scan_moves", Policy(0, n),
      KOKKOS_LAMBDA(int i, long long& acc, bool final) {
        if (final) prefix(i) = acc;
        const int f = flag(i);
        acc += f == kLower ? (1LL << 32) : (f == kUpper ? 1LL : 0LL);
      },
      total);
  return total;
}

// Copies every owned atom into buf: the kept ones first (in order), then those moving down, then those
// moving up, kMigrant doubles each.
void pack_migrants(const Particles& p, const RowList& flag, const Kokkos::View<long long*, MemSpace>& prefix, int n,
                   int n_keep, int n_lower, const Buffer1D& buf) {
  const auto x = p.x, v = p.v;
  const auto type = p.type;
  const auto id = p.id;
  const auto image = p.image;
  const auto q = p.q;
  Kokkos::parallel_for(
      "particle_comm::pack_migrants", Policy(0, n), KOKKOS_LAMBDA(int i) {
        const long long pre = prefix(i);
        const int below_lower = static_cast<int>(pre >> 32);
        const int below_upper = static_cast<int>(pre & 0xffffffffLL);
        const int f = flag(i);
        const int dest = f == kLower   ? n_keep + below_lower
                         : f == kUpper ? n_keep + n_lower + below_upper
                                       : i - below_lower - below_upper;
        const long long b = static_cast<long long>(dest) * kMigrant;
        for (int k = 0; k < 3; ++k) {
          buf(b + k) = x(i, k);
          buf(b + 3 + k) = v(i, k);
          buf(b + 8 + k) = static_cast<double>(image(i, k));
        }
        buf(b + 6) = static_cast<double>(type(i));
        buf(b + 7) = static_cast<double>(id(i));
        buf(b + 11) = q(i);
      });
}

// Writes count atoms from buf (from atom offset `from`) to rows first .. first + count - 1. With check,
// returns the first written row whose coordinate d lies outside [slo, shi), or INT_MAX.
int unpack_migrants(const Particles& p, const Buffer1D& buf, int from, int first, int count, bool check, int d,
                    double slo, double shi) {
  const auto x = p.x, v = p.v;
  const auto type = p.type;
  const auto id = p.id;
  const auto image = p.image;
  const auto q = p.q;
  int bad_row = std::numeric_limits<int>::max();
  Kokkos::parallel_reduce(
      "particle_comm::unpack_migrants", Policy(0, count),
      KOKKOS_LAMBDA(int j, int& bad) {
        const long long b = static_cast<long long>(from + j) * kMigrant;
        const int i = first + j;
        for (int k = 0; k < 3; ++k) {
          x(i, k) = buf(b + k);
          v(i, k) = buf(b + 3 + k);
          image(i, k) = static_cast<int>(buf(b + 8 + k));
        }
        type(i) = static_cast<int>(buf(b + 6));
        id(i) = static_cast<long long>(buf(b + 7));
        q(i) = buf(b + 11);
        if (check && !(x(i, d) >= slo && x(i, d) < shi) && i < bad) bad = i;
      },
      Kokkos::Min<int>(bad_row));
  return bad_row;
}

// Rows 0 .. n - 1 with x_d < bound (to_lower) or x_d >= bound, in order, into list; returns their count.
int select_rows(const ParticleVec& x, int n, int d, bool to_lower, double bound, const RowList& list) {
  int count = 0;
  Kokkos::parallel_scan(
      "particle_comm::select", Policy(0, n),
      KOKKOS_LAMBDA(int i, int& pos, bool final) {
        const double xd = x(i, d);
        if (to_lower ? xd < bound : xd >= bound) {
          if (final) list(pos) = i;
          ++pos;
        }
      },
      count);
  return count;
}

void pack_border(const Particles& p, const RowList& list, int count, int d, double shift, const Buffer1D& buf) {
  const auto x = p.x;
  const auto type = p.type;
  const auto id = p.id;
  const auto q = p.q;
  Kokkos::parallel_for(
      "particle_comm::pack_border", Policy(0, count), KOKKOS_LAMBDA(int j) {
        const int i = list(j);
        const long long b = static_cast<long long>(j) * kBorder;
        for (int k = 0; k < 3; ++k) buf(b + k) = k == d ? x(i, k) + shift : x(i, k);
        buf(b + 3) = static_cast<double>(type(i));
        buf(b + 4) = static_cast<double>(id(i));
        buf(b + 5) = q(i);
      });
}

void unpack_border(const Particles& p, const Buffer1D& buf, int first, int count) {
  const auto x = p.x;
  const auto type = p.type;
  const auto id = p.id;
  const auto q = p.q;
  Kokkos::parallel_for(
      "particle_comm::unpack_border", Policy(0, count), KOKKOS_LAMBDA(int j) {
        const int i = first + j;
        const long long b = static_cast<long long>(j) * kBorder;
        for (int k = 0; k < 3; ++k) x(i, k) = buf(b + k);
        type(i) = static_cast<int>(buf(b + 3));
        id(i) = static_cast<long long>(buf(b + 4));
        q(i) = buf(b + 5);
      });
}

// A swap to this rank itself: rows list(j) are copied to first + j (which lie beyond every listed row).
void copy_border(const Particles& p, const RowList& list, int count, int d, double shift, int first) {
  const auto x = p.x;
  const auto type = p.type;
  const auto id = p.id;
  const auto q = p.q;
  Kokkos::parallel_for(
      "particle_comm::copy_border", Policy(0, count), KOKKOS_LAMBDA(int j) {
        const int i = list(j), g = first + j;
        for (int k = 0; k < 3; ++k) x(g, k) = k == d ? x(i, k) + shift : x(i, k);
        type(g) = type(i);
        id(g) = id(i);
        q(g) = q(i);
      });
}

void pack_x(const ParticleVec& x, const RowList& list, int count, int d, double shift, const Buffer1D& buf) {
  Kokkos::parallel_for(
      "particle_comm::pack_x", Policy(0, count), KOKKOS_LAMBDA(int j) {
        const int i = list(j);
        for (int k = 0; k < 3; ++k) buf(3LL * j + k) = k == d ? x(i, k) + shift : x(i, k);
      });
}

void unpack_x(const ParticleVec& x, const Buffer1D& buf, int first, int count) {
  Kokkos::parallel_for(
      "particle_comm::unpack_x", Policy(0, count), KOKKOS_LAMBDA(int j) {
        for (int k = 0; k < 3; ++k) x(first + j, k) = buf(3LL * j + k);
      });
}

void copy_x(const ParticleVec& x, const RowList& list, int count, int d, double shift, int first) {
  Kokkos::parallel_for(
      "particle_comm::copy_x", Policy(0, count), KOKKOS_LAMBDA(int j) {
        const int i = list(j);
        for (int k = 0; k < 3; ++k) x(first + j, k) = k == d ? x(i, k) + shift : x(i, k);
      });
}

void copy_rows(const ParticleVec& dst, const ParticleVec& src, int n) {
  Kokkos::parallel_for(
      "particle_comm::copy_rows", Policy(0, n), KOKKOS_LAMBDA(int i) {
        for (int k = 0; k < 3; ++k) dst(i, k) = src(i, k);
      });
}

void pack_rows(const ParticleVec& a, int first, int count, const Buffer1D& buf) {
  Kokkos::parallel_for(
      "particle_comm::pack_rows", Policy(0, count), KOKKOS_LAMBDA(int j) {
        for (int k = 0; k < 3; ++k) buf(3LL * j + k) = a(first + j, k);
      });
}

// The rows of one swap's list are distinct, so the sums need no atomics.
void add_rows(const ParticleVec& a, const RowList& list, int count, const Buffer1D& buf) {
  Kokkos::parallel_for(
      "particle_comm::add_rows", Policy(0, count), KOKKOS_LAMBDA(int j) {
        const int i = list(j);
        for (int k = 0; k < 3; ++k) a(i, k) += buf(3LL * j + k);
      });
}

void add_self(const ParticleVec& a, const RowList& list, int count, int first) {
  Kokkos::parallel_for(
      "particle_comm::add_self", Policy(0, count), KOKKOS_LAMBDA(int j) {
        const int i = list(j);
        for (int k = 0; k < 3; ++k) a(i, k) += a(first + j, k);
      });
}

// "atom 123 at (1.5, 2, 3.25)", read from the device (error path only).
std::string describe_atom(const Particles& p, int row) {
  double xh[3];
  long long idh = 0;
  for (int k = 0; k < 3; ++k) Kokkos::deep_copy(xh[k], Kokkos::subview(p.x, row, k));
  Kokkos::deep_copy(idh, Kokkos::subview(p.id, row));
  std::ostringstream os;
  os << std::setprecision(10) << "atom " << idh << " at (" << xh[0] << ", " << xh[1] << ", " << xh[2] << ")";
  return os.str();
}

constexpr const char* kUnstable = ": the time step is too large or the system is unstable";

}  // namespace

Int3 ParticleComm::choose_dims(int nranks, Real3 lo, Real3 hi, std::array<bool, 3> periodic, Int3 req, double rc) {
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

ParticleComm::ParticleComm(MPI_Comm comm, Real3 lo, Real3 hi, std::array<bool, 3> periodic, Int3 requested,
                           double ghost_cutoff)
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

ParticleComm::~ParticleComm() {
  int fin = 0;
  MPI_Finalized(&fin);
  if (cart_ != MPI_COMM_NULL && !fin) MPI_Comm_free(&cart_);
}

double ParticleComm::bound(int c, int d) const {
  return c == dims_[d] ? hi_[d] : lo_[d] + (hi_[d] - lo_[d]) * c / dims_[d];
}

bool ParticleComm::owns(double x, double y, double z) const {
  const double r[3] = {x, y, z};
  for (int d = 0; d < 3; ++d)
    if (!(r[d] >= sub_lo_[d] && r[d] < sub_hi_[d])) return false;
  return true;
}

int ParticleComm::neighbor_rank(int d, int offset) const {
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

int ParticleComm::transfer_count(int n, int to, int from, int tag) {
  int got = 0;
  if (to >= 0 && from >= 0)
    STRATUS_MPI_CHECK(MPI_Sendrecv(&n, 1, MPI_INT, to, tag, &got, 1, MPI_INT, from, tag, cart_, MPI_STATUS_IGNORE));
  else if (to >= 0)
    STRATUS_MPI_CHECK(MPI_Send(&n, 1, MPI_INT, to, tag, cart_));
  else if (from >= 0)
    STRATUS_MPI_CHECK(MPI_Recv(&got, 1, MPI_INT, from, tag, cart_, MPI_STATUS_IGNORE));
  return got;
}

void ParticleComm::transfer(const Buffer1D& sbuf, long long s_off, int n_send, int to, const Buffer1D& rbuf,
                            long long r_off, int n_recv, int from, int tag) {
  if (to < 0) n_send = 0;
  if (from < 0) n_recv = 0;
  double* sp = nullptr;
  double* rp = nullptr;
  ExecSpace().fence();  // the pack kernels are done before MPI reads
  if (kHostAccessible) {
    if (n_send > 0) sp = sbuf.data() + s_off;
    if (n_recv > 0) rp = rbuf.data() + r_off;
  } else {
    if (n_send > 0) {
      ensure(send_host_, n_send, "particle_comm::send_host");
      Kokkos::deep_copy(Kokkos::subview(send_host_, std::make_pair(0LL, static_cast<long long>(n_send))),
                        Kokkos::subview(sbuf, std::make_pair(s_off, s_off + n_send)));
      sp = send_host_.data();
    }
    if (n_recv > 0) {
      ensure(recv_host_, n_recv, "particle_comm::recv_host");
      rp = recv_host_.data();
    }
  }
  if (to >= 0 && from >= 0)
    STRATUS_MPI_CHECK(
        MPI_Sendrecv(sp, n_send, MPI_DOUBLE, to, tag, rp, n_recv, MPI_DOUBLE, from, tag, cart_, MPI_STATUS_IGNORE));
  else if (to >= 0)
    STRATUS_MPI_CHECK(MPI_Send(sp, n_send, MPI_DOUBLE, to, tag, cart_));
  else if (from >= 0)
    STRATUS_MPI_CHECK(MPI_Recv(rp, n_recv, MPI_DOUBLE, from, tag, cart_, MPI_STATUS_IGNORE));
  if (!kHostAccessible && n_recv > 0)
    Kokkos::deep_copy(Kokkos::subview(rbuf, std::make_pair(r_off, r_off + n_recv)),
                      Kokkos::subview(recv_host_, std::make_pair(0LL, static_cast<long long>(n_recv))));
}

void ParticleComm::agree(const std::string& msg) const { agree_all_or_throw(cart_, msg.empty(), msg); }

void ParticleComm::exchange(Particles& p) {
  p.n_ghost = 0;
  planned_ = false;
  long long before = p.n_local, total_before = 0;
  STRATUS_MPI_CHECK(MPI_Allreduce(&before, &total_before, 1, MPI_LONG_LONG, MPI_SUM, cart_));
  for (int d = 0; d < 3; ++d) migrate(p, d);
  long long after = p.n_local, total_after = 0;
  STRATUS_MPI_CHECK(MPI_Allreduce(&after, &total_after, 1, MPI_LONG_LONG, MPI_SUM, cart_));
  if (total_after != total_before) {  // the same numbers on every rank: all throw
    std::ostringstream os;
    os << "md: atoms lost: " << total_before << " expected, " << total_after << " found";
    throw CollectiveError(os.str());
  }
}

// One direction of exchange(): classify, pack (kept | down | up), swap with both neighbours, unpack
// kept rows then the atoms from the upper neighbour then those from the lower one.
void ParticleComm::migrate(Particles& p, int d) {
  const int n = p.n_local;
  ensure(flag_, n, "particle_comm::flag");
  const Axis axis{d, sub_lo_[d], sub_hi_[d], lo_[d], hi_[d], len_[d], coords_[d], dims_[d], periodic_[d]};
  const int bad = classify(p.x, p.image, flag_, n, axis);
  std::string msg;
  if (bad < n) {
    int f = 0;
    Kokkos::deep_copy(f, Kokkos::subview(flag_, bad));
    std::ostringstream os;
    os << "md: " << describe_atom(p, bad);
    if (f == kTooFar)
      os << " moved more than the box length " << len_[d] << " in " << kAxis[d] << " since the last exchange";
    else
      os << " left the box through the non-periodic " << (f == kFaceLower ? "lower " : "upper ") << kAxis[d]
         << " face at " << (f == kFaceLower ? lo_[d] : hi_[d]);
    os << kUnstable;
    msg = os.str();
  }
  if (dims_[d] == 1) {  // wrapped in place (or nothing to do)
    agree(msg);
    return;
  }
  ensure(prefix_, n, "particle_comm::prefix");
  const long long moves = scan_moves(flag_, prefix_, n);
  const int n_lower = static_cast<int>(moves >> 32), n_upper = static_cast<int>(moves & 0xffffffffLL);
  const int n_keep = n - n_lower - n_upper;
  const bool moved = n_lower + n_upper > 0;
  if (moved) {
    ensure(scratch_, static_cast<long long>(n) * kMigrant, "particle_comm::scratch");
    pack_migrants(p, flag_, prefix_, n, n_keep, n_lower, scratch_);
  }
  const int tag = kTagExchange + 2 * d;
  const int from_upper = transfer_count(n_lower, lower_[d], upper_[d], tag);
  const int from_lower = transfer_count(n_upper, upper_[d], lower_[d], tag + 1);
  const int n_recv = from_upper + from_lower;
  ensure(recv_, static_cast<long long>(n_recv) * kMigrant, "particle_comm::recv");
  transfer(scratch_, static_cast<long long>(n_keep) * kMigrant, n_lower * kMigrant, lower_[d], recv_, 0,
           from_upper * kMigrant, upper_[d], tag);
  transfer(scratch_, static_cast<long long>(n_keep + n_lower) * kMigrant, n_upper * kMigrant, upper_[d], recv_,
           static_cast<long long>(from_upper) * kMigrant, from_lower * kMigrant, lower_[d], tag + 1);
  p.reserve(n_keep + n_recv);
  if (moved) unpack_migrants(p, scratch_, 0, 0, n_keep, false, d, 0.0, 0.0);
  const int bad_recv = unpack_migrants(p, recv_, 0, n_keep, n_recv, true, d, sub_lo_[d], sub_hi_[d]);
  p.n_local = n_keep + n_recv;
  if (msg.empty() && bad_recv < p.n_local) {
    std::ostringstream os;
    os << "md: " << describe_atom(p, bad_recv) << " moved more than a sub-domain in " << kAxis[d]
       << " since the last exchange (it reached rank " << rank_ << ", whose sub-domain is [" << sub_lo_[d] << ", "
       << sub_hi_[d] << ") in " << kAxis[d] << ")" << kUnstable;
    msg = os.str();
  }
  agree(msg);
}

void ParticleComm::borders(Particles& p) {
  p.n_ghost = 0;
  ghosts_sent_ = 0;
  int n_select = 0;
  for (std::size_t s = 0; s < swaps_.size(); ++s) {
    Swap& w = swaps_[s];
    // Both swaps of a direction select from the rows present when the direction starts.
    if (s == 0 || swaps_[s - 1].dim != w.dim) n_select = p.n_total();
    w.n_send = 0;
    if (w.send_rank >= 0) {
      ensure(w.list, n_select, "particle_comm::send_list");
      w.n_send = select_rows(p.x, n_select, w.dim, w.to_lower, w.bound, w.list);
    }
    ghosts_sent_ += w.n_send;
    w.first_recv = p.n_total();
    if (w.self) {
      w.n_recv = w.n_send;
      p.reserve(w.first_recv + w.n_recv);
      copy_border(p, w.list, w.n_send, w.dim, w.shift, w.first_recv);
    } else {
      const int tag = kTagBorders + static_cast<int>(s);
      w.n_recv = transfer_count(w.n_send, w.send_rank, w.recv_rank, tag);
      ensure(send_, static_cast<long long>(w.n_send) * kBorder, "particle_comm::send");
      ensure(recv_, static_cast<long long>(w.n_recv) * kBorder, "particle_comm::recv");
      pack_border(p, w.list, w.n_send, w.dim, w.shift, send_);
      transfer(send_, 0, w.n_send * kBorder, w.send_rank, recv_, 0, w.n_recv * kBorder, w.recv_rank, tag);
      p.reserve(w.first_recv + w.n_recv);
      unpack_border(p, recv_, w.first_recv, w.n_recv);
    }
    p.n_ghost += w.n_recv;
  }
  ExecSpace().fence();
  planned_ = true;
  planned_total_ = p.n_total();
}

void ParticleComm::forward(Particles& p) {
  STRATUS_REQUIRE(planned_ && p.n_total() == planned_total_,
                  "particle_comm: forward() needs borders() first (after every exchange())");
  // The two swaps of a direction select from the rows present before it, so they are independent: both
  // messages of a direction are in flight at once (one wait per direction instead of two).
  std::size_t s = 0;
  while (s < swaps_.size()) {
    std::size_t e = s;
    while (e < swaps_.size() && swaps_[e].dim == swaps_[s].dim) ++e;
    std::vector<long long> so(e - s, 0), ro(e - s, 0);
    long long soff = 0, roff = 0;
    for (std::size_t k = s; k < e; ++k) {
      const Swap& w = swaps_[k];
      if (w.self) {
        copy_x(p.x, w.list, w.n_send, w.dim, w.shift, w.first_recv);
        continue;
      }
      so[k - s] = soff;
      ro[k - s] = roff;
      if (w.send_rank >= 0) soff += 3LL * w.n_send;
      if (w.recv_rank >= 0) roff += 3LL * w.n_recv;
    }
    if (soff == 0 && roff == 0 &&
        std::all_of(swaps_.begin() + static_cast<long>(s), swaps_.begin() + static_cast<long>(e),
                    [](const Swap& w) { return w.self; })) {
      s = e;
      continue;
    }
    ensure(send_, soff, "particle_comm::send");
    ensure(recv_, roff, "particle_comm::recv");
    for (std::size_t k = s; k < e; ++k) {
      const Swap& w = swaps_[k];
      if (!w.self && w.send_rank >= 0)
        pack_x(p.x, w.list, w.n_send, w.dim, w.shift,
               Buffer1D(send_.data() + so[k - s], 3 * static_cast<std::size_t>(w.n_send)));
    }
    ExecSpace().fence();  // packed before MPI reads
    double* sbase = send_.data();
    double* rbase = recv_.data();
    if (!kHostAccessible) {
      ensure(send_host_, soff, "particle_comm::send_host");
      ensure(recv_host_, roff, "particle_comm::recv_host");
      if (soff > 0)
        Kokkos::deep_copy(Kokkos::subview(send_host_, std::make_pair(0LL, soff)),
                          Kokkos::subview(send_, std::make_pair(0LL, soff)));
      sbase = send_host_.data();
      rbase = recv_host_.data();
    }
    std::vector<MPI_Request> req;
    for (std::size_t k = s; k < e; ++k) {
      const Swap& w = swaps_[k];
      if (w.self) continue;
      const int tag = kTagForward + static_cast<int>(k);
      if (w.recv_rank >= 0) {
        req.emplace_back();
        STRATUS_MPI_CHECK(MPI_Irecv(rbase + ro[k - s], 3 * w.n_recv, MPI_DOUBLE, w.recv_rank, tag, cart_, &req.back()));
      }
      if (w.send_rank >= 0) {
        req.emplace_back();
        STRATUS_MPI_CHECK(MPI_Isend(sbase + so[k - s], 3 * w.n_send, MPI_DOUBLE, w.send_rank, tag, cart_, &req.back()));
      }
    }
    STRATUS_MPI_CHECK(MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE));
    if (!kHostAccessible && roff > 0)
      Kokkos::deep_copy(Kokkos::subview(recv_, std::make_pair(0LL, roff)),
                        Kokkos::subview(recv_host_, std::make_pair(0LL, roff)));
    for (std::size_t k = s; k < e; ++k) {
      const Swap& w = swaps_[k];
      if (!w.self && w.recv_rank >= 0)
        unpack_x(p.x, Buffer1D(recv_.data() + ro[k - s], 3 * static_cast<std::size_t>(w.n_recv)), w.first_recv,
                 w.n_recv);
    }
    s = e;
  }
  ExecSpace().fence();
}

void ParticleComm::reverse(Particles& p, const ParticleVec& a) {
  STRATUS_REQUIRE(planned_ && p.n_total() == planned_total_,
                  "particle_comm: reverse() needs borders() first (after every exchange())");
  const int n = p.n_total();
  STRATUS_REQUIRE(static_cast<int>(a.extent(0)) >= n,
                  "particle_comm: reverse() on '" << a.label() << "' with " << a.extent(0) << " rows, needs " << n);
  // Ghost rows relay sums (a ghost from an x swap that was sent on in a y swap collects the y images'
  // values), so the sums run in a copy and only the owned rows go back into a.
  if (static_cast<int>(acc_.extent(0)) < n || acc_.data() == nullptr)
    acc_ = ParticleVec(Kokkos::view_alloc(Kokkos::WithoutInitializing, "particle_comm::acc"), n + n / 5 + 16);
  copy_rows(acc_, a, n);
  for (std::size_t s = swaps_.size(); s-- > 0;) {
    const Swap& w = swaps_[s];
    if (w.self) {
      add_self(acc_, w.list, w.n_send, w.first_recv);
      continue;
    }
    ensure(send_, 3LL * w.n_recv, "particle_comm::send");
    ensure(recv_, 3LL * w.n_send, "particle_comm::recv");
    pack_rows(acc_, w.first_recv, w.n_recv, send_);
    transfer(send_, 0, 3 * w.n_recv, w.recv_rank, recv_, 0, 3 * w.n_send, w.send_rank,
             kTagReverse + static_cast<int>(s));
    add_rows(acc_, w.list, w.n_send, recv_);
  }
  copy_rows(a, acc_, p.n_local);
  ExecSpace().fence();
}

}  // namespace stratus
