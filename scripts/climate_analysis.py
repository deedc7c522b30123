#!/usr/bin/python3
"""Post-processing of Stratus climate snapshots (HDF5 written by `stratus run`), with Debian's python3-h5py,
python3-numpy and python3-matplotlib (use /usr/bin/python3).

  climate_analysis.py front SNAPSHOT.h5        Straka front position and minimum theta'
  climate_analysis.py plot SNAPSHOT.h5 OUT.png [FIELD] [--title T] [--xlim A B]
                                               x-z section (the middle y plane in 3D) of a field
"""
import sys

import h5py
import numpy as np


def load(path, field):
    f = h5py.File(path, "r")
    data = f["fields/" + field][...]  # (nz, ny, nx)
    origin, spacing = f.attrs["origin"], f.attrs["spacing"]
    time = float(f.attrs["time"])
    nz, ny, nx = data.shape
    x = origin[0] + (np.arange(nx) + 0.5) * spacing[0]
    z = origin[2] + (np.arange(nz) + 0.5) * spacing[2]
    return data[:, ny // 2, :], x, z, time


def front(path):
    """The -1 K contour of theta' along the lowest level, right of the centre (Straka et al. 1993)."""
    th, x, z, time = load(path, "theta_prime")
    s = th[0]
    cold = np.where(s <= -1.0)[0]
    if cold.size == 0:
        raise SystemExit("no theta' <= -1 K at the ground: no front")
    i = cold.max()
    if i + 1 >= s.size:
        raise SystemExit("the front reached the right edge of the domain")
    xf = x[i] + (-1.0 - s[i]) * (x[i + 1] - x[i]) / (s[i + 1] - s[i])
    xl = cold.min()
    xfl = x[xl] - (-1.0 - s[xl]) * (x[xl] - x[xl - 1]) / (s[xl - 1] - s[xl])
    print(f"time {time:.1f} s  front {xf / 1000:.3f} km  (left {xfl / 1000:.3f} km)  "
          f"theta'_min {th.min():.3f} K  dx {x[1] - x[0]:.1f} m")


def plot(path, out, field="theta_prime", title=None, xlim=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    q, x, z, time = load(path, field)
    fig, ax = plt.subplots(figsize=(10, 10 * (z[-1] - z[0]) / (x[-1] - x[0]) + 1.2) if xlim is None
                           else (10, 4), dpi=110)
    lim = np.abs(q).max()
    im = ax.pcolormesh(x / 1000, z / 1000, q, cmap="RdBu_r", vmin=-lim, vmax=lim, shading="auto")
    if field == "theta_prime":
        ax.contour(x / 1000, z / 1000, q, levels=[l for l in np.arange(-15, 16, 1.0) if l != 0], colors="k",
                   linewidths=0.5)
    ax.set_xlabel("x [km]")
    ax.set_ylabel("z [km]")
    if xlim:
        ax.set_xlim(*xlim)
    ax.set_aspect("equal")
    ax.set_title(title or f"{field}, t = {time:.0f} s")
    fig.colorbar(im, ax=ax, shrink=0.8, label=field)
    fig.tight_layout()
    fig.savefig(out)


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) >= 2 and a[0] == "front":
        front(a[1])
    elif len(a) >= 3 and a[0] == "plot":
        title, xlim, rest = None, None, []
        i = 3
        while i < len(a):
            if a[i] == "--title":
                title = a[i + 1]
                i += 2
            elif a[i] == "--xlim":
                xlim = (float(a[i + 1]), float(a[i + 2]))
                i += 3
            else:
                rest.append(a[i])
                i += 1
        plot(a[1], a[2], rest[0] if rest else "theta_prime", title, xlim)
    else:
        print(__doc__)
        sys.exit(2)
