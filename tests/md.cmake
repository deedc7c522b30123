stratus_add_test(test_md SOURCES test_md.cpp NP 1 2 4 LABELS md)
target_compile_definitions(test_md PRIVATE STRATUS_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")
# The thermostat statistics (thousands of steps, hidden from the default run) at 1 and 2 ranks.
foreach(np 1 2)
  add_test(NAME test_md_long_np${np}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} $<TARGET_FILE:test_md> "[long]")
  set_tests_properties(test_md_long_np${np} PROPERTIES ENVIRONMENT "${STRATUS_TEST_ENV}" PROCESSORS ${np}
                                                       TIMEOUT 600 LABELS "mpi;md;long")
endforeach()
