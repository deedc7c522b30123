#!/usr/bin/env bash
# Checkpoint and restart through the executable, for a grid physics (2D Euler thermal) and for MD (the
# 864-atom LJ liquid of tests/data/md, and the 1728-ion NaCl crystal with PPPM of inputs/md):
#  (a) N steps and N/2 steps + restart + N/2 steps end in bitwise identical states (the final
#      checkpoints' datasets compared with h5diff), at 1 and 2 ranks;
#  (b) a restart on another rank count agrees to round-off;
#  (c) --restart auto takes the newest valid checkpoint; a run killed with SIGKILL while it writes
#      checkpoints every step leaves one that restarts; older checkpoints beyond run.checkpoint_keep go;
#  (d) a truncated, bit-flipped, other-physics or missing checkpoint is rejected with exit code 2 and
#      one message naming the file, and nothing in the output directory changes.
#   usage: cli_restart.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
require_tools h5diff

# launch NP ARGS...: stratus on NP ranks (quiet), output in $T/log_last.
launch() {
  local np=$1
  shift
  local rc=0
  if [[ $np -eq 1 ]]; then
    "$STRATUS" "$@" -q > "$T/log_last" 2>&1 || rc=$?
  else
    "$MPIEXEC" -n "$np" "$STRATUS" "$@" -q > "$T/log_last" 2>&1 || rc=$?
  fi
  return $rc
}
run_ok() {
  launch "$@" || { cat "$T/log_last" >&2; fail "stratus $* exited with $?"; }
}
chk() { printf '%s/%s_chk_%08d.h5' "$1" "$2" "$3"; }

EULER=(run "$SRC/inputs/climate/thermal.ini" --set grid.nx=40 --set grid.nz=20 --set run.t_end=1e9
       --set run.history_every=5)
N=40
HALF=20
# The atoms are sorted by position at the start and at the first rebuild after step HALF: a restart from
# step HALF must know that the last sort came before it (the checkpoint's md_last_sort).
MD=(run "$SRC/inputs/md/lj_melt.ini" --set "md.data_file=$SRC/tests/data/md/lj_liquid.data" --set md.temperature=0
    --set run.history_every=5 --set md.trajectory=false --set md.sort_every=$HALF)
# Charged ions with PPPM (the density grid, the FFT and the field exchange are part of the state's history).
PPPM=(run "$SRC/inputs/md/nacl_crystal.ini" --set run.history_every=5 --set md.trajectory=false
      --set md.sort_every=$HALF)

for kind in euler md pppm; do
  case $kind in
    euler) base=("${EULER[@]}") name=thermal data=(fields) ;;
    md) base=("${MD[@]}") name=lj_melt data=(atom_x atom_v) ;;
    pppm) base=("${PPPM[@]}") name=nacl_crystal data=(atom_x atom_v atom_q) ;;
  esac
  for np in 1 2; do
    a=$T/${kind}_np${np}_full b=$T/${kind}_np${np}_half
    run_ok "$np" "${base[@]}" --set run.output_dir="$a" --set run.max_steps=$N --set run.checkpoint_every=$HALF
    [[ -f $(chk "$a" "$name" $HALF) && -f $(chk "$a" "$name" $N) ]] || fail "$kind np$np: checkpoints at $HALF and $N missing"
    # the same run in two halves in one directory, as after a preemption: the second restarts from the first
    run_ok "$np" "${base[@]}" --set run.output_dir="$b" --set run.max_steps=$HALF --set run.checkpoint_every=$HALF
    run_ok "$np" "${base[@]}" --set run.output_dir="$b" --set run.max_steps=$N --set run.checkpoint_every=$HALF \
      --restart "$(chk "$b" "$name" $HALF)"
    for d in "${data[@]}"; do
      h5diff -q "$(chk "$a" "$name" $N)" "$(chk "$b" "$name" $N)" "/data/$d" "/data/$d" ||
        fail "$kind np$np: /$d after $N steps differs from $HALF + restart + $HALF steps"
    done
    # the history table continues: one row per 5 steps from 0 to N, in order
    steps=$(cut -d, -f1 "$b/${name}_history.csv" | tail -n +2 | tr '\n' ' ')
    [[ $steps == "0 5 10 15 20 25 30 35 40 " ]] || fail "$kind np$np: restarted history steps are '$steps'"
    # ... and is the uninterrupted run's, byte for byte (no row of dt = 0 at the restart)
    cmp -s "$a/${name}_history.csv" "$b/${name}_history.csv" ||
      fail "$kind np$np: the restarted history differs from the uninterrupted one: $(diff "$a/${name}_history.csv" "$b/${name}_history.csv" | head -n 4)"
    if [[ $kind == euler ]]; then  # the series file lists the snapshots from before the restart too
      for st in 000000 0000$HALF 0000$N; do
        grep -q "thermal_$st.h5" "$b/thermal.xmf" || fail "$kind np$np: thermal.xmf after the restart lacks step $st"
      done
    fi
    pass "$kind np$np: $N steps == $HALF + restart + $HALF, bitwise (${data[*]}); history and series continue"
  done
  # (b) written on 2 ranks, continued on 1: round-off
  c=$T/${kind}_cross
  mkdir -p "$c"
  cp "$(chk "$T/${kind}_np2_full" "$name" $HALF)" "$c/"
  run_ok 1 "${base[@]}" --set run.output_dir="$c" --set run.max_steps=$N --set run.checkpoint_every=$HALF \
    --restart "$(chk "$c" "$name" $HALF)"
  # Euler does not depend on the decomposition at all: bitwise. MD sums its forces in another order on
  # another rank count, so the trajectories part by round-off that grows over the 20 steps: 1e-10
  # relative (measured: LJ between 1e-12 and 1e-11, PPPM between 1e-11 and 1e-10). Positions may sit just
  # outside the box between rebuilds, wrapped on one side and not on the other: MD compares velocities.
  cross=("${data[@]}") tol=()
  [[ $kind != euler ]] && cross=(atom_v) tol=(-p 1e-10)
  for d in "${cross[@]}"; do
    h5diff -q "${tol[@]+"${tol[@]}"}" "$(chk "$T/${kind}_np1_full" "$name" $N)" "$(chk "$c" "$name" $N)" \
      "/data/$d" "/data/$d" || fail "$kind: 2-rank checkpoint continued on 1 rank differs (${tol[*]:-bitwise}) in /$d"
  done
  pass "$kind: a 2-rank checkpoint continued on 1 rank agrees with the 1-rank run (${tol[*]:-bitwise}: ${cross[*]})"
