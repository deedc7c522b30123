#!/usr/bin/env bash
# Batch runs under a real Slurm (slurmctld + slurmd + munged of its own on this machine, tests/slurm_lib.sh;
# slurm-wlm, slurm-client and munge are installed with apt where missing):
#  (a) a 2-rank 2D thermal submitted with scripts/submit.sh is preempted twice while it runs, first with
#      `scancel --signal=USR1 --batch` (the job script passes it to scripts/launch.sh: stop, checkpoint,
#      exit 3, `scontrol requeue`), then with `scontrol requeue` (Slurm ends the running segment with
#      SIGTERM and starts the job again); it finishes in its third segment, SLURM_RESTART_COUNT counts
#      0, 1, 2, and its final checkpoint is bitwise identical (h5diff /data/fields) to an uninterrupted
#      run of the same deck with mpiexec; NAME_report.json lists three segments (checked where this
#      stratus writes the report);
#  (b) a job whose time limit (1 minute) is far too short for its run, submitted without a Slurm signal
#      (--margin 0), stops itself through the walltime guard (run.walltime_margin=40, the job's end
#      time asked from Slurm): exit 3, a checkpoint that restarts, the job requeued and not killed at
#      its limit (checked where this stratus has the guard);
#  (c) which processes of a job receive a signal; found (Slurm 22.05, proctrack/linuxproc):
#        --signal=B:USR1@N (at N s before the limit; it came 44 s before the end for N = 50, Slurm's
#            resolution is up to 60 s) and `scancel --signal=USR1 --batch`: the batch shell only; not its
#            children (same process group or a session of their own) and no job step;
#        `scancel --signal=USR1` (no --batch): the tasks of the job steps only (an srun task, and a rank
#            of mpiexec.mpich, whose proxies run as a Slurm step inside an allocation); not the batch
#            shell or its other children.
#      So a job script must take the B: signal itself and hand it on (scripts/slurm/*.sbatch do);
#  (d) a 2-rank run submitted with --launcher srun (srun --mpi=pmi2) completes.
# Exits 77 only where slurmd cannot run at all (no root, munged or slurmd does not start). Runs for about
# 2-3 minutes and prints the time of each part.
#   usage: slurm_batch.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
# shellcheck source=tests/slurm_lib.sh
source "$SRC/tests/slurm_lib.sh"
require_tools h5diff
test_cleanup() { slurm_stop; }

t_all=$SECONDS
slurm_install
slurm_start
echo "info: a Slurm of its own is up ($((SECONDS - t_all)) s): $(sinfo -h -o '%P %D %c CPUs %T')"
[[ $(sinfo -h -n localhost -o %c) -ge 2 ]] || skip "a 2-rank job needs 2 CPUs; this machine has $(nproc)"

export STRATUS_MPIEXEC=$MPIEXEC
chk() { printf '%s/%s_chk_%08d.h5' "$1" "$2" "$3"; }
# the last step in a history table
last_step() { tail -n 1 "$1" 2> /dev/null | cut -d, -f1 | grep -E '^[0-9]+$' || echo 0; }
wait_step() {  # wait_step CSV STEP TIMEOUT: until the history reaches STEP
  local t0=$SECONDS
  while (( $(last_step "$1") < $2 )); do
    (( SECONDS - t0 < $3 )) || fail "the run did not reach step $2 within $3 s (at $(last_step "$1"))"
    sleep 0.2
  done
}

