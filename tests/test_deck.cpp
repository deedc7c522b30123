// Unit tests of the option registry and input-deck parsing (src/input/deck.*): every option type, the
// defaults, command-line overrides, each InputError path (unknown keys with suggestions, strict type
// checks, bounds, choices, list sizes, required and duplicate keys, syntax errors, unreadable files),
// the programming errors of the getters, unused-key tracking, the resolved_text() round trip, the
// help text (the bindings of input/options.hpp: test_options.cpp). They use a small registry of their
// own, not the options of any solver, and run on one rank in milliseconds.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "input/deck.hpp"
#include "input/options.hpp"
#include "message_matcher.hpp"

using Catch::Matchers::Contains;
using stratus::Deck;
using stratus::InputError;
using stratus::OptionRegistry;

namespace {

OptionRegistry make_registry() {
  OptionRegistry reg;
  reg.add_int("grid.nx", 64, "cells", "Cells along x.").at_least(1);
  reg.add_int("grid.ny", 32, "cells", "Cells along y.").at_least(1).at_most(4096);
  reg.add_real("grid.length", 1.0, "m", "Domain length along x.").greater_than(0.0);
  reg.add_real("run.dt", 1e-3, "s", "Time step.").at_least(0.0);
  reg.add_real("run.cfl", 0.5, "1", "Courant number.").greater_than(0.0).less_than(1.0);
  reg.add_string("run.physics", "", "", "Physics module.").one_of({"advection", "diffusion"}).require();
  reg.add_string("run.title", "untitled", "", "Free-form run title.");
  reg.add_bool("output.enabled", true, "", "Write output files.");
  reg.add_ints("parallel.decomp", {1, 1, 1}, "", "Ranks per dimension.").size(3).at_least(1);
  reg.add_reals("physics.velocity", {1.0, 0.0}, "m/s", "Advection velocity.");
  return reg;
}

const char* kMinimal = "[run]\nphysics = advection\n";

// The message of the InputError that parsing throws; fails the test when none (or another type) is thrown.
std::string parse_error(const OptionRegistry& reg, const std::string& text, const std::vector<std::string>& ov = {}) {
  try {
    Deck::parse(reg, text, "inputs/x.ini", ov);
  } catch (const InputError& e) {
    const std::string msg = e.what();
    CHECK(msg.find('\n') == std::string::npos);  // one line
    return msg;
  }
  FAIL("expected an InputError for deck text:\n" << text);
  return {};
}

}  // namespace

TEST_CASE("Deck parses every option type", "[deck]") {
  const OptionRegistry reg = make_registry();
  const std::string text =
      "# a comment line\n"
      "[grid]\n"
      "nx = 128   # trailing comment\n"
      "ny = 7\n"
      "length = 2.5e-3\n"
      "[run]\n"
      "dt = 0.1\n"
      "cfl = 0.9\n"
      "physics = diffusion\n"
      "title = first test\n"
      "[output]\n"
      "enabled = off\n"
      "[parallel]\n"
      "decomp = 2, 2 1\n"
      "[physics]\n"
      "velocity = -1.5 2 3e2\n";
  const Deck d = Deck::parse(reg, text, "inputs/x.ini");
  CHECK(d.source() == "inputs/x.ini");
  CHECK(d.text() == text);
  CHECK(d.get_int("grid.nx") == 128);
  CHECK(d.get_int("grid.ny") == 7);
  CHECK(d.get_real("grid.length") == 2.5e-3);
  CHECK(d.get_real("run.dt") == 0.1);
  CHECK(d.get_real("run.cfl") == 0.9);
  CHECK(d.get_string("run.physics") == "diffusion");
  CHECK(d.get_string("run.title") == "first test");
  CHECK_FALSE(d.get_bool("output.enabled"));
  CHECK(d.get_ints("parallel.decomp") == std::vector<long long>{2, 2, 1});
  CHECK(d.get_reals("physics.velocity") == std::vector<double>{-1.5, 2.0, 300.0});
}

