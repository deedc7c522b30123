// Molecular-dynamics set-up: lattices, Maxwell-Boltzmann velocities and host-side kinetic energy /
// temperature (LAMMPS data files: md_data_file.cpp). Plain C++ on host arrays; copy_to_device() hands the
// result to the kernels. Units follow the caller (LAMMPS lj: sigma, m, epsilon, kB = 1).
#include "md/md_setup.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>
#include <unordered_map>

#include "core/error.hpp"

namespace stratus::md {

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr unsigned long long kGolden = 0x9E3779B97F4A7C15ULL;

// splitmix64 output function of state z (Steele, Lea, Flood 2014).
unsigned long long splitmix64(unsigned long long z) {
  z += kGolden;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Indices of the atoms sorted by id, so that reductions do not depend on the storage order.
std::vector<std::size_t> id_order(const AtomData& a) {
  std::vector<std::size_t> order(a.natoms());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return a.id[i] < a.id[j]; });
  return order;
}

double mass_of(const AtomData& a, std::size_t i) {
  const int t = a.type[i];
  STRATUS_REQUIRE(t >= 1 && t <= a.ntypes && static_cast<std::size_t>(t) < a.mass.size(),
                  "atom " << a.id[i] << " has type " << t << " outside 1.." << a.ntypes);
  return a.mass[static_cast<std::size_t>(t)];
}
}  // namespace

void AtomData::add_atom(long long atom_id, int atom_type, const std::array<double, 3>& pos) {
  id.push_back(atom_id);
  type.push_back(atom_type);
  x.push_back(pos);
  v.push_back({0.0, 0.0, 0.0});
  image.push_back({0, 0, 0});
  q.push_back(0.0);
}

AtomViews copy_to_device(const AtomData& atoms) {
  const std::size_t n = atoms.natoms();
  AtomViews d;
  d.x = ParticleVec("md.x", n);
  d.v = ParticleVec("md.v", n);
  d.type = ParticleInt("md.type", n);
  d.id = ParticleId("md.id", n);
  auto hx = Kokkos::create_mirror_view(d.x);
  auto hv = Kokkos::create_mirror_view(d.v);
  auto ht = Kokkos::create_mirror_view(d.type);
  auto hi = Kokkos::create_mirror_view(d.id);
  for (std::size_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) {
      hx(i, c) = atoms.x[i][c];
      hv(i, c) = atoms.has_velocities ? atoms.v[i][c] : 0.0;
    }
    ht(i) = atoms.type[i];
    hi(i) = atoms.id[i];
  }
  Kokkos::deep_copy(d.x, hx);
  Kokkos::deep_copy(d.v, hv);
  Kokkos::deep_copy(d.type, ht);
  Kokkos::deep_copy(d.id, hi);
  return d;
}

// ---------------------------------------------------------------------------------------------------
// Lattices

AtomData make_lattice(const std::string& style, double density_or_a, bool reduced_density, Int3 cells, int type,
                      double mass) {
  std::vector<std::array<double, 3>> basis;  // fractions of the unit cell
  if (style == "fcc")
    basis = {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.0}, {0.5, 0.0, 0.5}, {0.0, 0.5, 0.5}};
  else if (style == "bcc")
    basis = {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.5}};
  else if (style == "sc")
    basis = {{0.0, 0.0, 0.0}};
  else if (style == "rocksalt")  // fcc sites, then the octahedral sites (fcc shifted by a/2 along x)
    basis = {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.0}, {0.5, 0.0, 0.5}, {0.0, 0.5, 0.5},
             {0.5, 0.0, 0.0}, {0.0, 0.5, 0.0}, {0.0, 0.0, 0.5}, {0.5, 0.5, 0.5}};
  else
    throw InputError("lattice style '" + style + "' is not supported (fcc, bcc, sc or rocksalt)");
  STRATUS_INPUT_REQUIRE(
      density_or_a > 0.0 && std::isfinite(density_or_a),
      "lattice " << (reduced_density ? "reduced density" : "constant") << " must be positive, got " << density_or_a);
  STRATUS_INPUT_REQUIRE(cells[0] >= 1 && cells[1] >= 1 && cells[2] >= 1,
                        "lattice cells must be >= 1, got " << cells[0] << " " << cells[1] << " " << cells[2]);
  STRATUS_INPUT_REQUIRE(type >= 1, "lattice atom type must be >= 1, got " << type);
  STRATUS_INPUT_REQUIRE(mass > 0.0, "lattice atom mass must be positive, got " << mass);

  const double nb = static_cast<double>(basis.size());
  const double a = reduced_density ? std::cbrt(nb / density_or_a) : density_or_a;  // length

  const bool two = style == "rocksalt";
  AtomData atoms;
  atoms.ntypes = two ? type + 1 : type;
  atoms.mass.assign(static_cast<std::size_t>(atoms.ntypes) + 1, 0.0);
  atoms.mass[static_cast<std::size_t>(type)] = mass;
  if (two) atoms.mass[static_cast<std::size_t>(type) + 1] = mass;
  for (int d = 0; d < 3; ++d) {
    atoms.lo[d] = 0.0;
    atoms.hi[d] = cells[d] * a;
  }
  const std::size_t n = basis.size() * static_cast<std::size_t>(cells[0]) * cells[1] * cells[2];
  atoms.id.reserve(n);
  atoms.type.reserve(n);
  atoms.x.reserve(n);
  atoms.v.reserve(n);
  atoms.image.reserve(n);
  long long next = 1;
  for (int k = 0; k < cells[2]; ++k)
    for (int j = 0; j < cells[1]; ++j)
      for (int i = 0; i < cells[0]; ++i)
        for (std::size_t s = 0; s < basis.size(); ++s) {
          const auto& b = basis[s];
          atoms.add_atom(next++, two && s >= 4 ? type + 1 : type, {(i + b[0]) * a, (j + b[1]) * a, (k + b[2]) * a});
        }
  return atoms;
}

