// libFuzzer target for input decks: Deck::parse against the full option registry of the executable
// (run, grid and every registered physics, built by declare_all_options as the executable does), with `--set`
// overrides, then what `stratus check` does with a deck that parses: RunParams and GridParams from the
// deck, the physics' factory (its XParams::from_deck, decomposition on MPI_COMM_SELF), describe(),
// memory_bytes(), unused_keys() and resolved_text(). Input: the deck text up to the first NUL byte;
// every further NUL-separated piece is one override (a command-line argument cannot hold a NUL, so this
// reaches every override the executable can be given, line breaks included). Bad input must throw
// stratus::InputError; anything else is a finding: a stratus::Error or another exception (reported, then
// abort), a sanitizer report, a hang or unbounded memory. One property is checked too, the one deck.cpp
// promises: resolved_text() parses again, to the same resolved text. This target does not initialise
// any simulation state, run kernels or touch files.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "core/error.hpp"
#include "core/log.hpp"
#include "domain/grid_options.hpp"
#include "driver/run_loop.hpp"
#include "driver/simulation.hpp"
#include "input/deck.hpp"
#include "register.hpp"

namespace {

const stratus::PhysicsRegistry* g_physics = nullptr;
const stratus::OptionRegistry* g_options = nullptr;

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz_deck: FINDING: %s\n", what.c_str());
  std::abort();
}

// Runs f; InputError is the expected outcome for bad input (returns false), anything else is a finding.
template <class F>
bool expect_input_error(const char* step, F&& f) {
  try {
    f();
    return true;
  } catch (const stratus::InputError&) {
    return false;
  } catch (const stratus::Error& e) {
    finding(std::string(step) + ": stratus::Error instead of InputError: " + e.what());
  } catch (const std::exception& e) {
    finding(std::string(step) + ": " + typeid(e).name() + ": " + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  Kokkos::InitArguments kargs;
  kargs.num_threads = 1;
  Kokkos::initialize(kargs);
  stratus::log::set_level(stratus::log::Level::quiet);
  // Built once, as the executable does; never freed (reachable, so no leak report).
  auto* physics = new stratus::PhysicsRegistry;
  stratus::register_physics(*physics);
  auto* reg = new stratus::OptionRegistry(stratus::declare_all_options(*physics));
  g_physics = physics;
  g_options = reg;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::size_t nul = input.find('\0');
  const std::string text = input.substr(0, nul);
  std::vector<std::string> overrides;
  while (nul != std::string::npos) {
    const std::size_t next = input.find('\0', nul + 1);
    overrides.push_back(input.substr(nul + 1, next == std::string::npos ? std::string::npos : next - nul - 1));
    nul = next;
  }

  const stratus::OptionRegistry& reg = *g_options;
  std::unique_ptr<stratus::Deck> deck;
  if (!expect_input_error("Deck::parse", [&] {
        deck = std::make_unique<stratus::Deck>(stratus::Deck::parse(reg, text, "fuzz.ini", overrides));
      }))
    return 0;

  // deck.cpp: values are stored as canonical text "so that resolved_text() re-parses to the same values".
  const std::string resolved = deck->resolved_text();
  try {
    const stratus::Deck again = stratus::Deck::parse(reg, resolved, "resolved");
    if (again.resolved_text() != resolved) finding("resolved_text() does not re-parse to itself:\n" + resolved);
  } catch (const std::exception& e) {
    finding(std::string("resolved_text() does not parse again: ") + e.what() + "\n" + resolved);
  }

  // What `stratus check` does next (main.cpp run_command), on one rank.
  stratus::RunParams rp;
  const stratus::RunEndOf end_of = [](const std::string& n) { return g_physics->run_end(n); };
  if (!expect_input_error("RunParams::from_deck", [&] { rp = stratus::RunParams::from_deck(*deck, end_of); })) return 0;
  expect_input_error("GridParams::from_deck", [&] { stratus::GridParams::from_deck(*deck); });
  const stratus::PhysicsEntry* entry = g_physics->find(rp.physics);
  if (!entry) finding("run.physics '" + rp.physics + "' passed the deck but is not registered");
  expect_input_error("physics create", [&] {
    auto sim = entry->create(*deck, MPI_COMM_SELF);
    const std::string d = sim->describe();
    const double m = sim->memory_bytes();
    if (d.empty() || !(m >= 0.0)) finding("describe() empty or memory_bytes() = " + std::to_string(m));
  });
  (void)deck->unused_keys();
  return 0;
}
