#!/usr/bin/env bash
# Submits a Stratus run to Slurm as a requeueing job: validates the deck first (`stratus check`, so a typo
# never waits in a queue), fills the job script template (scripts/slurm/stratus-cpu.sbatch, or
# stratus-gpu.sbatch with --gpus-per-node > 0), writes it to the job directory, prints it and submits it
# with sbatch, printing the job id. docs/batch.md walks through a cloud cluster with it.
#
# Usage: scripts/submit.sh DECK [options]
#   --nodes N             nodes (default 1)
#   --ranks-per-node M    MPI ranks per node (default: G with GPUs, else 1)
#   --cpus-per-task C     cores per rank = OpenMP threads per rank (default 1)
#   --gpus-per-node G     GPUs per node, one rank each (default 0: the CPU job script)
#   --time T              time limit of each job segment, [D-]HH:MM:SS or minutes (default 01:00:00)
#   --partition P         Slurm partition (default: Slurm's default partition)
#   --spot                a partition whose nodes can be taken away (cloud spot/preemptible capacity): the
#                         partition is $STRATUS_SPOT_PARTITION unless --partition names one, and the deck
#                         must write checkpoints on its own (run.checkpoint_every > 0)
#   --margin S            seconds before the time limit at which Slurm signals the job to stop (default
#                         120; Slurm may send it up to 60 s earlier); 0: no signal, the deck's walltime
#                         guard (run.walltime_margin) alone stops the run in time
#   --set section.key=v   a deck override, passed to the check and to every job segment (repeatable)
#   --stratus EXE         the executable the job runs (default: $STRATUS, else build/cpu/stratus, or
#                         build/cuda/stratus with GPUs, of this checkout)
#   --check-stratus EXE   the executable that validates the deck here (default: --stratus's; give a CPU
#                         build where a GPU build cannot start, e.g. on a login node without GPUs)
#   --launcher L          mpiexec (default, MPICH's mpiexec.mpich) or srun (srun --mpi=pmi2)
#   --job-dir DIR         where the job script and the Slurm log (NAME-JOBID.out) go (default:
#                         $STRATUS_JOB_DIR, else ~/stratus-jobs); never inside this checkout
#   --name NAME           the Slurm job name (default: the deck's run.name)
#   --dry-run             validate and print the job script; write and submit nothing
# The job runs in the current directory (a relative run.output_dir is taken from there).
# Exit status: 0 submitted (the last line printed is the job id) or --dry-run, 2 a bad option or a deck
# that does not pass the check (its message is shown), 1 sbatch failed.
set -euo pipefail
shopt -u patsub_replacement 2> /dev/null || true  # '&' in a substituted value stays '&' (bash 5.2)
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
me=submit.sh
die() { echo "$me: $*" >&2; exit 2; }
usage() { sed -n '7,/^[^#]/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; }

posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive whole number, got '$2'"; }
# seconds of a Slurm time limit: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS
slurm_seconds() {
  local t=$1 d=0 h=0 m=0 s=0
  if [[ $t =~ ^([0-9]+)-([0-9]+)(:([0-9]+)(:([0-9]+))?)?$ ]]; then
    d=${BASH_REMATCH[1]} h=${BASH_REMATCH[2]} m=${BASH_REMATCH[4]:-0} s=${BASH_REMATCH[6]:-0}
  elif [[ $t =~ ^([0-9]+):([0-9]+):([0-9]+)$ ]]; then
    h=${BASH_REMATCH[1]} m=${BASH_REMATCH[2]} s=${BASH_REMATCH[3]}
  elif [[ $t =~ ^([0-9]+)(:([0-9]+))?$ ]]; then
    m=${BASH_REMATCH[1]} s=${BASH_REMATCH[3]:-0}
  else
    return 1
  fi
  echo $(( 10#$d * 86400 + 10#$h * 3600 + 10#$m * 60 + 10#$s ))
}

deck="" nodes=1 rpn="" cpt=1 gpn=0 time=01:00:00 partition="" spot=0 margin=120 dry=0
exe="" check_exe="" launcher=mpiexec job_dir="" name=""
sets=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --dry-run) dry=1; shift; continue ;;
    --spot) spot=1; shift; continue ;;
    --nodes|--ranks-per-node|--cpus-per-task|--gpus-per-node|--time|--partition|--margin|--set|--stratus|\
    --check-stratus|--launcher|--job-dir|--name)
      [ $# -ge 2 ] || die "$1 needs a value" ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [ -z "$deck" ] || die "one deck only: '$deck' and '$1'"; deck=$1; shift; continue ;;
  esac
  opt=$1 val=$2
  shift 2
  case "$opt" in
    --nodes) posint "$opt" "$val"; nodes=$val ;;
    --ranks-per-node) posint "$opt" "$val"; rpn=$val ;;
    --cpus-per-task) posint "$opt" "$val"; cpt=$val ;;
    --gpus-per-node) [[ $val =~ ^[0-9]+$ ]] || die "$opt needs a whole number (0 for none), got '$val'"; gpn=$((10#$val)) ;;
    --time) slurm_seconds "$val" > /dev/null || die "$opt needs [D-]HH:MM:SS, MM:SS or minutes, got '$val'"; time=$val ;;
    --partition) [[ $val =~ ^[A-Za-z0-9_.-]+$ ]] || die "$opt: '$val' is not a partition name"; partition=$val ;;
    --margin) [[ $val =~ ^[0-9]+$ ]] || die "$opt needs a whole number of seconds, got '$val'"; margin=$((10#$val)) ;;
    --set) [[ $val =~ ^[A-Za-z0-9_]+\.[A-Za-z0-9_]+=.*$ ]] || die "$opt needs section.key=value, got '$val'"
           sets+=(--set "$val") ;;
    --stratus) exe=$val ;;
    --check-stratus) check_exe=$val ;;
    --launcher) [[ $val == mpiexec || $val == srun ]] || die "$opt must be mpiexec or srun, got '$val'"; launcher=$val ;;
    --job-dir) job_dir=$val ;;
    --name) [[ $val =~ ^[A-Za-z0-9_.+-]+$ ]] || die "$opt: '$val' is not a job name (letters, digits, _.+-)"; name=$val ;;
  esac
