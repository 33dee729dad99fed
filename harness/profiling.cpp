// Profiling: NVTX ranges in the loom domain and CUDA-event timers.
#include "harness/harness.hpp"

#include <nvtx3/nvToolsExt.h>

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
// Profiling

namespace {
nvtxDomainHandle_t loom_domain() {
  static nvtxDomainHandle_t const d = nvtxDomainCreateA("loom");
  return d;
}
}  // namespace

NvtxRange::NvtxRange(std::string const& name) {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = name.c_str();
  nvtxDomainRangePushEx(loom_domain(), &a);
}

NvtxRange::~NvtxRange() { nvtxDomainRangePop(loom_domain()); }

Timer::Timer(cudaStream_t stream) : stream_(stream) {
  LOOM_CUDA(cudaEventCreate(&start_));
  cudaError_t const e = cudaEventCreate(&stop_);
  if (e != cudaSuccess) {
    cudaEventDestroy(start_);
    throw_cuda(e, "cudaEventCreate(&stop_)");
  }
}

Timer::~Timer() {
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
}

void Timer::start() { LOOM_CUDA(cudaEventRecord(start_, stream_)); }
void Timer::stop() { LOOM_CUDA(cudaEventRecord(stop_, stream_)); }

float Timer::elapsed_ms() {
  LOOM_CUDA(cudaEventSynchronize(stop_));
  float ms = 0;
  LOOM_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

}  // namespace loom::harness
