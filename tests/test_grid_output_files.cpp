// Tests of io/grid_output over many snapshots: a snapshot keeps no disk blocks past its end (compressed or
// not), the XDMF series file lists each snapshot once, those from before a restart too, and past its size
// threshold is rewritten at a pace and whole at a flush, and two writers of one name in one process keep
// their own snapshot copies. Rank 0 checks the files; every rank asserts on its findings (root_passed).
// Built into test_grid_output.
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "domain/cart_decomp.hpp"
#include "domain/local_grid.hpp"
#include "grid_output_test.hpp"
#include "io/grid_output.hpp"
#include "io/hdf5_util.hpp"
#include "io/xdmf.hpp"

namespace fs = std::filesystem;
using stratus::CartDecomp;
using stratus::Field4D;
using stratus::Int3;
using stratus::LocalGrid;
using stratus::Real3;

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
