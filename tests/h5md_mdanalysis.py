#!/usr/bin/env python3
"""Checks that MDAnalysis reads a Stratus H5MD trajectory.

Usage: h5md_mdanalysis.py FILE N EXPECTED_JSON

FILE is loaded with MDAnalysis' H5MD reader and must hold N atoms and the frames, times, box and atom
positions and velocities listed in EXPECTED_JSON (written by test_h5md [mdanalysis]; values in the units
of the file, atoms keyed by row = id - 1). A file in physical units whose particle group is "trajectory"
is opened as plain MDAnalysis.Universe(FILE): MDAnalysis 2.4 probes the atom count of a bare H5MD file
under particles/trajectory only, and its probe rejects any keyword argument. Any other file is opened as
Universe(FILE, n_atoms=N), which skips the probe, with convert_units=False for reduced units (such
files carry no unit attributes). Exits 77 (skipped) when MDAnalysis cannot be imported, 1 on a mismatch.
"""
import json
import sys

try:
    import MDAnalysis
    import numpy as np
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    path, n_atoms, expected_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(expected_path) as f:
        want = json.load(f)
    kwargs = {} if want["convert_units"] else {"convert_units": False}
    if want["group"] == "trajectory" and not kwargs:
        u = MDAnalysis.Universe(path)
    else:
        u = MDAnalysis.Universe(path, n_atoms=n_atoms, **kwargs)
    scale = want["length_scale"]  # file length unit -> MDAnalysis' (nm -> Angstrom)
    failures = []
    if u.atoms.n_atoms != n_atoms:
        failures.append(f"n_atoms {u.atoms.n_atoms} != {n_atoms}")
    if len(u.trajectory) != want["n_frames"]:
        failures.append(f"{len(u.trajectory)} frames, expected {want['n_frames']}")
    for k, ts in enumerate(u.trajectory):
        if not np.isclose(ts.time, want["times"][k], rtol=1e-12):
            failures.append(f"frame {k}: time {ts.time} != {want['times'][k]}")
        box = np.array(want["box"]) * scale
        if ts.dimensions is None or not np.allclose(ts.dimensions[:3], box, rtol=1e-6):
            failures.append(f"frame {k}: box {ts.dimensions} != {box}")
        elif not np.allclose(ts.dimensions[3:], 90.0):
            failures.append(f"frame {k}: box angles {ts.dimensions[3:]} are not 90")
        for row, atom in want["atoms"].items():
            for name, got in (("position", ts.positions), ("velocity", ts.velocities)):
                expected = np.array(atom[name][k]) * scale
                # MDAnalysis holds coordinates in float32.
                if not np.allclose(got[int(row)], expected, rtol=1e-6, atol=1e-5):
                    failures.append(f"frame {k} row {row}: {name} {got[int(row)]} != {expected}")
    for f in failures:
        print("FAIL:", f)
    print(f"{path}: {u.atoms.n_atoms} atoms, {len(u.trajectory)} frames, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
