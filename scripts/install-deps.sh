#!/usr/bin/env bash
# Installs what Stratus needs to build on Debian 12 and prints the Kokkos prefix to use.
#
# - Debian packages by name (MPICH, parallel HDF5 on MPICH, Boost.Program_options, Catch2, FFTW, cmake, ...),
#   only those missing, with apt-get (needs root).
# - Kokkos 3.4.1 built from Debian's `trilinos` source package (packages/kokkos) into a cached prefix,
#   unless a Kokkos >= 3.4 is already given through Kokkos_ROOT.
# It does not download anything but Debian packages. Idempotent: with everything present it only checks.
#
# Usage: scripts/install-deps.sh [--backend openmp|cuda] [--arch HOPPER90|AMPERE80|...]
# stdout: one line, the Kokkos install prefix; all messages go to stderr.
# Environment: STRATUS_DEPS_DIR (default ~/.cache/stratus), Kokkos_ROOT (use this Kokkos instead).
set -euo pipefail

backend=openmp
arch=HOPPER90
while [ $# -gt 0 ]; do
  case "$1" in
    --backend) backend="$2"; shift 2 ;;
    --backend=*) backend="${1#*=}"; shift ;;
    --arch) arch="$2"; shift 2 ;;
    --arch=*) arch="${1#*=}"; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 0 ;;
    *) echo "install-deps: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
case "$backend" in openmp|cuda) ;; *) echo "install-deps: --backend must be openmp or cuda, not '$backend'" >&2; exit 2 ;; esac

say() { echo "[install-deps] $*" >&2; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
deps_dir="${STRATUS_DEPS_DIR:-$HOME/.cache/stratus}"
kokkos_version=3.4.1

# ---------------------------------------------------------------- Debian packages
packages=(build-essential cmake pkg-config ca-certificates xz-utils git
          mpich libmpich-dev libhdf5-mpich-dev hdf5-tools
          libboost-program-options-dev catch2 libfftw3-dev)
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
  as_root apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
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

if [ -n "${Kokkos_ROOT:-}" ]; then
  if kokkos_ok "$Kokkos_ROOT"; then echo "$Kokkos_ROOT"; exit 0; fi
  say "Kokkos_ROOT=$Kokkos_ROOT holds no Kokkos >= 3.4 CMake package (lib*/cmake/Kokkos); unset it to build one"
  exit 1
fi

# A Kokkos from Spack or environment modules usually arrives through CMAKE_PREFIX_PATH.
if [ "$backend" = openmp ] && [ -n "${CMAKE_PREFIX_PATH:-}" ]; then
  IFS=: read -r -a _paths <<<"$CMAKE_PREFIX_PATH"
  for p in "${_paths[@]}"; do
    if [ -n "$p" ] && kokkos_ok "$p"; then say "using the Kokkos in $p (CMAKE_PREFIX_PATH)"; echo "$p"; exit 0; fi
  done
fi

if [ "$backend" = cuda ]; then
  prefix="$deps_dir/kokkos-$kokkos_version-cuda-${arch,,}"
else
  prefix="$deps_dir/kokkos-$kokkos_version-openmp"
fi
if kokkos_ok "$prefix"; then echo "$prefix"; exit 0; fi

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
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
        | as_root tee /etc/apt/sources.list.d/stratus-deb-src.sources >/dev/null
    else
      grep -h '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | sed 's/^deb /deb-src /' \
        | as_root tee /etc/apt/sources.list.d/stratus-deb-src.list >/dev/null
    fi
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

build="$deps_dir/build/kokkos-$kokkos_version-$backend"
rm -rf "$build"; mkdir -p "$deps_dir/build"
opts=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_CXX_STANDARD=17
      -DCMAKE_CXX_EXTENSIONS=OFF -DKokkos_ENABLE_SERIAL=ON -DBUILD_SHARED_LIBS=OFF
      -DCMAKE_POSITION_INDEPENDENT_CODE=ON)
if [ "$backend" = cuda ]; then
  say "the CUDA backend is built by scripts/install-deps.sh --backend cuda once the CUDA patch is in place"
  exit 1
else
  opts+=(-DKokkos_ENABLE_OPENMP=ON)
fi
say "building Kokkos $kokkos_version ($backend) into $prefix"
cmake -S "$src" -B "$build" "${opts[@]}" >"$build.log" 2>&1 || { say "Kokkos configure failed, see $build.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" >>"$build.log" 2>&1 || { say "Kokkos build failed, see $build.log"; exit 1; }
cmake --install "$build" >>"$build.log" 2>&1 || { say "Kokkos install failed, see $build.log"; exit 1; }
rm -rf "$build"; mkdir -p "$deps_dir/build"
kokkos_ok "$prefix" || { say "Kokkos installed into $prefix but its CMake package is not where expected"; exit 1; }
echo "$prefix"
