#!/usr/bin/python3
"""Energy conservation of an NVE run from its history table (NAME_history.csv of an MD run: columns step,
etotal, pe, ke): prints the drift of the total energy and plots it to a PNG.

usage: plot_energy_drift.py HISTORY.csv [-o OUT.png] [--title TEXT] [--ylim Y] [--after STEP]

  -o OUT.png     the image (default: HISTORY_drift.png next to the table)
  --title TEXT   the title of the upper panel (default: the table's file name)
  --ylim Y       the lower panel's range, +-Y in units of 1e-5 (default: from the data)
  --after STEP   also report the rows from STEP on (after an initial transient such as a melting lattice):
                 the largest |E(t) - E(STEP)|, the standard deviation and the fitted drift there

Printed: E(0); the largest |E(t) - E(0)| relative to |E(0)| and to |pe(0)|, with its step; the same at the
end; the slope of a least-squares line through E(t), per 1000 steps, relative to |E(0)| and to |pe(0)|.
Upper panel: pe, ke and etotal; lower panel: (E(t) - E(0)) / |E(0)| with the fitted line.

Run with Debian's /usr/bin/python3 (python3-numpy, python3-matplotlib). Exit status 0 on success, 2 on bad
input (missing file, not a Stratus history table, missing column, fewer than two rows).
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for _common
from _common import fail, need, pyplot, save  # noqa: E402
from plot_history import read_history  # noqa: E402

NEEDED = ["step", "etotal", "pe", "ke"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("history", metavar="HISTORY.csv")
    p.add_argument("-o", "--output", metavar="OUT.png", help="output image (default: next to the table)")
    p.add_argument("--title", help="title of the upper panel (default: the table's file name)")
    p.add_argument("--ylim", type=float, metavar="Y", help="lower panel: +-Y in units of 1e-5")
    p.add_argument("--after", type=float, metavar="STEP", help="also report the rows from STEP on")
    a = p.parse_args(argv)

    cols, rows = read_history(a.history)
    missing = [c for c in NEEDED if c not in cols]
    if missing:
        fail(f"{a.history}: no column(s) {', '.join(missing)}; an MD history table has step, etotal, pe, ke")
    if len(rows) < 2:
        fail(f"{a.history}: fewer than two rows")
    np = need("numpy")
    data = np.array(rows, dtype=float)
    step, e, pe, ke = (data[:, cols.index(c)] for c in NEEDED)
    e0, pe0 = e[0], abs(pe[0])
    dev = e - e0
    k = int(np.argmax(np.abs(dev)))
    slope, intercept = np.polyfit(step, e, 1)
    print(f"{os.path.basename(a.history)}: steps {int(step[0])}..{int(step[-1])}, {len(step)} rows, "
          f"E(0) = {e0:.12g}, pe(0) = {pe[0]:.12g}")
    print(f"largest |E(t) - E(0)|: {abs(dev[k]):.4g} at step {int(step[k])} = {abs(dev[k]) / abs(e0):.3e} of |E(0)|, "
          f"{abs(dev[k]) / pe0:.3e} of |pe(0)|")
    print(f"at the end: E - E(0) = {dev[-1]:.4g} = {dev[-1] / abs(e0):.3e} of |E(0)|, {dev[-1] / pe0:.3e} of |pe(0)|")
    print(f"fitted drift per 1000 steps: {slope * 1000:.4g} = {slope * 1000 / abs(e0):.3e} of |E(0)|, "
          f"{slope * 1000 / pe0:.3e} of |pe(0)|")
    print(f"standard deviation of E(t): {np.std(e):.4g} = {np.std(e) / abs(e0):.3e} of |E(0)|")
    if a.after is not None:
        late = step >= a.after
        if late.sum() < 2:
            fail(f"{a.history}: fewer than two rows from step {a.after:g} on")
        s1, e1 = step[late], e[late]
        d1 = np.abs(e1 - e1[0])
        k1 = int(np.argmax(d1))
        slope1 = np.polyfit(s1, e1, 1)[0]
        print(f"from step {int(s1[0])}: largest |E(t) - E({int(s1[0])})| {d1[k1]:.4g} at step {int(s1[k1])} = "
              f"{d1[k1] / abs(e0):.3e} of |E(0)|, {d1[k1] / pe0:.3e} of |pe(0)|; standard deviation "
              f"{np.std(e1) / abs(e0):.3e} of |E(0)|; fitted drift per 1000 steps {slope1 * 1000 / abs(e0):.3e} of "
              f"|E(0)|, {slope1 * 1000 / pe0:.3e} of |pe(0)|")

    plt = pyplot()
    fig, ax = plt.subplots(2, 1, figsize=(7, 5.6), dpi=100, sharex=True, gridspec_kw={"height_ratios": [1, 1.3]})
    ax[0].plot(step, pe, label="pe", lw=1.0)
    ax[0].plot(step, ke, label="ke", lw=1.0)
    ax[0].plot(step, e, label="etotal", color="k", lw=1.0)
    ax[0].set_ylabel("energy")
    ax[0].legend(loc="center right", bbox_to_anchor=(1.0, 0.7), ncol=3, fontsize=9)
    ax[0].set_title(a.title or os.path.basename(a.history), fontsize=10)
    ax[0].grid(True, alpha=0.3)
    scale = 1e5
    ax[1].plot(step, dev / abs(e0) * scale, color="k", lw=0.8, label="(E - E(0)) / |E(0)|")
    ax[1].plot(step, (slope * step + intercept - e0) / abs(e0) * scale, color="tab:red", lw=1.0, ls="--",
               label=f"linear fit: {slope * 1000 / abs(e0):.2e} per 1000 steps")
    ax[1].axhline(0.0, color="grey", lw=0.5)
    if a.ylim:
        ax[1].set_ylim(-a.ylim, a.ylim)
    ax[1].set_ylabel("(E - E(0)) / |E(0)|  [1e-5]")
    ax[1].set_xlabel("step")
    ax[1].legend(loc="upper right", fontsize=9)
    ax[1].grid(True, alpha=0.3)
    fig.tight_layout()
    save(fig, a.output or os.path.splitext(a.history)[0] + "_drift.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
