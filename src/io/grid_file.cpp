// write_grid_file (io/grid_file.hpp).
#include "io/grid_file.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <exception>

#include "core/error.hpp"
#include "io/cf_grid.hpp"
#include "io/h5_parallel.hpp"
#include "io/hdf5_util.hpp"
#include "io/posix_io.hpp"
#include "io/space.hpp"
#include "stratus/version.hpp"

namespace stratus {

namespace {

constexpr const char* kLayout = "cell-centred, dataset index order (z, y, x)";

void write_root_attributes(hid_t file, const CartDecomp& decomp, const LocalGrid& g, const Provenance& prov, long step,
                           double time) {
  h5::write_attribute_f64(file, "time", time);
  h5::write_attribute_i64(file, "step", static_cast<std::int64_t>(step));
  h5::write_attribute(file, "stratus_version", kVersion);
  h5::write_attribute(file, "git_hash", kGitHash);
  h5::write_attribute(file, "physics", prov.physics);
  h5::write_attribute(file, "deck", prov.deck_text);
  h5::write_attribute(file, "resolved_deck", prov.resolved_deck);
  h5::write_attribute_i32(file, "nranks", decomp.size());
  h5::write_attribute_i32(file, "decomposition", decomp.dims().data(), 3);
  h5::write_attribute_i32(file, "global_cells", g.global_n.data(), 3);
  h5::write_attribute_f64(file, "origin", g.lo.data(), 3);
  h5::write_attribute_f64(file, "spacing", g.dx.data(), 3);
  h5::write_attribute(file, "length_unit", prov.length_unit);
  h5::write_attribute(file, "time_unit", prov.time_unit);
  h5::write_attribute(file, "layout", kLayout);
}

/// Consecutive bytes of a file from pieces of memory: pwritev(2) calls of at most kPieceBytes and IOV_MAX
/// parts (pieces adjacent in memory are merged). Throws Error with the file's name on a failed write.
class PieceWriter {
 public:
  PieceWriter(int fd, const std::string& path) : fd_(fd), path_(path) {}
  /// Flushes what is gathered; the next bytes go to the file at `at`.
  void seek(off_t at) {
    flush();
    at_ = at;
  }
  void add(const double* p, long long n) {
    const char* c = reinterpret_cast<const char*>(p);
    std::size_t left = static_cast<std::size_t>(n) * sizeof(double);
    while (left > 0) {
      const std::size_t take = std::min(left, kPieceBytes - bytes_);
      if (!iov_.empty() && static_cast<const char*>(iov_.back().iov_base) + iov_.back().iov_len == c)
        iov_.back().iov_len += take;
      else
        iov_.push_back(iovec{const_cast<char*>(c), take});
      bytes_ += take;
      c += take;
      left -= take;
      if (bytes_ == kPieceBytes || iov_.size() == kMaxParts) flush();
    }
  }
  void flush() {
    if (const int err = posix_io::writev_all(fd_, iov_, at_))
      throw Error("cannot write '" + path_ + "': " + std::strerror(err));
    at_ += static_cast<off_t>(bytes_);
    bytes_ = 0;
  }

