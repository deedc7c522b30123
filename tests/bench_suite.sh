#!/usr/bin/env bash
# The benchmark suite (scripts/bench.sh) in its smoke mode (tiny sizes, one run, 1 and 2 ranks) with this
# executable: it exits 0, prints the table, and bench.json is valid JSON with every case at both rank
# counts, positive throughputs and per-core figures, finite roof fractions, parallel efficiencies and
# write-bandwidth fractions in plausible ranges, the machine described, and the ratios to LAMMPS where
# LAMMPS is installed (and none where it is not). Bad options exit 2 with one message and run nothing, and
# so does a `stratus bench --kernel` the physics does not have.
#   usage: bench_suite.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
require_tools python3
bench="$SRC/scripts/bench.sh"

for bad in "--bogus" "--runs" "--runs 0" "--ranks x" "--ranks" "--exe $T/nothing" "--out"; do
  # shellcheck disable=SC2086
  expect_rc 2 bad.log bash "$bench" --exe "$STRATUS" --out "$T/bad" $bad
  [ "$(wc -l < bad.log)" = 1 ] || fail "'$bad': more than one line of output: $(cat bad.log)"
  grep -q "^bench.sh: .*usage: scripts/bench.sh" bad.log || fail "'$bad': no usage in the message: $(cat bad.log)"
done
[ ! -e "$T/bad" ] || fail "a bad option still created the output directory"
pass "bad options exit 2 with one line, before anything runs"

# stratus bench --kernel: a kernel the physics lacks is bad input that names the ones it has.
expect_rc 2 kernel.log "$STRATUS" bench "$SRC/inputs/md/lj_melt.ini" --kernel halo --triad-mib 0
grep -q "no bench kernel 'halo' (it has 'neighbor')" kernel.log || fail "unknown kernel: $(cat kernel.log)"
expect_rc 2 kernel.log "$STRATUS" run "$SRC/inputs/md/lj_melt.ini" --kernel neighbor
pass "stratus bench --kernel: an unknown kernel or another command is bad input"

lammps=0
command -v "${LMP:-lmp}" > /dev/null && command -v "${LMP_MPIRUN:-mpirun.openmpi}" > /dev/null && lammps=1
FAIL_LOGS=(suite.log)
MPIEXEC="$MPIEXEC" expect_rc 0 suite.log bash "$bench" --smoke --exe "$STRATUS" --out "$T/out"
for c in triad lj_2k euler2d_100x50 euler3d_24 sw_64x64 halo_3d_24 neighbor_2k hdf5_100x50 h5md_2k; do
  grep -q "^$c " suite.log || fail "no table row for $c"
