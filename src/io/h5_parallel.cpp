// open_parallel (io/h5_parallel.hpp).
#include "io/h5_parallel.hpp"

#include <hdf5.h>

#include "core/error.hpp"

namespace stratus::h5 {

File open_parallel(MPI_Comm comm, const std::string& path, bool create, const std::string& kind, FileBlocks blocks) {
  PropList fapl(H5Pcreate(H5P_FILE_ACCESS), "create file access property list");
  MPI_Info info = MPI_INFO_NULL;
  if (blocks == FileBlocks::contiguous) {
    // Other MPI-IO implementations ignore a ROMIO hint. HDF5 keeps its own copy of the info.
    STRATUS_MPI_CHECK(MPI_Info_create(&info));
    STRATUS_MPI_CHECK(MPI_Info_set(info, "romio_cb_write", "disable"));
  }
  const herr_t set = H5Pset_fapl_mpio(fapl.get(), comm, info);
  if (info != MPI_INFO_NULL) STRATUS_MPI_CHECK(MPI_Info_free(&info));
  check_status(set, "select MPI-IO for '" + path + "'");
  check_status(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_V18),
               "set format bounds for '" + path + "'");
  check_status(H5Pset_coll_metadata_write(fapl.get(), true), "set collective metadata for '" + path + "'");
  hid_t id = -1;
  std::string why;
  {
    QuietErrors quiet;
    id = create ? H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get())
                : H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get());
    if (id < 0) why = last_error();
  }
  int ok = id >= 0 ? 1 : 0, all_ok = 0;
  STRATUS_MPI_CHECK(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm));
  if (!all_ok) {
    // A rank whose open succeeded leaves it open: closing is collective under MPI-IO and would hang (the
    // opens are collective, so this split should not occur in practice).
    throw CollectiveError(std::string("cannot ") + (create ? "create " : "open ") + kind + " file '" + path + "'" +
                          (why.empty() ? "" : ": " + why));
  }
  File file(id, (create ? "create '" : "open '") + path + "'");
  file.mark_output();
  return file;
}

}  // namespace stratus::h5
