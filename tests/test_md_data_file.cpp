// Unit tests of the LAMMPS data files of the molecular-dynamics set-up (physics/md/md_setup.*): the
// round trip (bit-exact, atom styles atomic and charge), the bound a line's text is reserved by, a
// hand-written file in write_data's layout, and every InputError path of the reader. One rank, well under
// a second. Built into test_md_setup.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <system_error>
#include <utility>

#include "core/error.hpp"
#include "md/md_setup.hpp"
#include "md_setup_test.hpp"

using Catch::Matchers::Contains;
using stratus::InputError;
using stratus::test::same_bits;

namespace {

namespace fs = std::filesystem;

// A fresh temporary directory per test case, removed at scope exit.
struct TempDir {
  fs::path dir;
  TempDir() {
    dir = fs::temp_directory_path() / ("stratus_md_setup_" + std::to_string(::getpid()) + "_" + std::to_string(next()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  static int next() {
    static int n = 0;
    return n++;
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = (dir / name).string();
    std::ofstream(p) << text;
    return p;
  }
};

// The message of the InputError that reading `text` throws; fails when none is thrown.
std::string read_error(const TempDir& tmp, const std::string& text) {
  const std::string path = tmp.write("bad.data", text);
  try {
    stratus::md::read_lammps_data(path);
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("expected an InputError for data file:\n" << text);
  return {};
}

const char* kHeader =
    "LAMMPS data file via write_data, version 2 Aug 2023, timestep = 0, units = lj\n"
    "\n"
    "3 atoms\n"
    "2 atom types\n"
    "\n"
    "0.0000000000000000e+00 5.0000000000000000e+00 xlo xhi\n"
    "-1.0000000000000000e+00 4.0000000000000000e+00 ylo yhi\n"
    "0.0000000000000000e+00 6.0000000000000000e+00 zlo zhi\n";  // lines 1-8

}  // namespace

TEST_CASE("LAMMPS data file round trip is bit-exact", "[md]") {
  const TempDir tmp;
  auto a = stratus::md::make_lattice("bcc", 1.1, true, {3, 3, 2}, 2, 39.948);
  a.mass[1] = 1.0 / 3.0;
  a.type[5] = 1;
  a.lo = {-0.1, -1.0 / 7.0, 1e-300};
  a.image[3] = {-1, 2, 0};
  a.image[7] = {0, 0, -123};
  std::swap(a.id[0], a.id[10]);  // ids need not be in order
  a.x[2][1] = -0.0;
  stratus::md::create_velocities(a, 2.0 / 3.0, 42, true);
  const std::string path = (tmp.dir / "rt.data").string();
  stratus::md::write_lammps_data(path, a);
  // No temporary left behind.
  int files = 0;
  for (const auto& e : fs::directory_iterator(tmp.dir)) {
    (void)e;
    ++files;
  }
  CHECK(files == 1);

  const auto b = stratus::md::read_lammps_data(path);
  REQUIRE(b.natoms() == a.natoms());
  CHECK(b.ntypes == a.ntypes);
  REQUIRE(b.mass.size() == a.mass.size());
  for (std::size_t t = 1; t < a.mass.size(); ++t) CHECK(same_bits(b.mass[t], a.mass[t]));
  for (int d = 0; d < 3; ++d) {
    CHECK(same_bits(b.lo[d], a.lo[d]));
    CHECK(same_bits(b.hi[d], a.hi[d]));
  }
  CHECK(b.has_velocities);
  for (std::size_t i = 0; i < a.natoms(); ++i) {
    REQUIRE(b.id[i] == a.id[i]);
    REQUIRE(b.type[i] == a.type[i]);
    for (int c = 0; c < 3; ++c) {
      REQUIRE(same_bits(b.x[i][c], a.x[i][c]));
      REQUIRE(same_bits(b.v[i][c], a.v[i][c]));
      REQUIRE(b.image[i][c] == a.image[i][c]);
    }
  }

  // Overwriting an existing file also goes through the rename; without velocities none are written.
  auto c = a;
  c.has_velocities = false;
  stratus::md::write_lammps_data(path, c);
  const auto d = stratus::md::read_lammps_data(path);
  CHECK_FALSE(d.has_velocities);
  CHECK(d.natoms() == a.natoms());

  // Device copy.
  const auto views = stratus::md::copy_to_device(a);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), views.x);
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), views.v);
  auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), views.type);
  auto hi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), views.id);
  REQUIRE(hx.extent(0) == a.natoms());
  for (std::size_t i = 0; i < a.natoms(); ++i) {
    CHECK(hi(i) == a.id[i]);
    CHECK(ht(i) == a.type[i]);
    for (int c = 0; c < 3; ++c) {
      CHECK(same_bits(hx(i, c), a.x[i][c]));
      CHECK(same_bits(hv(i, c), a.v[i][c]));
    }
  }
}

