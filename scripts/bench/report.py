#!/usr/bin/env python3
"""The report of scripts/bench.sh: reads OUT/cases.tsv (name, kind, description), OUT/raw.tsv (one line per
measurement: case, kind, ranks, code, run, value, unit, extra k=v pairs) and OUT/machine.tsv (key, value),
writes OUT/bench.json and prints the table. Medians over runs; per-core figures divide by ranks x threads
per rank; roof fractions use the triad of the same rank count; parallel efficiency compares the most ranks
with the fewest, per core. It measures nothing itself.
Usage: report.py OUT"""
import json
import math
import os
import statistics
import sys

SCALING = {"lj", "euler2d", "euler3d", "shallow_water", "neighbor"}  # fixed work split over the ranks
WRITES = {"hdf5", "h5md"}  # snapshot writers, measured against a plain write of the same bytes


def median(xs):
    return statistics.median(xs) if xs else None


def read_tsv(path):
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def number(text):
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def summarise(rows):
    """Median value and median extras of one (case, ranks, code)."""
    values = [r["value"] for r in rows]
    extras = {}
    for r in rows:
        for k, v in r["extra"].items():
            extras.setdefault(k, []).append(v)
    s = {"throughput": median(values), "unit": rows[0]["unit"], "runs": values}
    for k, vs in extras.items():
        s[k] = median(vs)
    return s


def ratio(a, b):
    return a / b if a is not None and b else None


