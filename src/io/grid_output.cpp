// GridSnapshotWriter and HistoryTable (io/grid_output.hpp). A snapshot is written by every rank into
// <file>.tmp (io/grid_file.cpp), closed, then renamed by rank 0 together with the XDMF files, so a
// reader never meets a half-written file. Decisions that only rank 0 can make (directory creation,
// renames, the history file) are broadcast before anyone throws, so a failure raises the same Error on
// every rank instead of leaving the others waiting in a collective. HDF5 failures inside collective
// calls are assumed to occur on every rank alike, as parallel HDF5 itself assumes. This file does not
// decide when to write, and it reads nothing back; io/grid_file.cpp lays out the file, io/plane_route.cpp
// regroups the cells of a grid split along x or y into whole z-planes per rank.
//
// Durability: nothing here calls fsync, neither on the .h5 nor on its XDMF files. The rename is what
// keeps a kill or crash of the run from leaving a partial file under a final name; only a power loss or
// kernel crash can lose snapshot data the kernel had not yet written back, and then a sidecar synced on
// its own could name data that never reached the disk. Checkpoints, which restarts depend on, are synced
// (io/checkpoint.cpp); a run restarted from one rewrites the snapshots after it.
#include "io/grid_output.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <locale>
#include <set>
#include <sstream>

#include "core/agree.hpp"
#include "core/error.hpp"
#include "io/atomic_file.hpp"
#include "io/grid_file.hpp"
#include "io/h5_parallel.hpp"
#include "io/hdf5_util.hpp"
#include "io/snapshot_image.hpp"
#include "io/space.hpp"
#include "io/xdmf.hpp"

namespace stratus {

namespace fs = std::filesystem;

namespace {

std::string step_tag(long step) {
  std::ostringstream os;
  os << std::setw(6) << std::setfill('0') << step;
  return os.str();
}

/// Rank 0 creates dir (and its parents); every rank throws if that failed.
void make_directory(MPI_Comm comm, bool root, const std::string& dir) {
  bool ok = true;
  std::string msg;
  if (root) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir)) {
      ok = false;
      msg = "cannot create output directory '" + dir + "': " + (ec ? ec.message() : "not a directory");
    }
  }
  agree_or_throw(comm, ok, msg);
}

bool same_names(const std::vector<GridVariable>& a, const std::vector<GridVariable>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const GridVariable& x, const GridVariable& y) { return x.name == y.name; });
}

void check_request(const LocalGrid& g, const Field4D& state, const std::vector<GridVariable>& vars, long step) {
  STRATUS_REQUIRE(step >= 0, "grid output: step must be >= 0, got " << step);
  STRATUS_REQUIRE(!vars.empty(), "grid output: no variables to write");
  STRATUS_REQUIRE(
      state.extent_int(1) == g.extent(2) && state.extent_int(2) == g.extent(1) && state.extent_int(3) == g.extent(0),
      "grid output: field '" << state.label() << "' extents (" << state.extent(1) << ", " << state.extent(2) << ", "
                             << state.extent(3) << ") do not match the local grid");
  std::set<std::string> seen;
  for (const auto& v : vars) {
    STRATUS_REQUIRE(!v.name.empty() && v.name != "." && v.name.find('/') == std::string::npos,
                    "grid output: invalid variable name '" << v.name << "'");
    STRATUS_REQUIRE(seen.insert(v.name).second, "grid output: variable '" << v.name << "' listed twice");
    STRATUS_REQUIRE(v.index >= 0 && v.index < state.extent_int(0),
                    "grid output: variable '" << v.name << "' has index " << v.index << " but field '" << state.label()
                                              << "' holds " << state.extent(0));
  }
}

/// The owned cells of each listed variable of state, one block of g.owned_cells() after another in the
/// files' order (x fastest), into out: a kernel per variable, so that only these bytes leave the device.
/// Row-wise on CPUs (for_each_cell): a flat index split by divisions cost 2.3 ms per 3.8 MB snapshot.
void pack_owned_cells(const Field4D& state, const LocalGrid& g, const std::vector<GridVariable>& vars,
                      const Buffer1D& out) {
  const long long nx = g.n[0], ny = g.n[1];
  const int gx = g.ng[0], gy = g.ng[1], gz = g.ng[2];
  long long base = 0;
  for (const auto& v : vars) {
    const int q = v.index;
    for_each_cell(
        "grid_output::pack", g, KOKKOS_LAMBDA(int i, int j, int k) {
          out(base + ((k - gz) * ny + (j - gy)) * nx + (i - gx)) = state(q, k, j, i);
        });
    base += g.owned_cells();
  }
}

}  // namespace

