#!/usr/bin/env bash
# Stratus and LAMMPS (Debian's `lmp`, 29 Sep 2021, run serially) on the same atoms, in both directions:
#   - LAMMPS reads what Stratus writes: the data file of md.write_data (written after the last step) of an
#     LJ melt (500 atoms, 100 NVE steps) and of molten NaCl in real units (512 ions, 20 Langevin steps; Ewald
#     with G and kmax fixed, LAMMPS' erfc polynomial), at 1, 2 and 4 ranks, loaded by read_data: LAMMPS'
#     `run 0` thermo (temp pe ke etotal press; NaCl also evdwl ecoul elong) equals the last row of Stratus'
#     history table to 1e-12 relative (measured <= 1.6e-14: one state, two summation orders), and its
#     write_dump gives back the file's ids, types, masses, charges, box and velocities bit for bit, and its
#     positions bit for bit once wrapped into the box as read_data does (LJ: some are outside, between
#     neighbor-list builds), with the image flags moved to match; and the LJ data file holds Stratus' own
#     state, its last H5MD frame (double precision): velocities bit for bit, unwrapped positions to 2 ulp
#     (a writer printing fewer digits passes the LAMMPS checks, which read the file it wrote, but not this);
#     and both runs' trajectories (forces on; NaCl with charges) against LAMMPS' write_dump after `run 0`:
#     the frame of the data file's step, row = id - 1, whichever rank stored it, has LAMMPS' types, charges
#     and velocities bit for bit, its unwrapped positions to 2 ulp (image flags and wrap together), and the
#     forces LAMMPS computed to 1e-12 of the largest (measured <= 4.2e-15; the NaCl frame holds no Langevin
#     share, as LAMMPS' run 0 has none);
#   - whole runs of what no other test runs, from one data file on both sides, against LAMMPS at every step
#     to 1e-10 of each column's largest magnitude (measured: <= 1.7e-14 for the liquids, <= 2.7e-13 for the
#     crystals, where LAMMPS' pe of the perfect lattice at step 0 is 2.5e-13 off the exact sum, Stratus' 2e-15;
#     a wrong setting on one side differs by 4e-3 or more):
#     md.rescale_every + md.rescale_window (fix temp/rescale N T T window 1.0) on tests/data/md/lj_liquid.data;
#     md.zero_momentum_every (fix momentum N linear 1 1 1) on that liquid given a centre-of-mass drift; both
#     at once (Stratus rescales, then removes the drift: as fix temp/rescale defined before fix momentum);
#     md.boundary = p p f and f f f (boundary p p f / f f f) on a cold fcc crystal whose faces lie 2 sigma from
#     their periodic images, inside the cutoff, so that the boundary decides the forces (checked: the same
#     crystal under LAMMPS' p p p differs by > 1e-4). Stratus on 1 and 2 ranks, f f f also on 4;
#   - the features acted: T equals md.t_target after each rescale outside the window and stays put inside
#     it; T drops by the drift's share when the momentum is zeroed and the final data file's centre-of-mass
#     velocity is < 1e-14 (0.37 at the start); an atom kicked through a fixed face stops Stratus (exit 1,
#     naming the atom and the face) at the step where LAMMPS reports it lost, with the same thermo up to it.
# Needs Debian's lammps (`lmp`): fails without it. About 20 s on 2 cores (most of it the 4-rank runs).
#   usage: lammps_data.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
PY=${STRATUS_PYTHON:-/usr/bin/python3}
LMP=${LMP:-lmp}
command -v "$LMP" > /dev/null || fail "LAMMPS ('$LMP') not found on PATH (Debian: apt-get install lammps)"
# Debian's lmp is linked against OpenMPI, which refuses to run as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONDONTWRITEBYTECODE=1
DATA=$SRC/tests/data/md
TOL_STATE=1e-12 # one state in two codes: summation order only
TOL_FORCE=1e-12 # per-atom forces of one state, relative to the largest
TOL_RUN=1e-10   # 100-step trajectories (tests/test_md.cpp's bound against the LAMMPS fixtures)

# --- helpers in Python: thermo tables, data files, the checks ------------------------------------------
cat > "$T/ld.py" << 'EOF'
import math, random, sys

LMP_COLS = {"Step": "step", "Temp": "temp", "PotEng": "pe", "KinEng": "ke", "TotEng": "etotal",
            "Press": "press", "E_vdwl": "evdwl", "E_coul": "ecoul", "E_long": "elong"}

