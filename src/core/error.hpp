// Error types and checking macros. InputError is for bad input (deck, command line, data or restart
// files): the executable reports it once and exits with code 2 before any output is written. Error is
// for everything else (exit code 1); STRATUS_REQUIRE names file:line and the MPI rank. CollectiveError is
// an Error that every rank of the run throws together, after agreeing on it (a failed write that all
// ranks learned of, a diverged run): the executable reports it once and ends normally, whereas a plain
// Error may be one rank's alone while the others wait in a collective, so it ends the job with MPI_Abort.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace stratus {

/// Bad user input; the message names the offending key or file. Exit code 2.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

/// Any other failure (I/O, communication, numerical blow-up). Exit code 1.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// A failure every rank throws at the same point with the same message (agreed through MPI first).
class CollectiveError : public Error {
 public:
  explicit CollectiveError(const std::string& what) : Error(what) {}
};

/// "file:line [rank r]" for messages; rank is -1 before MPI is initialised.
std::string where(const char* file, int line);

}  // namespace stratus

#define STRATUS_REQUIRE(cond, msg)                                                  \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::ostringstream stratus_require_os_;                                       \
      stratus_require_os_ << msg << " (" << ::stratus::where(__FILE__, __LINE__) << ")"; \
      throw ::stratus::Error(stratus_require_os_.str());                            \
    }                                                                               \
  } while (0)

#define STRATUS_INPUT_REQUIRE(cond, msg)             \
  do {                                               \
    if (!(cond)) {                                   \
      std::ostringstream stratus_require_os_;        \
      stratus_require_os_ << msg;                    \
      throw ::stratus::InputError(stratus_require_os_.str()); \
    }                                                \
  } while (0)

#define STRATUS_MPI_CHECK(call)                                                   \
  do {                                                                            \
    int stratus_mpi_rc_ = (call);                                                 \
    if (stratus_mpi_rc_ != MPI_SUCCESS) {                                         \
      throw ::stratus::Error(std::string("MPI call failed: ") + #call + " (" +   \
                             ::stratus::where(__FILE__, __LINE__) + ")");        \
    }                                                                             \
  } while (0)
