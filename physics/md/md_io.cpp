// The MD engine's I/O: the LAMMPS data files (md.write_data at the end, the trajectory's topology) and
// checkpoints (write and read); the H5MD trajectory is in md_trajectory.cpp, set-up and the time step in
// md_simulation.cpp. Every per-atom array reaches the host through host_rows() (md_host_rows.hpp); nothing
// here runs in the time step.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "comm/gather_records.hpp"
#include "core/agree.hpp"
#include "core/error.hpp"
#include "core/host_memory.hpp"
#include "core/log.hpp"
#include "io/checkpoint.hpp"
#include "io/posix_io.hpp"
#include "io/row_exchange.hpp"
#include "io/space.hpp"
#include "md/md_host_rows.hpp"
#include "md/md_simulation.hpp"
#include "stratus/version.hpp"

namespace stratus::md {
namespace {

using host_copy::copy_host_rows;
using host_copy::host_rows;

/// Bytes for text about to be written, left uninitialised (only the pages written are touched), from
/// huge_page_allocate: a block of 1 MiB or more takes huge pages at its first touch.
class TextBuffer {
 public:
  explicit TextBuffer(std::size_t bytes) : bytes_(bytes), p_(static_cast<char*>(huge_page_allocate(bytes))) {}
  TextBuffer(const TextBuffer&) = delete;
  TextBuffer& operator=(const TextBuffer&) = delete;
  ~TextBuffer() { huge_page_free(p_, bytes_); }
  char* data() const { return p_; }

 private:
  std::size_t bytes_;
  char* p_;
};

}  // namespace

AtomData MDSimulation::no_atoms() const {
  AtomData a;
  a.lo = lo_;
  a.hi = hi_;
  a.ntypes = spec_.ntypes;
  a.mass = mass_host_;
  a.has_velocities = true;
  a.has_charges = has_charges_;
  return a;
}

AtomData MDSimulation::gather() const {
  const int n = atoms_.n_local;
  HostRows h;
  copy_host_rows(atoms_, n, true, false, h);
  const auto& id = h.id;
  const auto &type = h.type, &image = h.image;
  const auto &x = h.x, &v = h.v, &q = h.q;
  // One record of kRec doubles per atom: id, type, x, v, image, q (all exact in a double).
  constexpr std::size_t kRec = 12;
  std::vector<double> send(static_cast<std::size_t>(n) * kRec);
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
    double* r = &send[i * kRec];
    r[11] = q[i];
    r[0] = static_cast<double>(id[i]);
    r[1] = type[i];
    for (std::size_t d = 0; d < 3; ++d) {
      r[2 + d] = x[3 * i + d];
      r[5 + d] = v[3 * i + d];
      r[8 + d] = image[3 * i + d];
    }
  }
  const MPI_Comm c = pc_->comm();
  int rank = 0;
  MPI_Comm_rank(c, &rank);
  const std::vector<double> recv = gather_records(send, static_cast<int>(kRec), c);  // counts in records
  AtomData all = no_atoms();
  if (rank != 0) return all;
  const std::size_t total = recv.size() / kRec;
  std::vector<std::size_t> order(total);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return recv[a * kRec] < recv[b * kRec]; });
  for (std::size_t k : order) {
    const double* r = &recv[k * kRec];
    all.add_atom(static_cast<long long>(r[0]), static_cast<int>(r[1]), {r[2], r[3], r[4]});
    all.v.back() = {r[5], r[6], r[7]};
    all.image.back() = {static_cast<int>(r[8]), static_cast<int>(r[9]), static_cast<int>(r[10])};
    all.q.back() = r[11];
  }
  return all;
}

void MDSimulation::write_checkpoint(CheckpointWriter& w) {
  // A run restarted from here continues its trajectory in a file of its own: this one's sidecar lists
  // every frame it holds. (The run loop has waited for a frame in flight before it opened the checkpoint.)
  finish_output();
  // Per atom by id: type, position, velocity, image flags, the position at the last neighbor build and
  // the (rank, row) it occupies, so that a restart on the same ranks rebuilds the same ghosts and lists
  // and continues bit for bit.
  const int n = atoms_.n_local;
  const auto id = host_rows(atoms_.id, n);
  const auto x = host_rows(atoms_.x, n);
  const auto v = host_rows(atoms_.v, n);
  const auto xb = host_rows(list_->build_positions(), n);
  const auto type_int = host_rows(atoms_.type, n);
  const auto image_int = host_rows(atoms_.image, n);
  const std::vector<long long> type(type_int.begin(), type_int.end()), image(image_int.begin(), image_int.end());
  std::vector<long long> slot(2 * static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k) {
    slot[2 * k] = pc_->rank();
    slot[2 * k + 1] = static_cast<long long>(k);
  }
  w.write_rows("atom_type", natoms_, 1, id, type);
  w.write_rows("atom_x", natoms_, 3, id, x);
  w.write_rows("atom_v", natoms_, 3, id, v);
  w.write_rows("atom_image", natoms_, 3, id, image);
  w.write_rows("atom_x_build", natoms_, 3, id, xb);
  w.write_rows("atom_slot", natoms_, 2, id, slot);
  w.write_rows("atom_x0", natoms_, 3, id, host_rows(atoms_.x0, n));
  if (has_charges_) w.write_rows("atom_q", natoms_, 1, id, host_rows(atoms_.q, n));
  if (nhc_) w.write_values("md_nhc", nhc_->state());
  w.write_values("md_last_sort", {static_cast<double>(last_sort_)});
}

