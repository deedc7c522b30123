#!/usr/bin/env bash
# What goes wrong on a shared cluster, tried on the stratus executable:
#  1. a full disk (a small tmpfs as output directory) at 1 and 2 ranks, for grid snapshots, checkpoints
#     and MD trajectories, with the space check on and off (STRATUS_IO_RESERVE=0 takes the path of a write
#     that fails half-way): exit 1 within 30 s, one error line saying "No space left on device" and naming
#     the file, no .tmp or .reserve left, the earlier checkpoints still valid (`stratus check --restart`);
#  2. a rank stuck in communication (SIGSTOP) ignores nothing: SIGTERM ends the run after run.stop_grace;
#     a second stop signal ends it at once;
#  3. two runs into the same output directory: the second is refused (exit 2) while the first holds the
#     lock, and a new run removes the temporaries a killed one left (and nothing else);
#  4. an error at both of 2 ranks at once arrives whole, once, every time (20 tries);
#  5. checkpoints with time = NaN or step = 9e18 are refused (exit 2) by check and run, nothing written.
# The tmpfs needs root (mount); without it the disk-full part exits 77 (skipped) after the other parts.
#   usage: cli_hardening.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false
# The tmpfs mounts of the disk-full part go before $T does.
test_cleanup() {
  for m in "$T"/full_*; do
    [[ -d $m ]] && mountpoint -q "$m" && { umount "$m" 2>/dev/null || { sleep 1; umount -l "$m"; }; }
  done
}
FAIL_LOGS=("$T/err")

# grid_deck FILE OUTDIR [run KEY=VALUE LINES...]: a 16^3 advection run with a snapshot and a checkpoint
# every 5 steps; a given line replaces the default of its key.
grid_deck() {
  local file=$1 out=$2
  shift 2
  local defaults=("physics = advection" "name = g" "output_dir = $out" "t_end = 1" "max_steps = 40"
    "snapshot_every = 5" "checkpoint_every = 5")
  {
    echo "[run]"
    for d in "${defaults[@]}"; do
      local k=${d%% =*} given=0
      for l in "$@"; do [[ ${l%% =*} == "$k" ]] && given=1; done
      [[ $given == 1 ]] || echo "$d"
    done
    for l in "$@"; do echo "$l"; done
    printf '[grid]\nnx = 16\nny = 16\nnz = 16\n'
  } > "$file"
}
# md_deck FILE OUTDIR [EXTRA md LINES...]: 4000 LJ atoms, a trajectory frame and a checkpoint every 5 steps.
md_deck() {
  local file=$1 out=$2
  shift 2
  {
    printf '[run]\nphysics = md\nname = m\noutput_dir = %s\nt_end = 1e9\nmax_steps = 200\n' "$out"
    printf 'snapshot_every = 5\ncheckpoint_every = 5\n[md]\ncells = 10 10 10\ntrajectory = true\n'
    for l in "$@"; do echo "$l"; done
  } > "$file"
}