TEST_CASE("a data file line never outgrows the bound its text is reserved by", "[md]") {
  // The longest numbers each field can take: 24 characters of a double, 20 of a long long, 11 of an int.
  namespace dt = stratus::md::data_text;
  const double wide[] = {-2.2250738585072014e-308, -1.7976931348623157e308, -4.9406564584124654e-324,
                         -0.1234567890123456789, -1.0 / 3.0};
  const long long id = std::numeric_limits<long long>::min();
  const int type = std::numeric_limits<int>::min();
  std::size_t atom_most = 0, velocity_most = 0;
  for (const double a : wide) {
    const double x[3] = {a, a, a};
    const int image[3] = {type, type, type};
    char line[dt::kAtomLineMax + dt::kLineSlack];
    atom_most = std::max(atom_most, static_cast<std::size_t>(dt::atom_line(line, id, type, &a, x, image) - line));
    velocity_most = std::max(velocity_most, static_cast<std::size_t>(dt::velocity_line(line, id, x) - line));
  }
  CHECK(atom_most == dt::kAtomLineMax);  // the bound is reached: it is neither loose nor short
  CHECK(velocity_most == dt::kVelocityLineMax);
}

TEST_CASE("A hand-written file in write_data's layout parses", "[md]") {
  const TempDir tmp;
  const std::string text = std::string(kHeader) +
                           "\n"
                           "Masses\n"
                           "\n"
                           "1 1.0000000000000000e+00\n"
                           "2 39.948 # Ar\n"
                           "\n"
                           "Atoms # atomic\n"
                           "\n"
                           "3 2 4.9000000000000004e+00 1.2345678901234567e+00 5.9999999999999991e+00 0 -1 2\n"
                           "1 1 0.0 0.0 0.0 0 0 0\n"
                           "\n"
                           "# a comment between atoms\n"
                           "2 1 1.0 2.0 3.0\n"
                           "\n"
                           "Velocities\n"
                           "\n"
                           "1 0.1 0.2 0.3\n"
                           "3 -1.2345678901234567e-03 0 1e-5\n"
                           "2 0 0 0\n";
  const auto a = stratus::md::read_lammps_data(tmp.write("hand.data", text));
  REQUIRE(a.natoms() == 3);
  CHECK(a.ntypes == 2);
  CHECK(a.mass[1] == 1.0);
  CHECK(a.mass[2] == 39.948);
  CHECK(a.lo[1] == -1.0);
  CHECK(a.hi[2] == 6.0);
  CHECK(a.id[0] == 3);
  CHECK(a.type[0] == 2);
  CHECK(a.x[0][0] == 4.9000000000000004);
  CHECK(a.x[0][1] == 1.2345678901234567);
  CHECK(a.x[0][2] == 5.9999999999999991);
  CHECK(a.image[0] == std::array<int, 3>{0, -1, 2});
  CHECK(a.image[2] == std::array<int, 3>{0, 0, 0});
  CHECK(a.x[2][2] == 3.0);
  CHECK(a.has_velocities);
  CHECK(a.v[0][0] == -1.2345678901234567e-03);
  CHECK(a.v[0][2] == 1e-5);
  CHECK(a.v[1][1] == 0.2);
}