void MDSimulation::read_checkpoint(CheckpointReader& r) {
  const std::string file = "checkpoint '" + r.path() + "'";
  STRATUS_INPUT_REQUIRE(r.has("atom_x") && r.has("atom_v") && r.has("atom_type") && r.has("atom_image"),
                        file << " holds no atoms");
  const long long n_all = r.rows("atom_x");
  STRATUS_INPUT_REQUIRE(n_all == natoms_, file << " holds " << n_all << " atoms, the deck's system " << natoms_);
  const auto x = r.read_rows("atom_x", 0, n_all, 3);
  const auto v = r.read_rows("atom_v", 0, n_all, 3);
  const auto type = r.read_rows_int("atom_type", 0, n_all, 1);
  auto image = r.read_rows_int("atom_image", 0, n_all, 3);
  STRATUS_INPUT_REQUIRE(!has_charges_ || r.has("atom_q"), file << " holds no charges (atom_q), the deck's system has");
  // The displacement origins (msd); a checkpoint without them starts the count again at the restart.
  const bool has_x0 = r.has("atom_x0");
  const std::vector<double> x0 = has_x0 ? r.read_rows("atom_x0", 0, n_all, 3) : std::vector<double>();
  if (!has_x0) log::info(file + " holds no displacement origins (atom_x0): msd counts from the restart");
  const std::vector<double> q = has_charges_ ? r.read_rows("atom_q", 0, n_all, 1) : std::vector<double>(n_all, 0.0);
  for (long long t : type)
    STRATUS_INPUT_REQUIRE(t >= 1 && t <= spec_.ntypes, file << ": atom type " << t << " outside 1.." << spec_.ntypes);
  // Same rank count: every atom back in its (rank, row), ghosts and lists rebuilt from the positions of
  // the last build, so the run continues bit for bit. Otherwise: atoms by position, in id order.
  const bool same = r.meta().nranks == pc_->size() && r.has("atom_slot") && r.has("atom_x_build");
  std::vector<long long> slot;
  std::vector<double> xb;
  if (same) {
    slot = r.read_rows_int("atom_slot", 0, n_all, 2);
    xb = r.read_rows("atom_x_build", 0, n_all, 3);
  }
  std::vector<std::pair<long long, long long>> mine;  // (order key, row)
  auto xs = x;
  for (long long a = 0; a < n_all; ++a) {
    const std::size_t k = static_cast<std::size_t>(a);
    if (same) {
      if (slot[2 * k] == pc_->rank()) mine.emplace_back(slot[2 * k + 1], a);
      continue;
    }
    for (int d = 0; d < 3; ++d) {  // wrap periodic coordinates (between rebuilds atoms may sit just outside)
      double& c = xs[3 * k + static_cast<std::size_t>(d)];
      const double lo = lo_[static_cast<std::size_t>(d)], len = hi_[static_cast<std::size_t>(d)] - lo;
      if (!p_.periodic[static_cast<std::size_t>(d)]) continue;
      const double shift = std::floor((c - lo) / len);
      if (shift != 0.0) {
        c -= shift * len;
        image[3 * k + static_cast<std::size_t>(d)] += static_cast<long long>(shift);
      }
      if (c >= lo + len || c < lo) c = lo;
    }
    if (pc_->owns(xs[3 * k], xs[3 * k + 1], xs[3 * k + 2])) mine.emplace_back(a, a);
  }
  std::sort(mine.begin(), mine.end());
  const int n = static_cast<int>(mine.size());
  std::vector<AtomRow> rows(mine.size());
  for (int i = 0; i < n; ++i) {
    const std::size_t k = static_cast<std::size_t>(mine[static_cast<std::size_t>(i)].second);
    AtomRow& row = rows[static_cast<std::size_t>(i)];
    row.id = static_cast<long long>(k) + 1;
    row.type = static_cast<int>(type[k]);
    row.q = q[k];
    for (std::size_t d = 0; d < 3; ++d) {
      row.x[d] = same ? xb[3 * k + d] : xs[3 * k + d];  // same layout: the build positions first, see below
      row.v[d] = v[3 * k + d];
      row.image[d] = static_cast<int>(image[3 * k + d]);
      row.x0[d] = has_x0 ? x0[3 * k + d] : xs[3 * k + d] + row.image[d] * (hi_[d] - lo_[d]);
    }
  }
  set_owned_atoms(rows);
  // The step of the last sort, so that the next comes where it would have (a checkpoint without it: the
  // atoms count as sorted at the restart). Atoms not back in their rows are sorted now.
  last_sort_ = r.meta().step;
  if (r.has("md_last_sort")) {
    const std::vector<double> v = r.read_values("md_last_sort");
    STRATUS_INPUT_REQUIRE(
        v.size() == 1 && v[0] >= 0.0 && v[0] <= static_cast<double>(r.meta().step) && v[0] == std::floor(v[0]),
        file << ": md_last_sort must be one step between 0 and " << r.meta().step);
    last_sort_ = static_cast<long>(v[0]);
  }
  if (!same && p_.sort_every > 0) sort_atoms(r.meta().step);
  long long total = 0, local = n;
  STRATUS_MPI_CHECK(MPI_Allreduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, pc_->comm()));
  STRATUS_INPUT_REQUIRE(total == natoms_, file << ": " << total << " of " << natoms_
                                               << " atoms fall in this run's sub-domains (a damaged checkpoint?)");
  pc_->borders(atoms_);
  list_->build(atoms_.x, atoms_.n_local, atoms_.n_ghost, pc_->ghost_lo(), pc_->ghost_hi());
  if (same) {  // now the current positions, and the ghosts follow as on any step between builds
    auto hx = Kokkos::create_mirror_view(atoms_.x);
    for (int i = 0; i < n; ++i) {
      const std::size_t k = static_cast<std::size_t>(mine[static_cast<std::size_t>(i)].second);
      for (int d = 0; d < 3; ++d) hx(i, d) = x[3 * k + static_cast<std::size_t>(d)];
    }
    Kokkos::deep_copy(Kokkos::subview(atoms_.x, std::make_pair(0, n), Kokkos::ALL),
                      Kokkos::subview(hx, std::make_pair(0, n), Kokkos::ALL));
    pc_->forward(atoms_);
  }
  restarted_at_ = r.meta().step;
  if (nhc_) {
    STRATUS_INPUT_REQUIRE(r.has("md_nhc") && nhc_->set_state(r.read_values("md_nhc")),
                          file << " holds no Nose-Hoover chain of length " << p_.nhc_chain);
  }
  compute_forces(true);
}

