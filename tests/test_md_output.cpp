// The MD engine's files, at 1, 2 and 4 ranks: LAMMPS data files written by the engine read back
// identically and are the serial writer's bytes; H5MD trajectory frames hold every atom by id; frames
// written by the background thread are those written in the step loop, and its errors reach the caller.
#include <hdf5.h>
#include <mpi.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "md/md_simulation.hpp"
#include "md_test_support.hpp"
#include "mpi_world.hpp"

using namespace stratus;
using namespace stratus::md;
using namespace stratus::test;

namespace {

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Every value of a dataset as doubles (integers converted exactly), and its dimensions.
std::vector<double> read_all(hid_t file, const std::string& name, std::vector<hsize_t>& dims) {
  const hid_t ds = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  REQUIRE(ds >= 0);
  const hid_t space = H5Dget_space(ds);
  dims.assign(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)), 0);
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  std::vector<double> buf(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  REQUIRE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) >= 0);
  H5Sclose(space);
  H5Dclose(ds);
  return buf;
}

/// The small liquid (lj_liquid.data), initialised, its trajectory frames written in the background.
struct BackgroundRun {
  MDParams p = md_params("data_file = " + kMdData + "lj_liquid.data\n");
  MDSimulation sim{p, MPI_COMM_WORLD};
  Clock clock;
  BackgroundRun() {
    sim.initialize();
    sim.set_background_output(true);
  }
};

/// A run's path with a plain file where its output directory should be (so a first trajectory frame
/// cannot create its files), made by rank 0 before any rank goes on.
std::string blocked_dir(const std::string& name) {
  const std::string dir = run_name(name);
  if (world_rank() == 0) std::ofstream(dir) << "not a directory\n";
  MPI_Barrier(MPI_COMM_WORLD);
  return dir;
}

}  // namespace

