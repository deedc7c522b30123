// Resident memory of this process on the host, as the kernel reports it: the current resident set and
// its high-water mark since the process started. Linux first (/proc/self/status); elsewhere the high
// water falls back to getrusage. Device memory is not counted here.
#pragma once

namespace stratus {

/// Peak resident set size of this process in bytes (VmHWM; getrusage ru_maxrss when /proc is not
/// readable); 0 when neither is available.
double host_rss_high_water_bytes();

/// Current resident set size of this process in bytes (VmRSS); 0 when it cannot be read.
double host_rss_bytes();

}  // namespace stratus
