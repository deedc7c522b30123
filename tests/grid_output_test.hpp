// What the grid-output test files share: an empty directory per case and rank count, rank 0's findings
// on every rank, a field stamped with its global cell indices, files read back (text, temporary files
// left, a numeric attribute through the serial HDF5 driver).
#pragma once
#include <mpi.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "domain/local_grid.hpp"
#include "io/hdf5_util.hpp"
#include "mpi_world.hpp"

namespace io_test {

namespace fs = std::filesystem;
using stratus::Field4D;
using stratus::LocalGrid;
using stratus::test::joined;
using stratus::test::root_passed;
using stratus::test::world_rank;
using stratus::test::world_size;

/// An empty directory for one test case, unique per rank count so concurrent np runs do not collide.
inline std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::current_path() / ("test_output_np" + std::to_string(world_size())) / name;
  if (world_rank() == 0) {
    fs::remove_all(dir);
    fs::create_directories(dir.parent_path());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return dir.string();
}

/// Ghosts get -1, owned cells var * 1e6 + their global linear index (gk * ny + gj) * nx + gi.
inline void stamp(const LocalGrid& grid, const Field4D& f) {
  Kokkos::deep_copy(f, -1.0);
  const LocalGrid g = grid;
  const Field4D v = f;
  const int nvar = f.extent_int(0);
  Kokkos::parallel_for(
      "io::test_stamp",
      Kokkos::MDRangePolicy<Kokkos::Rank<3>>({g.ng[2], g.ng[1], g.ng[0]},
                                             {g.ng[2] + g.n[2], g.ng[1] + g.n[1], g.ng[0] + g.n[0]}),
      KOKKOS_LAMBDA(const int k, const int j, const int i) {
        const long long gi = g.offset[0] + i - g.ng[0];
        const long long gj = g.offset[1] + j - g.ng[1];
        const long long gk = g.offset[2] + k - g.ng[2];
        const long long lin = (gk * g.global_n[1] + gj) * g.global_n[0] + gi;
        for (int c = 0; c < nvar; ++c) v(c, k, j, i) = c * 1e6 + static_cast<double>(lin);
      });
  Kokkos::fence();
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

inline std::vector<std::string> tmp_files(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().extension() == ".tmp") found.push_back(e.path().string());
  }
  return found;
}

/// A numeric attribute, read with the serial HDF5 driver (rank 0 only).
template <class T>
std::vector<T> read_numeric_attr(hid_t obj, const char* name, hid_t mem_type) {
  namespace h5 = stratus::h5;
  h5::Attribute a(H5Aopen(obj, name, H5P_DEFAULT), std::string("open attribute ") + name);
  h5::Dataspace s(H5Aget_space(a.get()), "attribute space");
  std::vector<T> v(static_cast<std::size_t>(H5Sget_simple_extent_npoints(s.get())));
  h5::check_status(H5Aread(a.get(), mem_type, v.data()), std::string("read attribute ") + name);
  return v;
}

}  // namespace io_test
