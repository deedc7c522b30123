// Tests of the durability policy of output files (docs/output.md, "Durability"): grid snapshots, their
// XDMF sidecars and trajectory sidecars are replaced by rename alone (no fsync on any rank), while
// checkpoints and files written with Durability::synced are fsynced before their rename. fsync is counted
// by a definition in this executable that forwards to the C library's, so the counts cover every call
// Stratus makes. Each case also checks that only complete files are left under their final names. These
// tests count calls; they do not time anything.
#include <dlfcn.h>
#include <fcntl.h>
#include <hdf5.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "domain/cart_decomp.hpp"
#include "domain/local_grid.hpp"
#include "io/atomic_file.hpp"
#include "io/checkpoint.hpp"
#include "io/grid_output.hpp"
#include "io/hdf5_util.hpp"
#include "io/posix_io.hpp"
#include "io/space.hpp"
#include "io/xdmf.hpp"
#include "mpi_world.hpp"
#include "temp_dir.hpp"

namespace {

std::atomic<long> fsync_calls{0};
std::atomic<bool> fail_pwrite{false};  // pwrite() fails with ENOSPC while set
std::atomic<std::size_t> write_cap{0};  // where not 0, pwrite() and pwritev() write at most this many bytes

}  // namespace

extern "C" ssize_t pwrite(int fd, const void* buf, size_t n, off_t at) {
  using Fn = ssize_t (*)(int, const void*, size_t, off_t);
  static const Fn real = reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, "pwrite"));
  if (fail_pwrite || !real) {
    errno = ENOSPC;
    return -1;
  }
  const std::size_t cap = write_cap;
  return real(fd, buf, cap > 0 && n > cap ? cap : n, at);
}

extern "C" ssize_t pwritev(int fd, const struct iovec* iov, int count, off_t at) {
  using Fn = ssize_t (*)(int, const struct iovec*, int, off_t);
  static const Fn real = reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, "pwritev"));
  if (!real) {
    errno = ENOSYS;
    return -1;
  }
  const std::size_t cap = write_cap;
  if (cap == 0) return real(fd, iov, count, at);
  std::vector<struct iovec> part;  // the first cap bytes of iov
  for (std::size_t left = cap; count > 0 && left > 0; ++iov, --count) {
    part.push_back({iov->iov_base, std::min(left, iov->iov_len)});
    left -= part.back().iov_len;
  }
  return real(fd, part.data(), static_cast<int>(part.size()), at);
}

extern "C" int fsync(int fd) {
  using Fn = int (*)(int);
  static const Fn real = reinterpret_cast<Fn>(::dlsym(RTLD_NEXT, "fsync"));
  ++fsync_calls;
  return real ? real(fd) : 0;
}

