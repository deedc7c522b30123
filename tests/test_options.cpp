// Deck option bindings (input/options.hpp): choice tables, declare mode against hand-written
// declarations, read mode into a struct; the run end rule of RunParams. Built into test_deck.
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "driver/run_params.hpp"
#include "input/deck.hpp"
#include "input/options.hpp"
#include "message_matcher.hpp"

using Catch::Matchers::Contains;
using stratus::Deck;
using stratus::InputError;
using stratus::OptionRegistry;

namespace {

enum class Shape { round, square, flat };
const stratus::Choices<Shape> kShapes = {{"round", Shape::round}, {"square", Shape::square}, {"flat", Shape::flat}};

struct BoundParams {
  int n{};
  long steps{};
  unsigned long long seed{};
  double dt{};
  std::string title;
  bool enabled{};
  Shape shape{};
  std::vector<long long> big;
  std::vector<int> small;
  std::array<int, 3> decomp{};
  double lo[2] = {};
  std::vector<double> weights;
  bool periodic[2] = {};

  template <class B>
  static void bind(B& o) {
    using P = BoundParams;
    o.integer(&P::n, "bound.n", 8, "cells", "cells").at_least(1);
    o.integer(&P::steps, "bound.steps", 100, "steps", "steps").at_least(0);
    o.integer(&P::seed, "bound.seed", 4321, "", "seed").at_least(1);
    o.real(&P::dt, "bound.dt", 0.5, "s", "step").greater_than(0.0).at_most(1.0);
    o.string(&P::title, "bound.title", "untitled", "", "title");
    o.boolean(&P::enabled, "bound.enabled", true, "", "switch");
    o.choice(&P::shape, "bound.shape", kShapes, Shape::square, "shape");
    o.integers(&P::big, "bound.big", {1, 2}, "", "64-bit list");
    o.integers(&P::small, "bound.small", {3}, "", "int list").at_least(0);
    o.integers(&P::decomp, "bound.decomp", {0, 0, 0}, "ranks", "ranks").at_least(0);
    o.reals(&P::lo, "bound.lo", {0.0, -1.0}, "m", "corner");
    o.reals(&P::weights, "bound.weights", {0.25}, "1", "weights").at_least(0.0);
    o.choice([](P& p) -> bool& { return p.periodic[0]; }, "bound.bc_x", stratus::Choices<bool>{{"periodic", true}, {"wall", false}},
             true, "x boundary");
    o.choice([](P& p) -> bool& { return p.periodic[1]; }, "bound.bc_y", stratus::Choices<bool>{{"periodic", true}, {"wall", false}},
             false, "y boundary");
  }
};

// The same keys written with the registry's add_* calls.
OptionRegistry bound_by_hand() {
  OptionRegistry reg;
  reg.add_int("bound.n", 8, "cells", "cells").at_least(1);
  reg.add_int("bound.steps", 100, "steps", "steps").at_least(0);
  reg.add_int("bound.seed", 4321, "", "seed").at_least(1);
  reg.add_real("bound.dt", 0.5, "s", "step").greater_than(0.0).at_most(1.0);
  reg.add_string("bound.title", "untitled", "", "title");
  reg.add_bool("bound.enabled", true, "", "switch");
  reg.add_string("bound.shape", "square", "", "shape").one_of({"round", "square", "flat"});
  reg.add_ints("bound.big", {1, 2}, "", "64-bit list");
  reg.add_ints("bound.small", {3}, "", "int list").at_least(0);
  reg.add_ints("bound.decomp", {0, 0, 0}, "ranks", "ranks").size(3).at_least(0);
  reg.add_reals("bound.lo", {0.0, -1.0}, "m", "corner").size(2);
  reg.add_reals("bound.weights", {0.25}, "1", "weights").at_least(0.0);
  reg.add_string("bound.bc_x", "periodic", "", "x boundary").one_of({"periodic", "wall"});
  reg.add_string("bound.bc_y", "wall", "", "y boundary").one_of({"periodic", "wall"});
  return reg;
}

}  // namespace

