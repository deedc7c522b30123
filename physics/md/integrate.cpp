// Integrators, thermostats and kinetic reductions of the MD engine.
#include "md/integrate.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace stratus::md {

Units Units::named(const std::string& name) {
  Units u;
  if (name == "lj") return u;
  if (name == "real") {  // Angstrom, fs, kcal/mol, g/mol, K, atm
    u.name = "real";
    u.boltz = 0.0019872067;
    u.mvv2e = 48.88821291 * 48.88821291;
    u.ftm2v = 1.0 / 48.88821291 / 48.88821291;
    u.nktv2p = 68568.415;
    u.qqr2e = 332.06371;
    u.length = "Angstrom";
    u.time = "fs";
    u.energy = "kcal/mol";
    u.pressure = "atm";
    u.per_atom_thermo = false;
    return u;
  }
  if (name == "metal") {  // Angstrom, ps, eV, g/mol, K, bar
    u.name = "metal";
    u.boltz = 8.617343e-5;
    u.mvv2e = 1.0364269e-4;
    u.ftm2v = 1.0 / 1.0364269e-4;
    u.nktv2p = 1.6021765e6;
    u.qqr2e = 14.399645;
    u.length = "Angstrom";
    u.time = "ps";
    u.energy = "eV";
    u.pressure = "bar";
    u.per_atom_thermo = false;
    return u;
  }
  throw InputError("md.units: unknown unit system '" + name + "' (lj, real or metal)");
}

using Policy = Kokkos::RangePolicy<ExecSpace>;

void verlet_initial(Particles& p, const TypeMass& mass, double dt, double ftm2v) {
  const auto x = p.x, v = p.v, f = p.f;
  const auto type = p.type;
  const double h = 0.5 * dt * ftm2v;
  Kokkos::parallel_for(
      "md::verlet_initial", Policy(0, p.n_local), KOKKOS_LAMBDA(int i) {
        const double a = h / mass(type(i));
        for (int d = 0; d < 3; ++d) {
          v(i, d) += a * f(i, d);
          x(i, d) += dt * v(i, d);
        }
      });
}

void verlet_final(Particles& p, const TypeMass& mass, double dt, double ftm2v) {
  const auto v = p.v, f = p.f;
  const auto type = p.type;
  const double h = 0.5 * dt * ftm2v;
  Kokkos::parallel_for(
      "md::verlet_final", Policy(0, p.n_local), KOKKOS_LAMBDA(int i) {
        const double a = h / mass(type(i));
        for (int d = 0; d < 3; ++d) v(i, d) += a * f(i, d);
      });
}

