// Cell binning (counting sort) and the one-pass Verlet list build into fixed-width rows; see neighbor_list.hpp.
#include "neighbor/neighbor_list.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/gpu_paths.hpp"
#include "neighbor/neighbor_simd.hpp"
#include "neighbor/neighbor_stencil.hpp"

namespace stratus {

namespace neighbor_detail {

using IntView = Kokkos::View<int*, MemSpace>;

// Entries a row holds past its capacity, and entries the packed arrays hold past their atoms, for the
// SIMD build (neighbor_simd.hpp).
#ifdef STRATUS_NEIGHBOR_SIMD
constexpr int kSlack = simd::kSlack;
constexpr int kOvershoot = simd::kOvershoot;
#else
constexpr int kSlack = 0;
constexpr int kOvershoot = 0;
#endif

/// Number of atoms of x (0 .. n-1) outside [lo, hi) in some direction (NaN counts as outside).
int count_outside(const ParticleVec& x, int n, Real3 lo, Real3 hi) {
  int bad = 0;
  Kokkos::parallel_reduce(
      "neighbor::check_box", Kokkos::RangePolicy<ExecSpace>(0, n),
      KOKKOS_LAMBDA(int i, int& b) {
        for (int d = 0; d < 3; ++d) {
          if (!(x(i, d) >= lo[d] && x(i, d) < hi[d])) {
            ++b;
            return;
          }
        }
      },
      bad);
  return bad;
}

/// The bin grid: nb bins per direction over [lo, hi), stored with kPad empty bins on every side so that
/// every stencil offset from an occupied bin stays inside the array (no bounds checks in the walk).
constexpr int kPad = 2;
struct BinGrid {
  Real3 lo, inv_width;
  Int3 nb;      // bins over [lo, hi)
  Int3 stride;  // padded strides: x 1, y nb_x + 2 kPad, z (nb_x + 2 kPad) (nb_y + 2 kPad)
  int nbins;    // padded total
  KOKKOS_INLINE_FUNCTION int bin_of(double x, double y, double z) const {
    const double c[3] = {x, y, z};
    int b = 0;
    for (int d = 0; d < 3; ++d) {
      int k = static_cast<int>((c[d] - lo[d]) * inv_width[d]);
      k = k < 0 ? 0 : (k >= nb[d] ? nb[d] - 1 : k);  // rounding just below hi
      b += (k + kPad) * stride[d];
    }
    return b;
  }
};

BinGrid make_grid(Real3 lo, Real3 inv_width, Int3 nb) {
  BinGrid g;
  g.lo = lo;
  g.inv_width = inv_width;
  g.nb = nb;
  g.stride[0] = 1;
  g.stride[1] = nb[0] + 2 * kPad;
  g.stride[2] = g.stride[1] * (nb[1] + 2 * kPad);
  g.nbins = g.stride[2] * (nb[2] + 2 * kPad);
  return g;
}

/// v holds at least n entries afterwards: kept, or reallocated uninitialised with 10 % headroom. A build
/// then allocates nothing once the sizes have settled (on a GPU every free synchronises the device).
template <class View>
void ensure(View& v, long long n, const char* label) {
  if (static_cast<long long>(v.extent(0)) < n || v.data() == nullptr)
    v = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)),
             static_cast<std::size_t>(n + n / 10 + 1));
}

/// Positions in bin order (packed(p) = x(bin_atoms(p))), one array per coordinate: the candidates of a
/// stencil row are then read from consecutive memory (vector loads on CPUs, coalesced loads on GPUs).
using Packed = Kokkos::View<double* [3], Kokkos::LayoutLeft, MemSpace>;

