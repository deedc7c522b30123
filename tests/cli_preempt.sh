#!/usr/bin/env bash
# Preemption at random moments, at 2 ranks: ten segments of one run, each ended by SIGTERM sent straight
# to both ranks at a random moment (a checkpoint every step, so that many signals land while one is
# being written). Every fourth is repeated within 50 ms (a scheduler's SIGTERM and mpiexec's copy: one
# request, a clean stop); every fourth is followed within 50 ms by SIGINT (a second request: an exit at
# once, or after the checkpoint being written). After each segment the run
# must be restartable (`stratus check --restart auto` accepts what is there, and no temporary is taken
# for a checkpoint); after the last, `--restart auto` runs it to its end, whose state must be bitwise
# equal to that of one uninterrupted run.
#   usage: cli_preempt.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
require_tools h5diff pgrep

# Steps of the whole run: enough that ten segments, each up to half a second of stepping, cannot reach the
# end (800 did once the split Euler step got faster: segment 10 found the run finished).
N=3000
RUN=(run "$SRC/inputs/climate/thermal.ini" --set grid.nx=200 --set grid.nz=100 --set run.t_end=1e9
     --set run.history_every=10 --set run.snapshot_every=0 --set run.max_steps=$N --set run.checkpoint_every=1)
CHECK=(check "$SRC/inputs/climate/thermal.ini" --set grid.nx=200 --set grid.nz=100 --set run.t_end=1e9)
chk() { printf '%s/thermal_chk_%08d.h5' "$1" "$2"; }

ref=$T/ref
expect_rc 0 "$T/log_ref" "$MPIEXEC" -n 2 "$STRATUS" "${RUN[@]}" --set run.output_dir="$ref"

# A decoy: another run of the same executable, as a test running beside this one under `ctest -j` would
# have, held stopped (a signal sent to it stays pending until it continues). The signals below must not
# reach it.
"$STRATUS" "${RUN[@]}" --set run.output_dir="$T/decoy" --set run.progress_every=1 > "$T/log_decoy" 2>&1 &
decoy=$!
wait_for_line "^step " "$T/log_decoy" $decoy
kill -STOP $decoy

p=$T/preempted
clean=0 repeated=0 second=0 during=0
for i in $(seq 10); do
  "$MPIEXEC" -n 2 "$STRATUS" "${RUN[@]}" --set run.output_dir="$p" --set run.progress_every=1 --restart auto \
    > "$T/log_$i" 2>&1 &
  pid=$!
  # once the segment steps (its stop handlers are in place), a random moment within the next 0.4 s
  wait_for_line "^step " "$T/log_$i" $pid
  sleep "0.$((RANDOM % 4))$((RANDOM % 10))"
  # this run's ranks only (their output directory is this test's), never another test's running beside it
  ranks=$(pgrep -f "^$STRATUS run .* run[.]output_dir=$p --set" || true)
  if [[ -z $ranks ]]; then
    rc=0
    wait $pid || rc=$?
    tail -n 5 "$T/log_$i" >&2
    fail "segment $i: no rank to signal: the run ended with exit $rc before the signal"
  fi
  # shellcheck disable=SC2086
  kill -TERM $ranks 2> /dev/null || true
  case $((i % 4)) in
    2) # the same request twice (a scheduler's SIGTERM and mpiexec's copy of it): one clean stop
      sleep "0.0$((RANDOM % 5))"
      # shellcheck disable=SC2086
      kill -TERM $ranks 2> /dev/null || true
      repeated=$((repeated + 1)) ;;
    0) # a second, different request: at once, or after the checkpoint being written
      sleep "0.0$((RANDOM % 5))"
      # shellcheck disable=SC2086
      kill -INT $ranks 2> /dev/null || true
      second=$((second + 1)) ;;
  esac
  rc=0
  wait $pid || rc=$?
  if (( i % 4 != 0 )); then
    [[ $rc -eq 3 ]] && grep -q "stopping at step" "$T/log_$i" ||
      { cat "$T/log_$i" >&2; fail "segment $i: SIGTERM$( (( i % 4 == 2 )) && echo ' twice'): exit $rc, not a clean stop"; }
    clean=$((clean + 1))
  fi
  grep -q "a second stop signal while a checkpoint is being written" "$T/log_$i" && during=$((during + 1))
  expect_rc 0 "$T/check_$i" "$STRATUS" "${CHECK[@]}" --set run.output_dir="$p" --restart auto
  newest=$(grep -o "restart file [^:]*" "$T/check_$i" | sed "s/restart file //" || true)
  [[ -z $newest || $newest == *_chk_*.h5 ]] || fail "segment $i: check --restart auto chose '$newest'"
done
expect_rc 0 "$T/log_end" "$MPIEXEC" -n 2 "$STRATUS" "${RUN[@]}" --set run.output_dir="$p" --restart auto
kill -CONT $decoy
sleep 1
kill -KILL $decoy 2> /dev/null || true
rc=0
wait $decoy || rc=$?
[[ $rc -eq 137 ]] || { cat "$T/log_decoy" >&2; fail "the decoy run beside the test ended with exit $rc: a signal meant for the test's own ranks reached it"; }
h5diff -q "$(chk "$ref" $N)" "$(chk "$p" $N)" /data/fields /data/fields ||
  fail "after ten preemptions the state at step $N differs from the uninterrupted run"
last=$(tail -n 1 "$p/thermal_history.csv" | cut -d, -f1)
[[ $last == "$N" ]] || fail "the preempted run's history ends at step $last"
segments=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["segments"]))' "$p/thermal_report.json")
pass "ten SIGTERMs at random moments ($clean clean stops with exit 3, $repeated of them SIGTERM twice; $second followed by SIGINT, $during of those during a checkpoint write): restartable each time; step $N bitwise equal to one run ($segments segments reported); a run beside it untouched"
