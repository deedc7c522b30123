// The stratus executable: command line -> Runtime -> Deck -> physics registry -> run loop.
//   stratus run [DECK] [--set section.key=value]...   run a deck (the built-in default deck without one)
//   stratus check [DECK] [--set ...] [--restart F]    validate (data and restart files too), write nothing
//   stratus help-deck [SECTION]                       every deck key with type, default, unit and help
//   stratus info                                      version, backends, devices, library versions
//   stratus decks                                     the example decks DECK may name (input/example_decks)
//   stratus bench [DECK] [--set ...] [--steps N]      memory-bandwidth roof and the deck's stepping rate
//                 [--kernel NAME]                    ... or the rate of one kernel of its step alone
// Exit codes: 0 success (also: --restart auto on a complete run), 1 runtime failure, 2 bad input (nothing
// written), 3 stopped early (signal, stop file, wall-time guard) with a checkpoint to continue from.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "core/batch_env.hpp"
#include "core/error.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "core/timer.hpp"
#include "driver/bench.hpp"
#include "driver/output_listing.hpp"
#include "driver/run_loop.hpp"
#include "driver/simulation.hpp"
#include "input/deck.hpp"
#include "input/example_decks.hpp"
#include "io/hdf5_util.hpp"
#include "io/output_dir.hpp"  // check_output_location
#include "register.hpp"
#include "stratus/default_deck.hpp"
#include "stratus/version.hpp"

namespace po = boost::program_options;

