// libFuzzer target for LAMMPS data files: the input is written to one temporary file per process
// (reused; in /dev/shm when there is one, else $TMPDIR or /tmp; removed at exit) and read with
// stratus::md::read_lammps_data. Bad input must throw stratus::InputError; anything else is a finding:
// another exception (reported, then abort), a sanitizer report, a hang or unbounded memory. A file that
// is accepted must hold what md_setup.hpp promises of an AtomData (consistent per-atom arrays, ids >= 1
// and unique, types in 1..ntypes, mass.size() == ntypes + 1, finite numbers), and the kinetic energy and
// temperature helpers must accept it. This target does not write data files or build simulations.
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>
#include <unordered_set>

#include "core/error.hpp"
#include "md/md_setup.hpp"

namespace {

std::string g_path;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz_data_file: FINDING: %s\n", what.c_str());
  std::abort();
}

void remove_temp() { std::remove(g_path.c_str()); }

void check_atoms(const stratus::md::AtomData& a) {
  const std::size_t n = a.natoms();
  if (a.type.size() != n || a.x.size() != n || a.v.size() != n || a.image.size() != n)
    finding("accepted file gives per-atom arrays of different sizes");
  if (a.ntypes < 1 || a.mass.size() != static_cast<std::size_t>(a.ntypes) + 1)
    finding("accepted file gives ntypes " + std::to_string(a.ntypes) + " with " + std::to_string(a.mass.size()) +
            " mass entries");
  for (int t = 1; t <= a.ntypes; ++t)
    if (!(a.mass[static_cast<std::size_t>(t)] > 0.0) || !std::isfinite(a.mass[static_cast<std::size_t>(t)]))
      finding("accepted file gives type " + std::to_string(t) + " no positive finite mass");
  for (int d = 0; d < 3; ++d)
    if (!(a.hi[d] > a.lo[d]) || !std::isfinite(a.lo[d]) || !std::isfinite(a.hi[d]))
      finding("accepted file gives an empty or non-finite box");
  std::unordered_set<long long> ids;
  for (std::size_t i = 0; i < n; ++i) {
    if (a.id[i] < 1 || !ids.insert(a.id[i]).second) finding("accepted file gives a bad or repeated id");
    if (a.type[i] < 1 || a.type[i] > a.ntypes) finding("accepted file gives an atom type outside 1..ntypes");
    for (int c = 0; c < 3; ++c)
      if (!std::isfinite(a.x[i][c]) || !std::isfinite(a.v[i][c])) finding("accepted file gives a non-finite value");
  }
  (void)stratus::md::kinetic_energy(a);
  (void)stratus::md::temperature(a, true);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : std::getenv("TMPDIR");
  g_path = std::string(dir && *dir ? dir : "/tmp") + "/stratus-fuzz-data-" + std::to_string(getpid()) + ".data";
  std::atexit(remove_temp);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(g_path.c_str(), "wb");
  if (!f) finding("cannot write the temporary file " + g_path);
  if (size && std::fwrite(data, 1, size, f) != size) finding("short write to " + g_path);
  std::fclose(f);
  try {
    check_atoms(stratus::md::read_lammps_data(g_path));
  } catch (const stratus::InputError&) {
    return 0;
  } catch (const std::exception& e) {
    finding(std::string("read_lammps_data: ") + typeid(e).name() + ": " + e.what());
  }
  return 0;
}