GridSnapshotWriter::GridSnapshotWriter(const CartDecomp& decomp, const LocalGrid& grid, std::string dir,
                                       std::string prefix, Provenance prov)
    : decomp_(decomp),
      grid_(grid),
      route_(decomp.comm(), grid.global_n, WriteBox{grid.offset, grid.n}),
      dir_(std::move(dir)),
      prefix_(std::move(prefix)),
      prov_(std::move(prov)) {
  if (dir_.empty()) dir_ = ".";
  STRATUS_REQUIRE(!prefix_.empty() && prefix_.find('/') == std::string::npos,
                  "grid output: invalid file prefix '" << prefix_ << "'");
  for (int d = 0; d < 3; ++d) {
    STRATUS_REQUIRE(grid_.n[d] == decomp_.local_cells()[d] && grid_.offset[d] == decomp_.offset()[d] &&
                        grid_.global_n[d] == decomp_.global_cells()[d],
                    "grid output: local grid does not match the decomposition in direction " << d);
  }
  STRATUS_MPI_CHECK(MPI_Comm_dup(decomp_.comm(), &comm_));
  if (decomp_.rank() == 0) image_ = std::make_unique<SnapshotImage>();
  set_background(true);
}

GridSnapshotWriter::~GridSnapshotWriter() {
  // An error of the last snapshot is lost here, which is why the run loop calls finish().
  h5::end_background_writer(jobs_, comm_);
}

void GridSnapshotWriter::set_background(bool on) {
  finish();
  int level = MPI_THREAD_SINGLE;
  STRATUS_MPI_CHECK(MPI_Query_thread(&level));
  background_ = on && level == MPI_THREAD_MULTIPLE;
}

void GridSnapshotWriter::wait_for_writer() {
  try {
    jobs_.wait();
  } catch (...) {
    held_ = Field4D();
    throw;
  }
  held_ = Field4D();
}

void GridSnapshotWriter::finish() {
  const double t0 = MPI_Wtime();
  try {
    wait_for_writer();
  } catch (...) {
    seconds_ += MPI_Wtime() - t0;
    throw;
  }
  seconds_ += MPI_Wtime() - t0;
}

xdmf::Frame GridSnapshotWriter::xdmf_frame(const Frame& f) {
  xdmf::Frame x{fs::path(f.h5_name).stem().string(), f.h5_name, f.time, {}};
  for (const auto& v : f.vars) x.fields.push_back(v.name);
  return x;
}

std::string GridSnapshotWriter::series_path() const { return (fs::path(dir_) / (prefix_ + ".xmf")).string(); }

std::string GridSnapshotWriter::series_text(const Frame* frame, std::size_t at) const {
  std::vector<std::string> entries;
  entries.reserve(earlier_.size() + frames_.size() + 1);
  for (const Frame& f : earlier_) entries.push_back(f.entry);
  for (std::size_t i = 0; i < frames_.size(); ++i)
    entries.push_back(frame && i == at ? frame->entry : frames_[i].entry);
  if (frame && at >= frames_.size()) entries.push_back(frame->entry);
  return xdmf::series_document(prefix_, entries);
}

void GridSnapshotWriter::flush_series() {
  finish();
  const double t0 = MPI_Wtime();
  bool ok = true;
  std::string msg;
  if (decomp_.rank() == 0 && series_pacing_.pending()) {
    try {
      const std::string text = series_text(nullptr, 0);
      xdmf::write_text_atomically(series_path(), text);
      series_pacing_.written(text.size());
    } catch (const std::exception& e) {
      ok = false;
      msg = e.what();
    }
  }
  seconds_ += MPI_Wtime() - t0;
  agree_or_throw(comm_, ok, msg);
}