def lammps_thermo(path, error_ok=False):
    """The last thermo table of a LAMMPS log as [{column: float}], closed by 'Loop time' (or, with
    error_ok, by an ERROR line)."""
    lines = open(path).read().splitlines()
    heads = [i for i, l in enumerate(lines) if l.split()[:1] == ["Step"]]
    if not heads:
        sys.exit("no thermo table in %s" % path)
    names = [LMP_COLS[h] for h in lines[heads[-1]].split()]
    rows = []
    for l in lines[heads[-1] + 1:]:
        if l.startswith("Loop time") or (error_ok and l.startswith("ERROR")):
            return rows
        rows.append(dict(zip(names, map(float, l.split()))))
    sys.exit("thermo table of %s not closed by 'Loop time' (LAMMPS failed?)" % path)

def history(path):
    lines = open(path).read().split()
    names = lines[0].split(",")
    return [dict(zip(names, map(float, l.split(",")))) for l in lines[1:]]

def read_data(path):
    """A LAMMPS data file (atom style atomic or charge) as a dict."""
    d = {"box": [None] * 3, "masses": {}, "atoms": {}, "v": {}, "style": "atomic"}
    section = None
    for n, line in enumerate(open(path)):
        t = line.split("#")[0].split() if n else []
        if not t:
            continue
        if t[0][0].isalpha():
            section = t[0]
            if section == "Atoms" and "#" in line:
                d["style"] = line.split("#")[1].strip()
        elif section is None:
            if t[-1] == "atoms": d["natoms"] = int(t[0])
            elif t[-1] in ("xhi", "yhi", "zhi"): d["box"]["xyz".index(t[-1][0])] = (float(t[0]), float(t[1]))
        elif section == "Masses":
            d["masses"][int(t[0])] = float(t[1])
        elif section == "Atoms":
            q = float(t.pop(2)) if d["style"] == "charge" else None
            d["atoms"][int(t[0])] = (int(t[1]), q, [float(x) for x in t[2:5]], [int(x) for x in t[5:8]])
        elif section == "Velocities":
            d["v"][int(t[0])] = [float(x) for x in t[1:4]]
    if not len(d["atoms"]) == d["natoms"] == len(d["v"]):
        sys.exit("%s: %d atoms declared, %d read, %d velocities" % (path, d["natoms"], len(d["atoms"]), len(d["v"])))
    return d

def write_data(path, d, title):
    """Atom style atomic, numbers as Python's repr (shortest round trip: read back to the same doubles)."""
    with open(path, "w") as f:
        f.write("%s\n\n%d atoms\n%d atom types\n\n" % (title, len(d["atoms"]), len(d["masses"])))
        for k, (lo, hi) in enumerate(d["box"]):
            f.write("%r %r %slo %shi\n" % (lo, hi, "xyz"[k], "xyz"[k]))
        f.write("\nMasses\n\n" + "".join("%d %r\n" % (t, m) for t, m in sorted(d["masses"].items())))
        f.write("\nAtoms # atomic\n\n")
        for i, (typ, _, x, im) in sorted(d["atoms"].items()):
            f.write("%d %d %r %r %r %d %d %d\n" % (i, typ, *x, *im))
        f.write("\nVelocities\n\n" + "".join("%d %r %r %r\n" % (i, *v) for i, v in sorted(d["v"].items())))

def vcm(d):
    m = {i: d["masses"][a[0]] for i, a in d["atoms"].items()}
    return [sum(m[i] * d["v"][i][k] for i in m) / sum(m.values()) for k in range(3)]

def compare(hist, log, cols, tol, label, at=None, differ=None, error_ok=False):
    """Stratus' history against LAMMPS' thermo, step by step (at=S: LAMMPS' one row of `run 0` against
    Stratus' last row, which must be step S). Differences relative to the largest |LAMMPS value| of each
    column over the run (pressures pass near zero). differ=X: the comparison must fail, by more than X (the
    setting it was given matters)."""
    h = {int(r["step"]): r for r in history(hist)}
    lrows = lammps_thermo(log, error_ok)
    if at is not None:
        if max(h) != int(at) or len(lrows) != 1:
            sys.exit("%s: Stratus' history ends at step %d (want %s), LAMMPS printed %d rows" % (label, max(h), at, len(lrows)))
        lrows = [dict(lrows[0], step=float(at))]
    elif sorted(h) != [int(r["step"]) for r in lrows]:
        sys.exit("%s: the steps differ: Stratus %d..%d, LAMMPS %d..%d" % (label, min(h), max(h), lrows[0]["step"], lrows[-1]["step"]))
    worst = {}
    for c in cols.split(","):
        scale = max(abs(r[c]) for r in lrows)
        worst[c] = max(abs(h[int(r["step"])][c] - r[c]) for r in lrows) / scale
    m = max(worst.values())
    text = "%s: %d step(s) %d..%d, largest relative difference %s" % (label, len(lrows), lrows[0]["step"],
           lrows[-1]["step"], ", ".join("%s %.1e" % kv for kv in worst.items()))
    if differ is not None:
        if not m > differ:
            sys.exit("%s; expected > %g: the setting made no difference" % (text, differ))
        print(text + " (> %g, as it must)" % differ)
    elif not m <= tol:
        sys.exit("%s > %g" % (text, tol))
    else:
        print(text)

