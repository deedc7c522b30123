// CheckpointWriter, CheckpointReader, checkpoint_path and newest_checkpoint (io/checkpoint.hpp).
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
#include "stratus/version.hpp"

namespace stratus {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFormat = "stratus-checkpoint";
constexpr int kFormatVersion = 1;
constexpr const char* kDataGroup = "data";
constexpr hsize_t kChunkValues = 131072;               // 1 MiB of 8-byte values per chunk, at most
constexpr hsize_t kMaxChunkBytes = 64ull << 20;        // larger chunks are refused on reading
constexpr std::size_t kMaxStringBytes = 256ull << 20;  // larger string attributes are refused

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

struct SeriesFile {
  long step;
  std::string path;
};

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

/// Collectively writes the block `count` at `start` of `ds` from buf (select false: nothing).
void write_block(hid_t ds, hid_t mem_type, const std::vector<hsize_t>& start, const std::vector<hsize_t>& count,
                 bool select, const void* buf, hid_t dxpl, const std::string& what) {
  h5::Dataspace filespace(H5Dget_space(ds), "get dataspace of " + what);
  // A dataset without elements has no storage to write to (the same on every rank).
  if (H5Sget_simple_extent_npoints(filespace.get()) == 0) return;
  h5::Dataspace memspace(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr),
                         "create memory dataspace for " + what);
  for (hsize_t c : count) select = select && c > 0;
  if (select) {
    h5::check_status(H5Sselect_hyperslab(filespace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
                     "select hyperslab of " + what);
  } else {
    h5::check_status(H5Sselect_none(filespace.get()), "select nothing in " + what);
    h5::check_status(H5Sselect_none(memspace.get()), "select nothing in memory for " + what);
  }
  static const double dummy = 0.0;  // some HDF5 versions reject a null buffer even when nothing is selected
  h5::check_status(H5Dwrite(ds, mem_type, memspace.get(), filespace.get(), dxpl, select ? buf : &dummy),
                   "write " + what);
}

template <class T>
struct TypeOf;
template <>
struct TypeOf<double> {
  static hid_t file() { return H5T_IEEE_F64LE; }
  static hid_t mem() { return H5T_NATIVE_DOUBLE; }
};
template <>
struct TypeOf<long long> {
  static hid_t file() { return H5T_STD_I64LE; }
  static hid_t mem() { return H5T_NATIVE_LLONG; }
};

long long block_begin(long long r, long long natoms, long long nranks) { return r * natoms / nranks; }

/// The rank whose block of rows holds `row`: the largest r with r N / P <= row.
int row_owner(long long row, long long natoms, int nranks) {
  const long long r = ((row + 1) * nranks - 1) / natoms;
  return static_cast<int>(std::min<long long>(r, nranks - 1));
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
    throw Error("cannot create checkpoint file '" + tmp_ + "'" + (why.empty() ? "" : ": " + why));
  }
  file_ = h5::File(id, "create '" + tmp_ + "'");

