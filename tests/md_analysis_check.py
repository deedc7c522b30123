#!/usr/bin/env python3
"""The checks of tests/md_analysis.sh on one run: md_analysis_check.py DIR NAME KIND (KIND: lj or real).

DIR holds NAME.h5md, NAME_history.csv and a.json (md_analysis.py --json). Exits 1 listing what failed.
"""
import csv, json, sys
import h5py
import numpy as np
d, name, kind = sys.argv[1:]
a = json.load(open(f"{d}/a.json"))
hist = {int(r["step"]): float(r["msd"]) for r in csv.DictReader(open(f"{d}/{name}_history.csv"))}
bad = []
with h5py.File(f"{d}/{name}.h5md", "r") as f:
    g = f["particles/all"]
    im = g["image/value"]
    pos = g["position/value"][()]
    steps = g["position/step"][()]
    edges = g["box/edges/value"][()]
    if im.dtype != np.int32 or im.shape != pos.shape:
        bad.append(f"image/value is {im.dtype} {im.shape}, positions {pos.shape}")
    im = im[()]
    if kind == "lj" and not np.any(im[-1] != 0):
        bad.append("no atom crossed the box: the test shows nothing")
    un = pos + im * np.diagonal(edges, axis1=1, axis2=2)[:, None, :]
    own = ((un - un[0]) ** 2).sum(axis=2).mean(axis=1)
for k, s in enumerate(steps):
    want = hist[int(s)]
    if not np.isclose(own[k], want, rtol=1e-12, atol=1e-15):
        bad.append(f"step {s}: msd from h5py {own[k]!r} != history {want!r}")
    if not np.isclose(a["msd"][k], want, rtol=1e-5, atol=1e-9):
        bad.append(f"step {s}: msd from MDAnalysis {a['msd'][k]!r} != history {want!r}")
if not np.isclose(a["msd_einstein"][-1], a["msd"][-1], rtol=1e-6):
    bad.append(f"EinsteinMSD's last lag {a['msd_einstein'][-1]} != the last frame's {a['msd'][-1]}")
if kind == "lj" and not a["msd_wrapped"][-1] > 10 * a["msd"][-1] > 0:
    bad.append(f"msd of wrapped positions {a['msd_wrapped'][-1]} not 10x the unwrapped {a['msd'][-1]}")
if kind == "lj":
    r, gr = np.array(a["rdf_r"]), np.array(a["rdf_g"])
    if np.any(gr[r < 0.8] != 0):
        bad.append(f"g(r) > 0 below 0.8 sigma: {gr[r < 0.8]}")
    if not 1.0 <= a["rdf_peak_r"] <= 1.25 or a["rdf_peak_g"] < 2:
        bad.append(f"g(r) peak {a['rdf_peak_g']} at {a['rdf_peak_r']}")
    tail = gr[r > 2.0].mean()
    if not 0.8 < tail < 1.2:
        bad.append(f"g(r) over (2, 2.5] sigma averages {tail}")
else:
    if not np.isclose(a["dt"], 0.01, rtol=1e-9):
        bad.append(f"dt {a['dt']} ps, expected 0.01 (10 steps of 1 fs)")
    with h5py.File(f"{d}/{name}.h5md", "r") as f:
        v = f["particles/all/velocity/value"]
        if v.attrs["unit"] != "Angstrom fs-1":
            bad.append(f"velocity unit {v.attrs['unit']}")
        v0 = v[0, 0] * 1000.0
    if not np.allclose(a["velocity_first_atom"], v0, rtol=1e-6):
        bad.append(f"velocity {a['velocity_first_atom']} Angstrom/ps, file says {v0}")
for b in bad:
    print("FAIL:", b)
print(f"{d}: {len(steps)} frames, msd {own[-1]:.6g}, {len(bad)} failures")
sys.exit(1 if bad else 0)
