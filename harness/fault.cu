#include "harness/fault.hpp"

#include <cstdint>
#include <stdexcept>

namespace loom::harness {

namespace {

__global__ void hang_kernel() {
  // __nanosleep is an asm volatile: the loop is not removed, and the SM is not kept busy.
  for (;;) __nanosleep(1000000);
}

__global__ void trap_kernel() { __trap(); }

// The address comes from the host, so that the compiler cannot see the store is invalid.
__global__ void illegal_address_kernel(int volatile* p) { *p = 1; }

}  // namespace

Fault parse_fault(std::string_view s) {
  if (s == "hang") return Fault::hang;
  if (s == "trap") return Fault::trap;
  if (s == "illegal-address") return Fault::illegal_address;
  throw std::invalid_argument("expected hang, trap or illegal-address, found \"" + std::string(s.substr(0, 80)) + "\"");
}

std::string launch_fault(Fault f, cudaStream_t stream) {
  switch (f) {
    case Fault::none: return "";
    case Fault::hang: hang_kernel<<<1, 1, 0, stream>>>(); break;
    case Fault::trap: trap_kernel<<<1, 1, 0, stream>>>(); break;
    case Fault::illegal_address:
      // The first page is never mapped in the unified address space.
      illegal_address_kernel<<<1, 1, 0, stream>>>(reinterpret_cast<int volatile*>(std::uintptr_t(0x100)));
      break;
  }
  cudaError_t const e = cudaGetLastError();
  return e == cudaSuccess ? std::string() : std::string("injected fault: ") + cudaGetErrorString(e);
}

std::string why_context_lost() {
  cudaError_t const e = cudaDeviceSynchronize();
  if (e == cudaSuccess) return "";
  // A sticky error (the context is lost) comes back from every call; an error of an earlier
  // launch that is not sticky is cleared by cudaGetLastError and does not.
  cudaGetLastError();
  cudaError_t const again = cudaDeviceSynchronize();
  return again == cudaSuccess ? std::string() : std::string(cudaGetErrorString(again));
}

}  // namespace loom::harness