  const hid_t f = file_.get();
  h5::write_attribute(f, "format", kFormat);
  h5::write_attribute_i32(f, "format_version", kFormatVersion);
  h5::write_attribute(f, "physics", meta.physics);
  h5::write_attribute_i64(f, "step", static_cast<std::int64_t>(step));
  h5::write_attribute_f64(f, "time", meta.time);
  h5::write_attribute(f, "stratus_version", kVersion);
  h5::write_attribute(f, "git_hash", kGitHash);
  h5::write_attribute_i32(f, "nranks", size_);
  h5::Group(H5Gcreate2(f, kDataGroup, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "create group /data in '" + tmp_ + "'")
      .close("close group /data");

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
  write_block(deck.get(), text.get(), {0}, {1}, rank_ == 0, meta.deck_text.c_str(), dxpl_.get(), what);
  deck.close("close " + what);
}

CheckpointWriter::~CheckpointWriter() = default;

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
    throw Error("checkpoint grid " + what + ": " + std::to_string(sums[0]) +
                " rank(s) passed a box outside the grid, no variables or data of the wrong length");
  }
  if (sums[1] != total) {
    throw Error("checkpoint grid " + what + ": the ranks' boxes hold " + std::to_string(sums[1]) +
                " cells in all, the grid " + std::to_string(total));
  }
  const std::vector<hsize_t> dims{static_cast<hsize_t>(nvar), static_cast<hsize_t>(global[2]),
                                  static_cast<hsize_t>(global[1]), static_cast<hsize_t>(global[0])};
  const std::vector<hsize_t> start{0, static_cast<hsize_t>(offset[2]), static_cast<hsize_t>(offset[1]),
                                   static_cast<hsize_t>(offset[0])};
  const std::vector<hsize_t> count{static_cast<hsize_t>(nvar), static_cast<hsize_t>(extent[2]),
                                   static_cast<hsize_t>(extent[1]), static_cast<hsize_t>(extent[0])};
  h5::Group group(H5Gopen2(file_.get(), kDataGroup, H5P_DEFAULT), "open group /data");
  h5::Dataset ds = make_dataset(group.get(), name, H5T_IEEE_F64LE, dims, "grid", what);
  write_block(ds.get(), H5T_NATIVE_DOUBLE, start, count, true, data.data(), dxpl_.get(), what);
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
    throw Error(where + std::to_string(counts[0]) +
                " rank(s) passed a bad atom or component count, or values not ncomp per id");
  }
  if (counts[1] > 0) throw Error(where + std::to_string(counts[1]) + " id(s) outside 1.." + std::to_string(natoms));
  if (counts[2] != natoms) {
    throw Error(where + "the ranks hold " + std::to_string(counts[2]) + " atoms in all, not " + std::to_string(natoms));
  }

  // 2. Records (file row, then ncomp values) to the ranks owning the rows.
  const std::size_t words = 1 + static_cast<std::size_t>(ncomp);
  std::vector<int> send_count(size_, 0), recv_count(size_, 0), send_displ(size_ + 1, 0), recv_displ(size_ + 1, 0);
  std::vector<int> owner(n);
  for (std::size_t i = 0; i < n; ++i) {
    owner[i] = row_owner(id[i] - 1, natoms, size_);
    ++send_count[owner[i]];
  }
  for (int r = 0; r < size_; ++r) send_displ[r + 1] = send_displ[r] + send_count[r];
  std::vector<char> send(std::max<std::size_t>(n * words * 8, 1));
  {
    std::vector<int> next(send_displ.begin(), send_displ.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
      char* p = &send[static_cast<std::size_t>(next[owner[i]]++) * words * 8];
      const std::int64_t row = id[i] - 1;
      std::memcpy(p, &row, 8);
      std::memcpy(p + 8, &values[i * (words - 1)], 8 * (words - 1));
    }
  }
  STRATUS_MPI_CHECK(MPI_Alltoall(send_count.data(), 1, MPI_INT, recv_count.data(), 1, MPI_INT, comm_));
  for (int r = 0; r < size_; ++r) recv_displ[r + 1] = recv_displ[r] + recv_count[r];
  const std::size_t nrecv = static_cast<std::size_t>(recv_displ[size_]);
  std::vector<char> recv(std::max<std::size_t>(nrecv * words * 8, 1));
  MPI_Datatype record = MPI_DATATYPE_NULL;
  STRATUS_MPI_CHECK(MPI_Type_contiguous(static_cast<int>(words * 8), MPI_BYTE, &record));
  STRATUS_MPI_CHECK(MPI_Type_commit(&record));
  const int rc = MPI_Alltoallv(send.data(), send_count.data(), send_displ.data(), record, recv.data(),
                               recv_count.data(), recv_displ.data(), record, comm_);
  MPI_Type_free(&record);
  STRATUS_MPI_CHECK(rc);

  // 3. This rank's block of rows, in row order; a row met twice means another is missing.
  const long long row0 = block_begin(rank_, natoms, size_);
  const std::size_t nloc = static_cast<std::size_t>(block_begin(rank_ + 1, natoms, size_) - row0);
  std::vector<T> block(nloc * (words - 1));
  std::vector<char> seen(nloc, 0);
  long long duplicates = 0;
  for (std::size_t k = 0; k < nrecv; ++k) {
    const char* p = &recv[k * words * 8];
    std::int64_t row = 0;
    std::memcpy(&row, p, 8);
    const std::size_t j = static_cast<std::size_t>(row - row0);
    if (seen[j]++) {
      ++duplicates;
      continue;
    }
    std::memcpy(&block[j * (words - 1)], p + 8, 8 * (words - 1));
  }
  STRATUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &duplicates, 1, MPI_LONG_LONG, MPI_SUM, comm_));
  if (duplicates > 0) {
    throw Error(where + std::to_string(duplicates) + " id(s) given more than once, so as many are missing");
  }

  // 4. One collective hyperslab write.
  const std::vector<hsize_t> dims{static_cast<hsize_t>(natoms), static_cast<hsize_t>(ncomp)};
  h5::Group group(H5Gopen2(file_.get(), kDataGroup, H5P_DEFAULT), "open group /data");
  h5::Dataset ds = make_dataset(group.get(), name, TypeOf<T>::file(), dims, "rows", what);
  write_block(ds.get(), TypeOf<T>::mem(), {static_cast<hsize_t>(row0), 0},
              {static_cast<hsize_t>(nloc), static_cast<hsize_t>(ncomp)}, true, block.data(), dxpl_.get(), what);
  ds.close("close " + what);
}