def main():
    out = sys.argv[1]
    machine = {k: v for k, v in read_tsv(os.path.join(out, "machine.tsv"))}
    threads = int(machine.get("threads_per_rank", "1"))
    ranks = [int(r) for r in machine["ranks"].split()]
    cases = [(c[0], c[1], c[2]) for c in read_tsv(os.path.join(out, "cases.tsv"))]
    meas = {}
    for f in read_tsv(os.path.join(out, "raw.tsv")):
        name, _kind, r, code, _run, value, unit = f[:7]
        v = number(value)
        if v is None or v <= 0:
            continue
        extra = {}
        for kv in (f[7].split() if len(f) > 7 else []):
            k, _, x = kv.partition("=")
            if number(x) is not None:
                extra[k] = number(x)
        meas.setdefault((name, int(r), code), []).append({"value": v, "unit": unit, "extra": extra})

    roof = {}
    for r in ranks:
        rows = meas.get(("triad", r, "stratus"))
        if rows:
            roof[r] = median([x["value"] for x in rows])

    report = {"suite": "scripts/bench.sh", "mode": machine.get("mode"), "runs": int(machine.get("runs", "1")),
              "ranks": ranks, "threads_per_rank": threads, "seconds": number(machine.get("seconds", "")),
              "machine": {k: machine.get(k, "") for k in ("cpu_model", "cpu_isa", "cores", "compiler", "flags",
                                                           "build_type",
                                                           "kokkos", "device", "mpi", "stratus", "git_revision",
                                                           "date", "hostname", "lammps")},
              "triad_roof_gbs": {str(r): v for r, v in roof.items()}, "cases": {}, "failed": []}
    report["machine"]["cores"] = int(machine.get("cores", "0") or 0)

    for name, kind, desc in cases:
        entry = {"kind": kind, "description": desc, "unit": None, "ranks": {}}
        for r in ranks:
            rows = meas.get((name, r, "stratus"))
            if not rows:
                continue
            s = summarise(rows)
            entry["unit"] = s["unit"]
            s["per_rank"] = s["throughput"] / r
            s["per_core"] = s["throughput"] / (r * threads)
            bpu = s.get("bytes_per_update")
            if bpu:
                s["gbs"] = s["throughput"] * bpu / 1e9
                s["roof_fraction"] = ratio(s["gbs"], roof.get(r))
            elif "bytes_per_update" in s:
                del s["bytes_per_update"]  # the physics does not count its bytes
            for variant in ("published", "checked"):
                ref = meas.get((name, r, "lammps_" + variant))
                if ref:
                    lm = summarise(ref)
                    lm["per_core"] = lm["throughput"] / (r * threads)
                    s["lammps_" + variant] = lm
                    s["ratio_lammps_" + variant] = ratio(s["throughput"], lm["throughput"])
            plain = meas.get((name, r, "plain_write"))
            if plain:
                p = summarise(plain)
                s["plain_write"] = p
                s["fraction_of_plain_write"] = ratio(s["throughput"], p["throughput"])
                if "writer_mbs" in s:  # written by a background thread: its own bandwidth too
                    s["writer_fraction_of_plain_write"] = ratio(s["writer_mbs"], p["throughput"])
                if "rest_mbs" in s:  # a trajectory's frames after the first (which creates the files)
                    s["rest_fraction_of_plain_write"] = ratio(s["rest_mbs"], p["throughput"])
            entry["ranks"][str(r)] = s
        if kind in WRITES:
            entry["fsync"] = {"snapshot_data": False, "plain_write": False, "snapshot_xmf_sidecars": False}
        got = sorted(int(r) for r in entry["ranks"])
        if kind in SCALING and len(got) >= 2:
            lo, hi = entry["ranks"][str(got[0])], entry["ranks"][str(got[-1])]
            entry["parallel_efficiency"] = ratio(hi["per_core"], lo["per_core"])
            entry["efficiency_ranks"] = [got[0], got[-1]]
            if "lammps_published" in lo and "lammps_published" in hi:
                entry["lammps_published_parallel_efficiency"] = ratio(hi["lammps_published"]["per_core"],
                                                                      lo["lammps_published"]["per_core"])
        if len(got) < len(ranks) or (kind in WRITES and any("plain_write" not in v for v in entry["ranks"].values())):
            report["failed"].append(name)
        report["cases"][name] = entry

    with open(os.path.join(out, "bench.json"), "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    print_table(report)


def g(v, spec="%.4g"):
    return "-" if v is None else spec % v


def print_table(rep):
    m = rep["machine"]
    print("# Stratus benchmark suite (%s, median of %d run(s), %d thread per rank), %s" %
          (rep["mode"], rep["runs"], rep["threads_per_rank"], m["date"]))
    print("# %s, %s, %s cores; %s; %s; flags %s" % (m["cpu_model"], m["cpu_isa"] or "vector ISA unknown", m["cores"],
                                                    m["stratus"], m["compiler"], m["flags"]))
    print("# LAMMPS: %s" % m["lammps"])
    head = ("case", "ranks", "Stratus", "unit", "per core", "roof", "x LMP pub", "x LMP chk", "eff", "notes")
    fmt = "%-18s %5s %10s %-15s %10s %6s %9s %9s %6s  %s"
    print(fmt % head)
    for name, e in rep["cases"].items():
        for r, s in sorted(e["ranks"].items(), key=lambda x: int(x[0])):
            notes = []
            if e["kind"] == "lj":
                notes.append("builds %s" % g(s.get("builds"), "%.0f"))
                for v in ("published", "checked"):
                    if "lammps_" + v in s:
                        lm = s["lammps_" + v]
                        notes.append("LAMMPS %s %s (%s builds)" % (v, g(lm["throughput"]), g(lm.get("builds"), "%.0f")))
            elif e["kind"] == "halo":
                notes.append("%s us per exchange, %s bytes, %s GB/s" %
                             (g(s.get("us_per_call")), g(s.get("bytes_per_call")), g(s.get("gbs"))))
            elif e["kind"] == "neighbor":
                notes.append("%s ms per build" % g(s["us_per_call"] / 1e3 if s.get("us_per_call") else None))
            elif e["kind"] in WRITES:
                p = s.get("plain_write", {}).get("throughput")
                parts = "%s files" % g(s.get("files"), "%.0f") if e["kind"] == "hdf5" else \
                    "%s frames" % g(s.get("frames"), "%.0f")
                notes.append("%s MB in %s; plain write %s MB/s; fraction %s" %
                             (g(s.get("mb")), parts, g(p), g(s.get("fraction_of_plain_write"), "%.2f")))
                if s.get("rest_mbs"):
                    notes.append("after the first frame (%s s) %s MB/s, fraction %s" %
                                 (g(s.get("seconds", 0) - s.get("rest_seconds", 0), "%.3g"), g(s["rest_mbs"]),
                                  g(s.get("rest_fraction_of_plain_write"), "%.2f")))
                if s.get("writer_mbs"):
                    notes.append("background writer %s MB/s, fraction %s" %
                                 (g(s["writer_mbs"]), g(s.get("writer_fraction_of_plain_write"), "%.2f")))
            elif s.get("bytes_per_update"):
                notes.append("%s bytes/update, %s GB/s" % (g(s["bytes_per_update"]), g(s.get("gbs"))))
            last = int(r) == e.get("efficiency_ranks", [0, 0])[1]
            print(fmt % (name, r, g(s["throughput"]), s["unit"], g(s["per_core"]),
                         g(100 * s["roof_fraction"], "%.0f%%") if s.get("roof_fraction") else "-",
                         g(s.get("ratio_lammps_published"), "%.2f"), g(s.get("ratio_lammps_checked"), "%.2f"),
                         g(e.get("parallel_efficiency"), "%.2f") if last else "", "; ".join(notes)))
    print("# roof: the solver's own bytes per update at its rate, as a fraction of the triad of the same rank "
          "count; x LMP: Stratus / LAMMPS (in.lj as published: every 20 steps unchecked; checked: every step);")
    print("# eff: per-core throughput at the most ranks over that at the fewest; hdf5 and h5md fraction: snapshot "
          "bytes over the time the step loop waited for them, over a plain write(2) of the same bytes (no fsync in "
          "either); with a background writer (run.background_output), also its own bandwidth")
    if rep["failed"]:
        print("# FAILED or incomplete: " + ", ".join(rep["failed"]))


if __name__ == "__main__":
    main()
