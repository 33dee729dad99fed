// NVML for the harness: clocks, clock event (throttle) reasons and the driver's version, from the
// driver's libnvidia-ml.so.1 opened at run time (dlopen) instead of nvidia-smi in a subprocess.
//
// Why not link CUDA::nvml: its import library is a stub whose SONAME is the driver's
// libnvidia-ml.so.1, so a binary linked to it does not even start where the driver is missing (a
// build or CI machine without a GPU, where the tools must still say "no CUDA GPU found" and run
// --mode=enumerate), and some toolkit installations lack it (and nvml.h). Opened at run time, a
// missing library or a failing call is "unavailable", never an error. The few entry points are
// declared here as nvml.h declares them (the ABI is stable C): nvmlReturn_t and nvmlClockType_t
// are C enums (int), nvmlDevice_t an opaque pointer.
#include <dlfcn.h>

#include <cctype>
#include <cstdio>
#include <map>
#include <optional>
#include <type_traits>
#include <string>
#include <utility>

#include "harness/harness.hpp"

namespace loom::harness {

namespace {

using Ret = int;                  // nvmlReturn_t
using Dev = struct NvmlDevice*;   // nvmlDevice_t
constexpr Ret kSuccess = 0;       // NVML_SUCCESS
constexpr int kClockSm = 1;       // NVML_CLOCK_SM
constexpr int kClockMem = 2;      // NVML_CLOCK_MEM

struct Api {
  std::string why;  // "" when NVML is usable
  Ret (*init)() = nullptr;                                                   // nvmlInit_v2
  char const* (*error_string)(Ret) = nullptr;                                // nvmlErrorString
  Ret (*by_bus_id)(char const*, Dev*) = nullptr;                             // nvmlDeviceGetHandleByPciBusId_v2
  Ret (*clock_info)(Dev, int, unsigned*) = nullptr;                          // nvmlDeviceGetClockInfo
  Ret (*max_clock_info)(Dev, int, unsigned*) = nullptr;                      // nvmlDeviceGetMaxClockInfo
  Ret (*event_reasons)(Dev, unsigned long long*) = nullptr;                  // nvmlDeviceGetCurrentClocksEventReasons
  Ret (*throttle_reasons)(Dev, unsigned long long*) = nullptr;               // ...ThrottleReasons (older drivers)
  Ret (*driver_version)(char*, unsigned) = nullptr;                          // nvmlSystemGetDriverVersion
  std::map<int, std::pair<Dev, std::string>> devices;                         // ordinal -> handle, or why not

  std::string error(Ret r) const {
    char const* s = error_string ? error_string(r) : nullptr;
    return s ? std::string(s) : "error " + std::to_string(r);
  }
};

Api open_api() {
  Api a;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    a.why = "libnvidia-ml.so.1 not found (no NVIDIA driver)";
    return a;
  }
  auto sym = [&](char const* name, auto& fn) { fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name)); };
  sym("nvmlInit_v2", a.init);
  sym("nvmlErrorString", a.error_string);
  sym("nvmlDeviceGetHandleByPciBusId_v2", a.by_bus_id);
  sym("nvmlDeviceGetClockInfo", a.clock_info);
  sym("nvmlDeviceGetMaxClockInfo", a.max_clock_info);
  sym("nvmlDeviceGetCurrentClocksEventReasons", a.event_reasons);
  sym("nvmlDeviceGetCurrentClocksThrottleReasons", a.throttle_reasons);
  sym("nvmlSystemGetDriverVersion", a.driver_version);
  if (!a.init || !a.by_bus_id || !a.clock_info) {
    a.why = "libnvidia-ml.so.1 lacks nvmlInit_v2, nvmlDeviceGetHandleByPciBusId_v2 or nvmlDeviceGetClockInfo";
    return a;
  }
  if (Ret const r = a.init(); r != kSuccess) a.why = "nvmlInit: " + a.error(r);
  // Never shut down: the library stays loaded and initialized until the process exits.
  return a;
}

Api& api() {
  static Api a = open_api();
  return a;
}

// The NVML handle of CUDA device `ordinal`, found by its PCI bus id (NVML numbers devices in its
// own order, which CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER do not follow), looked up once.
Dev device(int ordinal, std::string* why) {
  Api& a = api();
  if (!a.why.empty()) {
    if (why) *why = a.why;
    return nullptr;
  }
  auto it = a.devices.find(ordinal);
  if (it == a.devices.end()) {
    std::pair<Dev, std::string> found{nullptr, ""};
    char bus[64] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, ordinal) != cudaSuccess) {
      cudaGetLastError();
      found.second = "no PCI bus id for CUDA device " + std::to_string(ordinal);
    } else if (Ret const r = a.by_bus_id(bus, &found.first); r != kSuccess) {
      found = {nullptr, "nvmlDeviceGetHandleByPciBusId(" + std::string(bus) + "): " + a.error(r)};
    }
    it = a.devices.emplace(ordinal, found).first;
  }
  if (why) *why = it->second.second;
  return it->second.first;
}

int clock(int ordinal, int type, bool max) {
  Api& a = api();
  Dev const d = device(ordinal, nullptr);
  unsigned mhz = 0;
  auto fn = max ? a.max_clock_info : a.clock_info;
  if (!d || !fn || fn(d, type, &mhz) != kSuccess || mhz == 0) return -1;
  return int(mhz);
}

}  // namespace

std::string nvml_unavailable(int ordinal) {
  std::string why;
  device(ordinal, &why);
  return why;
}

int sm_clock_mhz(int ordinal) { return clock(ordinal, kClockSm, false); }

int max_sm_clock_mhz(int ordinal) { return clock(ordinal, kClockSm, true); }

Clocks current_clocks(int ordinal) {
  Clocks c;
  int const sm = clock(ordinal, kClockSm, false), mem = clock(ordinal, kClockMem, false);
  if (sm > 0 && mem > 0) {
    c.sm_mhz = sm;
    c.mem_mhz = mem;
  }
  return c;
}

std::optional<unsigned long long> clock_event_reasons(int ordinal) {
  Api& a = api();
  Dev const d = device(ordinal, nullptr);
  if (!d) return std::nullopt;
  unsigned long long mask = 0;
  // Newer drivers name them clock event reasons; older ones only have the throttle reasons call.
  for (auto fn : {a.event_reasons, a.throttle_reasons})
    if (fn && fn(d, &mask) == kSuccess) return mask;
  return std::nullopt;
}

std::string describe_clock_event_reasons(unsigned long long mask) {
  static constexpr std::pair<unsigned long long, char const*> names[] = {
      {0x1, "gpu_idle"},
      {0x2, "applications_clocks_setting"},
      {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},
      {0x10, "sync_boost"},
      {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"},
      {0x80, "hw_power_brake_slowdown"},
      {0x100, "display_clock_setting"}};
  std::string s;
  unsigned long long known = 0;
  for (auto [bit, name] : names) {
    known |= bit;
    if (mask & bit) s += (s.empty() ? "" : ", ") + std::string(name);
  }
  if (mask & ~known) s += (s.empty() ? "" : ", ") + std::string("unknown");
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", mask);
  return (s.empty() ? std::string("none") : s) + " (" + hex + ")";
}

std::string nvidia_driver_version(int ordinal) {
  (void)ordinal;  // one driver for all GPUs; kept for the callers
  Api& a = api();
  if (!a.why.empty() || !a.driver_version) return {};
  char buf[96] = {};  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80
  if (a.driver_version(buf, sizeof buf) != kSuccess) return {};
  std::string v = buf;
  for (char ch : v)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-') return {};
  return v;
}

}  // namespace loom::harness
