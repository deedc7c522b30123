// Metrics in the Prometheus text exposition format (version 0.0.4), as the node_exporter textfile
// collector reads them from a *.prom file: "# HELP" and "# TYPE" once per metric name, then one sample
// line per label set. This module only formats text; the file is replaced atomically with
// write_file_atomically (io/atomic_file.hpp, included here for callers) so the collector never reads a
// partial file. No timestamps are written: the collector stamps samples when it scrapes.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "io/atomic_file.hpp"

namespace stratus {

/// One sample. name: [a-zA-Z_:][a-zA-Z0-9_:]*; type: "gauge" or "counter"; label names:
/// [a-zA-Z_][a-zA-Z0-9_]*; label values: any text (escaped on output).
struct Metric {
  std::string name, help, type;
  std::vector<std::pair<std::string, std::string>> labels;
  double value;
};

/// The exposition text of `m`: the samples of one name are written together, in the order their name
/// first appears, under the HELP and TYPE of its first sample; values in shortest round-trip form, NaN
/// as "NaN" and infinities as "+Inf" / "-Inf". Throws Error on an invalid metric or label name, an
/// unknown type, or one name used with two types (all bugs in the caller, not bad input).
std::string prometheus_text(const std::vector<Metric>& m);

}  // namespace stratus
