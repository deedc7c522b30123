// The MD engine's I/O: the LAMMPS data files (md.write_data at the end, the trajectory's topology),
// checkpoints (write and read) and the H5MD trajectory. Set-up and the time step are in md_simulation.cpp. Every
// per-atom array reaches the host through host_rows(); nothing here runs in the time step.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <future>
#include <memory>
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
#include "md/md_simulation.hpp"
#include "stratus/version.hpp"

namespace stratus::md {

namespace {

/// Rows 0 .. n - 1 of a per-atom device array into `out` on the host, row after row (n x components
/// values): one copy (the rows are contiguous), into memory that `out` (a std::vector or a HostBuffer)
/// keeps for the next call.
template <class V, class Out>
void host_rows(const V& a, int n, Out& out) {
  static_assert(V::rank == 1 || std::is_same_v<typename V::array_layout, Kokkos::LayoutRight>, "rows contiguous");
  static_assert(std::is_same_v<typename Out::value_type, typename V::non_const_value_type>, "same values");
  const std::size_t ncomp = V::rank == 1 ? 1 : a.extent(1);
  out.resize(static_cast<std::size_t>(n) * ncomp);
  if (n == 0) return;
  using Host = Kokkos::View<typename V::non_const_data_type, Kokkos::LayoutRight, HostSpace, Kokkos::MemoryUnmanaged>;
  const auto rows = std::make_pair(0, n);
  if constexpr (V::rank == 1)
    Kokkos::deep_copy(Host(out.data(), n), Kokkos::subview(a, rows));
  else
    Kokkos::deep_copy(Host(out.data(), n), Kokkos::subview(a, rows, Kokkos::ALL));
}

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

template <class V>
std::vector<typename V::non_const_value_type> host_rows(const V& a, int n) {
  std::vector<typename V::non_const_value_type> out;
  host_rows(a, n, out);
  return out;
}

/// The first n atoms of a Particles into `out` on the host (one copy per array): what a data file holds
/// of each, velocities when `velocities`, forces when `forces` (v and f are emptied otherwise).
template <class Rows>
void copy_host_rows(const Particles& a, int n, bool velocities, bool forces, Rows& out) {
  host_rows(a.id, n, out.id);
  host_rows(a.type, n, out.type);
  host_rows(a.image, n, out.image);
  host_rows(a.x, n, out.x);
  host_rows(a.q, n, out.q);
  if (velocities)
    host_rows(a.v, n, out.v);
  else
    out.v.clear();
  if (forces)
    host_rows(a.f, n, out.f);
  else
    out.f.clear();
}

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
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return recv[a * kRec] < recv[b * kRec]; });
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

H5mdSpec MDSimulation::trajectory_spec() const {
  H5mdSpec spec;
  spec.natoms = natoms_;
  spec.lo = Real3{{lo_[0], lo_[1], lo_[2]}};
  spec.hi = Real3{{hi_[0], hi_[1], hi_[2]}};
  spec.periodic = p_.periodic;
  // H5MD unit notation (what MDAnalysis reads); reduced lj units carry none.
  if (std::string(units_.name) != "lj") {
    spec.length_unit = units_.length;
    spec.time_unit = units_.time;
    spec.velocity_unit = std::string(units_.length) + " " + units_.time + "-1";
    spec.force_unit = std::string(units_.name) == "real" ? "kcal mol-1 Angstrom-1" : "eV Angstrom-1";
  }
  spec.charges = has_charges_;
  spec.charge_unit = std::string(units_.name) == "lj" ? "" : "e";
  spec.velocities = p_.trajectory_velocities;
  spec.forces = p_.trajectory_forces;
  spec.images = true;
  spec.creator_version = kVersion;
  return spec;
}