def remap(x, lo, hi):
    """LAMMPS' Domain::remap in one periodic direction: (wrapped coordinate, image shift)."""
    s = 0
    while x < lo: x += hi - lo; s -= 1
    while x >= hi: x -= hi - lo; s += 1
    return max(x, lo), s

def roundtrip(data, dump, min_wrapped, label):
    """LAMMPS' write_dump (id type mass [q] x y z ix iy iz vx vy vz, %.17g) after read_data of `data`
    (periodic box) against the file itself."""
    d = read_data(data)
    lines = open(dump).read().splitlines()
    n = int(lines[lines.index("ITEM: NUMBER OF ATOMS") + 1])
    b = next(i for i, l in enumerate(lines) if l.startswith("ITEM: BOX BOUNDS"))
    box = [tuple(map(float, lines[b + 1 + k].split())) for k in range(3)]
    a = next(i for i, l in enumerate(lines) if l.startswith("ITEM: ATOMS"))
    cols = lines[a].split()[2:]
    rows = [dict(zip(cols, l.split())) for l in lines[a + 1:]]
    bad = []
    if not n == len(rows) == d["natoms"]: bad.append("%d atoms in the dump, %d in the file" % (n, d["natoms"]))
    if box != d["box"]: bad.append("box %s, the file's %s" % (box, d["box"]))
    if sorted(int(r["id"]) for r in rows) != sorted(d["atoms"]): bad.append("the ids differ")
    wrapped = 0
    for r in rows:
        i = int(r["id"])
        typ, q, x, im = d["atoms"][i]
        want = {"type": typ, "mass": d["masses"][typ], "vx": d["v"][i][0], "vy": d["v"][i][1], "vz": d["v"][i][2]}
        if q is not None: want["q"] = q
        for k in range(3):
            xk, s = remap(x[k], *d["box"][k])
            wrapped += s != 0
            want["xyz"[k]], want["i" + "xyz"[k]] = xk, im[k] + s
        for c, w in want.items():
            got = int(r[c]) if c in ("type", "ix", "iy", "iz") else float(r[c])
            if got != w: bad.append("atom %d %s: LAMMPS %r, the file %r" % (i, c, got, w))
    if wrapped < int(min_wrapped):
        bad.append("%d coordinates outside the box, expected >= %s (nothing to wrap: the run was too short)" % (wrapped, min_wrapped))
    if bad:
        sys.exit("%s: %d mismatch(es): %s" % (label, len(bad), "; ".join(bad[:5])))
    qsum = sum(a[1] for a in d["atoms"].values()) if d["style"] == "charge" else 0.0
    print("%s: %d atoms, %d types; ids, types, masses, %svelocities, box and positions identical (%d coordinates "
          "wrapped into the box by read_data)%s" % (label, n, len(d["masses"]), "charges, " if q is not None else "",
          wrapped, ", sum q = %g" % qsum if q is not None else ""))

def own_state(data, h5md, step):
    """The data file against Stratus' own last trajectory frame (double precision, row = id - 1): the same
    step, velocities bit for bit, unwrapped positions (x + image * edge) to 2 ulp of the box edge (the
    writers may wrap an atom differently)."""
    import h5py
    d = read_data(data)
    with h5py.File(h5md, "r") as f:
        g = f["particles"][list(f["particles"])[0]]
        if int(g["velocity/step"][-1]) != int(step):
            sys.exit("%s: last frame at step %d, not %s" % (h5md, g["velocity/step"][-1], step))
        v, x, im = g["velocity/value"][-1], g["position/value"][-1], g["image/value"][-1]
    bad = []
    for i, (typ, q, xd, imd) in d["atoms"].items():
        r = i - 1
        for k in range(3):
            if d["v"][i][k] != float(v[r][k]):
                bad.append("atom %d v%s: file %r, Stratus %r" % (i, "xyz"[k], d["v"][i][k], float(v[r][k])))
            lo, hi = d["box"][k]
            a, b = xd[k] + imd[k] * (hi - lo), float(x[r][k]) + int(im[r][k]) * (hi - lo)
            if abs(a - b) > 2 * 2.0 ** -52 * (hi - lo):
                bad.append("atom %d %s: file %r, Stratus %r (unwrapped)" % (i, "xyz"[k], a, b))
    if bad:
        sys.exit("%s: %d mismatch(es) with the trajectory: %s" % (data, len(bad), "; ".join(bad[:4])))
    print("%s: the state of step %s, velocities bit for bit, positions to 2 ulp" % ("/".join(data.split("/")[-2:]), step))