// No using-directive at file scope: nvcc appends code that calls ::log, which stratus::log would make ambiguous.
namespace stratus {
namespace {

// Kernels run on host threads (the OpenMP or Serial backend), whose count the banner gives.
constexpr bool kHostKernels = std::is_same_v<Kokkos::DefaultExecutionSpace, Kokkos::DefaultHostExecutionSpace>;

const char* kUsage =
    "usage: stratus <command> [DECK] [options]\n"
    "commands:\n"
    "  run [DECK]         run a deck (without DECK: the built-in default deck)\n"
    "  check [DECK]       validate a deck; print the resolved set-up, memory estimate and decomposition\n"
    "  help-deck [SECTION] list every deck key with type, default, unit and help\n"
    "  info               version, git hash, Kokkos backends and devices, MPI and HDF5 versions\n"
    "  decks              the example decks, which DECK may name from any directory (e.g. md/lj_melt)\n"
    "  bench [DECK]       memory-bandwidth roof (triad) and the deck's stepping rate (or, with --kernel, one\n"
    "                     kernel's), without output\n";

struct Cli {
  std::string command;
  std::string deck;  // path, or empty for the built-in default deck / help-deck section
  std::vector<std::string> overrides;
  bool quiet = false, verbose = false;
  int bench_steps = 20;
  int triad_mib = -1;   // -1: the default for the backend
  std::string kernel;   // bench: a kernel of the physics to time alone (empty: whole steps)
  std::string restart;  // run: a checkpoint, or "auto"
  int ranks = 0;        // the MPI size the launch is meant to have (0: SLURM_NTASKS or any)
  bool json_log = false;
};

Cli parse_cli(int argc, char** argv) {
  po::options_description opts("options");
  opts.add_options()("help,h", "show this help")("version", "print the version")(
      "set,s", po::value<std::vector<std::string>>()->composing(), "override a deck key: --set section.key=value")(
      "quiet,q", "only warnings and errors")("verbose,v", "debug output")(
      "restart", po::value<std::string>(),
      "run: continue from checkpoint FILE, or 'auto' (the newest valid checkpoint of this run in run.output_dir); "
      "check: validate that checkpoint")(
      "ranks", po::value<int>(),
      "run, bench: the MPI ranks this launch must have (default: SLURM_NTASKS inside a Slurm job); another "
      "number stops at once with exit code 2 (a launcher that does not match this MPI)")(
      "log-format", po::value<std::string>(), "text (default) or json: one JSON object per log line")(
      "steps", po::value<int>(), "bench: timed steps, or calls of --kernel (default 20, after 2 untimed)")(
      "kernel", po::value<std::string>(),
      "bench: time one kernel of the step alone instead of whole steps: 'halo' (grid physics: one halo "
      "exchange of the state), 'neighbor' (md: one neighbor-list build)")(
      "triad-mib", po::value<int>(),
      "bench: MiB per triad array and rank (default 1024 on a GPU, 256 on a CPU; 0 skips)");
  po::options_description hidden;
  hidden.add_options()("command", po::value<std::string>())("deck", po::value<std::string>());
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("command", 1).add("deck", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::string("command line: ") + e.what() + " (see stratus --help)");
  }
  Cli cli;
  if (vm.count("help")) {
    std::ostringstream os;
    os << kUsage << opts;
    cli.command = "help:" + os.str();
    return cli;
  }
  if (vm.count("version")) {
    cli.command = "version";
    return cli;
  }
  if (!vm.count("command")) throw InputError(std::string("command line: no command given\n") + kUsage);
  cli.command = vm["command"].as<std::string>();
  if (vm.count("deck")) cli.deck = vm["deck"].as<std::string>();
  if (vm.count("set")) cli.overrides = vm["set"].as<std::vector<std::string>>();
  cli.quiet = vm.count("quiet") > 0;
  cli.verbose = vm.count("verbose") > 0;
  if (vm.count("steps")) cli.bench_steps = vm["steps"].as<int>();
  if (vm.count("triad-mib")) cli.triad_mib = vm["triad-mib"].as<int>();
  if (vm.count("kernel")) cli.kernel = vm["kernel"].as<std::string>();
  if (vm.count("restart")) cli.restart = vm["restart"].as<std::string>();
  if (vm.count("ranks")) {
    cli.ranks = vm["ranks"].as<int>();
    if (cli.ranks < 1) throw InputError("command line: --ranks must be >= 1");
  }
  if (vm.count("log-format")) {
    const std::string f = vm["log-format"].as<std::string>();
    if (f != "text" && f != "json")
      throw InputError("command line: --log-format must be 'text' or 'json', not '" + f + "'");
    cli.json_log = f == "json";
  }
  const std::string c = cli.command;
  if (c != "run" && c != "check" && c != "help-deck" && c != "info" && c != "bench" && c != "decks")
    throw InputError("command line: unknown command '" + c + "'\n" + kUsage);
  if ((c == "info" || c == "decks") && !cli.deck.empty())
    throw InputError("command line: '" + c + "' takes no argument");
  if ((c == "info" || c == "help-deck" || c == "decks") && !cli.overrides.empty())
    throw InputError("command line: --set applies to 'run' and 'check' only");
  if ((vm.count("steps") || vm.count("triad-mib") || vm.count("kernel")) && c != "bench")
    throw InputError("command line: --steps, --triad-mib and --kernel apply to 'bench' only");
  if (vm.count("kernel") && cli.kernel.empty()) throw InputError("command line: --kernel needs a NAME");
  if (vm.count("restart") && c != "run" && c != "check")
    throw InputError("command line: --restart applies to 'run' and 'check' only");
  if (vm.count("restart") && cli.restart.empty()) throw InputError("command line: --restart needs FILE or 'auto'");
  if (vm.count("ranks") && c != "run" && c != "bench")
    throw InputError("command line: --ranks applies to 'run' and 'bench' only");
  if (cli.bench_steps < 1) throw InputError("command line: --steps must be >= 1");
  if (vm.count("triad-mib") && cli.triad_mib < 0) throw InputError("command line: --triad-mib must be >= 0");
  return cli;
}

std::string fmt(double v, int digits = 4) {
  std::ostringstream os;
  os.precision(digits);
  os << v;
  return os.str();
}

// `bench --kernel NAME`: the kernel of the physics by that name; bad input when it has none.
Simulation::BenchKernel find_bench_kernel(const std::string& name, const Simulation& sim, const std::string& physics) {
  std::string names;
  for (const auto& e : sim.bench_kernels()) {
    if (e.name == name) return e;
    names += (names.empty() ? "'" : ", '") + e.name + "'";
  }
  throw InputError("command line: physics '" + physics + "' has no bench kernel '" + name + "' (" +
                   (names.empty() ? std::string("it has none") : "it has " + names) + ")");
}

// The time per call of one kernel of the step, and the rate of its work.
std::string bench_kernel_line(const Cli& cli, Simulation& sim, const Runtime& rt, const Simulation::BenchKernel& k) {
  const KernelResult kr = time_kernel(sim, k.name, 2, cli.bench_steps, rt.comm());
  std::ostringstream os;
  os << "bench: kernel " << k.name << " " << fmt(kr.seconds_per_call * 1e6) << " us per call (" << kr.calls
     << " calls after 2 untimed: " << k.what << "), " << fmt(kr.work_per_call) << " " << k.unit << " per call, "
     << fmt(kr.work_per_call / kr.seconds_per_call) << " " << k.unit << "/s\n";
  return os.str();
}

// Triad roof, then timed steps (or one kernel); the last line relates the two: the physics' own count of
// bytes per update as a fraction of the roof, or, without a count, the bytes a purely bandwidth-bound
// kernel could move per update at the measured roof.
int bench_command(const Cli& cli, Simulation& sim, const Runtime& rt, const std::string& physics) {
#ifdef KOKKOS_ENABLE_CUDA
  const int mib = cli.triad_mib < 0 ? 1024 : cli.triad_mib;
#else
  const int mib = cli.triad_mib < 0 ? 256 : cli.triad_mib;
#endif
  std::optional<Simulation::BenchKernel> kernel;
  if (!cli.kernel.empty()) kernel = find_bench_kernel(cli.kernel, sim, physics);
  std::ostringstream os;
  double roof = 0.0;
  if (mib > 0) {
    const TriadResult tr = triad_bandwidth(static_cast<std::size_t>(mib) << 20, 10, rt.comm());
    roof = tr.best_gbs;
    os << "bench: triad " << fmt(tr.best_gbs) << " GB/s best, " << fmt(tr.mean_gbs) << " GB/s mean (3 arrays x " << mib
       << " MiB per rank, " << rt.size() << " rank(s), 10 repetitions)\n";
  }
  if (kernel) {
    os << bench_kernel_line(cli, sim, rt, *kernel);
    log::info(os.str());
    return 0;
  }
  const StepResult sr = time_steps(sim, 2, cli.bench_steps, rt.comm());
  os << "bench: " << physics << " " << fmt(sr.work_per_second) << " " << sim.work_unit() << "/s, "
     << fmt(sr.seconds_per_step * 1e3) << " ms per step (" << sr.steps
     << " steps after 2 untimed, no output or diagnostics)\n";
  if (sr.bytes_per_update > 0.0) {
    const double gbs = sr.work_per_second * sr.bytes_per_update / 1e9;
    os << "bench: " << physics << " moves " << fmt(sr.bytes_per_update) << " bytes per update at least: " << fmt(gbs)
       << " GB/s";
    if (roof > 0.0) os << ", " << fmt(100.0 * gbs / roof, 3) << " % of the triad roof";
    os << "\n";
  } else if (roof > 0.0) {
    os << "bench: triad bytes per update " << fmt(roof * 1e9 / sr.work_per_second)
       << " (the memory traffic per update that would saturate the triad roof at this rate)\n";
  }
  log::info(os.str());
  return 0;
}

// The launch started the number of ranks the job expects: N independent copies of a one-rank run (a
// launcher of another MPI, or srun without --mpi=pmi2) would each run the whole deck into the same files.
void check_launch(const Cli& cli, const Runtime& rt) {
  int expected = cli.ranks;
  std::string from = "--ranks";
  if (expected == 0) {
    const BatchJob job = slurm_job();
    if (!job.in_slurm || job.ntasks <= 0) return;
    expected = job.ntasks;
    from = "SLURM_NTASKS";
  }
  if (expected == rt.size()) return;
  std::ostringstream os;
  os << "the launch started " << rt.size() << " MPI rank(s) but " << from << " expects " << expected << ": ";
  if (rt.size() == 1)
    os << "each process is a one-rank run of its own, so the launcher does not match this MPI (MPICH): use "
          "mpiexec.mpich (or srun --mpi=pmi2), not another MPI's mpirun or a plain srun";
  else
    os << "launch with -n " << expected << ", or pass --ranks " << rt.size() << " to confirm this size";
  throw InputError(os.str());
}

int run_command(const Cli& cli, const Runtime& rt) {
  PhysicsRegistry physics;
  register_physics(physics);
  const OptionRegistry reg = declare_all_options(physics);

  if (cli.command == "help-deck") {
    log::info(reg.help_text(cli.deck));
    return 0;
  }
  if (cli.command == "decks") {
    const auto lines = list_example_decks();
    if (lines.empty()) throw InputError("no example decks found (installed: PREFIX/share/stratus/inputs)");
    std::string text;
    for (const auto& l : lines) text += (text.empty() ? "" : "\n") + l;
    log::info(text);
    return 0;
  }
  if (!rt.kokkos_ready()) return 1;  // no usable device: the reason is printed already
  if (cli.command == "info") {
    log::info(build_info() + "  MPI ranks: " + std::to_string(rt.size()));
    return 0;
  }

  const Deck deck = cli.deck.empty() ? Deck::parse(reg, kDefaultDeck, "<built-in default deck>", cli.overrides)
                                     : Deck::from_file(reg, resolve_deck(cli.deck), cli.overrides);
  const RunParams rp = RunParams::from_deck(deck, [&](const std::string& n) { return physics.run_end(n); });
  const PhysicsEntry* entry = physics.find(rp.physics);  // the deck only admits registered names
  STRATUS_REQUIRE(entry != nullptr, "physics '" << rp.physics << "' passed the deck but is not registered");
  auto sim = entry->create(deck, rt.comm());
  // One pre-flight for check and run (and bench, which writes nothing): whatever run would refuse at
  // start-up, check refuses too, before anything is written.
  if (cli.command == "run" || cli.command == "bench") check_launch(cli, rt);
  if (cli.command != "bench") check_output_location(rp.output_dir, rp.name);
  sim->preflight();
  if (!cli.restart.empty() && cli.command == "check") validate_restart(deck, rp, rt.comm(), cli.restart);
  // What --restart leads to (a checkpoint, a fresh start, or nothing to do), decided before any output.
  const RestartPlan plan = cli.command == "run" ? plan_restart(deck, rp, rt.comm(), cli.restart) : RestartPlan{};
  for (const auto& k : deck.unused_keys())
    if (rt.is_root())
      log::warn("deck '" + deck.source() + "': key '" + k + "' is not used by physics '" + rp.physics + "'");

  std::ostringstream head;
  head << "Stratus " << kVersion << " (git " << kGitHash << "), " << rt.size() << " MPI rank(s)"
       << (kHostKernels ? " x " + std::to_string(rt.host_threads()) + " thread(s)" : std::string()) << ", Kokkos "
       << Kokkos::DefaultExecutionSpace::name() << "\n"
       << "deck: " << deck.source() << "\n"
       << sim->describe() << "\n"
       << "memory estimate: " << log::bytes_text(sim->memory_bytes()) << " per rank, "
       << log::bytes_text(sim->memory_bytes() * rt.size()) << " in all";
  if (cli.command == "bench") {
    log::info(head.str());
    return bench_command(cli, *sim, rt, rp.physics);
  }
  if (cli.command == "check") {
    log::info(head.str());
    log::info("\nresolved deck:\n" + deck.resolved_text());
    log::info("deck OK");
    return 0;
  }
  log::info(head.str());
  const RunStatus st = run_simulation(*sim, deck, rp, rt.comm(), plan);
  if (plan.complete) return 0;
  if (rt.is_root()) log::info("output in " + rp.output_dir + ": " + list_outputs(rp.output_dir, rp.name));
  if (st == RunStatus::interrupted)
    log::info("stopped early (exit code 3): continue with the same command and --restart auto");
  return static_cast<int>(st);
}

}  // namespace
}  // namespace stratus

