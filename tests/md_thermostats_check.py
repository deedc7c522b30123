#!/usr/bin/env python3
"""The checks of tests/md_thermostats.sh on one thermostatted run (that script says what and why).

    md_thermostats_check.py DIR NAME --units real|metal --t-target T --masses M1 M2 --t-equil TIME
                            [--ks] [--unequal-start R] [--bound Z] [--max-se S] [--json FILE]
                            [--assume-masses M1 M2] [--kb KB] [--check-target T]
    md_thermostats_check.py unequal IN.data OUT.data F1 F2

DIR holds NAME.h5md (velocities), NAME.data (the topology Stratus writes beside it: the masses) and
NAME_history.csv. Prints the figures, one "FAIL [tag]: ..." line per failed check, and exits 1 if any.
--assume-masses, --kb and --check-target replace the masses, kB or target by wrong ones, to show that the
checks reject wrong physics. The second form writes a data file with the temperatures of types 1 and 2
multiplied by F1 and F2 (a start out of equipartition).
"""
import argparse, csv, json, sys
import numpy as np


def data_section(lines, title):
    """The rows of a LAMMPS data file section (the lines after its title and one blank line)."""
    k = next(i for i, ln in enumerate(lines) if ln.split("#")[0].strip() == title)
    rows = []
    for i in range(k + 2, len(lines)):
        if not lines[i].strip():
            break
        rows.append((i, lines[i].split()))
    return rows


def unequal(src, dst, f1, f2):
    """Copy the data file SRC to DST with the temperatures of types 1 and 2 multiplied by F1 and F2
    (velocities by their square roots), then the centre-of-mass velocity removed."""
    lines = open(src).read().splitlines()
    mass = {int(w[0]): float(w[1]) for _, w in data_section(lines, "Masses")}
    types = {int(w[0]): int(w[1]) for _, w in data_section(lines, "Atoms")}
    rows = data_section(lines, "Velocities")
    scale = {1: np.sqrt(f1), 2: np.sqrt(f2)}
    m = np.array([mass[types[int(w[0])]] for _, w in rows])
    v = np.array([[float(x) * scale[types[int(w[0])]] for x in w[1:4]] for _, w in rows])
    v -= (m[:, None] * v).sum(axis=0) / m.sum()
    for (i, w), vv in zip(rows, v):
        lines[i] = f"{w[0]} {vv[0]!r} {vv[1]!r} {vv[2]!r}"
    open(dst, "w").write("\n".join(lines) + "\n")


if len(sys.argv) > 1 and sys.argv[1] == "unequal":
    unequal(sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]))
    sys.exit(0)

import h5py  # noqa: E402
from scipy import stats  # noqa: E402

# LAMMPS' constants (docs/md.md, physics/md/integrate.cpp): kB [energy/K] and mvv2e [energy / (g/mol
# (length/time)^2)], and the same from SI (CODATA 2018: R = 8.314462618 J/mol/K, 1 kcal = 4184 J,
# 1 eV = 96485.33212 J/mol), which shows that they are the physical ones independently of the code.
UNITS = {
    "real": dict(kb=0.0019872067, mvv2e=48.88821291**2, vunit="Angstrom fs-1", tunit="fs",
                 kb_si=8.314462618 / 4184.0, mvv2e_si=1e-3 * 1e10 / 4184.0),
    "metal": dict(kb=8.617343e-5, mvv2e=1.0364269e-4, vunit="Angstrom ps-1", tunit="ps",
                  kb_si=8.314462618 / 96485.33212, mvv2e_si=1e-3 * 1e4 / 96485.33212),
}

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("name")
ap.add_argument("--units", choices=UNITS, required=True)
ap.add_argument("--t-target", type=float, required=True, help="the deck's md.t_target [K]")
ap.add_argument("--masses", type=float, nargs=2, required=True, help="the deck's md.mass [g/mol]")
ap.add_argument("--t-equil", type=float, required=True, help="time discarded as equilibration")
ap.add_argument("--ks", action="store_true", help="Kolmogorov-Smirnov test of the velocity components")
ap.add_argument("--unequal-start", type=float,
                help="the first frame's T_1 / T_2 must exceed this (a start out of equipartition)")
ap.add_argument("--bound", type=float, default=4.0, help="allowed deviations, in standard errors")
ap.add_argument("--max-se", type=float, default=0.01, help="largest relative standard error accepted")
ap.add_argument("--blocks", type=int, default=16, help="blocks of the block-average standard error")
ap.add_argument("--json")
ap.add_argument("--assume-masses", type=float, nargs=2, help="masses to use instead of the file's")
ap.add_argument("--kb", type=float, help="kB to use instead of the units' own")
ap.add_argument("--check-target", type=float, help="target to check against instead of --t-target")
a = ap.parse_args()
U = UNITS[a.units]
kb = a.kb if a.kb is not None else U["kb"]
mvv2e = U["mvv2e"]
t0 = a.check_target if a.check_target is not None else a.t_target
bad, out = [], {}


