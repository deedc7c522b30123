// H5mdWriter (io/h5md.hpp). Each frame is one MPI_Alltoallv that sends every atom to the rank owning its
// file row (rank r owns the contiguous rows [r N / P, (r + 1) N / P)), after which every rank writes one
// hyperslab per dataset collectively; point selections, which parallel HDF5 handles slowly, are never
// used. Argument checks are agreed through MPI_Allreduce and rank 0's file-system outcomes through
// MPI_Bcast before anyone throws, so a bad frame raises the same Error on every rank instead of leaving
// the others in a collective. HDF5 failures inside collective calls are assumed to occur on every rank
// alike, as parallel HDF5 itself assumes. Nothing here reads a trajectory back.
#include "io/h5md.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "core/agree.hpp"
#include "core/error.hpp"
#include "io/h5_parallel.hpp"
#include "io/hdf5_util.hpp"
#include "io/row_exchange.hpp"
#include "io/space.hpp"
#include "io/xdmf.hpp"
#include "stratus/version.hpp"

namespace stratus {

namespace fs = std::filesystem;

namespace {

/// True for units H5MD readers cannot know: empty, or made only of the reduced Lennard-Jones symbols.
bool is_reduced_unit(const std::string& unit) {
  std::string word;
  const auto reduced_word = [](const std::string& w) {
    return w.empty() || w == "sigma" || w == "tau" || w == "epsilon";
  };
  for (char c : unit) {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      word += c;
      continue;
    }
    if (!reduced_word(word)) return false;
    word.clear();
    if (c == '\0' || !std::strchr(" */^-+()0123456789.", c)) return false;
  }
  return reduced_word(word);
}

/// Variable-length UTF-8 string attribute, scalar (`array` false, one value) or a 1-D array. H5MD readers
/// built on h5py need this kind: h5py returns fixed-length strings as bytes, which MDAnalysis does not
/// match against its unit names.
void write_text_attribute(hid_t obj, const std::string& name, const std::vector<std::string>& values, bool array) {
  const std::string what = "attribute '" + name + "'";
  h5::Datatype t(H5Tcopy(H5T_C_S1), "copy string type");
  h5::check_status(H5Tset_size(t.get(), H5T_VARIABLE), "make string type variable-length");
  h5::check_status(H5Tset_cset(t.get(), H5T_CSET_UTF8), "set string character set");
  const hsize_t dims[1] = {values.size()};
  h5::Dataspace space(array ? H5Screate_simple(1, dims, nullptr) : H5Screate(H5S_SCALAR),
                      "create dataspace for " + what);
  std::vector<const char*> ptrs;
  for (const auto& v : values) ptrs.push_back(v.c_str());
  h5::Attribute attr(H5Acreate2(obj, name.c_str(), t.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), "create " + what);
  h5::check_status(H5Awrite(attr.get(), t.get(), ptrs.data()), "write " + what);
  attr.close("close " + what);
}

void write_text_attribute(hid_t obj, const std::string& name, const std::string& value) {
  write_text_attribute(obj, name, {value}, false);
}

void write_unit(hid_t obj, const std::string& unit) {
  if (!is_reduced_unit(unit)) write_text_attribute(obj, "unit", unit);
}

h5::Group make_group(hid_t loc, const std::string& name) {
  return h5::Group(H5Gcreate2(loc, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "create group " + name);
}

/// A chunked dataset whose first dimension starts at 0 and is unlimited; `tail` gives the other extents.
h5::Dataset make_series(hid_t loc, const std::string& name, hid_t file_type, const std::vector<hsize_t>& tail,
                        const std::vector<hsize_t>& chunk) {
  std::vector<hsize_t> dims{0}, maxdims{H5S_UNLIMITED};
  dims.insert(dims.end(), tail.begin(), tail.end());
  maxdims.insert(maxdims.end(), tail.begin(), tail.end());
  const int rank = static_cast<int>(dims.size());
  h5::Dataspace space(H5Screate_simple(rank, dims.data(), maxdims.data()), "create dataspace for " + name);
  h5::PropList dcpl(H5Pcreate(H5P_DATASET_CREATE), "create dataset creation property list");
  h5::check_status(H5Pset_chunk(dcpl.get(), rank, chunk.data()), "set chunking of " + name);
  // Every element of an appended frame is written, so filling chunks first would only double the I/O.
  h5::check_status(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), "disable fill values of " + name);
  return h5::Dataset(H5Dcreate2(loc, name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                     "create dataset " + name);
}

h5::Dataset make_fixed(hid_t loc, const std::string& name, hid_t file_type, hsize_t n) {
  const hsize_t dims[1] = {n};
  h5::Dataspace space(H5Screate_simple(1, dims, nullptr), "create dataspace for " + name);
  h5::PropList dcpl(H5Pcreate(H5P_DATASET_CREATE), "create dataset creation property list");
  h5::check_status(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), "disable fill values of " + name);
  return h5::Dataset(H5Dcreate2(loc, name.c_str(), file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                     "create dataset " + name);
}

/// Collectively grows dataset `name` to `dims` and writes `count` elements at `start` from `buf` (a
/// contiguous block of that shape); a rank with select == false takes part with nothing selected.
void write_block(hid_t loc, const std::string& name, hid_t mem_type, const std::vector<hsize_t>& dims,
                 const std::vector<hsize_t>& start, const std::vector<hsize_t>& count, bool select, const void* buf,
                 hid_t dxpl, bool extend) {
  h5::Dataset ds(H5Dopen2(loc, name.c_str(), H5P_DEFAULT), "open dataset " + name);
  if (extend) h5::check_status(H5Dset_extent(ds.get(), dims.data()), "extend dataset " + name);
  h5::write_selection(ds.get(), mem_type, start, count, select, buf, dxpl, "dataset " + name);
  ds.close("close dataset " + name);
}

/// Wraps x into [lo, hi); values inside are left bit-for-bit unchanged.
double wrap(double x, double lo, double hi) {
  if (!(x < lo || x >= hi) || !std::isfinite(x)) return x;
  const double len = hi - lo;
  x -= len * std::floor((x - lo) / len);
  if (x >= hi || x < lo) x = lo;  // rounding at the boundary
  return x;
}

/// A DataItem of the rows [frame, 0:N, 0:3] of a (frames, N, 3) double dataset.
std::string frame_slab(const std::string& ref, long frame, long nframes, long long n, const std::string& pad) {
  std::ostringstream os;
  os << pad << "<DataItem ItemType=\"HyperSlab\" Dimensions=\"" << n << " 3\" Type=\"HyperSlab\">\n"
     << pad << "  <DataItem Dimensions=\"3 3\" Format=\"XML\">" << frame << " 0 0 1 1 1 1 " << n << " 3</DataItem>\n"
     << pad << "  <DataItem Dimensions=\"" << nframes << " " << n << " 3\" NumberType=\"Float\" Precision=\"8\" "
     << "Format=\"HDF\">" << ref << "</DataItem>\n"
     << pad << "</DataItem>\n";
  return os.str();
}

}  // namespace

H5mdWriter::H5mdWriter(MPI_Comm comm, const std::string& path, const H5mdSpec& spec)
    : comm_(comm), path_(path), spec_(spec) {
  STRATUS_MPI_CHECK(MPI_Comm_rank(comm, &rank_));
  STRATUS_MPI_CHECK(MPI_Comm_size(comm, &size_));
  STRATUS_REQUIRE(spec_.natoms > 0 && spec_.natoms <= LLONG_MAX / size_,
                  "H5MD '" << path << "': natoms must be in 1.." << LLONG_MAX / size_ << ", got " << spec_.natoms);
  for (int d = 0; d < 3; ++d) {
    STRATUS_REQUIRE(spec_.hi[d] > spec_.lo[d], "H5MD '" << path << "': empty box in direction " << d);
  }
  STRATUS_REQUIRE(!spec_.particle_group.empty() && spec_.particle_group.find('/') == std::string::npos &&
                      spec_.particle_group != ".",
                  "H5MD '" << path << "': invalid particle group '" << spec_.particle_group << "'");
  if (spec_.creator_version.empty()) spec_.creator_version = kVersion;
  if (spec_.author.empty() && rank_ == 0) {
    const char* user = std::getenv("USER");
    spec_.author = user && *user ? user : "unknown";
  }
  // Attribute values must agree on every rank.
  spec_.author = bcast_string(comm_, spec_.author);
  xdmf_path_ = fs::path(path_).replace_extension(".xmf").string();

  bool ok = true;
  std::string msg;
  if (rank_ == 0) {
    const fs::path parent = fs::path(path_).parent_path();
    std::error_code ec;
    if (!parent.empty()) fs::create_directories(parent, ec);
    if (ec || (!parent.empty() && !fs::is_directory(parent))) {
      ok = false;
      msg = "cannot create directory '" + parent.string() + "' for H5MD file '" + path_ +
            "': " + (ec ? ec.message() : "not a directory");
    }
  }
  agree_or_throw(comm_, ok, msg);

  const double t0 = MPI_Wtime();
  reserve_space(comm_, path_, with_metadata(16.0 * static_cast<double>(spec_.natoms)));
  h5::File file = h5::open_parallel(comm_, path_, true, "H5MD");
  {
    h5::Group h5md = make_group(file.get(), "h5md");
    const int version[2] = {1, 1};
    h5::write_attribute_i32(h5md.get(), "version", version, 2);
    h5::Group author = make_group(h5md.get(), "author");
    write_text_attribute(author.get(), "name", spec_.author);
    h5::Group creator = make_group(h5md.get(), "creator");
    write_text_attribute(creator.get(), "name", "Stratus");
    write_text_attribute(creator.get(), "version", spec_.creator_version);
  }
  {
    // What the H5MD elements do not carry: the box origin and the unit strings as given.
    h5::Group params = make_group(file.get(), "parameters");
    h5::write_attribute_f64(params.get(), "box_lo", spec_.lo.data(), 3);
    h5::write_attribute(params.get(), "length_unit", spec_.length_unit);
    h5::write_attribute(params.get(), "time_unit", spec_.time_unit);
    h5::write_attribute(params.get(), "velocity_unit", spec_.velocity_unit);
    h5::write_attribute(params.get(), "force_unit", spec_.force_unit);
    h5::write_attribute(params.get(), "stratus_version", kVersion);
    h5::write_attribute(params.get(), "git_hash", kGitHash);
  }
  h5::Group particles = make_group(file.get(), "particles");
  h5::Group group = make_group(particles.get(), spec_.particle_group);
  const hsize_t n = static_cast<hsize_t>(spec_.natoms);
  // At most 1.5 MiB per chunk: one chunk per frame up to 65536 atoms, 65536-atom slices of a frame beyond.
  const std::vector<hsize_t> row_chunk{1, std::min<hsize_t>(n, 65536), 3};

  h5::Group position = make_group(group.get(), "position");
  {
    h5::Dataset step = make_series(position.get(), "step", H5T_STD_I64LE, {}, {1024});
    h5::Dataset time = make_series(position.get(), "time", H5T_IEEE_F64LE, {}, {1024});
    write_unit(time.get(), spec_.time_unit);
    h5::Dataset value = make_series(position.get(), "value", H5T_IEEE_F64LE, {n, 3}, row_chunk);
    write_unit(value.get(), spec_.length_unit);
  }
  const auto share_clock = [&position](hid_t element, const std::string& name) {
    for (const char* d : {"step", "time"}) {
      h5::check_status(H5Lcreate_hard(position.get(), d, element, d, H5P_DEFAULT, H5P_DEFAULT),
                       "link " + name + "/" + d + " to position/" + d);
    }
  };
  const auto make_vector_element = [&](const std::string& name, const std::string& unit) {
    h5::Group element = make_group(group.get(), name);
    share_clock(element.get(), name);
    h5::Dataset value = make_series(element.get(), "value", H5T_IEEE_F64LE, {n, 3}, row_chunk);
    write_unit(value.get(), unit);
  };
  if (spec_.velocities) make_vector_element("velocity", spec_.velocity_unit);
  if (spec_.forces) make_vector_element("force", spec_.force_unit);
  if (spec_.images) {
    h5::Group element = make_group(group.get(), "image");
    share_clock(element.get(), "image");
    make_series(element.get(), "value", H5T_STD_I32LE, {n, 3}, row_chunk).close("close dataset image/value");
  }
  {
    h5::Group box = make_group(group.get(), "box");
    h5::write_attribute_i32(box.get(), "dimension", 3);
    std::vector<std::string> boundary;
    for (bool p : spec_.periodic) boundary.push_back(p ? "periodic" : "none");
    write_text_attribute(box.get(), "boundary", boundary, true);
    // Time-dependent and in matrix form: MDAnalysis reads box/edges/value[frame] as three edge vectors.
    h5::Group edges = make_group(box.get(), "edges");
    share_clock(edges.get(), "box/edges");
    h5::Dataset value = make_series(edges.get(), "value", H5T_IEEE_F64LE, {3, 3}, {64, 3, 3});
    write_unit(value.get(), spec_.length_unit);
  }
  make_fixed(group.get(), "species", H5T_STD_I32LE, n).close("close dataset species");
  make_fixed(group.get(), "id", H5T_STD_I64LE, n).close("close dataset id");
  if (spec_.charges) {
    h5::Dataset q = make_fixed(group.get(), "charge", H5T_IEEE_F64LE, n);
    write_unit(q.get(), spec_.charge_unit);
    q.close("close dataset charge");
  }
  group.close("close particle group");
  particles.close("close group particles");
  position.close("close group position");
  file.close("close '" + path_ + "'");
  seconds_ += MPI_Wtime() - t0;
}

void H5mdWriter::write_frame(long step, double time, HostSpan<long long> id, HostSpan<double> x, HostSpan<double> v,
                             HostSpan<double> f, HostSpan<int> species, HostSpan<double> charge, HostSpan<int> image) {
  const double t0 = MPI_Wtime();
  const long long natoms = spec_.natoms;
  const std::size_t n = id.size();
  const long frame = frames();
  std::ostringstream where;
  where << "H5MD '" << path_ << "' frame " << frame << " (step " << step << "): ";

  // 1. Every rank learns of every rank's bad arguments before anyone throws.
  long long counts[3] = {0, 0, static_cast<long long>(n)};  // bad array lengths, bad ids, atoms
  long long worst_id = LLONG_MAX;
  if (x.size() != 3 * n || species.size() != n || (spec_.velocities && v.size() != 3 * n) ||
      (spec_.forces && f.size() != 3 * n) || (spec_.charges && charge.size() != n) ||
      (spec_.images && image.size() != 3 * n)) {
    counts[0] = 1;
  }
  for (long long i : id) {
    if (i < 1 || i > natoms) {
      ++counts[1];
      worst_id = std::min(worst_id, i);
    }
  }
  STRATUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, counts, 3, MPI_LONG_LONG, MPI_SUM, comm_));
  STRATUS_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &worst_id, 1, MPI_LONG_LONG, MPI_MIN, comm_));
  if (counts[0] > 0) {
    throw CollectiveError(where.str() + std::to_string(counts[0]) +
                          " rank(s) passed arrays whose lengths do not match their id count");
  }
  if (counts[1] > 0) {
    throw CollectiveError(where.str() + std::to_string(counts[1]) + " id(s) outside 1.." + std::to_string(natoms) +
                          ", e.g. " + std::to_string(worst_id));
  }
  if (counts[2] != natoms) {
    throw CollectiveError(where.str() + "the ranks hold " + std::to_string(counts[2]) + " atoms in all, not " +
                          std::to_string(natoms));
  }

  // 2. Every atom straight into its row of the block of rows this rank writes, wrapped into the box. The
  // atoms of rows another rank holds travel as records: species (int32), padding, then 3, 6 or 9 doubles,
  // the charge and the image flags when stored. (Through a block of records on every rank, a frame of
  // 256k atoms at two ranks spent 2-3 ms of its 19 in copying them out again.)
  const int nvec = 1 + (spec_.velocities ? 1 : 0) + (spec_.forces ? 1 : 0);
  const std::size_t qoff = 8 + 24 * static_cast<std::size_t>(nvec);  // the charge, when stored
  const std::size_t ioff = qoff + (spec_.charges ? 8 : 0);           // the image flags, when stored
  const std::size_t rec = ioff + (spec_.images ? 16 : 0);
  const RowRange block = row_block(natoms, rank_, size_);
  const long long row0 = block.row0;
  const std::size_t nloc = block.count;
  double* const pos = scratch(pos_, 3 * nloc);
  double* const vel = scratch(vel_, spec_.velocities ? 3 * nloc : 0);
  double* const force = scratch(force_, spec_.forces ? 3 * nloc : 0);
  int* const types = scratch(types_, nloc);
  double* const charges = scratch(charges_, spec_.charges ? nloc : 0);
  std::int32_t* const images = scratch(images_, spec_.images ? 3 * nloc : 0);
  const std::size_t foff = 8 + 24 * static_cast<std::size_t>(nvec - 1);  // the force, when stored
  // Row j from its atom's fields, wherever they are (this rank's arrays or a record that arrived; a
  // field not stored is not read): the position wrapped into the box, the image flags counting the box
  // lengths the wrap took off (the same unwrapped position), the others as they come.
  const auto put = [&](std::size_t j, std::int32_t type, const void* xs, const void* im, const void* vs, const void* fs,
                       const void* q) {
    types[j] = type;
    double at[3];
    std::int32_t flag[3] = {0, 0, 0};
    std::memcpy(at, xs, 24);
    if (spec_.images) std::memcpy(flag, im, 12);
    for (int d = 0; d < 3; ++d) {
      if (!spec_.periodic[d]) continue;
      const double before = at[d];
      at[d] = wrap(before, spec_.lo[d], spec_.hi[d]);
      if (spec_.images && std::isfinite(before) && at[d] != before) {
        const double len = spec_.hi[d] - spec_.lo[d];
        flag[d] += static_cast<std::int32_t>(std::lround((before - at[d]) / len));
      }
    }
    std::memcpy(&pos[3 * j], at, 24);
    if (spec_.images) std::memcpy(&images[3 * j], flag, 12);
    if (spec_.velocities) std::memcpy(&vel[3 * j], vs, 24);
    if (spec_.forces) std::memcpy(&force[3 * j], fs, 24);
    if (spec_.charges) std::memcpy(&charges[j], q, 8);
  };
  rows_.scatter(
      comm_, natoms, id, rec,
      [&](std::size_t i, std::size_t j) {
        put(j, species[i], &x[3 * i], spec_.images ? &image[3 * i] : nullptr, spec_.velocities ? &v[3 * i] : nullptr,
            spec_.forces ? &f[3 * i] : nullptr, spec_.charges ? &charge[i] : nullptr);
      },
      [&](std::size_t i, char* p) {
        const std::int32_t s = species[i];
        std::memcpy(p, &s, 4);
        std::memset(p + 4, 0, 4);
        std::memcpy(p + 8, &x[3 * i], 24);
        if (spec_.velocities) std::memcpy(p + 32, &v[3 * i], 24);
        if (spec_.forces) std::memcpy(p + foff, &f[3 * i], 24);
        if (spec_.charges) std::memcpy(p + qoff, &charge[i], 8);
        if (spec_.images) {
          std::memcpy(p + ioff, &image[3 * i], 12);
          std::memset(p + ioff + 12, 0, 4);
        }
      },
      [&](const char* p, std::size_t j) {
        std::int32_t s = 0;
        std::memcpy(&s, p, 4);
        put(j, s, p + 8, p + ioff, p + 32, p + foff, p + qoff);
      },
      where.str());

  // 3. Collective writes: every time-dependent dataset grows by one frame (after checking that it fits:
  // a write that fails half-way through a frame can leave the whole file unreadable).
  const double atom_bytes = 24.0 * nvec + (spec_.images ? 12.0 : 0.0);
  reserve_appended(comm_, path_, with_metadata(atom_bytes * static_cast<double>(natoms) + 100.0));
  try {
    h5::File file = h5::open_parallel(comm_, path_, false, "H5MD");
    h5::PropList dxpl(H5Pcreate(H5P_DATASET_XFER), "create transfer property list");
    h5::check_status(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "select collective transfer");
    const std::string g = "/particles/" + spec_.particle_group + "/";
    const hsize_t nf = static_cast<hsize_t>(frame) + 1, hn = static_cast<hsize_t>(natoms);
    const hsize_t fr = static_cast<hsize_t>(frame), r0 = static_cast<hsize_t>(row0), nl = nloc;
    const bool root = rank_ == 0;
    const std::int64_t step64 = step;
    write_block(file.get(), g + "position/step", H5T_NATIVE_INT64, {nf}, {fr}, {1}, root, &step64, dxpl.get(), true);
    write_block(file.get(), g + "position/time", H5T_NATIVE_DOUBLE, {nf}, {fr}, {1}, root, &time, dxpl.get(), true);
    double edges[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int d = 0; d < 3; ++d) edges[4 * d] = spec_.hi[d] - spec_.lo[d];
    write_block(file.get(), g + "box/edges/value", H5T_NATIVE_DOUBLE, {nf, 3, 3}, {fr, 0, 0}, {1, 3, 3}, root, edges,
                dxpl.get(), true);
    write_block(file.get(), g + "position/value", H5T_NATIVE_DOUBLE, {nf, hn, 3}, {fr, r0, 0}, {1, nl, 3}, true, pos,
                dxpl.get(), true);
    if (spec_.velocities) {
      write_block(file.get(), g + "velocity/value", H5T_NATIVE_DOUBLE, {nf, hn, 3}, {fr, r0, 0}, {1, nl, 3}, true, vel,
                  dxpl.get(), true);
    }
    if (spec_.images) {
      write_block(file.get(), g + "image/value", H5T_NATIVE_INT32, {nf, hn, 3}, {fr, r0, 0}, {1, nl, 3}, true, images,
                  dxpl.get(), true);
    }
    if (spec_.forces) {
      write_block(file.get(), g + "force/value", H5T_NATIVE_DOUBLE, {nf, hn, 3}, {fr, r0, 0}, {1, nl, 3}, true, force,
                  dxpl.get(), true);
    }
    if (frame == 0) {
      std::vector<std::int64_t> ids(nloc);
      for (std::size_t j = 0; j < nloc; ++j) ids[j] = row0 + static_cast<long long>(j) + 1;
      write_block(file.get(), g + "species", H5T_NATIVE_INT32, {hn}, {r0}, {nl}, true, types, dxpl.get(), false);
      write_block(file.get(), g + "id", H5T_NATIVE_INT64, {hn}, {r0}, {nl}, true, ids.data(), dxpl.get(), false);
      if (spec_.charges)
        write_block(file.get(), g + "charge", H5T_NATIVE_DOUBLE, {hn}, {r0}, {nl}, true, charges, dxpl.get(), false);
    }
    file.close("close '" + path_ + "'");
  } catch (const CollectiveError&) {
    throw;
  } catch (const Error& e) {
    throw Error(where.str() + e.what());
  }

  frames_.push_back(Frame{step, time, xdmf_entry(frame, step, time)});
  bytes_ += frame_bytes(spec_, frame == 0);
  try {
    if (pacing_.add(frames_.back().entry.size())) write_xdmf();
  } catch (...) {
    seconds_ += MPI_Wtime() - t0;
    throw;
  }
  seconds_ += MPI_Wtime() - t0;
}

