#!/usr/bin/env bash
# scripts/install-deps.sh with a Kokkos of the user's (Kokkos_ROOT, CMAKE_PREFIX_PATH): one built for GPUs
# is refused for the CPU build (exit 2 and a message naming Kokkos_ROOT and its backends), since its
# binaries run only on a GPU (a CPU build made with one failed every test with "no usable CUDA device");
# one without CUDA is refused for the GPU build; an older Kokkos or a prefix without one is refused
# (exit 2); a CPU Kokkos is taken as it is; on CMAKE_PREFIX_PATH a GPU Kokkos is passed over for a CPU
# one further on. The Kokkos here are fake prefixes holding only the CMake files that are read.
#   usage: deps_kokkos.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
script=$SRC/scripts/install-deps.sh

fake_kokkos() {  # DIR VERSION DEVICES: a prefix with Kokkos' version and config files
  mkdir -p "$1/lib/cmake/Kokkos"
  echo "set(PACKAGE_VERSION \"$2\")" > "$1/lib/cmake/Kokkos/KokkosConfigVersion.cmake"
  echo "SET(Kokkos_DEVICES $3)" > "$1/lib/cmake/Kokkos/KokkosConfigCommon.cmake"
}
fake_kokkos "$T/cpu" 3.4.1 "OPENMP;SERIAL"
fake_kokkos "$T/serial" 4.2.0 "SERIAL"
fake_kokkos "$T/gpu" 3.4.1 "CUDA;SERIAL"
fake_kokkos "$T/old" 3.2.0 "OPENMP;SERIAL"
# Where a fall-through would look for (or build) the Kokkos it makes: a fake CPU Kokkos of its own, so
# that a wrong answer shows as this path instead of a build.
export STRATUS_DEPS_DIR=$T/deps
fake_kokkos "$T/deps/kokkos-3.4.1-openmp" 3.4.1 "OPENMP;SERIAL"

# deps CASE WANT_RC WANT_OUT WANT_MESSAGE ARGS...: install-deps.sh with ARGS (its environment set by the
# caller) exits WANT_RC, prints WANT_OUT on stdout and WANT_MESSAGE (a substring; empty: none wanted) on stderr.
deps() {
  local case=$1 rc_want=$2 out_want=$3 msg=$4 rc=0
  shift 4
  bash "$script" "$@" > "$T/out" 2> "$T/err" || rc=$?
  FAIL_LOGS=("$T/err")
  [[ $rc == "$rc_want" ]] || fail "$case: exit $rc, expected $rc_want"
  [[ $(cat "$T/out") == "$out_want" ]] || fail "$case: stdout '$(cat "$T/out")', expected '$out_want'"
  [[ -z $msg || $(cat "$T/err") == *"$msg"* ]] || fail "$case: no '$msg' on stderr"
  pass "$case"
}

unset CMAKE_PREFIX_PATH
Kokkos_ROOT=$T/cpu deps "Kokkos_ROOT with OpenMP, CPU build" 0 "$T/cpu" ""
Kokkos_ROOT=$T/serial deps "Kokkos_ROOT with Serial alone, CPU build" 0 "$T/serial" ""
Kokkos_ROOT=$T/gpu deps "Kokkos_ROOT with CUDA, CPU build" 2 "" \
  "Kokkos_ROOT=$T/gpu is a Kokkos for GPUs (Kokkos_DEVICES CUDA;SERIAL)"
Kokkos_ROOT=$T/gpu deps "Kokkos_ROOT with CUDA, GPU build" 0 "$T/gpu" "" --backend cuda
Kokkos_ROOT=$T/cpu deps "Kokkos_ROOT without CUDA, GPU build" 2 "" \
  "Kokkos_ROOT=$T/cpu is a Kokkos without CUDA (Kokkos_DEVICES OPENMP;SERIAL)" --backend cuda
Kokkos_ROOT=$T/old deps "Kokkos_ROOT with Kokkos 3.2" 2 "" "Kokkos_ROOT=$T/old holds no Kokkos >= 3.4"
Kokkos_ROOT=$T/none deps "Kokkos_ROOT without a Kokkos" 2 "" "Kokkos_ROOT=$T/none holds no Kokkos >= 3.4"
unset Kokkos_ROOT
CMAKE_PREFIX_PATH=$T/gpu:$T/old:$T/cpu deps "CMAKE_PREFIX_PATH: a GPU Kokkos passed over" 0 "$T/cpu" \
  "using the Kokkos in $T/cpu"
CMAKE_PREFIX_PATH=$T/gpu deps "CMAKE_PREFIX_PATH with a GPU Kokkos alone: the one built here" 0 \
  "$T/deps/kokkos-3.4.1-openmp" ""
