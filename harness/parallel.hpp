// Internal to the harness's .cpp files: a small thread pool and parallel_for over it.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace loom::harness {

// Host parallelism: the default sweep moves ~10^9 elements through host conversions, references
// and comparisons, so the large loops run on a small pool of threads. Work is cut into fixed
// chunks, independent of the number of threads, so results (sums included) are deterministic.

namespace detail {

class Pool {
 public:
  static Pool& get() {
    static Pool p;
    return p;
  }

  // fn(c) for every chunk c in [0, n), on the workers and the calling thread.
  void run(std::size_t n, std::function<void(std::size_t)> const& fn) {
    if (n == 0) return;
    if (workers_.empty() || n == 1) {
      for (std::size_t c = 0; c < n; ++c) fn(c);
      return;
    }
    std::lock_guard<std::mutex> one_job(job_mutex_);
    {
      std::lock_guard<std::mutex> lk(m_);
      fn_ = &fn;
      n_ = n;
      next_.store(0);
      done_ = 0;
      ++generation_;
    }
    wake_.notify_all();
    std::size_t mine = 0;
    for (std::size_t c; (c = next_.fetch_add(1)) < n;) {
      fn(c);
      ++mine;
    }
    std::unique_lock<std::mutex> lk(m_);
    done_ += mine;
    // Wait for every chunk and for every worker to have left this job.
    finished_.wait(lk, [&] { return done_ == n_ && active_ == 0; });
    fn_ = nullptr;
  }

  ~Pool() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }

 private:
  Pool() {
    unsigned const hw = std::thread::hardware_concurrency();
    unsigned const n = std::min(hw == 0 ? 1u : hw, 16u);
    for (unsigned i = 1; i < n; ++i) workers_.emplace_back([this] { work(); });
  }

  void work() {
    std::uint64_t seen = 0;
    for (;;) {
      std::function<void(std::size_t)> const* fn;
      std::size_t n;
      {
        std::unique_lock<std::mutex> lk(m_);
        wake_.wait(lk, [&] { return stop_ || (generation_ != seen && fn_); });
        if (stop_) return;
        seen = generation_;
        fn = fn_;
        n = n_;
        ++active_;
      }
      std::size_t mine = 0;
      for (std::size_t c; (c = next_.fetch_add(1)) < n;) {
        (*fn)(c);
        ++mine;
      }
      {
        std::lock_guard<std::mutex> lk(m_);
        done_ += mine;
        --active_;
      }
      finished_.notify_all();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex job_mutex_, m_;
  std::condition_variable wake_, finished_;
  std::function<void(std::size_t)> const* fn_ = nullptr;
  std::size_t n_ = 0, done_ = 0;
  std::atomic<std::size_t> next_{0};
  std::uint64_t generation_ = 0;
  int active_ = 0;
  bool stop_ = false;
};

// body(begin, end) over [0, n) in chunks of `grain`.
template <class Body>
inline void parallel_for(std::int64_t n, std::int64_t grain, Body const& body) {
  if (n <= 0) return;
  grain = std::max<std::int64_t>(grain, 1);
  std::int64_t const chunks = (n + grain - 1) / grain;
  if (chunks == 1) {
    body(std::int64_t(0), n);
    return;
  }
  Pool::get().run(std::size_t(chunks), [&](std::size_t c) {
    std::int64_t const b = std::int64_t(c) * grain;
    body(b, std::min(n, b + grain));
  });
}

inline constexpr std::int64_t kGrain = 1 << 15;  // elements per chunk

}  // namespace detail
using detail::parallel_for;
using detail::kGrain;

}  // namespace loom::harness
