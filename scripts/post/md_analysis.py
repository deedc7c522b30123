#!/usr/bin/python3
"""Structure and diffusion of an MD run from its trajectory, with MDAnalysis: the documented recipe.

    scripts/post/md_analysis.py output/lj_melt/lj_melt.h5md
    scripts/post/md_analysis.py output/nacl_melt/nacl_melt.h5md --rdf-max 10 --json nacl.json -o nacl

Loads NAME.h5md with its topology NAME.data (the LAMMPS data file Stratus writes beside every trajectory)
into an MDAnalysis Universe, then computes
  - the radial distribution function g(r) of all atom pairs (MDAnalysis' InterRDF, minimum image), and
  - the mean squared displacement from the first frame, of the positions unwrapped with the trajectory's
    image flags (position + image * box edge), per frame; and MDAnalysis' EinsteinMSD over the same
    unwrapped positions (averaged over time origins).
Prints a summary, writes PREFIX_rdf.csv and PREFIX_msd.csv (default PREFIX: the trajectory without .h5md),
PREFIX_analysis.png when matplotlib is present, and with --json a machine-readable summary.

What the recipe works around in Debian's MDAnalysis 2.4:
  - a LAMMPS data file of atom style atomic or charge needs atom_style="id type x y z" (or
    "id type q x y z"): the style is read from the file's "Atoms # STYLE" line;
  - H5MD files in reduced (lj) units carry no unit attributes and load with convert_units=False;
  - the reader reports dt = 1.0 whatever the file holds: the frame interval is passed as dt (in the units
    MDAnalysis converted the times to: ps for physical units);
  - "Angstrom fs-1" velocities (units = real) come out 1e6 too small (its table gives 1e3 Angstrom/ps per
    Angstrom/fs instead of 1e-3; fixed in MDAnalysis 2.5): the table entry is corrected before loading;
  - the H5MD image element is not read: the unwrapping uses h5py.
Exit status: 0, 2 on bad input (missing file, no positions or image flags in the trajectory).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import check_file, fail, need  # noqa: E402


def atom_style(data_path):
    """MDAnalysis' atom_style for the data file's "Atoms # STYLE" section."""
    with open(data_path) as f:
        for line in f:
            if line.startswith("Atoms"):
                style = line.partition("#")[2].strip() or "atomic"
                styles = {"atomic": "id type x y z", "charge": "id type q x y z"}
                if style not in styles:
                    fail(f"{data_path}: atom style '{style}' (expected atomic or charge)")
                return styles[style]
    fail(f"{data_path}: no Atoms section")


def load(traj, data):
    """The Universe, the particle group, whether it has physical units, the frame times, the atom style."""
    mda = need("MDAnalysis")
    h5py = need("h5py")
    import MDAnalysis.units  # noqa: F401 (the table patched below)
    # MDAnalysis < 2.5: 1 Angstrom/fs is 1e-3 Angstrom/ps in its base-unit table, not 1e3.
    for key in ("Angstrom/fs", "A/fs", "\u212b/fs"):
        if MDAnalysis.units.conversion_factor["speed"].get(key) == 1e3:
            MDAnalysis.units.conversion_factor["speed"][key] = 1e-3
    with h5py.File(traj, "r") as f:
        groups = list(f.get("particles", {}).keys())
        if len(groups) != 1:
            fail(f"{traj}: expected one particle group, found {groups}")
        g = f["particles"][groups[0]]
        if "position" not in g or "image" not in g:
            fail(f"{traj}: needs position and image elements (a trajectory of this Stratus version)")
        physical = "unit" in g["position/value"].attrs
        t = g["position/time"]
        times = [float(x) for x in t[()]]
        if physical:  # MDAnalysis converts to ps
            unit = t.attrs["unit"]
            unit = unit.decode() if isinstance(unit, bytes) else str(unit)
            times = [MDAnalysis.units.convert(x, unit, "ps") for x in times]
    style = atom_style(data)
    # The reader's own dt is 1.0 whatever the file says: pass the frame interval.
    dt = {"dt": times[1] - times[0]} if len(times) > 1 else {}
    u = mda.Universe(data, traj, atom_style=style, convert_units=physical, **dt)
    return u, groups[0], physical, times, style


def unwrapped(u, traj, group):
    """(frames, N, 3) positions unwrapped with the image flags (MDAnalysis' units), row = atom index."""
    h5py = need("h5py")
    np = need("numpy")
    out = np.empty((len(u.trajectory), u.atoms.n_atoms, 3))
    with h5py.File(traj, "r") as f:
        image = f[f"particles/{group}/image/value"]
        for k, ts in enumerate(u.trajectory):
            out[k] = ts.positions.astype(np.float64) + image[k] * ts.dimensions[:3]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("trajectory", help="NAME.h5md (NAME.data beside it is the topology)")
    ap.add_argument("--data", help="the topology (default: the trajectory with .data)")
    ap.add_argument("--rdf-max", type=float, default=None,
                    help="largest r of g(r), in the trajectory's length unit (default: a quarter of the box)")
    ap.add_argument("--bins", type=int, default=100, help="bins of g(r) (default 100)")
    ap.add_argument("-o", "--prefix", help="output prefix (default: the trajectory without .h5md)")
    ap.add_argument("--json", help="write a summary as JSON here")
    a = ap.parse_args()
    data = a.data or os.path.splitext(a.trajectory)[0] + ".data"
    check_file(a.trajectory)
    check_file(data)
    if a.bins < 1:
        fail(f"--bins {a.bins}: must be positive")
    np = need("numpy")
    u, group, physical, times, style = load(a.trajectory, data)
    from MDAnalysis.analysis.msd import EinsteinMSD
    from MDAnalysis.analysis.rdf import InterRDF
    from MDAnalysis.coordinates.memory import MemoryReader

    box = u.trajectory[0].dimensions[:3]
    rmax = a.rdf_max if a.rdf_max is not None else 0.25 * float(min(box))
    if not 0 < rmax <= 0.5 * float(min(box)):
        fail(f"--rdf-max {rmax}: must be in (0, half the smallest box edge = {0.5 * float(min(box))}]")
    rdf = InterRDF(u.atoms, u.atoms, nbins=a.bins, range=(0.0, rmax), exclusion_block=(1, 1)).run()

    pos = unwrapped(u, a.trajectory, group)
    msd = ((pos - pos[0]) ** 2).sum(axis=2).mean(axis=1)
    first = u.trajectory[0].positions.copy()
    wrapped = np.array([((ts.positions - first) ** 2).sum(axis=1).mean() for ts in u.trajectory])
    mda = need("MDAnalysis")
    un = mda.Universe(data, atom_style=style)  # the same atoms, the unwrapped frames in memory
    un.load_new(pos.astype(np.float32), format=MemoryReader, dt=u.trajectory.dt)
    einstein = EinsteinMSD(un, select="all", msd_type="xyz", fft=False).run()

    prefix = a.prefix or os.path.splitext(a.trajectory)[0]
    np.savetxt(prefix + "_rdf.csv", np.column_stack([rdf.results.bins, rdf.results.rdf]), delimiter=",",
               header="r,g", comments="")
    np.savetxt(prefix + "_msd.csv", np.column_stack([times, msd, einstein.results.timeseries]), delimiter=",",
               header="time,msd_from_start,msd_einstein", comments="")
    peak = int(np.argmax(rdf.results.rdf))
    summary = {
        "trajectory": a.trajectory, "topology": data, "atoms": int(u.atoms.n_atoms),
        "frames": len(u.trajectory), "dt": float(u.trajectory.dt), "physical_units": physical,
        "units": {k: v for k, v in u.trajectory.units.items()},
        "times": [float(t) for t in times], "msd": [float(m) for m in msd],
        "msd_wrapped": [float(m) for m in wrapped], "msd_einstein": [float(m) for m in einstein.results.timeseries],
        "rdf_r": [float(r) for r in rdf.results.bins], "rdf_g": [float(g) for g in rdf.results.rdf],
        "rdf_peak_r": float(rdf.results.bins[peak]), "rdf_peak_g": float(rdf.results.rdf[peak]),
    }
    u.trajectory[0]
    if u.trajectory.ts.has_velocities:
        summary["velocity_first_atom"] = [float(v) for v in u.trajectory.ts.velocities[0]]
    print(f"{a.trajectory}: {summary['atoms']} atoms, {summary['frames']} frames, dt = {summary['dt']:g}")
    print(f"  g(r): highest peak {summary['rdf_peak_g']:.3f} at r = {summary['rdf_peak_r']:.4g}")
    print(f"  msd at the last frame: {msd[-1]:.6g} unwrapped ({wrapped[-1]:.6g} from the wrapped positions)")
    print(f"  wrote {prefix}_rdf.csv, {prefix}_msd.csv")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return 0
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.plot(rdf.results.bins, rdf.results.rdf)
    ax1.set_xlabel("r")
    ax1.set_ylabel("g(r)")
    ax2.plot(times, msd, label="from the start")
    ax2.plot(times, einstein.results.timeseries, "--", label="EinsteinMSD (all origins)")
    ax2.set_xlabel("time")
    ax2.set_ylabel("MSD")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(prefix + "_analysis.png", dpi=100)
    print(f"  wrote {prefix}_analysis.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