/// Counting sort of atoms 0 .. n-1 into the bins of g: bin_start (nbins + 1) and bin_atoms (n), each bin's
/// atoms in increasing index order (owned atoms, those below n_local, first), where each bin's ghosts
/// begin (bin_ghost, nbins), and the positions in that order (packed). atom_bin and count are work arrays;
/// all are grown as needed, never shrunk.
void sort_into_bins(const ParticleVec& x, int n, int n_local, const BinGrid& g, IntView& bin_start, IntView& bin_atoms,
                    IntView& bin_ghost, Packed& packed, IntView& atom_bin, IntView& count) {
  const int nbins = g.nbins;
  ensure(atom_bin, n, "neighbor::atom_bin");
  ensure(count, nbins, "neighbor::bin_count");
  Kokkos::deep_copy(Kokkos::subview(count, std::make_pair(0, nbins)), 0);
  ensure(bin_start, nbins + 1LL, "neighbor::bin_start");
  ensure(bin_atoms, n + kOvershoot, "neighbor::bin_atoms");
  ensure(bin_ghost, nbins, "neighbor::bin_ghost");
  ensure(packed, n + kOvershoot, "neighbor::packed");
  auto start = bin_start;
  auto atoms = bin_atoms;
  auto ghost = bin_ghost;
  auto xp = packed;

  Kokkos::parallel_for(
      "neighbor::bin_count", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(int i) {
        const int b = g.bin_of(x(i, 0), x(i, 1), x(i, 2));
        atom_bin(i) = b;
        Kokkos::atomic_increment(&count(b));
      });
  Kokkos::parallel_scan(
      "neighbor::bin_scan", Kokkos::RangePolicy<ExecSpace>(0, nbins + 1), KOKKOS_LAMBDA(int b, int& sum, bool final) {
        const int c = b < nbins ? count(b) : 0;
        if (final) start(b) = sum;
        sum += c;
      });
  // Fill from the back of each bin (the count is consumed), then restore index order per bin.
  Kokkos::parallel_for(
      "neighbor::bin_fill", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(int i) {
        const int b = atom_bin(i);
        const int k = Kokkos::atomic_fetch_add(&count(b), -1) - 1;
        atoms(start(b) + k) = i;
      });
  Kokkos::parallel_for(
      "neighbor::bin_sort", Kokkos::RangePolicy<ExecSpace>(0, nbins), KOKKOS_LAMBDA(int b) {
        const int s = start(b), e = start(b + 1);
        for (int p = s + 1; p < e; ++p) {  // insertion sort: bins hold a few atoms
          const int v = atoms(p);
          int q = p - 1;
          while (q >= s && atoms(q) > v) {
            atoms(q + 1) = atoms(q);
            --q;
          }
          atoms(q + 1) = v;
        }
        int p = s;
        while (p < e && atoms(p) < n_local) ++p;
        ghost(b) = p;
      });
  Kokkos::parallel_for(
      "neighbor::pack", Kokkos::RangePolicy<ExecSpace>(0, n), KOKKOS_LAMBDA(int p) {
        const int a = atoms(p);
        for (int d = 0; d < 3; ++d) xp(p, d) = x(a, d);
      });
}

/// The stencil of bins of edge >= rc / 2 (offsets within kPad = 2 bins whose boxes can hold a point closer
/// than rc), as rows along x: for each (oy, oz) the run of bins ox = -a .. a that qualify, consecutive in the
/// padded grid, so that their atoms are one range of bin_atoms (and of the packed positions). A row's kind
/// (RowKind, neighbor_stencil.hpp) tells a half list which owned partners it may take, so that each owned
/// pair is found once.
struct Stencil {
  Kokkos::View<int* [3], MemSpace> rows;  // flat offset of the first bin, bins in the row, RowKind
};

Stencil make_stencil(double rc, const Real3& width, const BinGrid& g, bool upper_only) {
  std::vector<int> h_rows;
  auto gap2 = [&](int o, int d) {
    const double gap = std::max(0, std::abs(o) - 1) * width[d];
    return gap * gap;
  };
  // upper_only (half lists with newton_ghost): rows of lower z bins hold only atoms strictly below i (bins
  // are monotone in z), which such a list never takes, owned or ghost: they are left out.
  for (int oz = upper_only ? 0 : -kPad; oz <= kPad; ++oz)
    for (int oy = -kPad; oy <= kPad; ++oy) {
      // Offsets beyond a direction with fewer bins than the stencil reach only padding: drop them.
      if (std::abs(oy) >= g.nb[1] || std::abs(oz) >= g.nb[2]) continue;
      int a = -1;
      for (int ox = 0; ox <= kPad; ++ox)
        if (ox < g.nb[0] && gap2(ox, 0) + gap2(oy, 1) + gap2(oz, 2) < rc * rc) a = ox;
      if (a < 0) continue;
      const int kind = (oz > 0 || (oz == 0 && oy > 0)) ? kForward : (oz == 0 && oy == 0 ? kOwnRow : kBackward);
      h_rows.insert(h_rows.end(), {-a * g.stride[0] + oy * g.stride[1] + oz * g.stride[2], 2 * a + 1, kind});
    }
  Stencil st;
  const std::size_t nr = h_rows.size() / 3;
  st.rows = Kokkos::View<int* [3], MemSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "neighbor::stencil"), nr);
  auto h = Kokkos::create_mirror_view(st.rows);
  for (std::size_t r = 0; r < nr; ++r)
    for (int c = 0; c < 3; ++c) h(r, c) = h_rows[3 * r + static_cast<std::size_t>(c)];
  Kokkos::deep_copy(st.rows, h);
  return st;
}

