// GridHalo: plan construction, pack/unpack kernels and the non-blocking message exchange.
#include "comm/grid_halo.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/gpu_paths.hpp"
#include "core/timer.hpp"

namespace stratus {

namespace {
int link_tag(int ox, int oy, int oz) { return (ox + 1) * 9 + (oy + 1) * 3 + (oz + 1); }
}  // namespace

GridHalo::GridHalo(const CartDecomp& decomp, const LocalGrid& grid, int max_vars, int width, bool corners,
                   HaloTransport transport, int only_direction)
    : decomp_(decomp), grid_(grid), max_vars_(max_vars), width_(width), bufs_("halo", transport) {
  STRATUS_REQUIRE(max_vars >= 1, "halo needs at least one variable");
  STRATUS_REQUIRE(width >= 1, "halo width must be >= 1, got " << width);
  STRATUS_REQUIRE(only_direction >= -1 && only_direction <= 2, "halo direction must be -1, 0, 1 or 2");
  for (int d = 0; d < 3; ++d) {
    STRATUS_REQUIRE(grid.ng[d] == 0 || width <= grid.ng[d],
                    "halo width " << width << " exceeds the grid's ghost width " << grid.ng[d]);
    STRATUS_REQUIRE(grid.ng[d] == 0 || grid.n[d] >= width,
                    "halo width " << width << " exceeds the " << grid.n[d] << " owned cells in direction " << d);
  }
  for (int ox = -1; ox <= 1; ++ox)
    for (int oy = -1; oy <= 1; ++oy)
      for (int oz = -1; oz <= 1; ++oz) {
        const int o[3] = {ox, oy, oz};
        const int nonzero = (ox != 0) + (oy != 0) + (oz != 0);
        if (nonzero == 0 || (!corners && nonzero > 1)) continue;
        if (only_direction >= 0 && (nonzero > 1 || o[only_direction] == 0)) continue;
        bool active = true;
        for (int d = 0; d < 3; ++d)
          if (o[d] != 0 && grid.ng[d] == 0) active = false;  // no ghosts in that direction
        if (!active) continue;
        const int r = decomp.neighbor(ox, oy, oz);
        if (r == MPI_PROC_NULL) continue;
        Link l;
        l.rank = r;
        l.send_tag = link_tag(ox, oy, oz);
        l.recv_tag = link_tag(-ox, -oy, -oz);
        for (int d = 0; d < 3; ++d) {
          const int ng = grid.ng[d], n = grid.n[d];
          if (o[d] == 0) {
            l.owned.lo[d] = l.ghost.lo[d] = ng;
            l.owned.hi[d] = l.ghost.hi[d] = ng + n;
          } else if (o[d] > 0) {
            l.owned.lo[d] = ng + n - width;
            l.owned.hi[d] = ng + n;
            l.ghost.lo[d] = ng + n;
            l.ghost.hi[d] = ng + n + width;
          } else {
            l.owned.lo[d] = ng;
            l.owned.hi[d] = ng + width;
            l.ghost.lo[d] = ng - width;
            l.ghost.hi[d] = ng;
          }
        }
        l.cells = l.owned.cells();
        links_.push_back(l);
      }
  // Links to other ranks first (their slices are what MPI and the staging see), then those to this rank.
  std::stable_partition(links_.begin(), links_.end(), [&](const Link& l) { return l.rank != decomp.rank(); });
  for (const Link& l : links_) {
    if (l.rank != decomp.rank()) {
      ++remote_links_;
      remote_cells_ += l.cells;
    }
    offset_.push_back(total_cells_);
    total_cells_ += l.cells;
  }
  // A self link receives what the opposite one sends: the link whose send tag is its receive tag.
  for (std::size_t n = static_cast<std::size_t>(remote_links_); n < links_.size(); ++n) {
    std::size_t m = static_cast<std::size_t>(remote_links_);
    while (m < links_.size() && links_[m].send_tag != links_[n].recv_tag) ++m;
    STRATUS_REQUIRE(m < links_.size() && links_[m].cells == links_[n].cells, "halo: a self link has no opposite");
    self_opposite_.push_back(static_cast<int>(m));
  }
  self_src_ = Kokkos::View<long long*, MemSpace>("halo::self_src", self_opposite_.size());
  auto src = Kokkos::create_mirror_view(self_src_);
  for (std::size_t s = 0; s < self_opposite_.size(); ++s) src(s) = offset_[static_cast<std::size_t>(self_opposite_[s])];
  Kokkos::deep_copy(self_src_, src);
  bufs_.reserve(total_cells_ * max_vars, total_cells_ * max_vars);
  fused_ = gpu_paths();
  const std::size_t nl = links_.size();
  owned_boxes_ = Kokkos::View<HaloBox*, MemSpace>("halo::owned_boxes", nl);
  ghost_boxes_ = Kokkos::View<HaloBox*, MemSpace>("halo::ghost_boxes", nl);
  auto ho = Kokkos::create_mirror_view(owned_boxes_);
  auto hg = Kokkos::create_mirror_view(ghost_boxes_);
  for (std::size_t n = 0; n < nl; ++n) {
    for (int d = 0; d < 3; ++d) {
      ho(n).lo[d] = links_[n].owned.lo[d];
      ho(n).n[d] = links_[n].owned.hi[d] - links_[n].owned.lo[d];
      hg(n).lo[d] = links_[n].ghost.lo[d];
      hg(n).n[d] = links_[n].ghost.hi[d] - links_[n].ghost.lo[d];
    }
    ho(n).offset = hg(n).offset = offset_[n];
  }
  Kokkos::deep_copy(owned_boxes_, ho);
  Kokkos::deep_copy(ghost_boxes_, hg);
}

GridHalo::~GridHalo() {
  // A pending exchange (an exception between start and finish) must not leave MPI writing freed memory.
  if (in_flight_ && remote_links_ > 0) {
    MPI_Waitall(static_cast<int>(reqs_recv_.size()), reqs_recv_.data(), MPI_STATUSES_IGNORE);
    MPI_Waitall(static_cast<int>(reqs_send_.size()), reqs_send_.data(), MPI_STATUSES_IGNORE);
  }
}

// Pack and unpack are free functions: CUDA does not allow device lambdas in private member functions.
namespace {
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
// GPUs: one flat index per (variable, cell) of the box, i fastest, which is also the buffer order, so that
// consecutive threads touch consecutive buffer entries whatever the box's shape (faces are 1-3 cells thin).
template <class F>
struct BoxFlat {
  F f;
  int bx, by, bz;
  KOKKOS_INLINE_FUNCTION void operator()(int n) const {
    const int i = n % bx, r = n / bx, j = r % by, r2 = r / by;
    f(r2 / bz, r2 % bz, j, i);
  }
};
template <class F>
void for_each_box_cell(const char* name, int nv, int bx, int by, int bz, const F& f) {
  Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecSpace>(0, nv * bz * by * bx), BoxFlat<F>{f, bx, by, bz});
}
#else
// CPUs: a task per row (v, k, j), the cells along x in a plain inner loop (an MDRange over boxes two cells
// wide along x spent most of its time in tile bookkeeping).
template <class F>
struct BoxRows {
  F f;
  int bx, by, bz;
  KOKKOS_INLINE_FUNCTION void operator()(int r) const {
    const int j = r % by, k = r / by % bz, v = r / (by * bz);
    for (int i = 0; i < bx; ++i) f(v, k, j, i);
  }
};
template <class F>
void for_each_box_cell(const char* name, int nv, int bx, int by, int bz, const F& f) {
  Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecSpace>(0, nv * bz * by), BoxRows<F>{f, bx, by, bz});
}
#endif

