#!/usr/bin/env bash
# Builds Stratus and runs its whole test suite (Catch2 under CTest, MPI tests at 1, 2 and 4 ranks).
# Installs what is missing first (scripts/install-deps.sh): on a fresh Debian 12 machine this one
# command does everything; when everything is there it goes straight to the (incremental) build.
#
# Usage: scripts/test.sh [--preset cpu|debug] [extra ctest arguments, e.g. -R halo]
# Environment: STRATUS_JOBS (parallel build/test jobs, default: number of cores).
set -euo pipefail
# shellcheck source=scripts/lib/build.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"
root=$STRATUS_ROOT
preset=cpu
if [ "${1:-}" = "--preset" ]; then preset="$2"; shift 2; fi
jobs="${STRATUS_JOBS:-$(nproc)}"

stratus_deps --test-tools
cd "$root"
start=$(date +%s)
stratus_build --verbose "$preset"
built=$(date +%s)
echo "[test] build took $((built - start)) s"
# One OpenMP thread per rank (set per test as well); MPI tests oversubscribe at 4 ranks.
OMP_NUM_THREADS=1 OMP_PROC_BIND=false ctest --preset "$preset" -j"$jobs" "$@"
echo "[test] tests took $(( $(date +%s) - built )) s"
