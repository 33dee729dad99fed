// Errors (LOOM_CUDA, LOOM_CUBLAS) and device queries (query_device, describe).
#include "harness/harness.hpp"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <bit>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fnmatch.h>
#include <limits>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

namespace loom::harness {

// =============================================================================================
// Errors

void throw_cuda(cudaError_t e, char const* expr) {
  throw Error(std::string(expr) + ": " + cudaGetErrorString(e));
}

char const* cublas_status_string(cublasStatus_t s) { return cublasGetStatusString(s); }

void throw_cublas(cublasStatus_t s, char const* expr) {
  throw Error(std::string(expr) + ": " + cublas_status_string(s));
}

// =============================================================================================
// Device

namespace {

int attribute(cudaDeviceAttr a, int dev) {
  int v = 0;
  LOOM_CUDA(cudaDeviceGetAttribute(&v, a, dev));
  return v;
}

// FP32 FMA lanes per SM: 64 on the HPC parts of Pascal, Volta/Turing and A100; 128 otherwise.
int fp32_lanes(int cc) {
  if (cc == 60 || (cc >= 70 && cc < 80) || cc == 80) return 64;
  return 128;
}

// A CUDA driver is installed (cudaDriverGetVersion reports 0 without one).
bool driver_present() {
  int v = 0;
  return cudaDriverGetVersion(&v) == cudaSuccess && v > 0;
}

}  // namespace

DeviceInfo query_device(int ordinal) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count <= 0) {
    cudaGetLastError();  // clear it
    // No device (or no driver at all) reads plainly; anything else names the runtime's reason.
    if (e == cudaSuccess || e == cudaErrorNoDevice || (e == cudaErrorInsufficientDriver && !driver_present()))
      throw NoGpu("no CUDA GPU found");
    throw NoGpu(std::string("no CUDA GPU found (cudaGetDeviceCount: ") + cudaGetErrorString(e) + ")");
  }
  if (ordinal < 0 || ordinal >= count)
    throw Error("GPU " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) +
                " found)");
  DeviceInfo d;
  d.ordinal = ordinal;
  cudaDeviceProp prop;
  LOOM_CUDA(cudaGetDeviceProperties(&prop, ordinal));
  d.name = prop.name;
  char bus[32] = {};
  // Not an error where it fails: the id only labels the report's rows. The failure is cleared, lest
  // a later cudaGetLastError() check blame it on a kernel.
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, ordinal) == cudaSuccess)
    d.pci_bus_id = bus;
  else
    cudaGetLastError();
  {
    auto const* u = reinterpret_cast<unsigned char const*>(prop.uuid.bytes);
    char buf[48];
    std::snprintf(buf, sizeof buf, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
                  u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    d.uuid = buf;
  }
  d.global_mem_bytes = std::int64_t(prop.totalGlobalMem);
  d.cc = attribute(cudaDevAttrComputeCapabilityMajor, ordinal) * 10 +
         attribute(cudaDevAttrComputeCapabilityMinor, ordinal);
  d.sm_count = attribute(cudaDevAttrMultiProcessorCount, ordinal);
  d.l2_bytes = attribute(cudaDevAttrL2CacheSize, ordinal);
  int const sm_khz = attribute(cudaDevAttrClockRate, ordinal);
  int const mem_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
  int const bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
  d.sm_clock_mhz = sm_khz / 1000;
  d.mem_clock_mhz = mem_khz / 1000;
  d.peak_dram_gbs = double(mem_khz) * 1e3 * 2.0 * double(bus_bits) / 8.0 / 1e9;
  d.fp32_lanes_per_sm = fp32_lanes(d.cc);
  d.peak_fp32_tflops = double(d.sm_count) * d.fp32_lanes_per_sm * 2.0 * double(sm_khz) * 1e3 / 1e12;
  LOOM_CUDA(cudaDriverGetVersion(&d.driver_version));
  LOOM_CUDA(cudaRuntimeGetVersion(&d.runtime_version));
  int major = 0, minor = 0, patch = 0;
  LOOM_CUBLAS(cublasGetProperty(MAJOR_VERSION, &major));
  LOOM_CUBLAS(cublasGetProperty(MINOR_VERSION, &minor));
  LOOM_CUBLAS(cublasGetProperty(PATCH_LEVEL, &patch));
  d.cublas_version = major * 10000 + minor * 100 + patch;
  return d;
}

namespace {
std::string version_string(int v, int major_div) {  // 12040 -> "12.4" (major_div 1000)
  return std::to_string(v / major_div) + "." + std::to_string((v % major_div) / 10);
}
}  // namespace

std::string describe(DeviceInfo const& d) {
  char buf[640];
  std::snprintf(buf, sizeof buf,
                "GPU %d: %s, cc %d.%d, %d SMs, %.1f GiB, L2 %.1f MiB, driver %s, runtime %s, "
                "cuBLAS %d.%d.%d\n"
                "  peak DRAM %.0f GB/s (%d MHz memory clock x bus width x 2 / 8), peak FP32 %.1f "
                "TFLOP/s (%d SMs x %d FMA/clk x 2 x %d MHz max SM clock)",
                d.ordinal, d.name.c_str(), d.cc / 10, d.cc % 10, d.sm_count,
                double(d.global_mem_bytes) / (1 << 30), double(d.l2_bytes) / (1 << 20),
                version_string(d.driver_version, 1000).c_str(),
                version_string(d.runtime_version, 1000).c_str(), d.cublas_version / 10000,
                (d.cublas_version / 100) % 100, d.cublas_version % 100, d.peak_dram_gbs,
                d.mem_clock_mhz, d.peak_fp32_tflops, d.sm_count, d.fp32_lanes_per_sm,
                d.sm_clock_mhz);
  return buf;
}

// current_clocks(), nvidia_driver_version() and the other NVML queries: harness/nvml.cpp.

}  // namespace loom::harness
