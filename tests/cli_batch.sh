#!/usr/bin/env bash
# Batch operation through the executable (issue: requeue-safe runs):
#  (a) the end of a run is absolute: a complete run leaves NAME.done and NAME_report.json; --restart auto
#      on it does nothing, touches nothing and exits 0; a run stopped three times by the stop file and
#      continued each time with --restart auto ends at the same step in a bitwise identical state as one
#      uninterrupted run, and its report lists the four segments;
#  (b) a restart whose deck changes the physics is refused (exit 2, the key named, nothing touched); one
#      that changes only the end and the output cadence goes on;
#  (c) a fresh run into a directory holding another run of the same name moves those files aside;
#  (d) the wall-time guard (run.max_walltime) stops the run with a checkpoint and exit 3 before the limit;
#  (e) the report validates against docs/run-report.schema.json, its phases add up to its wall time and
#      that to the wall time measured around the process (5 %), and the metrics file parses as Prometheus
#      text; --log-format json prints one JSON object per line; GPU telemetry through a fake NVML library;
#  (f) bad values of every new key, variable and option: exit 2, one message naming it, nothing touched;
#      a launch of another size than SLURM_NTASKS or --ranks is refused.
#   usage: cli_batch.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
require_tools h5diff python3
# Debian's interpreter first: python3-jsonschema installs there
PY=$(command -v /usr/bin/python3 || command -v python3)
"$PY" -c 'import jsonschema' 2> /dev/null || fail "python3-jsonschema is missing (scripts/install-deps.sh --test-tools)"

EULER=(run "$SRC/inputs/climate/thermal.ini" --set grid.nx=60 --set grid.nz=30 --set run.t_end=1e9
       --set run.history_every=5 --set run.snapshot_every=0)
chk() { printf '%s/%s_chk_%08d.h5' "$1" "$2" "$3"; }
state() { (cd "$1" && find . -type f -exec md5sum {} + | sort); }
N=200

# (a) uninterrupted reference, then the same run stopped three times by the stop file (a grid on which a
# step takes about 8 ms on 2 ranks, so that the stop, polled every 0.1 s, lands a few steps after the one
# asked for and long before step N)
BIG=(--set grid.nx=800 --set grid.nz=400)
ref=$T/ref
expect_rc 0 "$T/log_ref" "$MPIEXEC" -n 2 "$STRATUS" "${EULER[@]}" "${BIG[@]}" --set run.output_dir="$ref" --set run.max_steps=$N --set run.checkpoint_every=40
[[ -f $ref/thermal.done && -f $ref/thermal_report.json ]] || fail "a complete run left no thermal.done or report"
before=$(state "$ref")
expect_rc 0 "$T/log_again" "$STRATUS" "${EULER[@]}" "${BIG[@]}" --set run.output_dir="$ref" --set run.max_steps=$N \
  --set run.checkpoint_every=40 --restart auto
grep -q "is complete at step $N.*nothing to do" "$T/log_again" || fail "--restart auto on a complete run: no 'nothing to do'"
[[ $before == "$(state "$ref")" ]] || fail "--restart auto on a complete run changed files"
pass "a complete run leaves thermal.done; --restart auto on it exits 0 and touches nothing"

q=$T/requeued
export STRATUS_STOP_FILE=$T/stop
for seg in 1 2 3; do
  rm -f "$STRATUS_STOP_FILE"
  rc=0
  "$MPIEXEC" -n 2 "$STRATUS" "${EULER[@]}" "${BIG[@]}" --set run.output_dir="$q" --set run.max_steps=$N --set run.checkpoint_every=40 \
    --restart auto --set run.progress_every=1 > "$T/log_seg$seg" 2>&1 &
  pid=$!
  # stop once the run has reached step 30, 60, 90
  wait_for_line "^step $(( seg * 30 )) " "$T/log_seg$seg" $pid
  touch "$STRATUS_STOP_FILE"
  wait $pid || rc=$?
  [[ $rc -eq 3 ]] || { cat "$T/log_seg$seg" >&2; fail "segment $seg: exit $rc after the stop file, expected 3"; }
  grep -q "stopping at step .*(the stop file" "$T/log_seg$seg" || fail "segment $seg: no stop line naming the stop file"
  [[ ! -f $q/thermal.done ]] || fail "segment $seg: a stopped run left thermal.done"
done
rm -f "$STRATUS_STOP_FILE"
expect_rc 0 "$T/log_last" "$MPIEXEC" -n 2 "$STRATUS" "${EULER[@]}" "${BIG[@]}" --set run.output_dir="$q" --set run.max_steps=$N \
  --set run.checkpoint_every=40 --restart auto
