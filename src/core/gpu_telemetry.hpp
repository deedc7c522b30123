// NVIDIA GPU telemetry (temperature, power, utilization, memory) read through NVML, which is loaded at
// run time with dlopen so that Stratus neither links nor needs it: without a driver, or on a machine
// with no NVIDIA GPU, the telemetry is simply unavailable. A background thread can sample at a fixed
// interval; the statistics (min/mean/max/last per device) are kept here and read as a snapshot. Nothing
// here throws or aborts when NVML is missing or a query fails: a field that could not be read is NaN.
// This is about the devices as the driver sees them, not about Kokkos or CUDA allocations.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace stratus {

/// One reading of one device. NaN where NVML could not provide the field.
struct GpuSample {
  double temperature_c;       ///< GPU core temperature, degrees Celsius
  double power_w;             ///< board power draw, watts
  double utilization_pct;     ///< percent of the last sample period a kernel was running, 0..100
  double memory_used_bytes;   ///< device memory in use (all processes), bytes
  double memory_total_bytes;  ///< installed device memory, bytes
};

/// Statistics of one device over all samples taken so far. min/mean/max of a field ignore the samples
/// where it was NaN (and are NaN when it always was); `last` is the latest sample as read.
struct GpuStats {
  std::string name;    ///< product name, e.g. "NVIDIA H200"
  std::string bus_id;  ///< PCI bus id as NVML writes it, e.g. "00000000:3B:00.0" (empty if unknown)
  int samples;         ///< number of samples taken
  GpuSample min, mean, max, last;
};

class GpuTelemetry {
 public:
  /// Loads NVML (libnvidia-ml.so.1, or the file named by the environment variable STRATUS_NVML_LIBRARY)
  /// if present; `bus_ids` selects devices by PCI bus id (e.g. "00000000:3B:00.0"; ids NVML does not
  /// know are skipped); empty: all devices NVML sees. Takes no sample.
  explicit GpuTelemetry(std::vector<std::string> bus_ids = {});
  /// Stops the sampler, shuts NVML down and unloads it.
  ~GpuTelemetry();
  GpuTelemetry(const GpuTelemetry&) = delete;
  GpuTelemetry& operator=(const GpuTelemetry&) = delete;

  /// Whether NVML was loaded and initialised and at least one device was selected.
  bool available() const;
  /// Why not available (e.g. "libnvidia-ml.so.1 not found: ..."); empty when available.
  std::string unavailable_reason() const;

  /// Starts a background thread that samples now and then every `interval_s` seconds until destruction
  /// (a second call replaces the interval). Does nothing when unavailable or when interval_s is not a
  /// positive number.
  void start(double interval_s);
  /// Takes one sample of every selected device now, on the calling thread. Does nothing when unavailable.
  void sample_now();
  /// A consistent copy of the statistics, one entry per selected device in NVML's order; empty when
  /// unavailable. Thread-safe.
  std::vector<GpuStats> stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stratus
