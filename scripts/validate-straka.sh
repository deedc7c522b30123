#!/usr/bin/env bash
# Validation (not a unit test; minutes): the Straka et al. (1993) density current at several resolutions,
# reporting the front position (the -1 K theta' contour at the ground, 900 s) and the minimum theta',
# against the published reference solution (front about 15.5 km, theta'_min about -9.77 K at dx = 25 m).
# Builds first if needed (scripts/run.sh does the set-up), unless --exe names the executable; needs
# Debian's python3-h5py (installed if missing and apt is usable).
#
# Usage: scripts/validate-straka.sh [-n RANKS] [--exe PATH] [--out DIR] [DX ...]
#   (default: 1 rank, dx = 200 100 50 m, OUT a new temporary directory)
# Writes OUT/dxN/ (and OUT/dxN.log) and prints one line per resolution.
set -euo pipefail
# shellcheck source=scripts/lib/build.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"
root=$STRATUS_ROOT
ranks=1 exe="" out="" dxs=()
usage="usage: validate-straka.sh [-n RANKS] [--exe PATH] [--out DIR] [DX ...]"
while [ $# -gt 0 ]; do
  case "$1" in
    -n|--exe|--out)
      if [ $# -lt 2 ] || [ -z "$2" ]; then echo "validate-straka: $1 needs a value ($usage)" >&2; exit 2; fi
      case "$1" in -n) ranks=$2 ;; --exe) exe=$2 ;; --out) out=$2 ;; esac
      shift 2 ;;
    -*) echo "validate-straka: unknown option '$1' ($usage)" >&2; exit 2 ;;
    *) dxs+=("$1"); shift ;;
  esac
done
[ ${#dxs[@]} -gt 0 ] || dxs=(200 100 50)
for v in "$ranks" "${dxs[@]}"; do
  case "$v" in *[!0-9]*|0) echo "validate-straka: -n and DX want positive integers, got '$v' ($usage)" >&2; exit 2 ;; esac
done

if ! /usr/bin/python3 -c "import h5py, numpy" 2>/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-h5py python3-numpy >&2
  else
    echo "validate-straka: needs python3-h5py and python3-numpy (apt-get install python3-h5py python3-numpy)" >&2
    exit 1
  fi
fi
stratus_exe "$exe"
stratus_out_dir "$out" stratus-validate-straka
threads=$(( $(nproc) / ranks )); [ "$threads" -ge 1 ] || threads=1

echo "Straka density current, 900 s, nu = kappa = 75 m^2/s; reference (Straka et al. 1993, dx = 25 m):"
echo "front about 15.5 km, theta'_min about -9.77 K"
for dx in "${dxs[@]}"; do
  nx=$((51200 / dx)); nz=$((6400 / dx))
  run_dir="$STRATUS_OUT/dx$dx"
  t0=$(date +%s)
  OMP_NUM_THREADS=$threads OMP_PROC_BIND=false mpiexec.mpich -n "$ranks" "$STRATUS_EXE" run \
    "$root/inputs/climate/straka.ini" -q --set grid.nx=$nx --set grid.nz=$nz --set run.output_dir="$run_dir" \
    > "$run_dir.log" 2>&1 || { echo "dx = $dx m: the run failed, see $run_dir.log"; exit 1; }
  last=$(find "$run_dir" -maxdepth 1 -name 'straka_[0-9]*.h5' | sort | tail -n 1)
  echo "dx = $dx m ($nx x $nz cells, $(( $(date +%s) - t0 )) s):" \
    "$(/usr/bin/python3 "$root/scripts/climate_analysis.py" front "$last")"
done