TEST_CASE("Deck applies defaults and is_set reports given keys only", "[deck]") {
  const OptionRegistry reg = make_registry();
  const Deck d = Deck::parse(reg, kMinimal, "inputs/x.ini");
  CHECK(d.get_int("grid.nx") == 64);
  CHECK(d.get_real("run.dt") == 1e-3);
  CHECK(d.get_string("run.title") == "untitled");
  CHECK(d.get_bool("output.enabled"));
  CHECK(d.get_ints("parallel.decomp") == std::vector<long long>{1, 1, 1});
  CHECK(d.get_reals("physics.velocity") == std::vector<double>{1.0, 0.0});
  CHECK(d.is_set("run.physics"));
  CHECK_FALSE(d.is_set("grid.nx"));
  CHECK_FALSE(d.is_set("no.such"));
}

TEST_CASE("Deck overrides win over the deck text", "[deck]") {
  const OptionRegistry reg = make_registry();
  const std::string text = "[grid]\nnx = 10\n[run]\nphysics = advection\n";
  const Deck d = Deck::parse(
      reg, text, "inputs/x.ini",
      {"grid.nx=20", " run.physics = diffusion ", "grid.ny=5", "grid.ny=6", "parallel.decomp=4,1,1", "run.title=a=b"});
  CHECK(d.get_int("grid.nx") == 20);
  CHECK(d.get_string("run.physics") == "diffusion");
  CHECK(d.get_int("grid.ny") == 6);  // a later override of the same key wins
  CHECK(d.get_ints("parallel.decomp") == std::vector<long long>{4, 1, 1});
  CHECK(d.get_string("run.title") == "a=b");  // only the first '=' separates key and value
  CHECK(d.is_set("grid.ny"));

  // An override can supply a required key the deck lacks.
  CHECK(Deck::parse(reg, "", "inputs/x.ini", {"run.physics=advection"}).get_string("run.physics") == "advection");
}

TEST_CASE("Deck rejects malformed and unknown overrides", "[deck]") {
  const OptionRegistry reg = make_registry();
  for (const std::string bad : {"gridnx=3", "grid.nx", "=3", ".nx=3", "grid.=3"}) {
    const std::string msg = parse_error(reg, kMinimal, {bad});
    CHECK_THAT(msg, Contains("command line") && Contains("'" + bad + "'") && Contains("section.key=value"));
  }
  CHECK_THAT(parse_error(reg, kMinimal, {"grid.nxx=3"}), Contains("command line override 'grid.nxx=3'") &&
                                                             Contains("unknown key 'grid.nxx'") &&
                                                             Contains("did you mean 'grid.nx'?"));
  CHECK_THAT(parse_error(reg, kMinimal, {"grid.nx=abc"}), Contains("command line override 'grid.nx=abc'") &&
                                                              Contains("key 'grid.nx' expects an integer, got 'abc'"));
  CHECK_THAT(parse_error(reg, kMinimal, {"run.title=a#b"}), Contains("run.title=a#b") && Contains("'#'"));
}

TEST_CASE("Deck reports unknown keys with a suggestion", "[deck]") {
  const OptionRegistry reg = make_registry();
  REQUIRE_THROWS_MATCHES(
      Deck::parse(reg, "[grid]\nnxx = 3\n[run]\nphysics = advection\n", "inputs/x.ini"), InputError,
      Catch::Matchers::Message("deck 'inputs/x.ini': unknown key 'grid.nxx' (did you mean 'grid.nx'?)"));
  // Wrong section.
  CHECK_THAT(parse_error(reg, "[grd]\nnx = 3\n"),
             Contains("unknown key 'grd.nx'") && Contains("did you mean 'grid.nx'?"));
  // The right name in an unrelated section, and a key written without any section.
  CHECK_THAT(parse_error(reg, "[mesh]\nlength = 3\n"),
             Contains("unknown key 'mesh.length'") && Contains("did you mean 'grid.length'?"));
  CHECK_THAT(parse_error(reg, "physics = advection\n"),
             Contains("unknown key 'physics'") && Contains("did you mean 'run.physics'?"));
  // Nothing close: the section's keys, or the known sections.
  CHECK_THAT(parse_error(reg, "[grid]\nresolution = 3\n"), Contains("unknown key 'grid.resolution'") &&
                                                               Contains("valid keys in [grid]: nx, ny, length") &&
                                                               !Contains("did you mean"));
  CHECK_THAT(parse_error(reg, "[chemistry]\nreactions = 3\n"),
             Contains("unknown key 'chemistry.reactions'") &&
                 Contains("known sections: grid, run, output, parallel, physics") && !Contains("did you mean"));
  // A one-letter name is too short for a loose match in another section.
  CHECK_THAT(parse_error(reg, "[chem]\nx = 1\n"), Contains("unknown key 'chem.x'") && !Contains("did you mean"));
  // Equally close keys are all offered.
  CHECK_THAT(parse_error(reg, "[grid]\nnz = 1\n"), Contains("did you mean 'grid.nx' or 'grid.ny'?"));
}