void MDSimulation::set_background_output(bool on) {
  finish_output();
  int level = MPI_THREAD_SINGLE;
  STRATUS_MPI_CHECK(MPI_Query_thread(&level));
  on = on && level == MPI_THREAD_MULTIPLE;
  // The writer keeps the communicator it was made with: a trajectory begun in the foreground stays there.
  if (!on || (trajectory_ && trajectory_->comm() != output_comm_)) {
    background_output_ = false;
    prepare_frame_rows();
    return;
  }
  if (output_comm_ == MPI_COMM_NULL) STRATUS_MPI_CHECK(MPI_Comm_dup(pc_->comm(), &output_comm_));
  background_output_ = true;
  prepare_frame_rows();
}

namespace {
// Headroom for the atoms a rank may gain by migration between frames, beyond those it owns now.
constexpr double kFrameRowsSlack = 1.0 / 16.0;
constexpr int kFrameRowsExtra = 64;
template <class B>
void touch_rows(B& b, std::size_t n) {
  // Grown to n values (zeros: the first touch of its memory), then back to what it held: the capacity stays.
  if (b.capacity() >= n) return;
  const std::size_t had = b.size();
  b.resize(n);
  b.resize(had);
}
}  // namespace

double MDSimulation::frame_row_bytes(double n, int slots) const {
  if (!p_.trajectory) return 0.0;
  const double rows = n * (1.0 + kFrameRowsSlack) + kFrameRowsExtra;
  // Each array as huge_page_allocate holds it: from kHugeBlock on, in whole 2 MiB pages.
  const auto held = [](double bytes) {
    constexpr double page = 2.0 * 1024 * 1024;
    return bytes < static_cast<double>(kHugeBlock) ? bytes : std::ceil(bytes / page) * page;
  };
  double per_frame = held(rows * 8) + held(rows * 4) + held(rows * 3 * 4) + held(rows * 3 * 8) + held(rows * 8) +
                     held(rows * 3 * 8);  // id type image x q v
  if (p_.trajectory_forces) per_frame += held(rows * 3 * 8);
  return slots * per_frame;
}

double MDSimulation::frame_rows_bytes() const {
  double bytes = 0.0;
  for (const HostRows& r : frames_)
    bytes += static_cast<double>(r.id.capacity() * sizeof(long long) +
                                 (r.type.capacity() + r.image.capacity()) * sizeof(int) +
                                 (r.x.capacity() + r.v.capacity() + r.f.capacity() + r.q.capacity()) * sizeof(double));
  return bytes;
}

void MDSimulation::prepare_frame_rows() {
  if (!p_.trajectory) return;
  // Measured on the development machine (a virtual machine): the first touch of a 256k-atom frame's 20 MB
  // in the loop took 22-41 ms per slot, even on huge pages (memory the host had not backed yet), against
  // 1.3 ms for the copy itself.
  const auto n = static_cast<std::size_t>(static_cast<double>(atoms_.n_local) * (1.0 + kFrameRowsSlack)) +
                 static_cast<std::size_t>(kFrameRowsExtra);
  const bool forces = p_.trajectory_forces;
  auto size_rows = [n, forces](HostRows& r) {
    touch_rows(r.id, n);
    touch_rows(r.type, n);
    touch_rows(r.q, n);
    touch_rows(r.image, 3 * n);
    touch_rows(r.x, 3 * n);
    touch_rows(r.v, 3 * n);  // the first frame's rows hold velocities for the data file
    if (forces) touch_rows(r.f, 3 * n);
  };
  // The next frame's rows here, before the step loop.
  const auto slots = static_cast<unsigned>(frames_.size());
  const unsigned next = background_output_ ? (frame_slot_ + 1) % slots : 0;
  size_rows(frames_[next]);
  if (!background_output_) return;
  // The others on the writer's thread, which has a core of its own, while the first steps run: a frame
  // that is to copy into them first waits for that job (write_snapshot).
  std::vector<HostRows*> rest;
  unsigned pending = 0;
  for (unsigned k = 0; k < slots; ++k) {
    if (k == next) continue;
    rest.push_back(&frames_[k]);
    pending |= 1u << k;
  }
  auto done = std::make_shared<std::promise<void>>();
  frame_rows_ready_ = done->get_future().share();
  output_jobs_.submit([done, rest, size_rows] {
    // A failure here is no frame's: it would drop the frames queued after it, on this rank alone. The
    // frames then size their rows themselves (copy_host_rows) and report a failure there, in the loop.
    try {
      for (HostRows* r : rest) size_rows(*r);
    } catch (...) {
    }
    done->set_value();
  });
  frame_rows_pending_ = pending;  // once the job that sizes them is handed over
}

