// The hidden "[mdanalysis]" case of test_h5md: it writes H5MD files and the expectations
// tests/h5md_mdanalysis.py checks them against (CTest's h5md_mdanalysis). The synthetic frames are
// h5md_test.hpp's (namespace h5md_test).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "h5md_test.hpp"
#include "io/h5md.hpp"
#include "mpi_world.hpp"

using stratus::test::world_rank;
using namespace h5md_test;
namespace fs = std::filesystem;

namespace {

/// The expectations tests/h5md_mdanalysis.py checks: frames, times, box and a few atoms (in file units).
void write_expectations(const std::string& path, const std::string& group, bool convert_units) {
  std::ofstream out(path);
  out.precision(17);
  out << "{\n  \"group\": \"" << group << "\",\n  \"convert_units\": " << (convert_units ? "true" : "false")
      << ",\n  \"length_scale\": " << (convert_units ? 10.0 : 1.0) << ",\n  \"n_frames\": 3,\n  \"times\": [";
  for (int k = 0; k < 3; ++k) out << (k ? ", " : "") << time_of(k);
  out << "],\n  \"box\": [" << length(0) << ", " << length(1) << ", " << length(2) << "],\n  \"atoms\": {";
  const long long sample[] = {1, 2, 500, 999, 1000};
  for (std::size_t s = 0; s < 5; ++s) {
    const long long id = sample[s];
    out << (s ? ",\n" : "\n") << "    \"" << id - 1 << "\": {\"position\": [";
    for (int k = 0; k < 3; ++k) {
      out << (k ? ", " : "") << "[" << stored(id, k, 0) << ", " << stored(id, k, 1) << ", " << stored(id, k, 2) << "]";
    }
    out << "], \"velocity\": [";
    for (int k = 0; k < 3; ++k) {
      out << (k ? ", " : "") << "[" << velocity(id, k, 0) << ", " << velocity(id, k, 1) << ", " << velocity(id, k, 2)
          << "]";
    }
    out << "]}";
  }
  out << "\n  }\n}\n";
}

}  // namespace

TEST_CASE("H5MD files for MDAnalysis", "[.mdanalysis]") {
  // Physical units in the group MDAnalysis builds a Universe from directly, and reduced units in the
  // default group; the directory is removed by the CTest command after the Python checks.
  const fs::path dir = "h5md_mdanalysis";
  if (world_rank() == 0) fs::create_directories(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  for (const bool physical : {true, false}) {
    stratus::H5mdSpec spec = make_spec(physical);
    spec.particle_group = physical ? "trajectory" : "all";
    const std::string name = physical ? "nm" : "lj";
    stratus::H5mdWriter writer(MPI_COMM_WORLD, (dir / (name + ".h5md")).string(), spec);
    write_frames(writer, 3);
    if (world_rank() == 0) write_expectations((dir / (name + ".json")).string(), spec.particle_group, physical);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}