/// Calls visit(j, take) for every candidate j of owned atom i: first the atoms of i's own bin, then the
/// parts of the stencil rows around it (for_each_row_part), with take true for a listed partner: not i,
/// closer than sqrt(rc2), and, in a half list, a ghost, an owned atom above i in i's own bin, or any owned
/// atom outside it (the bins whose owned atoms a half list never takes are searched for ghosts only). With
/// newton_ghost a ghost is taken only when it lies above i (z, then y, then x), as LAMMPS does; the image
/// of the pair on the other side sees the opposite order. take is computed without branches (bitwise
/// logic): whether a candidate is taken is a coin toss to the branch predictor.
template <class Visit>
KOKKOS_INLINE_FUNCTION void for_each_candidate(const ParticleVec& x, int i, int n_local, double rc2, bool half,
                                               bool newton_ghost, const BinGrid& g,
                                               const Kokkos::View<int* [3], MemSpace>& rows, const IntView& bin_start,
                                               const IntView& bin_atoms, const IntView& bin_ghost, const Packed& xp,
                                               Visit&& visit) {
  const double xi = x(i, 0), yi = x(i, 1), zi = x(i, 2);
  const int bi = g.bin_of(xi, yi, zi);
  auto test = [&](int p, int e, bool own_bin) {
    for (; p < e; ++p) {
      const double xj = xp(p, 0), yj = xp(p, 1), zj = xp(p, 2);
      const double dx = xi - xj, dy = yi - yj, dz = zi - zj;
      const int j = bin_atoms(p);
      const bool near = (dx * dx + dy * dy + dz * dz < rc2) & (j != i);
      const bool below = (zj < zi) | ((zj == zi) & ((yj < yi) | ((yj == yi) & (xj < xi))));
      const bool ghost_ok = !(newton_ghost & below);
      const bool owned_ok = !(half & own_bin) | (j > i);
      visit(j, near & ((j >= n_local) ? ghost_ok : owned_ok));
    }
  };
  test(bin_start(bi), bin_start(bi + 1), true);
  const int nr = static_cast<int>(rows.extent(0));
  for (int r = 0; r < nr; ++r) {
    const int b0 = bi + rows(r, 0);
    for_each_row_part(half, rows(r, 2), b0, b0 + rows(r, 1), bi, [&](int bf, int bl, bool ghosts_only) {
      test(ghosts_only ? bin_ghost(bf) : bin_start(bf), bin_start(bl), false);
    });
  }
}

/// Where a build's rows go: the entries, the per-atom counts, the row width (grown when an atom has more
/// partners), and the layout; build_lists sets the strides. `gathered` and `gathered_atoms` are the SIMD
/// build's per-thread candidate arrays (grow-only).
struct RowStore {
  IntView& entries;
  IntView& count;
  int& capacity;
  bool slots;  // ListLayout::slots
  Kokkos::View<double*, MemSpace>& gathered;
  IntView& gathered_atoms;
  long long atom_stride = 0, slot_stride = 0;
};

