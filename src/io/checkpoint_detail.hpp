// Internals shared by the checkpoint writer (checkpoint.cpp), validation (checkpoint_validate.cpp) and
// reader (checkpoint_read.cpp): the format constants, opening and validating a file, the collective
// failure agreement, the series listing and the HDF5 type of a value.
#pragma once
#include <hdf5.h>
#include <mpi.h>

#include <cstddef>
#include <string>
#include <map>
#include <vector>

#include "io/checkpoint.hpp"
#include "io/hdf5_util.hpp"

namespace stratus::checkpoint_detail {

inline constexpr const char* kFormat = "stratus-checkpoint";
inline constexpr int kFormatVersion = 1;
inline constexpr const char* kDataGroup = "data";
inline constexpr hsize_t kChunkValues = 131072;               // 1 MiB of 8-byte values per chunk, at most
inline constexpr hsize_t kMaxChunkBytes = 64ull << 20;        // larger chunks are refused on reading
inline constexpr std::size_t kMaxStringBytes = 256ull << 20;  // larger string attributes are refused

/// Collective. True if ok on every rank; otherwise false on every rank, with msg set to the message of
/// the lowest failing rank.
bool all_ok(MPI_Comm comm, bool ok, std::string& msg);

/// Whether `file` is NAME_chk_<digits>.h5; sets name and step.
bool parse_series_file(const std::string& file, std::string& name, long& step);

struct SeriesFile {
  long step;
  std::string path;
};
/// The files of series `name` in `dir` (rank 0's view of the file system), by ascending step.
std::vector<SeriesFile> list_series(const std::string& dir, const std::string& name);

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

/// A checkpoint file open for reading, with its validated metadata and datasets.
struct Opened {
  h5::File file;
  CheckpointMeta meta;
  std::map<std::string, CheckpointReader::Entry> entries;
};

/// Collective. Opens `path` read-only through MPI-IO and validates it (physics too unless expected is
/// null). Throws the same InputError, naming the file, on every rank.
Opened open_and_validate(MPI_Comm comm, const std::string& path, const std::string* expected);

}  // namespace stratus::checkpoint_detail
