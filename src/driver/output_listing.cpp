// list_outputs (driver/output_listing.hpp).
#include "driver/output_listing.hpp"

#include <cctype>
#include <filesystem>
#include <map>
#include <sstream>

namespace stratus {

namespace fs = std::filesystem;

namespace {

// Runs of 6 or more digits (step numbers) become as many N's.
std::string fold_digits(const std::string& f) {
  std::string out;
  for (std::size_t i = 0; i < f.size();) {
    std::size_t j = i;
    while (j < f.size() && std::isdigit(static_cast<unsigned char>(f[j]))) ++j;
    if (j - i >= 6) {
      out.append(j - i, 'N');
      i = j;
    } else if (j > i) {
      out.append(f, i, j - i);
      i = j;
    } else {
      out += f[i++];
    }
  }
  return out;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::string list_outputs(const std::string& dir, const std::string& name) {
  std::map<std::string, int> files;  // folded name -> count
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ignored;
    if (!it->is_regular_file(ignored)) continue;
    const std::string f = it->path().filename().string();
    if (f.size() <= name.size() || f.compare(0, name.size(), name) != 0) continue;
    const char next = f[name.size()];
    if ((next != '.' && next != '_') || ends_with(f, ".tmp") || ends_with(f, ".lock") ||
        f.find(".tmp.") != std::string::npos)
      continue;
    ++files[fold_digits(f)];
  }
  std::ostringstream os;
  bool first = true;
  for (const auto& [f, n] : files) {
    os << (first ? "" : ", ") << f;
    first = false;
    if (f == name + ".xmf") os << " (open in ParaView or VisIt)";
    if (f.find("NNNNNN") != std::string::npos) {
      const char* what = f.find("_chk_") != std::string::npos ? " checkpoint" : (ends_with(f, ".h5") ? " snapshot" : " file");
      os << " (" << n << what << (n == 1 ? "" : "s") << ")";
    }
  }
  return os.str();
}

}  // namespace stratus
