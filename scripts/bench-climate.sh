#!/usr/bin/env bash
# Benchmark of the Euler dynamical core: cell-updates per second for 2D (1024 x 512) and 3D (128^3) at
# sizes far beyond the caches, and the fraction of the memory-bandwidth roof (a triad measured in the
# same run) that the solver's own minimum traffic reaches. One rank with all cores as OpenMP threads, and
# one rank per core. Builds first if needed, unless --exe names the executable.
# Usage: scripts/bench-climate.sh [--steps N] [--exe PATH] [extra stratus bench options, e.g. --triad-mib 512]
set -euo pipefail
# shellcheck source=scripts/lib/build.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"
root=$STRATUS_ROOT
steps=10 exe=""
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps="${2:-}"; shift 2 || true ;;
    --exe) exe="${2:-}"; [ -n "$exe" ] || { echo "bench-climate: --exe needs a path" >&2; exit 2; }; shift 2 ;;
    *) break ;;
  esac
done
case "$steps" in ''|*[!0-9]*|0) echo "bench-climate: --steps wants a positive integer" >&2; exit 2 ;; esac
stratus_exe "$exe"
cd "$root"
cores=$(nproc)
cases=("2D 1024 x 512|inputs/climate/thermal.ini --set grid.nx=1024 --set grid.nz=512"
       "3D 128^3|inputs/climate/thermal3d.ini --set grid.nx=128 --set grid.ny=128 --set grid.nz=128")
for c in "${cases[@]}"; do
  label=${c%%|*}; args=${c#*|}
  for layout in "1 $cores" "$cores 1"; do
    nr=${layout% *}; nt=${layout#* }
    echo "== Euler $label, $nr rank(s) x $nt thread(s)"
    # shellcheck disable=SC2086
    OMP_NUM_THREADS=$nt OMP_PROC_BIND=false mpiexec.mpich -n "$nr" "$STRATUS_EXE" bench $args --steps "$steps" "$@" \
      2>&1 | grep '^bench:'
  done
done
