#!/usr/bin/env bash
# Installs what Stratus needs to build on Debian 12 and prints the Kokkos prefix to use.
#
# - Debian packages by name (MPICH, parallel HDF5 on MPICH, Boost.Program_options, Catch2, FFTW, cmake, ...),
#   only those missing, with apt-get (needs root).
# - Kokkos 3.4.1 built from Debian's `trilinos` source package (packages/kokkos) into a cached prefix,
#   unless a Kokkos >= 3.4 is already given through Kokkos_ROOT.
# It does not download anything but Debian packages. Idempotent: with everything present it only checks.
#
# - With --backend cuda: Kokkos with the CUDA backend (Serial on the host) for one GPU architecture (default
#   HOPPER90 = sm_90, H100/H200), built with nvcc (PATH, CUDA_ROOT or /usr/local/cuda) after applying
#   scripts/kokkos-3.4.1-cuda13.patch (CUDA 13 and Hopper support) to a copy of the extracted source.
#
# - With --test-tools: also what the test suite runs besides the build (Debian's python3-h5py, numpy,
#   matplotlib and MDAnalysis for the postprocessing and trajectory tests, jsonschema for the run report
#   test, procps for the signal tests, Slurm and munge for the scheduler test, which starts daemons of its
#   own and leaves the system's alone, Lmod for the install test's module file, ParaView and Xvfb for the
#   headless renders, LAMMPS for the cross-checks against it; LAMMPS brings Open MPI, and the mpi and
#   mpirun alternatives are set back to MPICH after it), so that no test is skipped. With --fuzz-tools:
#   clang-16 with libFuzzer and its sanitizer runtimes, libomp and llvm-16 (llvm-symbolizer), for
#   scripts/fuzz.sh.
#
# Usage: scripts/install-deps.sh [--backend openmp|cuda] [--arch HOPPER90|ADA89|AMPERE80|AMPERE86|TURING75|VOLTA70]
#                                [--test-tools] [--fuzz-tools]
# stdout: one line, the Kokkos install prefix; all messages go to stderr.
# Environment: STRATUS_DEPS_DIR (default ~/.cache/stratus), Kokkos_ROOT (use this Kokkos instead).
set -euo pipefail

backend=openmp
test_tools=0
fuzz_tools=0
arch=HOPPER90
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) backend="$2"; shift 2 ;;
    --backend=*) backend="${1#*=}"; shift ;;
    --arch) arch="$2"; shift 2 ;;
    --test-tools) test_tools=1; shift ;;
    --fuzz-tools) fuzz_tools=1; shift ;;
    --arch=*) arch="${1#*=}"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 0 ;;
    *) echo "install-deps: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
case "$backend" in openmp|cuda) ;; *) echo "install-deps: --backend must be openmp or cuda, not '$backend'" >&2; exit 2 ;; esac
arch=${arch^^}
case "$arch" in
  HOPPER90|ADA89|AMPERE80|AMPERE86|TURING75|VOLTA70) ;;
  *) echo "install-deps: --arch must be one of HOPPER90 ADA89 AMPERE80 AMPERE86 TURING75 VOLTA70, not '$arch'" >&2; exit 2 ;;
esac

say() { echo "[install-deps] $*" >&2; }
# Never stop without a word: name the command that failed (set -e alone exits silently).
trap 'rc=$?; say "failed (exit $rc) at line $LINENO: $BASH_COMMAND"; exit $rc' ERR
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
deps_dir="${STRATUS_DEPS_DIR:-$HOME/.cache/stratus}"
kokkos_version=3.4.1

# ---------------------------------------------------------------- Debian packages
packages=(build-essential cmake pkg-config ca-certificates xz-utils git
          mpich libmpich-dev libhdf5-mpich-dev hdf5-tools
          libboost-program-options-dev catch2 libfftw3-dev)
