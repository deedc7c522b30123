// Tests of io/grid_output: snapshots written by 1, 2 or 4 ranks are read back by rank 0 with the serial
// HDF5 driver and must hold exactly the stamped global field (so the file does not depend on the rank
// count), with its attributes and XDMF sidecars and no temporary file left behind; the history table
// must print integers as integers and round-trip doubles; bad paths must throw on every rank, not hang.
// Rank 0 collects its findings into a list, broadcasts whether it is empty, and every rank asserts on
// that, so a failed check cannot leave ranks waiting in a collective. These tests do not cover timing.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "domain/cart_decomp.hpp"
#include "domain/local_grid.hpp"
#include "io/grid_output.hpp"
#include "io/hdf5_util.hpp"
#include "io/xdmf.hpp"
#include "mpi_world.hpp"
#include "stratus/version.hpp"

namespace fs = std::filesystem;
using stratus::CartDecomp;
using stratus::Field4D;
using stratus::Int3;
using stratus::LocalGrid;
using stratus::Real3;

namespace io_test {

using stratus::test::world_rank;
using stratus::test::world_size;

/// An empty directory for one test case, unique per rank count so concurrent np runs do not collide.
std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::current_path() / ("test_output_np" + std::to_string(world_size())) / name;
  if (world_rank() == 0) {
    fs::remove_all(dir);
    fs::create_directories(dir.parent_path());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return dir.string();
}

/// Every rank learns whether rank 0 found problems; rank 0's list is attached to the assertion.
bool root_passed(const std::vector<std::string>& failures) {
  int ok = failures.empty() ? 1 : 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok == 1;
}

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += i + "\n";
  return s;
}

double stamp_value(int var, long long linear) { return var * 1e6 + static_cast<double>(linear); }

/// Ghosts get -1, owned cells var * 1e6 + their global linear index (gk * ny + gj) * nx + gi.
void stamp(const LocalGrid& grid, const Field4D& f) {
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

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size())) ++n;
  return n;
}

std::vector<std::string> tmp_files(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().extension() == ".tmp") found.push_back(e.path().string());
  }
  return found;
}

// --- Serial HDF5 readers (rank 0 only).

std::string read_string_attr(hid_t obj, const char* name) {
  namespace h5 = stratus::h5;
  h5::Attribute a(H5Aopen(obj, name, H5P_DEFAULT), std::string("open attribute ") + name);
  h5::Datatype t(H5Aget_type(a.get()), "attribute type");
  if (H5Tget_class(t.get()) != H5T_STRING || H5Tis_variable_str(t.get()) > 0) {
    throw stratus::Error(std::string("attribute ") + name + " is not a fixed-length string");
  }
  std::vector<char> buf(H5Tget_size(t.get()) + 1, '\0');
  h5::check_status(H5Aread(a.get(), t.get(), buf.data()), std::string("read attribute ") + name);
  return std::string(buf.data());
}

template <class T>
std::vector<T> read_numeric_attr(hid_t obj, const char* name, hid_t mem_type) {
  namespace h5 = stratus::h5;
  h5::Attribute a(H5Aopen(obj, name, H5P_DEFAULT), std::string("open attribute ") + name);
  h5::Dataspace s(H5Aget_space(a.get()), "attribute space");
  std::vector<T> v(static_cast<std::size_t>(H5Sget_simple_extent_npoints(s.get())));
  h5::check_status(H5Aread(a.get(), mem_type, v.data()), std::string("read attribute ") + name);
  return v;
}

struct Case {
  std::string name;
  Int3 cells;
  Real3 lo, length;
  Int3 requested{0, 0, 0};
};