int main(int argc, char** argv) {
  using namespace stratus;
  Phases::mark_process_start();
  int code = 0;
  bool abort_needed = false;
  {
    Runtime rt(argc, argv);
    try {
      if (!rt.input_error().empty()) throw InputError(rt.input_error());  // a Kokkos flag or variable
      const Cli cli = parse_cli(argc, argv);
      if (cli.command.rfind("help:", 0) == 0) {
        log::info(cli.command.substr(5));
      } else if (cli.command == "version") {
        log::info(std::string("stratus ") + kVersion + " (git " + kGitHash + ")");
      } else {
        if (cli.json_log) log::set_format(log::Format::json);
        if (cli.quiet) log::set_level(log::Level::quiet);
        if (cli.verbose) log::set_level(log::Level::debug);
        code = run_command(cli, rt);
      }
    } catch (const InputError& e) {
      // Every rank reads the same input and fails the same way: report once.
      if (rt.is_root()) log::fatal(e.what());
      code = 2;
    } catch (const CollectiveError& e) {
      // Every rank agreed on this failure and stands at the same point: report once, end normally.
      if (rt.is_root()) log::fatal(e.what());
      code = 1;
    } catch (const std::exception& e) {
      // Possibly this rank's alone, while the others wait in a collective: the message goes out in one
      // write before MPI_Abort ends the job, so it arrives whole, and the launcher gets a moment to pass
      // it on before the abort tears the job down (without it the line was sometimes lost). Where several
      // ranks fail at once (a write that failed everywhere), rank 0 reports: the others wait longer than
      // that moment, and rank 0's abort ends them first.
      if (rt.size() > 1 && rt.rank() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1000));
      log::fatal((rt.size() > 1 ? "rank " + std::to_string(rt.rank()) + ": " : std::string()) + e.what(), rt.rank());
      code = 1;
      abort_needed = rt.size() > 1;
    }
    // After a failed write an output file was abandoned (io/hdf5_util.hpp): finalising HDF5 could hang or
    // crash, so the process ends here without it.
    if (h5::abandoned() && rt.size() > 1) abort_needed = true;
    if (abort_needed) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      MPI_Abort(MPI_COMM_WORLD, code);
    }
    if (h5::abandoned()) {
      std::cout.flush();
      std::fflush(nullptr);
      std::_Exit(code);
    }
  }
  return code;
}
