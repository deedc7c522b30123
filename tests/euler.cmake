stratus_add_test(test_euler SOURCES test_euler.cpp NP 1 2 4 LABELS euler)
# The long validation cases (hidden from the default run of the executable) at 1 and 2 ranks.
foreach(np 1 2)
  add_test(NAME test_euler_long_np${np}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} $<TARGET_FILE:test_euler> "[long]")
  set_tests_properties(test_euler_long_np${np} PROPERTIES ENVIRONMENT "${STRATUS_TEST_ENV}" PROCESSORS ${np}
                                                          TIMEOUT 600 LABELS "mpi;euler;long")
endforeach()
