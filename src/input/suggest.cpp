// "Did you mean" suggestions for an unknown deck key: the closest declared keys by edit distance, else
// the keys of the section when the section exists, else the known sections.
#include <algorithm>

#include "input/deck_text.hpp"

namespace stratus::deck_text {

namespace {

std::size_t levenshtein(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string suggestion(const OptionRegistry& reg, const std::string& key) {
  const auto& specs = reg.all();
  // No declared key is anywhere near this long: skip the edit-distance search (quadratic in the length).
  if (key.size() > 100) return {};
  const std::vector<std::string> sections = sections_in_order(specs);
  const std::string sec = section_of(key);
  const bool known_section =
      key.find('.') != std::string::npos && std::find(sections.begin(), sections.end(), sec) != sections.end();

  auto best_matches = [&](auto distance, std::size_t limit) {
    std::size_t best = limit + 1;
    std::vector<std::string> found;
    for (const auto& s : specs) {
      const std::size_t d = distance(s);
      if (d > limit) continue;
      if (d < best) best = d, found.clear();
      if (d == best && found.size() < 3) found.push_back(s.key);
    }
    return found;
  };
  // A typo anywhere in the full key ("grid.nxx", "grd.nx").
  std::vector<std::string> found = best_matches([&](const OptionSpec& s) { return levenshtein(key, s.key); },
                                                std::max<std::size_t>(2, key.size() / 3));
  // The right name in a wrong or missing section ("nx" at top level, "mesh.nx"); names are short, so
  // only close ones count.
  if (found.empty() && !known_section) {
    const std::string nm = key_name(key);
    found = best_matches([&](const OptionSpec& s) { return levenshtein(nm, key_name(s.key)); }, nm.size() / 3);
  }
  if (!found.empty()) {
    std::string t = " (did you mean ";
    for (std::size_t i = 0; i < found.size(); ++i) t += (i ? " or '" : "'") + found[i] + "'";
    return t + "?)";
  }
  if (known_section) {
    std::vector<std::string> names;
    for (const auto& s : specs)
      if (section_of(s.key) == sec) names.push_back(key_name(s.key));
    return " (valid keys in [" + sec + "]: " + join(names, ", ") + ")";
  }
  return sections.empty() ? std::string() : " (known sections: " + join(sections, ", ") + ")";
}

}  // namespace stratus::deck_text