unset STRATUS_STOP_FILE
h5diff -q "$(chk "$ref" thermal $N)" "$(chk "$q" thermal $N)" /data/fields /data/fields ||
  fail "the run stopped three times differs from the uninterrupted one at step $N"
last=$(tail -n 1 "$q/thermal_history.csv" | cut -d, -f1)
[[ $last == "$N" ]] || fail "the requeued run's history ends at step $last, expected $N"
python3 - "$q/thermal_report.json" "$N" << 'EOF' || fail "the requeued run's report does not list its four segments"
import json, sys
r = json.load(open(sys.argv[1]))
seg = r["segments"]
n = int(sys.argv[2])
assert len(seg) == 4 and r["segments_total"] == 4, len(seg)
assert [s["exit_code"] for s in seg] == [3, 3, 3, 0], [s["exit_code"] for s in seg]
assert seg[0]["start_step"] == 0 and seg[-1]["end_step"] == n
for a, b in zip(seg, seg[1:]):
    assert b["start_step"] <= a["end_step"], (a, b)  # continues from the last checkpoint
assert abs(r["run_wall_s"] - sum(s["wall_s"] for s in seg)) < 1e-6 * max(1.0, r["run_wall_s"])
assert r["run"]["status"] == "complete" and r["progress"]["end_step"] == n
EOF
pass "stopped three times by the stop file (exit 3 each) and continued: step $N bitwise equal to one run; four segments"

# (b) a restart that changes the physics is refused; the end and cadence may change
c=$T/changed
expect_rc 0 "$T/log_c1" "$STRATUS" "${EULER[@]}" --set run.output_dir="$c" --set run.max_steps=20 --set run.checkpoint_every=10
before=$(state "$c")
expect_rc 2 "$T/log_c2" "$STRATUS" "${EULER[@]}" --set run.output_dir="$c" --set run.max_steps=40 --set run.checkpoint_every=10 \
  --set euler.hv_beta=0.5 --set euler.viscosity=1 --restart auto
grep -q "stratus: error: restart from .*thermal_chk_00000020.h5.*'euler.hv_beta' = '0.5' (the checkpoint has '0.25')" "$T/log_c2" ||
  fail "a changed euler.hv_beta: the message does not name the key and both values"
grep -q "'euler.viscosity' = '1' (the checkpoint has '0')" "$T/log_c2" || fail "a changed euler.viscosity is not named"
[[ $(grep -c 'stratus: error:' "$T/log_c2") -eq 1 ]] || fail "a changed physics key: not one error line"
[[ $before == "$(state "$c")" ]] || fail "a refused restart changed files"
expect_rc 2 "$T/log_c3" "$STRATUS" check "$SRC/inputs/climate/thermal.ini" --set grid.nx=60 --set grid.nz=30 \
  --set run.t_end=1e9 --set run.output_dir="$c" --set euler.hv_beta=0.5 --restart auto
grep -q "'euler.hv_beta'" "$T/log_c3" || fail "check --restart auto does not refuse the changed key"
expect_rc 0 "$T/log_c4" "$STRATUS" "${EULER[@]}" --set run.output_dir="$c" --set run.max_steps=40 --set run.checkpoint_every=20 \
  --set run.history_every=10 --restart auto
[[ -f $(chk "$c" thermal 40) ]] || fail "a restart with a later end and other cadences did not reach step 40"
pass "a restart changing euler.hv_beta and euler.viscosity is refused (exit 2, both named); the end and cadences may change"

# (c) a fresh run into a used directory moves the earlier run's files aside
expect_rc 0 "$T/log_fresh" "$STRATUS" "${EULER[@]}" --set run.output_dir="$c" --set run.max_steps=10
[[ -d $c/thermal.earlier-1 && -f $c/thermal.earlier-1/thermal.done && -f $c/thermal.earlier-1/thermal_chk_00000040.h5 ]] ||
  fail "a fresh run did not move the earlier run's files to thermal.earlier-1"
grep -q "moved [0-9]* file(s) of an earlier run 'thermal' to .*thermal.earlier-1" "$T/log_fresh" || fail "no line about the move"
[[ $(tail -n 1 "$c/thermal_history.csv" | cut -d, -f1) == 10 ]] || fail "the fresh run's history is not its own"
pass "a fresh run into a used directory moves the earlier run aside (thermal.earlier-1) and says so"

