// CheckpointWriter and checkpoint_path (io/checkpoint.hpp), and the helpers shared with the reader
// (io/checkpoint_detail.hpp); CheckpointReader and newest_checkpoint are in checkpoint_read.cpp.
//
// Writing: every dataset is created and written collectively (parallel HDF5 writes filtered datasets only
// in collective mode). Grid blocks go straight to their hyperslab; per-atom rows first travel with one
// MPI_Alltoallv to the rank owning their file row (rank r owns rows [r N / P, (r + 1) N / P)), so each
// rank writes one contiguous block. Argument errors are summed over the ranks before anyone throws, so
// a bad call raises the same Error on every rank instead of leaving the others in a collective.
//
// Reading: the file is never trusted. Every rank reads the same metadata (so structural checks come out
// alike everywhere), the chunks of every dataset are spread over the ranks and read independently (so a
// checksum failure stays local until the ranks agree, and each byte is read once in all), and one
// agreement turns the first failure into the same InputError on every rank. HDF5's automatic error
// printing is off throughout; its innermost message is appended to ours.
#include "io/checkpoint.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/agree.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/checkpoint_detail.hpp"
#include "io/row_exchange.hpp"
#include "io/space.hpp"
#include "stratus/version.hpp"

namespace stratus {

namespace fs = std::filesystem;

using namespace checkpoint_detail;

namespace checkpoint_detail {

// --- Collective agreement on a failure of any rank.

/// Collective. True if ok on every rank; otherwise false on every rank, with msg set to the message of
/// the lowest failing rank.
bool all_ok(MPI_Comm comm, bool ok, std::string& msg) {
  int rank = 0;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  int first = ok ? INT_MAX : rank;
  STRATUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == INT_MAX) return true;
  int len = rank == first ? static_cast<int>(msg.size()) : 0;
  STRATUS_MPI_CHECK(MPI_Bcast(&len, 1, MPI_INT, first, comm));
  msg.resize(static_cast<std::size_t>(len));
  if (len > 0) STRATUS_MPI_CHECK(MPI_Bcast(msg.data(), len, MPI_CHAR, first, comm));
  return false;
}

// --- Names.

/// A dataset path below /data: '/'-separated components, none empty, "." or "..".
bool valid_dataset_name(const std::string& name) {
  if (name.empty()) return false;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string part = name.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (end == name.size()) return true;
    start = end + 1;
  }
}

/// Splits a file name NAME_chk_<8 or more digits>.h5 into NAME and the step; false for any other name.
bool parse_series_file(const std::string& file, std::string& name, long& step) {
  const std::string suffix = ".h5", tag = "_chk_";
  if (file.size() <= suffix.size() || file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return false;
  }
  const std::string stem = file.substr(0, file.size() - suffix.size());
  const std::size_t p = stem.rfind(tag);
  if (p == std::string::npos || p == 0) return false;
  const std::string digits = stem.substr(p + tag.size());
  if (digits.size() < 8 || digits.size() > 18) return false;
  for (char c : digits) {
    if (c < '0' || c > '9') return false;
  }
  name = stem.substr(0, p);
  step = std::stol(digits);
  return true;
}

/// The files of series `name` in `dir` (rank 0's view of the file system), by ascending step.
std::vector<SeriesFile> list_series(const std::string& dir, const std::string& name) {
  std::vector<SeriesFile> files;
  std::error_code ec;
  const fs::path d = dir.empty() ? fs::path(".") : fs::path(dir);
  if (!fs::is_directory(d, ec)) return files;
  for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
    std::string n;
    long step = 0;
    if (!parse_series_file(it->path().filename().string(), n, step) || n != name) continue;
    std::error_code ec2;
    if (!it->is_regular_file(ec2)) continue;
    files.push_back({step, it->path().string()});
  }
  std::sort(files.begin(), files.end(), [](const SeriesFile& a, const SeriesFile& b) {
    return a.step != b.step ? a.step < b.step : a.path < b.path;
  });
  return files;
}

}  // namespace checkpoint_detail