#ifdef STRATUS_NEIGHBOR_SIMD
/// The SIMD fill (neighbor_simd.hpp), one bin's owned atoms at a time, each thread gathering its bin's
/// candidates into its own part of the store's arrays. Returns the largest partner count.
int fill_rows_by_bin(int n_local, double rc2, bool half, bool newton_ghost, int nbins, const simd::Candidates& cd,
                     RowStore& out) {
  int max_bin = 0;
  Kokkos::parallel_reduce(
      "neighbor::max_bin", Kokkos::RangePolicy<ExecSpace>(0, nbins),
      KOKKOS_LAMBDA(int b, int& m) {
        const int c = cd.bin_start[b + 1] - cd.bin_start[b];
        if (c > m) m = c;
      },
      Kokkos::Max<int>(max_bin));
  const Kokkos::Experimental::UniqueToken<ExecSpace> token;
  const long long per = simd::gather_bound(cd, max_bin);
  ensure(out.gathered, 3 * per * token.size(), "neighbor::gathered");
  ensure(out.gathered_atoms, per * token.size(), "neighbor::gathered_atoms");
  double* const pos = out.gathered.data();
  int* const atoms = out.gathered_atoms.data();
  int* const rows = out.entries.data();
  auto count = out.count;
  const long long as = out.atom_stride;
  const int cap = out.capacity;
  int mx = 0;
  Kokkos::parallel_reduce(
      "neighbor::fill_rows_by_bin", Kokkos::RangePolicy<ExecSpace>(0, nbins),
      KOKKOS_LAMBDA(int b, int& m) {
        const int s = cd.bin_start[b], owned = cd.bin_ghost[b] - s;
        if (owned == 0) return;
        const int t = token.acquire();
        double* const mine = pos + 3 * per * t;
        const simd::Gathered cand{mine, mine + per, mine + 2 * per, atoms + per * t};
        const int n = simd::gather(cd, b, half, cand);
        // A half list takes from the bin's own atoms only those after i (owned atoms above i, and ghosts).
        for (int k = 0; k < owned; ++k) {
          const int i = cd.bin_atoms[s + k];
          const int c = simd::fill_row(i, cd.px[s + k], cd.py[s + k], cd.pz[s + k], half ? k + 1 : 0, n, n_local, rc2,
                                       !half, newton_ghost, cand, rows + i * as, cap);
          count(i) = c;
          if (c > m) m = c;
        }
        token.release(t);
      },
      Kokkos::Max<int>(mx));
  return mx;
}
#endif

/// One pass over the candidates into rows of `capacity` entries, grown and repeated when an atom has more
/// partners. Returns the total number of pairs; max_count is the largest count.
long long build_lists(const ParticleVec& x, int n_local, double rc2, bool half, bool newton_ghost, const BinGrid& g,
                      const Stencil& stencil, const IntView& bin_start, const IntView& bin_atoms,
                      const IntView& bin_ghost, const Packed& xp, RowStore& out, int& max_count, bool portable) {
  ensure(out.count, n_local, "neighbor::count");
  auto count = out.count;
  // Slot-major rows: each slot's column starts on a 128-byte boundary (32 ints).
  const long long column = (static_cast<long long>(n_local) + 31) / 32 * 32;
  int mx = 0;
  for (;;) {
    const int cap = out.capacity;
    out.atom_stride = out.slots ? 1 : cap + kSlack;
    out.slot_stride = out.slots ? column : 1;
    const long long need = out.slots ? column * cap : static_cast<long long>(n_local) * (cap + kSlack);  // 64-bit
    if (static_cast<long long>(out.entries.extent(0)) < need || out.entries.data() == nullptr)
      out.entries = IntView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "neighbor::rows"), need + need / 10 + 1);
    auto tmp = out.entries;
    const long long as = out.atom_stride, ss = out.slot_stride;
    const auto st = stencil.rows;
    mx = 0;
#ifdef STRATUS_NEIGHBOR_SIMD
    if (!portable && !out.slots) {  // writes consecutive entries
      const simd::Candidates cd{st.data(),        static_cast<int>(st.extent(0)),
                                bin_start.data(), bin_atoms.data(),
                                bin_ghost.data(), &xp(0, 0),
                                &xp(0, 1),        &xp(0, 2)};
      mx = fill_rows_by_bin(n_local, rc2, half, newton_ghost, g.nbins, cd, out);
    } else
#else
    (void)portable;