# (d) the wall-time guard
w=$T/walltime
start=$(date +%s.%N)
expect_rc 3 "$T/log_w" "$STRATUS" "${EULER[@]}" --set grid.nx=200 --set grid.nz=100 --set run.output_dir="$w" \
  --set run.max_steps=100000 --set run.max_walltime=00:00:04 --set run.walltime_margin=1.5
took=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$(date +%s.%N)")
grep -q "stopping at step .*(the wall-time limit)" "$T/log_w" || fail "the guard did not say why it stopped"
ls "$w"/thermal_chk_*.h5 > /dev/null 2>&1 || fail "the guard stopped without a checkpoint"
expect_rc 0 "$T/log_wc" "$STRATUS" check "$SRC/inputs/climate/thermal.ini" --set grid.nx=200 --set grid.nz=100 \
  --set run.t_end=1e9 --set run.output_dir="$w" --restart auto
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < 5.5 else 1)" "$took" ||
  fail "run.max_walltime = 4 s: the process took $took s"
pass "run.max_walltime = 4 s with a 1.5 s margin: stopped in $took s with a valid checkpoint, exit 3"

# (e) the report and its schema, phases against the wall time, the metrics file, JSON log lines, telemetry
fake_nvml=$(find "$(dirname "$STRATUS")" -name 'libfake_nvml.so' -print -quit)
[[ -n $fake_nvml ]] || fail "libfake_nvml.so not found in the build tree"
r=$T/report
start=$(date +%s.%N)
STRATUS_NVML_LIBRARY=$fake_nvml STRATUS_PRICE_PER_NODE_HOUR=2.5 \
  "$MPIEXEC" -n 2 "$STRATUS" "${EULER[@]}" --set grid.nx=200 --set grid.nz=100 --set run.output_dir="$r" \
  --set run.max_steps=200 --set run.checkpoint_every=100 --set run.metrics_file=thermal.prom --set run.metrics_every=0.5 \
  --log-format json > "$T/log_r" 2> "$T/err_r" || { cat "$T/err_r" >&2; fail "the report run failed"; }
took=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$(date +%s.%N)")
"$PY" - "$r/thermal_report.json" "$SRC/docs/run-report.schema.json" "$took" "$T/log_r" "$r/thermal.prom" << 'EOF' ||
import json, re, sys
import jsonschema
report, schema, took, log, prom = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5]
r = json.load(open(report))
jsonschema.validate(r, json.load(open(schema)))
total = sum(p["max"] for p in r["phases"].values())
mean_total = sum(p["mean"] for p in r["phases"].values())
wall = r["wall_s"]
assert abs(mean_total - wall) <= 0.05 * wall, ("phases (mean) do not add up to the wall time", mean_total, wall)
assert abs(wall - took) <= 0.05 * took + 0.3, ("the report's wall time is not the process's", wall, took)
assert r["phases"]["compute"]["mean"] > 0 and r["phases"]["communication"]["max"] > 0, r["phases"]
assert r["phases"]["checkpoints"]["max"] > 0 and r["phases"]["snapshots"]["max"] > 0
assert r["resources"]["ranks"] == 2 and r["progress"]["steps"] == 200
tp = r["throughput"]["per_second"]
assert abs(tp - 200 * 200 * 100 / wall) <= 1e-6 * tp, (tp, wall)
assert r["cost"]["price_per_node_hour"] == 2.5 and abs(r["cost"]["cost"] - 2.5 * r["cost"]["node_hours"]) < 1e-12
assert abs(r["cost"]["node_hours"] - r["resources"]["nodes"] * wall / 3600) < 1e-9
assert r["gpu_telemetry"] == "nvml" and len(r["gpus"]) == 2, r["gpus"]
assert r["memory"]["host_rss_high_water_bytes_max"] > 10e6
inputs = [i["path"] for i in r["provenance"]["inputs"]]
assert inputs[0].endswith("inputs/climate/thermal.ini"), inputs
lines = [l for l in open(log) if l.strip()]
assert lines and all(isinstance(json.loads(l), dict) for l in lines), "a log line is not a JSON object"
assert any("run report" in json.loads(l)["message"] for l in lines)
text = open(prom).read()
sample = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*")*\})? (NaN|[+-]Inf|[-+]?[0-9.]+([eE][-+]?[0-9]+)?)$')
for l in text.splitlines():
    assert l.startswith("# HELP ") or l.startswith("# TYPE ") or sample.match(l), ("not Prometheus text", l)
step = [l for l in text.splitlines() if l.startswith("stratus_step{")]
assert step and float(step[0].split()[-1]) == 200, step
assert "stratus_gpu_temperature_celsius{" in text
print("report: wall %.2f s (process %.2f s), phases (mean) %.2f s, compute %.2f s, communication %.3f s" %
      (wall, took, mean_total, r["phases"]["compute"]["mean"], r["phases"]["communication"]["mean"]))
