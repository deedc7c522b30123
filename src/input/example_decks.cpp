// example_decks (input/example_decks.hpp).
#include "input/example_decks.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/error.hpp"

namespace stratus {

namespace {

namespace fs = std::filesystem;

/// The running executable's directory ("" if unknown).
fs::path exe_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self.parent_path();
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

/// The first comment line of a deck, without its '#' (or "").
std::string first_comment(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    const auto b = line.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    if (line[b] != '#' && line[b] != ';') return {};
    const auto t = line.find_first_not_of(" \t", b + 1);
    if (t == std::string::npos) return {};
    const std::string s = line.substr(t);
    return s.size() <= 80 ? s : s.substr(0, 77) + "...";
  }
  return {};
}

}  // namespace

std::vector<std::string> example_deck_dirs() {
  std::vector<std::string> dirs;
  std::error_code ec;
  const fs::path here = exe_dir();
  for (const fs::path& d : {here.empty() ? fs::path() : here / ".." / "share" / "stratus" / "inputs",
                            fs::path(STRATUS_SOURCE_INPUTS)}) {
    if (d.empty() || !fs::is_directory(d, ec)) continue;
    const std::string c = fs::weakly_canonical(d, ec).string();
    if (std::find(dirs.begin(), dirs.end(), c) == dirs.end()) dirs.push_back(c);
  }
  return dirs;
}

std::string resolve_deck(const std::string& arg) {
  std::error_code ec;
  if (arg.empty() || fs::exists(fs::symlink_status(arg, ec)) || fs::path(arg).is_absolute()) return arg;
  for (const std::string& dir : example_deck_dirs()) {
    for (const std::string& name : {arg, arg + ".ini"})
      if (is_file(fs::path(dir) / name)) return (fs::path(dir) / name).string();
    if (arg.find('/') != std::string::npos) continue;
    std::vector<std::string> hits;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      for (const std::string& name : {arg, arg + ".ini"})
        if (it->is_directory(ec) && is_file(it->path() / name)) hits.push_back((it->path() / name).string());
    if (hits.size() > 1) {
      std::string all;
      for (const auto& h : hits) all += "\n  " + h;
      throw InputError("deck '" + arg + "' names no file here and " + std::to_string(hits.size()) +
                       " example decks; give one of them:" + all);
    }
    if (hits.size() == 1) return hits.front();
  }
  return arg;
}

std::vector<std::string> list_example_decks() {
  const std::vector<std::string> dirs = example_deck_dirs();
  if (dirs.empty()) return {};
  std::set<std::string> names;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dirs.front(), ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".ini" && it->is_regular_file(ec))
      names.insert(fs::relative(it->path(), dirs.front(), ec).string());
  std::vector<std::string> out{"example decks in " + dirs.front() + " (stratus run NAME):"};
  std::size_t width = 0;
  for (const auto& n : names) width = std::max(width, n.size());
  for (const auto& n : names) {
    const std::string what = first_comment(fs::path(dirs.front()) / n);
    out.push_back("  " + n + std::string(width - n.size() + 2, ' ') + what);
  }
  return out;
}

}  // namespace stratus