void GridSnapshotWriter::resume_before(long step) {
  finish();
  earlier_.clear();
  if (decomp_.rank() != 0) return;
  const std::string lead = prefix_ + "_";
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string f = it->path().filename().string();
    // prefix_NNNNNN.h5 with a step below `step`
    if (f.size() <= lead.size() + 3 || f.compare(0, lead.size(), lead) != 0 || f.compare(f.size() - 3, 3, ".h5") != 0)
      continue;
    const std::string digits = f.substr(lead.size(), f.size() - lead.size() - 3);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const long s = std::stol(digits);
    if (s >= step) continue;
    h5::QuietErrors quiet;
    const hid_t file = H5Fopen(it->path().string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) continue;
    double t = 0.0;
    bool ok = false;
    if (H5Aexists(file, "time") > 0) {
      const hid_t a = H5Aopen(file, "time", H5P_DEFAULT);
      ok = a >= 0 && H5Aread(a, H5T_NATIVE_DOUBLE, &t) >= 0;
      if (a >= 0) H5Aclose(a);
    }
    H5Fclose(file);
    if (ok) earlier_.push_back(Frame{f, s, t, {}, {}});
  }
  std::sort(earlier_.begin(), earlier_.end(), [](const Frame& a, const Frame& b) { return a.step < b.step; });
}

std::string GridSnapshotWriter::write(const Field4D& state, const std::vector<GridVariable>& vars, long step,
                                      double time, FieldHold hold) {
  const double t0 = MPI_Wtime();
  check_request(grid_, state, vars, step);
  const std::string h5_name = prefix_ + "_" + step_tag(step) + ".h5";
  // The snapshot before this one may still be reading the host buffer, and its error belongs to the caller
  // before anything else is written.
  try {
    wait_for_writer();
  } catch (...) {
    seconds_ += MPI_Wtime() - t0;
    throw;
  }
  std::vector<StridedCells> own(vars.size());
  constexpr bool host = Kokkos::SpaceAccessibility<HostSpace, Field4D::memory_space>::accessible;
  if (host && hold == FieldHold::until_finish && deflate_ == 0 && route_.whole_planes() && state.stride(3) == 1) {
    // Straight from the field: rows of owned cells between its ghosts.
    Kokkos::fence();
    if (background_) held_ = state;  // kept until the background write is done
    const long long sv = static_cast<long long>(state.stride(0)), sz = static_cast<long long>(state.stride(1)),
                    sy = static_cast<long long>(state.stride(2)), sx = static_cast<long long>(state.stride(3));
    for (std::size_t q = 0; q < vars.size(); ++q) {
      const double* first = state.data() + vars[q].index * sv + grid_.ng[2] * sz + grid_.ng[1] * sy + grid_.ng[0] * sx;
      own[q] = StridedCells{first, sy, sz};
    }
  } else {
    // Only the owned cells of the written variables reach the host, through buffers kept between writes
    // (pinned host memory on GPUs).
    const long long owned = grid_.owned_cells();
    staging_.reserve(owned * static_cast<long long>(vars.size()), 0);
    pack_owned_cells(state, grid_, vars, staging_.send());
    staging_.stage_send(0, owned * static_cast<long long>(vars.size()));
    const long long nx = grid_.n[0], nxy = nx * grid_.n[1];
    for (std::size_t q = 0; q < vars.size(); ++q)
      own[q] = StridedCells{staging_.send_ptr(static_cast<long long>(q) * owned), nx, nxy};
  }
  if (background_) {
    jobs_.submit([this, own, vars, step, time, deflate = deflate_] { store(own, vars, step, time, deflate); });
  } else {
    try {
      store(own, vars, step, time, deflate_);
    } catch (...) {
      seconds_ += MPI_Wtime() - t0;
      throw;
    }
  }
  const Int3& gn = grid_.global_n;
  bytes_ += 8.0 * static_cast<double>(vars.size()) * gn[0] * gn[1] * gn[2];
  seconds_ += MPI_Wtime() - t0;
  return (fs::path(dir_) / h5_name).string();
}