void CheckpointWriter::write_values(const std::string& name, const std::vector<double>& v) {
  claim(name);
  const std::string what = "dataset '" + name + "' in '" + tmp_ + "'";
  long long n = static_cast<long long>(v.size());
  STRATUS_MPI_CHECK(MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm_));
  h5::Group group(H5Gopen2(file_.get(), kDataGroup, H5P_DEFAULT), "open group /data");
  h5::Dataset ds = make_dataset(group.get(), name, H5T_IEEE_F64LE, {static_cast<hsize_t>(n)}, "values", what);
  write_block(ds.get(), H5T_NATIVE_DOUBLE, {0}, {static_cast<hsize_t>(n)}, rank_ == 0, v.data(), dxpl_.get(), what);
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
  file_.close("close '" + tmp_ + "'");

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

namespace {

struct Opened {
  h5::File file;
  CheckpointMeta meta;
  std::map<std::string, CheckpointReader::Entry> entries;
};

/// Returns id, or throws InputError("<what>: <HDF5's innermost message>") when it is negative (the message
/// is taken at once: any later HDF5 call, a close included, clears the error stack).
hid_t must(hid_t id, const std::string& what) {
  if (id < 0) throw InputError(what + ": " + h5::last_error());
  return id;
}

/// A scalar attribute; throws InputError (text without the file name) if absent, unreadable or of
/// another kind.
h5::Attribute open_scalar_attribute(hid_t obj, const std::string& name, H5T_class_t cls, h5::Datatype& type) {
  const htri_t exists = must(H5Aexists(obj, name.c_str()), "cannot look up attribute '" + name + "'");
  if (exists == 0) throw InputError("attribute '" + name + "' is missing");
  h5::Attribute a(must(H5Aopen(obj, name.c_str(), H5P_DEFAULT), "cannot open attribute '" + name + "'"), "");
  type = h5::Datatype(H5Aget_type(a.get()), "get type of attribute '" + name + "'");
  h5::Dataspace space(H5Aget_space(a.get()), "get dataspace of attribute '" + name + "'");
  if (H5Sget_simple_extent_type(space.get()) != H5S_SCALAR || H5Tget_class(type.get()) != cls) {
    throw InputError("attribute '" + name + "' is not a scalar of the expected type");
  }
  return a;
}

std::string read_string_attribute(hid_t obj, const std::string& name) {
  h5::Datatype t;
  h5::Attribute a = open_scalar_attribute(obj, name, H5T_STRING, t);
  const std::size_t size = H5Tget_size(t.get());
  if (H5Tis_variable_str(t.get()) != 0 || size == 0 || size > kMaxStringBytes) {
    throw InputError("attribute '" + name + "' is not a fixed-length string of a sensible size");
  }
  std::vector<char> buf(size + 1, '\0');
  must(H5Aread(a.get(), t.get(), buf.data()), "cannot read attribute '" + name + "'");
  return std::string(buf.data(), strnlen(buf.data(), size));
}

long long read_int_attribute(hid_t obj, const std::string& name) {
  h5::Datatype t;
  h5::Attribute a = open_scalar_attribute(obj, name, H5T_INTEGER, t);
  if (H5Tget_size(t.get()) > 8) throw InputError("attribute '" + name + "' is wider than 64 bits");
  long long v = 0;
  must(H5Aread(a.get(), H5T_NATIVE_LLONG, &v), "cannot read attribute '" + name + "'");
  return v;
}

double read_double_attribute(hid_t obj, const std::string& name) {
  h5::Datatype t;
  h5::Attribute a = open_scalar_attribute(obj, name, H5T_FLOAT, t);
  double v = 0.0;
  must(H5Aread(a.get(), H5T_NATIVE_DOUBLE, &v), "cannot read attribute '" + name + "'");
  return v;
}

struct Visit {
  std::vector<std::string> datasets;
  std::string bad;  // first object that is neither a group nor a dataset, or a link that is not hard
};

herr_t visit_link(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  auto* v = static_cast<Visit*>(data);
  if (info->type != H5L_TYPE_HARD) {
    v->bad = name;
    return 1;
  }
  const hid_t obj = H5Oopen(group, name, H5P_DEFAULT);
  if (obj < 0) {
    v->bad = name;
    return 1;
  }
  const H5I_type_t type = H5Iget_type(obj);
  H5Oclose(obj);
  if (type == H5I_DATASET) {
    v->datasets.push_back(name);
  } else if (type != H5I_GROUP) {
    v->bad = name;
    return 1;
  }
  return 0;
}

/// The creation property list of a dataset; InputError unless it is chunked with Fletcher32.
h5::PropList checksummed_layout(hid_t ds) {
  h5::PropList dcpl(must(H5Dget_create_plist(ds), "cannot get the creation properties"), "");
  if (H5Pget_layout(dcpl.get()) != H5D_CHUNKED) throw InputError("not chunked");
  unsigned flags = 0, config = 0;
  std::size_t nelmts = 0;
  char name[64];
  if (H5Pget_filter_by_id2(dcpl.get(), H5Z_FILTER_FLETCHER32, &flags, &nelmts, nullptr, sizeof name, name, &config) <
      0) {
    throw InputError("no Fletcher32 checksum filter");
  }
  return dcpl;
}

/// The text of dataset /deck: one fixed-length string, chunked with Fletcher32.
std::string read_deck(hid_t file) {
  if (must(H5Lexists(file, "deck", H5P_DEFAULT), "has unreadable metadata") == 0) {
    throw InputError("has no dataset /deck");
  }
  h5::Dataset ds(must(H5Dopen2(file, "deck", H5P_DEFAULT), "cannot open dataset /deck"), "");
  h5::Datatype t(must(H5Dget_type(ds.get()), "cannot get the type of /deck"), "");
  const std::size_t size = H5Tget_size(t.get());
  h5::Dataspace space(must(H5Dget_space(ds.get()), "cannot get the dataspace of /deck"), "");
  hsize_t n = 0;
  if (H5Tget_class(t.get()) != H5T_STRING || H5Tis_variable_str(t.get()) != 0 || size == 0 || size > kMaxStringBytes ||
      H5Sget_simple_extent_ndims(space.get()) != 1 || H5Sget_simple_extent_dims(space.get(), &n, nullptr) != 1 ||
      n != 1) {
    throw InputError("has a dataset /deck that is not one fixed-length string");
  }
  checksummed_layout(ds.get());
  std::vector<char> buf(size + 1, '\0');
  must(H5Dread(ds.get(), t.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()), "cannot read dataset /deck");
  return std::string(buf.data(), strnlen(buf.data(), size));
}

/// Structure of one dataset (same outcome on every rank): kind, type, extents, chunking and filter.
/// Throws InputError (text without the file name). Returns the chunk extents (empty: nothing to read).
std::vector<hsize_t> inspect_dataset(hid_t ds, CheckpointReader::Entry& e) {
  e.kind = read_string_attribute(ds, "kind");
  int want_rank = 0;
  if (e.kind == "grid") {
    want_rank = 4;
  } else if (e.kind == "rows") {
    want_rank = 2;
  } else if (e.kind == "values") {
    want_rank = 1;
  } else {
    throw InputError("unknown kind '" + e.kind + "'");
  }
  h5::Datatype t(H5Dget_type(ds), "get dataset type");
  const H5T_class_t cls = H5Tget_class(t.get());
  if (H5Tget_size(t.get()) != 8 || (cls != H5T_FLOAT && cls != H5T_INTEGER) ||
      (cls == H5T_INTEGER && H5Tget_sign(t.get()) != H5T_SGN_2) || (cls == H5T_INTEGER && e.kind != "rows")) {
    throw InputError("type is not float64" + std::string(e.kind == "rows" ? " or int64" : ""));
  }
  e.integer = cls == H5T_INTEGER;
  h5::Dataspace space(H5Dget_space(ds), "get dataset dataspace");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank != want_rank) throw InputError(std::to_string(rank) + " dimensions, not " + std::to_string(want_rank));
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  long double elements = 1;
  for (hsize_t d : dims) {
    if (d > static_cast<hsize_t>(LLONG_MAX)) throw InputError("an extent is out of range");
    e.dims.push_back(static_cast<long long>(d));
    elements *= static_cast<long double>(d);
  }
  if (elements > static_cast<long double>(LLONG_MAX) / 8) throw InputError("more elements than can be held");
  if (elements == 0) return {};