void MDSimulation::write_data_file() {
  if (p_.write_data.empty()) return;
  write_data_to(p_.write_data);
  log::info("wrote LAMMPS data file " + p_.write_data + " (" + std::to_string(natoms_) + " atoms)");
}

void MDSimulation::write_data_to(const std::string& path) {
  // Every rank formats the lines of its block of ids (RowRouter, as for the trajectory's frames) and writes
  // them where they fall in the file: no rank gathers the system or formats more than its share. The bytes
  // are those of write_lammps_data with the atoms in id order (tested).
  HostRows h;
  copy_host_rows(atoms_, atoms_.n_local, true, false, h);
  write_data_rows(pc_->comm(), path, h);
}

void MDSimulation::write_data_rows(MPI_Comm comm, const std::string& path, const HostRows& h) const {
  int rank = 0;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const auto& id = h.id;
  const auto &type = h.type, &image = h.image;
  const auto &x = h.x, &v = h.v, &q = h.q;
  struct Record {
    double x[3], v[3], q;
    int type, image[3];
  };
  RowRouter router;
  const RowBlock& rows = router.route(
      comm, natoms_, id, sizeof(Record),
      [&](std::size_t i, char* p) {
        Record r{};
        for (int d = 0; d < 3; ++d) {
          r.x[d] = x[3 * i + d];
          r.v[d] = v[3 * i + d];
          r.image[d] = image[3 * i + d];
        }
        r.q = q[i];
        r.type = type[i];
        std::memcpy(p, &r, sizeof r);
      },
      "data file '" + path + "': ");
  // Formatted into buffers of the bound's size, which take huge pages at their first touch (TextBuffer):
  // on 4 KiB pages the first touch of 34 MB of text (256k atoms) cost more than half its formatting.
  const TextBuffer atoms_buf(rows.count * data_text::kAtomLineMax + data_text::kLineSlack);
  const TextBuffer vel_buf(rows.count * data_text::kVelocityLineMax + data_text::kLineSlack);
  char *a = atoms_buf.data(), *vl = vel_buf.data();
  for (std::size_t j = 0; j < rows.count; ++j) {
    Record r;
    std::memcpy(&r, rows.record(j), sizeof r);
    const long long atom = rows.row0 + static_cast<long long>(j) + 1;
    a = data_text::atom_line(a, atom, r.type, has_charges_ ? &r.q : nullptr, r.x, r.image);
    vl = data_text::velocity_line(vl, atom, r.v);
  }
  const std::string_view atoms_text(atoms_buf.data(), static_cast<std::size_t>(a - atoms_buf.data()));
  const std::string_view vel_text(vel_buf.data(), static_cast<std::size_t>(vl - vel_buf.data()));
  const std::string head = rank == 0 ? data_text::head(no_atoms(), static_cast<std::size_t>(natoms_)) : std::string();

  // Where each part goes: the head, every rank's Atoms lines in rank order, the Velocities heading, every
  // rank's Velocities lines.
  long long mine[3] = {static_cast<long long>(head.size()), static_cast<long long>(atoms_text.size()),
                       static_cast<long long>(vel_text.size())};
  long long before[3] = {0, 0, 0}, total[3] = {0, 0, 0};
  STRATUS_MPI_CHECK(MPI_Exscan(mine, before, 3, MPI_LONG_LONG, MPI_SUM, comm));
  if (rank == 0) before[0] = before[1] = before[2] = 0;  // MPI_Exscan leaves rank 0's undefined
  STRATUS_MPI_CHECK(MPI_Allreduce(mine, total, 3, MPI_LONG_LONG, MPI_SUM, comm));
  const long long heading = static_cast<long long>(std::strlen(data_text::kVelocitiesHeading));
  const long long heading_at = total[0] + total[1];
  reserve_space(comm, path, static_cast<double>(heading_at + heading + total[2]));

  // Rank 0 creates the temporary (named after its pid, as write_lammps_data names it), the others open it
  // once it exists; rank 0 renames it once every rank has written and closed its parts.
  long pid = static_cast<long>(::getpid());
  STRATUS_MPI_CHECK(MPI_Bcast(&pid, 1, MPI_LONG, 0, comm));
  const std::string tmp = path + ".tmp." + std::to_string(pid);
  int fd = -1;
  std::string err;
  if (rank == 0) {
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) err = "cannot open '" + tmp + "' for writing: " + std::strerror(errno);
  }
  agree_or_throw(comm, err.empty(), err);
  if (rank != 0) fd = ::open(tmp.c_str(), O_WRONLY | O_CLOEXEC);
  int e = fd < 0 ? errno : 0;
  const auto put = [&](std::string_view text, long long at) {
    if (e == 0 && !text.empty()) e = posix_io::write_all(fd, text.data(), text.size(), static_cast<off_t>(at));
  };
  put(head, 0);
  put(atoms_text, total[0] + before[1]);
  if (rank == 0) put(data_text::kVelocitiesHeading, heading_at);
  put(vel_text, heading_at + heading + before[2]);
  if (fd >= 0 && ::close(fd) != 0 && e == 0) e = errno;
  if (e != 0) err = "write error on '" + tmp + "': " + std::strerror(e);
  try {
    agree_all_or_throw(comm, err.empty(), err);
    if (rank == 0 && std::rename(tmp.c_str(), path.c_str()) != 0)
      err = "cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(errno);
    agree_or_throw(comm, err.empty(), err);
  } catch (...) {
    if (rank == 0) ::unlink(tmp.c_str());
    throw;
  }
}

