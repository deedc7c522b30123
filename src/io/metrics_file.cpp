// prometheus_text: validation of names (the exposition format's grammar), escaping (label values:
// backslash, double quote, newline; HELP text: backslash, newline) and grouping of samples by name.
#include "io/metrics_file.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/error.hpp"
#include "core/json.hpp"

namespace stratus {
namespace {

bool valid_name(const std::string& s, bool colon_allowed) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon_allowed && c == ':');
    const bool digit = c >= '0' && c <= '9';
    if (!(alpha || (i > 0 && digit))) return false;
  }
  return true;
}

std::string escape(const std::string& s, bool quote) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return round_trip_number(v);
}

}  // namespace

std::string prometheus_text(const std::vector<Metric>& m) {
  for (const Metric& x : m) {
    if (!valid_name(x.name, true)) throw Error("invalid Prometheus metric name '" + x.name + "'");
    if (x.type != "gauge" && x.type != "counter") {
      throw Error("metric '" + x.name + "' has type '" + x.type + "', not gauge or counter");
    }
    for (const auto& l : x.labels) {
      if (!valid_name(l.first, false)) {
        throw Error("metric '" + x.name + "' has an invalid label name '" + l.first + "'");
      }
    }
  }
  std::ostringstream os;
  std::vector<bool> written(m.size(), false);
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (written[i]) continue;
    const Metric& head = m[i];
    os << "# HELP " << head.name << ' ' << escape(head.help, false) << '\n';
    os << "# TYPE " << head.name << ' ' << head.type << '\n';
    for (std::size_t j = i; j < m.size(); ++j) {
      const Metric& x = m[j];
      if (written[j] || x.name != head.name) continue;
      if (x.type != head.type) {
        throw Error("metric '" + x.name + "' is declared both " + head.type + " and " + x.type);
      }
      written[j] = true;
      os << x.name;
      if (!x.labels.empty()) {
        os << '{';
        for (std::size_t k = 0; k < x.labels.size(); ++k) {
          os << (k ? "," : "") << x.labels[k].first << "=\"" << escape(x.labels[k].second, true) << '"';
        }
        os << '}';
      }
      os << ' ' << format_value(x.value) << '\n';
    }
  }
  return os.str();
}

}  // namespace stratus
