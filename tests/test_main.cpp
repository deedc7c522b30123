// Catch2 main shared by every test executable: one stratus::Runtime (MPI + Kokkos) around the session,
// and a failure on any rank fails the run on every rank.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "core/runtime.hpp"

int main(int argc, char** argv) {
  int result = 0;
  {
    stratus::Runtime rt(argc, argv);
    if (!rt.kokkos_ready()) return 1;  // no usable device: the reason is printed already
    Catch::Session session;
    result = session.run(argc, argv);
    int worst = 0;
    MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, rt.comm());
    result = worst;
  }
  return result;
}
