// Molecular-dynamics set-up: lattices, Maxwell-Boltzmann velocities, LAMMPS data files (atomic style)
// and host-side kinetic energy / temperature. Plain C++ on host arrays; copy_to_device() hands the
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
  else
    throw InputError("lattice style '" + style + "' is not supported (fcc, bcc or sc)");
  STRATUS_INPUT_REQUIRE(
      density_or_a > 0.0 && std::isfinite(density_or_a),
      "lattice " << (reduced_density ? "reduced density" : "constant") << " must be positive, got " << density_or_a);
  STRATUS_INPUT_REQUIRE(cells[0] >= 1 && cells[1] >= 1 && cells[2] >= 1,
                        "lattice cells must be >= 1, got " << cells[0] << " " << cells[1] << " " << cells[2]);
  STRATUS_INPUT_REQUIRE(type >= 1, "lattice atom type must be >= 1, got " << type);
  STRATUS_INPUT_REQUIRE(mass > 0.0, "lattice atom mass must be positive, got " << mass);

  const double nb = static_cast<double>(basis.size());
  const double a = reduced_density ? std::cbrt(nb / density_or_a) : density_or_a;  // length

  AtomData atoms;
  atoms.ntypes = type;
  atoms.mass.assign(static_cast<std::size_t>(type) + 1, 0.0);
  atoms.mass[static_cast<std::size_t>(type)] = mass;
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
        for (const auto& b : basis) atoms.add_atom(next++, type, {(i + b[0]) * a, (j + b[1]) * a, (k + b[2]) * a});
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

// ---------------------------------------------------------------------------------------------------
// LAMMPS data files