def fail(tag, msg):
    bad.append(f"FAIL [{tag}]: {msg}")


def say(msg):
    print(msg, flush=True)


for key, own, si in (("kB", U["kb"], U["kb_si"]), ("mvv2e", U["mvv2e"], U["mvv2e_si"])):
    if not abs(own / si - 1) < 2e-6:
        fail("constants", f"{a.units} {key} {own} differs from the SI value {si} by {own / si - 1:.2e}")

# --- The files: the masses from the topology, species and velocities from the trajectory.
masses = {int(w[0]): float(w[1]) for _, w in data_section(open(f"{a.dir}/{a.name}.data").read().splitlines(),
                                                            "Masses")}
if sorted(masses) != [1, 2] or [masses[1], masses[2]] != a.masses:
    fail("mass-file", f"{a.name}.data gives the masses {masses}, the deck {a.masses}")
m_type = np.array([0.0] + list(a.assume_masses if a.assume_masses else [masses[1], masses[2]]))
with h5py.File(f"{a.dir}/{a.name}.h5md", "r") as f:
    g = f["particles/all"]
    unit = g["velocity/value"].attrs.get("unit")
    if unit != U["vunit"]:
        fail("unit", f"velocity unit {unit!r}, expected {U['vunit']!r}")
    tunit = g["velocity/time"].attrs.get("unit")
    if tunit != U["tunit"]:
        fail("unit", f"time unit {tunit!r}, expected {U['tunit']!r}")
    v = g["velocity/value"][()]
    steps = g["velocity/step"][()]
    times = g["velocity/time"][()]
    species = g["species"][()]
    ids = g["id"][()]
if not np.array_equal(ids, np.arange(1, len(ids) + 1)):
    fail("file", "ids are not 1..N in row order")
m = m_type[species]  # per atom [g/mol]
n = len(m)
sel = {s: species == s for s in (1, 2)}
ns = {s: int(sel[s].sum()) for s in (1, 2)}
M = m.sum()
# Total momentum: zero at the start (created velocities, or removed by `unequal`), kept by both
# thermostats (Langevin removes its noise's net momentum). The constraint sum m v = 0 removes 3 M_s / M
# degrees of freedom from species s: <sum_s m v^2> = 3 (N_s - M_s / M) kB T exactly (Gaussian momenta
# conditioned on a zero sum: Var p_i = m_i kB T (1 - m_i / M) per component); over all atoms 3 N - 3.
p = np.einsum("i,fid->fd", m, v)
p_rel = np.abs(p).max() / np.sqrt(np.einsum("i,fid->f", m * m, v * v)).max()
if not p_rel < 1e-9:
    fail("momentum", f"total momentum not zero: |P| / sqrt(sum (m v)^2) = {p_rel:.2e}")
dof = {s: 3.0 * (ns[s] - m[sel[s]].sum() / M) for s in (1, 2)}
mv2 = np.einsum("i,fid->fi", m, v * v)  # m v^2 per atom and frame [g/mol velocity^2]
T_all = mv2.sum(axis=1) * mvv2e / ((3.0 * n - 3.0) * kb)
T_s = {s: mv2[:, sel[s]].sum(axis=1) * mvv2e / (dof[s] * kb) for s in (1, 2)}
say(f"{a.dir}: {n} atoms ({ns[1]} of mass {m_type[1]:g}, {ns[2]} of mass {m_type[2]:g}), {len(steps)} frames "
    f"to t = {times[-1]:g} {U['tunit']}, |P| / sqrt(sum (m v)^2) <= {p_rel:.1e}")

# --- The history table's temp and ke (the writer's unit conversion) against the trajectory's velocities.
hist = {int(r["step"]): r for r in csv.DictReader(open(f"{a.dir}/{a.name}_history.csv"))}
common = [k for k, s in enumerate(steps) if int(s) in hist]
if len(common) < 2:
    fail("history", f"only {len(common)} frames have a history row")
ke = 0.5 * mv2.sum(axis=1) * mvv2e
dt_h = max(abs(T_all[k] / float(hist[int(steps[k])]["temp"]) - 1) for k in common)
dk_h = max(abs(ke[k] / float(hist[int(steps[k])]["ke"]) - 1) for k in common)
say(f"  history: temp and ke at {len(common)} frames agree with sum m v^2 from the trajectory to "
    f"{dt_h:.1e} and {dk_h:.1e} (relative)")
