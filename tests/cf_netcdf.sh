#!/usr/bin/env bash
# Grid snapshots read as CF netCDF-4 by the climate tool chain: a 2D rising thermal (40 x 20, one rank)
# and a 3D one (16 x 12 x 10 on 2 ranks, so the coordinates and attributes come from a parallel write).
#   - ncdump -h: dimensions x, y, z of the grid, coordinate variables with units, Conventions = "CF-1.8",
#     units / long_name / standard_name on the fields;
#   - cdo sinfo: the fields on the grid (points nx * ny, levels nz) and one time step;
#   - xarray.open_dataset (netCDF4 engine): every field equal to h5py's /fields/<name>, bit for bit, with
#     dims (z, y, x); x, y, z the cell centres lo + (i + 1/2) dx; time the snapshot's time.
# The tools come from Debian (netcdf-bin, cdo, python3-xarray, python3-netcdf4; scripts/test.sh installs
# them); without them the test is skipped (77).
#   usage: cf_netcdf.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
PY=${STRATUS_PYTHON:-/usr/bin/python3}
export PYTHONDONTWRITEBYTECODE=1

command -v ncdump > /dev/null || skip "ncdump not found (Debian: netcdf-bin)"
command -v cdo > /dev/null || skip "cdo not found (Debian: cdo)"
"$PY" -c 'import xarray, netCDF4, h5py' 2> /dev/null ||
  skip "$PY cannot import xarray, netCDF4 and h5py (Debian: python3-xarray python3-netcdf4 python3-h5py)"

expect_rc 0 run2d.log "$STRATUS" run "$SRC/inputs/climate/thermal.ini" --set grid.nx=40 --set grid.nz=20 \
  --set run.max_steps=3 --set run.t_end=1e9 --set run.snapshot_every=3 --set run.output_dir="$T/2d"
expect_rc 0 run3d.log "$MPIEXEC" -n 2 "$STRATUS" run "$SRC/inputs/climate/thermal3d.ini" --set grid.nx=16 \
  --set grid.ny=12 --set grid.nz=10 --set run.max_steps=2 --set run.t_end=1e9 --set run.snapshot_every=2 \
  --set run.output_dir="$T/3d"
F2=$T/2d/thermal_000003.h5
F3=$T/3d/thermal3d_000002.h5
[[ -f $F2 && -f $F3 ]] || fail "snapshots missing: $(ls "$T/2d" "$T/3d")"

# check FILE NX NY NZ
check() {
  local f=$1 nx=$2 ny=$3 nz=$4 tag
  tag=$(basename "$f")
  expect_rc 0 "$tag.cdl" ncdump -h "$f"
  for want in "x = $nx ;" "y = $ny ;" "z = $nz ;" 'double rho(z, y, x) ;' 'double x(x) ;' 'x:units = "m" ;' \
    'z:positive = "up" ;' ':Conventions = "CF-1.8" ;' 'rho:units = "kg/m^3" ;' 'rho:standard_name = "air_density" ;' \
    'w:standard_name = "upward_air_velocity" ;' 'theta_prime:units = "K" ;' 'time:units = "seconds since'; do
    grep -qF "$want" "$tag.cdl" || fail "ncdump -h $tag: no '$want' in: $(head -c 1500 "$tag.cdl")"
  done
  expect_rc 0 "$tag.cdo" cdo sinfo "$f"
  grep -qE "points=$((nx * ny)) \(${nx}x$ny\)" "$tag.cdo" || fail "cdo sinfo $tag: not a $nx x $ny grid: $(cat "$tag.cdo")"
  grep -qE "levels=$nz\b" "$tag.cdo" || fail "cdo sinfo $tag: not $nz levels: $(cat "$tag.cdo")"
  grep -q "time : 1 step" "$tag.cdo" || fail "cdo sinfo $tag: no time step: $(cat "$tag.cdo")"
  grep -cE "^ +[0-9]+ : .* F64 " "$tag.cdo" | grep -qx 6 || fail "cdo sinfo $tag: not 6 fields: $(cat "$tag.cdo")"
  expect_rc 0 "$tag.xr" "$PY" - "$f" << 'EOF'
import sys
import h5py
import numpy as np
import xarray as xr

path = sys.argv[1]
ds = xr.open_dataset(path, engine="netcdf4", decode_times=False)
with h5py.File(path, "r") as h:
    names = sorted(h["fields"])
    assert names == ["p_prime", "rho", "theta_prime", "u", "v", "w"], names
    for n in names:
        a, b = ds[n].values, h["fields/" + n][...]
        assert ds[n].dims == ("z", "y", "x"), (n, ds[n].dims)
        assert a.shape == b.shape and np.array_equal(a, b), n
    lo, dx, n = h.attrs["origin"], h.attrs["spacing"], h.attrs["global_cells"]
    for d, c in enumerate("xyz"):
        want = lo[d] + (np.arange(n[d]) + 0.5) * dx[d]
        assert np.allclose(ds[c].values, want, rtol=0, atol=1e-9 * dx[d]), (c, ds[c].values, want)
    assert float(ds["time"]) == float(h.attrs["time"]), (float(ds["time"]), h.attrs["time"])
    assert "time" in ds["rho"].coords
print("xarray: %d fields equal to h5py, coordinates and time" % len(names))
EOF
  pass "$tag: ncdump -h, cdo sinfo ($nx x $ny x $nz, 6 fields) and xarray read it; values equal h5py's"
}
check "$F2" 40 1 20
check "$F3" 16 12 10