void langevin_initial(Particles& p, const TypeMass& mass, double dt, const Units& u, const LangevinParams& lp,
                      long long step, MPI_Comm comm) {
  const auto x = p.x, v = p.v, f = p.f;
  const auto type = p.type;
  const auto id = p.id;
  const double h = 0.5 * dt * u.ftm2v;
  const double c1 = std::exp(-dt / lp.damp);
  // Velocity variance kB T / (m mvv2e) per component, times (1 - c1^2) for the exact OU step.
  const double c2 = std::sqrt((1.0 - c1 * c1) * u.boltz * lp.temperature / u.mvv2e);
  const unsigned long long seed = lp.seed;
  const int n = p.n_local;
  // Net momentum of the noise, removed so that the thermostat keeps the total momentum (as LAMMPS'
  // fix langevin zero yes): the deviates are regenerated from their counters in the second kernel.
  double dp[4] = {0.0, 0.0, 0.0, 0.0};
  if (lp.zero_noise_momentum) {
    double px = 0.0, py = 0.0, pz = 0.0, mt = 0.0;
    Kokkos::parallel_reduce(
        "md::langevin_noise_momentum", Policy(0, n),
        KOKKOS_LAMBDA(int i, double& sx, double& sy, double& sz, double& sm) {
          double g[3];
          normal3(seed, id(i), step, g);
          const double m = mass(type(i));
          const double s = c2 / ::sqrt(m) * m;
          sx += s * g[0];
          sy += s * g[1];
          sz += s * g[2];
          sm += m;
        },
        px, py, pz, mt);
    double loc[4] = {px, py, pz, mt};
    STRATUS_MPI_CHECK(MPI_Allreduce(loc, dp, 4, MPI_DOUBLE, MPI_SUM, comm));
    for (int d = 0; d < 3; ++d) dp[d] /= dp[3];
  }
  const double dvx = dp[0], dvy = dp[1], dvz = dp[2];
  Kokkos::parallel_for(
      "md::langevin_baoa", Policy(0, n), KOKKOS_LAMBDA(int i) {
        const double m = mass(type(i));
        const double a = h / m;
        const double s = c2 / ::sqrt(m);
        double g[3];
        normal3(seed, id(i), step, g);
        const double dv[3] = {dvx, dvy, dvz};
        for (int d = 0; d < 3; ++d) {
          double vd = v(i, d) + a * f(i, d);  // B
          x(i, d) += 0.5 * dt * vd;           // A
          vd = c1 * vd + s * g[d] - dv[d];    // O
          x(i, d) += 0.5 * dt * vd;           // A
          v(i, d) = vd;
        }
      });
}

double sum_mv2(const Particles& p, const TypeMass& mass, MPI_Comm comm) {
  const double local = local_mv2(p, mass);
  double global = 0.0;
  STRATUS_MPI_CHECK(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm));
  return global;
}

double local_mv2(const Particles& p, const TypeMass& mass) {
  const auto v = p.v;
  const auto type = p.type;
  double local = 0.0;
  Kokkos::parallel_reduce(
      "md::sum_mv2", Policy(0, p.n_local),
      KOKKOS_LAMBDA(int i, double& s) {
        s += mass(type(i)) * (v(i, 0) * v(i, 0) + v(i, 1) * v(i, 1) + v(i, 2) * v(i, 2));
      },
      local);
  return local;
}

double local_dr2(const Particles& p, const std::array<double, 3>& len) {
  const auto x = p.x, x0 = p.x0;
  const auto image = p.image;
  const double lx = len[0], ly = len[1], lz = len[2];
  double local = 0.0;
  Kokkos::parallel_reduce(
      "md::sum_dr2", Policy(0, p.n_local),
      KOKKOS_LAMBDA(int i, double& s) {
        const double dx = x(i, 0) + image(i, 0) * lx - x0(i, 0);
        const double dy = x(i, 1) + image(i, 1) * ly - x0(i, 1);
        const double dz = x(i, 2) + image(i, 2) * lz - x0(i, 2);
        s += dx * dx + dy * dy + dz * dz;
      },
      local);
  return local;
}

std::array<double, 4> momentum(const Particles& p, const TypeMass& mass, MPI_Comm comm) {
  const auto v = p.v;
  const auto type = p.type;
  double px = 0.0, py = 0.0, pz = 0.0, mt = 0.0;
  Kokkos::parallel_reduce(
      "md::momentum", Policy(0, p.n_local),
      KOKKOS_LAMBDA(int i, double& sx, double& sy, double& sz, double& sm) {
        const double m = mass(type(i));
        sx += m * v(i, 0);
        sy += m * v(i, 1);
        sz += m * v(i, 2);
        sm += m;
      },
      px, py, pz, mt);
  double loc[4] = {px, py, pz, mt};
  std::array<double, 4> g{};
  STRATUS_MPI_CHECK(MPI_Allreduce(loc, g.data(), 4, MPI_DOUBLE, MPI_SUM, comm));
  return g;
}