def frame(h5md, dump, step, ftol, label):
    """Stratus' trajectory frame at `step` (row = id - 1) against LAMMPS' write_dump (id type [q] x y z ix iy iz
    vx vy vz fx fy fz, %.17g) after read_data of the data file of the same step: species, charges and
    velocities bit for bit, unwrapped positions to 2 ulp of the box edge, and the forces, which LAMMPS
    computes itself, to ftol of the largest |f|. Atoms of every rank, stored by the ranks of other rows."""
    import h5py
    lines = open(dump).read().splitlines()
    b = next(i for i, l in enumerate(lines) if l.startswith("ITEM: BOX BOUNDS"))
    box = [tuple(map(float, lines[b + 1 + k].split())) for k in range(3)]
    a = next(i for i, l in enumerate(lines) if l.startswith("ITEM: ATOMS"))
    cols = lines[a].split()[2:]
    rows = {int(r["id"]): r for r in (dict(zip(cols, l.split())) for l in lines[a + 1:])}
    with h5py.File(h5md, "r") as f:
        g = f["particles"][list(f["particles"])[0]]
        steps = [int(s) for s in g["position/step"][:]]
        if int(step) not in steps:
            sys.exit("%s: no frame at step %s (steps %s)" % (label, step, steps))
        t = steps.index(int(step))
        x, im = g["position/value"][t], g["image/value"][t]
        v, fo = g["velocity/value"][t], g["force/value"][t]
        species = g["species"][:]
        q = g["charge"][:] if "charge" in g else None
        edges = [float(g["box/edges/value"][t][k][k]) for k in range(3)]  # a box matrix per frame
    if sorted(rows) != list(range(1, len(x) + 1)):
        sys.exit("%s: the dump's ids are not 1..%d" % (label, len(x)))
    fmax = max(abs(float(r[c])) for r in rows.values() for c in ("fx", "fy", "fz"))
    bad, worst = [], 0.0
    for i, r in rows.items():
        j = i - 1
        if int(species[j]) != int(r["type"]): bad.append("atom %d species %d, LAMMPS type %s" % (i, species[j], r["type"]))
        if q is not None and float(q[j]) != float(r["q"]): bad.append("atom %d q %r, LAMMPS %s" % (i, float(q[j]), r["q"]))
        for k, c in enumerate("xyz"):
            lo, hi = box[k]
            if abs(edges[k] - (hi - lo)) > 1e-15 * (hi - lo): bad.append("edge %s %r, LAMMPS %r" % (c, edges[k], hi - lo))
            a_ = float(x[j][k]) + int(im[j][k]) * (hi - lo)
            b_ = float(r[c]) + int(r["i" + c]) * (hi - lo)
            if abs(a_ - b_) > 2 * 2.0 ** -52 * (hi - lo): bad.append("atom %d %s: %r, LAMMPS %r (unwrapped)" % (i, c, a_, b_))
            if float(v[j][k]) != float(r["v" + c]): bad.append("atom %d v%s %r, LAMMPS %s" % (i, c, float(v[j][k]), r["v" + c]))
            worst = max(worst, abs(float(fo[j][k]) - float(r["f" + c])) / fmax)
    if not worst <= float(ftol): bad.append("forces differ by %.2e of the largest |f| (> %s)" % (worst, ftol))
    if bad:
        sys.exit("%s: %d mismatch(es): %s" % (label, len(bad), "; ".join(bad[:5])))
    print("%s: frame %d of %d atoms: species, %svelocities bit for bit, unwrapped positions to 2 ulp, forces within "
          "%.1e of the largest |f| (%.3g)" % (label, t, len(rows), "charges, " if q is not None else "", worst, fmax))

