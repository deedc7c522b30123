// write_grid_file (io/grid_file.hpp).
#include "io/grid_file.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdint>

#include "core/error.hpp"
#include "io/cf_grid.hpp"
#include "io/h5_parallel.hpp"
#include "io/hdf5_util.hpp"
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

/// The cells of box, whole z-planes and so one range of the dataset as of data, in independent writes of
/// at most kPieceDoubles: whole planes, or rows of one plane where a plane is larger.
void write_pieces(hid_t ds, const WriteBox& box, const double* data, hid_t dxpl, const std::string& what) {
  constexpr hsize_t kPieceDoubles = 512 * 1024 / sizeof(double);
  const hsize_t nx = box.count[0], ny = box.count[1], nz = box.count[2];
  h5::Dataspace file(H5Dget_space(ds), "get the space of " + what);
  const auto put = [&](hsize_t z, hsize_t y, hsize_t kz, hsize_t ky) {
    const hsize_t start[3] = {static_cast<hsize_t>(box.start[2]) + z, y, 0}, count[3] = {kz, ky, nx};
    const hsize_t n = kz * ky * nx;
    h5::check_status(H5Sselect_hyperslab(file.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
                     "select a piece of " + what);
    h5::Dataspace mem(H5Screate_simple(1, &n, nullptr), "create memory dataspace");
    h5::check_status(H5Dwrite(ds, H5T_NATIVE_DOUBLE, mem.get(), file.get(), dxpl, data + (z * ny + y) * nx),
                     "write " + what);
  };
  if (nx * ny <= kPieceDoubles) {
    const hsize_t kz = kPieceDoubles / (nx * ny);
    for (hsize_t z = 0; z < nz; z += kz) put(z, 0, std::min(kz, nz - z), ny);
  } else {
    const hsize_t ky = std::max<hsize_t>(1, kPieceDoubles / nx);
    for (hsize_t z = 0; z < nz; ++z)
      for (hsize_t y = 0; y < ny; y += ky) put(z, y, 1, std::min(ky, ny - y));
  }
}

}  // namespace

void write_grid_file(MPI_Comm comm, const std::string& path, const CartDecomp& decomp, const LocalGrid& g,
                     const Provenance& prov, const double* packed, const WriteBox& box, bool ranges,
                     const std::vector<GridVariable>& vars, long step, double time, int deflate) {
  STRATUS_REQUIRE(!ranges || (box.start[0] == 0 && box.start[1] == 0 && box.count[0] == g.global_n[0] &&
                              box.count[1] == g.global_n[1]),
                  "grid output: a box of whole z-planes expected");
  h5::File file =
      h5::open_parallel(comm, path, true, "HDF5", ranges ? h5::FileBlocks::contiguous : h5::FileBlocks::interleaved);
  write_root_attributes(file.get(), decomp, g, prov, step, time);
  h5::PropList dxpl(H5Pcreate(H5P_DATASET_XFER), "create transfer property list");
  h5::check_status(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "select collective transfer");
  h5::PropList own(H5Pcreate(H5P_DATASET_XFER), "create transfer property list");
  h5::check_status(H5Pset_dxpl_mpio(own.get(), H5FD_MPIO_INDEPENDENT), "select independent transfer");
  CfCoordinates coords =
      write_cf_coordinates(file.get(), g, prov.length_unit, prov.time_unit, time, dxpl.get(), decomp.rank() == 0);

  h5::Group fields(H5Gcreate2(file.get(), "fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   "create group /fields in '" + path + "'");
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

  // Every cell is written, so filling the datasets first would only double the I/O.
  h5::PropList dcpl(H5Pcreate(H5P_DATASET_CREATE), "create dataset creation property list");
  h5::check_status(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), "disable fill values");
  if (deflate > 0) {
    // One chunk per rank's block (blocks are equal), so each rank compresses and writes its own chunk;
    // byte shuffling first makes doubles compress far better.
    const Int3 b = decomp.local_cells();  // the same on every rank, as parallel HDF5 requires
    const hsize_t chunk[3] = {static_cast<hsize_t>(b[2]), static_cast<hsize_t>(b[1]), static_cast<hsize_t>(b[0])};
    h5::check_status(H5Pset_chunk(dcpl.get(), 3, chunk), "set chunk dimensions");
    h5::check_status(H5Pset_shuffle(dcpl.get()), "enable the shuffle filter");
    h5::check_status(H5Pset_deflate(dcpl.get(), static_cast<unsigned>(deflate)), "enable deflate");
  }

  double dummy = 0.0;  // some HDF5 versions reject a null buffer even when nothing is selected
  const double* p = packed;
  for (const auto& v : vars) {
    const std::string what = "dataset /fields/" + v.name + " in '" + path + "'";
    h5::Dataset ds(
        H5Dcreate2(fields.get(), v.name.c_str(), H5T_IEEE_F64LE, filespace.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
        "create " + what);
    if (ranges) {
      write_pieces(ds.get(), box, p, own.get(), what);
    } else {
      h5::check_status(
          H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, memspace.get(), filespace.get(), dxpl.get(), empty ? &dummy : p),
          "write " + what);
    }
    h5::write_attribute(ds.get(), "unit", v.unit);
    describe_cf_field(file.get(), ds.get(), "/fields/" + v.name, v, coords);
    ds.close("close " + what);
    p += box.cells();
  }
  for (h5::Dataset* c : {&coords.x, &coords.y, &coords.z, &coords.time})
    c->close("close a coordinate in '" + path + "'");
  fields.close("close group /fields in '" + path + "'");
  file.close("close '" + path + "'");
}

}  // namespace stratus
