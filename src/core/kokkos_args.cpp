// kokkos_args (core/kokkos_args.hpp).
#include "core/kokkos_args.hpp"

#include <cctype>
#include <climits>
#include <cstdlib>
#include <string>

#include "core/error.hpp"

namespace stratus {

namespace {

// A non-negative int written in decimal digits only, or -1.
long long parse_count(const std::string& s) {
  if (s.empty() || s.size() > 9) return -1;
  for (const char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
  return std::stoll(s);
}

// One Kokkos integer setting from its flag(s) and its variable.
struct Setting {
  const char* flag;       // the --kokkos- spelling
  const char* alias;      // another --kokkos- spelling Kokkos accepts (nullptr: none)
  const char* bare;       // the spelling without the prefix, refused
  const char* bare_alt;   // another one, refused (nullptr: none)
  const char* variable;   // KOKKOS_...
  bool pair;              // "N[,S]" (num-devices)
};

const Setting kSettings[] = {
    {"--kokkos-device-id", "--kokkos-device", "--device-id", "--device", "KOKKOS_DEVICE_ID", false},
    {"--kokkos-num-devices", "--kokkos-ndevices", "--num-devices", "--ndevices", "KOKKOS_NUM_DEVICES", true},
    {"--kokkos-threads", nullptr, "--threads", nullptr, "KOKKOS_NUM_THREADS", false},
    {"--kokkos-numa", nullptr, "--numa", nullptr, "KOKKOS_NUMA", false},
};

// Whether arg is `name` or `name=...` (Kokkos' check_arg also takes name followed by another character
// that cannot continue a name; "=" is the only one a value follows).
bool names(const std::string& arg, const char* name) {
  const std::string n(name);
  if (arg.compare(0, n.size(), n) != 0) return false;
  if (arg.size() == n.size()) return true;
  const char c = arg[n.size()];
  return !(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_');
}

[[noreturn]] void bad(const std::string& what) { throw InputError(what); }

// The value of environment variable `name`: -1 when unset; InputError when not a non-negative integer, or
// when it disagrees with `given` (>= 0), which `source` (a flag) set.
int env_count(const EnvLookup& env, const char* name, int given, const std::string& source) {
  const char* e = env(name);
  if (!e) return -1;
  const long long v = parse_count(e);
  if (v < 0) bad(std::string("environment variable ") + name + " = '" + e + "' is not a non-negative integer");
  if (given >= 0 && v != given)
    bad(std::string("environment variable ") + name + " = " + e + " and the command line's " + source + " disagree");
  return static_cast<int>(v);
}

}  // namespace

KokkosRequest parse_kokkos_request(const std::vector<std::string>& args, const EnvLookup& env) {
  KokkosRequest r;
  int* const value_of[] = {&r.device_id, &r.num_devices, &r.threads, &r.numa};
  for (std::size_t s = 0; s < 4; ++s) {
    const Setting& set = kSettings[s];
    int& value = *value_of[s];
    std::string given;  // the flag that set value
    for (std::size_t a = 0; a < args.size(); ++a) {
      const std::string& arg = args[a];
      for (const char* bare : {set.bare, set.bare_alt})
        if (bare && names(arg, bare))
          bad("command line: '" + arg + "' is not a stratus option; Kokkos' is " + set.flag + "=N");
      const char* flag = names(arg, set.flag) ? set.flag : (set.alias && names(arg, set.alias) ? set.alias : nullptr);
      if (!flag) continue;
      const std::string f(flag);
      if (arg.size() == f.size() || arg[f.size()] != '=')
        bad("command line: " + f + " takes its value after '=': " + set.flag + "=N" +
            (a + 1 < args.size() ? " (not '" + arg + " " + args[a + 1] + "')" : ""));
      std::string text = arg.substr(f.size() + 1), skip;
      const std::size_t comma = set.pair ? text.find(',') : std::string::npos;
      if (comma != std::string::npos) {
        skip = text.substr(comma + 1);
        text = text.substr(0, comma);
      }
      const long long v = parse_count(text);
      const long long sv = comma == std::string::npos ? 0 : parse_count(skip);
      if (v < 0 || sv < 0)
        bad("command line: '" + arg + "': " + f + " wants a non-negative integer" + (set.pair ? " (N or N,SKIP)" : ""));
      if (!given.empty() && v != value) bad("command line: " + given + " and '" + arg + "' disagree");
      value = static_cast<int>(v);
      if (comma != std::string::npos) r.skip_device = static_cast<int>(sv);
      given = "'" + arg + "'";
    }
    const int v = env_count(env, set.variable, value, given);
    if (v >= 0) value = v;
  }
  const int skip =
      env_count(env, "KOKKOS_SKIP_DEVICE", r.skip_device, "--kokkos-num-devices=N," + std::to_string(r.skip_device));
  if (skip >= 0) r.skip_device = skip;
  if (env("KOKKOS_RAND_DEVICES"))
    bad("environment variable KOKKOS_RAND_DEVICES is not supported (a random GPU per process); use "
        "KOKKOS_NUM_DEVICES or --kokkos-num-devices=N, which share a node's GPUs round robin");
  return r;
}

int choose_device(const KokkosRequest& r, int local_rank, int visible, std::string& why) {
  int device = r.device_id;
  if (device < 0 && r.num_devices > 0) {
    device = local_rank % r.num_devices;
    if (r.skip_device >= 0 && device >= r.skip_device) ++device;  // Kokkos: nobody gets the skipped device
  } else if (device < 0) {
    device = visible > 0 ? local_rank % visible : 0;
  }
  if (device >= visible) {
    why = "CUDA device " + std::to_string(device) + " was asked for (node-local rank " + std::to_string(local_rank) +
          "), but only " + std::to_string(visible) +
          " device(s) are visible (check --kokkos-device-id, --kokkos-num-devices, KOKKOS_DEVICE_ID, "
          "KOKKOS_NUM_DEVICES and CUDA_VISIBLE_DEVICES)";
    return -1;
  }
  return device;
}

}  // namespace stratus
