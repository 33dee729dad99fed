// Injected faults, a testing aid for loom-validate's and loom-bench's --inject-fault: a kernel that
// hangs, traps or touches an illegal address, launched in place of a case's first launch, so that
// the GPU tests can check the watchdog (harness/watchdog.hpp) and the handling of a lost context
// without a broken kernel. Not for measurements: nothing of the case is checked or timed.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <string_view>

namespace loom::harness {

enum class Fault {
  none,
  hang,             // one thread spins forever (with __nanosleep, not to heat the SM)
  trap,             // __trap(): cudaErrorLaunchFailure, the context is lost
  illegal_address,  // a store to an unmapped address: cudaErrorIllegalAddress, the context is lost
};

// "hang", "trap", "illegal-address"; throws std::invalid_argument naming the choices otherwise.
Fault parse_fault(std::string_view);

// Enqueues the fault's kernel on `stream`: "" when the launch was accepted (the fault shows up at
// the next synchronization), else why not. Fault::none launches nothing.
std::string launch_fault(Fault, cudaStream_t stream);

// After a failed case: "" when the device still takes work, else why not (the sticky error of a
// lost context: a kernel's illegal address or trap). Every later CUDA call of the process fails
// with it, so the tools stop there instead of failing every case after it.
std::string why_context_lost();

}  // namespace loom::harness