done
[ -s "$T/out/bench.json" ] || fail "no bench.json in --out"
ls "$T"/out/logs/*.log > /dev/null || fail "no logs in --out/logs"
[ ! -e "$T/out/work" ] || fail "the work directory was left behind"
pass "the smoke suite ran: table and bench.json"

python3 - "$T/out/bench.json" "$lammps" <<'EOF'
import json, math, sys
rep = json.load(open(sys.argv[1]))
lammps = sys.argv[2] == "1"
errors = []
def check(cond, msg):
    if not cond:
        errors.append(msg)
def num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
def within(x, lo, hi):
    return num(x) and lo < x <= hi

check(rep["mode"] == "smoke" and rep["ranks"] == [1, 2] and rep["runs"] == 1, "mode, ranks or runs wrong")
check(rep["failed"] == [], "failed cases: %s" % rep["failed"])
m = rep["machine"]
for k in ("cpu_model", "cpu_isa", "compiler", "flags", "date", "git_revision", "stratus", "kokkos", "mpi", "lammps"):
    check(isinstance(m.get(k), str) and m[k].strip() != "", "machine field %s empty" % k)
check(isinstance(m.get("cores"), int) and m["cores"] >= 1, "machine cores %r" % m.get("cores"))
check("unknown" not in m["flags"], "no compiler flags found beside the executable: %r" % m["flags"])
check(lammps == ("not installed" not in m["lammps"]), "machine.lammps %r with lammps=%s" % (m["lammps"], lammps))
for r in ("1", "2"):
    check(within(rep["triad_roof_gbs"].get(r), 0, 1e5), "triad roof at %s ranks" % r)

want = {"triad": "triad", "lj_2k": "lj", "euler2d_100x50": "euler2d", "euler3d_24": "euler3d",
        "sw_64x64": "shallow_water", "halo_3d_24": "halo", "neighbor_2k": "neighbor", "hdf5_100x50": "hdf5",
        "h5md_2k": "h5md"}
check(set(rep["cases"]) == set(want), "cases %s, want %s" % (sorted(rep["cases"]), sorted(want)))
for name, kind in want.items():
    c = rep["cases"].get(name)
    if c is None:
        continue
    check(c["kind"] == kind and c["description"] and c["unit"], "%s: kind, description or unit" % name)
    for r in ("1", "2"):
        s = c["ranks"].get(r)
        if s is None:
            errors.append("%s: no result at %s ranks" % (name, r))
            continue
        check(within(s["throughput"], 0, 1e15), "%s/%s: throughput %r" % (name, r, s["throughput"]))
        check(num(s["per_core"]) and abs(s["per_core"] * int(r) - s["throughput"]) <= 1e-9 * s["throughput"],
              "%s/%s: per_core %r" % (name, r, s["per_core"]))
        check(len(s["runs"]) == 1, "%s/%s: runs %r" % (name, r, s["runs"]))
        if kind in ("euler2d", "euler3d"):
            check(within(s.get("bytes_per_update"), 0, 1e5), "%s/%s: bytes_per_update" % (name, r))
            check(within(s.get("roof_fraction"), 0, 5), "%s/%s: roof_fraction %r" % (name, r, s.get("roof_fraction")))
        if kind == "lj":
            for v in ("published", "checked"):
                ratio = s.get("ratio_lammps_" + v)
                if lammps:
                    check(within(ratio, 1e-3, 1e3), "%s/%s: ratio to LAMMPS %s %r" % (name, r, v, ratio))
                    check(within(s["lammps_" + v]["throughput"], 0, 1e15), "%s/%s: LAMMPS %s" % (name, r, v))
                else:
                    check(ratio is None, "%s/%s: a LAMMPS ratio without LAMMPS" % (name, r))
        if kind == "halo":
            check(within(s.get("us_per_call"), 0, 1e7) and within(s.get("bytes_per_call"), 0, 1e12),
                  "%s/%s: time or bytes per exchange" % (name, r))
        if kind == "neighbor":
            check(s.get("atoms_per_call") == 2048 and within(s.get("us_per_call"), 0, 1e7),
                  "%s/%s: atoms or time per build" % (name, r))
        if kind == "hdf5":
            check(within(s.get("plain_write", {}).get("throughput"), 0, 1e9), "%s/%s: plain write" % (name, r))
            check(within(s.get("fraction_of_plain_write"), 0, 10), "%s/%s: fraction %r" % (name, r, s.get("fraction_of_plain_write")))
            check(s.get("files") == 3 and within(s.get("mb"), 0, 1e6), "%s/%s: files or MB" % (name, r))
        if kind == "h5md":  # 2048 atoms, frames at steps 0, 2 and 4: 60 bytes per atom and frame, and ids and species
            check(within(s.get("plain_write", {}).get("throughput"), 0, 1e9), "%s/%s: plain write" % (name, r))
            # with a background writer (a core to spare) the loop only copies the rows: its fraction has no
            # small bound, the writer's own has
            background = "writer_mbs" in s
            check(within(s.get("fraction_of_plain_write"), 0, 1e4 if background else 10),
                  "%s/%s: fraction %r" % (name, r, s.get("fraction_of_plain_write")))
            check(not background or within(s.get("writer_fraction_of_plain_write"), 0, 10),
                  "%s/%s: writer fraction %r" % (name, r, s.get("writer_fraction_of_plain_write")))
            check(s.get("frames") == 3 and within(s.get("mb"), 3 * 60 * 2048 / 1e6, 4 * 60 * 2048 / 1e6),
                  "%s/%s: frames %r or MB %r" % (name, r, s.get("frames"), s.get("mb")))
            # the two frames after the first: 60 bytes per atom each and 88 of step, time and box (printed
            # to 4 significant digits, hence 1 %)
            check(within(s.get("rest_mb"), 2 * 60 * 2048 / 1e6 * 0.99, 2 * 60 * 2048 / 1e6 * 1.01)
                  and within(s.get("rest_fraction_of_plain_write"), 0, 10),
                  "%s/%s: after the first frame: MB %r, fraction %r" % (name, r, s.get("rest_mb"),
                                                                         s.get("rest_fraction_of_plain_write")))
    if kind in ("hdf5", "h5md"):
        check(c.get("fsync", {}).get("snapshot_data") == c.get("fsync", {}).get("plain_write") is not None,
              "%s: the fsync of the data must be the same for the writer and the reference" % name)
    if kind in ("lj", "euler2d", "euler3d", "shallow_water", "neighbor"):
        check(within(c.get("parallel_efficiency"), 0, 16) and c.get("efficiency_ranks") == [1, 2],
              "%s: parallel efficiency %r" % (name, c.get("parallel_efficiency")))
    else:
        check("parallel_efficiency" not in c, "%s: a parallel efficiency for a non-scaling case" % name)
if errors:
    print("\n".join("bench.json: " + e for e in errors))
    sys.exit(1)
EOF
pass "bench.json: every case at 1 and 2 ranks, figures in range, machine described$([ $lammps = 1 ] && echo ", LAMMPS ratios")"