#endif
    {
      Kokkos::parallel_reduce(
          "neighbor::fill_rows", Kokkos::RangePolicy<ExecSpace>(0, n_local),
          KOKKOS_LAMBDA(int i, int& m) {
            const long long base = static_cast<long long>(i) * as;
            int c = 0;
            // Every candidate is written; only a taken one advances c (past the capacity the last slot is
            // overwritten, and the count says to widen the rows and repeat).
            for_each_candidate(x, i, n_local, rc2, half, newton_ghost, g, st, bin_start, bin_atoms, bin_ghost, xp,
                               [&](int j, bool take) {
                                 tmp(base + (c < cap ? c : cap - 1) * ss) = j;
                                 c += take;
                               });
            count(i) = c;
            if (c > m) m = c;
          },
          Kokkos::Max<int>(mx));
    }
    if (n_local == 0) mx = 0;
    if (mx <= out.capacity) break;
    out.capacity = mx + mx / 5 + 8;  // rare: the density went up
  }
  max_count = mx;
  long long total = 0;
  Kokkos::parallel_reduce(
      "neighbor::total", Kokkos::RangePolicy<ExecSpace>(0, n_local),
      KOKKOS_LAMBDA(int i, long long& sum) { sum += count(i); }, total);
  return total;
}

/// Atom-major rows of width `stride` moved down in place into consecutive rows (a CSR list; starts gets
/// each row's first entry). The pair kernels then stream the list without the rows' unused tails: 14 %
/// faster for 32,000 atoms of LJ on one Zen 4 core than reading the padded rows. In place: row i's
/// destination ends at starts(i + 1) <= (i + 1) stride, before the source of every later row, so moving
/// the rows in increasing order never overwrites one not yet moved; that order makes it one host pass
/// (memmove), for host-accessible memory only.
void compact_rows(const IntView& entries, const IntView& count, int n_local, long long stride,
                  Kokkos::View<long long*, MemSpace>& starts) {
  ensure(starts, n_local + 1LL, "neighbor::starts");
  Kokkos::fence();
  int* e = entries.data();
  const int* c = count.data();
  long long* s = starts.data();
  long long at = 0;
  for (int i = 0; i < n_local; ++i) {
    s[i] = at;
    if (at != i * stride) std::memmove(e + at, e + i * stride, static_cast<std::size_t>(c[i]) * sizeof(int));
    at += c[i];
  }
  s[n_local] = at;
}

}  // namespace neighbor_detail

NeighborList::NeighborList(NeighborParams params) : params_(params) {
  STRATUS_REQUIRE(std::isfinite(params.cutoff) && params.cutoff > 0.0,
                  "neighbor list: cutoff must be positive and finite, got " << params.cutoff);
  STRATUS_REQUIRE(std::isfinite(params.skin) && params.skin >= 0.0,
                  "neighbor list: skin must be non-negative and finite, got " << params.skin);
  layout_ =
      params.layout != ListLayout::automatic ? params.layout : (gpu_paths() ? ListLayout::slots : ListLayout::atoms);
}

NeighborRows NeighborList::rows() const {
  NeighborRows r;
  r.entries = rows_;
  r.counts = Kokkos::subview(count_, std::make_pair(0, n_local_));
  r.atom_stride = atom_stride_;
  r.slot_stride = slot_stride_;
  if (compact_) r.starts = Kokkos::subview(starts_, std::make_pair(0, n_local_));
  return r;
}

std::vector<std::vector<int>> NeighborList::host_lists() const {
  const auto entries = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows_);
  const auto counts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), count_);
  const auto starts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), starts_);
  std::vector<std::vector<int>> lists(static_cast<std::size_t>(n_local_));
  for (int i = 0; i < n_local_; ++i)
    for (int k = 0; k < counts(i); ++k)
      lists[static_cast<std::size_t>(i)].push_back(
          entries((compact_ ? starts(i) : i * atom_stride_) + k * slot_stride_));
  return lists;
}