namespace {

/// Flushes a file (or directory) to stable storage; false with errno set on failure.
bool sync_path(const std::string& path, bool directory) {
  const int fd = ::open(path.c_str(), O_RDONLY | (directory ? O_DIRECTORY : 0));
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return ok;
}

// --- Writing helpers.

/// Chunk extents for a dataset of extents `dims` (all > 0): at most kChunkValues elements, obtained by
/// halving the slowest-varying extents first, so a chunk is a run of whole rows or planes where possible.
std::vector<hsize_t> chunk_dims(const std::vector<hsize_t>& dims) {
  std::vector<hsize_t> c = dims;
  const auto count = [&c] {
    hsize_t n = 1;
    for (hsize_t x : c) n *= x;
    return n;
  };
  std::size_t d = 0;
  while (count() > kChunkValues) {
    while (c[d] == 1) ++d;
    c[d] = (c[d] + 1) / 2;
  }
  return c;
}

/// A dataset below `loc` (intermediate groups created) of the given file type and extents: chunked with
/// Fletcher32 unless it has no elements; attribute kind.
h5::Dataset make_dataset(hid_t loc, const std::string& name, hid_t file_type, const std::vector<hsize_t>& dims,
                         const std::string& kind, const std::string& what) {
  const int rank = static_cast<int>(dims.size());
  h5::Dataspace space(H5Screate_simple(rank, dims.data(), nullptr), "create dataspace for " + what);
  h5::PropList dcpl(H5Pcreate(H5P_DATASET_CREATE), "create dataset creation property list");
  hsize_t n = 1;
  for (hsize_t x : dims) n *= x;
  if (n > 0) {
    const std::vector<hsize_t> chunk = chunk_dims(dims);
    h5::check_status(H5Pset_chunk(dcpl.get(), rank, chunk.data()), "set chunking of " + what);
    h5::check_status(H5Pset_fletcher32(dcpl.get()), "add the Fletcher32 filter to " + what);
  }
  // Every element is written, so filling the chunks first would only double the I/O.
  h5::check_status(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), "disable fill values of " + what);
  h5::PropList lcpl(H5Pcreate(H5P_LINK_CREATE), "create link creation property list");
  h5::check_status(H5Pset_create_intermediate_group(lcpl.get(), 1), "allow intermediate groups for " + what);
  h5::Dataset ds(H5Dcreate2(loc, name.c_str(), file_type, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT),
                 "create " + what);
  h5::write_attribute(ds.get(), "kind", kind);
  return ds;
}

}  // namespace

std::string checkpoint_path(const std::string& dir, const std::string& name, long step) {
  STRATUS_REQUIRE(!name.empty() && name.find('/') == std::string::npos,
                  "checkpoint: invalid series name '" << name << "'");
  STRATUS_REQUIRE(step >= 0, "checkpoint: step must be >= 0, got " << step);
  char digits[32];
  std::snprintf(digits, sizeof digits, "%08ld", step);
  const std::string file = name + "_chk_" + digits + ".h5";
  return dir.empty() ? file : (fs::path(dir) / file).string();
}

// --- CheckpointWriter.

