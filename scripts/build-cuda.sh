#!/usr/bin/env bash
# Builds Stratus for NVIDIA GPUs: compiles and links every target (executable, tests) with nvcc_wrapper
# against a Kokkos with the CUDA backend. Needs nvcc (CUDA >= 11.0), not a GPU.
# - Installs what is missing first: the Debian packages and the CUDA Kokkos prefix (scripts/install-deps.sh
#   --backend cuda, cached under ~/.cache/stratus, about 2 minutes the first time).
# - HOPPER90 (H100/H200) builds with the `cuda` preset into build/cuda; another architecture into
#   build/cuda-<arch>.
# - With --bundle, also packs the build and the shared libraries it needs for a GPU machine
#   (scripts/gpu-bundle.sh; run it there with scripts/gpu-check.sh).
#
# Usage: scripts/build-cuda.sh [--arch HOPPER90|ADA89|AMPERE80|AMPERE86|TURING75|VOLTA70] [--bundle]
# Environment: STRATUS_JOBS (parallel build jobs, default: number of cores).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
arch=HOPPER90
bundle=0
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch="$2"; shift 2 ;;
    --arch=*) arch="${1#*=}"; shift ;;
    --bundle) bundle=1; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-cuda: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
arch=${arch^^}
jobs="${STRATUS_JOBS:-$(nproc)}"

prefix="$("$root/scripts/install-deps.sh" --backend cuda --arch "$arch")"
build="build/cuda"
[ "$arch" = HOPPER90 ] || build="build/cuda-${arch,,}"
cd "$root"
start=$(date +%s)
# The preset's Kokkos_ROOT and compiler name the default cache prefix; pass the real ones explicitly.
cmake --preset cuda -B "$build" -DKokkos_ROOT="$prefix" -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" >/dev/null
cmake --build "$build" -j"$jobs"
echo "[build-cuda] $build built for $arch in $(( $(date +%s) - start )) s (compile and link only; running needs a GPU)"
if [ "$bundle" = 1 ]; then
  bash "$root/scripts/gpu-bundle.sh" "$build"
fi
