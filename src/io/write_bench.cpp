// bench_snapshot_write (io/write_bench.hpp). One untimed round of each kind comes first (file system and
// HDF5 set-up); then the kinds alternate so that drifts of the machine touch both alike.
#include "io/write_bench.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "core/agree.hpp"
#include "core/error.hpp"
#include "domain/cart_decomp.hpp"
#include "domain/local_grid.hpp"
#include "io/grid_output.hpp"
#include "io/posix_io.hpp"

namespace stratus {

namespace {

namespace fs = std::filesystem;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Rank 0's part: a new file holding `bytes` bytes of buf, written front to back in calls of 512 KiB (on
/// the development machine larger calls into the page cache ran several times slower); "" or why it failed.
std::string plain_write(const std::string& path, const std::vector<char>& buf, bool sync) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot create '" + path + "': " + std::strerror(errno);
  constexpr std::size_t kCall = std::size_t(512) << 10;
  int err = 0;
  for (std::size_t at = 0; at < buf.size() && err == 0; at += kCall)
    err = posix_io::write_all(fd, buf.data() + at, std::min(kCall, buf.size() - at));
  if (err == 0 && sync && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  return err == 0 ? std::string() : "cannot write '" + path + "': " + std::strerror(err);
}

/// Seconds of f() on the slowest rank, every rank entering together.
template <class F>
double timed(MPI_Comm comm, F&& f) {
  STRATUS_MPI_CHECK(MPI_Barrier(comm));
  const double t0 = MPI_Wtime();
  f();
  double dt = MPI_Wtime() - t0, worst = 0.0;
  STRATUS_MPI_CHECK(MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, comm));
  return worst;
}

}  // namespace

WriteBenchResult bench_snapshot_write(MPI_Comm comm, Int3 cells, int nvars, int reps, const std::string& dir,
                                      bool fsync_plain, FieldHold hold) {
  STRATUS_REQUIRE(nvars > 0 && reps > 0, "write benchmark: nvars and reps must be positive");
  int rank = 0;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const bool root = rank == 0;
  const std::array<bool, 3> periodic{true, true, true};
  CartDecomp decomp(comm, cells, Int3{0, 0, 0}, periodic);
  const Real3 lo{0.0, 0.0, 0.0}, length{1.0, 1.0, 1.0};
  const LocalGrid grid = make_local_grid(decomp, lo, length, 2);
  const Field4D state = grid.allocate("write_bench", nvars);
  Kokkos::deep_copy(state, 1.25);

  Provenance prov;
  prov.physics = "write_bench";
  prov.deck_text = "[grid]\nnx = " + std::to_string(cells[0]) + "\n";
  prov.resolved_deck = prov.deck_text;
  std::vector<GridVariable> vars;
  for (int v = 0; v < nvars; ++v) vars.push_back({"v" + std::to_string(v), "1", v});
  GridSnapshotWriter writer(decomp, grid, dir, "bench", prov);
  // The writer's own cost: in a run a background thread would hide most of it (the run's "output:" line).
  writer.set_background(false);

  WriteBenchResult r;
  r.reps = reps;
  r.bytes = 8.0 * nvars * static_cast<double>(cells[0]) * cells[1] * cells[2];
  std::vector<char> buf(root ? static_cast<std::size_t>(r.bytes) : 0);
  for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<char>(i * 131 + 7);

  std::vector<double> snap, plain;
  std::vector<std::string> written;  // removed at the end: removals in between would load the file system's journal
  for (int rep = 0; rep <= reps; ++rep) {  // rep 0 is the warm-up
    std::string h5;
    const double ts = timed(comm, [&] { h5 = writer.write(state, vars, rep, 0.1 * rep, hold); });
    const std::string path = (fs::path(dir) / ("plain_" + std::to_string(rep) + ".bin")).string();
    std::string why;
    const double tp = timed(comm, [&] {
      if (root) why = plain_write(path, buf, fsync_plain);
    });
    agree_or_throw(comm, why.empty(), why);
    written.push_back(path);
    written.push_back(h5);
    written.push_back(fs::path(h5).replace_extension(".xmf").string());
    if (rep > 0) {
      snap.push_back(ts);
      plain.push_back(tp);
    }
  }
  if (root) {
    std::error_code ignored;
    for (const auto& f : written) fs::remove(f, ignored);
    fs::remove(fs::path(dir) / "bench.xmf", ignored);
  }
  r.snapshot_seconds = median(snap);
  r.plain_seconds = median(plain);
  return r;
}

}  // namespace stratus