CheckpointWriter::CheckpointWriter(MPI_Comm comm, const std::string& final_path, const CheckpointMeta& meta_in)
    : comm_(comm), final_(final_path), tmp_(final_path + ".tmp") {
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  STRATUS_MPI_CHECK(MPI_Comm_size(comm_, &size_));
  STRATUS_REQUIRE(!final_.empty(), "checkpoint: empty file name");
  // Attribute values must be identical on every rank: rank 0's are used.
  CheckpointMeta meta = meta_in;
  meta.physics = bcast_string(comm_, meta.physics);
  meta.deck_text = bcast_string(comm_, meta.deck_text);
  long long step = meta.step;
  STRATUS_MPI_CHECK(MPI_Bcast(&step, 1, MPI_LONG_LONG, 0, comm_));
  STRATUS_MPI_CHECK(MPI_Bcast(&meta.time, 1, MPI_DOUBLE, 0, comm_));
  step_ = static_cast<long>(step);

  bool ok = true;
  std::string msg;
  if (rank_ == 0) {
    const fs::path parent = fs::path(final_).parent_path();
    std::error_code ec;
    if (!parent.empty()) fs::create_directories(parent, ec);
    if (meta.physics.empty() || step < 0) {
      ok = false;
      msg = "checkpoint '" + final_ + "': physics must be named and step >= 0";
    } else if (!parent.empty() && (ec || !fs::is_directory(parent))) {
      ok = false;
      msg = "cannot create directory '" + parent.string() + "' for checkpoint '" + final_ +
            "': " + (ec ? ec.message() : "not a directory");
    }
  }
  agree_or_throw(comm_, ok, msg);
  reserve_space(comm_, tmp_, with_metadata(static_cast<double>(meta.deck_text.size())));

  h5::PropList fapl(H5Pcreate(H5P_FILE_ACCESS), "create file access property list");
  h5::check_status(H5Pset_fapl_mpio(fapl.get(), comm_, MPI_INFO_NULL), "select MPI-IO for '" + tmp_ + "'");
  // The 1.10 format checksums all metadata (superblock, object headers with the attributes, chunk
  // indexes); Fletcher32 covers the raw data.
  h5::check_status(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V110, H5F_LIBVER_V110),
                   "set format bounds for '" + tmp_ + "'");
  h5::check_status(H5Pset_coll_metadata_write(fapl.get(), true), "set collective metadata for '" + tmp_ + "'");
  // The root attributes stay in the (checksummed) object header: never switch to dense storage.
  h5::PropList fcpl(H5Pcreate(H5P_FILE_CREATE), "create file creation property list");
  h5::check_status(H5Pset_attr_phase_change(fcpl.get(), 64, 0), "keep attributes compact in '" + tmp_ + "'");
  hid_t id = -1;
  std::string why;
  {
    h5::QuietErrors quiet;
    id = H5Fcreate(tmp_.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get());
    if (id < 0) why = h5::last_error();
  }
  int created = id >= 0 ? 1 : 0;
  STRATUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &created, 1, MPI_INT, MPI_MIN, comm_));
  if (!created) {
    // A rank whose create succeeded leaves the file open: closing is collective and would hang (MPI-IO
    // opens are collective, so this split should not occur in practice).
    throw CollectiveError("cannot create checkpoint file '" + tmp_ + "'" + (why.empty() ? "" : ": " + why));
  }
  file_ = h5::File(id, "create '" + tmp_ + "'");
  file_.mark_output();
  created_ = true;
  // A constructor that throws gets no destructor call: the file it created is discarded by this guard, while
  // the exception unwinds (so that after a failed HDF5 call the file is abandoned, not closed). A full disk
  // at the deck's dataset left the temporary behind.
  struct DiscardOnThrow {
    CheckpointWriter* writer;
    bool armed = true;
    ~DiscardOnThrow() {
      if (armed) writer->discard();
    }
  } guard{this};
  write_header(meta, step);
  guard.armed = false;
}

