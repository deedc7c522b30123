// Unit tests of core/gpu_telemetry against tests/fake_nvml.c (STRATUS_FAKE_NVML, the fake's path, is set
// by CMake, or at run time by the environment variable of that name when the tests run away from their
// build tree, as in scripts/gpu-check.sh; handed to the code through STRATUS_NVML_LIBRARY): two devices with their canned names,
// bus ids and readings, a failing power query read as NaN, min/mean/max over a varying temperature,
// selection by bus id, a sampler thread that samples and stops at once, NVML shut down on destruction;
// and a missing library: unavailable with a reason, no statistics, no crash. One rank, well under a second.
#include <dlfcn.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>

#include "core/gpu_telemetry.hpp"

using Catch::Matchers::Contains;
using stratus::GpuStats;
using stratus::GpuTelemetry;

namespace {

/// Points STRATUS_NVML_LIBRARY at `path` for the life of the object.
class NvmlLibrary {
 public:
  explicit NvmlLibrary(const std::string& path) {
    const char* old = std::getenv("STRATUS_NVML_LIBRARY");
    had_ = old != nullptr;
    if (had_) old_ = old;
    ::setenv("STRATUS_NVML_LIBRARY", path.c_str(), 1);
  }
  ~NvmlLibrary() {
    if (had_) {
      ::setenv("STRATUS_NVML_LIBRARY", old_.c_str(), 1);
    } else {
      ::unsetenv("STRATUS_NVML_LIBRARY");
    }
  }

 private:
  bool had_ = false;
  std::string old_;
};

/// The fake's path: $STRATUS_FAKE_NVML where set (a bundle moved to another machine), else the build tree's.
static const char* fake_nvml_path() {
  const char* env = ::getenv("STRATUS_FAKE_NVML");
  return env != nullptr && *env != '\0' ? env : STRATUS_FAKE_NVML;
}

/// The fake's count of nvmlInit_v2 calls not yet matched by nvmlShutdown (the test holds the library
/// open itself, so the count survives GpuTelemetry's dlclose).
class FakeReferences {
 public:
  FakeReferences() : lib_(::dlopen(fake_nvml_path(), RTLD_NOW | RTLD_LOCAL)) {
    REQUIRE(lib_ != nullptr);
    fn_ = reinterpret_cast<int (*)()>(::dlsym(lib_, "fake_nvml_references"));
    REQUIRE(fn_ != nullptr);
  }
  ~FakeReferences() { ::dlclose(lib_); }
  int operator()() const { return fn_(); }

 private:
  void* lib_;
  int (*fn_)() = nullptr;
};

GpuStats only(const std::vector<GpuStats>& s) {
  REQUIRE(s.size() == 1);
  return s[0];
}

}  // namespace

TEST_CASE("GpuTelemetry reads the canned values of two fake devices", "[gpu]") {
  NvmlLibrary lib(fake_nvml_path());
  FakeReferences refs;
  {
    GpuTelemetry t;
    REQUIRE(t.available());
    CHECK(t.unavailable_reason().empty());
    CHECK(refs() == 1);
    auto s = t.stats();
    REQUIRE(s.size() == 2);
    CHECK(s[0].name == "Fake GPU Alpha");
    CHECK(s[0].bus_id == "00000000:3B:00.0");
    CHECK(s[1].name == "Fake GPU Beta");
    CHECK(s[1].bus_id == "00000000:86:00.0");
    CHECK(s[0].samples == 0);
    CHECK(std::isnan(s[0].mean.temperature_c));

    for (int i = 0; i < 3; ++i) t.sample_now();  // device 0: 50, 60, 70 degrees C
    s = t.stats();
    REQUIRE(s.size() == 2);
    const GpuStats& a = s[0];
    CHECK(a.samples == 3);
    CHECK(a.min.temperature_c == 50);
    CHECK(a.mean.temperature_c == 60);
    CHECK(a.max.temperature_c == 70);
    CHECK(a.last.temperature_c == 70);
    CHECK(a.mean.power_w == 312.5);
    CHECK(a.mean.utilization_pct == 87);
    CHECK(a.last.memory_used_bytes == 2147483648.0);
    CHECK(a.last.memory_total_bytes == 150754820096.0);
    const GpuStats& b = s[1];
    CHECK(b.samples == 3);
    CHECK(b.min.temperature_c == 40);
    CHECK(b.max.temperature_c == 40);
    CHECK(b.last.utilization_pct == 0);
    CHECK(b.last.memory_used_bytes == 1048576.0);
    // The fake's device 1 has no power reading: NaN, in every statistic.
    CHECK(std::isnan(b.last.power_w));
    CHECK(std::isnan(b.min.power_w));
    CHECK(std::isnan(b.mean.power_w));
    CHECK(std::isnan(b.max.power_w));
  }
  CHECK(refs() == 0);  // nvmlShutdown on destruction
}

TEST_CASE("GpuTelemetry selects devices by PCI bus id", "[gpu]") {
  NvmlLibrary lib(fake_nvml_path());
  {
    GpuTelemetry t({"00000000:86:00.0", "00000000:01:00.0"});  // the second is not there: skipped
    REQUIRE(t.available());
    t.sample_now();
    const GpuStats s = only(t.stats());
    CHECK(s.name == "Fake GPU Beta");
    CHECK(s.bus_id == "00000000:86:00.0");
    CHECK(s.last.temperature_c == 40);
  }
  GpuTelemetry none({"00000000:01:00.0"});
  CHECK_FALSE(none.available());
  CHECK_THAT(none.unavailable_reason(), Contains("00000000:01:00.0"));
  none.sample_now();
  none.start(0.01);
  CHECK(none.stats().empty());
}

TEST_CASE("GpuTelemetry samples on its thread and stops it at once", "[gpu]") {
  NvmlLibrary lib(fake_nvml_path());
  FakeReferences refs;
  {
    GpuTelemetry t;
    t.start(0.002);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (t.stats().at(0).samples < 6 && std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    const GpuStats s = t.stats().at(0);
    REQUIRE(s.samples >= 6);
    CHECK(s.min.temperature_c == 50);
    CHECK(s.max.temperature_c == 70);
    t.sample_now();  // alongside the thread
  }
  CHECK(refs() == 0);
  // A sampler waiting out a long interval ends as soon as the telemetry is destroyed.
  auto* t = new GpuTelemetry;
  t->start(3600);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (t->stats().at(0).samples < 1 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  t->start(3600);  // replaces the sampler
  const auto before = std::chrono::steady_clock::now();
  delete t;
  CHECK(std::chrono::steady_clock::now() - before < std::chrono::seconds(2));
  CHECK(refs() == 0);
}

TEST_CASE("GpuTelemetry without NVML is unavailable and harmless", "[gpu]") {
  NvmlLibrary lib("/nonexistent/libnvidia-ml.so.1");
  GpuTelemetry t;
  CHECK_FALSE(t.available());
  CHECK_THAT(t.unavailable_reason(), Contains("/nonexistent/libnvidia-ml.so.1") && Contains("not found"));
  t.start(0.001);
  t.sample_now();
  CHECK(t.stats().empty());
}

TEST_CASE("GpuTelemetry reports a library that is not NVML", "[gpu]") {
  NvmlLibrary lib("libc.so.6");  // loads, but has no NVML symbols
  GpuTelemetry t;
  CHECK_FALSE(t.available());
  CHECK_THAT(t.unavailable_reason(), Contains("nvmlInit_v2") && Contains("missing"));
  CHECK(t.stats().empty());
}
