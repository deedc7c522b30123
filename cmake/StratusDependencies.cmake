# Finds Stratus' dependencies and pins them to one MPI (MPICH on Debian) so that another MPI installed
# beside it (OpenMPI pulled in by lammps, paraview or mpi4py outranks MPICH in Debian's alternatives)
# changes nothing. Each wrapper can be overridden on the cmake command line.

# --- MPI: prefer the MPICH wrappers by their explicit names.
foreach(_w C CXX)
  string(TOLOWER "${_w}" _lw)
  if(_w STREQUAL "C")
    set(_name mpicc.mpich)
  else()
    set(_name mpicxx.mpich)
  endif()
  if(NOT MPI_${_w}_COMPILER)
    find_program(_stratus_mpi_${_lw} NAMES ${_name})
    if(_stratus_mpi_${_lw})
      set(MPI_${_w}_COMPILER "${_stratus_mpi_${_lw}}" CACHE FILEPATH "MPI ${_w} wrapper (pinned to MPICH)")
    endif()
  endif()
endforeach()
if(NOT MPIEXEC_EXECUTABLE)
  find_program(_stratus_mpiexec NAMES mpiexec.mpich)
  if(_stratus_mpiexec)
    set(MPIEXEC_EXECUTABLE "${_stratus_mpiexec}" CACHE FILEPATH "MPI launcher (pinned to MPICH)")
  endif()
endif()
find_package(MPI 3.0 REQUIRED COMPONENTS C CXX)
if(DEFINED MPI_CXX_LIBRARY_VERSION_STRING)
  message(STATUS "MPI library: ${MPI_CXX_LIBRARY_VERSION_STRING}")
endif()

# --- Parallel HDF5 built on the same MPI. Debian ships no hdf5-config.cmake: FindHDF5 asks h5pcc.
if(NOT HDF5_C_COMPILER_EXECUTABLE)
  find_program(_stratus_h5pcc NAMES h5pcc.mpich h5pcc)
  if(_stratus_h5pcc)
    set(HDF5_C_COMPILER_EXECUTABLE "${_stratus_h5pcc}" CACHE FILEPATH "Parallel HDF5 compiler wrapper")
  endif()
endif()
set(HDF5_PREFER_PARALLEL TRUE)
find_package(HDF5 1.10 REQUIRED COMPONENTS C)
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR "Stratus needs a parallel (MPI) HDF5; found a serial one (${HDF5_C_COMPILER_EXECUTABLE}). "
                      "On Debian: apt-get install libhdf5-mpich-dev")
endif()
add_library(stratus_hdf5 INTERFACE)
target_include_directories(stratus_hdf5 SYSTEM INTERFACE ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
target_link_libraries(stratus_hdf5 INTERFACE ${HDF5_C_LIBRARIES})
target_compile_definitions(stratus_hdf5 INTERFACE ${HDF5_C_DEFINITIONS} H5_USE_110_API)

# --- Boost.Program_options (input decks and the command line).
find_package(Boost 1.66 REQUIRED COMPONENTS program_options)

# --- FFTW (no CMake config on Debian: pkg-config).
find_package(PkgConfig REQUIRED)
pkg_check_modules(FFTW3 REQUIRED IMPORTED_TARGET fftw3)

# --- Kokkos >= 3.4: Kokkos_ROOT, or the prefix scripts/install-deps.sh builds into.
set(_stratus_deps "$ENV{STRATUS_DEPS_DIR}")
if(NOT _stratus_deps)
  set(_stratus_deps "$ENV{HOME}/.cache/stratus")
endif()
find_package(Kokkos 3.4 REQUIRED HINTS "${_stratus_deps}/kokkos-3.4.1-openmp")
message(STATUS "Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR}, devices: ${Kokkos_DEVICES}")
# Debian's libtrilinos-kokkos-dev exports an include directory that does not exist: drop such entries.
get_target_property(_kk_inc Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
if(_kk_inc)
  set(_kk_keep)
  foreach(_d IN LISTS _kk_inc)
    if(_d MATCHES "^\\$<" OR EXISTS "${_d}")
      list(APPEND _kk_keep "${_d}")
    endif()
  endforeach()
  set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_kk_keep}")
endif()

if(STRATUS_ENABLE_TESTS)
  find_package(Catch2 2 REQUIRED)
endif()