  h5::PropList dcpl = checksummed_layout(ds);
  std::vector<hsize_t> chunk(dims.size());
  if (H5Pget_chunk(dcpl.get(), rank, chunk.data()) != rank) throw InputError("unreadable chunk extents");
  long double chunk_bytes = 8, nchunks = 1;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (chunk[d] == 0) throw InputError("a chunk extent is 0");
    chunk_bytes *= static_cast<long double>(chunk[d]);
    nchunks *= static_cast<long double>((dims[d] + chunk[d] - 1) / chunk[d]);
  }
  if (chunk_bytes > static_cast<long double>(kMaxChunkBytes)) throw InputError("chunks are too large");
  // Chunks never written would read as fill values without complaint; they must all be there.
  hsize_t stored = 0;
  h5::check_status(H5Dget_num_chunks(ds, space.get(), &stored), "count the stored chunks");
  if (static_cast<long double>(stored) != nchunks) {
    throw InputError(std::to_string(stored) + " of " + std::to_string(static_cast<unsigned long long>(nchunks)) +
                     " chunks are stored");
  }
  return chunk;
}

/// Reads chunks [first, last) (linear chunk index, last dimension fastest) of a dataset, independently,
/// so that their checksums are verified. Throws Error with HDF5's message on failure.
void read_chunks(hid_t ds, const std::vector<hsize_t>& dims, const std::vector<hsize_t>& chunk, bool integer,
                 unsigned long long first, unsigned long long last) {
  const std::size_t rank = dims.size();
  std::vector<hsize_t> per(rank);
  hsize_t chunk_elems = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    per[d] = (dims[d] + chunk[d] - 1) / chunk[d];
    chunk_elems *= chunk[d];
  }
  std::vector<char> buf(static_cast<std::size_t>(chunk_elems) * 8);
  h5::Dataspace filespace(H5Dget_space(ds), "get dataset dataspace");
  std::vector<hsize_t> start(rank), count(rank);
  for (unsigned long long c = first; c < last; ++c) {
    unsigned long long rest = c;
    for (std::size_t d = rank; d-- > 0;) {
      const hsize_t idx = rest % per[d];
      rest /= per[d];
      start[d] = idx * chunk[d];
      count[d] = std::min(chunk[d], dims[d] - start[d]);
    }
    h5::Dataspace mem(H5Screate_simple(static_cast<int>(rank), count.data(), nullptr), "create memory dataspace");
    h5::check_status(H5Sselect_hyperslab(filespace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
                     "select a chunk");
    if (H5Dread(ds, integer ? H5T_NATIVE_LLONG : H5T_NATIVE_DOUBLE, mem.get(), filespace.get(), H5P_DEFAULT,
                buf.data()) < 0) {
      const std::string why = h5::last_error();
      throw Error("data cannot be read" + (why.empty() ? std::string() : ": " + why));
    }
  }
}

