// A hang watchdog for loom-validate and loom-bench: a background thread, armed around each case
// with the case's name and a time-out, that stops the process when the case does not finish in
// time. A kernel that never ends (a lost mbarrier phase in sm90's pipeline, a spin on a flag that
// is never set) blocks the host in cudaStreamSynchronize for good, and nothing on that thread can
// report it; the watchdog's thread can.
//
// When it fires it calls the tool's flush callback (the report written so far: stdout, an --output
// file), prints one line on stderr,
//
//   loom-validate: case sm90/bf16/rcr/128x4096x4096 did not finish within 60 s (a hung kernel?); stopping<note>
//
// and ends the process with std::_Exit(kTimeoutExitStatus). It does not unwind and calls no CUDA:
// every CUDA call after a hung kernel (cudaFree, cudaDeviceSynchronize, the runtime's own teardown
// at exit) would block as well. The driver ends the kernel when the process is gone.
//
// arm() and disarm() take the watchdog's lock, and it fires holding that lock: once it fires, a
// disarm() blocks until the process is gone, so the main thread cannot write to the report while
// the callback flushes it. The tools arm it only where they write nothing to the report.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace loom::harness {

// The tools' exit statuses: 0 every case passed (or was skipped), 1 a case failed (a kernel fault
// among them), 2 bad input or nothing can run (no GPU), 3 a case did not finish within --timeout.
inline constexpr int kTimeoutExitStatus = 3;
// Default --timeout per case, in seconds: generous, since the largest cases take a few seconds.
inline constexpr double kDefaultCaseTimeout = 60;
// The largest --timeout taken (a week); 0 turns the watchdog off.
inline constexpr double kMaxTimeout = 604800;

// --timeout's value: seconds as digits with an optional fraction ("60", "0.5"), in [0, kMaxTimeout];
// 0 means no time-out. Throws std::invalid_argument("expected seconds in [0, 604800] (0: no
// time-out), found \"...\"") for anything else (a sign, an exponent, nan, inf, empty).
double parse_timeout(std::string_view text);

class Watchdog {
 public:
  // tool: the program's name, the start of the line it prints ("loom-validate").
  explicit Watchdog(std::string tool);
  ~Watchdog();  // stops and joins its thread (which starts with the first arm())
  Watchdog(Watchdog const&) = delete;
  Watchdog& operator=(Watchdog const&) = delete;

  // Called on the watchdog's thread just before it prints its line and exits, with that line's
  // text after "<tool>: ": flush what the report holds so far. It must not call CUDA or block.
  void on_timeout(std::function<void(std::string const& message)> flush);

  // Starts the clock for `what` (e.g. "case add/f32/ccc/64x64x0"); `note` is appended to the line
  // after "stopping" (e.g. ", 12 cases not run; repro: ..."). seconds <= 0: not armed. A second
  // arm() replaces the first.
  void arm(std::string what, double seconds, std::string note = {});
  void disarm();

 private:
  void loop();
  [[noreturn]] void fire(std::unique_lock<std::mutex>& lock);

  std::string tool_;
  std::function<void(std::string const&)> flush_;
  std::mutex m_;
  std::condition_variable cv_;
  std::thread thread_;
  bool armed_ = false, stop_ = false;
  std::uint64_t generation_ = 0;  // bumped by arm(): a wait that outlived its arming fires nothing
  std::chrono::steady_clock::time_point deadline_;
  double seconds_ = 0;
  std::string what_, note_;
};

// Arms `w` for the lifetime of the object (or until disarm()), on every way out of a scope.
class WatchdogArm {
 public:
  WatchdogArm(Watchdog& w, std::string what, double seconds, std::string note = {}) : w_(&w) {
    w.arm(std::move(what), seconds, std::move(note));
  }
  ~WatchdogArm() { disarm(); }
  WatchdogArm(WatchdogArm const&) = delete;
  WatchdogArm& operator=(WatchdogArm const&) = delete;
  void disarm() {
    if (w_) w_->disarm();
    w_ = nullptr;
  }

 private:
  Watchdog* w_;
};

}  // namespace loom::harness