if not (dt_h < 1e-10 and dk_h < 1e-10):
    fail("history", f"temp (ke) of the history table differs from the trajectory's by {dt_h:.2e} ({dk_h:.2e})")
out.update(history_temp_rel=dt_h, history_ke_rel=dk_h, momentum_rel=p_rel)

# --- Nose-Hoover: its conserved energy, in the units' energy, against the total energy's fluctuations.
if "econserve" in next(iter(hist.values())):
    ec = np.array([float(r["econserve"]) for r in hist.values()])
    et = np.array([float(r["etotal"]) for r in hist.values()])
    spread = ec.std() / et.std()
    say(f"  econserve: standard deviation {ec.std():.3g}, {spread:.4f} of etotal's ({et.std():.3g}); "
        f"end - start {ec[-1] - ec[0]:+.3g}")
    out["econserve_spread"] = spread
    if not spread < 0.05:
        fail("econserve", f"econserve varies by {spread:.3f} of etotal's standard deviation: not conserved")

# --- Time averages after equilibration, with their standard errors.
keep = times >= a.t_equil - 1e-9
dtf = times[1] - times[0]


def tau_int(x):
    """Integrated autocorrelation time (in frames) of x, summed to the first negative value (1 if white)."""
    x = x - x.mean()
    c = np.correlate(x, x, "full")[len(x) - 1:] / np.arange(len(x), 0, -1)
    r = c / c[0]
    neg = np.nonzero(r < 0)[0]
    end = neg[0] if len(neg) else len(r)
    return max(1.0, 1.0 + 2.0 * r[1:end].sum())


def block_se(x):
    """Standard error of the mean of x from a.blocks block means."""
    nper = len(x) // a.blocks
    return x[: a.blocks * nper].reshape(a.blocks, nper).mean(axis=1).std(ddof=1) / np.sqrt(a.blocks)


def average(tag, label, x, ndof):
    """<x> over the kept frames against t0. Its standard error is the larger of two estimates: from block
    averages, and the one expected of the canonical ensemble (Var T / T^2 = 2 / dof) over the independent
    samples (frames / integrated autocorrelation time)."""
    x = x[keep]
    mean = x.mean()
    se_block = block_se(x)
    tau = tau_int(x)
    se_th = t0 * np.sqrt(2.0 / ndof) * np.sqrt(tau / len(x))
    se = max(se_block, se_th)
    # The variance of T about its mean (the series' squared deviations), 2 T^2 / dof in the canonical
    # ensemble (the kinetic energy is chi-square with dof degrees of freedom), with its own error.
    y = (x - mean) ** 2
    var_ratio = y.mean() / t0**2 * ndof / 2.0
    se_var = max(block_se(y), y.std() * np.sqrt(tau_int(y) / len(y))) / y.mean()
    dev = mean / t0 - 1.0
    r = dict(mean=mean, se_rel=se / t0, se_block_rel=se_block / t0, se_expected_rel=se_th / t0,
             tau_int=tau * dtf, frames=len(x), independent=len(x) / tau, dev_rel=dev, dev_sigma=dev * t0 / se,
             var_ratio=var_ratio, var_se_rel=se_var)
    say(f"  {label}: <T> = {mean:.2f} K = {t0:g} K x (1 {dev:+.4f}), standard error {se / t0:.4f} (blocks "
        f"{se_block / t0:.4f}, expected {se_th / t0:.4f}: {len(x)} frames, tau_int {tau * dtf:.3g} {U['tunit']}, "
        f"{len(x) / tau:.0f} independent): {dev * t0 / se:+.2f} sigma; Var T / (2 T^2 / dof) = {var_ratio:.3f} +- {var_ratio * se_var:.3f}")
    if not abs(dev) < a.bound * se / t0:
        fail(f"T-{tag}", f"{label}: <T> = {mean:.3f} K differs from {t0:g} K by {dev:+.4f} relative, "
             f"{dev * t0 / se:+.1f} standard errors ({se / t0:.4f}); allowed {a.bound:g}")
    if not se / t0 < a.max_se:
        fail(f"se-{tag}", f"{label}: standard error {se / t0:.4f} too large to show anything (limit {a.max_se})")
    if not abs(var_ratio - 1) < a.bound * var_ratio * se_var:
        fail(f"var-{tag}", f"{label}: Var T / (2 T^2 / dof) = {var_ratio:.3f} +- {var_ratio * se_var:.3f}, "
             "expected 1 (canonical)")
    return r


out["all"] = average("all", "all atoms", T_all, 3.0 * n - 3.0)
for s in (1, 2):
    out[f"species{s}"] = average(f"species{s}", f"species {s} (m {m_type[s]:g})", T_s[s], dof[s])
    out[f"species{s}"].update(mass=m_type[s], count=ns[s])