/// Collective. Opens `path` read-only through MPI-IO and validates it (physics too unless expected is
/// null). Throws the same InputError, naming the file, on every rank.
Opened open_and_validate(MPI_Comm comm, const std::string& path, const std::string* expected) {
  int rank = 0, size = 1;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  STRATUS_MPI_CHECK(MPI_Comm_size(comm, &size));
  const std::string file_msg = "checkpoint '" + path + "'";
  h5::QuietErrors quiet;

  // 1. Rank 0 looks at the file system first, for a plain message when there is no file.
  std::string msg;
  bool ok = true;
  if (rank == 0) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      ok = false;
      msg = file_msg + " does not exist";
    } else if (!fs::is_regular_file(path, ec)) {
      ok = false;
      msg = file_msg + " is not a regular file";
    }
  }
  if (!all_ok(comm, ok, msg)) throw InputError(msg);

  // 2. Open: fails alike on every rank for a file that is not HDF5 or is truncated (HDF5 compares the
  //    file's size with the end of data recorded in the superblock).
  Opened o;
  {
    h5::PropList fapl(H5Pcreate(H5P_FILE_ACCESS), "create file access property list");
    h5::check_status(H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL), "select MPI-IO for '" + path + "'");
    const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl.get());
    const std::string why = id < 0 ? h5::last_error() : std::string();
    int opened = id >= 0 ? 1 : 0;
    STRATUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &opened, 1, MPI_INT, MPI_MIN, comm));
    if (!opened) {
      // A rank whose open succeeded leaves it open: closing is collective (the split should not occur).
      throw InputError(file_msg + " is not a readable HDF5 file" + (why.empty() ? "" : ": " + why));
    }
    o.file = h5::File(id, "open '" + path + "'");
  }

  // 3. Metadata and structure: the same bytes on every rank, so the same outcome; then the data, each
  //    rank reading its share of every dataset's chunks.
  std::vector<std::string> names;
  try {
    const hid_t f = o.file.get();
    if (must(H5Aexists(f, "format"), "has unreadable metadata") == 0) {
      throw InputError("is not a Stratus checkpoint (no format attribute)");
    }
    const std::string format = read_string_attribute(f, "format");
    if (format != kFormat) throw InputError("is not a Stratus checkpoint (format '" + format + "')");
    const long long version = read_int_attribute(f, "format_version");
    if (version != kFormatVersion) {
      throw InputError("has format version " + std::to_string(version) + ", this build reads version " +
                       std::to_string(kFormatVersion));
    }
    o.meta.physics = read_string_attribute(f, "physics");
    if (expected && o.meta.physics != *expected) {
      throw InputError("is for physics '" + o.meta.physics + "', the deck runs '" + *expected + "'");
    }
    o.meta.step = static_cast<long>(read_int_attribute(f, "step"));
    o.meta.time = read_double_attribute(f, "time");
    o.meta.nranks = static_cast<int>(read_int_attribute(f, "nranks"));
    o.meta.stratus_version = read_string_attribute(f, "stratus_version");
    o.meta.git_hash = read_string_attribute(f, "git_hash");
    o.meta.deck_text = read_deck(f);
    if (o.meta.step < 0 || o.meta.nranks < 1) throw InputError("has a negative step or no ranks");

    if (must(H5Lexists(f, kDataGroup, H5P_DEFAULT), "has unreadable metadata") == 0) {
      throw InputError("has no group /data");
    }
    h5::Group data(must(H5Gopen2(f, kDataGroup, H5P_DEFAULT), "cannot open group /data"), "");
    Visit visit;
    if (H5Lvisit(data.get(), H5_INDEX_NAME, H5_ITER_INC, visit_link, &visit) < 0 && visit.bad.empty()) {
      throw InputError("has an unreadable group /data: " + h5::last_error());
    }
    if (!visit.bad.empty()) throw InputError("holds an unexpected object /data/" + visit.bad);
    names = visit.datasets;
  } catch (const InputError& e) {
    ok = false;
    msg = file_msg + " " + e.what();
  } catch (const Error& e) {
    ok = false;
    const std::string why = h5::last_error();
    msg = file_msg + " has unreadable metadata: " + e.what() + (why.empty() ? "" : " (" + why + ")");
  }
  if (!all_ok(comm, ok, msg)) throw InputError(msg);

  h5::Group data(H5Gopen2(o.file.get(), kDataGroup, H5P_DEFAULT), "open group /data");
  for (const auto& name : names) {
    CheckpointReader::Entry e;
    try {
      h5::Dataset ds(must(H5Dopen2(data.get(), name.c_str(), H5P_DEFAULT), "cannot open"), "");
      const std::vector<hsize_t> chunk = inspect_dataset(ds.get(), e);
      if (!chunk.empty() && ok) {
        std::vector<hsize_t> dims(e.dims.begin(), e.dims.end());
        unsigned long long nchunks = 1;
        for (std::size_t d = 0; d < dims.size(); ++d) nchunks *= (dims[d] + chunk[d] - 1) / chunk[d];
        const unsigned long long first = nchunks * static_cast<unsigned long long>(rank) / size;
        const unsigned long long last = nchunks * static_cast<unsigned long long>(rank + 1) / size;
        read_chunks(ds.get(), dims, chunk, e.integer, first, last);
      }
    } catch (const std::exception& ex) {
      // A structural failure occurs on every rank, a read failure perhaps on one: either way this rank
      // goes on taking part in the (non-collective) loop until the agreement below.
      if (ok) {
        const std::string why = dynamic_cast<const InputError*>(&ex) ? std::string() : h5::last_error();
        msg = file_msg + ": dataset '" + name + "': " + ex.what() +
              (why.empty() || std::string(ex.what()).find(why) != std::string::npos ? "" : " (" + why + ")");
      }
      ok = false;
      continue;
    }
    o.entries.emplace(name, std::move(e));
  }
  if (!all_ok(comm, ok, msg)) throw InputError(msg);
  return o;
}

}  // namespace

