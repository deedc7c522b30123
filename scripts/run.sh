#!/usr/bin/env bash
# Runs a Stratus simulation. Installs what is missing and builds the executable first (fast when
# everything is there). Without a deck it runs the built-in default deck (a short 3D tracer run) and
# says where the output is and how to open it.
#
# Usage: scripts/run.sh [DECK] [-n RANKS] [--set section.key=value]...
#   DECK       an input deck (see inputs/); omitted: the built-in default deck
#   -n RANKS   MPI ranks (default 1); OpenMP threads per rank default to cores / RANKS
# Examples:
#   scripts/run.sh
#   scripts/run.sh inputs/advection/gaussian3d.ini -n 2 --set grid.nx=128
set -euo pipefail
# shellcheck source=scripts/lib/build.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"
root=$STRATUS_ROOT
ranks=1
args=()
deck=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n|--np) ranks="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --set) args+=("$1" "$2"); shift 2 ;;
    -*) args+=("$1"); shift ;;
    *) if [ -z "$deck" ]; then deck="$1"; else args+=("$1"); fi; shift ;;
  esac
done
case "$ranks" in ''|*[!0-9]*|0) echo "run.sh: -n needs a positive rank count, got '$ranks'" >&2; exit 2 ;; esac
if [ -n "$deck" ] && [ ! -r "$deck" ]; then echo "run.sh: cannot read deck '$deck'" >&2; exit 2; fi

stratus_deps
stratus_build cpu stratus
exe="$root/build/cpu/stratus"

threads=$(( $(nproc) / ranks )); [ "$threads" -ge 1 ] || threads=1
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$threads}" OMP_PROC_BIND="${OMP_PROC_BIND:-false}"
# scripts/launch.sh starts the MPI launcher and turns Ctrl-C into a stop with a checkpoint (exit 3;
# continue with --restart auto); a second Ctrl-C stops at once.
cmd=("$root/scripts/launch.sh" -n "$ranks" --stratus "$exe" -- run)
[ -n "$deck" ] && cmd+=("$deck")
cmd+=("${args[@]+"${args[@]}"}")
echo "[run] ${cmd[*]}"
"${cmd[@]}"
echo "[run] view it: paraview <output_dir>/<name>.xmf (with the default deck: paraview output/default/default.xmf),"
echo "      or plot the history table <output_dir>/<name>_history.csv"
