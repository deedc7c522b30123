#!/usr/bin/python3
"""Compares the numeric datasets of two HDF5 files (Stratus grid snapshots, H5MD trajectories, any HDF5)
element by element, with a tolerance.

usage: h5compare.py A.h5 B.h5 [--rtol R] [--atol A] [--only PATTERN ...] [--ignore-missing] [-q]

Every dataset present in both files (found through hard and soft links; external links are not followed)
is compared where it is numeric (integers, floats, complex, booleans); for each one the largest absolute
difference |a - b| and the largest relative difference |a - b| / |b| are printed with the index where
they occur. Elements pass when |a - b| <= atol + rtol |b|; NaN equals NaN at the same index, and equal
infinities are equal. Datasets present in only one file are listed and count as a difference (unless
--ignore-missing); non-numeric datasets (strings, compound types) and attributes are not compared.

  --rtol R          relative tolerance (default 1e-9)
  --atol A          absolute tolerance (default 0)
  --only PATTERN    compare only the datasets whose path matches this shell pattern, e.g. '/fields/*',
                    '*position*' or 'q' (a leading '/' is optional); may be given several times
  --ignore-missing  datasets present in only one file do not make the comparison fail
  -q, --quiet       print only the datasets that differ and the summary

Run with Debian's /usr/bin/python3 (python3-h5py, python3-numpy). Exit status 0 when all compared
datasets agree within the tolerance, 1 when some differ, 2 on bad input (missing or unreadable file,
a dataset whose shape or kind differs between the files, nothing to compare).
"""
import argparse
import fnmatch
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for _common
from _common import EXIT_BAD_INPUT, EXIT_DIFFERENT, fail, need, open_hdf5  # noqa: E402


def datasets(f):
    """{path: dataset} of every dataset reachable from the root through hard and soft links."""
    h5py = need("h5py")
    found = {}

    def walk(group, prefix, ancestors):
        for name in group:
            link = group.get(name, getlink=True)
            if isinstance(link, h5py.ExternalLink):
                continue
            try:
                obj = group[name]
            except (KeyError, OSError):  # a dangling soft link
                continue
            path = f"{prefix}/{name}"
            if isinstance(obj, h5py.Dataset):
                found[path] = obj
            elif isinstance(obj, h5py.Group) and not any(obj.id == g.id for g in ancestors):
                walk(obj, path, ancestors + [obj])

    walk(f, "", [f])
    return found


def numeric(ds):
    return ds.dtype.kind in "biufc"


def index_text(np, flat, shape):
    if not shape:
        return "()"
    return "(" + ", ".join(str(int(i)) for i in np.unravel_index(flat, shape)) + ")"


