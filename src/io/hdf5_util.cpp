// HDF5 identifier checks, error-stack access and attribute writers declared in io/hdf5_util.hpp.
// Attributes are stored with explicit little-endian file types so files do not depend on the writer's
// byte order; strings are fixed-length and NUL-terminated (one type for every string attribute, which
// h5dump and h5py both read as plain text). Nothing here opens files or touches MPI.
#include "io/hdf5_util.hpp"

#include <atomic>

#include "core/error.hpp"

namespace stratus::h5 {

namespace {
// Atomic: a grid snapshot may be written on a background thread (io/background_jobs.hpp) while the main
// thread asks whether HDF5 was abandoned; HDF5 calls themselves are never concurrent.
std::atomic<int> g_output_files{0};
std::atomic<bool> g_failed{false};     // an HDF5 call failed while an output file was open
std::atomic<bool> g_abandoned{false};  // a handle was left open because of that

[[noreturn]] void fail(const std::string& what) {
  detail::note_failure();
  const std::string why = last_error();
  throw Error("HDF5: " + what + " failed" + (why.empty() ? std::string() : ": " + why));
}
}  // namespace

int output_files_open() { return g_output_files; }
bool abandoned() { return g_abandoned; }
void output_write_failed() { detail::note_failure(); }

namespace detail {
void output_file_opened() { ++g_output_files; }
void output_file_closed() {
  if (g_output_files > 0) --g_output_files;
}
void note_failure() {
  if (g_output_files > 0) g_failed = true;
}
bool abandon_on_unwind() {
  const bool abandon = g_failed && g_output_files > 0 && std::uncaught_exceptions() > 0;
  if (abandon) g_abandoned = true;
  return abandon;
}
void abandon_failed_close() {
  g_failed = true;
  g_abandoned = true;
}
}  // namespace detail

hid_t check_id(hid_t id, const std::string& what) {
  if (id < 0) fail(what);
  return id;
}

void check_status(herr_t status, const std::string& what) {
  if (status < 0) fail(what);
}

void silence_library_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

QuietErrors::QuietErrors() {
  H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietErrors::~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

namespace {

herr_t first_message(unsigned n, const H5E_error2_t* err, void* out) {
  // The upward walk starts at the most specific entry (where the failure was detected), which is the
  // one that carries the system or MPI error text.
  if (n == 0 && err->desc) *static_cast<std::string*>(out) = err->desc;
  return 0;
}

void write_raw(hid_t obj, const std::string& name, hid_t file_type, hid_t mem_type, const void* data, std::size_t n) {
  const std::string what = "attribute '" + name + "'";
  Dataspace space;
  if (n == 0) {
    space = Dataspace(H5Screate(H5S_SCALAR), "create dataspace for " + what);
  } else {
    const hsize_t dims[1] = {static_cast<hsize_t>(n)};
    space = Dataspace(H5Screate_simple(1, dims, nullptr), "create dataspace for " + what);
  }
  Attribute attr(H5Acreate2(obj, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), "create " + what);
  check_status(H5Awrite(attr.get(), mem_type, data), "write " + what);
  attr.close("close " + what);
}

}  // namespace

std::string last_error() {
  std::string msg;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_message, &msg);
  // MPI error strings span lines; an exception message reads better on one.
  for (auto& c : msg) {
    if (c == '\n') c = ' ';
  }
  return msg;
}

PropList untimed(hid_t cls) {
  PropList p(H5Pcreate(cls), "create creation property list");
  check_status(H5Pset_obj_track_times(p.get(), false), "disable object times");
  return p;
}

Datatype string_type(std::size_t length) {
  Datatype t(H5Tcopy(H5T_C_S1), "copy string type");
  check_status(H5Tset_size(t.get(), length + 1), "set string size");
  check_status(H5Tset_strpad(t.get(), H5T_STR_NULLTERM), "set string padding");
  check_status(H5Tset_cset(t.get(), H5T_CSET_UTF8), "set string character set");
  return t;
}

void write_attribute(hid_t obj, const std::string& name, const std::string& value) {
  // The same type serves as file and memory type: c_str() supplies the terminator that
  // H5T_STR_NULLTERM promises.
  Datatype t = string_type(value.size());
  write_raw(obj, name, t.get(), t.get(), value.c_str(), 0);
}

void write_attribute_f64(hid_t obj, const std::string& name, double value) {
  write_raw(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, 0);
}

void write_attribute_i64(hid_t obj, const std::string& name, std::int64_t value) {
  write_raw(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value, 0);
}

void write_attribute_i32(hid_t obj, const std::string& name, int value) {
  write_raw(obj, name, H5T_STD_I32LE, H5T_NATIVE_INT, &value, 0);
}

void write_attribute_f64(hid_t obj, const std::string& name, const double* values, std::size_t n) {
  STRATUS_REQUIRE(n > 0, "attribute '" << name << "': empty array");
  write_raw(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, values, n);
}

void write_attribute_i32(hid_t obj, const std::string& name, const int* values, std::size_t n) {
  STRATUS_REQUIRE(n > 0, "attribute '" << name << "': empty array");
  write_raw(obj, name, H5T_STD_I32LE, H5T_NATIVE_INT, values, n);
}

void write_selection(hid_t ds, hid_t mem_type, const std::vector<hsize_t>& start, const std::vector<hsize_t>& count,
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

}  // namespace stratus::h5
