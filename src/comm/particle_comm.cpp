// ParticleComm: migration (exchange), ghost swaps (borders) and their replays (forward, reverse) over a
// SwapPlan. Kernels are free functions (CUDA does not allow device lambdas in private member functions);
// members only sequence them around the MPI calls.
#include "comm/particle_comm.hpp"

#include <algorithm>
#include <iomanip>
#include <limits>
#include <sstream>

#include "comm/particle_fields.hpp"
#include "core/agree.hpp"
#include "core/error.hpp"
#include "core/timer.hpp"
#include "core/view_grow.hpp"

namespace stratus {

namespace {

const char* kAxis[3] = {"x", "y", "z"};
// Message tags, one range per operation (the swap or direction index is added).
constexpr int kTagExchange = 100, kTagBorders = 200, kTagForward = 300, kTagReverse = 400;

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

// reverse()'s rows: the owned rows of a (below nl) and, in their place, the ghost rows' relay sums in g
// (row r at g(r - nl)).
struct RelayRows {
  ParticleVec a, g;
  int nl;
  KOKKOS_INLINE_FUNCTION double& operator()(int r, int k) const { return r < nl ? a(r, k) : g(r - nl, k); }
};

void copy_ghost_rows(const ParticleVec& g, const ParticleVec& a, int nl, int n) {
  Kokkos::parallel_for(
      "particle_comm::copy_ghost_rows", Policy(0, n - nl), KOKKOS_LAMBDA(int i) {
        for (int k = 0; k < 3; ++k) g(i, k) = a(nl + i, k);
      });
}

void pack_rows(const RelayRows& rows, int first, int count, const Buffer1D& buf) {
  Kokkos::parallel_for(
      "particle_comm::pack_rows", Policy(0, count), KOKKOS_LAMBDA(int j) {
        for (int k = 0; k < 3; ++k) buf(3LL * j + k) = rows(first + j, k);
      });
}

// The rows of one swap's list are distinct, so the sums need no atomics.
void add_rows(const RelayRows& rows, const RowList& list, int count, const Buffer1D& buf) {
  Kokkos::parallel_for(
      "particle_comm::add_rows", Policy(0, count), KOKKOS_LAMBDA(int j) {
        const int i = list(j);
        for (int k = 0; k < 3; ++k) rows(i, k) += buf(3LL * j + k);
      });
}

// The list's rows existed before the swap and its images are the swap's own rows: no row is both.
void add_self(const RelayRows& rows, const RowList& list, int count, int first) {
  Kokkos::parallel_for(
      "particle_comm::add_self", Policy(0, count), KOKKOS_LAMBDA(int j) {
        const int i = list(j);
        for (int k = 0; k < 3; ++k) rows(i, k) += rows(first + j, k);
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

ParticleComm::ParticleComm(MPI_Comm comm, Real3 lo, Real3 hi, std::array<bool, 3> periodic, Int3 requested,
                           double ghost_cutoff, HaloTransport transport)
    : plan_(comm, lo, hi, periodic, requested, ghost_cutoff), bufs_("particle_comm", transport) {}

void ParticleComm::agree(const std::string& msg) const { agree_all_or_throw(comm(), msg.empty(), msg); }

void ParticleComm::exchange(Particles& p) {
  ScopedPhase phase(Phase::communication);
  p.n_ghost = 0;
  planned_ = false;
  long long before = p.n_local, total_before = 0;
  STRATUS_MPI_CHECK(MPI_Allreduce(&before, &total_before, 1, MPI_LONG_LONG, MPI_SUM, comm()));
  for (int d = 0; d < 3; ++d) migrate(p, d);
  long long after = p.n_local, total_after = 0;
  STRATUS_MPI_CHECK(MPI_Allreduce(&after, &total_after, 1, MPI_LONG_LONG, MPI_SUM, comm()));
  if (total_after != total_before) {  // the same numbers on every rank: all throw
    std::ostringstream os;
    os << "md: atoms lost: " << total_before << " expected, " << total_after << " found";
    throw CollectiveError(os.str());
  }
}

// One direction of exchange(): classify, pack (kept | down | up) into the send buffer, swap with both
// neighbours, unpack kept rows then the atoms from the upper neighbour then those from the lower one.
void ParticleComm::migrate(Particles& p, int d) {
  const SwapPlan& g = plan_;
  const int n = p.n_local;
  grow_rows(flag_, n, "particle_comm::flag");
  Axis axis;
  axis.d = d;
  axis.slo = g.sub_lo()[d];
  axis.shi = g.sub_hi()[d];
  axis.lo = g.box_lo()[d];
  axis.hi = g.box_hi()[d];
  axis.len = g.length(d);
  axis.coord = g.coords()[d];
  axis.dims = g.dims()[d];
  axis.periodic = g.periodic(d);
  const int bad = classify(p.x, p.image, flag_, n, axis);
  std::string msg;
  if (bad < n) {
    int f = 0;
    Kokkos::deep_copy(f, Kokkos::subview(flag_, bad));
    std::ostringstream os;
    os << "md: " << describe_atom(p, bad);
    if (f == kTooFar)
      os << " moved more than the box length " << g.length(d) << " in " << kAxis[d] << " since the last exchange";
    else
      os << " left the box through the non-periodic " << (f == kFaceLower ? "lower " : "upper ") << kAxis[d]
         << " face at " << (f == kFaceLower ? g.box_lo()[d] : g.box_hi()[d]);
    os << kUnstable;
    msg = os.str();
  }
  if (g.dims()[d] == 1) {  // wrapped in place (or nothing to do)
    agree(msg);
    return;
  }
  grow_rows(prefix_, n, "particle_comm::prefix");
  const long long moves = scan_moves(flag_, prefix_, n);
  const int n_lower = static_cast<int>(moves >> 32), n_upper = static_cast<int>(moves & 0xffffffffLL);
  const int n_keep = n - n_lower - n_upper;
  const bool moved = n_lower + n_upper > 0;
  const int tag = kTagExchange + 2 * d;
  const int from_upper = sendrecv_count(n_lower, g.lower(d), g.upper(d), tag, comm());
  const int from_lower = sendrecv_count(n_upper, g.upper(d), g.lower(d), tag + 1, comm());
  const int n_recv = from_upper + from_lower;
  const long long w = p.fields().width();
  bufs_.reserve(moved ? n * w : 0, n_recv * w);
  if (moved) pack_migrants(p.fields(), flag_, kLower, kUpper, prefix_, n, n_keep, n_lower, bufs_.send());
  bufs_.sendrecv(n_keep * w, static_cast<int>(n_lower * w), g.lower(d), 0, static_cast<int>(from_upper * w), g.upper(d),
                 tag, comm());
  bufs_.sendrecv((n_keep + n_lower) * w, static_cast<int>(n_upper * w), g.upper(d), from_upper * w,
                 static_cast<int>(from_lower * w), g.lower(d), tag + 1, comm());
  p.reserve(n_keep + n_recv);
  const ParticleFields fields = p.fields();  // after reserve(): the arrays may have moved
  if (moved) unpack_migrants(fields, bufs_.send(), 0, 0, n_keep, false, d, 0.0, 0.0);
  const int bad_recv = unpack_migrants(fields, bufs_.recv(), 0, n_keep, n_recv, true, d, g.sub_lo()[d], g.sub_hi()[d]);
  p.n_local = n_keep + n_recv;
  if (msg.empty() && bad_recv < p.n_local) {
    std::ostringstream os;
    os << "md: " << describe_atom(p, bad_recv) << " moved more than a sub-domain in " << kAxis[d]
       << " since the last exchange (it reached rank " << rank() << ", whose sub-domain is [" << g.sub_lo()[d] << ", "
       << g.sub_hi()[d] << ") in " << kAxis[d] << ")" << kUnstable;
    msg = os.str();
  }
  agree(msg);
}

void ParticleComm::borders(Particles& p) {
  ScopedPhase phase(Phase::communication);
  p.n_ghost = 0;
  ghosts_sent_ = 0;
  int n_select = 0;
  std::vector<Swap>& swaps = plan_.swaps();
  for (std::size_t s = 0; s < swaps.size(); ++s) {
    Swap& w = swaps[s];
    // Both swaps of a direction select from the rows present when the direction starts.
    if (s == 0 || swaps[s - 1].dim != w.dim) n_select = p.n_total();
    w.n_send = w.send_rank >= 0 ? select_rows(p.x, n_select, w) : 0;
    ghosts_sent_ += w.n_send;
    w.first_recv = p.n_total();
    if (w.self) {
      w.n_recv = w.n_send;
      p.reserve(w.first_recv + w.n_recv);
      copy_ghosts(p.fields(), w.list, w.n_send, w.dim, w.shift, w.first_recv);
    } else {
      const int tag = kTagBorders + static_cast<int>(s);
      const long long gw = p.fields().ghost_width();
      w.n_recv = sendrecv_count(w.n_send, w.send_rank, w.recv_rank, tag, comm());
      bufs_.reserve(w.n_send * gw, w.n_recv * gw);
      pack_ghosts(p.fields(), w.list, w.n_send, w.dim, w.shift, bufs_.send());
      bufs_.sendrecv(0, static_cast<int>(w.n_send * gw), w.send_rank, 0, static_cast<int>(w.n_recv * gw), w.recv_rank,
                     tag, comm());
      p.reserve(w.first_recv + w.n_recv);
      unpack_ghosts(p.fields(), bufs_.recv(), w.first_recv, w.n_recv);
    }
    p.n_ghost += w.n_recv;
  }
  ExecSpace().fence();
  planned_ = true;
  planned_total_ = p.n_total();
}

void ParticleComm::forward(Particles& p) {
  ScopedPhase phase(Phase::communication);
  STRATUS_REQUIRE(planned_ && p.n_total() == planned_total_,
                  "particle_comm: forward() needs borders() first (after every exchange())");
  // The two swaps of a direction select from the rows present before it, so they are independent: both
  // messages of a direction are in flight at once (one wait per direction instead of two).
  const std::vector<Swap>& swaps = plan_.swaps();
  std::size_t s = 0;
  while (s < swaps.size()) {
    std::size_t e = s;
    while (e < swaps.size() && swaps[e].dim == swaps[s].dim) ++e;
    long long so[2] = {0, 0}, ro[2] = {0, 0};
    long long soff = 0, roff = 0;
    bool messages = false;
    for (std::size_t k = s; k < e; ++k) {
      const Swap& w = swaps[k];
      if (w.self) {
        copy_x(p.x, w.list, w.n_send, w.dim, w.shift, w.first_recv);
        continue;
      }
      messages = true;
      so[k - s] = soff;
      ro[k - s] = roff;
      if (w.send_rank >= 0) soff += 3LL * w.n_send;
      if (w.recv_rank >= 0) roff += 3LL * w.n_recv;
    }
    if (!messages) {
      s = e;
      continue;
    }
    bufs_.reserve(soff, roff);
    for (std::size_t k = s; k < e; ++k) {
      const Swap& w = swaps[k];
      if (!w.self && w.send_rank >= 0)
        pack_x(p.x, w.list, w.n_send, w.dim, w.shift,
               Buffer1D(bufs_.send().data() + so[k - s], 3 * static_cast<std::size_t>(w.n_send)));
    }
    bufs_.stage_send(0, soff);
    MPI_Request req[4];
    int nreq = 0;
    for (std::size_t k = s; k < e; ++k) {
      const Swap& w = swaps[k];
      if (w.self) continue;
      const int tag = kTagForward + static_cast<int>(k);
      if (w.recv_rank >= 0) bufs_.irecv(ro[k - s], 3 * w.n_recv, w.recv_rank, tag, comm(), &req[nreq++]);
      if (w.send_rank >= 0) bufs_.isend(so[k - s], 3 * w.n_send, w.send_rank, tag, comm(), &req[nreq++]);
    }
    STRATUS_MPI_CHECK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    bufs_.unstage_recv(0, roff);
    for (std::size_t k = s; k < e; ++k) {
      const Swap& w = swaps[k];
      if (!w.self && w.recv_rank >= 0)
        unpack_x(p.x, Buffer1D(bufs_.recv().data() + ro[k - s], 3 * static_cast<std::size_t>(w.n_recv)), w.first_recv,
                 w.n_recv);
    }
    s = e;
  }
  ExecSpace().fence();
}

void ParticleComm::reverse(Particles& p, const ParticleVec& a) {
  ScopedPhase phase(Phase::communication);
  STRATUS_REQUIRE(planned_ && p.n_total() == planned_total_,
                  "particle_comm: reverse() needs borders() first (after every exchange())");
  const int n = p.n_total();
  STRATUS_REQUIRE(static_cast<int>(a.extent(0)) >= n,
                  "particle_comm: reverse() on '" << a.label() << "' with " << a.extent(0) << " rows, needs " << n);
  // Ghost rows relay sums (a ghost from an x swap that was sent on in a y swap collects the y images'
  // values): theirs run in a copy of the ghost rows, so that a's ghost rows are left as they were; the
  // owned rows take their sums in place.
  const int nl = p.n_local, ng = n - nl;
  if (static_cast<int>(acc_.extent(0)) < ng || acc_.data() == nullptr)
    acc_ = ParticleVec(Kokkos::view_alloc(Kokkos::WithoutInitializing, "particle_comm::acc"), ng + ng / 5 + 16);
  copy_ghost_rows(acc_, a, nl, n);
  const RelayRows rows{a, acc_, nl};
  const std::vector<Swap>& swaps = plan_.swaps();
  for (std::size_t s = swaps.size(); s-- > 0;) {
    const Swap& w = swaps[s];
    if (w.self) {
      add_self(rows, w.list, w.n_send, w.first_recv);
      continue;
    }
    bufs_.reserve(3LL * w.n_recv, 3LL * w.n_send);
    pack_rows(rows, w.first_recv, w.n_recv, bufs_.send());
    bufs_.sendrecv(0, 3 * w.n_recv, w.recv_rank, 0, 3 * w.n_send, w.send_rank, kTagReverse + static_cast<int>(s),
                   comm());
    add_rows(rows, w.list, w.n_send, bufs_.recv());
  }
  ExecSpace().fence();
}

}  // namespace stratus
