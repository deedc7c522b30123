stratus_add_test(test_h5md SOURCES test_h5md.cpp NP 1 2 4 LABELS io)
# MDAnalysis reads what the writer wrote (two ranks): skipped (77) when python3-mdanalysis is missing.
# Debian's interpreter first: python3-mdanalysis installs there.
find_program(STRATUS_H5MD_PYTHON3 python3 HINTS /usr/bin)
if(STRATUS_H5MD_PYTHON3)
  set(_h5md_check ${STRATUS_H5MD_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/h5md_mdanalysis.py)
  add_test(NAME h5md_mdanalysis
           COMMAND bash -c "rm -rf h5md_mdanalysis && \"$0\" ${MPIEXEC_NUMPROC_FLAG} 2 \"$1\" '[mdanalysis]' && \
\"$2\" \"$3\" h5md_mdanalysis/nm.h5md 1000 h5md_mdanalysis/nm.json && \
\"$2\" \"$3\" h5md_mdanalysis/lj.h5md 1000 h5md_mdanalysis/lj.json; rc=$?; \
[ $rc -ne 77 ] && [ $rc -ne 0 ] || rm -rf h5md_mdanalysis; exit $rc"
                   ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:test_h5md> ${_h5md_check})
  set_tests_properties(h5md_mdanalysis PROPERTIES ENVIRONMENT "${STRATUS_TEST_ENV}" PROCESSORS 2 TIMEOUT 300
                                                  SKIP_RETURN_CODE 77 LABELS "mpi;io;python")
endif()