TEST_CASE("Data file errors name the file and the line", "[md]") {
  const TempDir tmp;
  const std::string masses = "\nMasses\n\n1 1.0\n2 2.0\n";  // lines 9-13 (keyword: 10)
  const std::string atoms =
      "\nAtoms # atomic\n\n1 1 0 0 0\n2 2 1 1 1\n3 1 2 2 2\n";  // lines 14-19 (keyword: 15); Velocities keyword: 21
  auto err = [&](const std::string& text, const std::string& line, const std::string& what) {
    const std::string msg = read_error(tmp, text);
    CHECK_THAT(msg, Contains("bad.data") && Contains("line " + line + ":") && Contains(what));
  };

  // Sanity: the base file is valid.
  CHECK(stratus::md::read_lammps_data(tmp.write("ok.data", kHeader + masses + atoms)).natoms() == 3);

  CHECK_THROWS_WITH(stratus::md::read_lammps_data((tmp.dir / "missing.data").string()),
                    Contains("missing.data") && Contains("cannot open"));
  err(std::string(kHeader) + "0.1 0.2 0.3 xy xz yz\n", "9", "triclinic");
  err(std::string(kHeader) + "5 bonds\n", "9", "unrecognised header");
  err(std::string(kHeader) + masses + "\nBonds\n", "15", "unknown section 'Bonds'");
  err(std::string(kHeader) + masses + "\nAtoms # full\n\n1 1 0 0 0\n", "15", "atom style 'full'");
  err(std::string(kHeader) + masses + "\nAtoms\n\n1 1 0 0\n", "17",
      "expected 5 or 8 columns in Atoms (atomic: id type x y z [ix iy iz]), got 4");
  err(std::string(kHeader) + masses + "\nAtoms\n\n1 1 0 0 0 0 0\n", "17", "got 7");
  err(std::string(kHeader) + masses + "\nAtoms\n\n1 1 0 abc 0\n", "17", "'abc'");
  err(std::string(kHeader) + masses + "\nAtoms\n\n1 1 0 1.5x 0\n", "17", "'1.5x'");
  err(std::string(kHeader) + masses + "\nAtoms\n\n1 1.5 0 0 0\n", "17", "'1.5'");
  err(std::string(kHeader) + masses + "\nAtoms\n\n1 1 0 0 0 0 0.5 0\n", "17", "image flag");
  err(std::string(kHeader) + masses + "\nAtoms\n\n1 1 0 0 0\n2 1 0 0 0\n1 2 0 0 0\n", "19", "duplicate atom id 1");
  err(std::string(kHeader) + masses + "\nAtoms\n\n1 3 0 0 0\n", "17", "atom type 3 is outside 1..2");
  err(std::string(kHeader) + masses + "\nAtoms\n\n1 0 0 0 0\n", "17", "atom type 0");
  err(std::string(kHeader) + masses + "\nAtoms\n\n0 1 0 0 0\n", "17", "atom id 0");
  err(std::string(kHeader) + masses + "\nAtoms\n\n1 1 0 0 0\n2 1 0 0 0\n", "15",
      "the Atoms section has 2 atoms, but the header declares 3 at line 3");
  err(std::string(kHeader) + masses + "\nAtoms\n\n1 1 0 0 0\n2 1 0 0 0\n3 1 0 0 0\n4 1 0 0 0\n", "20",
      "more atoms than the 3 declared");
  err(std::string(kHeader) + masses, "13", "no Atoms section");
  err(std::string(kHeader) + "\nMasses\n\n1 1.0\n" + atoms, "10", "no mass for atom type 2");
  err(std::string(kHeader) + atoms, "14", "no Masses section");
  err(std::string(kHeader) + "\nMasses\n\n1 1.0\n3 1.0\n", "13", "atom type 3 in Masses");
  err(std::string(kHeader) + "\nMasses\n\n1 -1.0\n", "12", "must be positive");
  err(std::string(kHeader) + "\nMasses\n\n1 1.0 2.0\n", "12", "expected 2 columns in Masses, got 3");
  err(kHeader + masses + atoms + "\nVelocities\n\n1 0 0 0\n7 0 0 0\n", "24", "Velocities for unknown atom id 7");
  err(kHeader + masses + atoms + "\nVelocities\n\n1 0 0\n", "23", "expected 4 columns in Velocities, got 3");
  err(kHeader + masses + atoms + "\nVelocities\n\n1 0 0 0\n2 0 0 0\n", "21",
      "the Velocities section has no entry for atom id 3");
  err(kHeader + masses + atoms + "\nVelocities\n\n1 0 0 0\n1 0 0 0\n", "24", "second velocity for atom id 1");
  err(std::string(kHeader) + "\nVelocities\n\n", "10", "Velocities section before the Atoms section");
  err("title\n3 atoms\n\nMasses\n", "4", "atom types");
  err("title\n3 atoms\n1 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n\nMasses\n", "7", "'zlo zhi'");
  err("title\nthree atoms\n", "2", "'three'");
  err("title\n3 atoms\n1 atom types\n1 0 xlo xhi\n", "4", "upper bound");
}

TEST_CASE("A data file's memory follows its length, not its declared type count", "[md]") {
  // Found by fuzzing (tests/fuzz/regressions/data/): a 100-byte file declaring 2^31 - 1 atom types made the
  // reader allocate per-type tables of 16 GB before looking at a single mass.
  const TempDir tmp;
  const std::string header = "title\n1 atoms\n2147483647 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n";
  const std::string msg = read_error(tmp, header + "\nMasses\n\n1 1.0\n3 1.0\n\nAtoms\n\n1 1 0.5 0.5 0.5\n");
  CHECK_THAT(msg, Contains("line 8:") && Contains("no mass for atom type 2 in the Masses section"));
  CHECK_THAT(read_error(tmp, header), Contains("no Atoms section"));
  // Masses still land at their types when every type has one.
  const std::string three = "title\n1 atoms\n3 atom types\n0 1 xlo xhi\n0 1 ylo yhi\n0 1 zlo zhi\n";
  const auto a = stratus::md::read_lammps_data(
      tmp.write("ok.data", three + "\nMasses\n\n3 3.5\n1 1.5\n2 2.5\n\nAtoms\n\n1 3 0.5 0.5 0.5\n"));
  REQUIRE(a.mass.size() == 4);
  CHECK(a.mass[1] == 1.5);
  CHECK(a.mass[2] == 2.5);
  CHECK(a.mass[3] == 3.5);
}

