// Tests of io/grid_output: snapshots written by 1, 2 or 4 ranks are read back by rank 0 with the serial
// HDF5 driver and must hold exactly the stamped global field (so the file does not depend on the rank
// count), with its attributes and XDMF sidecars and no temporary file left behind; the history table
// must print integers as integers and round-trip doubles; bad paths must throw on every rank, not hang.
// Rank 0 collects its findings into a list, broadcasts whether it is empty, and every rank asserts on
// that, so a failed check cannot leave ranks waiting in a collective. These tests do not cover timing.
// Disk blocks, the series file over many snapshots and across a restart, and two writers of one name:
// test_grid_output_files.cpp.
#include <catch2/catch.hpp>
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
#include "grid_output_test.hpp"
#include "io/grid_output.hpp"
#include "io/hdf5_util.hpp"
#include "stratus/version.hpp"

namespace fs = std::filesystem;
using stratus::CartDecomp;
using stratus::Field4D;
using stratus::Int3;
using stratus::LocalGrid;
using stratus::Real3;

namespace io_test {

double stamp_value(int var, long long linear) { return var * 1e6 + static_cast<double>(linear); }

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size())) ++n;
  return n;
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