std::string newest_checkpoint(MPI_Comm comm, const std::string& dir, const std::string& name) {
  int rank = 0;
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  std::string list;
  if (rank == 0) {
    const std::vector<SeriesFile> files = list_series(dir, name);
    for (auto it = files.rbegin(); it != files.rend(); ++it) list += it->path + '\n';
  }
  list = bcast_string(comm, list);
  std::size_t start = 0;
  while (start < list.size()) {
    const std::size_t end = list.find('\n', start);
    const std::string path = list.substr(start, end - start);
    start = end + 1;
    try {
      open_and_validate(comm, path, nullptr);
      return path;
    } catch (const InputError& e) {
      if (rank == 0) log::warn(std::string("ignoring an invalid checkpoint: ") + e.what());
    }
  }
  return "";
}

CheckpointReader::CheckpointReader(MPI_Comm comm, const std::string& path, const std::string& expected_physics)
    : comm_(comm), path_(path) {
  Opened o = open_and_validate(comm, path, &expected_physics);
  file_ = std::move(o.file);
  meta_ = std::move(o.meta);
  entries_ = std::move(o.entries);
  dxpl_ = h5::PropList(H5Pcreate(H5P_DATASET_XFER), "create transfer property list");
  h5::check_status(H5Pset_dxpl_mpio(dxpl_.get(), H5FD_MPIO_COLLECTIVE), "select collective transfer");
}