// ---------------------------------------------------------------------------------------------------
// Velocities and temperature

void create_velocities(AtomData& atoms, double temperature_target, unsigned long long seed, bool zero_momentum,
                       double kB, bool uniform) {
  STRATUS_INPUT_REQUIRE(temperature_target >= 0.0 && std::isfinite(temperature_target),
                        "velocity temperature must be >= 0, got " << temperature_target);
  STRATUS_REQUIRE(kB > 0.0, "Boltzmann constant must be positive, got " << kB);
  const std::size_t n = atoms.natoms();
  atoms.has_velocities = true;
  if (n == 0) return;
  const std::vector<std::size_t> order = id_order(atoms);
  for (std::size_t r = 1; r < n; ++r)
    STRATUS_REQUIRE(atoms.id[order[r]] != atoms.id[order[r - 1]], "duplicate atom id " << atoms.id[order[r]]);

  // Draw: a splitmix64 stream whose state starts at hash(seed, id); Box-Muller on two pairs of uniforms.
  for (std::size_t i = 0; i < n; ++i) {
    const double m = mass_of(atoms, i);
    STRATUS_REQUIRE(m > 0.0, "atom type " << atoms.type[i] << " has no positive mass");
    const unsigned long long key = splitmix64(splitmix64(seed) ^ static_cast<unsigned long long>(atoms.id[i]));
    double u[4];
    for (int k = 0; k < 4; ++k) {
      const unsigned long long bits = splitmix64(key + static_cast<unsigned long long>(k + 1) * kGolden);
      u[k] = static_cast<double>(bits >> 11) * 0x1.0p-53;  // [0, 1)
    }
    const double r0 = std::sqrt(-2.0 * std::log(1.0 - u[0]));  // 1 - u in (0, 1]
    const double r1 = std::sqrt(-2.0 * std::log(1.0 - u[2]));
    const double sigma = std::sqrt(kB * temperature_target / m);  // velocity
    if (uniform) {  // uniform in [-0.5, 0.5) per component, scaled to the variance of the normal
      const double a = sigma * std::sqrt(12.0);
      atoms.v[i] = {a * (u[0] - 0.5), a * (u[1] - 0.5), a * (u[2] - 0.5)};
    } else {
      atoms.v[i] = {sigma * r0 * std::cos(2.0 * kPi * u[1]), sigma * r0 * std::sin(2.0 * kPi * u[1]),
                    sigma * r1 * std::cos(2.0 * kPi * u[3])};
    }
  }
  if (temperature_target == 0.0) {
    for (auto& vi : atoms.v) vi = {0.0, 0.0, 0.0};
    return;
  }

  if (zero_momentum) {
    STRATUS_INPUT_REQUIRE(n >= 2, "cannot set a temperature with zero momentum for a single atom");
    double p[3] = {0.0, 0.0, 0.0};
    double mtot = 0.0;
    for (const std::size_t i : order) {
      const double m = mass_of(atoms, i);
      mtot += m;
      for (int c = 0; c < 3; ++c) p[c] += m * atoms.v[i][c];
    }
    for (auto& vi : atoms.v)
      for (int c = 0; c < 3; ++c) vi[c] -= p[c] / mtot;
  }

  double mv2 = 0.0;  // sum m v^2 (energy)
  for (const std::size_t i : order) {
    const double m = mass_of(atoms, i);
    for (int c = 0; c < 3; ++c) mv2 += m * atoms.v[i][c] * atoms.v[i][c];
  }
  const double dof = 3.0 * static_cast<double>(n) - (zero_momentum ? 3.0 : 0.0);
  const double t_now = mv2 / (dof * kB);
  STRATUS_REQUIRE(t_now > 0.0, "drawn velocities have zero temperature");
  const double scale = std::sqrt(temperature_target / t_now);
  for (auto& vi : atoms.v)
    for (int c = 0; c < 3; ++c) vi[c] *= scale;
}

double kinetic_energy(const AtomData& atoms) {
  if (!atoms.has_velocities) return 0.0;
  double mv2 = 0.0;
  for (std::size_t i = 0; i < atoms.natoms(); ++i) {
    const double m = mass_of(atoms, i);
    for (int c = 0; c < 3; ++c) mv2 += m * atoms.v[i][c] * atoms.v[i][c];
  }
  return 0.5 * mv2;
}

double temperature(const AtomData& atoms, bool zero_momentum_dof, double kB) {
  const double dof = 3.0 * static_cast<double>(atoms.natoms()) - (zero_momentum_dof ? 3.0 : 0.0);
  if (dof <= 0.0) return 0.0;
  return 2.0 * kinetic_energy(atoms) / (dof * kB);
}

}  // namespace stratus::md