done
[ -n "$deck" ] || die "no deck given (usage: submit.sh DECK [options]; see --help)"
[ -r "$deck" ] || die "cannot read deck '$deck'"
deck=$(realpath "$deck")
[ -n "$rpn" ] || { if [ "$gpn" -gt 0 ]; then rpn=$gpn; else rpn=1; fi; }
if [ "$gpn" -gt 0 ] && [ "$rpn" -ne "$gpn" ]; then
  die "--ranks-per-node ($rpn) must equal --gpus-per-node ($gpn): one rank per GPU"
fi
limit=$(slurm_seconds "$time")
[ "$limit" -gt 0 ] || die "--time must be more than zero, got '$time'"
[ "$margin" -lt "$limit" ] || die "--margin ($margin s) must be shorter than --time ($time = $limit s)"
[ "$margin" -le 65535 ] || die "--margin must be at most 65535 s (Slurm's --signal), got $margin"
if [ "$spot" = 1 ] && [ -z "$partition" ]; then
  partition=${STRATUS_SPOT_PARTITION:-}
  [ -n "$partition" ] || die "--spot needs the spot partition: --partition P or STRATUS_SPOT_PARTITION"
  [[ $partition =~ ^[A-Za-z0-9_.-]+$ ]] || die "--spot: STRATUS_SPOT_PARTITION='$partition' is not a partition name"
fi

if [ -z "$exe" ]; then
  if [ -n "${STRATUS:-}" ]; then exe=$STRATUS
  elif [ "$gpn" -gt 0 ]; then exe=$root/build/cuda/stratus
  else exe=$root/build/cpu/stratus; fi
fi
exe_path=$(command -v "$exe" 2> /dev/null) || die "--stratus: '$exe' is not an executable (build it first: cmake --build --preset cpu)"
exe=$(realpath "$exe_path")
[ -n "$check_exe" ] || check_exe=$exe
check_path=$(command -v "$check_exe" 2> /dev/null) || die "--check-stratus: '$check_exe' is not an executable"