EOF
  fail "the run report, the metrics file or the JSON log is wrong"
pass "the report validates against its schema, its phases add up to the wall time; metrics and JSON log parse"

# An MD run without run.t_end (no time limit): its report validates too, target_end_time null, and it
# names the units of its history columns.
"$STRATUS" run "$SRC/inputs/md/lj_melt.ini" --set "md.cells=4 4 4" --set run.max_steps=20 \
  --set run.output_dir="$T/md_report" > "$T/log_md" 2>&1 || { cat "$T/log_md" >&2; fail "the MD report run failed"; }
"$PY" - "$T/md_report/lj_melt_report.json" "$SRC/docs/run-report.schema.json" << 'EOF' ||
import json, sys
import jsonschema
r = json.load(open(sys.argv[1]))
jsonschema.validate(r, json.load(open(sys.argv[2])))
assert r["progress"]["target_end_time"] is None and r["progress"]["target_end_step"] == 20, r["progress"]
u = r["history_units"]
assert u["time"] == "tau" and u["temp"] == "epsilon/k_B" and u["msd"] == "sigma^2" and u["pe"] == "epsilon/atom", u
EOF
  fail "the MD run report (no run.t_end) does not validate or lacks its units"
pass "an MD report without run.t_end validates (target_end_time null) and carries the history units"

# (f) bad values: exit 2, one message naming the key, nothing written
b=$T/bad
mkdir -p "$b"
echo keep > "$b/thermal_history.csv"
before=$(state "$b")
bad() {  # bad WHAT NEEDLE ENV... -- ARGS...
  local what=$1 needle=$2 envs=() rc=0
  shift 2
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]+"${envs[@]}"}" "$STRATUS" "$@" > "$T/out_bad" 2> "$T/err_bad" || rc=$?
  [[ $rc -eq 2 ]] || { cat "$T/err_bad" >&2; fail "$what: exit $rc, expected 2"; }
  [[ $(wc -l < "$T/err_bad") -eq 1 ]] || { cat "$T/err_bad" >&2; fail "$what: not one line"; }
  grep -q -- "$needle" "$T/err_bad" || { cat "$T/err_bad" >&2; fail "$what: the message does not name '$needle'"; }
  [[ $before == "$(state "$b")" ]] || fail "$what: the output directory changed"
}
R=("${EULER[@]}" --set run.output_dir="$b" --set run.max_steps=5)
bad "max_walltime=abc" "run.max_walltime" -- "${R[@]}" --set run.max_walltime=abc
bad "max_walltime=1:99:00" "run.max_walltime" -- "${R[@]}" --set run.max_walltime=1:99:00
bad "max_walltime=-5" "run.max_walltime" -- "${R[@]}" --set run.max_walltime=-5
bad "walltime_margin=-1" "run.walltime_margin" -- "${R[@]}" --set run.walltime_margin=-1
bad "metrics_file=../x" "run.metrics_file" -- "${R[@]}" --set run.metrics_file=../x
bad "metrics_every=0" "run.metrics_every" -- "${R[@]}" --set run.metrics_every=0
bad "price_per_node_hour=-1" "run.price_per_node_hour" -- "${R[@]}" --set run.price_per_node_hour=-1
bad "STRATUS_PRICE_PER_NODE_HOUR=abc" "STRATUS_PRICE_PER_NODE_HOUR" STRATUS_PRICE_PER_NODE_HOUR=abc -- "${R[@]}"
bad "--ranks 0" "--ranks" -- "${R[@]}" --ranks 0
bad "--ranks 2 on one rank" "started 1 MPI rank(s) but --ranks expects 2" -- "${R[@]}" --ranks 2
bad "SLURM_NTASKS=4 on one rank" "SLURM_NTASKS expects 4" SLURM_JOB_ID=7 SLURM_NTASKS=4 -- "${R[@]}"
bad "SLURM_NTASKS=x" "SLURM_NTASKS" SLURM_JOB_ID=7 SLURM_NTASKS=x -- "${R[@]}"
bad "--log-format xml" "--log-format" -- "${R[@]}" --log-format xml
bad "run.dt against md.timestep" "run.dt" -- run "$SRC/inputs/md/lj_melt.ini" --set run.output_dir="$b" --set run.dt=0.001
pass "bad values of the new keys, variables and options: exit 2, one message each, nothing touched"
echo "cli_batch: all checks passed"
