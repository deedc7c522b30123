#!/usr/bin/env bash
# scripts/launch.sh turns a stop signal into exit code 3 and a checkpoint, every time:
#  (a) 20 runs of a 2-rank 2D thermal through scripts/launch.sh -n 2, each sent TERM, INT, USR1 or HUP
#      (in turn) at a random moment between 0.5 and 2.5 s: each exits 3 and leaves a checkpoint that
#      `stratus check --restart auto` accepts; every tenth is continued with `--restart auto` for K more
#      steps and its final checkpoint is bitwise identical (h5diff /data/fields) to an uninterrupted run
#      to the same step. The stopped runs are given far more steps than any machine takes in 2.5 s, so
#      the signal always comes first, however fast the stepping;
#  (b) a run that completes exits 0, a deck with an unknown key exits 2, through the launcher;
#  (c) the launcher's private temporary directory (the stop file's) is gone after each run.
# The same signals sent to mpiexec.mpich directly give 0 instead of 3 in some runs (8 of 20 measured,
# docs/batch.md), which is why the launcher does not pass them on.
#   usage: launcher_exit.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
require_tools h5diff
export STRATUS_MPIEXEC=$MPIEXEC
LAUNCH=$SRC/scripts/launch.sh
mkdir -p "$T/tmp"
export TMPDIR=$T/tmp

M=2000      # steps of the complete run
K=2000      # steps a stopped run is continued by
LONG=10000000  # steps of a run that is stopped (hours at any speed: the signal comes first)
DECK=(run "$SRC/inputs/climate/thermal.ini" --set grid.nx=100 --set grid.nz=50 --set run.t_end=1e9
      --set run.checkpoint_every=100000000 --set run.snapshot_every=0 --set run.history_every=100 -q)
launch() { "$LAUNCH" -n 2 --stratus "$STRATUS" -- "$@"; }
final_chk() { printf '%s/thermal_chk_%08d.h5' "$1" "$2"; }
no_leftovers() {
  [[ -z $(ls -A "$T/tmp") ]] || fail "$1: the launcher left $(ls -A "$T/tmp") in TMPDIR"
}

start=$SECONDS
expect_rc 0 "$T/ref.log" launch "${DECK[@]}" --set "run.max_steps=$M" --set run.output_dir="$T/ref"
[[ -f $(final_chk "$T/ref" $M) ]] || fail "the complete run left no checkpoint at step $M"
no_leftovers "a complete run"
pass "a complete run through the launcher exits 0 ($((SECONDS - start)) s)"

expect_rc 2 "$T/bad.log" launch "${DECK[@]}" --set "run.max_steps=$M" --set run.output_dir="$T/bad" --set run.no_such_key=1
grep -q 'no_such_key' "$T/bad.log" || fail "bad input: the message does not name the key"
[[ ! -e $T/bad ]] || fail "bad input: the output directory was created"
no_leftovers "a bad deck"
pass "a deck with an unknown key through the launcher exits 2 and writes nothing"

sigs=(TERM INT USR1 HUP)
trials=20
for i in $(seq 1 $trials); do
  sig=${sigs[$(( (i - 1) % 4 ))]}
  d=$T/trial$i
  log=$T/trial$i.log
  t0=$SECONDS
  # (not through the function: $! must be the launcher; a background command starts with SIGINT
  # ignored, which a script cannot trap: env restores it)
  env --default-signal=INT "$LAUNCH" -n 2 --stratus "$STRATUS" -- "${DECK[@]}" --set "run.max_steps=$LONG" \
    --set run.output_dir="$d" > "$log" 2>&1 &
  pid=$!
  delay=$(printf '%d.%02d' $(( RANDOM % 2 )) $(( RANDOM % 100 )))
  sleep 0.5
  sleep "$delay"
  kill -s "$sig" $pid 2> /dev/null || { cat "$log" >&2; fail "trial $i: the launcher had ended before SIG$sig came"; }
  # (the run would go on for hours: a stop that does not come fails here within 60 s, the run killed)
  for _ in $(seq 600); do
    kill -0 $pid 2> /dev/null || break
    sleep 0.1
  done
  if kill -0 $pid 2> /dev/null; then
    pkill -KILL -f "run.output_dir=$d" || true
    kill -KILL $pid 2> /dev/null || true
    cat "$log" >&2
    fail "trial $i: SIG$sig after 0.5+$delay s: the run did not stop within 60 s"
  fi
  rc=0
  wait $pid || rc=$?
  FAIL_LOGS=("$log")
  [[ $rc -eq 3 ]] || fail "trial $i: SIG$sig after 0.5+$delay s: exit $rc, expected 3"
  grep -q "got SIG$sig" "$log" || fail "trial $i: the launcher did not report SIG$sig"
  chks=("$d"/thermal_chk_*.h5)
  chk=${chks[-1]}
  [[ -f $chk ]] || fail "trial $i: exit 3 without a checkpoint"
  expect_rc 0 "$T/check$i.log" "$STRATUS" check "$SRC/inputs/climate/thermal.ini" --set grid.nx=100 \
    --set grid.nz=50 --set run.output_dir="$d" --restart auto
  no_leftovers "trial $i"
  step=$(basename "$chk" .h5)
  step=$((10#${step##*_}))
  [[ $step -gt 0 && $step -lt $LONG ]] || fail "trial $i: the checkpoint is at step $step"
  note=""
  if (( i % 10 == 0 )); then
    # run.max_steps is the absolute step at which the run ends: a restart with a larger one goes on to it
    end=$((step + K))
    expect_rc 0 "$T/cont$i.log" launch "${DECK[@]}" --set "run.max_steps=$end" --set run.output_dir="$d" \
      --restart auto
    FAIL_LOGS+=("$T/cont$i.log" "$d/thermal_history.csv")
    expect_rc 0 "$T/ref$i.log" launch "${DECK[@]}" --set "run.max_steps=$end" --set run.output_dir="$T/ref$i"
    h5diff -q "$(final_chk "$T/ref$i" $end)" "$(final_chk "$d" $end)" /data/fields /data/fields ||
      fail "trial $i: continued from step $step, the state at step $end differs from the uninterrupted run" \
        "(files: $(ls "$d" | tr '\n' ' '))"
    note=", continued to step $end: bitwise equal"
  fi
  FAIL_LOGS=()
  pass "trial $i: SIG$sig after 0.5+$delay s: exit 3, checkpoint at step $step restarts$note ($((SECONDS - t0)) s)"
done
echo "launcher_exit: all checks passed ($trials stops, $((SECONDS - start)) s)"
