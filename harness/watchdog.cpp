#include "harness/watchdog.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace loom::harness {

namespace {

// "60", "0.5", "2.25": no exponent, and few enough digits to read back as given.
std::string seconds_text(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  std::string t = buf;
  while (!t.empty() && t.back() == '0') t.pop_back();
  if (!t.empty() && t.back() == '.') t.pop_back();
  return t;
}

}  // namespace

double parse_timeout(std::string_view text) {
  // Digits with an optional fraction only: strtod alone would take "-1", "1e9", "nan", " 5", "0x10".
  bool ok = !text.empty() && text.size() <= 32;
  int digits = 0, dots = 0;
  for (char c : text) {
    if (c >= '0' && c <= '9') ++digits;
    else if (c == '.') ++dots;
    else ok = false;
  }
  ok = ok && digits > 0 && dots <= 1;
  double v = 0;
  if (ok) {
    std::string const s(text);
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    ok = end == s.c_str() + s.size() && std::isfinite(v) && v >= 0 && v <= kMaxTimeout;
  }
  if (!ok) {
    // At most 80 characters of it; the tools' one-line error handles control characters.
    std::string const shown(text.substr(0, 80));
    throw std::invalid_argument("expected seconds in [0, " + seconds_text(kMaxTimeout) +
                                "] (0: no time-out), found \"" + shown + (text.size() > 80 ? "...\"" : "\""));
  }
  return v;
}

Watchdog::Watchdog(std::string tool) : tool_(std::move(tool)) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::on_timeout(std::function<void(std::string const&)> flush) {
  std::lock_guard<std::mutex> lock(m_);
  flush_ = std::move(flush);
}

void Watchdog::arm(std::string what, double seconds, std::string note) {
  std::unique_lock<std::mutex> lock(m_);
  ++generation_;
  armed_ = false;
  if (!(seconds > 0)) return;
  armed_ = true;
  seconds_ = seconds;
  what_ = std::move(what);
  note_ = std::move(note);
  deadline_ = std::chrono::steady_clock::now() +
              std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  // The thread starts with the first arming, so that runs that arm nothing (--mode=enumerate, bad
  // input, --timeout=0) have none.
  if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  lock.unlock();
  cv_.notify_all();
}

void Watchdog::disarm() {
  {
    std::lock_guard<std::mutex> lock(m_);
    ++generation_;
    armed_ = false;
  }
  cv_.notify_all();
}

void Watchdog::loop() {
  std::unique_lock<std::mutex> lock(m_);
  while (!stop_) {
    if (!armed_) {
      cv_.wait(lock);
      continue;
    }
    std::uint64_t const gen = generation_;
    auto const deadline = deadline_;
    cv_.wait_until(lock, deadline, [&] { return stop_ || generation_ != gen; });
    // Still the same arming, and its deadline is past: the case did not finish.
    if (!stop_ && armed_ && generation_ == gen && std::chrono::steady_clock::now() >= deadline) fire(lock);
  }
}

void Watchdog::fire(std::unique_lock<std::mutex>&) {
  // Called with the lock held (see the header): the main thread cannot arm, disarm or go on to
  // write its report meanwhile.
  std::string const message =
      what_ + " did not finish within " + seconds_text(seconds_) + " s (a hung kernel?); stopping" + note_;
  if (flush_) {
    try {
      flush_(message);
    } catch (...) {
      // The line and the exit status matter more than a report that could not be flushed.
    }
  }
  std::fflush(stdout);
  std::fprintf(stderr, "%s: %s\n", tool_.c_str(), message.c_str());
  std::fflush(stderr);
  std::_Exit(kTimeoutExitStatus);
}

}  // namespace loom::harness
