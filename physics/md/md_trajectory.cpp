// The MD engine's H5MD trajectory: its layout, the frames' host rows (sized before the step loop) and the
// frames themselves, in the step loop or on a background thread (set_background_output). The data file
// written with the first frame and the checkpoints are in md_io.cpp.
#include <cmath>
#include <cstdio>
#include <future>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/host_memory.hpp"
#include "md/md_host_rows.hpp"
#include "md/md_simulation.hpp"
#include "stratus/version.hpp"

namespace stratus::md {

using host_copy::copy_host_rows;

namespace {

/// What a frame writes of this rank's atoms.
struct FrameRows {
  HostSpan<long long> id;
  HostSpan<double> x, v, f;
  HostSpan<int> type;
  HostSpan<double> q;
  HostSpan<int> image;
};

}  // namespace

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
  // In the step loop on a CPU, a frame after the first reads the atoms' own arrays, which stay as they are
  // until it has been written (a copy of them took 2-3 ms of the 17-19 of a frame of 256k atoms at two
  // ranks). Otherwise their rows are copied to the host; the first frame's also make the data file, which
  // holds velocities. Host memory itself, not memory the host can reach (CUDA's unified memory), and a
  // fence, as the copy would have waited for the kernels that wrote them.
  static_assert(std::is_same_v<ParticleVec::array_layout, Kokkos::LayoutRight> &&
                    std::is_same_v<ParticleImage::array_layout, Kokkos::LayoutRight>,
                "an atom's components are consecutive");
  const bool in_place = !background_output_ && !first && std::is_same_v<MemSpace, HostSpace>;
  if (in_place)
    ExecSpace().fence();
  else
    copy_host_rows(atoms_, atoms_.n_local, p_.trajectory_velocities || first, p_.trajectory_forces, rows);
  const std::size_t n = static_cast<std::size_t>(atoms_.n_local);
  const FrameRows frame = in_place ? FrameRows{{atoms_.id.data(), n},
                                               {atoms_.x.data(), 3 * n},
                                               {atoms_.v.data(), p_.trajectory_velocities ? 3 * n : 0},
                                               {atoms_.f.data(), p_.trajectory_forces ? 3 * n : 0},
                                               {atoms_.type.data(), n},
                                               {atoms_.q.data(), n},
                                               {atoms_.image.data(), 3 * n}}
                                   : FrameRows{rows.id, rows.x, rows.v, rows.f, rows.type, rows.q, rows.image};
  const long step = clock.step;
  const double time = clock.time;
  // A restarted run continues in a file of its own, so that the frames before the restart are kept.
  char tag[32] = "";
  if (restarted_at_ >= 0) std::snprintf(tag, sizeof tag, "_from_%08ld", restarted_at_);
  const std::string stem = output_dir + "/" + name + tag;
  const MPI_Comm comm = background_output_ ? output_comm_ : pc_->comm();
  auto write = [this, &rows, frame, spec, first, step, time, stem, comm] {
    if (first) {
      trajectory_ = std::make_unique<H5mdWriter>(comm, stem + ".h5md", spec);
      // Its topology: the atoms of the first frame as a LAMMPS data file of the same stem, which analysis
      // tools load beside the trajectory (MDAnalysis: Universe("NAME.data", "NAME.h5md")).
      write_data_rows(comm, stem + ".data", rows);
    }
    trajectory_->write_frame(step, time, frame.id, frame.x, frame.v, frame.f, frame.type, frame.q, frame.image);
  };
  if (background_output_) {
    last_frame_job_ = output_jobs_.submit(write);
    frame_slot_ = slot;
  } else {
    write();
  }
  return H5mdWriter::frame_bytes(spec, first);
}

}  // namespace stratus::md
