#!/usr/bin/env bash
# Preemption at random moments, at 2 ranks: ten segments of one run, each ended by SIGTERM sent straight
# to both ranks at a random moment (a checkpoint every step, so that many signals land while one is
# being written), every other one followed within 50 ms by a second SIGTERM. After each segment the run
# must be restartable (`stratus check --restart auto` accepts what is there, and no temporary is taken
# for a checkpoint); after the last, `--restart auto` runs it to its end, whose state must be bitwise
# equal to that of one uninterrupted run.
#   usage: cli_preempt.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
require_tools h5diff pgrep

N=400
RUN=(run "$SRC/inputs/climate/thermal.ini" --set grid.nx=200 --set grid.nz=100 --set run.t_end=1e9
     --set run.history_every=10 --set run.snapshot_every=0 --set run.max_steps=$N --set run.checkpoint_every=1)
CHECK=(check "$SRC/inputs/climate/thermal.ini" --set grid.nx=200 --set grid.nz=100 --set run.t_end=1e9)
chk() { printf '%s/thermal_chk_%08d.h5' "$1" "$2"; }

ref=$T/ref
expect_rc 0 "$T/log_ref" "$MPIEXEC" -n 2 "$STRATUS" "${RUN[@]}" --set run.output_dir="$ref"

p=$T/preempted
stopped=0 double=0 during=0
for i in $(seq 10); do
  "$MPIEXEC" -n 2 "$STRATUS" "${RUN[@]}" --set run.output_dir="$p" --restart auto > "$T/log_$i" 2>&1 &
  pid=$!
  sleep "0.$((RANDOM % 9 + 3))"
  ranks=$(pgrep -f "^$STRATUS run " || true)
  if [[ -z $ranks ]]; then
    wait $pid || true
    fail "segment $i: the run ended before the signal (raise N)"
  fi
  # shellcheck disable=SC2086
  kill -TERM $ranks 2> /dev/null || true
  if (( i % 2 == 0 )); then
    sleep "0.0$((RANDOM % 5))"
    # shellcheck disable=SC2086
    kill -TERM $ranks 2> /dev/null || true
    double=$((double + 1))
  fi
  wait $pid || true
  grep -q "stopping at step" "$T/log_$i" && stopped=$((stopped + 1))
  grep -q "a second stop signal while a checkpoint is being written" "$T/log_$i" && during=$((during + 1))
  expect_rc 0 "$T/check_$i" "$STRATUS" "${CHECK[@]}" --set run.output_dir="$p" --restart auto
  newest=$(grep -o "restart file [^:]*" "$T/check_$i" | sed "s/restart file //" || true)
  [[ -z $newest || $newest == *_chk_*.h5 ]] || fail "segment $i: check --restart auto chose '$newest'"
done
expect_rc 0 "$T/log_end" "$MPIEXEC" -n 2 "$STRATUS" "${RUN[@]}" --set run.output_dir="$p" --restart auto
h5diff -q "$(chk "$ref" $N)" "$(chk "$p" $N)" /data/fields /data/fields ||
  fail "after ten preemptions the state at step $N differs from the uninterrupted run"
last=$(tail -n 1 "$p/thermal_history.csv" | cut -d, -f1)
[[ $last == "$N" ]] || fail "the preempted run's history ends at step $last"
segments=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["segments"]))' "$p/thermal_report.json")
pass "ten SIGTERMs at random moments ($double of them doubled, $during during a checkpoint write, $stopped clean stops): restartable each time; step $N bitwise equal to one run ($segments segments reported)"
