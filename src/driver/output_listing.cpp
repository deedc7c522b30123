// list_outputs (driver/output_listing.hpp).
#include "driver/output_listing.hpp"

#include <cctype>
#include <filesystem>
#include <map>
#include <sstream>

#include "io/output_dir.hpp"

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

}  // namespace

std::string list_outputs(const std::string& dir, const std::string& name) {
  std::map<std::string, int> files;  // folded name -> count
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ignored;
    const std::string f = it->path().filename().string();
    if (is_run_output(f, name) && it->is_regular_file(ignored)) ++files[fold_digits(f)];
  }
  std::ostringstream os;
  bool first = true;
  for (const auto& [f, n] : files) {
    os << (first ? "" : ", ") << f;
    first = false;
    if (f == name + ".xmf") os << " (open in ParaView or VisIt)";
    if (f.find("NNNNNN") != std::string::npos) {
      const bool chk = f.find("_chk_") != std::string::npos, h5 = fs::path(f).extension() == ".h5";
      os << " (" << n << (chk ? " checkpoint" : (h5 ? " snapshot" : " file")) << (n == 1 ? "" : "s") << ")";
    }
  }
  return os.str();
}

}  // namespace stratus
