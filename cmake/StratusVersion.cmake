# Records the project version and the git commit at configure time in a generated header.
find_package(Git QUIET)
set(STRATUS_GIT_HASH "unknown")
if(GIT_FOUND AND EXISTS "${CMAKE_SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
                  WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}" OUTPUT_VARIABLE _h
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _h)
    set(STRATUS_GIT_HASH "${_h}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" status --porcelain --untracked-files=no
                    WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}" OUTPUT_VARIABLE _dirty ERROR_QUIET)
    if(_dirty)
      string(APPEND STRATUS_GIT_HASH "-dirty")
    endif()
  endif()
endif()
configure_file("${CMAKE_SOURCE_DIR}/src/core/version.hpp.in" "${CMAKE_BINARY_DIR}/generated/stratus/version.hpp" @ONLY)

# The built-in default deck is compiled into the executable.
file(READ "${CMAKE_SOURCE_DIR}/inputs/default.ini" STRATUS_DEFAULT_DECK)
configure_file("${CMAKE_SOURCE_DIR}/src/default_deck.hpp.in" "${CMAKE_BINARY_DIR}/generated/stratus/default_deck.hpp" @ONLY)
set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/inputs/default.ini")
