#!/usr/bin/python3
"""Plots the history table of a Stratus run (NAME_history.csv, written by `stratus run` for every physics:
columns step, time, dt, then the physics' diagnostics), one panel per column, to a PNG.

usage: plot_history.py HISTORY.csv [-c COL ...] [-o OUT.png] [--x step|time]

  -c COL ...     the columns to plot, repeatable: -c a b and -c a -c b are the same (default: every
                 diagnostic column after dt, at most 6)
  -o OUT.png     the image (default: HISTORY.png next to the table)
  --x step|time  the abscissa (default: time)

Run with Debian's /usr/bin/python3 (python3-numpy, python3-matplotlib). Exit status 0 on success, 2 on bad
input (missing file, not a Stratus history table, unknown column, no rows).
"""
import argparse
import csv
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for _common
from _common import check_file, fail, need, pyplot, save  # noqa: E402

FIRST = ["step", "time", "dt"]
MAX_DEFAULT = 6


def read_history(path):
    """(columns, rows) of a history table; rows are lists of floats (nan where a value is empty)."""
    check_file(path)
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            table = list(csv.reader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        fail(f"{path}: cannot read ({e})")
    if not table or table[0][:3] != FIRST:
        head = ",".join(table[0][:4]) if table else "empty file"
        fail(f"{path}: not a Stratus history table (header starts '{head}', expected 'step,time,dt,...')")
    cols, rows = table[0], []
    for n, row in enumerate(table[1:], start=2):
        if not row:
            continue
        if len(row) != len(cols):
            fail(f"{path}: line {n} has {len(row)} values for {len(cols)} columns")
        try:
            rows.append([float(v) if v.strip() else math.nan for v in row])
        except ValueError as e:
            fail(f"{path}: line {n}: {e}")
    if not rows:
        fail(f"{path}: the history table has no rows yet")
    return cols, rows


def history_units(path):
    """Units of the table's columns from NAME_report.json beside NAME_history.csv ({} when unknown)."""
    import json
    if not path.endswith("_history.csv"):
        return {}
    try:
        with open(path[:-len("_history.csv")] + "_report.json") as f:
            units = json.load(f).get("history_units", {})
    except (OSError, ValueError):
        return {}
    return units if isinstance(units, dict) else {}


def label(name, units):
    """"name [unit]", or the name alone when the unit is unknown."""
    u = units.get(name)
    return f"{name} [{u}]" if u else name


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("history", metavar="HISTORY.csv")
    # extend: "-c a b" and "-c a -c b" both plot a and b (with "store", a repeated -c kept only the last)
    p.add_argument("-c", "--columns", nargs="+", action="extend", metavar="COL",
                   help=f"columns to plot, repeatable (default: all after dt, at most {MAX_DEFAULT})")
    p.add_argument("-o", "--output", metavar="OUT.png", help="output image (default: next to the table)")
    p.add_argument("--x", choices=["step", "time"], default="time", help="abscissa (default: time)")
    a = p.parse_args(argv)

    cols, rows = read_history(a.history)
    np = need("numpy")
    data = np.array(rows, dtype=float)
    diag = cols[3:]
    if a.columns:
        unknown = [c for c in a.columns if c not in cols]
        if unknown:
            fail(f"{a.history}: unknown column(s) {', '.join(unknown)}; the table has {', '.join(cols)}")
        chosen = a.columns
    else:
        if not diag:
            fail(f"{a.history}: no diagnostic columns after step, time, dt")
        chosen = diag[:MAX_DEFAULT]
        if len(diag) > MAX_DEFAULT:
            print(f"plotting the first {MAX_DEFAULT} of {len(diag)} diagnostic columns "
                  f"(choose others with -c): {', '.join(chosen)}")
    out = a.output or os.path.splitext(a.history)[0] + ".png"
    units = history_units(a.history)

    plt = pyplot()
    n = len(chosen)
    ncols = 1 if n <= 3 else 2
    nrows = (n + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.5 * ncols, 2.6 * nrows + 0.6), dpi=110, sharex=True,
                             squeeze=False)
    x = data[:, cols.index(a.x)]
    for k, name in enumerate(chosen):
        ax = axes[k // ncols][k % ncols]
        ax.plot(x, data[:, cols.index(name)], marker="." if len(x) <= 50 else None, lw=1.2)
        ax.set_ylabel(label(name, units))
        ax.grid(True, alpha=0.3)
    for k in range(n, nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    for c in range(ncols):  # the lowest panel of each column carries the abscissa
        axes[(n - 1 - c) // ncols][c].set_xlabel(label(a.x, units))
        axes[(n - 1 - c) // ncols][c].xaxis.set_tick_params(labelbottom=True)
    fig.suptitle(os.path.basename(a.history))
    fig.tight_layout()
    print(f"panels: {', '.join(label(c, units) for c in chosen)} against {label(a.x, units)}")
    save(fig, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