def crystal(path, boundary, temp, seed, kick=None):
    """A cold fcc crystal at reduced density 0.8442 (under tension: its free faces move inwards), 6 cells
    per periodic direction (the box is its period) and 5 per fixed one, where the box leaves 1 sigma at
    each face: the faces are 2 sigma apart through the periodic image, inside the cutoff. Velocities
    Gaussian, shifted to zero momentum and scaled to `temp` (dof 3N - 3). kick=(id, vz): one atom's vz."""
    a = (4 / 0.8442) ** (1 / 3)
    cells = [6 if b == "p" else 5 for b in boundary]
    box = [(0.0, c * a) if b == "p" else (-1.0, (c - 0.5) * a + 1.0) for b, c in zip(boundary, cells)]
    basis = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]
    rng = random.Random(seed)
    d = {"box": box, "masses": {1: 1.0}, "atoms": {}, "v": {}}
    for i in range(cells[0]):
        for j in range(cells[1]):
            for k in range(cells[2]):
                for bx in basis:
                    n = len(d["atoms"]) + 1
                    d["atoms"][n] = (1, None, [(c + f) * a for c, f in zip((i, j, k), bx)], [0, 0, 0])
                    d["v"][n] = [rng.gauss(0, 1) for _ in range(3)]
    c = vcm(d)
    for v in d["v"].values():
        v[:] = [v[k] - c[k] for k in range(3)]
    n = len(d["atoms"])
    s = math.sqrt(temp * (3 * n - 3) / sum(x * x for v in d["v"].values() for x in v))
    for v in d["v"].values():
        v[:] = [x * s for x in v]
    if kick:
        d["v"][kick[0]][2] = kick[1]
    write_data(path, d, "cold fcc crystal, boundary %s" % " ".join(boundary))
    print("%s: fcc crystal of %d atoms at T %g in the box %s%s" % (path.split("/")[-1], n, temp,
          " x ".join("[%.4g, %.4g]" % b for b in box), ", atom %d given vz = %g" % kick if kick else ""))

def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "compare":  # HIST LOG COLS TOL LABEL [at=S] [differ=X] [error_ok=1]
        opt = dict(a.split("=", 1) for a in args[5:])
        compare(*args[:3], float(args[3]), args[4], opt.get("at"),
                float(opt["differ"]) if "differ" in opt else None, "error_ok" in opt)
    elif cmd == "roundtrip":  # DATA DUMP MIN_WRAPPED LABEL
        roundtrip(*args)
    elif cmd == "state":  # DATA H5MD STEP
        own_state(*args)
    elif cmd == "frame":  # H5MD DUMP STEP FTOL LABEL
        frame(*args)
    elif cmd == "drift":  # IN OUT VX VY VZ: the data file with a centre-of-mass velocity added
        d = read_data(args[0])
        for v in d["v"].values():
            v[:] = [v[k] + float(args[2 + k]) for k in range(3)]
        write_data(args[1], d, "%s with a drift" % args[0])
        print("%s: lj_liquid.data, centre-of-mass velocity %s" % (args[1].split("/")[-1], " ".join("%.3g" % c for c in vcm(d))))
    elif cmd == "crystal":  # OUT "p p f" T SEED [KICK_ID VZ]
        crystal(args[0], args[1].split(), float(args[2]), int(args[3]),
                (int(args[4]), float(args[5])) if len(args) > 4 else None)
    elif cmd == "vcm":  # DATA MAX: |centre-of-mass velocity| <= MAX
        c = vcm(read_data(args[0]))
        if not math.sqrt(sum(x * x for x in c)) <= float(args[1]):
            sys.exit("%s: centre-of-mass velocity %s, not ~0" % (args[0], c))
        print("%s: centre-of-mass velocity %s" % ("/".join(args[0].split("/")[-2:]), " ".join("%.1e" % x for x in c)))
    elif cmd == "rescaled":  # HIST TARGET WINDOW EVERY: what md.rescale_every did, seen in the history
        rows, target, window, every = history(args[0]), float(args[1]), float(args[2]), int(args[3])
        at_target = lambda r: abs(r["temp"] - target) <= 1e-14 * target
        hit = skip = 0
        for r in rows:
            s = int(r["step"])
            if s == 0 or s % every:
                continue
            if at_target(r): hit += 1
            elif abs(r["temp"] - target) <= window: skip += 1
            else: sys.exit("step %d: T = %r, neither rescaled to %g nor within %g of it" % (s, r["temp"], target, window))
        others = sum(1 for r in rows if int(r["step"]) % every and at_target(r))
        if hit == 0 or skip == 0 or others:
            sys.exit("rescale steps: %d at the target, %d left within the window; %d other steps at the target"
                     % (hit, skip, others))
        print("rescale: T = %g (to 1e-14) after %d rescale steps, %d left alone within the window %g, no other "
              "step at the target" % (target, hit, skip, window))
    elif cmd == "drop":  # HIST STEP LO HI: LO < T(STEP - 1) - T(STEP) < HI
        t = {int(r["step"]): r["temp"] for r in history(args[0])}
        s, drop = int(args[1]), t[int(args[1]) - 1] - t[int(args[1])]
        if not float(args[2]) < drop < float(args[3]):
            sys.exit("T fell by %.4g at step %d, expected %s..%s" % (drop, s, args[2], args[3]))
        print("momentum: T fell by %.4f at step %d (the drift's share 0.0467, plus one step's dynamics)" % (drop, s))
    elif cmd == "order":  # HIST of the run with rescale every 10 and zero momentum every 20
        t = {int(r["step"]): r["temp"] for r in history(args[0])}
        if not (all(abs(t[s] - 1) < 1e-14 for s in (10, 30, 40, 60)) and 0.03 < 1 - t[20] < 0.1):
            sys.exit("T at steps 10, 20, 30, 40, 60: %s; expected 1, 1 less the drift's share (~0.06), 1, 1, 1"
                     % [t[s] for s in (10, 20, 30, 40, 60)])
        print("rescale, then zero momentum: T %.4f after step 20 (the target less the drift's share), 1 (to 1e-14) "
              "after steps 10, 30, 40 and 60" % t[20])
    else:
        sys.exit("unknown command " + cmd)