TEST_CASE("Choice tables give names, values and the name list from one table", "[deck][options]") {
  for (const auto& [name, value] : kShapes) {
    CHECK(stratus::name_of(kShapes, value) == name);
    CHECK(stratus::value_of(kShapes, name) == value);
    CHECK(stratus::value_of(kShapes, stratus::name_of(kShapes, value)) == value);
  }
  CHECK(stratus::names_of(kShapes) == std::vector<std::string>{"round", "square", "flat"});
  CHECK_THROWS_AS(stratus::value_of(kShapes, "oval"), stratus::Error);
  CHECK_THROWS_AS(stratus::name_of(kShapes, static_cast<Shape>(7)), stratus::Error);

  // Declared, the table is the allowed values and its default's name is the default text; read, the
  // name in the deck becomes the value.
  OptionRegistry reg;
  stratus::declare_options<BoundParams>(reg);
  const stratus::OptionSpec* s = reg.find("bound.shape");
  REQUIRE(s != nullptr);
  CHECK(s->choices == stratus::names_of(kShapes));
  CHECK(s->default_text == "square");
  for (const auto& [name, value] : kShapes) {
    const Deck d = Deck::parse(reg, "[bound]\nshape = " + name + "\n", "x.ini");
    CHECK(stratus::read_options<BoundParams>(d).shape == value);
  }
  CHECK_THROWS_MATCHES(Deck::parse(reg, "[bound]\nshape = oval\n", "x.ini"), InputError,
                       MessageContains({"key 'bound.shape' = 'oval' is not one of: round, square, flat"}));
}

TEST_CASE("Binding declare mode produces the specs of the hand-written declarations", "[deck][options]") {
  OptionRegistry bound;
  stratus::declare_options<BoundParams>(bound);
  const OptionRegistry hand = bound_by_hand();
  REQUIRE(bound.all().size() == hand.all().size());
  for (std::size_t i = 0; i < hand.all().size(); ++i) {
    const stratus::OptionSpec& a = bound.all()[i];
    const stratus::OptionSpec& b = hand.all()[i];
    INFO(b.key);
    CHECK(a.key == b.key);
    CHECK(a.type == b.type);
    CHECK(a.default_text == b.default_text);
    CHECK(a.unit == b.unit);
    CHECK(a.help == b.help);
    CHECK(a.required == b.required);
    CHECK(a.min == b.min);
    CHECK(a.max == b.max);
    CHECK(a.min_exclusive == b.min_exclusive);
    CHECK(a.max_exclusive == b.max_exclusive);
    CHECK(a.choices == b.choices);
    CHECK(a.list_size == b.list_size);
  }
  CHECK(bound.help_text() == hand.help_text());
}

TEST_CASE("Binding read mode fills a struct from a deck, defaults included", "[deck][options]") {
  OptionRegistry reg;
  stratus::declare_options<BoundParams>(reg);

  const BoundParams def = stratus::read_options<BoundParams>(Deck::parse(reg, "", "x.ini"));
  CHECK(def.n == 8);
  CHECK(def.steps == 100);
  CHECK(def.seed == 4321ULL);
  CHECK(def.dt == 0.5);
  CHECK(def.title == "untitled");
  CHECK(def.enabled);
  CHECK(def.shape == Shape::square);
  CHECK(def.big == std::vector<long long>{1, 2});
  CHECK(def.small == std::vector<int>{3});
  CHECK(def.decomp == std::array<int, 3>{0, 0, 0});
  CHECK(def.lo[0] == 0.0);
  CHECK(def.lo[1] == -1.0);
  CHECK(def.weights == std::vector<double>{0.25});
  CHECK(def.periodic[0]);
  CHECK_FALSE(def.periodic[1]);

  const Deck d = Deck::parse(reg,
                             "[bound]\nn = 12\nsteps = 9000000000\nseed = 7\ndt = 0.125\ntitle = hello there\n"
                             "enabled = off\nshape = flat\nbig = 5000000000, -3\nsmall = 4 5 6\ndecomp = 2 1 4\n"
                             "lo = -2.5 3\nweights = 1 2 3\nbc_x = wall\n",
                             "x.ini", {"bound.bc_y=periodic"});
  const BoundParams p = stratus::read_options<BoundParams>(d);
  CHECK(p.n == 12);
  CHECK(p.steps == 9000000000L);
  CHECK(p.seed == 7ULL);
  CHECK(p.dt == 0.125);
  CHECK(p.title == "hello there");
  CHECK_FALSE(p.enabled);
  CHECK(p.shape == Shape::flat);
  CHECK(p.big == std::vector<long long>{5000000000LL, -3});
  CHECK(p.small == std::vector<int>{4, 5, 6});
  CHECK(p.decomp == std::array<int, 3>{2, 1, 4});
  CHECK(p.lo[0] == -2.5);
  CHECK(p.lo[1] == 3.0);
  CHECK(p.weights == std::vector<double>{1.0, 2.0, 3.0});
  CHECK_FALSE(p.periodic[0]);
  CHECK(p.periodic[1]);
  // Every bound key counts as read.
  CHECK(d.unused_keys().empty());

  // An int field is range-checked as Deck::get_int32 does; a fixed-size field takes its size from the type.
  const Deck big = Deck::parse(reg, "[bound]\nn = 4294967296\n", "x.ini");
  CHECK_THROWS_MATCHES(stratus::read_options<BoundParams>(big), InputError,
                       MessageContains({"key 'bound.n' = 4294967296 is out of range"}));
  CHECK_THROWS_MATCHES(Deck::parse(reg, "[bound]\ndecomp = 1 2\n", "x.ini"), InputError,
                       MessageContains({"key 'bound.decomp' needs 3 values, got 2"}));
}