/// Writes two snapshots of a stamped two-variable field, by a background thread or in write() itself, and
/// checks everything rank 0 can read back. The field is overwritten as soon as the hold allows (when the
/// second write() returns, or after finish() for a held field): the file must hold the field as it was.
void snapshot_case(const Case& c, bool background, stratus::FieldHold hold) {
  namespace h5 = stratus::h5;
  const std::string dir = fresh_dir(c.name);
  CartDecomp decomp(MPI_COMM_WORLD, c.cells, c.requested, {true, false, true});
  const LocalGrid grid = stratus::make_local_grid(decomp, c.lo, c.length, 2);
  const Field4D state = grid.allocate("state", 2);
  stamp(grid, state);

  stratus::Provenance prov;
  prov.physics = "advection";
  // Longer than the 64 KiB that fits in an object header, to exercise dense attribute storage.
  prov.deck_text = "[grid]\nnx = " + std::to_string(c.cells[0]) + "\n# " + std::string(70000, 'x') + "\n";
  prov.resolved_deck = "grid.nx = " + std::to_string(c.cells[0]) + "\n";
  // The variables are listed out of index order to check that names follow the index, not the position.
  const std::vector<stratus::GridVariable> vars = {{"tracer", "kg m-3", 1}, {"rho", "kg/m^3 <&>", 0}};

  stratus::GridSnapshotWriter writer(decomp, grid, dir, "snap", prov);
  writer.set_background(background);
  REQUIRE(writer.background() == background);  // the test executable asks MPI for MPI_THREAD_MULTIPLE
  // The first snapshot is of another field (every value 5): in the background its file is written while
  // the second write packs into the host buffer, which must wait for it.
  const Field4D other = grid.allocate("other", 2);
  Kokkos::deep_copy(other, 5.0);
  const std::string first = writer.write(other, vars, 0, 0.0, hold);
  const std::string second = writer.write(state, vars, 7, 0.1, hold);
  if (hold == stratus::FieldHold::call) Kokkos::deep_copy(state, -7.0);
  writer.finish();
  // The second snapshot again, by a writer with no file before it. Where the ranks write whole z-planes
  // (as many planes as ranks at least) the first writer made its second file from the first one's bytes
  // (io/grid_file.hpp, SnapshotImage): both must be the same bytes (the files record no object times).
  const std::string again_dir = fresh_dir(c.name + "_again");
  stamp(grid, state);
  {
    stratus::GridSnapshotWriter again(decomp, grid, again_dir, "snap", prov);
    again.set_background(background);
    again.write(state, vars, 7, 0.1, hold);
    again.finish();
  }
  Kokkos::deep_copy(state, -7.0);
  CHECK(first == (fs::path(dir) / "snap_000000.h5").string());
  CHECK(second == (fs::path(dir) / "snap_000007.h5").string());
  const double nx = c.cells[0], ny = c.cells[1], nz = c.cells[2];
  CHECK(writer.bytes_written() == 2 * 8.0 * 2 * nx * ny * nz);
  CHECK(writer.seconds() > 0.0);

  std::vector<std::string> bad;
  const auto expect = [&bad](bool cond, const std::string& what) {
    if (!cond) bad.push_back(what);
  };
  if (world_rank() == 0) {
    try {
      h5::File f0(H5Fopen(first.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open " + first);
      for (const auto& v : vars) {
        h5::Dataset ds(H5Dopen2(f0.get(), ("/fields/" + v.name).c_str(), H5P_DEFAULT), "open " + v.name);
        std::vector<double> data(static_cast<std::size_t>(c.cells[0]) * c.cells[1] * c.cells[2]);
        h5::check_status(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
                         "read " + v.name);
        std::size_t wrong = 0;
        for (double x : data) wrong += x != 5.0;
        expect(wrong == 0, first + ": " + v.name + ": " + std::to_string(wrong) + " values are not 5");
      }
      h5::File f(H5Fopen(second.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open " + second);
      for (const auto& v : vars) {
        h5::Dataset ds(H5Dopen2(f.get(), ("/fields/" + v.name).c_str(), H5P_DEFAULT), "open " + v.name);
        h5::Datatype t(H5Dget_type(ds.get()), "dataset type");
        expect(H5Tequal(t.get(), H5T_IEEE_F64LE) > 0, v.name + ": type is not IEEE F64LE");
        h5::Dataspace s(H5Dget_space(ds.get()), "dataset space");
        hsize_t dims[3] = {0, 0, 0};
        expect(H5Sget_simple_extent_ndims(s.get()) == 3, v.name + ": rank is not 3");
        H5Sget_simple_extent_dims(s.get(), dims, nullptr);
        expect(dims[0] == hsize_t(c.cells[2]) && dims[1] == hsize_t(c.cells[1]) && dims[2] == hsize_t(c.cells[0]),
               v.name + ": dims are not {nz, ny, nx}");
        std::vector<double> data(dims[0] * dims[1] * dims[2]);
        h5::check_status(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
                         "read " + v.name);
        std::size_t wrong = 0;
        for (std::size_t p = 0; p < data.size(); ++p) {
          if (data[p] != stamp_value(v.index, static_cast<long long>(p))) ++wrong;
        }
        expect(wrong == 0, v.name + ": " + std::to_string(wrong) + " values differ from the stamp");
        expect(read_string_attr(ds.get(), "unit") == v.unit, v.name + ": wrong unit attribute");
      }
      const hid_t root = f.get();
      expect(read_numeric_attr<std::int64_t>(root, "step", H5T_NATIVE_INT64) == std::vector<std::int64_t>{7},
             "step attribute");
      {
        h5::Dataset t(H5Dopen2(root, "/time", H5P_DEFAULT), "open /time");
        double tv = -1.0;
        h5::check_status(H5Dread(t.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &tv), "read /time");
        expect(tv == 0.1, "coordinate /time is " + std::to_string(tv));
      }
      // (Where the ranks' parts interleave in the file, HDF5's collective writes leave a few hundred
      // unused bytes that differ from file to file.)
      const std::string same = read_text((fs::path(again_dir) / "snap_000007.h5").string());
      expect(c.cells[2] < world_size() || (!same.empty() && read_text(second) == same),
             "the second snapshot differs from the same snapshot written by a new writer");
      expect(read_numeric_attr<double>(root, "time", H5T_NATIVE_DOUBLE) == std::vector<double>{0.1}, "time attribute");
      expect(read_numeric_attr<int>(root, "nranks", H5T_NATIVE_INT) == std::vector<int>{world_size()},
             "nranks attribute");
      const Int3 d = decomp.dims();
      expect(read_numeric_attr<int>(root, "decomposition", H5T_NATIVE_INT) == std::vector<int>{d[0], d[1], d[2]},
             "decomposition attribute");
      expect(read_numeric_attr<int>(root, "global_cells", H5T_NATIVE_INT) ==
                 std::vector<int>{c.cells[0], c.cells[1], c.cells[2]},
             "global_cells attribute");
      expect(read_numeric_attr<double>(root, "spacing", H5T_NATIVE_DOUBLE) ==
                 std::vector<double>{c.length[0] / nx, c.length[1] / ny, c.length[2] / nz},
             "spacing attribute");
      expect(read_numeric_attr<double>(root, "origin", H5T_NATIVE_DOUBLE) ==
                 std::vector<double>{c.lo[0], c.lo[1], c.lo[2]},
             "origin attribute");
      expect(read_string_attr(root, "stratus_version") == stratus::kVersion, "stratus_version attribute");
      expect(read_string_attr(root, "git_hash") == stratus::kGitHash, "git_hash attribute");
      expect(read_string_attr(root, "physics") == "advection", "physics attribute");
      expect(read_string_attr(root, "deck") == prov.deck_text, "deck attribute");
      expect(read_string_attr(root, "resolved_deck") == prov.resolved_deck, "resolved_deck attribute");
      expect(read_string_attr(root, "length_unit") == "m" && read_string_attr(root, "time_unit") == "s",
             "unit attributes");
      expect(read_string_attr(root, "layout") == "cell-centred, dataset index order (z, y, x)", "layout attribute");

      // 3D: nodes around cell-centred data. With a direction of one cell (2D, 1D): the cell centres are the
      // nodes, the other directions first (x, y, z order), so ParaView opens the grid as a flat surface.
      std::vector<int> wide;
      for (int d = 0; d < 3; ++d)
        if (c.cells[d] > 1) wide.push_back(c.cells[d]);
      const bool volume = wide.size() == 3;
      while (wide.size() < 3) wide.push_back(1);
      const std::string cells =
          volume ? std::to_string(c.cells[2]) + " " + std::to_string(c.cells[1]) + " " + std::to_string(c.cells[0])
                 : std::to_string(wide[2]) + " " + std::to_string(wide[1]) + " " + std::to_string(wide[0]);
      const std::string nodes = volume ? std::to_string(c.cells[2] + 1) + " " + std::to_string(c.cells[1] + 1) + " " +
                                             std::to_string(c.cells[0] + 1)
                                       : cells;
      expect(count_of(read_text((fs::path(dir) / "snap_000007.xmf").string()),
                      volume ? "Center=\"Cell\"" : "Center=\"Node\"") == vars.size(),
             "frame: attributes centred on cells (3D) or on the nodes at the cell centres (2D, 1D)");
      const std::string frame = read_text((fs::path(dir) / "snap_000007.xmf").string());
      const std::string series = read_text((fs::path(dir) / "snap.xmf").string());
      expect(frame.find("<Xdmf Version=\"2.0\">") != std::string::npos, "frame: no Xdmf 2.0 element");
      expect(frame.find("TopologyType=\"3DCoRectMesh\" Dimensions=\"" + nodes + "\"") != std::string::npos,
             "frame: topology dimensions");
      expect(frame.find("<Time Value=\"0.1\"/>") != std::string::npos, "frame: time value");
      // (2D, 1D: the topology has the same dimensions as the attributes.)
      expect(count_of(frame, "Dimensions=\"" + cells + "\"") == vars.size() + (volume ? 0 : 1),
             "frame: attribute dimensions");
      expect(frame.find("snap_000000.h5") == std::string::npos, "frame: refers to another snapshot");
      expect(series.find("CollectionType=\"Temporal\"") != std::string::npos, "series: not temporal");
      expect(count_of(series, "GridType=\"Uniform\"") == 2, "series: not one grid per frame");
      for (const auto& v : vars) {
        expect(frame.find("snap_000007.h5:/fields/" + v.name + "<") != std::string::npos, "frame: " + v.name);
        for (const char* h5 : {"snap_000000.h5", "snap_000007.h5"}) {
          expect(series.find(std::string(h5) + ":/fields/" + v.name + "<") != std::string::npos,
                 std::string("series: ") + h5 + " " + v.name);
        }
      }
      expect(tmp_files(dir).empty(), "temporary files left: " + joined(tmp_files(dir)));
    } catch (const std::exception& e) {
      bad.push_back(std::string("exception: ") + e.what());
    }
  }
  const std::string report = joined(bad);
  INFO(report);
  REQUIRE(root_passed(bad));
}

}  // namespace io_test

TEST_CASE("snapshots hold the global field whatever the rank count", "[io][mpi]") {
  const bool background = GENERATE(false, true);
  // Held: on CPUs the cells go from the field itself (rows between ghosts) to the file or the writing rank.
  const auto hold = GENERATE(stratus::FieldHold::call, stratus::FieldHold::until_finish);
  CAPTURE(background, static_cast<int>(hold));
  using io_test::Case;
  SECTION("3D") {
    io_test::snapshot_case(Case{"3d", Int3{12, 8, 6}, Real3{-1.0, 0.0, 0.5}, Real3{3.0, 0.7, 1.0}}, background, hold);
  }
  SECTION("3D split in y and z") {
    // Forces blocks that are not whole x-rows, so each rank's hyperslab is strided in the file.
    const int n = io_test::world_size();
    io_test::snapshot_case(Case{"3d_yz", Int3{12, 8, 6}, Real3{0.0, 0.0, 0.0}, Real3{1.2, 0.8, 0.6},
                                Int3{1, n >= 4 ? 2 : 1, n >= 2 ? 2 : 1}},
                           background, hold);
  }
  SECTION("2D") {
    io_test::snapshot_case(Case{"2d", Int3{16, 1, 8}, Real3{0.0, 0.0, 0.0}, Real3{1.0, 1.0, 0.5}}, background, hold);
  }
  // Split along x: each rank's cells reach the file through the rank that writes their z-planes, whose
  // number need not divide evenly (7 planes over 2 or 4 ranks).
  SECTION("2D split in x") {
    const int n = io_test::world_size();
    io_test::snapshot_case(Case{"2d_x", Int3{16, 1, 7}, Real3{0.0, 0.0, 0.0}, Real3{1.0, 1.0, 0.5}, Int3{n, 1, 1}},
                           background, hold);
  }
  SECTION("3D split in x, fewer planes than ranks at 4") {
    // At 4 ranks 3 planes cannot go one a rank: the ranks' interleaved parts go to MPI-IO as they are.
    const int n = io_test::world_size();
    io_test::snapshot_case(Case{"3d_x", Int3{8, 4, 3}, Real3{0.0, 0.0, 0.0}, Real3{1.0, 1.0, 1.0}, Int3{n, 1, 1}},
                           background, hold);
  }
  SECTION("3D split in x and y") {
    // At 4 ranks a row of the file crosses two ranks' cells, and some rows lie wholly in another's.
    const int n = io_test::world_size();
    io_test::snapshot_case(Case{"3d_xy", Int3{10, 6, 5}, Real3{0.0, 0.0, 0.0}, Real3{1.0, 0.6, 0.5},
                                Int3{n >= 2 ? 2 : 1, n >= 4 ? 2 : 1, 1}},
                           background, hold);
  }
  SECTION("planes larger than a write piece (512 KiB)") {
    // 300 x 240 cells a plane: written as pieces of rows; at 2 ranks routed, at 4 (3 planes) interleaved.
    io_test::snapshot_case(Case{"3d_wide", Int3{300, 240, 3}, Real3{0.0, 0.0, 0.0}, Real3{3.0, 2.4, 0.3}}, background,
                           hold);
  }
  SECTION("1D") {
    io_test::snapshot_case(Case{"1d", Int3{24, 1, 1}, Real3{0.0, 0.0, 0.0}, Real3{0.3, 1.0, 1.0}}, background, hold);
  }
}

TEST_CASE("history table prints integers as integers and doubles exactly", "[io][mpi]") {
  const std::string dir = io_test::fresh_dir("history");
  const std::string path = (fs::path(dir) / "sub" / "history.csv").string();
  const std::vector<std::vector<double>> rows = {
      {0, 0.0, 1.0 / 3.0}, {1, 0.1, 2.5e-300}, {12, 0.30000000000000004, -7.25}};
  {
    stratus::HistoryTable table(MPI_COMM_WORLD, path, {"step", "time", "energy"});
    CHECK(table.path() == path);
    for (const auto& r : rows) table.append(r);
    REQUIRE_THROWS_AS(table.append({1.0, 2.0}), stratus::Error);
  }

  std::vector<std::string> bad;
  if (io_test::world_rank() == 0) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    if (line != "step,time,energy") bad.push_back("header is '" + line + "'");
    std::size_t n = 0;
    while (std::getline(in, line)) {
      if (n >= rows.size()) {
        bad.push_back("extra row '" + line + "'");
        break;
      }
      std::vector<std::string> fields;
      std::stringstream ss(line);
      for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
      if (fields.size() != 3) {
        bad.push_back("row '" + line + "' does not have 3 fields");
      } else {
        if (fields[0] != std::to_string(static_cast<long long>(rows[n][0]))) {
          bad.push_back("step printed as '" + fields[0] + "'");
        }
        for (std::size_t c = 0; c < 3; ++c) {
          if (std::strtod(fields[c].c_str(), nullptr) != rows[n][c]) bad.push_back("value '" + fields[c] + "' differs");
        }
      }
      ++n;
    }
    if (n != rows.size()) bad.push_back("found " + std::to_string(n) + " rows");
  }
  const std::string report = io_test::joined(bad);
  INFO(report);
  REQUIRE(io_test::root_passed(bad));
}

TEST_CASE("output failures throw on every rank", "[io][mpi]") {
  // In the background the error of a write is thrown by the next write() or by finish().
  const bool background = GENERATE(false, true);
  CAPTURE(background);
  const std::string dir = io_test::fresh_dir("failures");
  const std::string blocker = (fs::path(dir) / "blocker").string();
  if (io_test::world_rank() == 0) {
    fs::create_directories(dir);
    std::ofstream(blocker) << "a regular file, not a directory\n";
  }
  MPI_Barrier(MPI_COMM_WORLD);

  CartDecomp decomp(MPI_COMM_WORLD, Int3{8, 4, 4}, Int3{0, 0, 0}, {false, false, false});
  const LocalGrid grid = stratus::make_local_grid(decomp, Real3{0, 0, 0}, Real3{1, 1, 1}, 2);
  const Field4D state = grid.allocate("state", 1);
  io_test::stamp(grid, state);
  const std::vector<stratus::GridVariable> vars = {{"u", "m/s", 0}};
  const auto write = [&](stratus::GridSnapshotWriter& writer, long step) {
    writer.set_background(background);
    writer.write(state, vars, step, 0.0);
    writer.finish();
  };

  SECTION("directory under a regular file") {
    const std::string bad_dir = blocker + "/out";
    stratus::GridSnapshotWriter writer(decomp, grid, bad_dir, "snap", stratus::Provenance{});
    REQUIRE_THROWS_WITH(write(writer, 1), Catch::Contains(bad_dir));
  }
  SECTION("history file under a regular file") {
    const std::string bad_path = blocker + "/history.csv";
    REQUIRE_THROWS_WITH(stratus::HistoryTable(MPI_COMM_WORLD, bad_path, {"step"}), Catch::Contains(bad_path));
  }
  SECTION("HDF5 file cannot be created") {
    // A directory squatting on the temporary name makes the collective create fail.
    const std::string out = (fs::path(dir) / "create").string();
    const std::string squat = (fs::path(out) / "snap_000003.h5.tmp").string();
    if (io_test::world_rank() == 0) fs::create_directories(squat);
    MPI_Barrier(MPI_COMM_WORLD);
    stratus::GridSnapshotWriter writer(decomp, grid, out, "snap", stratus::Provenance{});
    REQUIRE_THROWS_WITH(write(writer, 3), Catch::Contains(squat));
  }
  SECTION("snapshot cannot be renamed into place") {
    // A non-empty directory at the final name makes rank 0's rename fail after a complete write.
    const std::string out = (fs::path(dir) / "rename").string();
    const std::string squat = (fs::path(out) / "snap_000004.h5").string();
    if (io_test::world_rank() == 0) {
      fs::create_directories(squat);
      std::ofstream((fs::path(squat) / "keep").string()) << "x\n";
    }
    MPI_Barrier(MPI_COMM_WORLD);
    stratus::GridSnapshotWriter writer(decomp, grid, out, "snap", stratus::Provenance{});
    REQUIRE_THROWS_WITH(write(writer, 4), Catch::Contains(squat));
    std::vector<std::string> bad;
    if (io_test::world_rank() == 0 && !io_test::tmp_files(out).empty()) bad.push_back("temporary file left");
    REQUIRE(io_test::root_passed(bad));
  }
}

TEST_CASE("snapshots keep no disk blocks beyond their end", "[io][mpi]") {
  // The space check allocates the field bytes inside the temporary file; a compressed snapshot comes out
  // far shorter, and must not keep the rest.
  const std::string dir = io_test::fresh_dir("blocks");
  CartDecomp decomp(MPI_COMM_WORLD, Int3{32, 32, 32}, Int3{0, 0, 0}, {true, true, true});
  const LocalGrid grid = stratus::make_local_grid(decomp, Real3{0, 0, 0}, Real3{1, 1, 1}, 2);
  const Field4D state = grid.allocate("state", 2);
  io_test::stamp(grid, state);
  const std::vector<stratus::GridVariable> vars = {{"a", "1", 0}, {"b", "1", 1}};
  stratus::GridSnapshotWriter writer(decomp, grid, dir, "snap", stratus::Provenance{});
  const std::string plain = writer.write(state, vars, 1, 0.0);
  writer.set_compression(6);
  const std::string packed = writer.write(state, vars, 2, 0.1);
  writer.finish();
  std::vector<std::string> bad;
  if (io_test::world_rank() == 0) {
    for (const auto& path : {plain, packed}) {
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0) {
        bad.push_back(path + ": missing");
        continue;
      }
      const double used = 512.0 * static_cast<double>(st.st_blocks), size = static_cast<double>(st.st_size);
      if (used > size + 64.0 * 1024.0)
        bad.push_back(path + ": " + std::to_string(used) + " bytes allocated for " + std::to_string(size));
    }
    if (fs::file_size(packed) >= fs::file_size(plain) / 2) bad.push_back("the compressed snapshot is not smaller");
    if (!io_test::tmp_files(dir).empty()) bad.push_back("temporary file left");
  }
  const std::string report = io_test::joined(bad);
  INFO(report);
  REQUIRE(io_test::root_passed(bad));
}

TEST_CASE("the series file lists each snapshot once, those from before a restart too", "[io][mpi]") {
  // The writer keeps each frame's entry between writes; the file must read as if formatted from scratch.
  const std::string dir = io_test::fresh_dir("series");
  CartDecomp decomp(MPI_COMM_WORLD, Int3{8, 4, 4}, Int3{0, 0, 0}, {true, true, true});
  const LocalGrid grid = stratus::make_local_grid(decomp, Real3{0.5, 0, -1}, Real3{1, 2, 3}, 2);
  const Field4D state = grid.allocate("state", 2);
  io_test::stamp(grid, state);
  const std::vector<stratus::GridVariable> vars = {{"a", "1", 0}, {"b", "1", 1}};
  std::vector<std::string> bad;
  // Rank 0 compares snap.xmf with the series of these (step, time) frames.
  const auto expect_series = [&](const std::vector<std::pair<const char*, double>>& steps) {
    if (io_test::world_rank() != 0) return;
    const stratus::xdmf::Mesh mesh{grid.global_n, grid.lo, grid.dx};
    std::vector<stratus::xdmf::Frame> frames;
    for (const auto& [step, time] : steps) {
      const std::string name = std::string("snap_") + step;
      frames.push_back({name, name + ".h5", time, {"a", "b"}});
    }
    const std::string text = io_test::read_text((fs::path(dir) / "snap.xmf").string());
    if (text != stratus::xdmf::series_document("snap", mesh, frames)) bad.push_back("series differs:\n" + text);
  };
  {
    stratus::GridSnapshotWriter first(decomp, grid, dir, "snap", stratus::Provenance{});
    first.write(state, vars, 0, 0.0);
    first.write(state, vars, 5, 0.5);
    first.write(state, vars, 5, 0.25);  // a rewrite replaces its frame
    first.write(state, vars, 10, 1.0);
    first.finish();
    expect_series({{"000000", 0.0}, {"000005", 0.25}, {"000010", 1.0}});
  }
  stratus::GridSnapshotWriter second(decomp, grid, dir, "snap", stratus::Provenance{});
  second.resume_before(10);  // a restart at step 10 lists the earlier snapshots, read back from their files
  second.write(state, vars, 10, 1.1);
  second.write(state, vars, 15, 1.5);
  second.finish();
  expect_series({{"000000", 0.0}, {"000005", 0.25}, {"000010", 1.1}, {"000015", 1.5}});
  const std::string report = io_test::joined(bad);
  INFO(report);
  REQUIRE(io_test::root_passed(bad));
}

TEST_CASE("the series file of many snapshots is rewritten at a pace, and whole at a flush", "[io]") {
  // Past xdmf::SeriesPacing::kEveryFrameBytes, snap.xmf lags by at most an eighth of the snapshots, each
  // snapshot's own .xmf is always there, and flush_series() lists them all, as if formatted from scratch.
  // (Rank 0 alone: the pacing depends on the file's bytes, not on the ranks.)
  const std::string dir = io_test::fresh_dir("paced");
  if (io_test::world_rank() != 0) return;
  CartDecomp decomp(MPI_COMM_SELF, Int3{4, 1, 4}, Int3{0, 0, 0}, {true, true, true});
  const LocalGrid grid = stratus::make_local_grid(decomp, Real3{0, 0, 0}, Real3{1, 1, 1}, 2);
  const Field4D state = grid.allocate("state", 1);
  const std::vector<stratus::GridVariable> vars = {{"a", "1", 0}};
  stratus::GridSnapshotWriter writer(decomp, grid, dir, "snap", stratus::Provenance{});
  writer.set_background(false);
  const stratus::xdmf::Mesh mesh{grid.global_n, grid.lo, grid.dx};
  std::vector<stratus::xdmf::Frame> frames;
  const int n = 640;
  double worst_lag = 0.0;
  for (int k = 0; k < n; ++k) {
    writer.write(state, vars, k, 0.5 * k);
    char name[32];
    std::snprintf(name, sizeof name, "snap_%06d", k);
    frames.push_back({name, std::string(name) + ".h5", 0.5 * k, {"a"}});
    REQUIRE(fs::exists(fs::path(dir) / (std::string(name) + ".xmf")));
    const std::string text = io_test::read_text((fs::path(dir) / "snap.xmf").string());
    REQUIRE(text.find("</Xdmf>") != std::string::npos);  // always a whole document
    std::size_t listed = 0;
    for (std::size_t at = text.find("<Time "); at != std::string::npos; at = text.find("<Time ", at + 1)) ++listed;
    worst_lag = std::max(worst_lag, 1.0 - static_cast<double>(listed) / (k + 1));
    if (text.size() < stratus::xdmf::SeriesPacing::kEveryFrameBytes) CHECK(listed == static_cast<std::size_t>(k + 1));
  }
  CHECK(worst_lag > 0.0);  // the pacing was reached
  // Unlisted bytes stay under an eighth of the listed ones (under 1/9 of all); entries differ in length by
  // a digit or two at most, so the frames follow the bytes.
  CHECK(worst_lag <= 1.0 / 8.0);
  writer.flush_series();
  CHECK(io_test::read_text((fs::path(dir) / "snap.xmf").string()) ==
        stratus::xdmf::series_document("snap", mesh, frames));
}

TEST_CASE("two writers of one name in one process keep their own snapshot copies", "[io][mpi]") {
  // Rank 0 keeps each writer's last file open in memory through HDF5's core driver, which takes two files
  // of one name for the same file: the copies of two writers of the same directory and prefix (their
  // first files had the same temporary name) must not share one, or a writer's later snapshot would
  // carry the time the other set.
  const std::string dir = io_test::fresh_dir("two_writers");
  CartDecomp decomp(MPI_COMM_WORLD, Int3{8, 1, 8}, Int3{0, 0, 0}, {true, true, false});
  const LocalGrid grid = stratus::make_local_grid(decomp, Real3{0, 0, 0}, Real3{1, 1, 1}, 2);
  const Field4D state = grid.allocate("state", 2);
  io_test::stamp(grid, state);
  const std::vector<stratus::GridVariable> vars = {{"a", "1", 0}, {"b", "1", 1}};
  stratus::GridSnapshotWriter one(decomp, grid, dir, "snap", stratus::Provenance{});
  stratus::GridSnapshotWriter two(decomp, grid, dir, "snap", stratus::Provenance{});
  for (auto* w : {&one, &two}) w->set_background(false);
  one.write(state, vars, 0, 0.0);
  two.write(state, vars, 0, 0.0);
  one.write(state, vars, 2, 0.2);
  two.write(state, vars, 4, 0.4);
  one.write(state, vars, 6, 0.6);
  std::vector<std::string> bad;
  if (io_test::world_rank() == 0) {
    for (const auto& [step, time] : {std::pair<const char*, double>{"000002", 0.2}, {"000004", 0.4}, {"000006", 0.6}}) {
      const std::string path = (fs::path(dir) / (std::string("snap_") + step + ".h5")).string();
      try {
        stratus::h5::File f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open " + path);
        const auto t = io_test::read_numeric_attr<double>(f.get(), "time", H5T_NATIVE_DOUBLE);
        if (t != std::vector<double>{time}) bad.push_back(path + ": time " + std::to_string(t.empty() ? -1 : t[0]));
      } catch (const std::exception& e) {
        bad.push_back(e.what());
      }
    }
  }
  const std::string report = io_test::joined(bad);
  INFO(report);
  REQUIRE(io_test::root_passed(bad));
}