TEST_CASE("Data files written by the engine read back identically", "[md]") {
  const MDParams p = md_params("data_file = " + kMdData + "lj_liquid.data\n");
  MDSimulation sim(p, MPI_COMM_WORLD);
  sim.initialize();
  Clock clock;
  for (int s = 0; s < 30; ++s) md_step(sim, clock, p.dt);
  const AtomData a = sim.gather();
  const std::string path = run_name("test_md_roundtrip") + ".data";
  if (world_rank() == 0) {
    write_lammps_data(path, a);
    const AtomData b = read_lammps_data(path);
    REQUIRE(b.natoms() == 864);
    for (std::size_t i = 0; i < a.natoms(); ++i) {
      CHECK(b.id[i] == a.id[i]);
      CHECK(b.x[i] == a.x[i]);
      CHECK(b.v[i] == a.v[i]);
      CHECK(b.image[i] == a.image[i]);
    }
    std::remove(path.c_str());
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("The engine's data file, each rank writing its block of ids, is the serial writer's bytes", "[md][io]") {
  // Atomic and charged atoms, after steps that move atoms between ranks and out of id order: the file must
  // be write_lammps_data's of the gathered atoms (sorted by id), byte for byte, at any rank count.
  const std::string charged =
      "units = lj\ntimestep = 0.002\npair_style = lj/cut/coul/long\ncutoff = 2.5\n"
      "coul_cutoff = 3.5\nskin = 0.3\nkspace = ewald\nkspace_accuracy = 1e-4\n"
      "data_file = " +
      kMdData + "ionic_lj.data\n";
  const std::string dir = run_name("test_md_data");
  if (world_rank() == 0) std::filesystem::create_directories(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  for (const std::string& deck : {"data_file = " + kMdData + "lj_liquid.data\n", charged}) {
    const MDParams p = md_params(deck);
    MDSimulation sim(p, MPI_COMM_WORLD);
    sim.initialize();
    Clock clock;
    for (int s = 0; s < 40; ++s) md_step(sim, clock, p.dt);
    const std::string par = dir + "/parallel.data", ser = dir + "/serial.data";
    sim.write_data_to(par);
    const AtomData a = sim.gather();
    if (world_rank() == 0) {
      INFO(deck);
      write_lammps_data(ser, a);
      const std::string got = file_bytes(par), want = file_bytes(ser);
      CHECK(want.size() > 100 * a.natoms());
      CHECK(got == want);
      CHECK(read_lammps_data(par).has_charges == (deck == charged));
      CHECK(!std::filesystem::exists(par + ".tmp." + std::to_string(static_cast<long>(::getpid()))));
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  // A path that cannot be created fails on every rank, naming it.
  MDSimulation sim(md_params("data_file = " + kMdData + "lj_liquid.data\n"), MPI_COMM_WORLD);
  sim.initialize();
  CHECK_THROWS_WITH(sim.write_data_to(dir + "/no_such_dir/x.data"), Catch::Contains(dir + "/no_such_dir/x.data"));
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::filesystem::remove_all(dir);
}

TEST_CASE("Trajectory frames hold every atom's position and velocity by id", "[md][io]") {
  const MDParams p = md_params(mixture_deck());
  MDSimulation sim(p, MPI_COMM_WORLD);
  sim.initialize();
  Clock clock;
  const std::string dir = run_name("test_md_traj");
  CHECK(sim.write_snapshot(clock, dir, "t") > 0.0);
  for (int s = 0; s < 20; ++s) md_step(sim, clock, p.dt);
  CHECK(sim.write_snapshot(clock, dir, "t") > 0.0);
  const AtomData a = sim.gather();  // rank 0: sorted by id, wrapped positions
  if (world_rank() == 0) {
    const hid_t file = H5Fopen((dir + "/t.h5md").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(file >= 0);
    for (const char* what : {"position", "velocity"}) {
      const hid_t ds = H5Dopen2(file, (std::string("/particles/all/") + what + "/value").c_str(), H5P_DEFAULT);
      REQUIRE(ds >= 0);
      const hid_t space = H5Dget_space(ds);
      hsize_t dims[3] = {0, 0, 0};
      REQUIRE(H5Sget_simple_extent_ndims(space) == 3);
      H5Sget_simple_extent_dims(space, dims, nullptr);
      CHECK(dims[0] == 2);
      CHECK(dims[1] == 864);
      std::vector<double> buf(dims[0] * dims[1] * dims[2]);
      REQUIRE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) >= 0);
      const bool pos = std::string(what) == "position";
      int mismatched = 0;
      for (std::size_t i = 0; i < a.natoms(); ++i)  // frame 1 = the state now, row id - 1
        for (int d = 0; d < 3; ++d) {
          const std::size_t dd = static_cast<std::size_t>(d);
          double want = pos ? a.x[i][dd] : a.v[i][dd];
          if (pos && (want < a.lo[dd] || want >= a.hi[dd])) {  // between rebuilds an atom may sit just outside:
            const double len = a.hi[dd] - a.lo[dd];            // the file holds it wrapped into the box
            want -= len * std::floor((want - a.lo[dd]) / len);
          }
          const std::size_t row = static_cast<std::size_t>(a.id[i] - 1);
          if (buf[(dims[1] + row) * 3 + static_cast<std::size_t>(d)] != want) ++mismatched;
        }
      CHECK(mismatched == 0);
      H5Sclose(space);
      H5Dclose(ds);
    }
    H5Fclose(file);
    std::filesystem::remove_all(dir);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("Trajectory frames written in the background are those written in the step loop", "[md][io]") {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  REQUIRE(level == MPI_THREAD_MULTIPLE);  // the runtime asks for it, and MPICH gives it
  // Charged atoms (charges go with the first frame) with velocities and forces in every frame; and atoms
  // with positions alone (the data file, made from the first frame's rows, still holds velocities). A
  // frame at every step: each frame's rows are copied while the frame before may still be on its way out.
  const std::string charged =
      "units = lj\ntimestep = 0.002\npair_style = lj/cut/coul/long\ncutoff = 2.5\ncoul_cutoff = 3.5\nskin = 0.3\n"
      "kspace = ewald\nkspace_accuracy = 1e-4\ntrajectory_forces = true\ndata_file = " +
      kMdData + "ionic_lj.data\n";
  const std::string plain = "trajectory_velocities = false\ndata_file = " + kMdData + "lj_liquid.data\n";
  const std::string dir = run_name("test_md_background");
  for (const std::string& deck : {charged, plain}) {
    INFO(deck);
    const MDParams p = md_params(deck);
    std::vector<double> bytes[2];
    for (int background = 0; background < 2; ++background) {
      MDSimulation sim(p, MPI_COMM_WORLD);
      sim.initialize();
      sim.set_background_output(background == 1);
      // The rows of every frame that may be in flight are sized before the first frame (ids, types, image
      // flags, positions, charges, velocities; forces where the frames hold them), on every rank: the
      // frames then copy into them without allocating or first touching memory.
      sim.finish_output();
      const double held = sim.frame_rows_bytes(), per_atom = 80.0 + (p.trajectory_forces ? 24.0 : 0.0);
      double all = 0.0;
      MPI_Allreduce(&held, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      CHECK(all >= (background == 1 ? 3 : 1) * sim.work_per_step() * per_atom);
      Clock clock;
      const std::string out = dir + (background ? "/background" : "/loop");
      for (int s = 0; s < 12; ++s) {
        bytes[background].push_back(sim.write_snapshot(clock, out, "t"));
        md_step(sim, clock, p.dt);
      }
      sim.finish_output();
      CHECK(sim.frame_rows_bytes() == held);  // no frame grew them
      CHECK((sim.background_output_seconds() > 0.0) == (background == 1));
    }
    CHECK(bytes[0] == bytes[1]);
    CHECK(bytes[0][0] > bytes[0][1]);  // the first frame also holds species and ids
    if (world_rank() == 0) {
      const std::string loop = dir + "/loop/t", bg = dir + "/background/t";
      CHECK(file_bytes(bg + ".data") == file_bytes(loop + ".data"));
      CHECK(file_bytes(bg + ".data").find("\nVelocities\n") != std::string::npos);
      CHECK(file_bytes(bg + ".xmf") == file_bytes(loop + ".xmf"));
      const hid_t a = H5Fopen((loop + ".h5md").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
      const hid_t b = H5Fopen((bg + ".h5md").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
      REQUIRE(a >= 0);
      REQUIRE(b >= 0);
      int compared = 0;
      for (const char* name : {"position/value", "velocity/value", "force/value", "image/value", "position/step",
                               "position/time", "box/edges/value", "species", "id", "charge"}) {
        INFO(name);
        const std::string path = std::string("/particles/all/") + name;
        const std::string group = path.substr(0, path.rfind('/'));
        const bool here = H5Lexists(a, group.c_str(), H5P_DEFAULT) > 0 && H5Lexists(a, path.c_str(), H5P_DEFAULT) > 0;
        CHECK(here == (H5Lexists(b, group.c_str(), H5P_DEFAULT) > 0 && H5Lexists(b, path.c_str(), H5P_DEFAULT) > 0));
        if (!here) continue;
        std::vector<hsize_t> da, db;
        const std::vector<double> va = read_all(a, path, da);
        const std::vector<double> vb = read_all(b, path, db);
        CHECK(da == db);
        CHECK(va == vb);
        if (std::string(name) == "position/value") CHECK(da[0] == 12);
        ++compared;
      }
      CHECK(compared == (deck == charged ? 10 : 7));
      H5Fclose(a);
      H5Fclose(b);
      std::filesystem::remove_all(dir);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

TEST_CASE("A trajectory frame that fails in the background fails the next call, on every rank", "[md][io]") {
  const std::string dir = run_name("test_md_background_error");
  BackgroundRun run;
  run.sim.write_snapshot(run.clock, dir, "t");
  run.sim.finish_output();
  // The trajectory's file replaced by a directory: the next frame cannot open it.
  if (world_rank() == 0) {
    std::filesystem::remove(dir + "/t.h5md");
    std::filesystem::create_directory(dir + "/t.h5md");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  md_step(run.sim, run.clock, run.p.dt);
  CHECK_NOTHROW(run.sim.write_snapshot(run.clock, dir, "t"));  // handed over
  CHECK_THROWS_WITH(run.sim.finish_output(), Catch::Contains("t.h5md"));
  CHECK_NOTHROW(run.sim.finish_output());  // reported once
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::filesystem::remove_all(dir);
}

TEST_CASE("A first trajectory frame that fails in the background is made again, and no frame runs after it",
          "[md][io]") {
  const std::string dir = blocked_dir("test_md_background_first");
  BackgroundRun run;
  // Three frames handed over (the two after the first queued behind it or dropped after it), then the
  // wait: the error comes back once, at the same call on every rank, whenever the first failed.
  int failed_at = -1, errors = 0;
  for (int call = 0; call < 4; ++call) {
    try {
      if (call < 3)
        run.sim.write_snapshot(run.clock, dir, "t");
      else
        run.sim.finish_output();
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::Contains(dir));
      failed_at = call;
      ++errors;
    }
    if (call < 2) md_step(run.sim, run.clock, run.p.dt);
  }
  CHECK(errors == 1);
  int range[2] = {failed_at, -failed_at};
  MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(range[0] == -range[1]);
  // The directory made good: the next frame is a first frame again, with the trajectory and its data
  // file, and no frame from before it.
  if (world_rank() == 0) std::filesystem::remove(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  run.sim.write_snapshot(run.clock, dir, "t");
  md_step(run.sim, run.clock, run.p.dt);
  run.sim.write_snapshot(run.clock, dir, "t");
  run.sim.finish_output();
  if (world_rank() == 0) {
    CHECK(file_bytes(dir + "/t.data").find("\nVelocities\n") != std::string::npos);
    const hid_t f = H5Fopen((dir + "/t.h5md").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(f >= 0);
    std::vector<hsize_t> dims;
    const std::vector<double> steps = read_all(f, "/particles/all/position/step", dims);
    CHECK(steps == std::vector<double>{2.0, 3.0});
    H5Fclose(f);
    std::filesystem::remove_all(dir);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("drop_output() waits for the frames in flight and drops their error", "[md][io]") {
  const std::string dir = blocked_dir("test_md_drop_output");
  {
    BackgroundRun run;
    run.sim.write_snapshot(run.clock, dir, "t");       // fails in the background
    run.sim.drop_output();                             // on the way out of a failed run: no throw
    CHECK(run.sim.background_output_seconds() > 0.0);  // the frame has ended
    CHECK_NOTHROW(run.sim.finish_output());            // and its error is gone
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) std::filesystem::remove(dir);
}