namespace durability_test {

namespace fs = std::filesystem;
using stratus::test::world_rank;

/// fsync calls made by f() on all ranks together.
template <class F>
long fsyncs_of(F&& f) {
  const long before = fsync_calls.load();
  f();
  long mine = fsync_calls.load() - before, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

/// Names in dir that are not final files: temporaries and space reservations.
std::vector<std::string> leftovers(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string f = e.path().filename().string();
    if (f.find(".tmp") != std::string::npos || f.find(".reserve") != std::string::npos) found.push_back(f);
  }
  return found;
}

/// A directory shared by all ranks: rank 0 creates it, the others learn its name.
std::string shared_dir(const test::TempDir& mine) {
  std::string path = mine.path.string();
  int len = static_cast<int>(path.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  path.resize(static_cast<std::size_t>(len));
  MPI_Bcast(path.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  return path;
}

/// A grid snapshot writer of one variable ("snap", into dir, which every rank names) and the state it writes.
struct SnapshotSetup {
  stratus::CartDecomp decomp{MPI_COMM_WORLD, stratus::Int3{8, 6, 4}, stratus::Int3{0, 0, 0}, {true, true, true}};
  stratus::LocalGrid grid = stratus::make_local_grid(decomp, {0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, 2);
  stratus::Field4D state = grid.allocate("state", 1);
  std::vector<stratus::GridVariable> vars = {{"q", "1", 0}};
  stratus::GridSnapshotWriter writer;
  explicit SnapshotSetup(const std::string& dir) : writer(decomp, grid, dir, "snap", provenance()) {
    Kokkos::deep_copy(state, 2.5);
  }
  static stratus::Provenance provenance() {
    stratus::Provenance p;
    p.physics = "advection";
    return p;
  }
};

TEST_CASE("the fsync counter sees the calls it is meant to count", "[io][durability]") {
  test::TempDir tmp("stratus_durability");
  const std::string a = (tmp.path / "a.txt").string(), b = (tmp.path / "b.txt").string();
  const long before = fsync_calls.load();
  stratus::write_files_atomically({{a, "a\n"}, {b, "b\n"}});  // synced by default
  CHECK(fsync_calls.load() - before >= 3);                    // both files and their directory
  CHECK(read_text(a) == "a\n");
  CHECK(read_text(b) == "b\n");
  CHECK(leftovers(tmp.path).empty());
}

TEST_CASE("files replaced with Durability::renamed are complete, left alone on failure and not synced",
          "[io][durability]") {
  test::TempDir tmp("stratus_durability");
  const std::string a = (tmp.path / "a.txt").string(), b = (tmp.path / "b.txt").string();
  const std::string big(1 << 20, 'x');
  const long before = fsync_calls.load();
  stratus::write_files_atomically({{a, "a1\n"}, {b, big}}, stratus::Durability::renamed);
  stratus::write_file_atomically(a, "a2\n", stratus::Durability::renamed);
  stratus::xdmf::write_text_atomically(b, "b2\n");
  CHECK(fsync_calls.load() == before);
  CHECK(read_text(a) == "a2\n");
  CHECK(read_text(b) == "b2\n");
  // A file that cannot be written replaces none, as with syncs.
  const std::string missing = (tmp.path / "no_such_dir" / "c.txt").string();
  CHECK_THROWS_AS(stratus::write_files_atomically({{a, "a3\n"}, {missing, "c\n"}}, stratus::Durability::renamed),
                  stratus::Error);
  CHECK(read_text(a) == "a2\n");
  // A directory in the way is an error, as with a rename, and stays.
  const fs::path onto_dir = tmp.path / "dir.xmf";
  fs::create_directory(onto_dir);
  CHECK_THROWS_AS(stratus::write_file_atomically(onto_dir.string(), "d\n", stratus::Durability::renamed),
                  stratus::Error);
  CHECK(fs::is_directory(onto_dir));
  CHECK(leftovers(tmp.path).empty());
}

TEST_CASE("staged files appear only on commit, in order, and leave no temporaries either way", "[io][durability]") {
  test::TempDir tmp("stratus_durability");
  const std::string a = (tmp.path / "a.txt").string(), b = (tmp.path / "b.txt").string();
  stratus::write_file_atomically(a, "a0\n", stratus::Durability::renamed);
  {
    stratus::StagedFiles staged({{a, "a1\n"}, {b, "b1\n"}}, stratus::Durability::renamed);
    CHECK(read_text(a) == "a0\n");  // not yet
    CHECK_FALSE(fs::exists(b));
    CHECK(leftovers(tmp.path).size() == 2);
    stratus::StagedFiles moved(std::move(staged));  // the temporaries go with the move
    staged = stratus::StagedFiles();
    CHECK(leftovers(tmp.path).size() == 2);
    moved.commit();
    CHECK(read_text(a) == "a1\n");
    CHECK(read_text(b) == "b1\n");
  }
  CHECK(leftovers(tmp.path).empty());
  // Never committed: nothing replaced, nothing left.
  { stratus::StagedFiles dropped({{a, "a2\n"}, {b, "b2\n"}}, stratus::Durability::renamed); }
  CHECK(read_text(a) == "a1\n");
  CHECK(read_text(b) == "b1\n");
  CHECK(leftovers(tmp.path).empty());
  // A rename that fails (a directory in the way) keeps the files renamed before it and removes the rest.
  const fs::path in_the_way = tmp.path / "dir.xmf";
  fs::create_directory(in_the_way);
  stratus::StagedFiles failing({{a, "a3\n"}, {in_the_way.string(), "d\n"}, {b, "b3\n"}}, stratus::Durability::renamed);
  CHECK_THROWS_AS(failing.commit(), stratus::Error);
  CHECK(read_text(a) == "a3\n");
  CHECK(read_text(b) == "b1\n");
  CHECK(fs::is_directory(in_the_way));
  CHECK(leftovers(tmp.path).empty());
  // One that cannot be written stages nothing.
  const std::string missing = (tmp.path / "no_such_dir" / "c.txt").string();
  CHECK_THROWS_AS(stratus::StagedFiles({{b, "b4\n"}, {missing, "c\n"}}, stratus::Durability::renamed), stratus::Error);
  CHECK(read_text(b) == "b1\n");
  CHECK(leftovers(tmp.path).empty());
}

TEST_CASE("a snapshot whose XDMF sidecar cannot be written does not appear either", "[io][durability]") {
  test::TempDir tmp("stratus_durability");
  const std::string dir = shared_dir(tmp) + "/snapshots";
  SnapshotSetup s(dir);
  s.writer.set_background(false);
  // Rank 0 writes the sidecars: a directory where its temporary for a step's frame file would go.
  long pid = static_cast<long>(::getpid());
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const auto name = [](long step, const char* ext) {
    char tag[16];
    std::snprintf(tag, sizeof tag, "%06ld", step);
    return std::string("snap_") + tag + ext;
  };
  const auto refused = [&](long step) {
    const fs::path blocker = fs::path(dir) / (name(step, ".xmf.tmp.") + std::to_string(pid));
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank() == 0) fs::create_directories(blocker);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_THROWS_AS(s.writer.write(s.state, s.vars, step, 0.1 * step), stratus::Error);  // on every rank
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank() == 0) {
      CHECK_FALSE(fs::exists(fs::path(dir) / name(step, ".h5")));
      CHECK_FALSE(fs::exists(fs::path(dir) / name(step, ".xmf")));
      fs::remove(blocker);
      CHECK(leftovers(dir).empty());
    }
    MPI_Barrier(MPI_COMM_WORLD);
  };
  refused(1);  // the first snapshot, written in full
  s.writer.write(s.state, s.vars, 2, 0.2);
  refused(3);  // written from the image of the one before
  s.writer.set_compression(1);
  refused(4);  // compressed, written collectively
  s.writer.set_compression(0);
  s.writer.write(s.state, s.vars, 5, 0.5);  // the writer goes on
  s.writer.flush_series();
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    const std::string series = read_text(fs::path(dir) / "snap.xmf");
    for (long step : {2L, 5L}) {
      CHECK(series.find(name(step, ".h5")) != std::string::npos);
      CHECK(fs::is_regular_file(fs::path(dir) / name(step, ".xmf")));
    }
    for (long step : {1L, 3L, 4L}) CHECK(series.find(name(step, ".h5")) == std::string::npos);
    CHECK(leftovers(dir).empty());
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("grid snapshots and their XDMF files are renamed into place without fsync", "[io][durability]") {
  test::TempDir tmp("stratus_durability");
  const std::string dir = shared_dir(tmp) + "/snapshots";
  SnapshotSetup s(dir);
  for (int compression : {0, 1}) {
    s.writer.set_compression(compression);
    const long calls = fsyncs_of([&] {
      s.writer.write(s.state, s.vars, 2 * compression, 0.0);
      s.writer.write(s.state, s.vars, 2 * compression + 1, 0.1);
      s.writer.finish();  // the background thread's fsyncs count too
    });
    CHECK(calls == 0);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    for (const char* f : {"snap_000000.h5", "snap_000003.h5", "snap_000000.xmf", "snap_000003.xmf", "snap.xmf"})
      CHECK(fs::is_regular_file(fs::path(dir) / f));
    CHECK(read_text(fs::path(dir) / "snap.xmf").find("snap_000003.h5") != std::string::npos);
    CHECK(leftovers(dir).empty());
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("a checkpoint is fsynced before it is renamed", "[io][durability]") {
  test::TempDir tmp("stratus_durability");
  const std::string dir = shared_dir(tmp);
  stratus::CheckpointMeta meta;
  meta.physics = "advection";
  meta.step = 4;
  meta.deck_text = "deck";
  const std::string path = stratus::checkpoint_path(dir, "run", 4);
  const long calls = fsyncs_of([&] {
    stratus::CheckpointWriter w(MPI_COMM_WORLD, path, meta);
    w.write_values("values", {1.0, 2.0});
    w.commit();
  });
  CHECK(calls >= 2);  // the file before its rename, the directory after
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    CHECK(fs::is_regular_file(path));
    CHECK(leftovers(dir).empty());
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace durability_test

// Last in this file: the failed file stays abandoned for the rest of the process.
TEST_CASE("an output file whose close fails is abandoned, not left to MPI_Finalize", "[io][durability]") {
  // A full disk when HDF5 writes the metadata at the close: the file stays open inside HDF5, and closing it
  // again while MPI finalises crashed (SIGSEGV). The executable ends without finalising when abandoned().
  namespace h5 = stratus::h5;
  test::TempDir tmp("stratus_close_fails");
  const std::string path = (tmp.path / "f.h5").string();
  h5::File file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "create " + path);
  file.mark_output();
  h5::write_attribute(file.get(), "deck", std::string(1000, 'x'));  // metadata, cached until the close
  REQUIRE_FALSE(h5::abandoned());
  fail_pwrite = true;
  CHECK_THROWS_AS(file.close("close " + path), stratus::Error);
  fail_pwrite = false;
  CHECK(h5::abandoned());
}

TEST_CASE("whole writes go on after a short write and return the error that stops them", "[io]") {
  test::TempDir tmp("stratus_posix_io");
  const std::string path = (tmp.path / "f.bin").string();
  std::string a(700, 'a'), b(900, 'b'), c(1100, 'c');
  for (std::string* p : {&a, &b, &c})  // no two pieces of 333 bytes alike
    for (std::size_t i = 0; i < p->size(); ++i) (*p)[i] = static_cast<char>((*p)[i] + i % 23);
  const std::string all = a + b + c;
  const auto fresh = [&] {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    return fd;
  };
  // Short writes (at most 333 bytes a call, a piece split across calls): every byte in its place.
  write_cap = 333;
  int fd = fresh();
  std::vector<iovec> iov{{a.data(), a.size()}, {b.data(), 0}, {b.data(), b.size()}, {c.data(), c.size()}};
  const int vec = stratus::posix_io::writev_all(fd, iov, 10);
  const int plain = stratus::posix_io::write_all(fd, all.data(), all.size(), 10 + static_cast<off_t>(all.size()));
  write_cap = 0;
  ::close(fd);
  CHECK(vec == 0);
  CHECK(plain == 0);
  CHECK(iov.empty());
  CHECK(durability_test::read_text(path) == std::string(10, '\0') + all + all);
  // A file size limit makes the kernel write what fits and then refuse the rest (EFBIG; SIGXFSZ ignored):
  // that error is returned, and what fitted is in place.
  struct rlimit old {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  fd = fresh();
  struct rlimit lim = old;
  lim.rlim_cur = 1000;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &lim) == 0);
  iov = {{a.data(), a.size()}, {b.data(), b.size()}, {c.data(), c.size()}};
  const int over = stratus::posix_io::writev_all(fd, iov, 0);
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  ::close(fd);
  CHECK(over == EFBIG);
  CHECK(durability_test::read_text(path) == all.substr(0, 1000));
  // Reading past the end is EIO, not a silent short read.
  fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  std::string back(1001, '\0');
  CHECK(stratus::posix_io::read_all(fd, back.data(), 1000, 0) == 0);
  CHECK(back.substr(0, 1000) == all.substr(0, 1000));
  CHECK(stratus::posix_io::read_all(fd, back.data(), back.size(), 0) == EIO);
  ::close(fd);
}

TEST_CASE("space for bytes appended to a file is allocated beyond its end, or refused naming the file", "[io]") {
  test::TempDir tmp("stratus_append");
  const std::string path = (tmp.path / "t.h5md").string();
  {
    std::ofstream out(path, std::ios::binary);
    out << std::string(10000, 'x');
  }
  struct stat st {};
  const auto allocated = [&] {
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return static_cast<double>(st.st_blocks) * 512.0;
  };
  const double before = allocated();
  stratus::reserve_appended(MPI_COMM_SELF, path, 4.0e6);
  CHECK(st.st_size == 10000);                           // the file itself is unchanged
  CHECK(allocated() >= before + 4.0e6);                 // its next bytes are allocated where they will land
  CHECK(durability_test::leftovers(tmp.path).empty());  // and no scratch file was needed
  // More than a file may hold (refused before anything is allocated: a request beyond the free space
  // would fill the disk for a moment, cli_hardening does that on a small tmpfs): refused, naming the
  // file, and nothing left allocated beyond its end.
  CHECK_THROWS_WITH(stratus::reserve_appended(MPI_COMM_SELF, path, 1.0e18),
                    Catch::Contains(path) && Catch::Contains(std::strerror(EFBIG)));
  CHECK(allocated() < before + 1.0e6);
  CHECK(st.st_size == 10000);
  CHECK(durability_test::leftovers(tmp.path).empty());
}
