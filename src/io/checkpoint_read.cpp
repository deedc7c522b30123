// CheckpointReader and newest_checkpoint (io/checkpoint.hpp): the datasets of a file that
// open_and_validate (checkpoint_validate.cpp) has accepted, read collectively by block.
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

namespace stratus {

namespace fs = std::filesystem;
using namespace checkpoint_detail;

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