main()
EOF
# check ARGS: one of ld.py's checks; its line goes to the log, a failure fails the test.
check() {
  local out
  out=$("$PY" "$T/ld.py" "$@" 2>&1) || fail "$out"
  pass "$out"
}
# lammps NAME: runs $T/NAME.lmp serially in $T (log NAME.lammps.log); it must succeed.
lammps() {
  (cd "$T" && "$LMP" -in "$1.lmp" -log "$1.lammps.log" -screen none) > "$T/$1.lammps.out" 2>&1 ||
    { tail -n 20 "$T/$1.lammps.log" "$T/$1.lammps.out" >&2; fail "LAMMPS failed on $1.lmp"; }
}
# lj_input NAME DATA BOUNDARY STEPS [LINE...]: $T/NAME.lmp, the LJ runs of part 2 (lj/cut 2.5, skin 0.3,
# NVE, dt 0.005, thermo every step with 17 digits) with the extra LINEs (fixes) after fix nve.
lj_input() {
  local name=$1 data=$2 boundary=$3 steps=$4
  shift 4
  printf '%s\n' "units lj" "atom_style atomic" "boundary $boundary" "read_data $data" "pair_style lj/cut 2.5" \
    "pair_coeff 1 1 1.0 1.0 2.5" "neighbor 0.3 bin" "neigh_modify delay 0 every 1 check yes" "timestep 0.005" \
    "fix 1 all nve" "$@" "thermo 1" "thermo_style custom step temp pe ke etotal press" \
    "thermo_modify norm yes format float %.17g" "run $steps" > "$T/$name.lmp"
}
# The same in Stratus: the deck $T/lj.ini plus --set ARGS, on NP ranks, output in $T/NAME.
cat > "$T/lj.ini" << 'EOF'
[run]
physics = md
name = lj
history_every = 1

[md]
units = lj
cutoff = 2.5
skin = 0.3
timestep = 0.005
ensemble = nve
trajectory = false
EOF
stratus() {
  local np=$1 name=$2
  shift 2
  expect_rc 0 "$T/$name.log" "$MPIEXEC" -n "$np" "$STRATUS" run "$T/lj.ini" --set run.output_dir="$T/$name" "$@"
}

