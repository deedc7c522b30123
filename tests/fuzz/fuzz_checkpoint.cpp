// libFuzzer target for checkpoint files: stratus::CheckpointReader (validation on opening), then its
// read_* methods on what it found, as a restart does (run_loop.cpp restore: the grid "fields"; the md
// physics' read_checkpoint: per-atom rows and the thermostat values). Two kinds of input:
//  - bytes that start with the HDF5 signature are the file itself (mutations of real checkpoints that
//    scripts/fuzz.sh writes with the built stratus). HDF5 1.10 checksums all metadata and Fletcher32 the
//    data, so these mostly exercise HDF5's own checks;
//  - anything else is a recipe: a FuzzedDataProvider chooses, piece by piece, how a checkpoint is built
//    with the HDF5 API (each root attribute right or wrong in class, width, byte order, shape or value;
//    /deck; /data and its datasets of any kind, type, rank, extent, layout, filters, some chunks never
//    written; soft, external and repeated links, committed types), so that the fuzzer reaches the
//    reader's own checks behind the checksums. All-zero or exhausted recipes give a valid checkpoint.
// Bad input must throw stratus::InputError (or stratus::Error from a read_* asked for the impossible);
// anything else is a finding: another exception (reported, then abort), a sanitizer report, a hang,
// unbounded memory, or HDF5 identifiers still open once the reader is gone (a leak on an error path).
// The file goes to one temporary path per process (/dev/shm when there is one), reused and removed at
// exit. MPI is a singleton (no mpiexec). This target does not run simulations.
#include <fuzzer/FuzzedDataProvider.h>
#include <hdf5.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <typeinfo>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "domain/grid_options.hpp"
#include "driver/run_loop.hpp"
#include "input/deck.hpp"
#include "io/checkpoint.hpp"
#include "register.hpp"

namespace {

using stratus::Int3;

std::string g_path;
const stratus::OptionRegistry* g_options = nullptr;
const stratus::PhysicsRegistry* g_physics = nullptr;
std::vector<std::string> g_physics_names;
bool g_verbose = false;  // STRATUS_FUZZ_VERBOSE=1: print why each input was refused (for replaying inputs)

void note(const char* step, const std::exception& e) {
  if (g_verbose) std::fprintf(stderr, "fuzz_checkpoint: %s refused: %s\n", step, e.what());
}

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz_checkpoint: FINDING: %s\n", what.c_str());
  std::abort();
}

void remove_temp() { std::remove(g_path.c_str()); }

// ---------------------------------------------------------------------------------------------------
// HDF5 identifier accounting: every identifier the reader opens must be closed again.

constexpr std::size_t kIdKinds = 8;
constexpr std::array<H5I_type_t, kIdKinds> kIdTypes{H5I_FILE,    H5I_GROUP,       H5I_DATATYPE, H5I_DATASPACE,
                                                    H5I_DATASET, H5I_GENPROP_LST, H5I_ATTR,     H5I_ERROR_STACK};
constexpr std::array<const char*, kIdKinds> kIdNames{"file",    "group",         "datatype",  "dataspace",
                                                     "dataset", "property list", "attribute", "error stack"};

std::array<hsize_t, kIdKinds> open_ids() {
  std::array<hsize_t, kIdKinds> n{};
  for (std::size_t i = 0; i < kIdTypes.size(); ++i) H5Inmembers(kIdTypes[i], &n[i]);
  return n;
}

void check_ids(const std::array<hsize_t, kIdKinds>& before, const char* after_what) {
  const std::array<hsize_t, kIdKinds> now = open_ids();
  for (std::size_t i = 0; i < now.size(); ++i)
    if (now[i] > before[i])
      finding(std::string("HDF5 ") + kIdNames[i] + " identifiers left open after " + after_what + ": " +
              std::to_string(before[i]) + " before, " + std::to_string(now[i]) + " after");
}

// ---------------------------------------------------------------------------------------------------
// Recipe: builds a checkpoint-like file from fuzz choices. Every HDF5 failure while building (HDF5
// refusing a request) just skips the input; identifiers are owned by Id and always closed.