void CheckpointWriter::write_header(const CheckpointMeta& meta, long long step) {
  const hid_t f = file_.get();
  h5::write_attribute(f, "format", kFormat);
  h5::write_attribute_i32(f, "format_version", kFormatVersion);
  h5::write_attribute(f, "physics", meta.physics);
  h5::write_attribute_i64(f, "step", static_cast<std::int64_t>(step));
  h5::write_attribute_f64(f, "time", meta.time);
  h5::write_attribute(f, "stratus_version", kVersion);
  h5::write_attribute(f, "git_hash", kGitHash);
  h5::write_attribute_i32(f, "nranks", size_);
  {  // Its links stay in the (checksummed) object header too: past 8 of them HDF5 would move them to a
     // fractal heap, whose blocks carry no checksum (a damaged one crashed HDF5's reader).
    h5::PropList gcpl(H5Pcreate(H5P_GROUP_CREATE), "create group creation property list");
    h5::check_status(H5Pset_link_phase_change(gcpl.get(), 64, 0), "keep the links of /data compact in '" + tmp_ + "'");
    h5::Group(H5Gcreate2(f, kDataGroup, H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), "create group /data in '" + tmp_ + "'")
        .close("close group /data");
  }

  dxpl_ = h5::PropList(H5Pcreate(H5P_DATASET_XFER), "create transfer property list");
  h5::check_status(H5Pset_dxpl_mpio(dxpl_.get(), H5FD_MPIO_COLLECTIVE), "select collective transfer");

  // The deck, however long, as one fixed-length string in a checksummed chunk (attributes too large for
  // the object header would go to a heap whose blocks carry no checksum).
  const std::string what = "dataset /deck in '" + tmp_ + "'";
  h5::Datatype text = h5::string_type(meta.deck_text.size());
  const hsize_t one[1] = {1};
  h5::Dataspace space(H5Screate_simple(1, one, nullptr), "create dataspace for " + what);
  h5::PropList dcpl(H5Pcreate(H5P_DATASET_CREATE), "create dataset creation property list");
  h5::check_status(H5Pset_chunk(dcpl.get(), 1, one), "set chunking of " + what);
  h5::check_status(H5Pset_fletcher32(dcpl.get()), "add the Fletcher32 filter to " + what);
  h5::check_status(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), "disable fill values of " + what);
  h5::Dataset deck(H5Dcreate2(f, "deck", text.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                   "create " + what);
  h5::write_selection(deck.get(), text.get(), {0}, {1}, rank_ == 0, meta.deck_text.c_str(), dxpl_.get(), what);
  deck.close("close " + what);
}

CheckpointWriter::~CheckpointWriter() {
  if (!created_ || committed_) return;
  discard();
}

void CheckpointWriter::discard() {
  // Not committed: an exception is unwinding. Close (or, after a failed HDF5 call, abandon) the file and
  // remove the temporary, so that a failed checkpoint leaves nothing behind and older ones stand.
  dxpl_ = h5::PropList();
  file_ = h5::File();
  if (rank_ == 0 || h5::abandoned()) {
    std::error_code ec;
    fs::remove(tmp_, ec);
  }
}

void CheckpointWriter::reserve(double raw_bytes) { reserve_space(comm_, tmp_, with_metadata(raw_bytes)); }

void CheckpointWriter::claim(const std::string& name) {
  STRATUS_REQUIRE(file_.valid(), "checkpoint '" << final_ << "': dataset '" << name << "' written after commit()");
  STRATUS_REQUIRE(valid_dataset_name(name), "checkpoint '" << final_ << "': invalid dataset name '" << name << "'");
  for (const auto& n : names_) {
    // A dataset may not double as a group of another one.
    const bool clash = n == name ||
                       (n.size() > name.size() && n.compare(0, name.size(), name) == 0 && n[name.size()] == '/') ||
                       (name.size() > n.size() && name.compare(0, n.size(), n) == 0 && name[n.size()] == '/');
    STRATUS_REQUIRE(!clash, "checkpoint '" << final_ << "': dataset '" << name << "' clashes with '" << n << "'");
  }
  names_.insert(name);
}