CheckpointReader::~CheckpointReader() = default;

bool CheckpointReader::has(const std::string& name) const { return entries_.count(name) > 0; }

const CheckpointReader::Entry& CheckpointReader::entry(const std::string& name, const char* kind) const {
  const auto it = entries_.find(name);
  if (it == entries_.end()) throw InputError("checkpoint '" + path_ + "' has no dataset '" + name + "'");
  if (it->second.kind != kind) {
    throw InputError("checkpoint '" + path_ + "': dataset '" + name + "' holds " + it->second.kind + ", not " + kind);
  }
  return it->second;
}

long long CheckpointReader::rows(const std::string& name) const { return entry(name, "rows").dims[0]; }

namespace {

/// Collectively reads the block `count` at `start` of dataset /data/name (select false: nothing).
void read_block(hid_t file, const std::string& path, const std::string& name, hid_t mem_type,
                const std::vector<hsize_t>& start, const std::vector<hsize_t>& count, bool select, void* buf,
                hid_t dxpl) {
  h5::QuietErrors quiet;
  const std::string what = "dataset '" + name + "' of checkpoint '" + path + "'";
  h5::Dataset ds(H5Dopen2(file, (std::string(kDataGroup) + "/" + name).c_str(), H5P_DEFAULT), "open " + what);
  h5::Dataspace filespace(H5Dget_space(ds.get()), "get dataspace of " + what);
  if (H5Sget_simple_extent_npoints(filespace.get()) == 0) return;  // no storage, nothing to read
  h5::Dataspace memspace(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr),
                         "create memory dataspace for " + what);
  for (hsize_t c : count) select = select && c > 0;
  if (select) {
    h5::check_status(H5Sselect_hyperslab(filespace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr),
                     "select hyperslab of " + what);
  } else {
    h5::check_status(H5Sselect_none(filespace.get()), "select nothing in " + what);
    h5::check_status(H5Sselect_none(memspace.get()), "select nothing in memory for " + what);
  }
  double dummy = 0.0;
  if (H5Dread(ds.get(), mem_type, memspace.get(), filespace.get(), dxpl, select ? buf : &dummy) < 0) {
    throw InputError("cannot read " + what + ": " + h5::last_error());
  }
}

}  // namespace

