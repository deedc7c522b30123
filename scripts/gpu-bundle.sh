#!/usr/bin/env bash
# Packs a CUDA build for a GPU machine that has no internet and none of Stratus' dependencies: the
# executable, the test executables, the MPICH launcher, h5dump/h5diff (used by the shell tests) and every
# shared library they load except the C library family, the NVIDIA driver and cuFFT (280 MB: it comes from
# the GPU machine's CUDA installation, /usr/local/cuda or $CUDA_ROOT, same major version). A manifest lists every
# CTest test with its environment and rank count, with paths made relative to the bundle, so that
# scripts/gpu-check.sh can run the suite there without cmake.
#
# Usage: scripts/gpu-bundle.sh [BUILD_DIR (default build/cuda)] [OUT (default BUILD_DIR/../gpu-bundle.tar.gz)]
# Run it where the build was made; copy OUT and the source tree (for the decks and test scripts) across.
# STRATUS_BUNDLE_ALLOW_HOST=1 packs a CPU build too (to try the packing and scripts/gpu-check.sh without a GPU).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:-$root/build/cuda}" && pwd)"
out="${2:-$(dirname "$build")/gpu-bundle.tar.gz}"
[ -x "$build/stratus" ] || { echo "gpu-bundle: no $build/stratus; build first (scripts/build-cuda.sh)" >&2; exit 1; }
[ "${STRATUS_BUNDLE_ALLOW_HOST:-0}" = 1 ] || grep -q "^CMAKE_CXX_COMPILER:.*nvcc_wrapper" "$build/CMakeCache.txt" \
  || { echo "gpu-bundle: $build is not a CUDA build (its compiler is not nvcc_wrapper)" >&2; exit 1; }

work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
stage="$work/stratus-gpu"
mkdir -p "$stage/bin" "$stage/tests" "$stage/lib"
cp "$build/stratus" "$stage/bin/"
[ -x "$build/tests/bench_fft" ] && cp "$build/tests/bench_fft" "$stage/bin/"
# The stand-in NVML of the telemetry tests, beside the executable where tests/cli_batch.sh looks for it
# (scripts/gpu-check.sh hands its path to test_batch_support through STRATUS_FAKE_NVML).
[ -f "$build/tests/libfake_nvml.so" ] && cp "$build/tests/libfake_nvml.so" "$stage/bin/"
for t in "$build"/tests/test_*; do [ -x "$t" ] && [ -f "$t" ] && cp "$t" "$stage/tests/"; done
mpiexec="$(readlink -f "$(command -v mpiexec.mpich)")"
cp "$mpiexec" "$stage/bin/mpiexec"
cp "$(dirname "$mpiexec")/hydra_pmi_proxy" "$stage/bin/"
for tool in h5dump h5diff; do cp "$(command -v $tool)" "$stage/bin/"; done
# UCX (MPICH's transport) loads its transport modules from a directory at run time.
ucx=$(ls -d /usr/lib/*/ucx 2>/dev/null | head -n1 || true)
[ -n "$ucx" ] && cp -r "$ucx" "$stage/lib/ucx"

# Shared libraries: everything ldd resolves, less glibc's own and the CUDA toolkit's.
skip='/(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux[^/]*)\.so|/libcufft|/libcuda\.so|/libnvidia'
for f in "$stage"/bin/* "$stage"/tests/* ${ucx:+"$stage"/lib/ucx/*.so*}; do
  ldd "$f" 2>/dev/null | awk '/=> \//{print $3}'
done | sort -u | grep -Ev "$skip" | while read -r lib; do cp -L "$lib" "$stage/lib/"; done

# The CTest suite as a manifest: name, rank count (0 = no launcher), environment, command.
py=$(command -v /usr/bin/python3 || command -v python3)
(cd "$build" && ctest --show-only=json-v1) | "$py" -c '
import json, sys
build, src, mpiexec = sys.argv[1], sys.argv[2], sys.argv[3]
for t in json.load(sys.stdin)["tests"]:
    cmd = t["command"]
    env = ""
    for p in t.get("properties", []):
        if p["name"] == "ENVIRONMENT":
            env = " ".join(p["value"])
    np = 0
    launchers = (mpiexec, "/usr/bin/mpiexec.mpich", "/usr/bin/mpiexec")
    if cmd[0] in launchers:
        np = int(cmd[2])
    def rel(a):
        if a in launchers:
            return "@BUNDLE@/bin/mpiexec"
        a = a.replace(build + "/tests/", "@BUNDLE@/tests/").replace(build + "/stratus", "@BUNDLE@/bin/stratus")
        return a.replace(src, "@REPO@")
    print("\t".join([t["name"], str(np), env, " ".join(rel(a) for a in cmd)]))
' "$build" "$root" "$mpiexec" >"$stage/tests.manifest"

{
  echo "built: $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname)"
  echo "git: $(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
  echo "kokkos: $(sed -n 's/^Kokkos_DIR[^=]*=//p' "$build/CMakeCache.txt" | head -n1)"
  echo "flags: $(sed -n 's/^CXX_FLAGS = //p' "$build/CMakeFiles/stratus.dir/flags.make" 2>/dev/null)"
  "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)" --version | tail -n2 | head -n1
} >"$stage/BUILD_INFO"
tar -C "$work" -czf "$out" stratus-gpu
echo "[gpu-bundle] $out: $(du -h "$out" | cut -f1) ($(ls "$stage/lib" | wc -l) libraries, $(wc -l <"$stage/tests.manifest") tests)"
