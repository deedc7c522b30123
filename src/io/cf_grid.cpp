// CF coordinates and attributes of grid snapshots (io/cf_grid.hpp).
#include "io/cf_grid.hpp"

#include <H5DSpublic.h>

#include <vector>

#include "core/error.hpp"
#include "io/grid_output.hpp"

namespace stratus {

namespace {

// A 1D coordinate of n cell centres lo + (i + 1/2) dx, made a dimension scale named `name`.
h5::Dataset coordinate(hid_t file, const char* name, int n, double lo, double dx, const std::string& unit,
                       const char* axis, const char* long_name, hid_t dxpl, bool root) {
  const hsize_t dims[1] = {static_cast<hsize_t>(n)};
  h5::Dataspace space(H5Screate_simple(1, dims, nullptr), std::string("create dataspace of coordinate ") + name);
  h5::Dataset ds(H5Dcreate2(file, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, h5::untimed(H5P_DATASET_CREATE).get(),
                            H5P_DEFAULT),
                 std::string("create coordinate ") + name);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = lo + (i + 0.5) * dx;
  h5::write_selection(ds.get(), H5T_NATIVE_DOUBLE, {0}, {static_cast<hsize_t>(n)}, root, v.data(), dxpl,
                      std::string("coordinate ") + name);
  h5::check_status(H5DSset_scale(ds.get(), name), std::string("make coordinate ") + name + " a dimension scale");
  h5::write_attribute(ds.get(), "units", unit);
  h5::write_attribute(ds.get(), "axis", axis);
  h5::write_attribute(ds.get(), "long_name", long_name);
  return ds;
}

// CF names of the variables Stratus writes (long_name, standard_name or empty); others get their own name.
struct CfNames {
  const char* name;
  const char* long_name;
  const char* standard_name;
};
constexpr CfNames kNames[] = {
    {"rho", "air density", "air_density"},
    {"u", "velocity along x", "x_wind"},
    {"v", "velocity along y", "y_wind"},
    {"w", "vertical velocity", "upward_air_velocity"},
    {"theta_prime", "potential temperature minus that of the hydrostatic background", ""},
    {"p_prime", "pressure minus that of the hydrostatic background", ""},
    {"h", "fluid depth", ""},
    {"eta", "free-surface displacement from the resting depth", ""},
    {"q", "tracer concentration", ""},
};

}  // namespace

std::string cf_units(const std::string& unit) { return unit.empty() || unit == "tracer" ? "1" : unit; }

CfCoordinates write_cf_coordinates(hid_t file, const LocalGrid& g, const std::string& length_unit,
                                   const std::string& time_unit, double time, hid_t dxpl, bool root) {
  h5::write_attribute(file, "Conventions", "CF-1.8");
  CfCoordinates c;
  c.x = coordinate(file, "x", g.global_n[0], g.lo[0], g.dx[0], length_unit, "X", "x coordinate of cell centres", dxpl,
                   root);
  c.y = coordinate(file, "y", g.global_n[1], g.lo[1], g.dx[1], length_unit, "Y", "y coordinate of cell centres", dxpl,
                   root);
  c.z = coordinate(file, "z", g.global_n[2], g.lo[2], g.dx[2], length_unit, "Z", "height of cell centres", dxpl, root);
  h5::write_attribute(c.z.get(), "positive", "up");

  h5::Dataspace scalar(H5Screate(H5S_SCALAR), "create dataspace of coordinate time");
  c.time = h5::Dataset(H5Dcreate2(file, "time", H5T_IEEE_F64LE, scalar.get(), H5P_DEFAULT,
                                  h5::untimed(H5P_DATASET_CREATE).get(), H5P_DEFAULT),
                       "create coordinate time");
  {  // collective: the root rank writes the value, the others select nothing
    h5::Dataspace mem(H5Screate(H5S_SCALAR), "create memory dataspace of time");
    h5::Dataspace in_file(H5Screate(H5S_SCALAR), "create file dataspace of time");
    if (!root) {
      h5::check_status(H5Sselect_none(mem.get()), "select nothing of time in memory");
      h5::check_status(H5Sselect_none(in_file.get()), "select nothing of time");
    }
    h5::check_status(H5Dwrite(c.time.get(), H5T_NATIVE_DOUBLE, mem.get(), in_file.get(), dxpl, &time), "write time");
  }
  const bool seconds = time_unit == "s";
  h5::write_attribute(c.time.get(), "units", seconds ? "seconds since 2000-01-01 00:00:00" : time_unit);
  if (seconds) {
    h5::write_attribute(c.time.get(), "calendar", "proleptic_gregorian");
    h5::write_attribute(c.time.get(), "standard_name", "time");
  }
  h5::write_attribute(c.time.get(), "axis", "T");
  h5::write_attribute(c.time.get(), "long_name",
                      seconds ? "simulated time (the date is a placeholder)" : "simulated time");
  return c;
}

void describe_cf_field(hid_t file, hid_t ds, const std::string& path_in_file, const GridVariable& v,
                       const CfCoordinates& c) {
  const std::string what = "dataset " + path_in_file;
  h5::check_status(H5DSattach_scale(ds, c.z.get(), 0), "attach z to " + what);
  h5::check_status(H5DSattach_scale(ds, c.y.get(), 1), "attach y to " + what);
  h5::check_status(H5DSattach_scale(ds, c.x.get(), 2), "attach x to " + what);
  h5::write_attribute(ds, "units", cf_units(v.unit));
  std::string long_name = v.name, standard_name;
  for (const auto& n : kNames)
    if (v.name == n.name) {
      long_name = n.long_name;
      standard_name = n.standard_name;
    }
  h5::write_attribute(ds, "long_name", long_name);
  if (!standard_name.empty()) h5::write_attribute(ds, "standard_name", standard_name);
  h5::write_attribute(ds, "coordinates", "time");
  if (v.name != "x" && v.name != "y" && v.name != "z" && v.name != "time")
    h5::check_status(H5Lcreate_hard(file, path_in_file.c_str(), file, v.name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
                     "link " + what + " at the root");
}

}  // namespace stratus