void CheckpointWriter::write_grid(const std::string& name, int nvar, Int3 global, Int3 offset, Int3 extent,
                                  const std::vector<double>& data) {
  claim(name);
  const std::string what = "dataset '" + name + "' in '" + tmp_ + "'";
  bool bad = nvar < 1;
  long long cells = 1, total = 1;
  for (int d = 0; d < 3; ++d) {
    bad = bad || global[d] < 1 || offset[d] < 0 || extent[d] < 0 || offset[d] > global[d] - extent[d];
    cells *= extent[d];
    total *= global[d];
  }
  bad = bad || data.size() != static_cast<std::size_t>(nvar) * static_cast<std::size_t>(cells);
  long long sums[2] = {bad ? 1 : 0, bad ? 0 : cells};
  STRATUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_LONG_LONG, MPI_SUM, comm_));
  if (sums[0] > 0) {
    throw CollectiveError("checkpoint grid " + what + ": " + std::to_string(sums[0]) +
                          " rank(s) passed a box outside the grid, no variables or data of the wrong length");
  }
  if (sums[1] != total) {
    throw CollectiveError("checkpoint grid " + what + ": the ranks' boxes hold " + std::to_string(sums[1]) +
                          " cells in all, the grid " + std::to_string(total));
  }
  const std::vector<hsize_t> dims{static_cast<hsize_t>(nvar), static_cast<hsize_t>(global[2]),
                                  static_cast<hsize_t>(global[1]), static_cast<hsize_t>(global[0])};
  const std::vector<hsize_t> start{0, static_cast<hsize_t>(offset[2]), static_cast<hsize_t>(offset[1]),
                                   static_cast<hsize_t>(offset[0])};
  const std::vector<hsize_t> count{static_cast<hsize_t>(nvar), static_cast<hsize_t>(extent[2]),
                                   static_cast<hsize_t>(extent[1]), static_cast<hsize_t>(extent[0])};
  reserve(8.0 * static_cast<double>(total) * nvar);
  h5::Group group(H5Gopen2(file_.get(), kDataGroup, H5P_DEFAULT), "open group /data");
  h5::Dataset ds = make_dataset(group.get(), name, H5T_IEEE_F64LE, dims, "grid", what);
  h5::write_selection(ds.get(), H5T_NATIVE_DOUBLE, start, count, true, data.data(), dxpl_.get(), what);
  ds.close("close " + what);
}

void CheckpointWriter::write_rows(const std::string& name, long long natoms, int ncomp,
                                  const std::vector<long long>& id, const std::vector<double>& values) {
  write_rows_impl(name, natoms, ncomp, id, values);
}

void CheckpointWriter::write_rows(const std::string& name, long long natoms, int ncomp,
                                  const std::vector<long long>& id, const std::vector<long long>& values) {
  write_rows_impl(name, natoms, ncomp, id, values);
}

template <class T>
void CheckpointWriter::write_rows_impl(const std::string& name, long long natoms, int ncomp,
                                       const std::vector<long long>& id, const std::vector<T>& values) {
  static_assert(sizeof(T) == 8, "rows are 8-byte values");
  claim(name);
  const std::string what = "dataset '" + name + "' in '" + tmp_ + "'";
  const std::size_t n = id.size();

  // 1. Every rank learns of every rank's bad arguments before anyone throws.
  const bool bad_shape = natoms < 0 || natoms > LLONG_MAX / size_ || ncomp < 1 || ncomp > (1 << 20) ||
                         values.size() != n * static_cast<std::size_t>(std::max(ncomp, 0));
  long long counts[3] = {bad_shape ? 1 : 0, 0, static_cast<long long>(n)};  // bad calls, bad ids, atoms
  for (long long i : id) counts[1] += (i < 1 || i > natoms) ? 1 : 0;
  STRATUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, counts, 3, MPI_LONG_LONG, MPI_SUM, comm_));
  const std::string where = "checkpoint rows " + what + ": ";
  if (counts[0] > 0) {
    throw CollectiveError(where + std::to_string(counts[0]) +
                          " rank(s) passed a bad atom or component count, or values not ncomp per id");
  }
  if (counts[1] > 0)
    throw CollectiveError(where + std::to_string(counts[1]) + " id(s) outside 1.." + std::to_string(natoms));
  if (counts[2] != natoms) {
    throw CollectiveError(where + "the ranks hold " + std::to_string(counts[2]) + " atoms in all, not " +
                          std::to_string(natoms));
  }

  // 2. Each rank gets its block of rows (ncomp values each), in row order.
  const std::size_t nc = static_cast<std::size_t>(ncomp);
  const RowBlock& rows = rows_.route(
      comm_, natoms, id, 8 * nc, [&](std::size_t i, char* out) { std::memcpy(out, &values[i * nc], 8 * nc); }, where);
  const long long row0 = rows.row0;
  const std::size_t nloc = rows.count;

  // 4. One collective hyperslab write.
  const std::vector<hsize_t> dims{static_cast<hsize_t>(natoms), static_cast<hsize_t>(ncomp)};
  reserve(8.0 * static_cast<double>(natoms) * ncomp);
  h5::Group group(H5Gopen2(file_.get(), kDataGroup, H5P_DEFAULT), "open group /data");
  h5::Dataset ds = make_dataset(group.get(), name, TypeOf<T>::file(), dims, "rows", what);
  h5::write_selection(ds.get(), TypeOf<T>::mem(), {static_cast<hsize_t>(row0), 0},
                      {static_cast<hsize_t>(nloc), static_cast<hsize_t>(ncomp)}, true, rows.data.data(), dxpl_.get(),
                      what);
  ds.close("close " + what);
}