void NeighborList::build(const ParticleVec& x, int n_local, int n_ghost, Real3 lo, Real3 hi) {
  STRATUS_REQUIRE(n_local >= 0 && n_ghost >= 0, "neighbor list: negative atom counts " << n_local << ", " << n_ghost);
  const long long n_total = static_cast<long long>(n_local) + n_ghost;
  STRATUS_REQUIRE(n_total <= static_cast<long long>(x.extent(0)) && n_total <= std::numeric_limits<int>::max(),
                  "neighbor list: " << n_local << " owned + " << n_ghost << " ghost atoms but x holds " << x.extent(0));
  const int n = static_cast<int>(n_total);
  const double rc = list_cutoff();
  Real3 inv_width;
  Int3 nb;
  long long nbins = 1;
  for (int d = 0; d < 3; ++d) {
    const double len = hi[d] - lo[d];
    STRATUS_REQUIRE(std::isfinite(len) && len > 0.0,
                    "neighbor list: empty bounding box in direction " << d << ": [" << lo[d] << ", " << hi[d] << ")");
    const double fit = std::floor(len / (0.5 * rc));  // bins of edge >= rc / 2
    nb[d] = fit < 1.0 ? 1 : (fit > 1024.0 ? 1024 : static_cast<int>(fit));
    nbins *= nb[d];
  }
  // Keep the bin array proportionate to the atom count (bins only grow, so they stay >= rc).
  const long long max_bins = std::max<long long>(4096, 8 * n_total);
  while (nbins > max_bins) {
    int dmax = 0;
    for (int d = 1; d < 3; ++d)
      if (nb[d] > nb[dmax]) dmax = d;
    nbins /= nb[dmax];
    nb[dmax] = (nb[dmax] + 1) / 2;
    nbins *= nb[dmax];
  }
  for (int d = 0; d < 3; ++d) inv_width[d] = nb[d] / (hi[d] - lo[d]);

  const int bad = neighbor_detail::count_outside(x, n, lo, hi);
  STRATUS_REQUIRE(bad == 0, "neighbor list: " << bad << " of " << n << " atoms lie outside the bounding box [" << lo[0]
                                              << ", " << hi[0] << ") x [" << lo[1] << ", " << hi[1] << ") x [" << lo[2]
                                              << ", " << hi[2] << ")");

  const neighbor_detail::BinGrid grid = neighbor_detail::make_grid(lo, inv_width, nb);
  neighbor_detail::sort_into_bins(x, n, n_local, grid, bin_start_, bin_atoms_, bin_ghost_, packed_, atom_bin_,
                                  bin_count_);
  Real3 width;
  for (int d = 0; d < 3; ++d) width[d] = 1.0 / inv_width[d];
  const auto stencil = neighbor_detail::make_stencil(rc, width, grid, params_.half && params_.newton_ghost);
  neighbor_detail::RowStore store{rows_, count_, capacity_, layout_ == ListLayout::slots, gathered_, gathered_atoms_};
  total_pairs_ = neighbor_detail::build_lists(x, n_local, rc * rc, params_.half, params_.half && params_.newton_ghost,
                                              grid, stencil, bin_start_, bin_atoms_, bin_ghost_, packed_, store,
                                              max_neighbors_, params_.portable);
  // Start the next build with room for a little more than this one needed.
  capacity_ = std::max(capacity_, max_neighbors_ + max_neighbors_ / 10 + 4);
  atom_stride_ = store.atom_stride;
  slot_stride_ = store.slot_stride;
  compact_ = layout_ == ListLayout::atoms && Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemSpace>::accessible;
  if (compact_) neighbor_detail::compact_rows(rows_, count_, n_local, atom_stride_, starts_);

  neighbor_detail::ensure(x_build_, n_local, "neighbor::x_build");
  Kokkos::deep_copy(Kokkos::subview(x_build_, std::make_pair(0, n_local), Kokkos::ALL),
                    Kokkos::subview(x, std::make_pair(0, n_local), Kokkos::ALL));
  n_local_ = n_local;
  n_ghost_ = n_ghost;
  nbin_ = nb;
  ++builds_;
}

bool NeighborList::needs_rebuild(const ParticleVec& x) const {
  if (builds_ == 0) return true;
  STRATUS_REQUIRE(static_cast<int>(x.extent(0)) >= n_local_,
                  "neighbor list: x holds " << x.extent(0) << " atoms, the list was built for " << n_local_);
  auto x0 = x_build_;
  double max_d2 = 0.0;
  Kokkos::parallel_reduce(
      "neighbor::max_displacement", Kokkos::RangePolicy<ExecSpace>(0, n_local_),
      KOKKOS_LAMBDA(int i, double& m) {
        const double dx = x(i, 0) - x0(i, 0), dy = x(i, 1) - x0(i, 1), dz = x(i, 2) - x0(i, 2);
        const double d2 = dx * dx + dy * dy + dz * dz;
        if (d2 > m) m = d2;
      },
      Kokkos::Max<double>(max_d2));
  const double half_skin = 0.5 * params_.skin;
  return n_local_ > 0 && max_d2 > half_skin * half_skin;
}

}  // namespace stratus
