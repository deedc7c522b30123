// Molecular-dynamics set-up (host side, runs once): the atom container, lattices, Maxwell-Boltzmann
// velocities, LAMMPS data files (atomic style) and kinetic-energy / temperature helpers, plus a copy of
// the atoms into device Views. Units are whatever the caller uses consistently (LAMMPS "lj" by default:
// lengths in sigma, masses in m, temperatures in epsilon / kB with kB = 1).
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace stratus::md {

/// All atoms of a system on the host. Types are 1-based as in LAMMPS; mass[t] is the mass of type t
/// (mass.size() == ntypes + 1, mass[0] unused). Per-atom arrays all have natoms() entries.
struct AtomData {
  std::array<double, 3> lo{0.0, 0.0, 0.0};  ///< box lower corner (length)
  std::array<double, 3> hi{0.0, 0.0, 0.0};  ///< box upper corner (length)
  int ntypes = 0;
  std::vector<double> mass{0.0};  ///< mass[type] (mass units), index 0 unused

  std::vector<long long> id;              ///< global ids, >= 1, unique
  std::vector<int> type;                  ///< 1..ntypes
  std::vector<std::array<double, 3>> x;   ///< positions (length)
  std::vector<std::array<double, 3>> v;   ///< velocities (length / time)
  std::vector<std::array<int, 3>> image;  ///< periodic image flags
  std::vector<double> q;                  ///< charges (charge units; zero unless set)
  bool has_velocities = false;            ///< velocities were set (read or created)
  bool has_charges = false;               ///< charges were set (atom style charge, or per type)

  std::size_t natoms() const { return id.size(); }
  /// Appends one atom (velocity zero, image flags zero, charge zero).
  void add_atom(long long atom_id, int atom_type, const std::array<double, 3>& pos);
};

/// Device copies of the per-atom arrays of an AtomData (same order as the host arrays).
struct AtomViews {
  ParticleVec x;
  ParticleVec v;
  ParticleInt type;
  ParticleId id;
};

/// Allocates device Views and copies positions, velocities (zero when !has_velocities), types and ids.
AtomViews copy_to_device(const AtomData& atoms);

/// A cells[0] x cells[1] x cells[2] block of unit cells of an fcc, bcc or sc lattice, all atoms of
/// `type` (ntypes = type; masses of lower types are left 0), or of rock salt: the fcc sites of `type` and
/// the octahedral sites (the fcc lattice shifted by a/2 along x) of type + 1 (ntypes = type + 1, both of
/// `mass`; 8 atoms per cell). With reduced_density the lattice constant
/// is a = (n_basis / rho*)^(1/3) (LAMMPS "lattice fcc 0.8442" in lj units), otherwise a = density_or_a.
/// Box [0, cells * a). Ids 1..N in LAMMPS create_atoms order on one rank: z cell outermost, then y, then
/// x, then the basis atom innermost. Throws InputError for an unknown style or non-positive arguments.
AtomData make_lattice(const std::string& style, double density_or_a, bool reduced_density, Int3 cells, int type,
                      double mass);

/// Maxwell-Boltzmann velocities: each component drawn from N(0, kB T / m) (or, with uniform, from the
/// uniform distribution of that variance: LAMMPS' velocity create default) by a counter-based generator
/// keyed on (seed, atom id), so the draw of an atom does not depend on the order or the rank count.
/// Then (if zero_momentum) the centre-of-mass velocity is removed and all velocities are scaled so that
/// temperature(atoms, zero_momentum, kB) == T. Sums run in id order, so the result is bitwise
/// independent of the order of the atoms. T = 0 gives zero velocities.
void create_velocities(AtomData& atoms, double temperature, unsigned long long seed, bool zero_momentum,
                       double kB = 1.0, bool uniform = false);

/// 0.5 * sum m v^2 (energy units).
double kinetic_energy(const AtomData& atoms);
/// LAMMPS convention T = sum(m v^2) / (dof kB), dof = 3N - 3 when zero_momentum_dof, else 3N.
double temperature(const AtomData& atoms, bool zero_momentum_dof, double kB = 1.0);

/// Reads a LAMMPS data file of atom style atomic (Atoms lines `id type x y z [ix iy iz]`) or charge
/// (`id type q x y z [ix iy iz]`), with header, Masses, Atoms and Velocities. The style is the Atoms
/// section's hint (`Atoms # charge`) or, without a hint, the column count. Throws InputError naming the
/// file, the line and the problem for any malformed or inconsistent content.
AtomData read_lammps_data(const std::string& path);

/// Writes a LAMMPS data file in write_data's layout (atom style charge when the atoms have charges,
/// atomic otherwise; the atoms in the order given) with data_text's numbers (bit-exact round trip).
/// The file is written to a temporary in the same directory and renamed into place. Throws Error on
/// I/O failure. (MDSimulation::write_data_to writes the same bytes from every rank's atoms in parallel.)
void write_lammps_data(const std::string& path, const AtomData& atoms);

/// The text of a data file in write_data's layout, in parts that ranks can format apart: the head, then
/// an Atoms line per atom, then (with velocities) kVelocitiesHeading and a Velocities line per atom.
/// Numbers are the shortest text that reads back as the same double (std::to_chars: exact, like %.17g, and
/// several times faster than printf, which took most of the time of writing 256k atoms).
namespace data_text {
/// Title, counts, box, Masses and the Atoms heading, from meta's box, types, masses and has_charges.
std::string head(const AtomData& meta, std::size_t natoms);
/// Writes `id type [q] x y z ix iy iz` (q where not null: atom style charge) and a newline at `out`;
/// returns the end. At most kAtomLineMax characters, in a buffer with kLineSlack bytes to spare after them.
char* atom_line(char* out, long long id, int type, const double* q, const double x[3], const int image[3]);
/// Writes `id vx vy vz` and a newline at `out`; returns the end. At most kVelocityLineMax characters, in a
/// buffer with kLineSlack bytes to spare after them.
char* velocity_line(char* out, long long id, const double v[3]);
/// The most characters atom_line (charged or not) and velocity_line write: a double takes at most 24
/// ("-2.2250738585072014e-308"), a long long 20, an int 11, each with its separator. A buffer of
/// lines x bound (plus kLineSlack) holds a text without growing.
constexpr std::size_t kAtomLineMax = 21 + 12 + 25 + 3 * 25 + 3 * 12;
constexpr std::size_t kVelocityLineMax = 21 + 3 * 25;
constexpr std::size_t kLineSlack = 32;
inline constexpr const char* kVelocitiesHeading = "\nVelocities\n\n";
}  // namespace data_text

}  // namespace stratus::md
