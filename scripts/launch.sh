#!/usr/bin/env bash
# Starts stratus on RANKS MPI ranks and turns a stop signal into a clean stop: the run writes a checkpoint
# and the exit status is 3, however the signal arrives (a terminal's Ctrl-C, a batch shell's signal from
# Slurm's --signal=B:USR1@N, scancel --signal=USR1 --batch, a kill). Used by scripts/run.sh and the job
# scripts of scripts/slurm/. It builds nothing and writes nothing but a private temporary directory.
#
# Usage: scripts/launch.sh [-n RANKS] [--launcher mpiexec|srun] [--stratus EXE] -- ARGS...
#   -n RANKS    MPI ranks; default: SLURM_NTASKS inside a Slurm allocation, else 1 (1 outside Slurm
#               runs EXE without an MPI launcher)
#   --launcher  mpiexec (default: MPICH's mpiexec.mpich, or $STRATUS_MPIEXEC) or srun (srun --mpi=pmi2,
#               only inside a Slurm allocation)
#   --stratus   the executable (default: $STRATUS, else build/cpu/stratus of this checkout, else
#               `stratus` on PATH)
#   ARGS        stratus's arguments; with `run`, `--ranks RANKS` is added so that a launcher that starts
#               another number of processes is refused (exit 2) instead of running RANKS copies
# Exit status: the launcher's (stratus's: 0 complete, 1 failure, 2 bad input, 3 stopped after a
# checkpoint), 2 for a usage error here, 128 + the signal's number after a second INT or TERM.
#
# How a stop works. The launcher runs in the background in a session of its own, so a terminal's Ctrl-C
# or a signal to the batch shell's process group reaches only this script. The script exports
# STRATUS_STOP_FILE (a path in a private temporary directory under $TMPDIR, removed at exit); on the first
# TERM, INT, USR1 or HUP it creates that file, and stratus (rank 0 looks at most every 0.1 s, at the end of
# a step) stops at the step, writes a checkpoint and exits 3. No signal passes through mpiexec: MPICH's mpiexec.mpich
# that itself gets SIGTERM or SIGUSR1 returns 0 instead of the ranks' 3 in some runs (8 of 20 measured;
# docs/batch.md). A second INT or TERM (two Ctrl-C) is forwarded to the launcher (stop now; stratus ends
# at once); USR1 and HUP never are, so a job script's USR1 plus Slurm's SIGTERM to the job do not add up.
# The stop file lies on the node that runs this script, where rank 0 runs (mpiexec and srun put rank 0 on
# the first node of an allocation, which runs the batch script); set TMPDIR to a shared directory if not.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
me=launch.sh
usage() { sed -n '7,/^#$/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "$me: $*" >&2; exit 2; }

ranks="" launcher=mpiexec exe=""
while [ $# -gt 0 ]; do
  case "$1" in
    -n|--np) [ $# -ge 2 ] || die "$1 needs a value"; ranks=$2; shift 2 ;;
    --launcher) [ $# -ge 2 ] || die "$1 needs a value"; launcher=$2; shift 2 ;;
    --stratus) [ $# -ge 2 ] || die "$1 needs a value"; exe=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) die "unknown option '$1' (stratus's arguments follow '--'; see --help)" ;;
  esac
done
args=("$@")

if [ -z "$ranks" ]; then ranks=${SLURM_NTASKS:-1}; fi
case "$ranks" in ''|*[!0-9]*|0*) die "-n needs a positive rank count, got '$ranks'" ;; esac
case "$launcher" in mpiexec|srun) ;; *) die "--launcher must be mpiexec or srun, got '$launcher'" ;; esac
if [ -z "$exe" ]; then
  if [ -n "${STRATUS:-}" ]; then exe=$STRATUS
  elif [ -x "$root/build/cpu/stratus" ]; then exe=$root/build/cpu/stratus
  else exe=stratus; fi
fi
exe_path=$(command -v "$exe") || die "--stratus: '$exe' is not an executable"
exe_path=$(realpath "$exe_path")
[ -x "$exe_path" ] || die "--stratus: '$exe' is not an executable"

if [ "${args[0]:-}" = run ]; then args+=(--ranks "$ranks"); fi

cmd=()
if [ "$launcher" = srun ]; then
  [ -n "${SLURM_JOB_ID:-}" ] || die "--launcher srun needs a Slurm allocation (no SLURM_JOB_ID)"
  cmd=(srun --mpi=pmi2 -n "$ranks" "$exe_path")
elif [ "$ranks" -gt 1 ] || [ -n "${SLURM_JOB_ID:-}" ]; then
  mpiexec=${STRATUS_MPIEXEC:-$(command -v mpiexec.mpich || command -v mpiexec || true)}
  [ -n "$mpiexec" ] || die "no mpiexec.mpich or mpiexec on PATH (set STRATUS_MPIEXEC)"
  cmd=("$mpiexec" -n "$ranks" "$exe_path")
else
  cmd=("$exe_path")
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/stratus-launch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export STRATUS_STOP_FILE=$tmp/stop

pid="" signals=0 stops=0 trapped=0 forwarded=""
# shellcheck disable=SC2317  # called from the traps
on_signal() {
  local sig=$1
  trapped=1
  signals=$((signals + 1))
  if [ "$sig" = INT ] || [ "$sig" = TERM ]; then stops=$((stops + 1)); fi
  if [ "$signals" -eq 1 ]; then
    : > "$STRATUS_STOP_FILE"
    echo "$me: got SIG$sig: asking stratus to stop at its next step (it writes a checkpoint and exits 3)" >&2
  elif [ "$stops" -ge 2 ]; then
    echo "$me: got SIG$sig again: passing it to the launcher (stop now)" >&2
    forwarded=$sig
    kill -s "$sig" "$pid" 2> /dev/null || true
  else
    echo "$me: got SIG$sig again: the stop is already under way" >&2
  fi
}
for s in TERM INT USR1 HUP; do
  # shellcheck disable=SC2064  # $s is meant to be expanded now
  trap "on_signal $s" "$s"
done

# A session of its own (setsid execs in place: $! is the launcher); bash would start a background
# command with SIGINT and SIGQUIT ignored, env puts them back; stdin is not the terminal's.
env --default-signal=INT,QUIT setsid "${cmd[@]}" "${args[@]+"${args[@]}"}" < /dev/null &
pid=$!

# wait returns early (status > 128) when a trapped signal arrives: wait again until the launcher is gone
# (bash keeps its status, so a second wait after it ended returns that status).
while :; do
  trapped=0
  rc=0
  wait "$pid" || rc=$?
  if [ "$trapped" = 1 ] && [ "$rc" -gt 128 ]; then continue; fi
  break
done
# After a passed-on signal the ranks end at once without final output, and mpiexec.mpich may still
# return 0: never report that as a complete run.
if [ -n "$forwarded" ] && [ "$rc" = 0 ]; then
  rc=$((128 + $(kill -l "$forwarded")))
  echo "$me: stopped at once by a second SIG$forwarded; exit $rc (the launcher said 0)" >&2
fi
exit "$rc"
