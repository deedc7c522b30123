"""Helpers shared by the tools in scripts/post/ (not a tool itself): error exits, opening HDF5 files and
Stratus grid snapshots, and a non-interactive matplotlib.

Exit codes used by every tool: 0 success, 1 a comparison found differences (h5compare.py), 2 bad input
(missing or unreadable file, not a Stratus file, unknown field or column, bad option value).
"""
import os
import sys

EXIT_DIFFERENT = 1
EXIT_BAD_INPUT = 2


def fail(msg, code=EXIT_BAD_INPUT):
    """Prints 'TOOL: error: MSG' to stderr and exits with `code` (2, bad input, by default)."""
    print(f"{os.path.basename(sys.argv[0])}: error: {msg}", file=sys.stderr)
    sys.exit(code)


def need(module):
    """Imports a third-party module, or exits 2 explaining that Debian's /usr/bin/python3 is needed."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError as e:
        fail(f"cannot import {module} ({e}); run the tool with Debian's /usr/bin/python3 and the packages "
             "python3-h5py, python3-numpy and python3-matplotlib")


def check_file(path):
    """Exits 2 unless `path` is an existing regular file."""
    if not os.path.exists(path):
        fail(f"{path}: no such file")
    if not os.path.isfile(path):
        fail(f"{path}: not a regular file")


def open_hdf5(path):
    """The HDF5 file at `path`, opened read-only; exits 2 if it is missing or not HDF5."""
    h5py = need("h5py")
    check_file(path)
    try:
        return h5py.File(path, "r")
    except OSError as e:
        fail(f"{path}: not a readable HDF5 file ({e})")


def text(value):
    """An HDF5 string attribute as str (h5py returns fixed-length strings as bytes)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def open_snapshot(path):
    """A Stratus grid snapshot (NAME_NNNNNN.h5 of `stratus run`): the open file, after checking that it has
    the /fields group and the root attributes origin, spacing and global_cells. Exits 2 otherwise."""
    f = open_hdf5(path)
    missing = [a for a in ("origin", "spacing", "global_cells") if a not in f.attrs]
    if "fields" not in f or not hasattr(f["fields"], "keys") or missing:
        what = "no /fields group" if "fields" not in f else "no root attribute " + ", ".join(missing)
        fail(f"{path}: not a Stratus grid snapshot ({what})")
    return f


def pyplot():
    """matplotlib.pyplot with the non-interactive Agg backend (no display needed)."""
    matplotlib = need("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save(fig, out):
    """Saves a figure as PNG, exiting 2 with a message if the file cannot be written."""
    try:
        fig.savefig(out)
    except OSError as e:
        fail(f"{out}: cannot write ({e})")
    print(f"wrote {out}")