void CheckpointWriter::write_values(const std::string& name, const std::vector<double>& v) {
  claim(name);
  const std::string what = "dataset '" + name + "' in '" + tmp_ + "'";
  long long n = static_cast<long long>(v.size());
  STRATUS_MPI_CHECK(MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm_));
  reserve(8.0 * static_cast<double>(n));
  h5::Group group(H5Gopen2(file_.get(), kDataGroup, H5P_DEFAULT), "open group /data");
  h5::Dataset ds = make_dataset(group.get(), name, H5T_IEEE_F64LE, {static_cast<hsize_t>(n)}, "values", what);
  h5::write_selection(ds.get(), H5T_NATIVE_DOUBLE, {0}, {static_cast<hsize_t>(n)}, rank_ == 0, v.data(), dxpl_.get(),
                      what);
  ds.close("close " + what);
}

void CheckpointWriter::commit(int keep) {
  STRATUS_REQUIRE(file_.valid(), "checkpoint '" << final_ << "': commit() called twice");
  std::string series;
  long step = 0;
  const bool in_series = parse_series_file(fs::path(final_).filename().string(), series, step);
  STRATUS_REQUIRE(keep <= 0 || in_series,
                  "checkpoint '" << final_ << "': keep > 0 needs a name of the form NAME_chk_<step>.h5");
  dxpl_ = h5::PropList();
  try {
    file_.close("close '" + tmp_ + "'");
  } catch (const Error& e) {
    throw Error(e.what() + space_hint(tmp_));
  }

  bool ok = true;
  std::string msg;
  if (rank_ == 0) {
    // The data reach the disk before the name does, so a crash never leaves a final name on partial data.
    std::error_code ec;
    const std::string dir = fs::path(final_).parent_path().empty() ? "." : fs::path(final_).parent_path().string();
    if (!sync_path(tmp_, false)) {
      ok = false;
      msg = "cannot flush checkpoint '" + tmp_ + "' to disk: " + std::strerror(errno);
    } else {
      fs::rename(tmp_, final_, ec);
      if (ec) {
        ok = false;
        msg = "cannot rename '" + tmp_ + "' to '" + final_ + "': " + ec.message();
      } else {
        sync_path(dir, true);  // some file systems cannot sync a directory; the rename stands either way
      }
    }
  }
  agree_or_throw(comm_, ok, msg);
  committed_ = true;

  if (keep > 0 && rank_ == 0) {
    const std::vector<SeriesFile> files = list_series(fs::path(final_).parent_path().string(), series);
    std::vector<std::string> older;  // step not above this file's, oldest first, this file excluded
    const fs::path self = fs::path(final_).lexically_normal();
    for (const auto& f : files) {
      if (f.step <= step && fs::path(f.path).lexically_normal() != self) older.push_back(f.path);
    }
    const std::size_t excess = older.size() + 1 > static_cast<std::size_t>(keep) ? older.size() + 1 - keep : 0;
    for (std::size_t i = 0; i < excess; ++i) {
      std::error_code ec;
      fs::remove(older[i], ec);
      // The new checkpoint is safe; an old one that stays is only wasted space.
      if (ec) log::warn("cannot delete old checkpoint '" + older[i] + "': " + ec.message());
    }
  }
}

// --- Validation and CheckpointReader.

}  // namespace stratus