# ---- (c) who gets the signal: a probe job whose processes record SIGUSR1 ----------------------------
t0=$SECONDS
cat > "$T/probe.sbatch" <<'EOF'
#!/bin/bash
out=$1
probe() {  # probe NAME: record SIGUSR1 as NAME (exec: a wrapper killed by the signal would orphan it)
  exec bash -c 'trap "echo $1 >> $2" USR1; echo started >> $2.$1; while :; do sleep 0.1; done' probe "$1" "$out"
}
trap 'echo batch-shell >> "$out"' USR1
probe child-same-pgrp &
setsid bash -c "$(declare -f probe); out=$out; probe child-own-session" &
srun --overlap -n 1 bash -c "$(declare -f probe); out=$out; probe srun-task" &
"$MPIEXEC" -n 1 bash -c "$(declare -f probe); out=$out; probe mpiexec-rank" &
while :; do sleep 0.2 & wait $!; done
EOF
probe_job() {  # probe_job MODE: submit, wait until all recorders run, signal (MODE), report who got it
  local mode=$1 f=$T/probe-$1 id extra=(-n 2) n
  [[ $mode == timed ]] && extra=(-n 1 --time=1 --signal=B:USR1@50)
  id=$(MPIEXEC=$MPIEXEC sbatch --parsable --export=ALL "${extra[@]+"${extra[@]}"}" \
       --output="$T/probe-%j.out" "$T/probe.sbatch" "$f")
  slurm_wait_state "$id" RUNNING 30
  for _ in $(seq 1 100); do
    n=$(compgen -G "$f.*" | wc -l || true)
    [[ $n -eq 4 ]] && break
    sleep 0.2
  done
  [[ $n -eq 4 ]] || { cat "$T/probe-$id.out" >&2; fail "(c) probe job $id: $n of 4 recorders started"; }
  case $mode in
    batch) scancel --signal=USR1 --batch "$id" ;;
    steps) scancel --signal=USR1 "$id" ;;
    timed) for _ in $(seq 1 120); do [[ -s $f ]] && break; sleep 0.5; done ;;
  esac
  sleep 2
  got=$(sort "$f" 2> /dev/null | tr '\n' ' ')
  scancel "$id"
  slurm_wait_state "$id" CANCELLED COMPLETED FAILED TIMEOUT 30
}
probe_job batch
[[ $got == "batch-shell " ]] || fail "(c) scancel --signal=USR1 --batch reached '$got', expected the batch shell only"
pass "(c) scancel --signal=USR1 --batch reaches the batch shell only"
probe_job steps
[[ $got == "mpiexec-rank srun-task " ]] ||
  fail "(c) scancel --signal=USR1 reached '$got', expected the step tasks only (srun-task, mpiexec-rank)"
pass "(c) scancel --signal=USR1 reaches the tasks of job steps only: $got"
echo "info: (c) took $((SECONDS - t0)) s"

# ---- (b) the walltime guard, with (c)'s --signal=B:USR1@N probe beside it (1 CPU each) -------------
t0=$SECONDS
BDECK=("$SRC/inputs/climate/thermal.ini" --set run.t_end=1e9 --set run.max_steps=1000000
       --set run.checkpoint_every=100000 --set run.history_every=100 --set run.walltime_margin=40)
if ! "$STRATUS" check "${BDECK[@]}" > "$T/b-check.log" 2>&1; then
  cat "$T/b-check.log" >&2
  fail "(b) the deck does not pass stratus check"
else
  bid=$("$SRC/scripts/submit.sh" "${BDECK[@]}" --set run.output_dir="$T/b" --stratus "$STRATUS" \
        --ranks-per-node 1 --time 00:01:00 --margin 0 --job-dir "$T/jobs" --name guard | tail -n 1)
  [[ $bid =~ ^[0-9]+$ ]] || fail "(b) submit.sh printed no job id ('$bid')"
  slurm_wait_state "$bid" RUNNING 30
  start=$SECONDS
  probe_job timed  # meanwhile (it takes 15-60 s)
  blog=$T/jobs/guard-$bid.out
  FAIL_LOGS=("$blog")
  while ! grep -q 'stopped after a checkpoint' "$blog" 2> /dev/null; do
    (( SECONDS - start < 70 )) || fail "(b) job $bid did not stop itself within 70 s of its start"
    [[ $(slurm_job_field "$bid" JobState) != TIMEOUT ]] || fail "(b) job $bid was killed at its time limit"
    sleep 0.5
  done
  stopped=$((SECONDS - start))
  # (after the requeue Slurm ends the segment with SIGTERM: only what came before counts)
  ! sed -n '1,/stopped after a checkpoint/p' "$blog" | grep -q '^\[job\] .* SIG' ||
    fail "(b) the job got a signal before it stopped; the guard was to stop it"
  expect_rc 0 "$T/b-restart.log" "$STRATUS" check "${BDECK[@]}" --set run.output_dir="$T/b" --restart auto
  slurm_wait_state "$bid" PENDING RUNNING REQUEUED 30
  [[ $(slurm_job_field "$bid" JobState) != TIMEOUT ]] || fail "(b) job $bid ended in TIMEOUT"
  reason=""
  if [[ -f $T/b/thermal_report.json ]]; then
    require_tools python3
    reason=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["segments"][0]["reason"])' \
      "$T/b/thermal_report.json")
    [[ $reason == *wall* ]] || fail "(b) the report gives the stop's reason as '$reason'"
  fi
  scancel "$bid"
  slurm_wait_state "$bid" CANCELLED 30
  FAIL_LOGS=()
  pass "(b) a 1-minute job stopped itself after ${stopped} s (exit 3, a checkpoint that restarts, requeued${reason:+, reason: $reason})"