TEST_CASE("Deck rejects wrong types strictly", "[deck]") {
  const OptionRegistry reg = make_registry();
  auto deck_with = [](const std::string& section, const std::string& line) {
    return std::string(kMinimal) + "[" + section + "]\n" + line + "\n";
  };
  REQUIRE_THROWS_MATCHES(Deck::parse(reg, deck_with("grid", "nx = abc"), "inputs/x.ini"), InputError,
                         Catch::Matchers::Message("deck 'inputs/x.ini': key 'grid.nx' expects an integer, got 'abc'"));
  for (const std::string bad : {"12abc", "1.5", "1e3", "0x10", "", "+-3", "3 4"})
    CHECK_THAT(parse_error(reg, deck_with("grid", "nx = " + bad)),
               Contains("key 'grid.nx' expects an integer, got '" + bad + "'"));
  CHECK_THAT(parse_error(reg, deck_with("grid", "nx = 99999999999999999999")),
             Contains("key 'grid.nx'") && Contains("64-bit"));
  for (const std::string bad : {"fast", "1.0.0", "2.5x", "nan", "inf", "1e", ""})
    CHECK_THAT(parse_error(reg, deck_with("run", "dt = " + bad)),
               Contains("key 'run.dt' expects a finite real number, got '" + bad + "'"));
  CHECK_THAT(parse_error(reg, deck_with("run", "dt = 1e400")),
             Contains("key 'run.dt'") && Contains("range of a double"));
  for (const std::string bad : {"maybe", "2", "y", ""})
    CHECK_THAT(parse_error(reg, deck_with("output", "enabled = " + bad)),
               Contains("key 'output.enabled' expects a bool") && Contains("got '" + bad + "'"));
  CHECK_THAT(parse_error(reg, deck_with("parallel", "decomp = 2 x 1")),
             Contains("key 'parallel.decomp' expects a list of integers, got '2 x 1'") && Contains("element 2 (x)"));
  CHECK_THAT(parse_error(reg, deck_with("physics", "velocity = 1 2.5.1")),
             Contains("key 'physics.velocity' expects a list of real numbers"));

  // Accepted number spellings.
  const Deck d =
      Deck::parse(reg, std::string(kMinimal) + "[grid]\nnx = +007\nlength = .5\n[run]\ndt = 2.\n", "inputs/x.ini");
  CHECK(d.get_int("grid.nx") == 7);
  CHECK(d.get_real("grid.length") == 0.5);
  CHECK(d.get_real("run.dt") == 2.0);
}

TEST_CASE("Deck accepts every bool spelling", "[deck]") {
  const OptionRegistry reg = make_registry();
  for (const std::string t : {"true", "yes", "on", "1", "TRUE", "Yes"}) {
    CAPTURE(t);
    CHECK(Deck::parse(reg, std::string(kMinimal) + "[output]\nenabled = " + t + "\n", "x").get_bool("output.enabled"));
  }
  for (const std::string f : {"false", "no", "off", "0", "False", "OFF"}) {
    CAPTURE(f);
    CHECK_FALSE(
        Deck::parse(reg, std::string(kMinimal) + "[output]\nenabled = " + f + "\n", "x").get_bool("output.enabled"));
  }
}