# ---------------------------------------------------------------- 5. damaged checkpoint metadata
# (first: it needs no tmpfs, and h5py from Debian's python3-h5py, which scripts/test.sh installs)
PY=/usr/bin/python3
"$PY" -c 'import h5py' 2> /dev/null || fail "/usr/bin/python3 cannot import h5py (Debian: python3-h5py)"
grid_deck "$T/meta.ini" "$T/meta_out"
"$STRATUS" run "$T/meta.ini" --set run.max_steps=5 -q > /dev/null 2> "$T/err" || fail "metadata: the first run failed"
good=$T/meta_out/g_chk_00000005.h5
"$STRATUS" check "$T/meta.ini" --restart "$good" > "$T/out" 2> "$T/err" || fail "check --restart on a good checkpoint"
grep -q "restart file .*g_chk_00000005.h5: step 5" "$T/out" || fail "check --restart: no line about the checkpoint"
for bad in "time:nan" "time:-1" "step:9000000000000000000"; do
  key=${bad%%:*} val=${bad#*:}
  f=$T/bad_$key.h5
  cp "$good" "$f"
  "$PY" - "$f" "$key" "$val" <<'EOF'
import sys, h5py, numpy as np
path, key, val = sys.argv[1:]
with h5py.File(path, "r+") as h:
    dt = h.attrs.get_id(key).dtype
    del h.attrs[key]
    h.attrs.create(key, np.array(float(val) if key == "time" else int(val), dtype=dt))
EOF
  before=$(cd "$T/meta_out" && find . -printf '%p %s %T@\n' | sort)
  for cmd in check run; do
    set +e
    "$STRATUS" "$cmd" "$T/meta.ini" --restart "$f" > "$T/out" 2> "$T/err"
    rc=$?
    set -e
    [[ $rc -eq 2 ]] || fail "$cmd --restart with $key = $val: exit $rc, expected 2"
    [[ $(wc -l < "$T/err") -eq 1 ]] || fail "$cmd --restart with $key = $val: not one line"
    grep -q "bad_$key.h5" "$T/err" || fail "$cmd --restart with $key = $val: the message does not name the file"
  done
  after=$(cd "$T/meta_out" && find . -printf '%p %s %T@\n' | sort)
  [[ $before == "$after" ]] || fail "--restart with $key = $val: the output directory changed"
  pass "checkpoint with $key = $val refused by check and run (exit 2): $(cat "$T/err")"
done

# ---------------------------------------------------------------- 3. the output-directory lock
grid_deck "$T/lock.ini" "$T/lock_out" "max_steps = 100000" "t_end = 1e9" "snapshot_every = 0" "checkpoint_every = 0"
mkdir -p "$T/lock_out"
# Temporaries a killed run of 'g' left, and files of others that must stay.
stale=(g_000010.h5.tmp g.xmf.tmp g_chk_00000010.h5.tmp g_000010.h5.reserve g_history.csv.tmp)
keep=(g_000010.h5 other_000010.h5.tmp g_notes.tmp gx_000010.h5.tmp)
for f in "${stale[@]}" "${keep[@]}"; do echo x > "$T/lock_out/$f"; done
"$STRATUS" run "$T/lock.ini" -q > /dev/null 2> "$T/lock_first_err" &
first=$!
for _ in $(seq 1 300); do
  [[ -s $T/lock_out/g_history.csv ]] && break
  sleep 0.1
done
[[ -s $T/lock_out/g_history.csv ]] || fail "lock: the first run did not start"
for f in "${stale[@]}"; do
  [[ $f == g_history.csv.tmp ]] && continue
  [[ ! -e $T/lock_out/$f ]] || fail "lock: the stale temporary $f was not removed"
done
# (a finished output of an earlier run g is moved aside by the fresh start, not removed)
for f in "${keep[@]}"; do
  [[ -e $T/lock_out/$f || -e $T/lock_out/g.earlier-1/$f ]] || fail "lock: $f (not a temporary of run g) was removed"
done
set +e
"$STRATUS" run "$T/lock.ini" > "$T/out" 2> "$T/err"
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "lock: a second run into the same directory exited $rc, expected 2"
grep -q "is being written by another process (pid $first on " "$T/err" || fail "lock: the message does not name the holder"
set +e
"$STRATUS" run "$T/lock.ini" --set run.name=other --set run.max_steps=3 -q > /dev/null 2> "$T/err"
rc=$?
set -e
[[ $rc -eq 0 ]] || fail "lock: a run of another name into the same directory exited $rc"
kill -TERM "$first"
wait "$first" || rc=$?
[[ ${rc:-0} -eq 3 ]] || fail "lock: the first run, stopped by SIGTERM, exited ${rc:-0}, expected 3"
"$STRATUS" run "$T/lock.ini" --set run.max_steps=3 -q > /dev/null 2> "$T/err" || fail "lock: not released at exit"
pass "lock: a second run of the same name refused while the first runs; stale temporaries removed, others kept"

# ---------------------------------------------------------------- 2. stop signals on a stuck run
# Rank 1 is stopped (SIGSTOP), so rank 0 waits in a collective for ever; the scheduler's SIGTERM must
# still end the job, after run.stop_grace seconds.
grid_deck "$T/stuck.ini" "$T/stuck_out" "max_steps = 1000000" "t_end = 1e9" "snapshot_every = 0" \
  "checkpoint_every = 0" "stop_grace = 3"
stuck_run() {  # stuck_run SIGNALS...: starts 2 ranks, stops rank 1, sends the signals to rank 0; sets RC, TOOK
  rm -rf "$T/stuck_out"
  "$MPIEXEC" -n 2 "$STRATUS" run "$T/stuck.ini" -q > /dev/null 2> "$T/err" &
  local job=$! pids=()
  for _ in $(seq 1 300); do
    mapfile -t pids < <(pgrep -f "stratus run $T/stuck.ini" | grep -v "^$job\$" | sort -n)
    [[ ${#pids[@]} -ge 2 && -s $T/stuck_out/g_history.csv ]] && break
    sleep 0.1
  done
  [[ ${#pids[@]} -ge 2 ]] || fail "stuck run: ranks not found"
  local r0 r1
  r0=$(grep -l "PMI_RANK=0" /proc/"${pids[0]}"/environ /proc/"${pids[1]}"/environ 2> /dev/null | head -n 1 | cut -d/ -f3)
  [[ -n $r0 ]] || r0=${pids[0]}
  r1=${pids[0]}
  [[ $r1 == "$r0" ]] && r1=${pids[1]}
  kill -STOP "$r1"
  sleep 0.5
  local start
  start=$(date +%s.%N)
  for s in "$@"; do
    kill -"$s" "$r0"
    sleep 0.2
  done
  for _ in $(seq 1 300); do
    kill -0 "$r0" 2> /dev/null || break
    sleep 0.1
  done
  TOOK=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  kill -0 "$r0" 2> /dev/null && { kill -KILL "$r0" "$r1" 2> /dev/null; fail "stuck run: rank 0 still runs 30 s after the signal"; }
  kill -CONT "$r1" 2> /dev/null || true
  kill -KILL "$r1" 2> /dev/null || true
  set +e
  wait "$job"
  RC=$?
  set -e
}
stuck_run TERM
grep -q "did not reach a safe point within run.stop_grace" "$T/err" || fail "stuck run + SIGTERM: no message"
awk -v t="$TOOK" 'BEGIN { exit !(t >= 2.5 && t < 15) }' || fail "stuck run + SIGTERM: ended after $TOOK s, expected about 3"
[[ $RC -ne 0 ]] || fail "stuck run + SIGTERM: exit 0"
pass "a run stuck in communication ends $TOOK s after SIGTERM (run.stop_grace = 3), exit $RC"
stuck_run TERM INT
grep -q "another stop signal: exiting at once" "$T/err" || fail "stuck run + 2 signals: no message"
awk -v t="$TOOK" 'BEGIN { exit !(t < 2.5) }' || fail "stuck run + 2 signals: ended after $TOOK s, expected at once"
pass "a second stop signal ends a stuck run at once ($TOOK s), exit $RC"

# ---------------------------------------------------------------- 4. errors at both ranks arrive whole
# A run that diverges stops every rank at the same step with the same message: it must be printed once
# and whole every time (it was sometimes cut to '[rank ' by a race with MPI_Abort).
grid_deck "$T/div.ini" "$T/div_out" "t_end = 1e9" "dt = 1000" "snapshot_every = 0" "checkpoint_every = 0"
for i in $(seq 1 20); do
  set +e
  "$MPIEXEC" -n 2 "$STRATUS" run "$T/div.ini" -q > /dev/null 2> "$T/err"
  rc=$?
  set -e
  [[ $rc -eq 1 ]] || fail "diverging run at 2 ranks, try $i: exit $rc, expected 1"
  n=$(grep -c "^stratus: error: the run diverged at step [0-9]*, .*final snapshot in $T/div_out\$" "$T/err" || true)
  [[ $n -eq 1 && $(wc -l < "$T/err") -eq 1 ]] || fail "diverging run at 2 ranks, try $i: the message is not there once and whole"
done
pass "a diverging run at 2 ranks: the one error line arrived whole in 20 of 20 tries"

# ---------------------------------------------------------------- 1. full disks
if ! { mkdir -p "$T/full_probe" && mount -t tmpfs -o size=64k tmpfs "$T/full_probe" 2> /dev/null; }; then
  echo "SKIP: cannot mount a tmpfs here (needs root): the disk-full checks did not run"
  exit 77
fi
umount "$T/full_probe"

# full_disk NAME NP SIZE RESERVE DECK FILE_PATTERN: runs DECK on a fresh tmpfs of SIZE at NP ranks; checks
# the failure (the message names a file matching FILE_PATTERN) and what was written before it.
full_disk() {
  local name=$1 np=$2 size=$3 reserve=$4 deck=$5 pattern=$6
  local m=$T/full_$name
  mkdir -p "$m"
  mount -t tmpfs -o "size=$size" tmpfs "$m"
  local start rc
  start=$(date +%s)
  set +e
  STRATUS_IO_RESERVE=$reserve timeout -s KILL 60 "$MPIEXEC" -n "$np" "$STRATUS" run "$deck" \
    --set run.output_dir="$m/o" -q > "$T/out" 2> "$T/err"
  rc=$?
  set -e
  local took=$(($(date +%s) - start))
  [[ $rc -ne 137 ]] || fail "$name: hung (killed after 60 s)"
  [[ $rc -eq 1 ]] || fail "$name: exit $rc, expected 1"
  [[ $took -le 30 ]] || fail "$name: took $took s"
  local line nlines
  line=$(grep "^stratus: error: " "$T/err" | head -n 1 || true)
  nlines=$(grep -c "^stratus: error: " "$T/err" || true)
  # With the space check, one line; a write that failed half-way may fail at every rank at once, and then
  # each rank may report before the abort ends the job: at most one whole line per rank.
  if [[ $reserve == 1 ]]; then
    [[ $nlines -eq 1 ]] || fail "$name: expected one error line, got $nlines"
  else
    [[ $nlines -ge 1 && $nlines -le $np ]] || fail "$name: expected 1 to $np error lines, got $nlines"
  fi
  [[ $line == *"No space left on device"* ]] || fail "$name: the error does not say 'No space left on device'"
  [[ $line =~ $m/o/$pattern ]] || fail "$name: the error does not name a file $pattern"
  # Besides the error line, at most the launcher's note of MPI_Abort (the path of a failed write).
  [[ $(grep -vc -e "^stratus: error: " -e "application called MPI_Abort" "$T/err") -eq 0 ]] ||
    fail "$name: more on stderr than the error line"
  local left
  left=$(find "$m/o" -name '*.tmp' -o -name '*.reserve' -o -name '*.tmp.*')
  [[ -z $left ]] || fail "$name: left $left"
  local chk
  chk=$(find "$m/o" -name '*_chk_*.h5' | sort)
  if grep -q "^checkpoint_every = 5" "$deck"; then
    [[ -n $chk ]] || fail "$name: no earlier checkpoint survived"
    for c in $chk; do
      "$STRATUS" check "$deck" --set run.output_dir="$m/o" --restart "$c" > /dev/null 2>> "$T/err" ||
        fail "$name: the earlier checkpoint $c does not validate"
    done
  fi
  # Every snapshot and trajectory written before the failure still opens, with all its data.
  "$PY" - "$m/o" <<'EOF' || fail "$name: output written before the failure is unreadable"
import glob, sys, h5py
files = glob.glob(sys.argv[1] + "/*.h5") + glob.glob(sys.argv[1] + "/*.h5md")
assert files, "no output survived"
for f in files:
    with h5py.File(f, "r") as h:
        h.visit(lambda n: h[n][()] if isinstance(h[n], h5py.Dataset) else None)
EOF
  pass "$name: exit 1 in $took s, '${line#stratus: error: }', no temporaries, $(echo "$chk" | grep -c .) checkpoint(s) valid, all output readable"
  umount "$m" 2> /dev/null || { sleep 1; umount -l "$m"; }
}
# Checkpoints fill this one: one snapshot (step 0) and a disk too small for a second checkpoint beside
# the first (so the failing write is a checkpoint whatever a snapshot weighs).
grid_deck "$T/full_grid.ini" "unused" "snapshot_every = 40"
grid_deck "$T/full_snap.ini" "unused" "checkpoint_every = 0"
md_deck "$T/full_md.ini" "unused"
md_deck "$T/full_traj.ini" "unused"
sed -i 's/^checkpoint_every = 5$/checkpoint_every = 0/' "$T/full_traj.ini"
# Without the space check the disk fills wherever it may: in a snapshot's data, its metadata at the close
# (collective: a failure on one rank only hung HDF5's close at some of these sizes), an XDMF file or the
# history table. Every size must fail cleanly.
for kib in $(seq 264 8 312); do
  full_disk "snapshots_np2_check0_${kib}k" 2 "${kib}k" 0 "$T/full_snap.ini" "g(_[0-9]+|_history)?[.](h5|xmf|csv)"
done
# The same for checkpoints, page by page: a disk that filled while the checkpoint's header was written
# (its deck) left the temporary file behind.
for kib in $(seq 140 4 184); do
  full_disk "grid_np1_check0_${kib}k" 1 "${kib}k" 0 "$T/full_grid.ini" "g_chk_[0-9]+[.]h5"
done
# A trajectory frame written in the background reports its failure at the call that waits for it, up to
# two frames later (BackgroundJobs): the history table's row may meet the full disk first.
for np in 1 2; do
  for reserve in 1 0; do
    full_disk "grid_np${np}_check${reserve}" "$np" 160k "$reserve" "$T/full_grid.ini" "g_chk_[0-9]+[.]h5"
    full_disk "snapshots_np${np}_check${reserve}" "$np" 300k "$reserve" "$T/full_snap.ini" "g_[0-9]+[.](h5|xmf)"
    full_disk "md_np${np}_check${reserve}" "$np" 2m "$reserve" "$T/full_md.ini" "m_chk_[0-9]+[.]h5"
    full_disk "trajectory_np${np}_check${reserve}" "$np" 1m "$reserve" "$T/full_traj.ini" "m(_history)?[.](h5md|xmf|csv)"
  done
done

echo "cli_hardening: all checks passed"