# --- 1. LAMMPS reads the data files Stratus writes -------------------------------------------------------
dump_line="write_dump all custom DUMP id type mass x y z ix iy iz vx vy vz modify format float %.17g sort id"
# After `run 0`: the forces LAMMPS computed for the same atoms.
force_line="write_dump all custom DUMP id type x y z ix iy iz vx vy vz fx fy fz modify format float %.17g sort id"
for np in 1 2 4; do
  expect_rc 0 "$T/melt$np.log" "$MPIEXEC" -n "$np" "$STRATUS" run "$SRC/inputs/md/lj_melt.ini" --set md.cells="5 5 5" \
    --set run.max_steps=100 --set run.history_every=50 --set run.snapshot_every=100 --set md.write_data=melt.data \
    --set md.trajectory_forces=true --set run.output_dir="$T/melt$np"
  check state "$T/melt$np/melt.data" "$T/melt$np/lj_melt.h5md" 100
  printf '%s\n' "units lj" "atom_style atomic" "boundary p p p" "read_data melt$np/melt.data" "pair_style lj/cut 2.5" \
    "pair_coeff 1 1 1.0 1.0 2.5" "neighbor 0.3 bin" "neigh_modify delay 0 every 1 check yes" \
    "thermo_style custom step temp pe ke etotal press" "thermo_modify norm yes format float %.17g" \
    "${dump_line/DUMP/melt$np.dump}" "run 0" "${force_line/DUMP/melt$np.f.dump}" > "$T/melt$np.lmp"
  lammps "melt$np"
  check roundtrip "$T/melt$np/melt.data" "$T/melt$np.dump" 1 "LJ melt, $np rank(s): LAMMPS' read_data"
  check frame "$T/melt$np/lj_melt.h5md" "$T/melt$np.f.dump" 100 "$TOL_FORCE" "LJ melt, $np rank(s): trajectory"
  check compare "$T/melt$np/lj_melt_history.csv" "$T/melt$np.lammps.log" temp,pe,ke,etotal,press "$TOL_STATE" \
    "LJ melt, $np rank(s): LAMMPS' run 0 against Stratus' step 100" at=100

  expect_rc 0 "$T/nacl$np.log" "$MPIEXEC" -n "$np" "$STRATUS" run "$SRC/inputs/md/nacl_melt.ini" \
    --set md.cells="4 4 4" --set run.max_steps=20 --set run.history_every=10 --set run.snapshot_every=20 \
    --set md.trajectory_forces=true \
    --set md.kspace=ewald --set md.kspace_gewald=0.36 --set md.ewald_kmax="10 10 10" --set md.coul_erfc=polynomial \
    --set md.write_data=nacl.data --set run.output_dir="$T/nacl$np"
  printf '%s\n' "units real" "atom_style charge" "boundary p p p" "read_data nacl$np/nacl.data" \
    "pair_style lj/cut/coul/long 9.0" "pair_coeff 1 1 0.1301 2.350" "pair_coeff 2 2 0.1000 4.400" \
    "pair_modify mix arithmetic table 0" "kspace_style ewald 1.0e-6" "kspace_modify gewald 0.36 kmax/ewald 10 10 10" \
    "neighbor 2.0 bin" "neigh_modify delay 0 every 1 check yes" \
    "thermo_style custom step temp pe ke etotal press evdwl ecoul elong" "thermo_modify norm no format float %.17g" \
    "${dump_line/DUMP id type mass/nacl$np.dump id type mass q}" "run 0" \
    "${force_line/DUMP id type/nacl$np.f.dump id type q}" > "$T/nacl$np.lmp"
  lammps "nacl$np"
  check roundtrip "$T/nacl$np/nacl.data" "$T/nacl$np.dump" 0 "NaCl, $np rank(s): LAMMPS' read_data"
  check frame "$T/nacl$np/nacl_melt.h5md" "$T/nacl$np.f.dump" 20 "$TOL_FORCE" "NaCl, $np rank(s): trajectory"
  check compare "$T/nacl$np/nacl_melt_history.csv" "$T/nacl$np.lammps.log" temp,pe,ke,etotal,press,evdwl,ecoul,elong \
    "$TOL_STATE" "NaCl, $np rank(s): LAMMPS' run 0 against Stratus' step 20" at=20
done

# --- 2. rescale, zero momentum, fixed boundaries: whole runs against LAMMPS ---------------------------
# lj_liquid.data is at T 0.76: rescaled to 1 at steps 10, 20, 30 and 100; in between T stays within 0.05.
lj_input rescale "$DATA/lj_liquid.data" "p p p" 100 "fix 2 all temp/rescale 10 1.0 1.0 0.05 1.0"
lammps rescale
check drift "$DATA/lj_liquid.data" "$T/drift.data" 0.3 -0.2 0.1
lj_input momentum drift.data "p p p" 60 "fix 3 all momentum 25 linear 1 1 1"
lammps momentum
# Both on the same steps (20, 40, 60): LAMMPS' end-of-step fixes act in the order they were defined.
lj_input both drift.data "p p p" 60 "fix 2 all temp/rescale 10 1.0 1.0 0.0 1.0" "fix 3 all momentum 20 linear 1 1 1"
lammps both
for b in ppf fff; do
  check crystal "$T/$b.data" "${b:0:1} ${b:1:1} ${b:2:1}" 0.2 4928459
  lj_input "$b" "$b.data" "${b:0:1} ${b:1:1} ${b:2:1}" 100
  lammps "$b"