TEST_CASE("Deck checks inclusive and exclusive bounds", "[deck]") {
  const OptionRegistry reg = make_registry();
  auto parse = [&](const std::string& extra) {
    return Deck::parse(reg, std::string(kMinimal) + extra, "inputs/x.ini");
  };

  // Inclusive lower bound: the bound itself is valid.
  CHECK(parse("[run]\ndt = 0\n").get_real("run.dt") == 0.0);
  REQUIRE_THROWS_MATCHES(
      parse("[run]\ndt = -1\n"), InputError,
      Catch::Matchers::Message("deck 'inputs/x.ini': key 'run.dt' = -1 is out of range: must be >= 0 [s]"));
  // Exclusive bounds on both sides: the bounds are rejected, values just inside accepted.
  CHECK(parse("[run]\ncfl = 0.999\n").get_real("run.cfl") == 0.999);
  CHECK(parse("[run]\ncfl = 1e-9\n").get_real("run.cfl") == 1e-9);
  CHECK_THAT(parse_error(reg, std::string(kMinimal) + "[run]\ncfl = 1\n"),
             Contains("key 'run.cfl' = 1 is out of range: must be > 0 and < 1"));
  CHECK_THAT(parse_error(reg, std::string(kMinimal) + "[run]\ncfl = 0\n"),
             Contains("key 'run.cfl' = 0 is out of range"));
  CHECK_THAT(parse_error(reg, std::string(kMinimal) + "[grid]\nlength = 0\n"),
             Contains("key 'grid.length' = 0 is out of range: must be > 0 [m]"));
  // Integer bounds, inclusive at both ends.
  CHECK(parse("[grid]\nny = 1\n").get_int("grid.ny") == 1);
  CHECK(parse("[grid]\nny = 4096\n").get_int("grid.ny") == 4096);
  CHECK_THAT(parse_error(reg, std::string(kMinimal) + "[grid]\nny = 4097\n"),
             Contains("key 'grid.ny' = 4097 is out of range: must be >= 1 and <= 4096 [cells]"));
  CHECK_THAT(parse_error(reg, std::string(kMinimal) + "[grid]\nnx = 0\n"),
             Contains("key 'grid.nx' = 0 is out of range"));
  // Bounds apply to every list element.
  CHECK_THAT(parse_error(reg, std::string(kMinimal) + "[parallel]\ndecomp = 2 0 1\n"),
             Contains("key 'parallel.decomp' = '2 0 1' is out of range: element 2 (0) must be >= 1"));
  // Overrides are checked the same way.
  CHECK_THAT(parse_error(reg, kMinimal, {"run.dt=-2"}),
             Contains("command line override 'run.dt=-2': key 'run.dt' = -2 is out of range"));
}

TEST_CASE("Deck checks choices and required keys", "[deck]") {
  const OptionRegistry reg = make_registry();
  REQUIRE_THROWS_MATCHES(Deck::parse(reg, "[grid]\nnx = 4\n", "inputs/x.ini"), InputError,
                         Catch::Matchers::Message("deck 'inputs/x.ini': missing required key 'run.physics'"));
  CHECK_THAT(parse_error(reg, "[run]\nphysics = foo\n"),
             Contains("deck 'inputs/x.ini': key 'run.physics' = 'foo' is not one of: advection, diffusion"));
  CHECK_THAT(parse_error(reg, "[run]\nphysics = Advection\n"), Contains("is not one of"));  // choices are exact
}

TEST_CASE("Deck checks list sizes and separators", "[deck]") {
  const OptionRegistry reg = make_registry();
  auto decomp = [&](const std::string& v) {
    return Deck::parse(reg, std::string(kMinimal) + "[parallel]\ndecomp = " + v + "\n", "x")
        .get_ints("parallel.decomp");
  };
  CHECK(decomp("2 2 1") == std::vector<long long>{2, 2, 1});
  CHECK(decomp("2,2,1") == std::vector<long long>{2, 2, 1});
  CHECK(decomp("2 , 2 ,1") == std::vector<long long>{2, 2, 1});
  CHECK(decomp("\t2  2\t1") == std::vector<long long>{2, 2, 1});
  REQUIRE_THROWS_MATCHES(Deck::parse(reg, std::string(kMinimal) + "[parallel]\ndecomp = 2 2\n", "inputs/x.ini"),
                         InputError,
                         Catch::Matchers::Message("deck 'inputs/x.ini': key 'parallel.decomp' needs 3 values, got 2"));
  CHECK_THAT(parse_error(reg, std::string(kMinimal) + "[parallel]\ndecomp = 1 1 1 1\n"),
             Contains("key 'parallel.decomp' needs 3 values, got 4"));
  CHECK_THAT(parse_error(reg, std::string(kMinimal) + "[parallel]\ndecomp =\n"),
             Contains("key 'parallel.decomp' needs 3 values, got 0"));
  for (const std::string bad : {"2,,2", ",2 2 2", "2 2 2,"})
    CHECK_THAT(parse_error(reg, std::string(kMinimal) + "[parallel]\ndecomp = " + bad + "\n"),
               Contains("key 'parallel.decomp' has an empty element"));
  // A list without a fixed size takes any count, but at least one value.
  CHECK(Deck::parse(reg, std::string(kMinimal) + "[physics]\nvelocity = 4\n", "x").get_reals("physics.velocity") ==
        std::vector<double>{4.0});
  CHECK_THAT(parse_error(reg, std::string(kMinimal) + "[physics]\nvelocity = \n"),
             Contains("key 'physics.velocity' needs at least one value"));
}

