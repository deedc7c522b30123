// Logging: info lines from rank 0 only, warnings and errors tagged with the rank; plain text or one JSON
// object per message.
// Not thread-safe and not meant for device code.
#pragma once
#include <sstream>
#include <string>

namespace stratus::log {

enum class Level { quiet = 0, info = 1, debug = 2 };

void set_level(Level level);
Level level();

/// text: plain lines; json: one JSON object per message on its own line ({"time", "level", "rank",
/// "message"}), for log collectors (--log-format json).
enum class Format { text, json };
void set_format(Format format);

/// The process' final error, once, to stderr: "stratus: error: MSG" (or its JSON line), in one write.
void fatal(const std::string& msg, int rank = 0);

/// Printed by rank 0 only.
void info(const std::string& msg);
/// Printed by rank 0 only, when the level is debug.
void debug(const std::string& msg);
/// Printed by any rank that calls it, prefixed with "[rank r] warning:".
void warn(const std::string& msg);
/// Printed by any rank that calls it, prefixed with "[rank r] error:" to stderr.
void error(const std::string& msg);
/// Writes `line` plus a newline to stderr with one write(2) (whole or not at all, even when another
/// rank's MPI_Abort kills this process a moment later). Async-signal-safe for short lines.
void write_stderr_line(const std::string& line);

/// Now as an ISO 8601 UTC time stamp, "2026-12-03T15:04:05Z" (log lines, reports, markers).
std::string utc_timestamp();

/// A byte count for messages, three significant digits: "41.3 kB", "2.1 MB", "17 GB".
std::string bytes_text(double bytes);

/// Concatenates its arguments with operator<<.
template <class... Args>
std::string cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

}  // namespace stratus::log