class Id {
 public:
  Id() = default;
  Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {
    if (id_ < 0) throw BuildFailed();
  }
  ~Id() {
    if (id_ >= 0) close_(id_);
  }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  Id(Id&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  hid_t get() const { return id_; }
  struct BuildFailed {};

 private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

void ok(herr_t s) {
  if (s < 0) throw Id::BuildFailed();
}

Id type_copy(hid_t t) { return Id(H5Tcopy(t), H5Tclose); }

Id string_type(std::size_t size, bool vlen = false, H5T_str_t pad = H5T_STR_NULLTERM) {
  Id t = type_copy(H5T_C_S1);
  ok(H5Tset_size(t.get(), vlen ? H5T_VARIABLE : std::max<std::size_t>(size, 1)));
  ok(H5Tset_strpad(t.get(), pad));
  return t;
}

enum class AttrKind { text, integer, real };

struct Made {
  std::string name;  // below /data
  std::string kind;  // what the kind attribute says (if written)
  bool integer = false;
  std::vector<hsize_t> dims;
};

struct Recipe {
  std::string physics;
  std::vector<Made> sets;
};

class Builder {
 public:
  explicit Builder(FuzzedDataProvider& fd) : fd_(fd) {}

  int pick(int n) { return fd_.ConsumeIntegralInRange<int>(0, n - 1); }
  std::string text(std::size_t max) { return fd_.ConsumeRandomLengthString(max); }

  // A root or dataset attribute; variant 0 writes it as the writer does.
  void attribute(hid_t obj, const char* name, AttrKind kind, const std::string& s, long long i, double d) {
    const int variant = pick(10);
    if (variant == 1) return;  // missing
    std::string sv = s;
    long long iv = i;
    double dv = d;
    if (variant == 6) {  // another value
      sv = text(64);
      iv = fd_.ConsumeIntegral<long long>();
      const double special[] = {std::nan(""), INFINITY, -INFINITY, -0.0, 1e308, -1.0};
      dv = fd_.ConsumeBool() ? special[pick(6)] : fd_.ConsumeFloatingPoint<double>();
    }
    AttrKind as = kind;
    if (variant == 2) as = static_cast<AttrKind>((static_cast<int>(kind) + 1 + pick(2)) % 3);  // another class
    Id space = variant == 3   ? Id(H5Screate_simple(1, std::array<hsize_t, 1>{1}.data(), nullptr), H5Sclose)
               : variant == 7 ? Id(H5Screate(H5S_NULL), H5Sclose)
                              : Id(H5Screate(H5S_SCALAR), H5Sclose);
    const bool odd = variant == 4;
    switch (as) {
      case AttrKind::text: {
        if (odd && fd_.ConsumeBool()) {  // variable-length string
          Id t = string_type(0, true);
          Id a(H5Acreate2(obj, name, t.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
          const char* p = sv.c_str();
          if (variant != 7) ok(H5Awrite(a.get(), t.get(), &p));
          return;
        }
        // Odd: space padded, exactly as long as the value (no NUL), or with bytes after a NUL.
        const H5T_str_t pad = odd && fd_.ConsumeBool() ? H5T_STR_SPACEPAD : H5T_STR_NULLTERM;
        std::string stored = sv;
        if (odd && fd_.ConsumeBool()) stored += std::string(1, '\0') + text(16);
        const std::size_t size = stored.size() + (odd && fd_.ConsumeBool() ? 0 : 1);
        Id t = string_type(size, false, pad);
        stored.resize(std::max<std::size_t>(size, 1), '\0');
        Id a(H5Acreate2(obj, name, t.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
        if (variant != 7) ok(H5Awrite(a.get(), t.get(), stored.data()));
        return;
      }
      case AttrKind::integer: {
        const hid_t widths[] = {H5T_STD_I64LE, H5T_STD_I32LE, H5T_STD_I8LE, H5T_STD_U64LE, H5T_STD_I64BE, 0};
        const int w = odd ? pick(6) : 0;
        Id t = type_copy(widths[w] ? widths[w] : H5T_STD_I64LE);
        if (!widths[w]) {  // a 128-bit integer
          ok(H5Tset_size(t.get(), 16));
          ok(H5Tset_precision(t.get(), 128));
        }
        Id a(H5Acreate2(obj, name, t.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
        std::array<long long, 2> buf{iv, iv < 0 ? -1 : 0};
        if (variant != 7) ok(H5Awrite(a.get(), widths[w] ? H5T_NATIVE_LLONG : t.get(), buf.data()));
        return;
      }
      case AttrKind::real: {
        const hid_t widths[] = {H5T_IEEE_F64LE, H5T_IEEE_F32LE, H5T_IEEE_F64BE, H5T_NATIVE_LDOUBLE};
        Id t = type_copy(widths[odd ? pick(4) : 0]);
        Id a(H5Acreate2(obj, name, t.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
        if (variant != 7) ok(H5Awrite(a.get(), H5T_NATIVE_DOUBLE, &dv));
        return;
      }
    }
  }

  // /deck: one fixed-length string, chunked with Fletcher32 (variant 0), or something else.
  void deck(hid_t file) {
    const int variant = pick(9);
    if (variant == 1) return;
    const std::string t = text(512);
    if (variant == 7) {
      Id g(H5Gcreate2(file, "deck", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
      return;
    }
    Id type = variant == 3 ? string_type(0, true) : variant == 5 ? type_copy(H5T_STD_I64LE) : string_type(t.size() + 1);
    const std::array<hsize_t, 2> dims{variant == 4 ? hsize_t{2} : hsize_t{1}, 1};
    Id space(H5Screate_simple(variant == 6 ? 2 : 1, dims.data(), nullptr), H5Sclose);
    Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    if (variant != 2) {
      ok(H5Pset_chunk(dcpl.get(), variant == 6 ? 2 : 1, dims.data()));
      if (variant != 8) ok(H5Pset_fletcher32(dcpl.get()));
    }
    Id ds(H5Dcreate2(file, "deck", type.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose);
    if (variant == 3) {
      const char* p[2] = {t.c_str(), t.c_str()};
      ok(H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, p));
    } else if (variant == 5) {
      const long long v[2] = {1, 2};
      ok(H5Dwrite(ds.get(), H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    } else {
      std::string buf = t;
      buf.resize((t.size() + 1) * dims[0], '\0');
      ok(H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()));
    }
  }

  // One dataset below /data (variant 0 of each choice: as the writer makes it).
  void dataset(hid_t data, Recipe& r) {
    static const char* kNames[] = {"fields",     "atom_x",       "atom_v",    "atom_type",
                                   "atom_image", "atom_x_build", "atom_slot", "md_nhc"};
    std::string name = pick(4) == 3 ? text(24) : kNames[pick(8)];
    static const char* kKinds[] = {"grid", "rows", "values"};
    const int k = pick(4);
    const std::string kind = k < 3 ? kKinds[k] : text(12);
    const int want_rank = kind == "grid" ? 4 : kind == "rows" ? 2 : 1;
    const int rank = pick(4) == 3 ? pick(6) : want_rank;  // 0: a scalar dataspace

    // Types: the writer's float64 / int64, then others of 8 bytes, then narrower or wider ones.
    const int ty = pick(10);
    Id type = [&]() -> Id {
      switch (ty) {
        case 0:
          return type_copy(H5T_IEEE_F64LE);
        case 1:
          return type_copy(H5T_STD_I64LE);
        case 2:
          return type_copy(H5T_IEEE_F64BE);
        case 3:
          return type_copy(H5T_STD_I64BE);
        case 4:
          return type_copy(H5T_STD_U64LE);
        case 5:
          return type_copy(H5T_STD_I32LE);
        case 6:
          return type_copy(H5T_IEEE_F32LE);
        case 7:
          return string_type(8);
        case 8:
          return Id(H5Tcreate(H5T_OPAQUE, 8), H5Tclose);
        default: {  // an 8-byte float of reduced precision
          Id t = type_copy(H5T_IEEE_F64LE);
          ok(H5Tset_precision(t.get(), 32 + static_cast<std::size_t>(pick(32))));
          return t;
        }
      }
    }();
    const bool integer = H5Tget_class(type.get()) == H5T_INTEGER;

    std::vector<hsize_t> dims(static_cast<std::size_t>(rank)), maxdims(dims.size());
    const bool big = pick(8) == 7;
    const bool extendible = pick(4) == 3;
    hsize_t elements = 1;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      dims[d] =
          big ? fd_.ConsumeIntegralInRange<hsize_t>(0, hsize_t{1} << 40) : fd_.ConsumeIntegralInRange<hsize_t>(1, 6);
      if (fd_.ConsumeProbability<double>() < 0.05) dims[d] = 0;
      maxdims[d] = extendible ? H5S_UNLIMITED : dims[d];
      elements = dims[d] && elements > (hsize_t{1} << 62) / dims[d] ? (hsize_t{1} << 62) : elements * dims[d];
    }
    Id space = rank == 0 ? Id(H5Screate(H5S_SCALAR), H5Sclose)
                         : Id(H5Screate_simple(rank, dims.data(), maxdims.data()), H5Sclose);

    // Layout: 0 chunked + Fletcher32, 1 + shuffle and deflate, 2 chunked unfiltered, 3 deflate only,
    // 4 contiguous, 5 compact.
    const int layout = pick(6);
    Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    if (layout <= 3 && rank > 0) {
      std::vector<hsize_t> chunk(dims.size());
      for (std::size_t d = 0; d < dims.size(); ++d) {
        chunk[d] = pick(3) == 0 ? fd_.ConsumeIntegralInRange<hsize_t>(1, 8)
                                : std::max<hsize_t>(1, std::min<hsize_t>(dims[d], 8));
        if (!extendible) chunk[d] = std::min(chunk[d], std::max<hsize_t>(dims[d], 1));
      }
      // At most 64 chunks when the data is written (each is written and read on its own: slow).
      const auto nchunks = [&] {
        hsize_t n = 1;
        for (std::size_t d = 0; d < dims.size(); ++d) n *= std::max<hsize_t>(1, (dims[d] + chunk[d] - 1) / chunk[d]);
        return n;
      };
      for (std::size_t d = 0; elements <= 65536 && nchunks() > 64 && d < dims.size(); ++d)
        chunk[d] = std::max(chunk[d], dims[d]);
      ok(H5Pset_chunk(dcpl.get(), rank, chunk.data()));
      if (layout == 1) ok(H5Pset_shuffle(dcpl.get()));
      if (layout == 0 || layout == 1) ok(H5Pset_fletcher32(dcpl.get()));
      if (layout == 1 || layout == 3) ok(H5Pset_deflate(dcpl.get(), 1));
      if (elements <= 4096 && pick(4) == 3) ok(H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY));
    } else if (layout == 5) {
      ok(H5Pset_layout(dcpl.get(), H5D_COMPACT));
    }
    Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    ok(H5Pset_create_intermediate_group(lcpl.get(), 1));
    Id ds(H5Dcreate2(data, name.c_str(), type.get(), space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT), H5Dclose);
    attribute(ds.get(), "kind", AttrKind::text, kind, 0, 0.0);

    // Data: 0 all of it, 1 none, 2 the first half along the slowest extent (later chunks missing).
    const int fill = pick(3);
    if (fill != 1 && elements > 0 && elements <= 65536) {
      std::vector<hsize_t> count = dims;
      if (fill == 2 && rank > 0) count[0] = (count[0] + 1) / 2;
      hsize_t n = 1;
      for (hsize_t c : count) n *= c;
      std::vector<double> v(static_cast<std::size_t>(n));
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 97) * 0.5;
      std::vector<long long> iv(v.begin(), v.end());
      Id mem =
          rank == 0 ? Id(H5Screate(H5S_SCALAR), H5Sclose) : Id(H5Screate_simple(rank, count.data(), nullptr), H5Sclose);
      if (rank > 0) {
        const std::vector<hsize_t> start(dims.size(), 0);
        ok(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr));
      }
      const hid_t cls = H5Tget_class(type.get());
      if (cls == H5T_INTEGER)
        ok(H5Dwrite(ds.get(), H5T_NATIVE_LLONG, mem.get(), space.get(), H5P_DEFAULT, iv.data()));
      else if (cls == H5T_FLOAT)
        ok(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, mem.get(), space.get(), H5P_DEFAULT, v.data()));
      else
        ok(H5Dwrite(ds.get(), type.get(), mem.get(), space.get(), H5P_DEFAULT, v.data()));
    }
    r.sets.push_back({name, kind, integer, dims});
  }

  // Something in /data that is not a dataset reached by a hard link (or a second name of one).
  void oddity(hid_t file, hid_t data, const Recipe& r) {
    switch (pick(7)) {
      case 0:
        ok(H5Lcreate_soft("/deck", data, "soft", H5P_DEFAULT, H5P_DEFAULT));
        break;
      case 1:
        ok(H5Lcreate_soft("/nowhere", data, "dangling", H5P_DEFAULT, H5P_DEFAULT));
        break;
      case 2:
        ok(H5Lcreate_external("other.h5", "/x", data, "external", H5P_DEFAULT, H5P_DEFAULT));
        break;
      case 3: {
        Id t = type_copy(H5T_STD_I32LE);
        ok(H5Tcommit2(data, "committed_type", t.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        break;
      }
      case 4:
        if (!r.sets.empty())
          ok(H5Lcreate_hard(data, r.sets.front().name.c_str(), data, "again", H5P_DEFAULT, H5P_DEFAULT));
        break;
      case 5:
        ok(H5Lcreate_hard(file, "/data", data, "loop", H5P_DEFAULT, H5P_DEFAULT));
        break;
      default:
        Id g(H5Gcreate2(data, "empty_group", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    }
  }

  Recipe build(const std::string& path) {
    Recipe r;
    Id fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
    if (pick(4) != 3) ok(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V110, H5F_LIBVER_V110));
    Id fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
    ok(H5Pset_attr_phase_change(fcpl.get(), 64, 0));
    Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()), H5Fclose);
    const hid_t f = file.get();
    r.physics = pick(8) == 7 ? text(16) : g_physics_names[static_cast<std::size_t>(pick(4)) % g_physics_names.size()];
    attribute(f, "format", AttrKind::text, "stratus-checkpoint", 0, 0.0);
    attribute(f, "format_version", AttrKind::integer, "", 1, 0.0);
    attribute(f, "physics", AttrKind::text, r.physics, 0, 0.0);
    attribute(f, "step", AttrKind::integer, "", fd_.ConsumeIntegralInRange<long long>(0, 1000), 0.0);
    attribute(f, "time", AttrKind::real, "", 0, fd_.ConsumeFloatingPointInRange<double>(0.0, 1e3));
    attribute(f, "stratus_version", AttrKind::text, "0.1.0", 0, 0.0);
    attribute(f, "git_hash", AttrKind::text, "0123abc", 0, 0.0);
    attribute(f, "nranks", AttrKind::integer, "", 1 + pick(4), 0.0);
    deck(f);

    // /data: 0 a group, 1 missing, 2 a dataset, 3 a soft link to a group.
    const int dv = pick(4);
    if (dv == 1) return r;
    if (dv == 2) {
      Id s(H5Screate(H5S_SCALAR), H5Sclose);
      Id d(H5Dcreate2(f, "data", H5T_STD_I32LE, s.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
      return r;
    }
    Id data(H5Gcreate2(f, dv == 3 ? "real_data" : "data", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    if (dv == 3) ok(H5Lcreate_soft("/real_data", f, "data", H5P_DEFAULT, H5P_DEFAULT));
    const int n = pick(6);
    for (int i = 0; i < n; ++i) {
      try {
        dataset(data.get(), r);
      } catch (const Id::BuildFailed&) {
        // HDF5 refused this dataset (e.g. a name it cannot hold); the others still count.
        if (g_verbose) H5Eprint2(H5E_DEFAULT, stderr);
      }
    }
    if (pick(3) == 2) oddity(f, data.get(), r);
    return r;
  }

 private:
  FuzzedDataProvider& fd_;
};

// ---------------------------------------------------------------------------------------------------
// Reading, as a restart would.

// Runs f; InputError and Error are the reader's ways to refuse; anything else is a finding.
template <class F>
void refused_or_done(const char* step, F&& f) {
  try {
    f();
    if (g_verbose) std::fprintf(stderr, "fuzz_checkpoint: %s done\n", step);
  } catch (const stratus::InputError& e) {
    note(step, e);
  } catch (const stratus::Error& e) {
    note(step, e);
  } catch (const std::exception& e) {
    finding(std::string(step) + ": " + typeid(e).name() + ": " + e.what());
  }
}

// Elements a read would allocate; the harness skips reads it could not hold (not the reader's fault).
constexpr long double kMaxRead = 1 << 24;

void read_recipe(stratus::CheckpointReader& r, const Recipe& rec, FuzzedDataProvider& fd) {
  for (const Made& m : rec.sets) {
    (void)r.has(m.name);
    const auto fits_int = [](hsize_t v) { return v <= static_cast<hsize_t>(INT_MAX); };
    if (m.dims.size() == 4 && fits_int(m.dims[0]) && fits_int(m.dims[1]) && fits_int(m.dims[2]) &&
        fits_int(m.dims[3])) {
      const Int3 global{static_cast<int>(m.dims[3]), static_cast<int>(m.dims[2]), static_cast<int>(m.dims[1])};
      Int3 offset{0, 0, 0}, extent = global;
      const int how = fd.ConsumeIntegralInRange(0, 3);
      for (int d = 0; d < 3; ++d) {
        if (how == 1) {  // a box inside the grid
          offset[d] = fd.ConsumeIntegralInRange(0, global[d]);
          extent[d] = fd.ConsumeIntegralInRange(0, global[d] - offset[d]);
        } else if (how == 2) {  // any box
          offset[d] = fd.ConsumeIntegral<int>();
          extent[d] = fd.ConsumeIntegral<int>();
        }
      }
      const int nvar = how == 3 ? fd.ConsumeIntegral<int>() : static_cast<int>(m.dims[0]);
      const long double n = static_cast<long double>(nvar) * extent[0] * extent[1] * extent[2];
      if (std::fabs(n) <= kMaxRead)
        refused_or_done("read_grid", [&] { (void)r.read_grid(m.name, nvar, global, offset, extent); });
    }
    if (m.dims.size() == 2) {
      refused_or_done("rows", [&] { (void)r.rows(m.name); });
      const long long rows = static_cast<long long>(std::min<hsize_t>(m.dims[0], LLONG_MAX));
      long long first = 0, count = rows;
      if (fd.ConsumeBool()) {
        first = fd.ConsumeIntegralInRange<long long>(-1, rows);
        count = fd.ConsumeIntegralInRange<long long>(-1, rows + 1);
      }
      const int ncomp =
          fd.ConsumeBool() ? fd.ConsumeIntegral<int>() : static_cast<int>(std::min<hsize_t>(m.dims[1], INT_MAX));
      const bool as_int = fd.ConsumeBool() ? !m.integer : m.integer;
      if (std::fabs(static_cast<long double>(count) * ncomp) <= kMaxRead) {
        if (as_int)
          refused_or_done("read_rows_int", [&] { (void)r.read_rows_int(m.name, first, count, ncomp); });
        else
          refused_or_done("read_rows", [&] { (void)r.read_rows(m.name, first, count, ncomp); });
      }
    }
    if (m.dims.size() == 1 && m.dims[0] <= kMaxRead)
      refused_or_done("read_values", [&] { (void)r.read_values(m.name); });
  }
  refused_or_done("read_values of a missing name", [&] { (void)r.read_values("no/such/dataset"); });
}

// Raw files: the grid shape comes from the deck the checkpoint carries, nvar is found by trying.
void read_raw(stratus::CheckpointReader& r) {
  if (r.has("fields")) {
    Int3 global{0, 0, 0};
    bool have = false;
    try {
      const stratus::Deck d = stratus::Deck::parse(*g_options, r.meta().deck_text, "checkpoint deck");
      global = stratus::GridParams::from_deck(d).cells;
      have = global[0] > 0 && global[1] > 0 && global[2] > 0 &&
             static_cast<long double>(global[0]) * global[1] * global[2] <= kMaxRead / 8;
    } catch (const stratus::InputError&) {
    }
    for (int nvar = 1; have && nvar <= 8; ++nvar) {
      bool done = false;
      refused_or_done("read_grid", [&] {
        (void)r.read_grid("fields", nvar, global, {0, 0, 0}, global);
        done = true;
      });
      if (done) break;
    }
  }
  const std::pair<const char*, int> rows[] = {{"atom_type", 1},  {"atom_x", 3},       {"atom_v", 3},
                                              {"atom_image", 3}, {"atom_x_build", 3}, {"atom_slot", 2}};
  for (const auto& row : rows) {
    const std::string name = row.first;
    const int ncomp = row.second;
    if (!r.has(name)) continue;
    long long n = 0;
    refused_or_done("rows", [&] { n = r.rows(name); });
    if (static_cast<long double>(n) * ncomp > kMaxRead) continue;
    refused_or_done("read_rows", [&] { (void)r.read_rows(name, 0, n, ncomp); });
    refused_or_done("read_rows_int", [&] { (void)r.read_rows_int(name, 0, n, ncomp); });
  }
  if (r.has("md_nhc")) refused_or_done("read_values", [&] { (void)r.read_values("md_nhc"); });
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  // No HDF5 free lists: a recycled block would keep the allocation stack of its first use (e.g. a
  // recipe's dataset), hiding where a leak really happens, and would hide use-after-free from ASan.
  H5set_free_list_limits(0, 0, 0, 0, 0, 0);
  g_verbose = std::getenv("STRATUS_FUZZ_VERBOSE") && *std::getenv("STRATUS_FUZZ_VERBOSE") == '1';
  stratus::log::set_level(stratus::log::Level::quiet);
  const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : std::getenv("TMPDIR");
  g_path = std::string(dir && *dir ? dir : "/tmp") + "/stratus-fuzz-chk-" + std::to_string(getpid()) + ".h5";
  std::atexit(remove_temp);
  auto* physics = new stratus::PhysicsRegistry;
  stratus::register_physics(*physics);
  auto* reg = new stratus::OptionRegistry(stratus::declare_all_options(*physics));
  g_options = reg;
  g_physics = physics;  // kept (reachable) for the registry's lifetime, as the options refer to it
  g_physics_names = physics->names();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const unsigned char kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  const bool raw = size >= 8 && std::memcmp(data, kSignature, 8) == 0;
  FuzzedDataProvider fd(data, size);
  Recipe rec;
  const std::array<hsize_t, kIdKinds> before = open_ids();
  if (raw) {
    std::FILE* f = std::fopen(g_path.c_str(), "wb");
    if (!f) finding("cannot write the temporary file " + g_path);
    if (std::fwrite(data, 1, size, f) != size) finding("short write to " + g_path);
    std::fclose(f);
  } else {
    try {
      rec = Builder(fd).build(g_path);
    } catch (const Id::BuildFailed&) {
      if (g_verbose) H5Eprint2(H5E_DEFAULT, stderr);
      H5Eclear2(H5E_DEFAULT);
      return 0;
    }
    check_ids(before, "building a recipe (harness bug)");
  }

  // The physics the reader expects: the recipe's (or another, now and then), or a raw file's own.
  std::string expected = raw ? std::string("advection") : fd.ConsumeIntegralInRange(0, 15) == 15 ? "md" : rec.physics;
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      stratus::CheckpointReader r(MPI_COMM_WORLD, g_path, expected);
      const stratus::CheckpointMeta& m = r.meta();
      (void)m.step, (void)m.time, (void)m.nranks, (void)m.deck_text.size();
      if (raw)
        read_raw(r);
      else
        read_recipe(r, rec, fd);
    } catch (const stratus::InputError& e) {
      note("CheckpointReader", e);
      const std::string what = e.what(), tag = "is for physics '";
      const std::size_t p = what.find(tag);
      if (raw && attempt == 0 && p != std::string::npos) {
        const std::size_t q = what.find('\'', p + tag.size());
        expected = what.substr(p + tag.size(), q - p - tag.size());
        check_ids(before, "a refused checkpoint");
        continue;
      }
    } catch (const stratus::Error& e) {
      note("CheckpointReader", e);  // structural failures while opening may surface as Error
    } catch (const std::exception& e) {
      finding(std::string("CheckpointReader: ") + typeid(e).name() + ": " + e.what());
    }
    break;
  }
  check_ids(before, "the reader was destroyed");
  return 0;
}
