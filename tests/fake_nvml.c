/* A stand-in for libnvidia-ml.so.1 for the GPU telemetry tests (test_batch_support): the NVML entry points
 * core/gpu_telemetry.cpp loads, with canned answers for two devices. Device 0 reports 50, 60, 70, 50, ...
 * degrees C on successive temperature calls, device 1 a constant 40; device 1 fails the power query, as a
 * GPU without power readings does. The temperature sequence restarts when nvmlInit_v2 takes the first
 * reference. fake_nvml_references() exposes the init/shutdown balance to the test. Not a model of NVML. */
#include <string.h>

typedef int nvmlReturn_t;
typedef struct fake_device* nvmlDevice_t;
typedef struct {
  unsigned gpu, memory;
} nvmlUtilization_t;
typedef struct {
  unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
  char busIdLegacy[16];
  unsigned domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

enum { SUCCESS = 0, ERROR_UNINITIALIZED = 1, ERROR_INVALID_ARGUMENT = 2, ERROR_NOT_SUPPORTED = 3, ERROR_NOT_FOUND = 6 };

struct fake_device {
  const char* name;
  const char* bus_id;
  unsigned calls;
};

static struct fake_device devices[2] = {{"Fake GPU Alpha", "00000000:3B:00.0", 0},
                                        {"Fake GPU Beta", "00000000:86:00.0", 0}};
static int references = 0;

int fake_nvml_references(void) { return references; }

nvmlReturn_t nvmlInit_v2(void) {
  if (references++ == 0) devices[0].calls = devices[1].calls = 0;
  return SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
  if (references == 0) return ERROR_UNINITIALIZED;
  --references;
  return SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t rc) { return rc == SUCCESS ? "Success" : "Fake error"; }

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* n) {
  if (!references) return ERROR_UNINITIALIZED;
  *n = 2;
  return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t* h) {
  if (i >= 2) return ERROR_INVALID_ARGUMENT;
  *h = &devices[i];
  return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* id, nvmlDevice_t* h) {
  for (int i = 0; i < 2; ++i) {
    if (strcmp(id, devices[i].bus_id) == 0) {
      *h = &devices[i];
      return SUCCESS;
    }
  }
  return ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* name, unsigned len) {
  if (len == 0) return ERROR_INVALID_ARGUMENT;
  strncpy(name, d->name, len - 1);
  name[len - 1] = '\0';
  return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t* pci) {
  memset(pci, 0, sizeof *pci);
  strncpy(pci->busId, d->bus_id, sizeof pci->busId - 1);
  return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned* t) {
  if (sensor != 0) return ERROR_INVALID_ARGUMENT;
  if (d == &devices[0]) {
    *t = 50 + 10 * (d->calls++ % 3);
  } else {
    *t = 40;
  }
  return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned* mw) {
  if (d == &devices[1]) return ERROR_NOT_SUPPORTED;
  *mw = 312500;
  return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t* u) {
  u->gpu = d == &devices[0] ? 87 : 0;
  u->memory = 12;
  return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t* m) {
  m->total = 150754820096ULL;
  m->used = d == &devices[0] ? 2147483648ULL : 1048576ULL;
  m->free = m->total - m->used;
  return SUCCESS;
}