// Copies the box [lo, hi) of every variable of f into buf from offset on, box order (v, k, j, i).
void pack_box(const Field4D& f, const int* lo, const int* hi, long long offset, const Buffer1D& buf) {
  const int bx = hi[0] - lo[0], by = hi[1] - lo[1], bz = hi[2] - lo[2];
  const int x0 = lo[0], y0 = lo[1], z0 = lo[2];
  for_each_box_cell(
      "halo::pack", static_cast<int>(f.extent(0)), bx, by, bz, KOKKOS_LAMBDA(int v, int k, int j, int i) {
        buf(offset + ((static_cast<long long>(v) * bz + k) * by + j) * bx + i) = f(v, z0 + k, y0 + j, x0 + i);
      });
}

// The box of every variable of f at `from` copied to the box of the same extents n at `to` (a self link:
// the opposite link's owned cells straight into this one's ghosts, no buffer).
void copy_box(const Field4D& f, const int* from, const int* to, const int* n) {
  const int fx = from[0], fy = from[1], fz = from[2], tx = to[0], ty = to[1], tz = to[2];
  for_each_box_cell(
      "halo::self_box", static_cast<int>(f.extent(0)), n[0], n[1], n[2],
      KOKKOS_LAMBDA(int v, int k, int j, int i) { f(v, tz + k, ty + j, tx + i) = f(v, fz + k, fy + j, fx + i); });
}

