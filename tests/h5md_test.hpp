// What the H5MD test files share (test_h5md.cpp, test_h5md_edge_cases.cpp, test_h5md_mdanalysis.cpp): the
// synthetic frames (1000 atoms scattered over the ranks in shuffled order, positions given unwrapped),
// the writer's spec, an empty directory per case, rank 0's findings on every rank, and a dataset read
// back with the serial HDF5 driver.
#pragma once
#include <mpi.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "io/h5md.hpp"
#include "io/hdf5_util.hpp"
#include "mpi_world.hpp"

namespace h5md_test {

namespace fs = std::filesystem;
namespace h5 = stratus::h5;
using stratus::test::joined;
using stratus::test::root_passed;
using stratus::test::world_rank;
using stratus::test::world_size;

inline constexpr long long kAtoms = 1000;
// Box lengths are powers of two and coordinates multiples of L / 128, so shifting by whole box lengths
// and wrapping back is exact.
inline const stratus::Real3 kLo{-4.0, -2.0, 0.5};
inline const stratus::Real3 kHi{12.0, 6.0, 8.5};
inline const std::array<bool, 3> kPeriodic{true, true, false};

inline double length(int d) { return kHi[d] - kLo[d]; }
/// The position of atom `id` at `frame`, inside the box.
inline double position(long long id, int frame, int d) {
  return kLo[d] + static_cast<double>((id * 7 + frame * 13 + d * 5) % 128) / 128.0 * length(d);
}
/// What the caller passes: the in-box position shifted by -1, 0 or +1 box lengths (out of the box in z too).
inline double unwrapped(long long id, int frame, int d) {
  const int shift = static_cast<int>(id % 3) - 1;
  return position(id, frame, d) + (kPeriodic[d] ? shift * length(d) : 2.0 * shift * length(d));
}
/// What the file holds: wrapped in the periodic directions, as passed in the others.
inline double stored(long long id, int frame, int d) {
  return kPeriodic[d] ? position(id, frame, d) : unwrapped(id, frame, d);
}
inline double velocity(long long id, int frame, int d) {
  return 0.001 * static_cast<double>(id) - 0.3 * frame + 0.25 * d;
}
inline double force(long long id, int frame, int d) { return -1.0 / static_cast<double>(id) + frame - d; }
inline int species(long long id) { return static_cast<int>(id % 3) + 1; }
inline long step_of(int frame) { return 100L * frame + 5; }
inline double time_of(int frame) { return 0.005 * static_cast<double>(step_of(frame)); }

/// This rank's atoms at `frame`: ids scattered over the ranks, in an order shuffled per rank and frame.
struct Atoms {
  std::vector<long long> id;
  std::vector<double> x, v, f;
  std::vector<int> type;
};
inline Atoms local_atoms(int frame, long long natoms = kAtoms) {
  Atoms a;
  // Atoms change rank between frames and the ranks' counts with them: a writer that keeps a frame's
  // buffers for the next must not let a longer frame's values stand in a shorter one.
  for (long long i = 1; i <= natoms; ++i) {
    if ((i * 7919 + frame * (i % 5)) % world_size() == world_rank()) a.id.push_back(i);
  }
  std::mt19937 rng(static_cast<unsigned>(1234 + 17 * world_rank() + frame));
  std::shuffle(a.id.begin(), a.id.end(), rng);
  for (long long i : a.id) {
    for (int d = 0; d < 3; ++d) {
      a.x.push_back(unwrapped(i, frame, d));
      a.v.push_back(velocity(i, frame, d));
      a.f.push_back(force(i, frame, d));
    }
    a.type.push_back(species(i));
  }
  return a;
}

inline std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::current_path() / ("test_output_np" + std::to_string(world_size())) / ("h5md_" + name);
  if (world_rank() == 0) fs::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  return dir.string();
}

/// A whole dataset, read with the serial HDF5 driver (rank 0 only); `dims` gets its extents.
template <class T>
std::vector<T> read_dataset(hid_t file, const std::string& name, hid_t mem_type, std::vector<hsize_t>& dims) {
  h5::Dataset ds(H5Dopen2(file, name.c_str(), H5P_DEFAULT), "open " + name);
  h5::Dataspace s(H5Dget_space(ds.get()), "dataspace of " + name);
  dims.assign(static_cast<std::size_t>(H5Sget_simple_extent_ndims(s.get())), 0);
  H5Sget_simple_extent_dims(s.get(), dims.data(), nullptr);
  std::vector<T> v(static_cast<std::size_t>(H5Sget_simple_extent_npoints(s.get())));
  h5::check_status(H5Dread(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), "read " + name);
  return v;
}

inline stratus::H5mdSpec make_spec(bool physical_units) {
  stratus::H5mdSpec spec;
  spec.natoms = kAtoms;
  spec.lo = kLo;
  spec.hi = kHi;
  spec.periodic = kPeriodic;
  if (physical_units) {
    spec.length_unit = "nm";
    spec.time_unit = "ps";
    spec.velocity_unit = "nm ps-1";
    spec.force_unit = "kJ mol-1 nm-1";
  } else {
    spec.length_unit = "sigma";
    spec.time_unit = "tau";
    spec.velocity_unit = "sigma/tau";
    spec.force_unit = "epsilon/sigma";
  }
  spec.velocities = true;
  spec.forces = true;
  spec.author = "test author";
  return spec;
}

inline void write_frames(stratus::H5mdWriter& writer, int nframes) {
  for (int k = 0; k < nframes; ++k) {
    const Atoms a = local_atoms(k);
    writer.write_frame(step_of(k), time_of(k), a.id, a.x, a.v, a.f, a.type);
  }
}

}  // namespace h5md_test
