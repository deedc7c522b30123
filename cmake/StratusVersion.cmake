# The project version in a header generated at configure time, and the git commit in a source file
# regenerated at every build (cmake/StratusGitHash.cmake: the stratus_git_hash target, which stratus_core
# depends on).
configure_file("${CMAKE_SOURCE_DIR}/src/core/version.hpp.in" "${CMAKE_BINARY_DIR}/generated/stratus/version.hpp" @ONLY)
set(STRATUS_GIT_HASH_SOURCE "${CMAKE_BINARY_DIR}/generated/stratus/git_hash.cpp")
set(_stratus_git_hash_command "${CMAKE_COMMAND}" -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUT=${STRATUS_GIT_HASH_SOURCE}
    -P "${CMAKE_SOURCE_DIR}/cmake/StratusGitHash.cmake")
# Once now, so that the file exists when the targets are generated; then at every build.
execute_process(COMMAND ${_stratus_git_hash_command})
add_custom_target(stratus_git_hash ALL COMMAND ${_stratus_git_hash_command}
  BYPRODUCTS "${STRATUS_GIT_HASH_SOURCE}" COMMENT "" VERBATIM)

# The built-in default deck is compiled into the executable.
file(READ "${CMAKE_SOURCE_DIR}/inputs/default.ini" STRATUS_DEFAULT_DECK)
configure_file("${CMAKE_SOURCE_DIR}/src/default_deck.hpp.in" "${CMAKE_BINARY_DIR}/generated/stratus/default_deck.hpp" @ONLY)
set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/inputs/default.ini")