done

# (c) keep, auto (a first run with --restart auto starts from the beginning), SIGKILL
k=$T/kill
run_ok 1 "${MD[@]}" --set run.output_dir="$k" --set run.max_steps=6 --set run.checkpoint_every=1 --set run.checkpoint_keep=2 \
  --restart auto
n=$(ls "$k"/lj_melt_chk_*.h5 | wc -l)
[[ $n -eq 2 ]] || fail "checkpoint_keep=2 left $n checkpoints"
[[ -f $(chk "$k" lj_melt 6) && -f $(chk "$k" lj_melt 5) ]] || fail "checkpoint_keep=2 did not keep steps 5 and 6"
"$STRATUS" "${MD[@]}" --set run.output_dir="$k" --set run.max_steps=100000 --set run.checkpoint_every=1 \
  --restart auto -q > "$T/log_kill" 2>&1 &
pid=$!
sleep 2
kill -KILL $pid 2> /dev/null || true
wait $pid 2> /dev/null || true
if ls "$k"/*.tmp > /dev/null 2>&1; then echo "info: the kill came while a checkpoint was being written (a .tmp is left)"; fi
# the newest valid checkpoint left by the kill is where --restart auto continues
newest=$(ls "$k"/lj_melt_chk_*.h5 | sed 's/.*_chk_0*\([0-9][0-9]*\)\.h5/\1/' | sort -n | tail -n 1)
[[ -n $newest && $newest -gt 6 ]] || fail "the killed run left no checkpoint past step 6 (newest: '$newest')"
"$STRATUS" "${MD[@]}" --set run.output_dir="$k" --set run.max_steps=$((newest + 3)) --set run.checkpoint_every=1 \
  --restart auto > "$T/log_last" 2>&1 || { cat "$T/log_last" >&2; fail "restart after the kill failed"; }
grep -q "restarted from .*lj_melt_chk_$(printf %08d "$newest").h5 at step $newest," "$T/log_last" ||
  { cat "$T/log_last" >&2; fail "--restart auto did not continue from the newest checkpoint (step $newest)"; }
last=$(tail -n 1 "$k/lj_melt_history.csv" | cut -d, -f1)
[[ $last == $((newest + 3)) ]] || fail "after the kill the restarted run ended at step '$last', expected $((newest + 3))"
# one history: every step once, in order, 0 .. newest + 3 (rows the killed run wrote past its last
# checkpoint are dropped, and those of the restart follow)
steps=$(tail -n +2 "$k/lj_melt_history.csv" | cut -d, -f1)
sort -c -u -n <<< "$steps" 2> /dev/null || fail "the history after the kill has steps out of order or twice: ${steps//$'\n'/ }"
[[ $(head -n 1 <<< "$steps") == 0 ]] || fail "the history after the kill does not start at step 0: ${steps//$'\n'/ }"
pass "checkpoint_keep=2 keeps the newest two; a run killed while checkpointing every step restarts with --restart auto"

# (d) damaged checkpoints: exit 2, one message naming the file, the output directory unchanged
good=$(chk "$T/md_np1_full" lj_melt $N)
d=$T/damaged
mkdir -p "$d"
head -c $(( $(stat -c %s "$good") / 2 )) "$good" > "$d/truncated.h5"
cp "$good" "$d/flipped.h5"
size=$(stat -c %s "$good")
off=$(( size * 3 / 4 ))
orig=$(od -An -tu1 -j $off -N1 "$d/flipped.h5" | tr -d ' ')
printf "$(printf '\\%03o' $(( orig ^ 255 )))" | dd of="$d/flipped.h5" bs=1 seek=$off conv=notrunc status=none
echo "not a checkpoint" > "$d/text.h5"
cp "$(chk "$T/euler_np1_full" thermal $N)" "$d/euler.h5"
state() { (cd "$d" && find . -type f -exec md5sum {} + | sort); }
for f in truncated flipped text euler missing; do
  before=$(state)
  rc=0
  "$STRATUS" "${MD[@]}" --set run.output_dir="$d" --set run.max_steps=1 --restart "$d/$f.h5" > "$T/out_$f" 2> "$T/err_$f" || rc=$?
  [[ $rc -eq 2 ]] || { cat "$T/err_$f" >&2; fail "restart from the $f checkpoint: exit $rc, expected 2"; }
  grep -q "stratus: error: .*$f.h5" "$T/err_$f" || { cat "$T/err_$f" >&2; fail "restart from the $f checkpoint: no error naming the file"; }
  [[ $(grep -c 'stratus: error:' "$T/err_$f") -eq 1 ]] || fail "restart from the $f checkpoint: more than one error line"
  [[ $before == "$(state)" ]] || fail "restart from the $f checkpoint: files changed"
  pass "restart from a $f checkpoint: exit 2, '$(head -n1 "$T/err_$f" | cut -c1-150)'"
done
echo "cli_restart: all checks passed"