void GridSnapshotWriter::store(const std::vector<StridedCells>& own, const std::vector<GridVariable>& vars, long step,
                               double time, int deflate) {
  const MPI_Comm comm = comm_;
  const bool root = decomp_.rank() == 0;
  // Until a write has succeeded the directory may not exist; creating it again is harmless.
  if (frames_.empty()) make_directory(comm, root, dir_);

  const std::string base = prefix_ + "_" + step_tag(step);
  const std::string h5_name = base + ".h5";
  const std::string h5_path = (fs::path(dir_) / h5_name).string();
  const std::string tmp_path = h5_path + ".tmp";

  const Int3& n = grid_.global_n;
  const double file_bytes = 8.0 * static_cast<double>(vars.size()) * n[0] * n[1] * n[2] +
                            static_cast<double>(prov_.deck_text.size() + prov_.resolved_deck.size());
  reserve_in_file(comm, tmp_path, file_bytes);

  // A rewrite of the same step replaces its frame rather than listing it twice. frames_ and the pacing
  // change only once the write has succeeded.
  Frame frame{h5_name, step, time, vars, {}};
  std::size_t at = frames_.size();
  for (std::size_t i = 0; i < frames_.size(); ++i)
    if (frames_[i].h5_name == h5_name) at = i;
  xdmf::SeriesPacing pacing = series_pacing_;
  StagedFiles sidecars;
  std::size_t series_bytes = 0;
  std::string sidecar_error;
  bool staged = false;
  // Rank 0 writes the XDMF sidecars' temporaries while the other ranks write their cells; they are renamed
  // into place after the .h5, so that no sidecar names a file that is not there. Not synced: the .h5 they
  // point to is not either (see the file comment).
  const auto stage_sidecars = [&]() noexcept {
    staged = true;
    try {
      const xdmf::Mesh mesh{grid_.global_n, grid_.lo, grid_.dx};
      // Each frame's entry in the series is formatted once and kept; the series is rewritten as
      // xdmf::SeriesPacing says (and by flush_series()). The snapshots from before a restart are listed
      // with this write's variables: the same physics and deck wrote them.
      for (Frame& f : earlier_) {
        if (f.entry.empty() || !same_names(f.vars, vars)) {
          f.vars = vars;
          f.entry = xdmf::series_entry(mesh, xdmf_frame(f));
        }
      }
      frame.entry = xdmf::series_entry(mesh, xdmf_frame(frame));
      std::vector<std::pair<std::string, std::string>> files{
          {(fs::path(dir_) / (base + ".xmf")).string(), xdmf::frame_document(mesh, xdmf_frame(frame))}};
      if (pacing.add(frame.entry.size())) {
        files.emplace_back(series_path(), series_text(&frame, at));
        series_bytes = files[1].second.size();
      }
      sidecars = StagedFiles(files, Durability::renamed);
    } catch (const std::exception& e) {
      sidecar_error = e.what();
    } catch (...) {
      sidecar_error = "cannot write the XDMF files";
    }
  };
  try {
    // Uncompressed, every rank writes whole z-planes: its own, or those the route gives it. (A compressed
    // file has one chunk per rank's block, written by HDF5's collective chunk writes.)
    GridCells cells;
    cells.own = WriteBox{grid_.offset, grid_.n};
    cells.box = deflate == 0 ? route_.write_box() : cells.own;
    cells.vars = own;
    if (deflate == 0 && route_.active()) cells.routed = route_.route(comm, own);
    write_grid_file(comm, tmp_path, decomp_, grid_, prov_, cells, deflate == 0 && route_.whole_planes(), vars, step,
                    time, deflate, image_.get(), stage_sidecars);
  } catch (const CollectiveError&) {
    std::error_code ignored;
    if (root && fs::is_regular_file(tmp_path, ignored)) fs::remove(tmp_path, ignored);
    throw;
  } catch (const Error& e) {
    // This rank's write failed; the others may not know yet, so whichever rank sees it removes the file.
    std::error_code ignored;
    if (fs::is_regular_file(tmp_path, ignored)) fs::remove(tmp_path, ignored);
    throw Error(e.what() + space_hint(tmp_path));
  }
  // Every rank has closed its part of the file before rank 0 makes it visible.
  STRATUS_MPI_CHECK(MPI_Barrier(comm));
  // Only a compressed file can come out shorter than its data.
  if (root && deflate > 0) trim_reserved(tmp_path, file_bytes);

  bool ok = true;
  std::string msg;
  if (root) {
    try {
      if (!staged) stage_sidecars();
      if (!sidecar_error.empty()) throw Error(sidecar_error + space_hint(tmp_path));
      std::error_code ec;
      fs::rename(tmp_path, h5_path, ec);
      if (ec) throw Error("cannot rename '" + tmp_path + "' to '" + h5_path + "': " + ec.message());
      sidecars.commit();  // the frame's file first: the series never lists a frame whose own file is missing
      if (series_bytes > 0) pacing.written(series_bytes);
      series_pacing_ = pacing;
    } catch (const std::exception& e) {
      ok = false;
      msg = e.what();
      std::error_code ignored;
      if (fs::is_regular_file(tmp_path, ignored)) fs::remove(tmp_path, ignored);
    }
  }
  agree_or_throw(comm, ok, msg);
  if (at < frames_.size())
    frames_[at] = std::move(frame);
  else
    frames_.push_back(std::move(frame));
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string format_value(double v) {
  // Counters such as the step are stored as doubles; print them as the integers they are.
  if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9007199254740992.0) {
    return std::to_string(static_cast<long long>(v));
  }
  std::ostringstream os;
  os.imbue(std::locale::classic());
  os << std::setprecision(17) << v;
  return os.str();
}

}  // namespace