# Equipartition, whatever the target: <T_1> / <T_2>, its error from the series T_1 - T_2 (the species
# fluctuate together under Nose-Hoover's common scaling, against each other as they exchange energy).
d12 = (T_s[1] - T_s[2])[keep]
se_d = max(block_se(d12), d12.std() * np.sqrt(tau_int(d12) / len(d12)))
ratio = T_s[1][keep].mean() / T_s[2][keep].mean()
se_ratio = se_d / T_s[2][keep].mean()
say(f"  equipartition: <T_1> / <T_2> = {ratio:.4f} +- {se_ratio:.4f}: {(ratio - 1) / se_ratio:+.2f} sigma")
out["ratio"] = dict(value=ratio, se=se_ratio)
if not abs(ratio - 1) < a.bound * se_ratio:
    fail("equipartition", f"<T_1> / <T_2> = {ratio:.4f}, {(ratio - 1) / se_ratio:+.1f} standard errors from 1")

# --- From an unequal start (Nose-Hoover scales all velocities alike): how soon the species met.
if a.unequal_start:
    r12 = T_s[1] / T_s[2]
    smooth = np.convolve(r12 - 1, np.ones(5) / 5, "same")
    k = next((k for k in range(len(r12)) if abs(smooth[k]) < abs(r12[0] - 1) / np.e), None)
    relax = times[k] - times[0] if k is not None else float("inf")
    say(f"  unequal start: T_1 / T_2 = {r12[0]:.3f} at t = {times[0]:g}, within 1/e of 1 after {relax:g} "
        f"{U['tunit']} (discarded: {a.t_equil:g})")
    out["unequal"] = dict(ratio0=r12[0], relax_time=relax)
    if not r12[0] > a.unequal_start:
        fail("unequal-start", f"the first frame's T_1 / T_2 = {r12[0]:.3f}, not above {a.unequal_start:g}")
    if not relax < a.t_equil / 3:
        fail("unequal-start", f"the species took {relax:g} to approach each other; equilibration {a.t_equil:g}")

# --- The velocity distribution of each species: N(0, kB T (1 - m / M) / (m mvv2e)) per component.
if a.ks:
    vk = v[keep]
    # Frames further apart than the velocity autocorrelation time: the first lag at which the normalised
    # velocity autocorrelation of both species is below 0.02, at least 2 frames.
    nlag = max(2, min(len(vk) // 4, 200))
    vacf = {}
    for s in (1, 2):
        x = vk[:, sel[s]]
        c0 = (x * x).mean()
        vacf[s] = [(x[: len(x) - L] * x[L:]).mean() / c0 for L in range(nlag)]
    stride = max(2, next((L for L in range(1, nlag) if max(abs(vacf[1][L]), abs(vacf[2][L])) < 0.02), nlag))
    frames = vk[::stride]
    out["ks"] = dict(stride_frames=stride, stride_time=stride * dtf, frames=len(frames))
    say(f"  velocity autocorrelation below 0.02 after {stride} frames ({stride * dtf:g} {U['tunit']}; after 1: "
        f"{vacf[1][1]:.3f}, {vacf[2][1]:.3f}): {len(frames)} frames pooled")
    for s in (1, 2):
        comp = frames[:, sel[s], :].ravel()
        ms, other = m_type[s], m_type[3 - s]
        var = kb * t0 * (1 - ms / M) / (ms * mvv2e)  # summed over the species: N_s - M_s / M, as above
        p_own = stats.kstest(comp / np.sqrt(var), "norm").pvalue
        p_other = stats.kstest(comp / np.sqrt(kb * t0 / (other * mvv2e)), "norm").pvalue
        var_ratio = comp.var() / var
        say(f"  species {s}: {comp.size} velocity components, variance / (kB T / m) = {var_ratio:.4f}, "
            f"Kolmogorov-Smirnov p = {p_own:.3g} against N(0, kB T / {ms:g}), p = {p_other:.3g} against "
            f"N(0, kB T / {other:g})")
        out["ks"][f"species{s}"] = dict(n=comp.size, p=p_own, p_other_mass=p_other, var_ratio=var_ratio)
        if not p_own > 1e-4:
            fail(f"KS-{s}", f"species {s}: p = {p_own:.3g} against N(0, kB T / m), m = {ms:g}")
        if not p_other < 1e-6:
            fail(f"KS-other-{s}", f"species {s}: the other species' mass is not rejected, p = {p_other:.3g}")

if a.json:
    json.dump(out, open(a.json, "w"), indent=1, default=float)
for b in bad:
    print(b)
print(f"{a.dir}: {len(bad)} failures")
sys.exit(1 if bad else 0)
