// Opening and validating a checkpoint (io/checkpoint_detail.hpp: open_and_validate).
//
// The file is never trusted. Every rank reads the same metadata (so structural checks come out alike
// everywhere), the chunks of every dataset are spread over the ranks and read independently (so a
// checksum failure stays local until the ranks agree, and each byte is read once in all), and one
// agreement turns the first failure into the same InputError on every rank. HDF5's automatic error
// printing is off throughout; its innermost message is appended to ours.
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <climits>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/agree.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "io/checkpoint.hpp"
#include "io/checkpoint_detail.hpp"

namespace stratus::checkpoint_detail {

namespace fs = std::filesystem;

namespace {


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

}  // namespace

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
    // Steps travel through doubles (the history table) and the time must be a time.
    if (o.meta.step > (1LL << 53)) throw InputError("has step " + std::to_string(o.meta.step) + ", beyond 2^53");
    if (!std::isfinite(o.meta.time) || o.meta.time < 0.0)
      throw InputError("has time " + std::to_string(o.meta.time) + ", not a finite time >= 0");

    if (must(H5Lexists(f, kDataGroup, H5P_DEFAULT), "has unreadable metadata") == 0) {
      throw InputError("has no group /data");
    }
    h5::Group data(must(H5Gopen2(f, kDataGroup, H5P_DEFAULT), "cannot open group /data"), "");
    // Checkpoints keep the links of /data in its checksummed object header; links in a fractal heap
    // (dense storage) have no checksum, and HDF5 crashed iterating a damaged one.
    H5G_info_t info{};
    must(H5Gget_info(data.get(), &info), "has unreadable metadata");
    if (info.storage_type != H5G_STORAGE_TYPE_COMPACT)
      throw InputError("keeps the links of /data in a form Stratus does not write (a damaged file?)");
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

}  // namespace stratus::checkpoint_detail