// The inverse of pack_box; with add the values are summed into f instead of overwriting it.
void unpack_box(const Field4D& f, const int* lo, const int* hi, long long offset, const Buffer1D& buf, bool add) {
  const int bx = hi[0] - lo[0], by = hi[1] - lo[1], bz = hi[2] - lo[2];
  const int x0 = lo[0], y0 = lo[1], z0 = lo[2];
  for_each_box_cell(
      "halo::unpack", static_cast<int>(f.extent(0)), bx, by, bz, KOKKOS_LAMBDA(int v, int k, int j, int i) {
        const double b = buf(offset + ((static_cast<long long>(v) * bz + k) * by + j) * bx + i);
        double& cell = f(v, z0 + k, y0 + j, x0 + i);
        cell = add ? cell + b : b;
      });
}

// The link of buffer entry m among links lo..hi of boxes: the last one whose start (offset * nvar) is <= m.
KOKKOS_INLINE_FUNCTION int link_at(const Kokkos::View<HaloBox*, MemSpace>& boxes, int lo, int hi, int nvar,
                                   long long m) {
  while (lo < hi) {  // binary search over at most 26 links
    const int mid = (lo + hi + 1) / 2;
    if (boxes(mid).offset * nvar <= m)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// All links at once: one thread per (link, variable, cell) of the buffer; within a link the order is
// (v, k, j, i) as in pack_box.
KOKKOS_INLINE_FUNCTION void locate(const Kokkos::View<HaloBox*, MemSpace>& boxes, int nlinks, int nvar, long long m,
                                   int& v, int& x, int& y, int& z) {
  const HaloBox b = boxes(link_at(boxes, 0, nlinks - 1, nvar, m));
  const long long r = m - b.offset * nvar;
  const long long plane = static_cast<long long>(b.n[0]) * b.n[1];
  const long long cells = plane * b.n[2];
  const long long c = r % cells;
  v = static_cast<int>(r / cells);
  x = b.lo[0] + static_cast<int>(c % b.n[0]);
  y = b.lo[1] + static_cast<int>(c / b.n[0] % b.n[1]);
  z = b.lo[2] + static_cast<int>(c / plane);
}

void pack_fused(const Field4D& f, const Kokkos::View<HaloBox*, MemSpace>& boxes, long long total_cells,
                const Buffer1D& buf) {
  const int nl = static_cast<int>(boxes.extent(0)), nv = static_cast<int>(f.extent(0));
  Kokkos::parallel_for(
      "halo::pack_fused", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long long>>(0, total_cells * nv),
      KOKKOS_LAMBDA(long long m) {
        int v, x, y, z;
        locate(boxes, nl, nv, m, v, x, y, z);
        buf(m) = f(v, z, y, x);
      });
}

// Ghost boxes are disjoint, so every ghost cell has exactly one writer.
void unpack_fused(const Field4D& f, const Kokkos::View<HaloBox*, MemSpace>& boxes, long long total_cells,
                  const Buffer1D& buf) {
  const int nl = static_cast<int>(boxes.extent(0)), nv = static_cast<int>(f.extent(0));
  Kokkos::parallel_for(
      "halo::unpack_fused", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long long>>(0, total_cells * nv),
      KOKKOS_LAMBDA(long long m) {
        int v, x, y, z;
        locate(boxes, nl, nv, m, v, x, y, z);
        f(v, z, y, x) = buf(m);
      });
}
// recv[begin, end), the slices of the self links first .. (those of boxes from index first on), from the
// send slices src (per self link) of their opposite links. A free function: CUDA does not allow device
// lambdas in private member functions.
void copy_self(const Kokkos::View<HaloBox*, MemSpace>& boxes, int first, const Kokkos::View<long long*, MemSpace>& src,
               int nv, long long begin, long long end, const Buffer1D& send, const Buffer1D& recv) {
  const int last = static_cast<int>(boxes.extent(0)) - 1;
  Kokkos::parallel_for(
      "halo::self_copy", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<long long>>(begin, end),
      KOKKOS_LAMBDA(long long m) {
        const int l = link_at(boxes, first, last, nv, m);
        recv(m) = send(src(l - first) * nv + (m - boxes(l).offset * nv));
      });
}
}  // namespace

// Posts the message of every link to another rank; StagedBuffers decides which pointer MPI sees.
void GridHalo::post(int nvar, bool reverse) {
  const std::size_t nr = static_cast<std::size_t>(remote_links_);
  reqs_recv_.assign(nr, MPI_REQUEST_NULL);
  reqs_send_.assign(nr, MPI_REQUEST_NULL);
  in_flight_ = true;
  if (nr == 0) return;
  bufs_.stage_send(0, remote_cells_ * nvar);
  for (std::size_t n = 0; n < nr; ++n) {
    const Link& l = links_[n];
    // In reverse (scatter_add) the roles of the tags swap: data flows from ghost to owner.
    bufs_.irecv(offset_[n] * nvar, static_cast<int>(l.cells * nvar), l.rank, reverse ? l.send_tag : l.recv_tag,
                decomp_.comm(), &reqs_recv_[n]);
  }
  for (std::size_t n = 0; n < nr; ++n) {
    const Link& l = links_[n];
    bufs_.isend(offset_[n] * nvar, static_cast<int>(l.cells * nvar), l.rank, reverse ? l.recv_tag : l.send_tag,
                decomp_.comm(), &reqs_send_[n]);
  }
}

// The receive slices of the self links from the send slices of their opposite links: one kernel on a GPU
// (26 launches would cost more than the copies), a memcpy per link on a CPU (the kernel's per-entry link
// search made a 64^3 exchange take 205 us instead of 117). A CPU exchange copies its self links straight
// from owned cells to ghosts instead (start()); scatter_add still goes through the buffers.
void GridHalo::copy_self_links() {
  const long long nv = active_nvar_, begin = remote_cells_ * nv, end = total_cells_ * nv;
  if (end == begin) return;
  if (fused_) {
    copy_self(ghost_boxes_, remote_links_, self_src_, active_nvar_, begin, end, bufs_.send(), bufs_.recv());
    return;
  }
  for (std::size_t s = 0; s < self_opposite_.size(); ++s) {
    const std::size_t n = static_cast<std::size_t>(remote_links_) + s;
    const long long len = links_[n].cells * nv, src = offset_[static_cast<std::size_t>(self_opposite_[s])];
    const auto to = std::make_pair(offset_[n] * nv, offset_[n] * nv + len);
    const auto from = std::make_pair(src * nv, src * nv + len);
    Kokkos::deep_copy(Kokkos::subview(bufs_.recv(), to), Kokkos::subview(bufs_.send(), from));
  }
}

void GridHalo::wait_recvs(bool self_links) {
  if (remote_links_ > 0) {
    STRATUS_MPI_CHECK(MPI_Waitall(static_cast<int>(reqs_recv_.size()), reqs_recv_.data(), MPI_STATUSES_IGNORE));
    bufs_.unstage_recv(0, remote_cells_ * active_nvar_);
  }
  if (self_links) copy_self_links();
}

void GridHalo::wait_sends() {
  if (remote_links_ > 0)
    STRATUS_MPI_CHECK(MPI_Waitall(static_cast<int>(reqs_send_.size()), reqs_send_.data(), MPI_STATUSES_IGNORE));
  in_flight_ = false;
}

void GridHalo::start(const Field4D& f) {
  ScopedPhase phase(Phase::communication);
  STRATUS_REQUIRE(!in_flight_, "halo start() called twice without finish()");
  const int nvar = static_cast<int>(f.extent(0));
  STRATUS_REQUIRE(nvar >= 1 && nvar <= max_vars_, "halo planned for " << max_vars_ << " variables, field has " << nvar);
  STRATUS_REQUIRE(static_cast<int>(f.extent(3)) == grid_.extent(0) &&
                      static_cast<int>(f.extent(2)) == grid_.extent(1) &&
                      static_cast<int>(f.extent(1)) == grid_.extent(2),
                  "field '" << f.label() << "' does not have the halo's grid extents");
  active_nvar_ = nvar;
  if (fused_ && total_cells_ > 0) {
    pack_fused(f, owned_boxes_, total_cells_, bufs_.send());
  } else {
    // One pass over the cells of a self link instead of three (pack, buffer copy, unpack): at one rank every
    // periodic direction is a self link. Owned boxes are read and ghost boxes written, so the order of the
    // copies and the packs does not matter; the ghosts are final before finish(), as they may be.
    for (std::size_t n = 0; n < static_cast<std::size_t>(remote_links_); ++n)
      pack_box(f, links_[n].owned.lo, links_[n].owned.hi, offset_[n] * nvar, bufs_.send());
    for (std::size_t s = 0; s < self_opposite_.size(); ++s) {
      const Link& to = links_[static_cast<std::size_t>(remote_links_) + s];
      const Link& from = links_[static_cast<std::size_t>(self_opposite_[s])];
      const int n[3] = {to.ghost.hi[0] - to.ghost.lo[0], to.ghost.hi[1] - to.ghost.lo[1],
                        to.ghost.hi[2] - to.ghost.lo[2]};
      copy_box(f, from.owned.lo, to.ghost.lo, n);
    }
  }
  ExecSpace().fence();
  post(nvar, false);
}

void GridHalo::finish(const Field4D& f) {
  ScopedPhase phase(Phase::communication);
  STRATUS_REQUIRE(in_flight_, "halo finish() without start()");
  STRATUS_REQUIRE(static_cast<int>(f.extent(0)) == active_nvar_, "halo finish() on a different field than start()");
  const bool fused = fused_ && total_cells_ > 0;
  wait_recvs(fused);
  if (fused)
    unpack_fused(f, ghost_boxes_, total_cells_, bufs_.recv());
  else
    for (std::size_t n = 0; n < static_cast<std::size_t>(remote_links_); ++n)
      unpack_box(f, links_[n].ghost.lo, links_[n].ghost.hi, offset_[n] * active_nvar_, bufs_.recv(), false);
  ExecSpace().fence();
  wait_sends();
}

void GridHalo::scatter_add(const Field4D& f) {
  ScopedPhase phase(Phase::communication);
  STRATUS_REQUIRE(!in_flight_, "halo scatter_add() during an exchange");
  const int nvar = static_cast<int>(f.extent(0));
  STRATUS_REQUIRE(nvar >= 1 && nvar <= max_vars_, "halo planned for " << max_vars_ << " variables, field has " << nvar);
  active_nvar_ = nvar;
  if (fused_ && total_cells_ > 0)
    pack_fused(f, ghost_boxes_, total_cells_, bufs_.send());
  else
    for (std::size_t n = 0; n < links_.size(); ++n)
      pack_box(f, links_[n].ghost.lo, links_[n].ghost.hi, offset_[n] * nvar, bufs_.send());
  ExecSpace().fence();
  post(nvar, true);
  wait_recvs(true);
  // Owned boxes overlap (a corner cell is in a face, edge and corner box): adding them link by link keeps
  // the sums free of races and in a fixed order, so results are reproducible.
  for (std::size_t n = 0; n < links_.size(); ++n)
    unpack_box(f, links_[n].owned.lo, links_[n].owned.hi, offset_[n] * nvar, bufs_.recv(), true);
  ExecSpace().fence();
  wait_sends();
}

}  // namespace stratus