namespace {

/// The largest image flag a data file may carry: 2^30 further box crossings fit in an int.
constexpr int kMaxImage = 1 << 30;

class DataParser {
 public:
  explicit DataParser(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(long line, const std::string& what) const {
    std::ostringstream os;
    os << "data file '" << path_ << "' line " << line << ": " << what;
    throw InputError(os.str());
  }

  double real(long line, const std::string& tok, const std::string& what) const {
    errno = 0;
    char* end = nullptr;
    const double val = std::strtod(tok.c_str(), &end);
    if (tok.empty() || end != tok.c_str() + tok.size() || !std::isfinite(val))
      fail(line, "expected a number for " + what + ", got '" + tok + "'");
    return val;
  }

  long long integer(long line, const std::string& tok, const std::string& what) const {
    errno = 0;
    char* end = nullptr;
    const long long val = std::strtoll(tok.c_str(), &end, 10);
    if (tok.empty() || end != tok.c_str() + tok.size() || errno == ERANGE)
      fail(line, "expected an integer for " + what + ", got '" + tok + "'");
    return val;
  }

  int small_int(long line, const std::string& tok, const std::string& what) const {
    const long long val = integer(line, tok, what);
    if (val < std::numeric_limits<int>::min() || val > std::numeric_limits<int>::max())
      fail(line, what + " " + tok + " is out of range");
    return static_cast<int>(val);
  }

 private:
  std::string path_;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream is(s);
  std::string tok;
  while (is >> tok) out.push_back(tok);
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

}  // namespace

AtomData read_lammps_data(const std::string& path) {
  const DataParser p(path);
  std::ifstream in(path);
  if (!in) throw InputError("data file '" + path + "': cannot open the file for reading: " + std::strerror(errno));

  enum class Section { header, masses, atoms, velocities };
  Section section = Section::header;
  AtomData atoms;
  long long natoms_decl = -1;
  long natoms_line = 0;
  bool box_seen[3] = {false, false, false};
  long masses_line = 0, atoms_line = 0, velocities_line = 0;
  // Masses as given: memory in proportion to the file, not to the declared type count (a short file may
  // declare 2^31 - 1 types); atoms.mass is filled at the end, once every type has its line.
  std::map<int, double> masses;
  std::unordered_map<long long, std::size_t> index;  // id -> position
  std::vector<bool> has_vel;
  std::size_t nvel = 0;
  static const char* kBoxKey[3][2] = {{"xlo", "xhi"}, {"ylo", "yhi"}, {"zlo", "zhi"}};

  // Checks made once the header is complete (at the first section or the end of the file).
  auto finish_header = [&](long line) {
    if (natoms_decl < 0) p.fail(line, "the header does not declare the number of atoms ('N atoms')");
    if (atoms.ntypes < 1) p.fail(line, "the header does not declare 'N atom types' (N >= 1)");
    for (int d = 0; d < 3; ++d)
      if (!box_seen[d])
        p.fail(line, std::string("the header has no '") + kBoxKey[d][0] + " " + kBoxKey[d][1] + "' line");
  };

  std::string raw;
  long lineno = 0;
  while (std::getline(in, raw)) {
    ++lineno;
    if (lineno == 1) continue;  // title line
    const auto hash = raw.find('#');
    const std::string comment = hash == std::string::npos ? std::string() : trim(raw.substr(hash + 1));
    const std::vector<std::string> tok = split(hash == std::string::npos ? raw : raw.substr(0, hash));
    if (tok.empty()) continue;

    // A line starting with a letter is a section keyword.
    if (std::isalpha(static_cast<unsigned char>(tok[0][0]))) {
      const std::string& key = tok[0];
      if (tok.size() != 1) p.fail(lineno, "unexpected text after section keyword '" + key + "'");
      if (key != "Masses" && key != "Atoms" && key != "Velocities")
        p.fail(lineno, "unknown section '" + key + "' (atom style atomic supports Masses, Atoms, Velocities)");
      if (section == Section::header) finish_header(lineno);
      if (key == "Masses") {
        if (masses_line) p.fail(lineno, "second Masses section (first at line " + std::to_string(masses_line) + ")");
        masses_line = lineno;
        section = Section::masses;
      } else if (key == "Atoms") {
        if (atoms_line) p.fail(lineno, "second Atoms section (first at line " + std::to_string(atoms_line) + ")");
        // The hint may be blank to split() though not to trim() (a vertical tab, say): no words, no style.
        const std::vector<std::string> hint = split(comment);
        if (!hint.empty() && hint[0] != "atomic")
          p.fail(lineno, "atom style '" + hint[0] + "' in the Atoms section hint is not supported (only atomic)");
        atoms_line = lineno;
        section = Section::atoms;
      } else {
        if (velocities_line)
          p.fail(lineno, "second Velocities section (first at line " + std::to_string(velocities_line) + ")");
        if (!atoms_line) p.fail(lineno, "Velocities section before the Atoms section");
        velocities_line = lineno;
        section = Section::velocities;
        has_vel.assign(atoms.natoms(), false);
        atoms.has_velocities = true;
      }
      continue;
    }

    switch (section) {
      case Section::header: {
        if (tok.size() == 2 && tok[1] == "atoms") {
          natoms_decl = p.integer(lineno, tok[0], "the number of atoms");
          if (natoms_decl < 0) p.fail(lineno, "negative number of atoms " + tok[0]);
          natoms_line = lineno;
        } else if (tok.size() == 3 && tok[1] == "atom" && tok[2] == "types") {
          atoms.ntypes = p.small_int(lineno, tok[0], "the number of atom types");
          if (atoms.ntypes < 1) p.fail(lineno, "the number of atom types must be >= 1, got " + tok[0]);
        } else if (tok.size() == 6 && tok[3] == "xy" && tok[4] == "xz" && tok[5] == "yz") {
          p.fail(lineno, "triclinic boxes ('xy xz yz') are not supported");
        } else {
          bool matched = false;
          for (int d = 0; d < 3 && !matched; ++d) {
            if (tok.size() == 4 && tok[2] == kBoxKey[d][0] && tok[3] == kBoxKey[d][1]) {
              const std::string what = std::string(kBoxKey[d][0]) + " " + kBoxKey[d][1];
              atoms.lo[d] = p.real(lineno, tok[0], what);
              atoms.hi[d] = p.real(lineno, tok[1], what);
              if (!(atoms.hi[d] > atoms.lo[d])) p.fail(lineno, what + ": the upper bound must exceed the lower bound");
              box_seen[d] = true;
              matched = true;
            }
          }
          if (!matched) p.fail(lineno, "unrecognised header line '" + trim(raw) + "'");
        }
        break;
      }
      case Section::masses: {
        if (tok.size() != 2) p.fail(lineno, "expected 2 columns in Masses, got " + std::to_string(tok.size()));
        const int t = p.small_int(lineno, tok[0], "the atom type in Masses");
        if (t < 1 || t > atoms.ntypes)
          p.fail(lineno, "atom type " + tok[0] + " in Masses is outside 1.." + std::to_string(atoms.ntypes));
        if (masses.count(t)) p.fail(lineno, "second mass for atom type " + tok[0]);
        const double m = p.real(lineno, tok[1], "the mass");
        if (!(m > 0.0)) p.fail(lineno, "the mass of atom type " + tok[0] + " must be positive, got " + tok[1]);
        masses[t] = m;
        break;
      }
      case Section::atoms: {
        if (tok.size() != 5 && tok.size() != 8)
          p.fail(lineno, "expected 5 or 8 columns in Atoms (atomic), got " + std::to_string(tok.size()));
        const long long id = p.integer(lineno, tok[0], "the atom id");
        if (id < 1) p.fail(lineno, "atom id " + tok[0] + " must be >= 1");
        const int t = p.small_int(lineno, tok[1], "the atom type");
        if (t < 1 || t > atoms.ntypes)
          p.fail(lineno, "atom type " + tok[1] + " is outside 1.." + std::to_string(atoms.ntypes));
        const auto prev = index.find(id);
        if (prev != index.end()) p.fail(lineno, "duplicate atom id " + tok[0]);
        if (static_cast<long long>(atoms.natoms()) >= natoms_decl)
          p.fail(lineno, "more atoms than the " + std::to_string(natoms_decl) + " declared at line " +
                             std::to_string(natoms_line));
        std::array<double, 3> x{};
        for (int c = 0; c < 3; ++c) x[c] = p.real(lineno, tok[2 + c], std::string("coordinate ") + "xyz"[c]);
        index.emplace(id, atoms.natoms());
        atoms.add_atom(id, t, x);
        if (tok.size() == 8) {
          for (int c = 0; c < 3; ++c) {
            // Bounded well inside int, so that an atom crossing the box again cannot overflow its flag.
            const int im = p.small_int(lineno, tok[5 + c], std::string("image flag i") + "xyz"[c]);
            if (im < -kMaxImage || im > kMaxImage)
              p.fail(lineno, std::string("image flag i") + "xyz"[c] + " " + tok[5 + c] + " is out of range (|i| <= " +
                                 std::to_string(kMaxImage) + ")");
            atoms.image.back()[c] = im;
          }
        }
        break;
      }
      case Section::velocities: {
        if (tok.size() != 4) p.fail(lineno, "expected 4 columns in Velocities, got " + std::to_string(tok.size()));
        const long long id = p.integer(lineno, tok[0], "the atom id");
        const auto it = index.find(id);
        if (it == index.end()) p.fail(lineno, "Velocities for unknown atom id " + tok[0]);
        if (has_vel[it->second]) p.fail(lineno, "second velocity for atom id " + tok[0]);
        for (int c = 0; c < 3; ++c)
          atoms.v[it->second][c] = p.real(lineno, tok[1 + c], std::string("velocity v") + "xyz"[c]);
        has_vel[it->second] = true;
        ++nvel;
        break;
      }
    }
  }
  if (in.bad()) p.fail(lineno, "read error");

  if (section == Section::header) finish_header(lineno);
  if (static_cast<long long>(atoms.natoms()) != natoms_decl) {
    if (!atoms_line)
      p.fail(lineno, "no Atoms section, but the header declares " + std::to_string(natoms_decl) + " atoms at line " +
                         std::to_string(natoms_line));
    p.fail(atoms_line, "the Atoms section has " + std::to_string(atoms.natoms()) + " atoms, but the header declares " +
                           std::to_string(natoms_decl) + " at line " + std::to_string(natoms_line));
  }
  if (masses.size() != static_cast<std::size_t>(atoms.ntypes)) {  // name the first type without a mass
    int t = 1;
    while (masses.count(t)) ++t;
    if (!masses_line) p.fail(lineno, "no Masses section (no mass for atom type " + std::to_string(t) + ")");
    p.fail(masses_line, "no mass for atom type " + std::to_string(t) + " in the Masses section");
  }
  atoms.mass.assign(static_cast<std::size_t>(atoms.ntypes) + 1, 0.0);
  for (const auto& tm : masses) atoms.mass[static_cast<std::size_t>(tm.first)] = tm.second;
  if (velocities_line && nvel != atoms.natoms()) {
    for (std::size_t i = 0; i < atoms.natoms(); ++i)
      if (!has_vel[i])
        p.fail(velocities_line, "the Velocities section has no entry for atom id " + std::to_string(atoms.id[i]));
  }
  return atoms;
}

void write_lammps_data(const std::string& path, const AtomData& atoms) {
  const std::size_t n = atoms.natoms();
  STRATUS_REQUIRE(atoms.type.size() == n && atoms.x.size() == n && atoms.v.size() == n && atoms.image.size() == n,
                  "AtomData per-atom arrays have inconsistent sizes");
  STRATUS_REQUIRE(atoms.ntypes >= 1 && atoms.mass.size() == static_cast<std::size_t>(atoms.ntypes) + 1,
                  "AtomData has " << atoms.ntypes << " types but " << atoms.mass.size() << " mass entries");
  const std::string tmp = path + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) throw Error("cannot open '" + tmp + "' for writing: " + std::strerror(errno));