double H5mdWriter::frame_bytes(const H5mdSpec& spec, bool first) {
  const int nvec = 1 + (spec.velocities ? 1 : 0) + (spec.forces ? 1 : 0);
  const double atom_bytes = 24.0 * nvec + (spec.images ? 12.0 : 0.0);
  const double fixed = first ? 12.0 + (spec.charges ? 8.0 : 0.0) : 0.0;          // species, ids, charges
  return (atom_bytes + fixed) * static_cast<double>(spec.natoms) + 16.0 + 72.0;  // step, time, box edges
}

std::string H5mdWriter::xdmf_entry(long k, long step, double time) const {
  const std::string h5 = xdmf::xml_escape(fs::path(path_).filename().string());
  const std::string g = "/particles/" + xdmf::xml_escape(spec_.particle_group) + "/";
  const long long n = spec_.natoms;
  const std::string pad = "          ";
  std::ostringstream os;
  os << "      <Grid Name=\"step_" << step << "\" GridType=\"Uniform\">\n"
     << "        <Time Value=\"" << xdmf::format_real(time) << "\"/>\n"
     << "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" << n << "\" NodesPerElement=\"1\"/>\n"
     << "        <Geometry GeometryType=\"XYZ\">\n"
     << frame_slab(h5 + ":" + g + "position/value", k, k + 1, n, pad) << "        </Geometry>\n"
     << "        <Attribute Name=\"species\" AttributeType=\"Scalar\" Center=\"Node\">\n"
     << pad << "<DataItem Dimensions=\"" << n << "\" NumberType=\"Int\" Precision=\"4\" Format=\"HDF\">" << h5 << ":"
     << g << "species</DataItem>\n"
     << "        </Attribute>\n"
     << "        <Attribute Name=\"id\" AttributeType=\"Scalar\" Center=\"Node\">\n"
     << pad << "<DataItem Dimensions=\"" << n << "\" NumberType=\"Int\" Precision=\"8\" Format=\"HDF\">" << h5 << ":"
     << g << "id</DataItem>\n"
     << "        </Attribute>\n";
  if (spec_.velocities) {
    os << "        <Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Node\">\n"
       << frame_slab(h5 + ":" + g + "velocity/value", k, k + 1, n, pad) << "        </Attribute>\n";
  }
  os << "      </Grid>\n";
  return os.str();
}

void H5mdWriter::write_xdmf() {
  // Every rank has the entries, so every rank's pacing makes the same decisions from the same sizes.
  const std::string head =
      "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n<Xdmf Version=\"2.0\">\n  <Domain>\n"
      "    <Grid Name=\"particles\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  const std::string tail = "    </Grid>\n  </Domain>\n</Xdmf>\n";
  std::size_t size = head.size() + tail.size();
  for (const Frame& f : frames_) size += f.entry.size();
  bool ok = true;
  std::string msg;
  if (rank_ == 0) {
    std::string doc;
    doc.reserve(size);
    doc += head;
    for (const Frame& f : frames_) doc += f.entry;
    doc += tail;
    try {
      xdmf::write_text_atomically(xdmf_path_, doc);
    } catch (const std::exception& e) {
      ok = false;
      msg = e.what();
    }
  }
  agree_or_throw(comm_, ok, msg);
  pacing_.written(size);
}

void H5mdWriter::flush_xdmf() {
  if (pacing_.pending()) write_xdmf();
}

}  // namespace stratus