done
for np in 1 2; do
  stratus "$np" "rescale$np" --set md.data_file="$DATA/lj_liquid.data" --set run.max_steps=100 \
    --set md.rescale_every=10 --set md.t_target=1.0 --set md.rescale_window=0.05
  check compare "$T/rescale$np/lj_history.csv" "$T/rescale.lammps.log" temp,pe,ke,etotal,press "$TOL_RUN" \
    "rescale every 10 steps to T 1 outside 0.05, $np rank(s), against fix temp/rescale"
  stratus "$np" "momentum$np" --set md.data_file="$T/drift.data" --set run.max_steps=60 \
    --set md.zero_momentum_every=25 --set md.write_data=final.data
  check compare "$T/momentum$np/lj_history.csv" "$T/momentum.lammps.log" temp,pe,ke,etotal,press "$TOL_RUN" \
    "zero momentum every 25 steps, $np rank(s), against fix momentum"
  stratus "$np" "both$np" --set md.data_file="$T/drift.data" --set run.max_steps=60 --set md.rescale_every=10 \
    --set md.t_target=1.0 --set md.zero_momentum_every=20
  check compare "$T/both$np/lj_history.csv" "$T/both.lammps.log" temp,pe,ke,etotal,press "$TOL_RUN" \
    "rescale every 10, zero momentum every 20, $np rank(s), against temp/rescale then momentum"
done
for run in ppf1 ppf2 fff1 fff2 fff4; do
  b=${run:0:3} np=${run:3}
  stratus "$np" "$run" --set md.data_file="$T/$b.data" --set md.boundary="${b:0:1} ${b:1:1} ${b:2:1}" \
    --set run.max_steps=100
  check compare "$T/$run/lj_history.csv" "$T/$b.lammps.log" temp,pe,ke,etotal,press "$TOL_RUN" \
    "boundary ${b:0:1} ${b:1:1} ${b:2:1}, $np rank(s), against LAMMPS"
done

# --- 3. the features acted -------------------------------------------------------------------------------
check rescaled "$T/rescale1/lj_history.csv" 1.0 0.05 10
check drop "$T/momentum1/lj_history.csv" 25 0.04 0.055
check vcm "$T/momentum1/final.data" 1e-14
check vcm "$T/momentum2/final.data" 1e-14
# Both on one step: rescaled first, T is left below the target at step 20 by the drift's share (0.047 at
# the start, x 1/T before each of the two rescales: 0.063); zeroed first, it would be at the target. The drift
# is gone after step 20: at steps 40 and 60 T ends at the target, as at 10 and 30 (rescale only).
check order "$T/both1/lj_history.csv"
# The boundary decides these runs: the same crystals under LAMMPS' p p p are other runs.
for b in ppf fff; do
  lj_input "${b}_as_ppp" "$b.data" "p p p" 100
  lammps "${b}_as_ppp"
  check compare "$T/${b}1/lj_history.csv" "$T/${b}_as_ppp.lammps.log" temp,pe,ke,etotal,press "$TOL_RUN" \
    "boundary ${b:0:1} ${b:1:1} ${b:2:1} (Stratus) against p p p (LAMMPS)" differ=1e-4
done
# An atom leaving through a fixed face: LAMMPS loses it (thermo_modify lost error), Stratus stops.
check crystal "$T/escape.data" "p p f" 0.2 4928459 1 -10
lj_input escape escape.data "p p f" 100
(cd "$T" && "$LMP" -in escape.lmp -log escape.lammps.log -screen none > escape.lammps.out 2>&1) &&
  fail "LAMMPS ran the escaping atom to the end"
grep -q "^ERROR: Lost atoms" "$T/escape.lammps.log" ||
  fail "LAMMPS did not report a lost atom: $(tail -n 3 "$T/escape.lammps.log")"
for np in 1 2; do
  expect_rc 1 "$T/escape$np.log" "$MPIEXEC" -n "$np" "$STRATUS" run "$T/lj.ini" --set run.output_dir="$T/escape$np" \
    --set md.data_file="$T/escape.data" --set md.boundary="p p f" --set run.max_steps=100
  grep -q "error: md: atom 1 at (.*) left the box through the non-periodic lower z face at -1" "$T/escape$np.log" ||
    fail "no error naming atom 1 and the lower z face: $(grep -i error "$T/escape$np.log")"
  check compare "$T/escape$np/lj_history.csv" "$T/escape.lammps.log" temp,pe,ke,etotal,press "$TOL_RUN" \
    "escape, $np rank(s): Stratus stopped after the last step LAMMPS printed before 'Lost atoms'" error_ok=1
done