 private:
  static constexpr std::size_t kPieceBytes = 512 * 1024;
  static constexpr std::size_t kMaxParts = IOV_MAX;
  int fd_;
  const std::string& path_;
  off_t at_ = 0;
  std::size_t bytes_ = 0;
  std::vector<iovec> iov_;
};

/// Writes cells.box (whole z-planes) of every variable into its dataset, which starts at offsets[q] in
/// the file: each row from the own cells where it crosses cells.own, the rest from cells.routed.
void write_planes(const std::string& path, const std::vector<haddr_t>& offsets, const GridCells& cells) {
  const WriteBox &b = cells.box, &o = cells.own;
  if (b.cells() == 0) return;
  // Not created here: rank 0 has, so that a rank which cannot see it (an output directory not shared
  // between nodes) fails instead of writing a file of its own.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open '" + path + "' for writing: " + std::strerror(errno));
  const long long nx = b.count[0], ny = b.count[1];
  try {
    PieceWriter out(fd, path);
    for (std::size_t q = 0; q < offsets.size(); ++q) {
      const StridedCells& own = cells.vars[q];
      const double* routed = cells.routed ? cells.routed + q * b.cells() : nullptr;
      out.seek(static_cast<off_t>(offsets[q] + sizeof(double) * static_cast<haddr_t>(b.start[2] * ny * nx)));
      for (long long z = b.start[2]; z < b.start[2] + b.count[2]; ++z) {
        for (long long y = 0; y < ny; ++y) {
          const double* rest = routed ? routed + ((z - b.start[2]) * ny + y) * nx : nullptr;
          const bool crosses = o.cells() > 0 && z >= o.start[2] && z < o.start[2] + o.count[2] && y >= o.start[1] &&
                               y < o.start[1] + o.count[1];
          STRATUS_REQUIRE(crosses || rest, "grid output: no cells for a row of '" << path << "'");
          if (!crosses) {
            out.add(rest, nx);
            continue;
          }
          const long long end = o.start[0] + o.count[0];
          if (o.start[0] > 0) out.add(rest, o.start[0]);
          out.add(own.first + (z - o.start[2]) * own.plane + (y - o.start[1]) * own.row, o.count[0]);
          if (end < nx) out.add(rest + end, nx - end);
        }
      }
      out.flush();
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) throw Error("cannot write '" + path + "': " + std::strerror(errno));
}

/// "dataset /fields/NAME in 'PATH'": what the messages about a field's dataset name.
std::string field_dataset(const GridVariable& v, const std::string& path) {
  return "dataset /fields/" + v.name + " in '" + path + "'";
}

/// The datasets of a snapshot file, under /fields in (z, y, x) order, open until describe_fields() is done.
struct Datasets {
  h5::Group fields;
  std::vector<h5::Dataset> vars;
  std::vector<haddr_t> offsets;  // uncompressed: where each one's data starts in the file
};

/// Creates /fields and one dataset per variable: contiguous and allocated when created (offsets known)
/// if uncompressed, else chunked per rank's block and compressed.
Datasets create_datasets(hid_t file, const std::string& path, const CartDecomp& decomp, const LocalGrid& g,
                         const std::vector<GridVariable>& vars, int deflate) {
  Datasets d;
  d.fields = h5::Group(H5Gcreate2(file, "fields", H5P_DEFAULT, h5::untimed(H5P_GROUP_CREATE).get(), H5P_DEFAULT),
                       "create group /fields in '" + path + "'");
  const hsize_t global[3] = {static_cast<hsize_t>(g.global_n[2]), static_cast<hsize_t>(g.global_n[1]),
                             static_cast<hsize_t>(g.global_n[0])};
  h5::Dataspace filespace(H5Screate_simple(3, global, nullptr), "create file dataspace");
  // Every cell is written, so filling the datasets first would only double the I/O.
  h5::PropList dcpl = h5::untimed(H5P_DATASET_CREATE);
  h5::check_status(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), "disable fill values");
  if (deflate == 0)  // the default for parallel files; H5Dget_offset below needs it
    h5::check_status(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY), "allocate datasets when created");
  if (deflate > 0) {
    // One chunk per rank's block (blocks are equal), so each rank compresses and writes its own chunk;
    // byte shuffling first makes doubles compress far better.
    const Int3 b = decomp.local_cells();  // the same on every rank, as parallel HDF5 requires
    const hsize_t chunk[3] = {static_cast<hsize_t>(b[2]), static_cast<hsize_t>(b[1]), static_cast<hsize_t>(b[0])};
    h5::check_status(H5Pset_chunk(dcpl.get(), 3, chunk), "set chunk dimensions");
    h5::check_status(H5Pset_shuffle(dcpl.get()), "enable the shuffle filter");
    h5::check_status(H5Pset_deflate(dcpl.get(), static_cast<unsigned>(deflate)), "enable deflate");
  }
  for (const GridVariable& v : vars) {
    const std::string what = field_dataset(v, path);
    d.vars.emplace_back(H5Dcreate2(d.fields.get(), v.name.c_str(), H5T_IEEE_F64LE, filespace.get(), H5P_DEFAULT,
                                   dcpl.get(), H5P_DEFAULT),
                        "create " + what);
    if (deflate == 0) {  // contiguous, allocated when created (above)
      const haddr_t at = H5Dget_offset(d.vars.back().get());
      if (at == HADDR_UNDEF) throw Error("no storage allocated for " + what);
      d.offsets.push_back(at);
    }
  }
  return d;
}

/// The root attributes and the CF coordinates (the rank with root true writes their values through dxpl).
CfCoordinates describe_file(hid_t file, const CartDecomp& decomp, const LocalGrid& g, const Provenance& prov, long step,
                            double time, hid_t dxpl, bool root) {
  write_root_attributes(file, decomp, g, prov, step, time);
  return write_cf_coordinates(file, g, prov.length_unit, prov.time_unit, time, dxpl, root);
}

/// The fields' attributes; closes the datasets and the coordinates.
void describe_fields(hid_t file, Datasets& d, CfCoordinates& coords, const std::string& path,
                     const std::vector<GridVariable>& vars) {
  for (std::size_t q = 0; q < vars.size(); ++q) {
    const GridVariable& v = vars[q];
    h5::write_attribute(d.vars[q].get(), "unit", v.unit);
    describe_cf_field(file, d.vars[q].get(), "/fields/" + v.name, v, coords);
    d.vars[q].close("close " + field_dataset(v, path));
  }
  for (h5::Dataset* c : {&coords.x, &coords.y, &coords.z, &coords.time})
    c->close("close a coordinate in '" + path + "'");
  d.fields.close("close group /fields in '" + path + "'");
}

/// Where the last dataset's data ends.
double data_end(const std::vector<haddr_t>& offsets, const LocalGrid& g) {
  double end = 0.0;
  for (haddr_t at : offsets)
    end = std::max(end, static_cast<double>(at) + 8.0 * g.global_n[0] * g.global_n[1] * g.global_n[2]);
  return end;
}

/// Uncompressed, every rank's box whole z-planes: rank 0 alone creates the file (MPI-IO on MPI_COMM_SELF,
/// no collective HDF5 call), its coordinates and datasets, and sends their offsets; the other ranks write
/// their planes there while rank 0 writes the fields' attributes (about 0.9 ms of the 1.5 ms of metadata
/// of a 2D Euler snapshot) and runs `meanwhile`, then its own planes; rank 0 closes the file. Where rank 0's image
/// fits, it creates the file, sends the image's offsets at once and writes the image's bytes (about 0.25 ms)
/// while the others write their planes.
void write_planes_file(MPI_Comm comm, const std::string& path, const CartDecomp& decomp, const LocalGrid& g,
                       const Provenance& prov, const GridCells& cells, const std::vector<GridVariable>& vars, long step,
                       double time, SnapshotImage* image, const std::function<void()>& meanwhile) {
  const bool root = decomp.rank() == 0;
  bool reuse = root && image && image->fits(vars);
  if (reuse) {
    try {
      image->stamp(step, time);
    } catch (const std::exception&) {
      image->clear();  // written in full instead
      reuse = false;
    }
  }
  h5::File file;
  CfCoordinates coords;
  Datasets d;
  std::string failed;
  if (root && reuse) {
    // The file is there before the others open it (the space check creates it, unless switched off);
    // the image's bytes go in while they write.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
      failed = "cannot create '" + path + "': " + std::strerror(errno);
    else
      ::close(fd);
  }
  if (root && !reuse) {
    try {
      file = h5::create_output(path, "HDF5");
      coords = describe_file(file.get(), decomp, g, prov, step, time, H5P_DEFAULT, true);
      d = create_datasets(file.get(), path, decomp, g, vars, 0);
    } catch (const std::exception& e) {
      failed = e.what();
    }
  }
  // One message from rank 0 before anyone writes: whether there is a file to write into (0: rank 0 could
  // not create it, and the agreement below tells every rank why), then the datasets' offsets.
  static_assert(sizeof(haddr_t) == sizeof(std::uint64_t), "haddr_t is a 64-bit address");
  std::vector<std::uint64_t> head(vars.size() + 1, 0);
  if (root && failed.empty()) {
    const std::vector<haddr_t>& at = reuse ? image->offsets() : d.offsets;
    if (at.size() == vars.size()) {
      head[0] = 1;
      std::copy(at.begin(), at.end(), head.begin() + 1);
    } else {
      failed = "grid output: " + std::to_string(at.size()) + " dataset offsets for " + std::to_string(vars.size()) +
               " variables of '" + path + "'";
    }
  }
  STRATUS_MPI_CHECK(MPI_Bcast(head.data(), static_cast<int>(head.size()), MPI_UINT64_T, 0, comm));
  if (head[0] == 0) h5::agree_or_abandon(comm, failed);  // rank 0's reason, on every rank
  const std::vector<haddr_t> offsets(head.begin() + 1, head.end());
  // The cells go in while rank 0 holds the file open: if a rank's write fails (a full disk), rank 0 leaves
  // the file unclosed, as after a failed HDF5 call (its metadata would not fit either). Rank 0's image,
  // its other metadata and `meanwhile` take their turn while the others write: none of them needs the
  // others' bytes, nor touches them.
  try {
    if (root && reuse) image->put(path);
    if (root && !reuse) describe_fields(file.get(), d, coords, path, vars);
    if (root && meanwhile) meanwhile();
    write_planes(path, offsets, cells);
  } catch (const std::exception& e) {
    failed = e.what() + space_hint(path);
  }
  h5::agree_or_abandon(comm, failed);
  if (root && !reuse) {
    try {
      h5::reserve_blocks(path, data_end(offsets, g));
      file.close("close '" + path + "'");
    } catch (const std::exception& e) {
      failed = e.what();
    }
    if (image && failed.empty()) {
      try {
        image->take(path, vars, offsets, g);
      } catch (const std::exception&) {
        image->clear();  // the next snapshot is written in full again
      }
    }
  }
  h5::agree_or_abandon(comm, failed);
}

void write_file(MPI_Comm comm, const std::string& path, const CartDecomp& decomp, const LocalGrid& g,
                const Provenance& prov, const GridCells& cells, bool ranges, const std::vector<GridVariable>& vars,
                long step, double time, int deflate, SnapshotImage* image, const std::function<void()>& meanwhile) {
  const WriteBox& box = cells.box;
  STRATUS_REQUIRE(cells.vars.size() == vars.size(),
                  "grid output: cells for " << cells.vars.size() << " of " << vars.size() << " variables");
  STRATUS_REQUIRE(!ranges || (box.start[0] == 0 && box.start[1] == 0 && box.count[0] == g.global_n[0] &&
                              box.count[1] == g.global_n[1] && deflate == 0),
                  "grid output: a box of whole z-planes expected");
  if (ranges) return write_planes_file(comm, path, decomp, g, prov, cells, vars, step, time, image, meanwhile);
  if (decomp.rank() == 0 && meanwhile) meanwhile();

  h5::File file = h5::open_parallel(comm, path, true, "HDF5");
  h5::PropList dxpl(H5Pcreate(H5P_DATASET_XFER), "create transfer property list");
  h5::check_status(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "select collective transfer");
  const hsize_t global[3] = {static_cast<hsize_t>(g.global_n[2]), static_cast<hsize_t>(g.global_n[1]),
                             static_cast<hsize_t>(g.global_n[0])};
  const hsize_t start[3] = {static_cast<hsize_t>(box.start[2]), static_cast<hsize_t>(box.start[1]),
                            static_cast<hsize_t>(box.start[0])};
  const hsize_t count[3] = {static_cast<hsize_t>(box.count[2]), static_cast<hsize_t>(box.count[1]),
                            static_cast<hsize_t>(box.count[0])};
  h5::Dataspace filespace(H5Screate_simple(3, global, nullptr), "create file dataspace");
  h5::Dataspace memspace(H5Screate_simple(3, count, nullptr), "create memory dataspace");
  const bool empty = box.cells() == 0;
  if (empty) {
    // A rank without cells still takes part in every collective call, with nothing selected.
    h5::check_status(H5Sselect_none(filespace.get()), "select nothing in file dataspace");
    h5::check_status(H5Sselect_none(memspace.get()), "select nothing in memory dataspace");
  } else {
    h5::check_status(H5Sselect_hyperslab(filespace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
                     "select hyperslab");
  }
  CfCoordinates coords = describe_file(file.get(), decomp, g, prov, step, time, dxpl.get(), decomp.rank() == 0);
  Datasets d = create_datasets(file.get(), path, decomp, g, vars, deflate);
  double dummy = 0.0;  // some HDF5 versions reject a null buffer even when nothing is selected
  for (std::size_t q = 0; q < vars.size(); ++q) {
    const StridedCells& c = cells.vars[q];
    const std::string what = field_dataset(vars[q], path);
    STRATUS_REQUIRE(empty || (c.row == box.count[0] && c.plane == c.row * box.count[1]),
                    "grid output: packed cells expected for " << what);
    h5::check_status(H5Dwrite(d.vars[q].get(), H5T_NATIVE_DOUBLE, memspace.get(), filespace.get(), dxpl.get(),
                              empty ? &dummy : c.first),
                     "write " + what);
  }
  describe_fields(file.get(), d, coords, path, vars);
  // (A compressed file is shorter than the data bytes reserved before it was created.)
  if (deflate == 0) h5::reserve_for_close(comm, path, data_end(d.offsets, g));
  file.close("close '" + path + "'");
}

/// The message of an error with the file it was writing, where it does not name it already.
std::string naming(const std::string& what, const std::string& path) {
  return what.find(path) == std::string::npos ? what + " (writing '" + path + "')" : what;
}

}  // namespace

void write_grid_file(MPI_Comm comm, const std::string& path, const CartDecomp& decomp, const LocalGrid& g,
                     const Provenance& prov, const GridCells& cells, bool ranges, const std::vector<GridVariable>& vars,
                     long step, double time, int deflate, SnapshotImage* image,
                     const std::function<void()>& meanwhile) {
  // (The file's handles are closed or abandoned before an error gets here.)
  try {
    write_file(comm, path, decomp, g, prov, cells, ranges, vars, step, time, deflate, image, meanwhile);
  } catch (const CollectiveError& e) {
    throw CollectiveError(naming(e.what(), path));
  } catch (const Error& e) {
    throw Error(naming(e.what(), path));
  }
}

}  // namespace stratus
