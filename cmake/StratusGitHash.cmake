# Run at every build (cmake -P, from the stratus_git_hash target): writes OUT, the definition of
# stratus::kGitHash, with the commit of SOURCE_DIR and "-dirty" for uncommitted changes to tracked files,
# "unknown" outside a git checkout. The file is rewritten only when the text changes, so a build at the
# same commit recompiles nothing, and a new commit recompiles this one file: every file and report
# records the commit that was built, not the one CMake was configured at.
set(hash "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
                  WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE h
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND h)
    set(hash "${h}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" status --porcelain --untracked-files=no
                    WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE dirty ERROR_QUIET)
    if(dirty)
      string(APPEND hash "-dirty")
    endif()
  endif()
endif()
set(text "// Generated at build time by cmake/StratusGitHash.cmake.\n#include \"stratus/version.hpp\"\n\nnamespace stratus {\nconst char* const kGitHash = \"${hash}\";\n}  // namespace stratus\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
