// GpuTelemetry on NVML through dlopen/dlsym. The few NVML entry points used are declared here as
// function-pointer types with the C ABI of nvml.h (an int return code, 0 = success; opaque device
// handles; the plain structs nvmlUtilization_t, nvmlMemory_t and nvmlPciInfo_t), so no NVML header or
// library is needed to build. nvmlDeviceGetPciInfo_v3 and nvmlErrorString are optional (bus ids and
// readable error names); the others are required. One mutex serialises sampling and guards the
// statistics; the sampler waits on a condition variable so that destruction ends it at once.
#include "core/gpu_telemetry.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <thread>

namespace stratus {
namespace {

// The subset of nvml.h used here.
using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlTemperatureGpu = 0;
constexpr unsigned kNvmlNameBufferSize = 96;
struct nvmlUtilization_t {
  unsigned gpu;
  unsigned memory;
};
struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pciDeviceId;
  unsigned pciSubSystemId;
  char busId[32];
};

using InitFn = nvmlReturn_t (*)();
using ShutdownFn = nvmlReturn_t (*)();
using ErrorStringFn = const char* (*)(nvmlReturn_t);
using GetCountFn = nvmlReturn_t (*)(unsigned*);
using GetHandleByIndexFn = nvmlReturn_t (*)(unsigned, nvmlDevice_t*);
using GetHandleByBusIdFn = nvmlReturn_t (*)(const char*, nvmlDevice_t*);
using GetNameFn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned);
using GetPciInfoFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlPciInfo_t*);
using GetTemperatureFn = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*);
using GetPowerUsageFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned*);
using GetUtilizationFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlUtilization_t*);
using GetMemoryInfoFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*);

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

GpuSample nan_sample() { return {kNaN, kNaN, kNaN, kNaN, kNaN}; }

/// Running min/sum/max/count of one field, skipping NaN.
struct FieldStats {
  double min = kNaN, max = kNaN, sum = 0.0;
  long count = 0;
  void add(double v) {
    if (std::isnan(v)) return;
    min = count == 0 ? v : std::min(min, v);
    max = count == 0 ? v : std::max(max, v);
    sum += v;
    ++count;
  }
  double mean() const { return count == 0 ? kNaN : sum / static_cast<double>(count); }
};

struct Device {
  nvmlDevice_t handle = nullptr;
  std::string name, bus_id;
  int samples = 0;
  FieldStats temperature, power, utilization, memory_used, memory_total;
  GpuSample last = nan_sample();
};

}  // namespace

struct GpuTelemetry::Impl {
  void* lib = nullptr;
  bool initialised = false;
  std::string reason;

  ShutdownFn shutdown = nullptr;
  ErrorStringFn error_string = nullptr;
  GetTemperatureFn get_temperature = nullptr;
  GetPowerUsageFn get_power = nullptr;
  GetUtilizationFn get_utilization = nullptr;
  GetMemoryInfoFn get_memory = nullptr;

  mutable std::mutex mutex;  // guards devices (and serialises NVML sampling)
  std::vector<Device> devices;

  std::mutex thread_mutex;  // guards stop_requested; used with wake
  std::condition_variable wake;
  bool stop_requested = false;
  std::thread sampler;

  std::string error_name(nvmlReturn_t rc) const {
    const char* s = error_string ? error_string(rc) : nullptr;
    return "error " + std::to_string(rc) + (s ? std::string(" (") + s + ")" : std::string());
  }

  template <class Fn>
  bool load(Fn& fn, const char* symbol, const std::string& path) {
    fn = reinterpret_cast<Fn>(::dlsym(lib, symbol));
    if (!fn && reason.empty()) reason = std::string("symbol ") + symbol + " missing in " + path;
    return fn != nullptr;
  }

  void open(const std::vector<std::string>& bus_ids) {
    const char* env = std::getenv("STRATUS_NVML_LIBRARY");
    const std::string path = env && *env ? env : "libnvidia-ml.so.1";
    lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = ::dlerror();
      reason = path + " not found" + (why ? std::string(": ") + why : std::string());
      return;
    }
    InitFn init = nullptr;
    GetCountFn get_count = nullptr;
    GetHandleByIndexFn by_index = nullptr;
    GetHandleByBusIdFn by_bus_id = nullptr;
    GetNameFn get_name = nullptr;
    error_string = reinterpret_cast<ErrorStringFn>(::dlsym(lib, "nvmlErrorString"));
    auto get_pci = reinterpret_cast<GetPciInfoFn>(::dlsym(lib, "nvmlDeviceGetPciInfo_v3"));
    const bool ok =
        load(init, "nvmlInit_v2", path) & load(shutdown, "nvmlShutdown", path) &
        load(get_count, "nvmlDeviceGetCount_v2", path) & load(by_index, "nvmlDeviceGetHandleByIndex_v2", path) &
        load(by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2", path) & load(get_name, "nvmlDeviceGetName", path) &
        load(get_temperature, "nvmlDeviceGetTemperature", path) & load(get_power, "nvmlDeviceGetPowerUsage", path) &
        load(get_utilization, "nvmlDeviceGetUtilizationRates", path) &
        load(get_memory, "nvmlDeviceGetMemoryInfo", path);
    if (!ok) return;
    const nvmlReturn_t rc = init();
    if (rc != kNvmlSuccess) {
      reason = "nvmlInit_v2 failed: " + error_name(rc);
      return;
    }
    initialised = true;

    const auto add = [&](nvmlDevice_t h, const std::string& requested_id) {
      Device d;
      d.handle = h;
      char name[kNvmlNameBufferSize] = {};
      if (get_name(h, name, kNvmlNameBufferSize) == kNvmlSuccess) d.name = name;
      nvmlPciInfo_t pci{};
      if (get_pci && get_pci(h, &pci) == kNvmlSuccess) {
        pci.busId[sizeof pci.busId - 1] = '\0';
        d.bus_id = pci.busId;
      } else {
        d.bus_id = requested_id;
      }
      devices.push_back(d);
    };
    if (bus_ids.empty()) {
      unsigned n = 0;
      const nvmlReturn_t crc = get_count(&n);
      if (crc != kNvmlSuccess) {
        reason = "nvmlDeviceGetCount_v2 failed: " + error_name(crc);
        return;
      }
      for (unsigned i = 0; i < n; ++i) {
        nvmlDevice_t h = nullptr;
        if (by_index(i, &h) == kNvmlSuccess) add(h, "");
      }
      if (devices.empty()) reason = "NVML sees no GPU";
    } else {
      std::string missing;
      for (const std::string& id : bus_ids) {
        nvmlDevice_t h = nullptr;
        if (by_bus_id(id.c_str(), &h) == kNvmlSuccess) {
          add(h, id);
        } else {
          missing += (missing.empty() ? "" : ", ") + id;
        }
      }
      if (devices.empty()) reason = "NVML knows no GPU with PCI bus id " + missing;
    }
  }