HistoryTable::HistoryTable(MPI_Comm comm, const std::string& path, const std::vector<std::string>& columns,
                           long resume_step)
    : path_(path), ncol_(columns.size()), comm_(comm) {
  STRATUS_REQUIRE(!columns.empty(), "history table '" << path << "': no columns");
  int rank = 0;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  root_ = rank == 0;
  bool ok = true;
  std::string msg;
  if (root_) {
    try {
      const fs::path parent = fs::path(path).parent_path();
      if (!parent.empty()) fs::create_directories(parent);
      std::vector<std::string> kept;  // a restarted run keeps the rows up to its first step
      if (resume_step >= 0) {
        std::ifstream old(path);
        std::string line;
        std::getline(old, line);  // header
        while (std::getline(old, line))
          if (!line.empty() && std::strtod(line.c_str(), nullptr) <= static_cast<double>(resume_step))
            kept.push_back(line);
      }
      // The header and the kept rows go to a temporary renamed over the table, so that a failure or a kill
      // here never leaves the table of a restarted run shorter than it was.
      const std::string tmp = path + ".tmp";
      {
        std::ofstream head(tmp, std::ios::out | std::ios::trunc);
        if (!head) throw Error(std::strerror(errno));
        for (std::size_t c = 0; c < columns.size(); ++c) head << (c ? "," : "") << csv_field(columns[c]);
        head << '\n';
        for (const auto& l : kept) head << l << '\n';
        errno = 0;
        head.close();
        if (!head) {
          const int err = errno;
          std::error_code ignored;
          fs::remove(tmp, ignored);
          throw Error(err ? std::strerror(err) : "write failed");
        }
      }
      std::error_code ec;
      fs::rename(tmp, path, ec);
      if (ec) throw Error("cannot rename '" + tmp + "': " + ec.message());
      out_ = std::make_unique<std::ofstream>(path, std::ios::out | std::ios::app);
      if (!*out_) throw Error(std::strerror(errno));
    } catch (const std::exception& e) {
      ok = false;
      msg = "cannot create history file '" + path + "': " + e.what();
      out_.reset();
    }
  }
  agree_or_throw(comm_, ok, msg);
}

void HistoryTable::append(const std::vector<double>& values) {
  STRATUS_REQUIRE(values.size() == ncol_,
                  "history table '" << path_ << "': " << values.size() << " values for " << ncol_ << " columns");
  bool ok = true;
  std::string why;
  if (root_) {
    std::string row;
    for (std::size_t c = 0; c < values.size(); ++c) row += (c ? "," : "") + format_value(values[c]);
    errno = 0;
    *out_ << row << '\n' << std::flush;
    ok = static_cast<bool>(*out_);
    if (!ok && errno != 0) why = std::string(": ") + std::strerror(errno);
  }
  agree_or_throw(comm_, ok, "cannot write to history file '" + path_ + "'" + why);
}

}  // namespace stratus