std::vector<double> CheckpointReader::read_grid(const std::string& name, int nvar, Int3 global, Int3 offset,
                                                Int3 extent) {
  const Entry& e = entry(name, "grid");
  const std::vector<long long> want{nvar, global[2], global[1], global[0]};
  if (e.dims != want) {
    throw InputError("checkpoint '" + path_ + "': grid '" + name + "' is " + std::to_string(e.dims[0]) + " x " +
                     std::to_string(e.dims[3]) + " x " + std::to_string(e.dims[2]) + " x " + std::to_string(e.dims[1]) +
                     " (variables x nx x ny x nz), the run needs " + std::to_string(nvar) + " x " +
                     std::to_string(global[0]) + " x " + std::to_string(global[1]) + " x " + std::to_string(global[2]));
  }
  bool ok = true;
  std::string msg;
  for (int d = 0; d < 3; ++d) {
    if (offset[d] < 0 || extent[d] < 0 || offset[d] > global[d] - extent[d]) ok = false;
  }
  if (!ok) msg = "checkpoint '" + path_ + "': grid '" + name + "': a rank asked for a box outside the grid";
  if (!all_ok(comm_, ok, msg)) throw Error(msg);
  std::vector<double> out(static_cast<std::size_t>(nvar) * extent[0] * extent[1] * extent[2]);
  read_block(file_.get(), path_, name, H5T_NATIVE_DOUBLE,
             {0, static_cast<hsize_t>(offset[2]), static_cast<hsize_t>(offset[1]), static_cast<hsize_t>(offset[0])},
             {static_cast<hsize_t>(nvar), static_cast<hsize_t>(extent[2]), static_cast<hsize_t>(extent[1]),
              static_cast<hsize_t>(extent[0])},
             true, out.data(), dxpl_.get());
  return out;
}

template <class T>
std::vector<T> CheckpointReader::read_rows_impl(const std::string& name, long long first, long long count, int ncomp,
                                                bool integer) {
  const Entry& e = entry(name, "rows");
  if (e.integer != integer) {
    throw InputError("checkpoint '" + path_ + "': rows '" + name + "' hold " +
                     (e.integer ? "integers" : "floating-point values") + ", not " +
                     (integer ? "integers" : "floating-point values"));
  }
  if (e.dims[1] != ncomp) {
    throw InputError("checkpoint '" + path_ + "': rows '" + name + "' have " + std::to_string(e.dims[1]) +
                     " components, the run needs " + std::to_string(ncomp));
  }
  const bool ok = first >= 0 && count >= 0 && first <= e.dims[0] - count;
  std::string msg =
      ok ? std::string()
         : "checkpoint '" + path_ + "': rows '" + name + "': a rank asked for rows beyond " + std::to_string(e.dims[0]);
  if (!all_ok(comm_, ok, msg)) throw Error(msg);
  std::vector<T> out(static_cast<std::size_t>(count) * static_cast<std::size_t>(ncomp));
  read_block(file_.get(), path_, name, TypeOf<T>::mem(), {static_cast<hsize_t>(first), 0},
             {static_cast<hsize_t>(count), static_cast<hsize_t>(ncomp)}, true, out.data(), dxpl_.get());
  return out;
}

std::vector<double> CheckpointReader::read_rows(const std::string& name, long long first, long long count, int ncomp) {
  return read_rows_impl<double>(name, first, count, ncomp, false);
}

std::vector<long long> CheckpointReader::read_rows_int(const std::string& name, long long first, long long count,
                                                       int ncomp) {
  return read_rows_impl<long long>(name, first, count, ncomp, true);
}

std::vector<double> CheckpointReader::read_values(const std::string& name) {
  const Entry& e = entry(name, "values");
  std::vector<double> out(static_cast<std::size_t>(e.dims[0]));
  read_block(file_.get(), path_, name, H5T_NATIVE_DOUBLE, {0}, {static_cast<hsize_t>(e.dims[0])}, true, out.data(),
             dxpl_.get());
  return out;
}

}  // namespace stratus
