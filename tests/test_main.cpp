// Catch2 main shared by every test executable: one stratus::Runtime (MPI + Kokkos) around the session,
// and a failure on any rank fails the run on every rank.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

#include "core/runtime.hpp"
#include "io/hdf5_util.hpp"

int main(int argc, char** argv) {
  int result = 0;
  {
    stratus::Runtime rt(argc, argv);
    if (!rt.input_error().empty()) {
      if (rt.is_root()) std::fprintf(stderr, "error: %s\n", rt.input_error().c_str());
      return 2;
    }
    if (!rt.kokkos_ready()) return 1;  // no usable device: the reason is printed already
    // A test registered for N ranks (tests/CMakeLists.txt sets STRATUS_TEST_NP) must run on N ranks.
    if (const char* np = std::getenv("STRATUS_TEST_NP"); np && std::atoi(np) != rt.size()) {
      if (rt.is_root())
        std::fprintf(stderr, "test registered for %s rank(s) runs on %d: is the launcher MPICH's?\n", np, rt.size());
      return 1;
    }
    Catch::Session session;
    result = session.run(argc, argv);
    int worst = 0;
    MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, rt.comm());
    result = worst;
    // As the executable does (src/main.cpp): after a failed write a file was abandoned, and finalising
    // HDF5 with it open crashes. (The durability test abandons one on purpose.)
    int abandoned = stratus::h5::abandoned() ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &abandoned, 1, MPI_INT, MPI_MAX, rt.comm());
    if (abandoned) {
      std::fflush(nullptr);
      std::_Exit(result);
    }
  }
  return result;
}
