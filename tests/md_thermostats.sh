#!/usr/bin/env bash
# Thermostats in physical units, with two masses: the other MD tests thermostat lj units with mass 1, where
# kB = mvv2e = 1 and the mass scaling of the Langevin noise never shows. Here 864 LJ atoms (argon's
# epsilon 0.2381 kcal/mol and sigma 3.405 A; fcc at a = 6.4 A, melted into a dense fluid: reduced density
# 0.61, T* = 2.5 at 300 K), half of them (by atom id) of mass 4 g/mol and half of mass 40, are held at
# 300 K in real units (dt 2 fs), and tests/md_thermostats_check.py reads the H5MD velocities (their unit
# attribute, Angstrom fs-1, checked) and the masses of the topology NAME.data written beside them:
#   - Langevin (BAOAB, damp 100 fs; 24 ps, a frame every 40 fs, the first 4 ps discarded), on 1 and 2
#     ranks: the time average of the temperature of each species, T_s = sum m v^2 mvv2e / (3 (N_s - M_s/M)
#     kB) (the zero total momentum, kept by the thermostat, takes 3 M_s/M degrees of freedom from species
#     s), and that of all atoms equal 300 K, and <T_1>/<T_2> equals 1; the variance of T_s is the canonical
#     2 T^2 / dof; the velocity components of each species, pooled over frames further apart than the
#     velocity autocorrelation time (320 fs; ~80,000 components each), pass a Kolmogorov-Smirnov test against
#     N(0, kB T / m) (p > 1e-4) and fail it against the other species' mass (p < 1e-6).
#   - Nose-Hoover chain (period 200 fs; 32 ps), on 1 and 2 ranks, started from the Langevin run's last
#     state with the light species' temperature doubled and the heavy one's halved (T_1/T_2 about 4): the
#     chain scales all velocities alike, so equipartition can only come from the dynamics (collisions bring
#     T_1/T_2 within 1/e of 1 in 160-200 fs). The same checks, and econserve is conserved (its standard
#     deviation below 5 % of etotal's; about 0.6 %).
#   - Metal units (eV, ps; epsilon 0.010323 eV), Langevin on 2 ranks, 20 ps: the same checks.
#   - In every run the history table's temp and ke equal those of the trajectory's velocities to 1e-10 at
#     every frame (found: 3e-15), with LAMMPS' kB and mvv2e, which the checker compares with CODATA's R,
#     the thermochemical calorie and the electronvolt (to 2e-6).
# Bounds: 4 standard errors. The standard error of a mean is the larger of the block-average one (16
# blocks) and the one the canonical ensemble predicts, T sqrt(2 / dof) / sqrt(frames / tau_int), tau_int
# the integrated autocorrelation time of the series: 0.0025-0.003 of T per species under Langevin
# (tau_int ~100 fs, ~200 independent samples), 0.004-0.005 under Nose-Hoover (tau_int ~300 fs), 0.004 for
# T_1/T_2 (Langevin); the test requires it below 0.01. A variance has its error from its own series
# (about 8 %). Why this catches a wrong mass scaling of the noise: a noise not scaling as sqrt(kB T / m)
# sets each species' own target a factor up to 10 off, and since the species exchange energy at a rate
# 1/(200 fs) while Langevin relaxes the kinetic energy at 2/damp = 1/(50 fs), T_1/T_2 would stay about 80 %
# of the way to that factor: hundreds of standard errors (and the velocity distributions would fail).
# The test also gives the checker wrong physics on these files and requires the matching check to fail:
# the heavy mass taken as 44 (10 % off: 31 sigma), the light mass for the heavy species, kB in kJ/mol/K, a
# target 2 % off (10 sigma), the two masses swapped, kB 4e-5 off (the history check). The seeds are fixed;
# another build (other rounding) runs other trajectories with the same statistics: over 8 seeds the
# deviations were within 1.8 sigma. BAOAB's full-step velocities carry an O(dt^2) bias, largest for the
# light atoms: T_1/T_2 = 0.996 +- 0.0015 at dt 4 fs, 0.999 at 2 fs (120 ps runs), far inside the bounds.
# The whole test takes 20 s on two idle cores (80 s beside a compiler). Needs /usr/bin/python3 with numpy, scipy and h5py
# (Debian's python3-numpy, python3-scipy, python3-h5py); skipped (77) without.
#   usage: md_thermostats.sh STRATUS MPIEXEC SOURCE_DIR
# shellcheck source=tests/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
PY=${STRATUS_PYTHON:-/usr/bin/python3}
export PYTHONDONTWRITEBYTECODE=1 PYTHONWARNINGS=ignore
"$PY" -c 'import numpy, scipy.stats, h5py' 2> /dev/null ||
  skip "$PY cannot import numpy, scipy and h5py (Debian: python3-numpy python3-scipy python3-h5py)"
