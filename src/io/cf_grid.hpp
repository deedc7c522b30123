// CF conventions (CF-1.8) in a grid snapshot, so that netCDF-4 readers (ncdump, xarray, CDO, NCO, ncview,
// Panoply) read it as a netCDF file: the netCDF-4 format is HDF5 with dimension scales, so no netCDF
// library is linked. What a snapshot gains:
//   - coordinate variables x, y, z at the root (cell centres, length unit, axis X/Y/Z), each an HDF5
//     dimension scale, attached to the (z, y, x) dimensions of every field;
//   - a scalar coordinate `time` ("seconds since 2000-01-01 00:00:00": the date is a placeholder, as in
//     idealised cases of other models), named by each field's `coordinates` attribute;
//   - on each field `units` (UDUNITS), `long_name` and, where CF has one, `standard_name`;
//   - the fields also linked at the root (the same datasets as /fields/<name>, which XDMF and the post
//     tools read), because CDO reads the root group only;
//   - the global attribute Conventions = "CF-1.8".
#pragma once
#include <hdf5.h>

#include <string>

#include "domain/local_grid.hpp"
#include "io/hdf5_util.hpp"

namespace stratus {

struct GridVariable;

/// The coordinate variables of one snapshot file (open while the fields are written).
struct CfCoordinates {
  h5::Dataset x, y, z, time;
};

/// Collective. Writes Conventions and the coordinate variables into the root of `file` (the rank with
/// root true writes their values, through the collective transfer list dxpl). length_unit and time_unit as
/// in Provenance.
CfCoordinates write_cf_coordinates(hid_t file, const LocalGrid& g, const std::string& length_unit,
                                   const std::string& time_unit, double time, hid_t dxpl, bool root);

/// Collective. Attaches the coordinates to field dataset ds (dimensions z, y, x), writes its CF attributes,
/// and links it at the root as `v.name` unless a coordinate has that name.
void describe_cf_field(hid_t file, hid_t ds, const std::string& path_in_file, const GridVariable& v,
                       const CfCoordinates& c);

/// CF units for a unit label: UDUNITS strings pass through; labels that are no unit ("tracer", empty)
/// become "1".
std::string cf_units(const std::string& unit);

}  // namespace stratus