TEST_CASE("Deck rejects duplicate keys and syntax errors", "[deck]") {
  const OptionRegistry reg = make_registry();
  CHECK_THAT(parse_error(reg, "[grid]\nnx = 4\n[run]\nphysics = advection\n[grid]\nnx = 5\n"),
             Contains("deck 'inputs/x.ini': key 'grid.nx' is given more than once (lines 2 and 6)"));
  CHECK_THAT(parse_error(reg, "[run]\nphysics = advection\n\nthis line has no equals sign\n"),
             Contains("deck 'inputs/x.ini': line 4: invalid line 'this line has no equals sign'"));
  CHECK_THAT(parse_error(reg, "[]\nnx = 4\n"), Contains("deck 'inputs/x.ini': line 1: empty section name"));
  CHECK_THAT(parse_error(reg, "[grid]\n= 4\n"),
             Contains("deck 'inputs/x.ini': missing key name") && Contains("line 2"));
}

TEST_CASE("Deck::from_file reads a file and names an unreadable one", "[deck]") {
  const OptionRegistry reg = make_registry();
  const auto dir = std::filesystem::temp_directory_path() / ("stratus_test_deck_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "good.ini").string();
  {
    std::ofstream f(path);
    f << "[run]\nphysics = advection\n[grid]\nnx = 12\n";
  }
  const Deck d = Deck::from_file(reg, path, {"grid.ny=3"});
  CHECK(d.source() == path);
  CHECK(d.get_int("grid.nx") == 12);
  CHECK(d.get_int("grid.ny") == 3);

  // Errors inside the file name its path.
  {
    std::ofstream f(dir / "bad.ini");
    f << "[run]\nphysics = advection\n[grid]\nnx = x\n";
  }
  const std::string bad = (dir / "bad.ini").string();
  REQUIRE_THROWS_MATCHES(Deck::from_file(reg, bad), InputError,
                         MessageContains({"deck '" + bad + "': key 'grid.nx' expects an integer, got 'x'"}));

  const std::string missing = (dir / "missing.ini").string();
  REQUIRE_THROWS_MATCHES(Deck::from_file(reg, missing), InputError,
                         MessageContains({"cannot read deck file '" + missing + "': ", "No such file"}));
  REQUIRE_THROWS_MATCHES(Deck::from_file(reg, dir.string()), InputError,
                         MessageContains({"cannot read deck file '" + dir.string() + "'"}));
  std::filesystem::remove_all(dir);
}

TEST_CASE("Deck getters treat undeclared keys and wrong types as programming errors", "[deck]") {
  const OptionRegistry reg = make_registry();
  const Deck d = Deck::parse(reg, kMinimal, "x");
  // stratus::Error, not InputError: these are bugs in the reading code, not in the deck.
  CHECK_THROWS_AS(d.get_int("grid.nz"), stratus::Error);
  CHECK_THROWS_AS(d.get_real("grid.nx"), stratus::Error);
  CHECK_THROWS_AS(d.get_int("run.dt"), stratus::Error);
  CHECK_THROWS_AS(d.get_string("output.enabled"), stratus::Error);
  CHECK_THROWS_AS(d.get_bool("run.title"), stratus::Error);
  CHECK_THROWS_AS(d.get_ints("physics.velocity"), stratus::Error);
  CHECK_THROWS_AS(d.get_reals("parallel.decomp"), stratus::Error);
  REQUIRE_THROWS_MATCHES(d.get_real("no.such"), stratus::Error, MessageContains({"no.such"}));
}

TEST_CASE("Deck tracks keys that were given but never read", "[deck]") {
  const OptionRegistry reg = make_registry();
  const Deck d = Deck::parse(reg, "[run]\nphysics = advection\ndt = 0.5\n[grid]\nnx = 8\n", "x", {"grid.ny=9"});
  CHECK(d.unused_keys() == std::vector<std::string>{"grid.nx", "grid.ny", "run.dt", "run.physics"});
  d.get_int("grid.nx");
  d.get_real("grid.length");  // a defaulted key: reading it does not make it "given"
  const Deck copy = d;        // copies share what has been read
  copy.get_string("run.physics");
  CHECK(d.unused_keys() == std::vector<std::string>{"grid.ny", "run.dt"});
  d.get_int("grid.ny");
  d.get_real("run.dt");
  CHECK(d.unused_keys().empty());
}

TEST_CASE("Deck resolved_text round-trips every value", "[deck]") {
  const OptionRegistry reg = make_registry();
  const std::string text =
      "[grid]\nnx = 128\nlength = 0.1\n[run]\ndt = 3.3333333333333335e-05\ncfl = 0.7\nphysics = diffusion\n"
      "title = a b  c\n[output]\nenabled = no\n[parallel]\ndecomp = 2,2,1\n[physics]\nvelocity = 0.1 -2e-300 1\n";
  const Deck d = Deck::parse(reg, text, "x", {"grid.ny=17"});
  const std::string resolved = d.resolved_text();
  CAPTURE(resolved);
  CHECK_THAT(resolved, Contains("[grid]\nnx = 128  # cells\nny = 17  # cells\nlength = 0.1  # m\n"));
  CHECK_THAT(resolved, Contains("enabled = false\n"));
  CHECK_THAT(resolved, Contains("decomp = 2 2 1\n"));

  const Deck again = Deck::parse(reg, resolved, "resolved");
  for (const char* k : {"grid.nx", "grid.ny"}) CHECK(again.get_int(k) == d.get_int(k));
  for (const char* k : {"grid.length", "run.dt", "run.cfl"}) CHECK(again.get_real(k) == d.get_real(k));
  for (const char* k : {"run.physics", "run.title"}) CHECK(again.get_string(k) == d.get_string(k));
  CHECK(again.get_bool("output.enabled") == d.get_bool("output.enabled"));
  CHECK(again.get_ints("parallel.decomp") == d.get_ints("parallel.decomp"));
  CHECK(again.get_reals("physics.velocity") == d.get_reals("physics.velocity"));
  CHECK(again.resolved_text() == resolved);

  // Values that need all 17 significant digits survive, as do defaults.
  const double third = 1.0 / 3.0, tiny = std::nextafter(1.0, 2.0);
  OptionRegistry r2;
  r2.add_real("a.x", third, "", "");
  r2.add_reals("a.v", {tiny, -third}, "", "");
  r2.add_string("b.empty", "", "", "");
  const Deck d2 = Deck::parse(r2, "", "x");
  const Deck d3 = Deck::parse(r2, d2.resolved_text(), "y");
  CHECK(d3.get_real("a.x") == third);
  CHECK(d3.get_reals("a.v") == std::vector<double>{tiny, -third});
  CHECK(d3.get_string("b.empty").empty());
}

TEST_CASE("OptionRegistry help_text lists keys, types, defaults, units and ranges", "[deck]") {
  const OptionRegistry reg = make_registry();
  const std::string all = reg.help_text();
  CAPTURE(all);
  for (const char* k : {"[grid]", "[run]", "grid.nx", "run.physics", "parallel.decomp", "physics.velocity"})
    CHECK_THAT(all, Contains(k));
  CHECK_THAT(all, Contains("grid.nx  (int; default 64; unit cells; >= 1)"));
  CHECK_THAT(all, Contains("Cells along x."));
  CHECK_THAT(all, Contains("run.dt  (real; default 0.001; unit s; >= 0)"));
  CHECK_THAT(all, Contains("run.cfl  (real; default 0.5; unit 1; > 0 and < 1)"));
  CHECK_THAT(all, Contains("run.physics  (string; required; one of: advection, diffusion)"));
  CHECK_THAT(all, Contains("output.enabled  (bool; default true)"));
  CHECK_THAT(all, Contains("parallel.decomp  (list of int (3 values); default 1 1 1; each >= 1)"));
  CHECK_THAT(all, Contains("physics.velocity  (list of real; default 1 0; unit m/s)"));

  const std::string grid = reg.help_text("grid");
  CHECK_THAT(grid, Contains("grid.ny") && !Contains("run.dt") && !Contains("[run]"));
  REQUIRE_THROWS_MATCHES(
      reg.help_text("gird"), InputError,
      MessageContains({"unknown deck section 'gird'", "known sections: grid, run, output, parallel, physics"}));
}

TEST_CASE("OptionRegistry rejects duplicate and malformed declarations", "[deck]") {
  OptionRegistry reg;
  reg.add_int("grid.nx", 1, "", "");
  CHECK_THROWS_AS(reg.add_real("grid.nx", 1.0, "", ""), stratus::Error);
  CHECK_THROWS_AS(reg.add_int("nosection", 1, "", ""), stratus::Error);
  CHECK_THROWS_AS(reg.add_int("grid.bad key", 1, "", ""), stratus::Error);
  REQUIRE(reg.all().size() == 1);
  CHECK(reg.find("grid.nx") != nullptr);
  CHECK(reg.find("grid.ny") == nullptr);
  // Real defaults keep every digit.
  reg.add_real("grid.h", 0.1 + 0.2, "m", "");
  CHECK(reg.find("grid.h")->default_text == "0.30000000000000004");
  // A default that violates its own bounds is a declaration bug, reported as Error when parsing.
  reg.add_int("grid.ng", 0, "", "").at_least(1);
  CHECK_THROWS_AS(Deck::parse(reg, "", "x"), stratus::Error);
  CHECK(Deck::parse(reg, "[grid]\nng = 2\n", "x").get_int("grid.ng") == 2);
}

TEST_CASE("Deck rejects control characters, which would cut file names short", "[deck]") {
  const OptionRegistry reg = make_registry();
  // A NUL inside a value (it once sent every output of a run to one file).
  const char nul[] = "[run]\nphysics = advection\ntitle = a\0b\n";
  CHECK_THAT(parse_error(reg, std::string(nul, sizeof nul - 1)), Contains("line 3: control character 0x00"));
  CHECK_THAT(parse_error(reg, "[run]\nphysics = advection\ntitle = a\x1b[31mred\n"), Contains("control character 0x1b"));
  CHECK_THAT(parse_error(reg, kMinimal, {std::string("run.title=a\x07")}),
             Contains("command line override") && Contains("control character 0x07"));
  // Tabs and CRLF line ends are ordinary text.
  CHECK(Deck::parse(reg, "[run]\r\nphysics =\tadvection\r\n", "x.ini").get_string("run.physics") == "advection");
}

TEST_CASE("Deck rejects a huge unknown key at once with a short message", "[deck]") {
  const OptionRegistry reg = make_registry();
  const std::string key(2000000, 'k');
  const auto t0 = std::chrono::steady_clock::now();
  const std::string msg = parse_error(reg, "[grid]\n" + key + " = 1\n");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(seconds < 2.0);  // the edit-distance search took minutes on such keys
  CHECK(msg.size() < 300);
  CHECK_THAT(msg, Contains("unknown key 'grid.kkk") && Contains("...'"));
}

TEST_CASE("Deck get_int32 and get_ints32 refuse values an int cannot hold", "[deck]") {
  const OptionRegistry reg = make_registry();
  const Deck ok = Deck::parse(reg, kMinimal, "x.ini", {"grid.nx=2147483647", "parallel.decomp=2 3 1"});
  CHECK(ok.get_int32("grid.nx") == 2147483647);
  CHECK(ok.get_ints32("parallel.decomp") == std::vector<int>{2, 3, 1});
  // 2^32 + 64 used to become 64; 2^31 used to be reported as -2147483648.
  const Deck big = Deck::parse(reg, kMinimal, "x.ini", {"grid.nx=4294967360", "parallel.decomp=4294967298 1 1"});
  CHECK(big.get_int("grid.nx") == 4294967360LL);
  CHECK_THROWS_MATCHES(big.get_int32("grid.nx"), InputError,
                       MessageContains({"key 'grid.nx' = 4294967360 is out of range", "2147483647"}));
  CHECK_THROWS_MATCHES(big.get_ints32("parallel.decomp"), InputError,
                       MessageContains({"key 'parallel.decomp' = 4294967298 is out of range"}));
  const Deck edge = Deck::parse(reg, kMinimal, "x.ini", {"grid.nx=2147483648"});
  CHECK_THROWS_MATCHES(edge.get_int32("grid.nx"), InputError, MessageContains({"= 2147483648 is out of range"}));
}

// ------------------------------------------------------------------------------------------------
// Bindings (input/options.hpp)