void zero_momentum(Particles& p, const TypeMass& mass, MPI_Comm comm) {
  const auto pm = momentum(p, mass, comm);
  if (!(pm[3] > 0.0)) return;
  const double cx = pm[0] / pm[3], cy = pm[1] / pm[3], cz = pm[2] / pm[3];
  const auto v = p.v;
  Kokkos::parallel_for(
      "md::zero_momentum", Policy(0, p.n_local), KOKKOS_LAMBDA(int i) {
        v(i, 0) -= cx;
        v(i, 1) -= cy;
        v(i, 2) -= cz;
      });
}

void scale_velocities(Particles& p, double s) {
  const auto v = p.v;
  Kokkos::parallel_for(
      "md::scale_velocities", Policy(0, p.n_local), KOKKOS_LAMBDA(int i) {
        v(i, 0) *= s;
        v(i, 1) *= s;
        v(i, 2) *= s;
      });
}

NoseHooverChain::NoseHooverChain(int length, double temperature, double tau, double dof, const Units& u)
    : eta_(static_cast<std::size_t>(length), 0.0),
      veta_(static_cast<std::size_t>(length), 0.0),
      q_(static_cast<std::size_t>(length), 0.0),
      kt_(u.boltz * temperature),
      dof_(dof),
      u_(u) {
  STRATUS_INPUT_REQUIRE(length >= 1, "md.nhc_chain: the chain needs at least one thermostat, got " << length);
  STRATUS_INPUT_REQUIRE(temperature > 0.0 && tau > 0.0, "md: Nose-Hoover needs md.t_target > 0 and md.t_damp > 0");
  q_[0] = dof * kt_ * tau * tau;
  for (std::size_t k = 1; k < q_.size(); ++k) q_[k] = kt_ * tau * tau;
}

void NoseHooverChain::half_step(Particles& p, const TypeMass& mass, double dt, MPI_Comm comm) {
  const std::size_t m = eta_.size();
  const double dt2 = 0.5 * dt, dt4 = 0.25 * dt, dt8 = 0.125 * dt;
  double ke2 = sum_mv2(p, mass, comm) * u_.mvv2e;  // 2 KE
  auto g = [&](std::size_t k) {                    // force on chain element k
    return k == 0 ? (ke2 - dof_ * kt_) / q_[0] : (q_[k - 1] * veta_[k - 1] * veta_[k - 1] - kt_) / q_[k];
  };
  veta_[m - 1] += g(m - 1) * dt4;
  for (std::size_t k = m - 1; k-- > 0;) {
    const double e = std::exp(-veta_[k + 1] * dt8);
    veta_[k] = (veta_[k] * e + g(k) * dt4) * e;
  }
  const double s = std::exp(-veta_[0] * dt2);
  scale_velocities(p, s);
  ke2 *= s * s;
  for (std::size_t k = 0; k < m; ++k) eta_[k] += veta_[k] * dt2;
  for (std::size_t k = 0; k + 1 < m; ++k) {
    const double e = std::exp(-veta_[k + 1] * dt8);
    veta_[k] = (veta_[k] * e + g(k) * dt4) * e;
  }
  veta_[m - 1] += g(m - 1) * dt4;
}

std::vector<double> NoseHooverChain::state() const {
  std::vector<double> s(eta_);
  s.insert(s.end(), veta_.begin(), veta_.end());
  return s;
}

bool NoseHooverChain::set_state(const std::vector<double>& s) {
  if (s.size() != 2 * eta_.size()) return false;
  std::copy(s.begin(), s.begin() + static_cast<long>(eta_.size()), eta_.begin());
  std::copy(s.begin() + static_cast<long>(eta_.size()), s.end(), veta_.begin());
  return true;
}

double NoseHooverChain::energy() const {
  double e = dof_ * kt_ * eta_[0];
  for (std::size_t k = 0; k < eta_.size(); ++k) {
    e += 0.5 * q_[k] * veta_[k] * veta_[k];
    if (k > 0) e += kt_ * eta_[k];
  }
  return e;
}

}  // namespace stratus::md