fi
[[ $got == "batch-shell " ]] || fail "(c) --signal=B:USR1@50 reached '$got', expected the batch shell only"
pass "(c) --signal=B:USR1@50 reaches the batch shell only (not its children, not an srun task)"
echo "info: (b) and the timed probe took $((SECONDS - t0)) s"

# ---- (a) preempted twice, requeued, finished; bitwise equal to an uninterrupted run -------------------
t0=$SECONDS
# The two stops come at 10 % and 20 % of the run: the rest (5-10 s on 2 cores at 2.6e7 cell-updates/s)
# is the margin for the stop to reach the run, so that neither segment can complete before it.
M=8000
ADECK=("$SRC/inputs/climate/thermal.ini" --set grid.nx=200 --set grid.nz=100 --set run.t_end=1e9 --set "run.max_steps=$M"
       --set run.checkpoint_every=1000 --set run.history_every=100 --set run.snapshot_every=0)
a=$T/a
aid=$("$SRC/scripts/submit.sh" "${ADECK[@]}" --set run.output_dir="$a" --stratus "$STRATUS" \
      --ranks-per-node 2 --time 00:10:00 --margin 60 --job-dir "$T/jobs" --name preempt | tail -n 1)
[[ $aid =~ ^[0-9]+$ ]] || fail "(a) submit.sh printed no job id ('$aid')"
alog=$T/jobs/preempt-$aid.out
FAIL_LOGS=("$alog")
slurm_wait_state "$aid" RUNNING 30
wait_step "$a/thermal_history.csv" $((M / 10)) 120
scancel --signal=USR1 --batch "$aid"
slurm_wait_state "$aid" PENDING REQUEUED 60
s1=$(last_step "$a/thermal_history.csv")
(( s1 < M )) || fail "(a) the first segment completed the run before USR1 reached it: a longer run is needed"
[[ $(slurm_job_field "$aid" Restarts) == 1 ]] || fail "(a) after the first stop Restarts is $(slurm_job_field "$aid" Restarts)"
grep -q 'stopped after a checkpoint' "$alog" || fail "(a) the first segment did not stop with exit 3"
echo "info: (a) stopped by scancel --signal=USR1 --batch at step $s1, requeued ($((SECONDS - t0)) s)"
slurm_wait_state "$aid" RUNNING 60
wait_step "$a/thermal_history.csv" $((s1 + M / 10)) 120
scontrol requeue "$aid"
slurm_wait_state "$aid" PENDING REQUEUED 60
s2=$(last_step "$a/thermal_history.csv")
(( s2 < M )) || fail "(a) the second segment completed the run before the requeue reached it: a longer run is needed"
[[ $(slurm_job_field "$aid" Restarts) == 2 ]] || fail "(a) after scontrol requeue Restarts is $(slurm_job_field "$aid" Restarts)"
echo "info: (a) requeued by scontrol requeue near step $s2 ($((SECONDS - t0)) s)"
slurm_wait_state "$aid" COMPLETED FAILED 300
# what the second segment said when `scontrol requeue` ended it (SIGTERM to every process of the job)
echo "info: (a) the second segment's end, from the job log:"
sed -n '/segment 1 /,/segment 2 /p' "$alog" | grep -E 'SIGTERM|SIGUSR1|stop|checkpoint|CANCELLED|exit|launch.sh' | sed 's/^/      /'