void MDSimulation::drop_output() noexcept {
  try {
    output_jobs_.wait();
  } catch (...) {
  }
}

void MDSimulation::finish_output() {
  output_jobs_.wait();
  if (trajectory_) trajectory_->flush_xdmf();  // every frame in its sidecar (xdmf::SeriesPacing)
}

double MDSimulation::write_snapshot(const Clock& clock, const std::string& output_dir, const std::string& name) {
  if (!p_.trajectory) return 0.0;
  // In the background, up to three frames are in flight, each with rows of its own (frames_): this one's
  // are copied once the frame that last used them has ended, and the error of a frame that failed belongs
  // to the caller before anything else is written. The first frame's files (the data file above all) take
  // longer than a frame; the frames after it no longer wait for them.
  output_jobs_.make_room();
  // The slot taken is the one after the last frame handed over (its frame has ended); it counts as taken
  // once this frame is handed over, so that a call that throws before then leaves the slots as they were.
  const unsigned slot = background_output_ ? (frame_slot_ + 1) % static_cast<unsigned>(frames_.size()) : 0;
  HostRows& rows = frames_[slot];
  const H5mdSpec spec = trajectory_spec();
  // The first frame: none in flight and none written (a first frame that failed is made again, files and
  // all). A frame handed over while others are in flight follows one that succeeds, or is dropped with
  // it (BackgroundJobs), so it is never the first. (Jobs end in order: the last frame handed over has
  // ended when every frame has; the job sizing rows, prepare_frame_rows, may still run.)
  const bool first =
      (!last_frame_job_ || output_jobs_.ended(*last_frame_job_)) && (!trajectory_ || trajectory_->frames() == 0);
  // The forces are current either way; keep the energies too.
  if (p_.trajectory_forces && !ev_current_) compute_forces(true);
  if (frame_rows_pending_ & (1u << slot)) {  // rows still being sized by the writer's thread
    frame_rows_ready_.wait();
    frame_rows_pending_ = 0;
  }
  // The first frame's rows also make the data file, which holds velocities.
  copy_host_rows(atoms_, atoms_.n_local, p_.trajectory_velocities || first, p_.trajectory_forces, rows);
  const long step = clock.step;
  const double time = clock.time;
  // A restarted run continues in a file of its own, so that the frames before the restart are kept.
  char tag[32] = "";
  if (restarted_at_ >= 0) std::snprintf(tag, sizeof tag, "_from_%08ld", restarted_at_);
  const std::string stem = output_dir + "/" + name + tag;
  const MPI_Comm comm = background_output_ ? output_comm_ : pc_->comm();
  auto write = [this, &rows, spec, first, step, time, stem, comm] {
    if (first) {
      trajectory_ = std::make_unique<H5mdWriter>(comm, stem + ".h5md", spec);
      // Its topology: the atoms of the first frame as a LAMMPS data file of the same stem, which analysis
      // tools load beside the trajectory (MDAnalysis: Universe("NAME.data", "NAME.h5md")).
      write_data_rows(comm, stem + ".data", rows);
    }
    trajectory_->write_frame(step, time, rows.id, rows.x, rows.v, rows.f, rows.type, rows.q, rows.image);
  };
  if (background_output_) {
    last_frame_job_ = output_jobs_.submit(write);
    frame_slot_ = slot;
  } else {
    write();
  }
  return H5mdWriter::frame_bytes(spec, first);
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
            std::to_string(all_most) + ", " + (list_->params().half ? "half" : "full") + " list)");
  finish_output();
  if (trajectory_)
    log::info("trajectory: " + trajectory_->path() + " (H5MD, " + std::to_string(trajectory_->frames()) +
              " frames; open " + trajectory_->xdmf_path() + " in ParaView or VisIt)");
  write_data_file();
}

}  // namespace stratus::md
