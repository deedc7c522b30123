// LAMMPS data files (atom styles atomic and charge): a strict reader that names the file and line of every problem,
// and a writer of the same format (declared in md_setup.hpp).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>
#include <type_traits>
#include <unordered_map>

#include "core/error.hpp"
#include "core/shortest_double.hpp"
#include "io/posix_io.hpp"
#include "md/md_setup.hpp"

namespace stratus::md {

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
  enum class Style { unknown, atomic, charge };  // from the Atoms hint, else from the first Atoms line
  Style style = Style::unknown;
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
        p.fail(lineno, "unknown section '" + key + "' (supported: Masses, Atoms, Velocities)");
      if (section == Section::header) finish_header(lineno);
      if (key == "Masses") {
        if (masses_line) p.fail(lineno, "second Masses section (first at line " + std::to_string(masses_line) + ")");
        masses_line = lineno;
        section = Section::masses;
      } else if (key == "Atoms") {
        if (atoms_line) p.fail(lineno, "second Atoms section (first at line " + std::to_string(atoms_line) + ")");
        // The hint may be blank to split() though not to trim() (a vertical tab, say): no words, no style.
        const std::vector<std::string> hint = split(comment);
        if (!hint.empty() && hint[0] != "atomic" && hint[0] != "charge")
          p.fail(lineno, "atom style '" + hint[0] + "' in the Atoms section hint is not supported (atomic or charge)");
        if (!hint.empty()) style = hint[0] == "charge" ? Style::charge : Style::atomic;
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
        if (style == Style::unknown) {
          if (tok.size() == 6 || tok.size() == 9) style = Style::charge;
          if (tok.size() == 5 || tok.size() == 8) style = Style::atomic;
        }
        const bool charged = style == Style::charge;
        const std::size_t c0 = charged ? 3 : 2;  // first coordinate column
        if (tok.size() != c0 + 3 && tok.size() != c0 + 6)
          p.fail(lineno, std::string("expected ") + (charged ? "6 or 9 columns in Atoms (charge: id type q x y z" :
                                                               "5 or 8 columns in Atoms (atomic: id type x y z") +
                             " [ix iy iz]), got " + std::to_string(tok.size()));
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
        for (std::size_t c = 0; c < 3; ++c) x[c] = p.real(lineno, tok[c0 + c], std::string("coordinate ") + "xyz"[c]);
        index.emplace(id, atoms.natoms());
        atoms.add_atom(id, t, x);
        if (charged) {
          atoms.q.back() = p.real(lineno, tok[2], "the charge");
          atoms.has_charges = true;
        }
        if (tok.size() == c0 + 6) {
          for (std::size_t c = 0; c < 3; ++c) {
            // Bounded well inside int, so that an atom crossing the box again cannot overflow its flag.
            const int im = p.small_int(lineno, tok[c0 + 3 + c], std::string("image flag i") + "xyz"[c]);
            if (im < -kMaxImage || im > kMaxImage)
              p.fail(lineno, std::string("image flag i") + "xyz"[c] + " " + tok[c0 + 3 + c] +
                                 " is out of range (|i| <= " + std::to_string(kMaxImage) + ")");
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

namespace data_text {

namespace {

template <class T>
char* put(char* out, T v) {
  // The values that end a line are within its bound (kAtomLineMax, kVelocityLineMax), so the 32 bytes
  // given here may pass the end of the caller's buffer only by the slack it keeps (kLineSlack). Doubles
  // as std::to_chars writes them, in about two thirds of its time (core/shortest_double.hpp).
  if constexpr (std::is_same_v<T, double>)
    out = to_chars_shortest(out, v);
  else
    out = std::to_chars(out, out + 32, v).ptr;
  *out = ' ';
  return out + 1;
}

}  // namespace

std::string head(const AtomData& meta, std::size_t natoms) {
  STRATUS_REQUIRE(meta.ntypes >= 1 && meta.mass.size() == static_cast<std::size_t>(meta.ntypes) + 1,
                  "AtomData has " << meta.ntypes << " types but " << meta.mass.size() << " mass entries");
  const bool charged = meta.has_charges;
  std::string out;
  char line[160];
  const auto add = [&](int n) { out.append(line, static_cast<std::size_t>(std::min<int>(n, sizeof line - 1))); };
  add(std::snprintf(line, sizeof line, "LAMMPS data file via write_data (Stratus), atom style %s\n\n",
                    charged ? "charge" : "atomic"));
  add(std::snprintf(line, sizeof line, "%zu atoms\n%d atom types\n\n", natoms, meta.ntypes));
  static const char* kBox[3] = {"xlo xhi", "ylo yhi", "zlo zhi"};
  for (int d = 0; d < 3; ++d)
    add(std::snprintf(line, sizeof line, "%.17g %.17g %s\n", meta.lo[d], meta.hi[d], kBox[d]));
  out += "\nMasses\n\n";
  for (int t = 1; t <= meta.ntypes; ++t)
    add(std::snprintf(line, sizeof line, "%d %.17g\n", t, meta.mass[static_cast<std::size_t>(t)]));
  out += charged ? "\nAtoms # charge\n\n" : "\nAtoms # atomic\n\n";
  return out;
}

char* atom_line(char* out, long long id, int type, const double* q, const double x[3], const int image[3]) {
  out = put(out, id);
  out = put(out, type);
  if (q) out = put(out, *q);
  for (int d = 0; d < 3; ++d) out = put(out, x[d]);
  for (int d = 0; d < 3; ++d) out = put(out, image[d]);
  out[-1] = '\n';
  return out;
}

char* velocity_line(char* out, long long id, const double v[3]) {
  out = put(out, id);
  for (int d = 0; d < 3; ++d) out = put(out, v[d]);
  out[-1] = '\n';
  return out;
}

}  // namespace data_text

void write_lammps_data(const std::string& path, const AtomData& atoms) {
  const std::size_t n = atoms.natoms();
  STRATUS_REQUIRE(atoms.type.size() == n && atoms.x.size() == n && atoms.v.size() == n && atoms.image.size() == n,
                  "AtomData per-atom arrays have inconsistent sizes");
  const bool charged = atoms.has_charges;
  STRATUS_REQUIRE(!charged || atoms.q.size() == n, "AtomData has charges for " << atoms.q.size() << " of " << n
                                                                                << " atoms");
  std::string text = data_text::head(atoms, n);
  const std::string tmp = path + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error("cannot open '" + tmp + "' for writing: " + std::strerror(errno));
  // Written in pieces of about 1 MiB as they are formatted. Renamed into place when complete, but not
  // fsynced: no restart needs it (docs/output.md, "Durability"), and syncing 35 MB (256k atoms) cost more
  // than formatting them.
  constexpr std::size_t kPiece = 1 << 20;
  int err = 0;
  const auto flush = [&](bool always) {
    if (err == 0 && (always || text.size() >= kPiece)) {
      err = posix_io::write_all(fd, text.data(), text.size());
      text.clear();
    }
  };
  char line[data_text::kAtomLineMax + data_text::kLineSlack];
  for (std::size_t i = 0; i < n; ++i) {
    text.append(line, data_text::atom_line(line, atoms.id[i], atoms.type[i], charged ? &atoms.q[i] : nullptr,
                                           atoms.x[i].data(), atoms.image[i].data()));
    flush(false);
  }
  if (atoms.has_velocities) {
    text += data_text::kVelocitiesHeading;
    for (std::size_t i = 0; i < n; ++i) {
      text.append(line, data_text::velocity_line(line, atoms.id[i], atoms.v[i].data()));
      flush(false);
    }
  }
  flush(true);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    throw Error("write error on '" + tmp + "': " + std::strerror(err));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    throw Error("cannot rename '" + tmp + "' to '" + path + "': " + std::strerror(err));
  }
}

}  // namespace stratus::md