  GpuSample read(nvmlDevice_t h) const {
    GpuSample s = nan_sample();
    unsigned u = 0;
    if (get_temperature(h, kNvmlTemperatureGpu, &u) == kNvmlSuccess) s.temperature_c = u;
    if (get_power(h, &u) == kNvmlSuccess) s.power_w = u / 1000.0;
    nvmlUtilization_t util{};
    if (get_utilization(h, &util) == kNvmlSuccess) s.utilization_pct = util.gpu;
    nvmlMemory_t mem{};
    if (get_memory(h, &mem) == kNvmlSuccess) {
      s.memory_used_bytes = static_cast<double>(mem.used);
      s.memory_total_bytes = static_cast<double>(mem.total);
    }
    return s;
  }

  void sample() {
    std::lock_guard<std::mutex> lock(mutex);
    for (Device& d : devices) {
      const GpuSample s = read(d.handle);
      ++d.samples;
      d.temperature.add(s.temperature_c);
      d.power.add(s.power_w);
      d.utilization.add(s.utilization_pct);
      d.memory_used.add(s.memory_used_bytes);
      d.memory_total.add(s.memory_total_bytes);
      d.last = s;
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(thread_mutex);
      stop_requested = true;
    }
    wake.notify_all();
    if (sampler.joinable()) sampler.join();
    stop_requested = false;
  }

  void run(double interval_s) {
    const auto period =
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(interval_s));
    auto next = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(thread_mutex);
    while (!stop_requested) {
      lock.unlock();
      sample();
      lock.lock();
      next += period;
      const auto now = std::chrono::steady_clock::now();
      if (next < now) next = now;  // after a slow sample, skip rather than catch up
      wake.wait_until(lock, next, [this] { return stop_requested; });
    }
  }
};

GpuTelemetry::GpuTelemetry(std::vector<std::string> bus_ids) : impl_(std::make_unique<Impl>()) {
  try {
    impl_->open(bus_ids);
  } catch (...) {  // only allocation can throw here; telemetry is never worth a failed run
    impl_->devices.clear();
    if (impl_->reason.empty()) impl_->reason = "NVML set-up failed";
  }
}

GpuTelemetry::~GpuTelemetry() {
  impl_->stop();
  if (impl_->initialised && impl_->shutdown) impl_->shutdown();
  if (impl_->lib) ::dlclose(impl_->lib);
}

bool GpuTelemetry::available() const { return impl_->initialised && !impl_->devices.empty(); }

std::string GpuTelemetry::unavailable_reason() const { return available() ? std::string() : impl_->reason; }

void GpuTelemetry::start(double interval_s) {
  if (!available() || !(interval_s > 0.0) || !std::isfinite(interval_s)) return;
  impl_->stop();
  try {
    impl_->sampler = std::thread([this, interval_s] { impl_->run(interval_s); });
  } catch (...) {  // no thread available: sample_now() still works
  }
}

void GpuTelemetry::sample_now() {
  if (available()) impl_->sample();
}

std::vector<GpuStats> GpuTelemetry::stats() const {
  std::vector<GpuStats> out;
  if (!available()) return out;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  for (const Device& d : impl_->devices) {
    GpuStats s;
    s.name = d.name;
    s.bus_id = d.bus_id;
    s.samples = d.samples;
    s.min = {d.temperature.min, d.power.min, d.utilization.min, d.memory_used.min, d.memory_total.min};
    s.max = {d.temperature.max, d.power.max, d.utilization.max, d.memory_used.max, d.memory_total.max};
    s.mean = {d.temperature.mean(), d.power.mean(), d.utilization.mean(), d.memory_used.mean(), d.memory_total.mean()};
    s.last = d.last;
    out.push_back(s);
  }
  return out;
}

}  // namespace stratus