  std::fprintf(f, "LAMMPS data file via write_data (Stratus), atom style atomic\n\n");
  std::fprintf(f, "%zu atoms\n%d atom types\n\n", n, atoms.ntypes);
  static const char* kBox[3] = {"xlo xhi", "ylo yhi", "zlo zhi"};
  for (int d = 0; d < 3; ++d) std::fprintf(f, "%.17g %.17g %s\n", atoms.lo[d], atoms.hi[d], kBox[d]);
  std::fprintf(f, "\nMasses\n\n");
  for (int t = 1; t <= atoms.ntypes; ++t) std::fprintf(f, "%d %.17g\n", t, atoms.mass[static_cast<std::size_t>(t)]);
  std::fprintf(f, "\nAtoms # atomic\n\n");
  for (std::size_t i = 0; i < n; ++i)
    std::fprintf(f, "%lld %d %.17g %.17g %.17g %d %d %d\n", atoms.id[i], atoms.type[i], atoms.x[i][0], atoms.x[i][1],
                 atoms.x[i][2], atoms.image[i][0], atoms.image[i][1], atoms.image[i][2]);
  if (atoms.has_velocities) {
    std::fprintf(f, "\nVelocities\n\n");
    for (std::size_t i = 0; i < n; ++i)
      std::fprintf(f, "%lld %.17g %.17g %.17g\n", atoms.id[i], atoms.v[i][0], atoms.v[i][1], atoms.v[i][2]);
  }
  errno = 0;
  bool ok = std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0 && !std::ferror(f);
  int err = ok ? 0 : errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    throw Error("write error on '" + tmp + "'" + (err ? std::string(": ") + std::strerror(err) : std::string()));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    std::remove(tmp.c_str());
    throw Error("cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(err));
  }
}

}  // namespace stratus::md
