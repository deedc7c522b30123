// Linear acoustic-gravity waves of an isothermal atmosphere (Euler cases linear_gravity and linear_acoustic):
// the frequency of each branch against the exact dispersion relation of the linearised compressible
// equations between rigid lids, computed here from the physical constants (miniWeather's: g = 9.8 m/s^2,
// R = 287, cp = 1004, cv = 717 J/kg/K) and T = 300 K, independently of the solver's own. A wrong g, R, cp
// or cv, a wrong equation of state or a wrong buoyancy term moves the gravity frequency (through N^2 =
// g^2 / cp T and the scale height) or the acoustic one (c^2 = gamma R T) by far more than the tolerances.
// Built into test_euler.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "climate/euler.hpp"
#include "domain/local_grid.hpp"
#include "grid_physics_test.hpp"

using namespace stratus;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kG = 9.8, kR = 287.0, kCpAir = 1004.0, kCvAir = 717.0, kT = 300.0;
constexpr double kLx = 20000.0, kLz = 10000.0;  // one wavelength along x, half of one along z [m]

// omega [1/s] of the branch: a root of omega^4 - omega^2 (c^2 (k^2 + m^2) + c^2 / 4H^2) + c^2 N^2 k^2 = 0.
double exact_omega(bool acoustic) {
  const double c2 = kCpAir / kCvAir * kR * kT, h = kR * kT / kG, n2 = kG * kG / (kCpAir * kT);
  const double k = 2.0 * kPi / kLx, m = kPi / kLz;
  const double b = c2 * (k * k + m * m) + c2 / (4.0 * h * h), disc = std::sqrt(b * b - 4.0 * c2 * n2 * k * k);
  return std::sqrt(acoustic ? 0.5 * (b + disc) : 2.0 * c2 * n2 * k * k / (b + disc));
}

struct Measured {
  double omega;      // from the phase the wave travelled in t_end [1/s]
  double amp_range;  // (largest - smallest) / initial modulus of its amplitude over the run
};

// The projection of rho w exp(z / 2H) on sin(m z) exp(-i k x), every step of a run to t_end: its phase
// turns at -omega, its modulus stays (up to the scheme's damping).
Measured measure(bool acoustic, int nx, double t_end, MPI_Comm comm) {
  static const OptionRegistry reg = test::grid_registry(climate::declare_euler_options);
  auto sim = test::start<climate::Euler>(
      reg, "[grid]\nbc_z = wall\n",
      {std::string("euler.case=") + (acoustic ? "linear_acoustic" : "linear_gravity"), "grid.nx=" + std::to_string(nx),
       "grid.ny=1", "grid.nz=" + std::to_string(nx / 2), "grid.length=20000 1 10000"},
      comm);
  const double h = kR * kT / kG, k = 2.0 * kPi / kLx, m = kPi / kLz, dx = kLx / nx;
  const LocalGrid& g = sim->grid();
  auto project = [&] {
    const auto st = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sim->state());
    std::complex<double> a = 0.0;
    for (int kz = 0; kz < g.n[2]; ++kz) {
      const double z = (g.offset[2] + kz + 0.5) * dx;
      for (int i = 0; i < g.n[0]; ++i)
        a += st(climate::kWmom, kz + g.ng[2], g.ng[1], i + g.ng[0]) * std::exp(z / (2.0 * h)) * std::sin(m * z) *
             std::polar(1.0, -k * (g.offset[0] + i + 0.5) * dx);
    }
    double local[2] = {a.real(), a.imag()}, sum[2];
    MPI_Allreduce(local, sum, 2, MPI_DOUBLE, MPI_SUM, comm);
    return std::complex<double>(sum[0], sum[1]);
  };
  const std::complex<double> a0 = project();
  double phase = 0.0, lo = 1.0, hi = 1.0;
  std::complex<double> prev = a0;
  while (sim.clock.time < t_end * (1.0 - 1e-12)) {
    sim.step(std::min(sim->stable_dt(), t_end - sim.clock.time));
    const std::complex<double> a = project();
    phase += std::arg(a / prev);  // less than pi per step: omega dt < 0.2
    prev = a;
    lo = std::min(lo, std::abs(a) / std::abs(a0));
    hi = std::max(hi, std::abs(a) / std::abs(a0));
  }
  return {-phase / sim.clock.time, hi - lo};
}

}  // namespace

TEST_CASE("linear gravity and acoustic waves of an isothermal atmosphere travel at their exact frequencies",
          "[euler][mpi]") {
  // 20 km x 10 km at 32 x 16, 64 x 32 and 128 x 64 cells. Measured (relative error of omega, 32 / 64 / 128):
  // gravity 1.9e-3 / 4.8e-4 / 1.2e-4, acoustic -4.6e-3 / -1.1e-3 / -2.8e-4: second order (the walls and the
  // splitting), and the Richardson extrapolation (4 omega_128 - omega_64) / 3 is within 1.8e-6 (gravity) and
  // 9.3e-6 (acoustic) of the exact omega. The bound on it, 5e-5, is 5x the larger; a 0.1 % error in c^2
  // moves omega_acoustic by 5e-4, a 1 % stronger buoyancy gives 5e-3 (gravity) and 9e-5 (acoustic). The
  // modulus of the projection varies by 0.5 % (gravity) and 0.3 % (acoustic) at 128 x 64 (damping, and the
  // start being the discrete mode only to second order): a wrong polarisation would mix in the other branch
  // and beat at its full amplitude.
  int np = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  // Decomposed at 1 and 2 ranks. Above that each rank measures alone (MPI_COMM_SELF): 4 ranks on 2 cores
  // took 54-87 s to wait out 2300 steps of halo exchanges, and the decomposition test shows that every
  // decomposition gives the fields of one rank bit for bit.
  const MPI_Comm comm = np > 2 ? MPI_COMM_SELF : MPI_COMM_WORLD;
  for (const bool acoustic : {false, true}) {
    const double omega = exact_omega(acoustic);
    const double t_end = (acoustic ? 3.0 : 1.0) * 2.0 * kPi / omega;  // 3 acoustic periods, 1 gravity period
    std::vector<Measured> r;
    for (const int nx : {32, 64, 128}) r.push_back(measure(acoustic, nx, t_end, comm));
    const double e0 = r[0].omega / omega - 1.0, e1 = r[1].omega / omega - 1.0, e2 = r[2].omega / omega - 1.0;
    const double order1 = std::log2(e0 / e1), order2 = std::log2(e1 / e2);
    const double extrapolated = (4.0 * r[2].omega - r[1].omega) / 3.0 / omega - 1.0;
    INFO((acoustic ? "acoustic" : "gravity") << " branch, exact omega " << omega << " 1/s; relative errors " << e0
                                             << ", " << e1 << ", " << e2 << " (orders " << order1 << ", " << order2
                                             << "), extrapolated " << extrapolated << "; amplitude ranges "
                                             << r[0].amp_range << ", " << r[1].amp_range << ", " << r[2].amp_range);
    CHECK(order1 > 1.8);
    CHECK(order2 > 1.8);
    CHECK(std::abs(extrapolated) < 5e-5);
    CHECK(std::abs(e2) < 5e-4);
    CHECK(r[2].amp_range < 0.015);
    CHECK(r[2].amp_range < r[1].amp_range / 3.0);
  }
}