void MDSimulation::finish(const Clock& clock) {
  long long pairs = list_->total_pairs(), all_pairs = 0;
  STRATUS_MPI_CHECK(MPI_Allreduce(&pairs, &all_pairs, 1, MPI_LONG_LONG, MPI_SUM, pc_->comm()));
  int most = list_->max_neighbors(), all_most = 0;
  STRATUS_MPI_CHECK(MPI_Allreduce(&most, &all_most, 1, MPI_INT, MPI_MAX, pc_->comm()));
  char per_atom[32];
  std::snprintf(per_atom, sizeof per_atom, "%.4g", static_cast<double>(all_pairs) / natoms_);
  log::info("neighbor lists: " + std::to_string(reneighbors_) + " builds in " + std::to_string(clock.step) +
            " steps; " + std::to_string(all_pairs) + " listed pairs (" + per_atom + " per atom, at most " +
            std::to_string(all_most) + ", " + (list_->params().half ? "half" : "full") + " list)" +
            (sorts_ > 0 ? "; atoms sorted by position " + std::to_string(sorts_) + " time(s)" : std::string()));
  finish_output();
  if (trajectory_)
    log::info("trajectory: " + trajectory_->path() + " (H5MD, " + std::to_string(trajectory_->frames()) +
              " frames; open " + trajectory_->xdmf_path() + " in ParaView or VisIt)");
  write_data_file();
}

}  // namespace stratus::md