TEST_CASE("physics_changes names the keys a restart may not change, with both values", "[deck][options]") {
  OptionRegistry reg;
  reg.add_real("run.t_end", 1.0, "s", "end").may_change_on_restart();
  reg.add_int("run.every", 10, "steps", "cadence").may_change_on_restart();
  reg.add_real("phys.g", 9.81, "m/s^2", "gravity");
  reg.add_string("phys.case", "wave", "", "case");
  reg.add_reals("phys.v", {1.0, 2.0}, "m/s", "velocity");
  const Deck stored = Deck::parse(reg, "[run]\nt_end = 5\n[phys]\ng = 9.81\n", "<stored>");
  const std::string text = stored.resolved_text();
  // The same physics with another end and cadence: nothing to refuse.
  const Deck later = Deck::parse(reg, "[run]\nt_end = 50\nevery = 3\n[phys]\ng = 9.81\n", "<later>");
  CHECK(later.physics_changes(text, "<stored>").empty());
  // Values compare as resolved: 9.810 is 9.81.
  CHECK(Deck::parse(reg, "[phys]\ng = 9.810\n", "<same>").physics_changes(text, "<stored>").empty());
  const Deck other = Deck::parse(reg, "[run]\nt_end = 50\n[phys]\ng = 1.62\ncase = jet\nv = 1 3\n", "<other>");
  const auto changes = other.physics_changes(text, "<stored>");
  REQUIRE(changes.size() == 3);
  CHECK(changes[0].key == "phys.g");
  CHECK(changes[0].value == "1.62");
  CHECK(changes[0].other == "9.81");
  CHECK(changes[1].key == "phys.case");
  CHECK(changes[2].key == "phys.v");
  // A stored deck this registry cannot read (another version) is an InputError naming its source.
  CHECK_THROWS_MATCHES(other.physics_changes("[phys]\nold_key = 1\n", "checkpoint x.h5"), InputError,
                       MessageContains({"checkpoint x.h5", "old_key"}));
}

TEST_CASE("RunParams: a physics that ends at a step count needs run.max_steps and has no t_end limit", "[deck]") {
  OptionRegistry reg;
  stratus::declare_run_options(reg, {"grid", "md"});
  const stratus::RunEndOf end_of = [](const std::string& p) {
    return p == "md" ? stratus::RunEnd::at_step : stratus::RunEnd::at_time;
  };
  const auto params = [&](const std::string& text) {
    return stratus::RunParams::from_deck(Deck::parse(reg, text, "<deck>"), end_of);
  };
  CHECK_THROWS_MATCHES(params("[run]\nphysics = md\n"), InputError,
                       MessageContains({"deck '<deck>'", "key 'run.max_steps' is needed", "md run"}));
  const auto steps = params("[run]\nphysics = md\nmax_steps = 10\n");
  CHECK(steps.max_steps == 10);
  CHECK(std::isinf(steps.t_end));
  CHECK(params("[run]\nphysics = md\nt_end = 5\n").t_end == 5.0);  // an explicit end time is one
  // A physics that ends at run.t_end: the default applies and no step count is needed.
  const auto time = params("[run]\nphysics = grid\n");
  CHECK(time.max_steps == 0);
  CHECK(time.t_end == 1.0);
  // Without a RunEndOf every physics ends at run.t_end.
  CHECK(stratus::RunParams::from_deck(Deck::parse(reg, "[run]\nphysics = md\n", "<deck>")).t_end == 1.0);
}