def compare(np, a, b, rtol, atol):
    """(max abs diff, its flat index, a and b there, max rel diff, its flat index, elements outside the
    tolerance)."""
    kind = complex if "c" in (a.dtype.kind + b.dtype.kind) else float
    x = np.asarray(a, dtype=kind).ravel()
    y = np.asarray(b, dtype=kind).ravel()
    if x.size == 0:
        return 0.0, 0, None, None, 0.0, 0, 0
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        same = (x == y) | (np.isnan(x) & np.isnan(y))
        d = np.abs(x - y)
        d[same] = 0.0
        d[np.isnan(d)] = np.inf  # NaN against a number, or opposite infinities
        bad = d > atol + rtol * np.abs(y)
        mag = np.abs(y)
        r = np.where(d == 0.0, 0.0, np.where(mag > 0.0, d / np.where(mag > 0.0, mag, 1.0), np.inf))
        r[np.isnan(r)] = np.inf
    ia, ir = int(np.argmax(d)), int(np.argmax(r))
    return float(d[ia]), ia, x[ia], y[ia], float(r[ir]), ir, int(np.count_nonzero(bad))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", metavar="A.h5")
    p.add_argument("b", metavar="B.h5")
    p.add_argument("--rtol", type=float, default=1e-9, help="relative tolerance (default 1e-9)")
    p.add_argument("--atol", type=float, default=0.0, help="absolute tolerance (default 0)")
    p.add_argument("--only", action="append", metavar="PATTERN", help="shell pattern of dataset paths")
    p.add_argument("--ignore-missing", action="store_true", help="datasets in one file only do not fail")
    p.add_argument("-q", "--quiet", action="store_true", help="print only differences and the summary")
    args = p.parse_args(argv)
    if not (args.rtol >= 0.0 and args.atol >= 0.0):
        fail("--rtol and --atol must be >= 0")

    np = need("numpy")
    fa, fb = open_hdf5(args.a), open_hdf5(args.b)
    da, db = datasets(fa), datasets(fb)

    def wanted(path):
        return not args.only or any(fnmatch.fnmatchcase(path, pat) or fnmatch.fnmatchcase(path[1:], pat)
                                    for pat in args.only)

    names = sorted(n for n in set(da) | set(db) if wanted(n))
    if not names:
        what = f"matching {' '.join(args.only)}" if args.only else "in either file"
        fail(f"{args.a}, {args.b}: no datasets {what}")
    print(f"comparing {args.a} (A) with {args.b} (B): |a - b| <= {args.atol:g} + {args.rtol:g} |b|")
    width = max(len(n) for n in names)
    ncmp = ndiff = nskip = 0
    only_a, only_b, mismatched = [], [], []
    for n in names:
        if n not in db:
            only_a.append(n)
            print(f"  {n:<{width}}  only in A")
            continue
        if n not in da:
            only_b.append(n)
            print(f"  {n:<{width}}  only in B")
            continue
        a, b = da[n], db[n]
        if numeric(a) != numeric(b):
            mismatched.append(n)
            print(f"  {n:<{width}}  MISMATCH: {a.dtype} in A, {b.dtype} in B")
            continue
        if not numeric(a):
            nskip += 1
            if not args.quiet:
                print(f"  {n:<{width}}  skipped ({a.dtype}, not numeric)")
            continue
        if a.shape != b.shape:
            mismatched.append(n)
            print(f"  {n:<{width}}  MISMATCH: shape {a.shape} in A, {b.shape} in B")
            continue
        try:
            av, bv = a[()], b[()]
        except (OSError, TypeError, ValueError) as e:
            mismatched.append(n)
            print(f"  {n:<{width}}  UNREADABLE: {e}")
            continue
        dmax, ia, xa, yb, rmax, ir, nbad = compare(np, av, bv, args.rtol, args.atol)
        ncmp += 1
        ndiff += nbad > 0
        if nbad or not args.quiet:
            verdict = f"DIFFERS ({nbad} of {av.size} elements outside)" if nbad else "ok"
            print(f"  {n:<{width}}  {str(a.shape):<16} max|a-b| {dmax:.3e} at {index_text(np, ia, a.shape):<14}"
                  f" max rel {rmax:.3e} at {index_text(np, ir, a.shape):<14} {verdict}")
            if nbad:
                print(f"  {'':<{width}}  largest difference: a = {xa:.17g}, b = {yb:.17g} at "
                      f"{index_text(np, ia, a.shape)}")
    fails = ndiff + (0 if args.ignore_missing else len(only_a) + len(only_b))
    print(f"{ncmp} dataset(s) compared: {ndiff} differ beyond the tolerance; {len(only_a)} only in A, "
          f"{len(only_b)} only in B; {nskip} not numeric (skipped)"
          + (f"; {len(mismatched)} of different shape or kind" if mismatched else ""))
    if mismatched:
        fail(f"{args.a}, {args.b}: cannot compare {', '.join(mismatched)} (different shape or kind)",
             EXIT_BAD_INPUT)
    if fails:
        print("DIFFERENT")
        return EXIT_DIFFERENT
    print("SAME within the tolerance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