# The deck, as every segment will run it: a failure here is the message the job would have ended with.
check_log=$(mktemp)
trap 'rm -f "$check_log"' EXIT
if ! OMP_NUM_THREADS=1 OMP_PROC_BIND=false "$check_path" check "$deck" "${sets[@]+"${sets[@]}"}" > "$check_log" 2>&1; then
  grep -v '^ \|^$\|Kokkos\|OpenMP' "$check_log" >&2 || cat "$check_log" >&2
  die "the deck does not pass 'stratus check': nothing submitted"
fi
# a key of [run] from the resolved deck that `stratus check` prints
run_key() {
  awk -v k="$1" '/^\[/ { s = $0 } s == "[run]" && $1 == k && $2 == "=" { print $3; exit }' "$check_log"
}
[ -n "$name" ] || name=$(run_key name)
[[ ${name:-} =~ ^[A-Za-z0-9_.+-]+$ ]] || name=stratus
every=$(run_key checkpoint_every)
if [ "$spot" = 1 ] && [ "${every:-0}" = 0 ]; then
  die "--spot: set run.checkpoint_every (e.g. --set run.checkpoint_every=1000): a reclaimed spot node may get no signal"
fi

workdir=$(pwd)
[ -n "$job_dir" ] || job_dir=${STRATUS_JOB_DIR:-$HOME/stratus-jobs}
job_dir=$(realpath -m "$job_dir")
case "$job_dir/" in "$root"/*) die "--job-dir: '$job_dir' is inside the checkout $root; choose a directory outside it" ;; esac
for p in "$job_dir" "$workdir"; do
  [[ $p =~ ^[^[:space:]\"\'\\]+$ ]] || die "'$p' has spaces or quotes, which #SBATCH lines cannot carry; use another directory"
done

if [ "$gpn" -gt 0 ]; then template=$root/scripts/slurm/stratus-gpu.sbatch; else template=$root/scripts/slurm/stratus-cpu.sbatch; fi
script=$(< "$template")
if [ -z "$partition" ]; then script=$(grep -v '^#SBATCH --partition=' <<< "$script"); fi
if [ "$margin" = 0 ]; then script=$(grep -v '^#SBATCH --signal=' <<< "$script"); fi
quote() { printf '%q' "$1"; }
args=""
if [ ${#sets[@]} -gt 0 ]; then args=$(printf '%q ' "${sets[@]}"); args=${args% }; fi
fill() { script=${script//"@$1@"/$2}; }
fill JOB_NAME "$name"
fill NODES "$nodes"
fill TASKS_PER_NODE "$rpn"
fill CPUS_PER_TASK "$cpt"
fill GPUS_PER_NODE "$gpn"
fill TIME "$time"
fill PARTITION "$partition"
fill MARGIN "$margin"
fill JOB_DIR "$job_dir"
fill WORKDIR "$workdir"
fill ROOT "$(quote "$root")"
fill STRATUS "$(quote "$exe")"
fill DECK "$(quote "$deck")"
fill LAUNCHER "$launcher"
fill ARGS "$args"
left=$(grep -o '@[A-Z_]*@' <<< "$script" | sort -u | tr '\n' ' ' || true)
[ -z "$left" ] || { echo "$me: internal error: unfilled placeholders $left in $template" >&2; exit 1; }

if [ "$dry" = 1 ]; then
  printf '%s\n' "$script"
  echo "$me: --dry-run: not submitted (the job script would be written to $job_dir)" >&2
  exit 0
fi
mkdir -p "$job_dir"
file=$job_dir/$name-$(date +%Y%m%d-%H%M%S).sbatch
printf '%s\n' "$script" > "$file"
echo "$me: job script $file:"
cat "$file"
out=$(sbatch --parsable "$file") || { echo "$me: sbatch failed: $out" >&2; exit 1; }
jobid=${out%%;*}
echo "$me: submitted job $jobid (log: $job_dir/$name-$jobid.out)"
echo "$jobid"
