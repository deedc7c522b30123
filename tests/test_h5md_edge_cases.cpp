// Tests of io/h5md at its edges: bad frames (an id out of range or zero, a wrong total, a repeated id,
// arrays of the wrong length) throw on every rank and leave the writer usable; ranks with no atoms take
// part in every collective write, and image flags count the box lengths the writer wraps off; a path
// that cannot be created and a spec of no atoms throw on every rank. Built into test_h5md.
#include <catch2/catch.hpp>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "h5md_test.hpp"
#include "io/h5md.hpp"
#include "io/hdf5_util.hpp"

using namespace h5md_test;

TEST_CASE("bad H5MD frames throw on every rank and leave the writer usable", "[io][mpi][h5md]") {
  const std::string dir = fresh_dir("errors");
  const std::string path = (fs::path(dir) / "bad.h5md").string();
  stratus::H5mdWriter writer(MPI_COMM_WORLD, path, make_spec(true));
  const bool last = world_rank() == world_size() - 1;
  Atoms a = local_atoms(0);

  SECTION("an id out of range on one rank") {
    if (last) a.id[0] = kAtoms + 5;
    REQUIRE_THROWS_WITH(writer.write_frame(0, 0.0, a.id, a.x, a.v, a.f, a.type),
                        Catch::Contains("1 id(s) outside 1..1000") && Catch::Contains("1005"));
  }
  SECTION("an id of zero") {
    if (world_rank() == 0) a.id[0] = 0;
    REQUIRE_THROWS_WITH(writer.write_frame(0, 0.0, a.id, a.x, a.v, a.f, a.type), Catch::Contains("e.g. 0"));
  }
  SECTION("a wrong total") {
    if (last) {
      a.id.pop_back();
      a.x.resize(3 * a.id.size());
      a.v.resize(3 * a.id.size());
      a.f.resize(3 * a.id.size());
      a.type.pop_back();
    }
    REQUIRE_THROWS_WITH(writer.write_frame(0, 0.0, a.id, a.x, a.v, a.f, a.type),
                        Catch::Contains("999 atoms in all, not 1000"));
  }
  SECTION("an id given twice") {
    if (last) a.id[1] = a.id[0];
    REQUIRE_THROWS_WITH(writer.write_frame(0, 0.0, a.id, a.x, a.v, a.f, a.type), Catch::Contains("more than once"));
  }
  SECTION("arrays of the wrong length") {
    if (last) a.v.pop_back();
    REQUIRE_THROWS_WITH(writer.write_frame(0, 0.0, a.id, a.x, a.v, a.f, a.type),
                        Catch::Contains("lengths do not match"));
  }
  CHECK(writer.frames() == 0);
  const Atoms good = local_atoms(0);
  writer.write_frame(step_of(0), time_of(0), good.id, good.x, good.v, good.f, good.type);
  CHECK(writer.frames() == 1);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) fs::remove_all(dir);
}

TEST_CASE("H5MD with fewer atoms than ranks", "[io][mpi][h5md]") {
  // Ranks with no rows still take part in every collective write, with nothing selected. The image flags
  // of an atom the writer wraps into the box count the box lengths it took off.
  const std::string dir = fresh_dir("tiny");
  const std::string path = (fs::path(dir) / "tiny.h5md").string();
  stratus::H5mdSpec spec = make_spec(true);
  spec.natoms = 2;
  spec.forces = false;
  spec.images = true;
  Atoms a;
  std::vector<int> image;
  if (world_rank() == world_size() - 1) {
    a.id = {2, 1};
    a.x = {1.0, 2.0, 3.0, -5.0, -3.0, 0.75};  // atom 1 lies outside the periodic x and y ranges
    a.v = {0.5, 0.5, 0.5, -0.5, -0.5, -0.5};
    a.type = {7, 8};
    image = {3, 0, -4, 2, -1, 0};
  }
  std::vector<std::string> bad;
  {
    stratus::H5mdWriter writer(MPI_COMM_WORLD, path, spec);
    for (int k = 0; k < 2; ++k) writer.write_frame(k, 0.5 * k, a.id, a.x, a.v, {}, a.type, {}, image);
    if (world_rank() == 0) {
      try {
        h5::File f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open " + path);
        std::vector<hsize_t> dims;
        const auto x = read_dataset<double>(f.get(), "/particles/all/position/value", H5T_NATIVE_DOUBLE, dims);
        const std::vector<double> row = {11.0, 5.0, 0.75, 1.0, 2.0, 3.0};  // -5 + 16, -3 + 8
        if (dims != std::vector<hsize_t>{2, 2, 3}) bad.push_back("position dims");
        if (x != std::vector<double>{row[0], row[1], row[2], row[3], row[4], row[5], row[0], row[1], row[2], row[3],
                                     row[4], row[5]}) {
          bad.push_back("positions");
        }
        if (read_dataset<int>(f.get(), "/particles/all/species", H5T_NATIVE_INT, dims) != std::vector<int>{8, 7}) {
          bad.push_back("species");
        }
        if (H5Lexists(f.get(), "/particles/all/force", H5P_DEFAULT) != 0) bad.push_back("force group written");
        const auto im = read_dataset<int>(f.get(), "/particles/all/image/value", H5T_NATIVE_INT, dims);
        const std::vector<int> im_row = {1, -2, 0, 3, 0, -4};  // atom 1: x -5 -> 11 (one box), y -3 -> 5
        if (dims != std::vector<hsize_t>{2, 2, 3}) bad.push_back("image dims");
        if (im != std::vector<int>{im_row[0], im_row[1], im_row[2], im_row[3], im_row[4], im_row[5], im_row[0],
                                   im_row[1], im_row[2], im_row[3], im_row[4], im_row[5]}) {
          bad.push_back("image flags");
        }
      } catch (const std::exception& e) {
        bad.push_back(std::string("exception: ") + e.what());
      }
    }
  }
  const std::string report = joined(bad);
  INFO(report);
  REQUIRE(root_passed(bad));
  if (world_rank() == 0) fs::remove_all(dir);
}

TEST_CASE("H5MD output to an impossible path throws on every rank", "[io][mpi][h5md]") {
  const std::string dir = fresh_dir("blocked");
  if (world_rank() == 0) {
    fs::create_directories(dir);
    std::ofstream((fs::path(dir) / "blocker").string()) << "a regular file, not a directory\n";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string path = (fs::path(dir) / "blocker" / "traj.h5md").string();
  REQUIRE_THROWS_WITH(stratus::H5mdWriter(MPI_COMM_WORLD, path, make_spec(true)), Catch::Contains("blocker"));
  stratus::H5mdSpec empty = make_spec(true);
  empty.natoms = 0;
  REQUIRE_THROWS_AS(stratus::H5mdWriter(MPI_COMM_WORLD, (fs::path(dir) / "x.h5md").string(), empty), stratus::Error);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) fs::remove_all(dir);
}