CHECK=$SRC/tests/md_thermostats_check.py
MASSES=(4 40)

cat > "$T/fluid.ini" << EOF
[run]
physics = md
name = fluid
max_steps = 12000
history_every = 20
snapshot_every = 20

[md]
units = real
lattice = fcc
lattice_constant = 6.4
cells = 6 6 6
ntypes = 2
type_fractions = 0.5 0.5
mass = ${MASSES[*]}
epsilon = 0.2381
sigma = 3.405
cutoff = 8.5
skin = 2
temperature = 300
velocity_dist = gaussian
timestep = 2
ensemble = langevin
t_target = 300
t_damp = 100
EOF

# run NAME NP [--set KEY=VALUE...]: the deck on NP ranks into $T/NAME.
run() {
  local name=$1 np=$2
  shift 2
  FAIL_LOGS=("$T/$name.log")
  expect_rc 0 "$T/$name.log" "$MPIEXEC" -n "$np" "$STRATUS" run "$T/fluid.ini" --set run.output_dir="$T/$name" "$@"
}
# check NAME [ARGS...]: the checker on run NAME, which must pass; its figures go to the output.
check() {
  local name=$1
  shift
  FAIL_LOGS=()
  expect_rc 0 "$T/$name.check" "$PY" "$CHECK" "$T/$name" fluid --masses "${MASSES[@]}" --t-target 300 \
    --json "$T/$name.json" "$@"
  cat "$T/$name.check"
}
# rejects NAME TAG [ARGS...]: the checker, given wrong physics, must fail check TAG on run NAME.
rejects() {
  local name=$1 tag=$2 log=$T/$1.reject
  shift 2
  expect_rc 1 "$log" "$PY" "$CHECK" "$T/$name" fluid --masses "${MASSES[@]}" --t-target 300 "$@"
  grep -F "FAIL [$tag]" "$log" || fail "$*: no FAIL [$tag] from the checker: $(cat "$log")"
}

# Each Langevin run its own noise (md.thermostat_seed): runs driven by the same noise synchronise, and
# would not be independent samples.
for np in 1 2; do
  run lang$np "$np" --set md.write_data=final.data --set md.thermostat_seed=$((np * 1000 + 1))
  check lang$np --units real --t-equil 4000 --ks
  pass "Langevin, real units, $np rank(s)"
done

expect_rc 0 "$T/unequal.log" "$PY" "$CHECK" unequal "$T/lang1/final.data" "$T/start.data" 2 0.5
for np in 1 2; do
  run nhc$np "$np" --set md.data_file="$T/start.data" --set md.temperature=0 --set md.ensemble=nhc \
    --set md.t_damp=200 --set run.max_steps=16000
  check nhc$np --units real --t-equil 4000 --ks --unequal-start 3
  pass "Nose-Hoover chain, real units, $np rank(s), from T_1/T_2 > 3"
done

run metal 2 --set md.units=metal --set md.epsilon=0.010323 --set md.timestep=0.002 --set md.t_damp=0.1 \
  --set run.max_steps=10000 --set md.thermostat_seed=3001
check metal --units metal --t-equil 4 --ks
pass "Langevin, metal units, 2 ranks"

# The same files with wrong physics: each must fail the check it concerns.
rejects lang1 T-species2 --units real --t-equil 4000 --assume-masses 4 44
rejects lang1 KS-2 --units real --t-equil 4000 --ks --assume-masses 4 4
rejects lang1 T-all --units real --t-equil 4000 --kb 0.0083144626
rejects lang1 T-all --units real --t-equil 4000 --check-target 306
rejects nhc1 equipartition --units real --t-equil 4000 --assume-masses 40 4
rejects metal history --units metal --t-equil 4 --kb 8.617e-5
pass "the checker rejects: a heavy mass 10 % off, the light mass for the heavy species, kB in kJ/mol/K, a target 2 % off, swapped masses, kB 4e-5 off"