[ "$test_tools" = 1 ] && packages+=(python3-h5py python3-numpy python3-matplotlib python3-mdanalysis python3-jsonschema procps
                                     netcdf-bin cdo python3-xarray python3-netcdf4
                                     slurm-wlm slurm-client munge lmod paraview python3-paraview xvfb xauth
                                     lammps)
[ "$fuzz_tools" = 1 ] && packages+=(clang-16 libclang-rt-16-dev libomp-16-dev llvm-16)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"; else return 1; fi; }
can_apt() { command -v apt-get >/dev/null && { [ "$(id -u)" -eq 0 ] || { command -v sudo >/dev/null && sudo -n true 2>/dev/null; }; }; }

if [ ${#missing[@]} -gt 0 ]; then
  if ! can_apt; then
    say "missing packages: ${missing[*]}"
    say "install them as root with:  apt-get update && apt-get install -y ${missing[*]}"
    exit 1
  fi
  say "installing ${missing[*]}"
  # munge's postinst makes its key as user munge through su, which fails where / is not searchable by
  # other users (some chroots and containers); a key made here first is what it would have made.
  if [[ " ${missing[*]} " == *" munge "* ]] && ! as_root test -e /etc/munge/munge.key; then
    as_root mkdir -p -m 0700 /etc/munge
    as_root sh -c 'umask 077 && dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none'
  fi
  as_root apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
# Open MPI (LAMMPS' dependency) takes over the mpi and mpirun alternatives when it is installed: MPICH is
# the one Stratus builds and runs with.
if [ "$test_tools" = 1 ] && command -v update-alternatives >/dev/null; then
  for alt in mpi:/usr/bin/mpicc.mpich mpirun:/usr/bin/mpirun.mpich; do
    name=${alt%%:*} want=${alt#*:}
    if [ -e "$want" ] && [ "$(readlink "/etc/alternatives/$name" 2>/dev/null)" != "$want" ] &&
      update-alternatives --query "$name" 2>/dev/null | grep -q "^Alternative: $want\$"; then
      say "setting the $name alternative back to MPICH ($want)"
      as_root update-alternatives --set "$name" "$want" >&2
    fi
  done
fi

# ---------------------------------------------------------------- Kokkos
kokkos_ok() {  # $1 = prefix; true when it holds a Kokkos >= 3.4 CMake package
  local f
  f=$(ls "$1"/lib*/cmake/Kokkos/KokkosConfigVersion.cmake 2>/dev/null | head -n1) || true
  [ -n "$f" ] || return 1
  local v; v=$(sed -n 's/.*set(PACKAGE_VERSION "\([0-9.]*\)").*/\1/p' "$f" | head -n1)
  [ -n "$v" ] || return 1
  local major=${v%%.*} rest=${v#*.}; local minor=${rest%%.*}
  [ "$major" -gt 3 ] || { [ "$major" -eq 3 ] && [ "$minor" -ge 4 ]; }
}

kokkos_devices() {  # $1 = prefix; the backends its Kokkos was built with, e.g. "OPENMP;SERIAL" (empty: unknown)
  sed -n 's/^[[:space:]]*[Ss][Ee][Tt](Kokkos_DEVICES[[:space:]]*"\{0,1\}\([^)"]*\)"\{0,1\})/\1/p' \
    "$1"/lib*/cmake/Kokkos/KokkosConfigCommon.cmake 2>/dev/null | head -n1
}
backend_ok() {  # $1 = prefix; true unless its backends are known not to make this build's kind of binary
  local d; d=";$(kokkos_devices "$1");"
  [ "$d" = ";;" ] && return 0
  case "$backend" in
    cuda) [[ $d == *";CUDA;"* ]] ;;
    *) [[ $d != *";CUDA;"* && $d != *";HIP;"* && $d != *";SYCL;"* && $d != *";OPENMPTARGET;"* ]] ;;
  esac
}

if [ -n "${Kokkos_ROOT:-}" ]; then
  if ! kokkos_ok "$Kokkos_ROOT"; then
    say "Kokkos_ROOT=$Kokkos_ROOT holds no Kokkos >= 3.4 CMake package (lib*/cmake/Kokkos); unset it to build one"
    exit 2
  fi
  # A Kokkos built for GPUs makes binaries that run only on a GPU (every test of a CPU build then fails),
  # and one without CUDA makes no GPU build.
  if ! backend_ok "$Kokkos_ROOT"; then
    if [ "$backend" = cuda ]; then
      say "Kokkos_ROOT=$Kokkos_ROOT is a Kokkos without CUDA (Kokkos_DEVICES $(kokkos_devices "$Kokkos_ROOT")), which makes no GPU build; unset it to build one, or point it at a Kokkos built with CUDA"
    else
      say "Kokkos_ROOT=$Kokkos_ROOT is a Kokkos for GPUs (Kokkos_DEVICES $(kokkos_devices "$Kokkos_ROOT")), whose binaries run only on a GPU; the CPU build wants one with OpenMP or Serial alone: unset Kokkos_ROOT to build one, or build for GPUs with scripts/build-cuda.sh"
    fi
    exit 2
  fi
  echo "$Kokkos_ROOT"
  exit 0
fi

# A Kokkos from Spack or environment modules usually arrives through CMAKE_PREFIX_PATH.
if [ "$backend" = openmp ] && [ -n "${CMAKE_PREFIX_PATH:-}" ]; then
  IFS=: read -r -a _paths <<<"$CMAKE_PREFIX_PATH"
  for p in "${_paths[@]}"; do
    if [ -n "$p" ] && kokkos_ok "$p" && backend_ok "$p"; then say "using the Kokkos in $p (CMAKE_PREFIX_PATH)"; echo "$p"; exit 0; fi
  done
fi

patch_file="$here/kokkos-$kokkos_version-cuda13.patch"
if [ "$backend" = cuda ]; then
  prefix="$deps_dir/kokkos-$kokkos_version-cuda-${arch,,}"
  # The prefix records which patch it was built with; a changed patch rebuilds it.
  patch_id=$(cksum <"$patch_file" | cut -d' ' -f1)
  stamp="$prefix/share/stratus-kokkos-patch"
  if kokkos_ok "$prefix" && [ "$(cat "$stamp" 2>/dev/null)" = "$patch_id" ]; then echo "$prefix"; exit 0; fi
  nvcc_bin=""
  if [ -n "${CUDA_ROOT:-}" ] && [ -x "$CUDA_ROOT/bin/nvcc" ]; then nvcc_bin="$CUDA_ROOT/bin/nvcc"
  elif command -v nvcc >/dev/null; then nvcc_bin=$(command -v nvcc)
  elif [ -x /usr/local/cuda/bin/nvcc ]; then nvcc_bin=/usr/local/cuda/bin/nvcc
  fi
  [ -n "$nvcc_bin" ] || { say "--backend cuda needs nvcc (CUDA >= 11.0): put it on PATH or set CUDA_ROOT"; exit 1; }
  command -v patch >/dev/null || { say "--backend cuda needs 'patch' (apt-get install patch)"; exit 1; }
else
  prefix="$deps_dir/kokkos-$kokkos_version-openmp"
  if kokkos_ok "$prefix"; then echo "$prefix"; exit 0; fi
fi

src="$deps_dir/src/kokkos-$kokkos_version"
if [ ! -f "$src/CMakeLists.txt" ]; then
  mkdir -p "$deps_dir/src"
  dl="$deps_dir/src/download"
  rm -rf "$dl"; mkdir -p "$dl"
  if ! (cd "$dl" && apt-get source --download-only trilinos >/dev/null 2>&1); then
    if ! can_apt; then
      say "need Debian's trilinos source package: add a deb-src line for bookworm and run 'apt-get update' as root,"
      say "or point Kokkos_ROOT at an installed Kokkos >= 3.4"
      exit 1
    fi
    say "adding a deb-src entry to fetch Debian's trilinos source package"
    if ! entry=$("$here/deb-src-entry.sh"); then
      say "cannot add a deb-src entry for trilinos: add a deb-src line for bookworm by hand,"
      say "or point Kokkos_ROOT at an installed Kokkos >= 3.4"
      exit 1
    fi
    printf '%s\n' "$entry" | tail -n +2 | as_root tee "/etc/apt/sources.list.d/$(head -n1 <<<"$entry")" >/dev/null
    as_root apt-get update -qq >&2
    (cd "$dl" && apt-get source --download-only trilinos >&2)
  fi
  tarball=$(ls "$dl"/trilinos_*.orig.tar.* | head -n1)
  say "extracting packages/kokkos from $(basename "$tarball")"
  tar -xf "$tarball" -C "$dl" --wildcards '*/packages/kokkos/*'
  ksrc=$(ls -d "$dl"/*/packages/kokkos | head -n1)
  got=$(sed -n 's/^set(Kokkos_VERSION_MAJOR \([0-9]*\)).*/\1/p;s/^set(Kokkos_VERSION_MINOR \([0-9]*\)).*/\1/p;s/^set(Kokkos_VERSION_PATCH \([0-9]*\)).*/\1/p' \
        "$ksrc/CMakeLists.txt" | while read -r n; do echo $((10#$n)); done | paste -sd.)
  [ "$got" = "$kokkos_version" ] || { say "Debian's trilinos carries Kokkos $got, expected $kokkos_version"; exit 1; }
  rm -rf "$src"; mv "$ksrc" "$src"
  rm -rf "$dl"
fi

build="$deps_dir/build/$(basename "$prefix")"
rm -rf "$build"; mkdir -p "$deps_dir/build"
opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_STANDARD=17
      -DCMAKE_CXX_EXTENSIONS=OFF -DKokkos_ENABLE_SERIAL=ON -DBUILD_SHARED_LIBS=OFF
      -DCMAKE_POSITION_INDEPENDENT_CODE=ON)
if [ "$backend" = cuda ]; then
  # A patched copy of the source, kept beside the pristine one and remade when the patch changes.
  csrc="$deps_dir/src/kokkos-$kokkos_version-cuda13"
  if [ "$(cat "$csrc/.stratus-patch" 2>/dev/null)" != "$patch_id" ]; then
    say "applying $(basename "$patch_file")"
    rm -rf "$csrc"; cp -a "$src" "$csrc"
    patch -d "$csrc" -p1 -s --no-backup-if-mismatch <"$patch_file" >&2 \
      || { rm -rf "$csrc"; say "$(basename "$patch_file") does not apply to $src"; exit 1; }
    echo "$patch_id" >"$csrc/.stratus-patch"
  fi
  src="$csrc"
  say "CUDA compiler: $nvcc_bin ($("$nvcc_bin" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')), arch $arch"
  opts+=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ENABLE_CUDA_CONSTEXPR=ON
         "-DKokkos_ARCH_$arch=ON" -DCMAKE_CXX_COMPILER="$csrc/bin/nvcc_wrapper")
  export CUDA_ROOT="${nvcc_bin%/bin/nvcc}"
else
  opts+=(-DKokkos_ENABLE_OPENMP=ON)
fi
say "building Kokkos $kokkos_version ($backend) into $prefix"
cmake -S "$src" -B "$build" "${opts[@]}" >"$build.log" 2>&1 || { say "Kokkos configure failed, see $build.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" >>"$build.log" 2>&1 || { say "Kokkos build failed, see $build.log"; exit 1; }
rm -rf "$prefix"
cmake --install "$build" >>"$build.log" 2>&1 || { say "Kokkos install failed, see $build.log"; exit 1; }
rm -rf "$build"; mkdir -p "$deps_dir/build"
kokkos_ok "$prefix" || { say "Kokkos installed into $prefix but its CMake package is not where expected"; exit 1; }
if [ "$backend" = cuda ]; then mkdir -p "$prefix/share"; echo "$patch_id" >"$stamp"; fi
echo "$prefix"
