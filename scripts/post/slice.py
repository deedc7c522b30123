#!/usr/bin/python3
"""Plots a plane of one field of a Stratus grid snapshot (NAME_NNNNNN.h5 of `stratus run`) to a PNG, with
physical axes taken from the snapshot's origin and spacing and a colorbar labelled with the field's unit.

usage: slice.py SNAPSHOT.h5 FIELD [--axis x|y|z] [--index K | --at COORD] [-o OUT.png] [--cmap NAME]

  --axis x|y|z   the direction normal to the plane. Default: the direction with a single cell in a 2D run
                 (the whole field is plotted), otherwise y (an x-z section, as for the climate decks)
  --index K      the plane's cell index along --axis, 0-based (default: the middle cell, n // 2)
  --at COORD     the plane through the cell that contains coordinate COORD (length unit of the file)
  -o OUT.png     the image (default: SNAPSHOT_FIELD_AXISK.png next to the snapshot)
  --cmap NAME    a matplotlib colormap (default: RdBu_r centred on 0 for fields of both signs, else viridis)

A plane that is a single row of cells (a 1D run) is drawn as a line plot. Run with Debian's
/usr/bin/python3 (python3-h5py, python3-numpy, python3-matplotlib). Exit status 0 on success, 2 on bad
input (missing file, not a Stratus snapshot, unknown field, index or coordinate outside the grid).
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for _common
from _common import fail, need, open_snapshot, pyplot, save, text  # noqa: E402

AXES = "xyz"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("snapshot", metavar="SNAPSHOT.h5")
    p.add_argument("field", metavar="FIELD", help="a dataset under /fields (e.g. q, rho, theta_prime)")
    p.add_argument("--axis", choices=list(AXES), help="normal of the plane (default: see above)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--index", type=int, metavar="K", help="cell index of the plane along --axis")
    where.add_argument("--at", type=float, metavar="COORD", help="coordinate of the plane along --axis")
    p.add_argument("-o", "--output", metavar="OUT.png", help="output image")
    p.add_argument("--cmap", metavar="NAME", help="matplotlib colormap")
    a = p.parse_args(argv)

    np = need("numpy")
    f = open_snapshot(a.snapshot)
    fields = sorted(f["fields"].keys())
    if a.field not in fields:
        fail(f"{a.snapshot}: unknown field '{a.field}'; the snapshot has {', '.join(fields) or 'no fields'}")
    ds = f["fields"][a.field]
    if ds.ndim != 3:
        fail(f"{a.snapshot}: /fields/{a.field} has {ds.ndim} dimensions, expected 3 (z, y, x)")
    n = ds.shape[::-1]  # cells in x, y, z (the datasets are (z, y, x))
    origin = np.asarray(f.attrs["origin"], dtype=float)
    spacing = np.asarray(f.attrs["spacing"], dtype=float)
    lunit = text(f.attrs.get("length_unit", ""))
    tunit = text(f.attrs.get("time_unit", ""))
    unit = text(ds.attrs.get("unit", ""))
    time = float(f.attrs["time"]) if "time" in f.attrs else None
    step = int(f.attrs["step"]) if "step" in f.attrs else None
    if len(origin) != 3 or len(spacing) != 3:
        fail(f"{a.snapshot}: origin and spacing must have 3 components")

    if a.axis is None:
        flat = [d for d in range(3) if n[d] == 1]
        a.axis = AXES[flat[-1]] if flat else "y"
    d = AXES.index(a.axis)
    if a.at is not None:
        hi = origin[d] + n[d] * spacing[d]
        if not origin[d] <= a.at <= hi:
            fail(f"{a.snapshot}: --at {a.at}: outside the grid along {a.axis}, [{origin[d]:g}, {hi:g}] {lunit}")
        k = min(int((a.at - origin[d]) // spacing[d]), n[d] - 1)
    elif a.index is not None:
        k = a.index
        if not 0 <= k < n[d]:
            fail(f"{a.snapshot}: --index {k}: outside 0..{n[d] - 1}, the cells along {a.axis}")
    else:
        k = n[d] // 2
    sel = [slice(None)] * 3
    sel[2 - d] = k  # dataset axis of direction d
    plane = np.asarray(ds[tuple(sel)], dtype=float)  # rows: the later of the in-plane directions
    h, v = [e for e in range(3) if e != d]  # in-plane directions, horizontal and vertical

    # Kilometres for long domains in metres, as in scripts/climate_analysis.py.
    scale, shown = 1.0, lunit
    if lunit == "m" and max(n[e] * spacing[e] for e in (h, v)) >= 5000.0:
        scale, shown = 1e-3, "km"
    edges = [(origin[e] + np.arange(n[e] + 1) * spacing[e]) * scale for e in range(3)]
    centre = (origin[d] + (k + 0.5) * spacing[d]) * scale

    label = f"{a.field} [{unit}]" if unit else a.field
    ax_label = [f"{AXES[e]} [{shown}]" if shown else AXES[e] for e in range(3)]
    title = a.field
    if n[d] > 1:
        title += f" at {a.axis} = {centre:g} {shown}".rstrip() + f" (cell {k})"
    if time is not None:
        title += f", t = {time:g} {tunit}".rstrip()
    if step is not None:
        title += f", step {step}"
    finite = plane[np.isfinite(plane)]
    if finite.size == 0:
        fail(f"{a.snapshot}: /fields/{a.field} has no finite values in this plane")
    lo, hi = float(finite.min()), float(finite.max())
    norm = {}
    cmap = a.cmap
    if cmap is None:
        cmap = "RdBu_r" if lo < 0.0 < hi else "viridis"
        if cmap == "RdBu_r":
            lim = max(-lo, hi)
            norm = {"vmin": -lim, "vmax": lim}
    plt = pyplot()
    if cmap not in plt.colormaps():
        fail(f"--cmap {cmap}: not a matplotlib colormap")

    out = a.output or os.path.splitext(a.snapshot)[0] + f"_{a.field}_{a.axis}{k}.png"
    if n[h] > 1 and n[v] > 1:
        width, height = n[h] * spacing[h], n[v] * spacing[v]
        aspect = height / width
        fw = 8.0 if aspect <= 1.0 else max(4.0, 7.0 / aspect)
        fig, ax = plt.subplots(figsize=(fw + 1.5, min(fw * aspect, 9.0) + 1.2), dpi=110)
        im = ax.pcolormesh(edges[h], edges[v], plane, cmap=cmap, shading="flat", **norm)
        ax.set_aspect("equal" if 0.05 < aspect < 20 else "auto")
        ax.set_ylabel(ax_label[v])
        # as tall as the plot for wide domains (0.046 * aspect is the usual recipe)
        fig.colorbar(im, ax=ax, label=label, fraction=0.046 * min(aspect, 1.0) if aspect > 0.05 else 0.15,
                     pad=0.03)
    else:
        e = h if n[h] > 1 else v
        fig, ax = plt.subplots(figsize=(8, 4), dpi=110)
        centres = 0.5 * (edges[e][1:] + edges[e][:-1])
        ax.plot(centres, plane.ravel(), lw=1.2)
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        h = e
    ax.set_xlabel(ax_label[h])
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    save(fig, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