[[ $(slurm_job_field "$aid" JobState) == COMPLETED ]] || fail "(a) job $aid ended $(slurm_job_field "$aid" JobState)"
grep -q 'the run is complete' "$alog" || fail "(a) the job's last segment did not complete the run"
segs=$(grep -o 'segment [0-9]*' "$alog" | tr '\n' ' ')
[[ $segs == "segment 0 segment 1 segment 2 " ]] || fail "(a) SLURM_RESTART_COUNT of the segments: '$segs'"
chks=("$a"/thermal_chk_*.h5)
final=$(basename "${chks[-1]}" .h5)
final=$((10#${final##*_}))
# run.max_steps is the absolute step at which the run ends, whatever the restarts
[[ $final -eq $M ]] || fail "(a) the run ended at step $final, not at run.max_steps = $M"
echo "info: (a) the job completed at step $final in its third segment ($((SECONDS - t0)) s)"
expect_rc 0 "$T/ref.log" "$MPIEXEC" -n 2 "$STRATUS" run "${ADECK[@]}" --set "run.max_steps=$final" \
  --set run.output_dir="$T/ref" -q
h5diff -q "$(chk "$T/ref" thermal "$final")" "$(chk "$a" thermal "$final")" /data/fields /data/fields ||
  fail "(a) the state at step $final after two preemptions differs from the uninterrupted run"
pass "(a) preempted at steps ~$s1 (USR1 to the batch shell) and ~$s2 (scontrol requeue): segments 0, 1, 2; step $final bitwise equal to an uninterrupted run"
[[ -f $a/thermal_report.json ]] || fail "(a) no thermal_report.json"
require_tools python3
n=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r["segments"]), *[s.get("slurm_restart_count") for s in r["segments"]])' "$a/thermal_report.json")
# `scontrol requeue` sends SIGTERM to every process of the job, and under mpiexec.mpich a rank gets it
# twice (as a task of Hydra's step and passed on by Hydra): stratus takes a SIGTERM repeated within 3 s
# as the same request, so every segment stops cleanly and is in the report.
[[ $n == "3 0 1 2" ]] || fail "(a) thermal_report.json: segments and restart counts '$n', expected '3 0 1 2'"
pass "(a) thermal_report.json lists three segments with restart counts 0, 1, 2"
FAIL_LOGS=()
echo "info: (a) took $((SECONDS - t0)) s"

# ---- (d) the other launcher: srun --mpi=pmi2 through launch.sh (submit.sh --launcher srun) ----------
t0=$SECONDS
did=$("$SRC/scripts/submit.sh" "${ADECK[@]}" --set run.max_steps=200 --set run.output_dir="$T/d" \
      --stratus "$STRATUS" --ranks-per-node 2 --time 00:05:00 --launcher srun --job-dir "$T/jobs" --name srun | tail -n 1)
[[ $did =~ ^[0-9]+$ ]] || fail "(d) submit.sh printed no job id ('$did')"
FAIL_LOGS=("$T/jobs/srun-$did.out")
slurm_wait_state "$did" COMPLETED FAILED 120
[[ $(slurm_job_field "$did" JobState) == COMPLETED ]] || fail "(d) the srun job ended $(slurm_job_field "$did" JobState)"
grep -q 'the run is complete' "$T/jobs/srun-$did.out" || fail "(d) the srun job did not complete the run"
[[ -n $(compgen -G "$T/d/thermal_chk_*.h5") ]] || fail "(d) the srun job wrote no checkpoint"
FAIL_LOGS=()
pass "(d) a 2-rank run through launch.sh --launcher srun (srun --mpi=pmi2) completes ($((SECONDS - t0)) s)"
echo "slurm_batch: all checks passed ($((SECONDS - t_all)) s)"