TEST_CASE("A blank Atoms hint is no atom style", "[md]") {
  // Found by fuzzing (tests/fuzz/regressions/data/): "Atoms # <vertical tab>" left a comment that trim() kept
  // but split() found no word in, and the style was read from an empty list.
  const TempDir tmp;
  const std::string head = std::string(kHeader) + "\nMasses\n\n1 1.0\n2 2.0\n";
  const std::string atoms = "\n\n1 1 0 0 0\n2 2 1 1 1\n3 1 2 2 2\n";
  for (const char* hint : {"Atoms #", "Atoms # \v", "Atoms #\f\v ", "Atoms # atomic"})
    CHECK(stratus::md::read_lammps_data(tmp.write("hint.data", head + "\n" + hint + atoms)).natoms() == 3);
  CHECK_THAT(read_error(tmp, head + "\nAtoms # \vfull\n" + atoms), Contains("atom style 'full'"));
}

TEST_CASE("Data files of atom style charge round trip bit-exactly and the style is recognised", "[md]") {
  const TempDir tmp;
  // A rock-salt block: two types on the two sublattices, charges +-(1/3) (not exact in decimal).
  auto a = stratus::md::make_lattice("rocksalt", 5.64, false, {2, 2, 1}, 1, 22.98977);
  REQUIRE(a.ntypes == 2);
  REQUIRE(a.natoms() == 32);
  for (std::size_t i = 0; i < a.natoms(); ++i) {
    CHECK(a.type[i] == (i % 8 < 4 ? 1 : 2));
    a.q[i] = a.type[i] == 1 ? 1.0 / 3.0 : -1.0 / 3.0;
  }
  a.q[5] = -0.0;
  a.has_charges = true;
  stratus::md::create_velocities(a, 300.0, 7, true);
  const std::string path = (tmp.dir / "charge.data").string();
  stratus::md::write_lammps_data(path, a);
  {
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK_THAT(text, Contains("Atoms # charge"));
  }
  const auto b = stratus::md::read_lammps_data(path);
  REQUIRE(b.natoms() == a.natoms());
  CHECK(b.has_charges);
  for (std::size_t i = 0; i < a.natoms(); ++i) {
    REQUIRE(same_bits(b.q[i], a.q[i]));
    REQUIRE(b.type[i] == a.type[i]);
    for (int c = 0; c < 3; ++c) REQUIRE(same_bits(b.x[i][c], a.x[i][c]));
  }
  // Without a hint the column count decides (6 or 9: charge; 5 or 8: atomic); a hint fixes the style.
  const std::string head = std::string(kHeader) + "\nMasses\n\n1 1.0\n2 2.0\n";
  const auto c = stratus::md::read_lammps_data(
      tmp.write("nohint.data", head + "\nAtoms\n\n1 1 0.5 0 0 0\n2 2 -0.5 1 1 1 0 0 1\n3 1 0 2 2 2\n"));
  CHECK(c.has_charges);
  CHECK(c.q[0] == 0.5);
  CHECK(c.q[1] == -0.5);
  CHECK(c.image[1][2] == 1);
  const auto d = stratus::md::read_lammps_data(
      tmp.write("atomic.data", head + "\nAtoms # atomic\n\n1 1 0 0 0\n2 2 1 1 1\n3 1 2 2 2\n"));
  CHECK_FALSE(d.has_charges);
  CHECK(d.q[2] == 0.0);
  CHECK_THAT(read_error(tmp, head + "\nAtoms # charge\n\n1 1 0 0 0\n"),
             Contains("line 17:") && Contains("expected 6 or 9 columns in Atoms (charge: id type q x y z"));
  CHECK_THAT(read_error(tmp, head + "\nAtoms # atomic\n\n1 1 0.5 0 0 0\n"),
             Contains("expected 5 or 8 columns in Atoms (atomic"));
  CHECK_THAT(read_error(tmp, head + "\nAtoms # charge\n\n1 1 x 0 0 0\n"), Contains("expected a number for the charge"));
}
