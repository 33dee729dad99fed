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
// Host parallelism: the default sweep moves ~10^9 elements through host conversions, references
// and comparisons, so the large loops run on a small pool of threads. Work is cut into fixed
// chunks, independent of the number of threads, so results (sums included) are deterministic.

namespace {

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
void parallel_for(std::int64_t n, std::int64_t grain, Body const& body) {
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

constexpr std::int64_t kGrain = 1 << 15;  // elements per chunk

}  // namespace

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

// =============================================================================================
// Sweeps

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_raw(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

[[noreturn]] void bad_item(std::string_view item, std::string_view list, std::string const& why) {
  std::string msg = "bad item \"" + std::string(item) + "\"";
  if (trim(item) != trim(list)) msg += " in \"" + std::string(list) + "\"";
  throw std::invalid_argument(msg + ": " + why);
}

constexpr std::size_t kMaxListSize = 1 << 20;

std::int64_t parse_int(std::string_view tok, std::string_view item, std::string_view list) {
  tok = trim(tok);
  if (tok.empty()) bad_item(item, list, "expected an integer, found nothing");
  std::string_view digits = tok;
  if (digits.front() == '+') digits.remove_prefix(1);  // from_chars takes '-' but not '+'
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc::result_out_of_range) bad_item(item, list, "integer out of range");
  if (ec != std::errc() || p != digits.data() + digits.size() || digits.empty())
    bad_item(item, list, "expected an integer, found \"" + std::string(tok) + "\"");
  return v;
}

double parse_real(std::string_view tok, std::string_view item, std::string_view list) {
  tok = trim(tok);
  if (tok.empty()) bad_item(item, list, "expected a number, found nothing");
  std::string_view digits = tok;
  if (digits.front() == '+') digits.remove_prefix(1);
  double v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || p != digits.data() + digits.size() || digits.empty() || !std::isfinite(v))
    bad_item(item, list, "expected a finite number, found \"" + std::string(tok) + "\"");
  return v;
}

}  // namespace

std::vector<std::int64_t> parse_int_list(std::string_view list) {
  if (trim(list).empty()) throw std::invalid_argument("empty list");
  std::vector<std::int64_t> out;
  for (std::string_view item : split_raw(list, ',')) {
    std::string_view t = trim(item);
    if (t.empty()) bad_item(item, list, "empty item");
    auto parts = split_raw(t, ':');
    if (parts.size() == 1) {
      out.push_back(parse_int(parts[0], t, list));
    } else if (parts.size() <= 3) {
      std::int64_t const lo = parse_int(parts[0], t, list), hi = parse_int(parts[1], t, list);
      std::int64_t const step = parts.size() == 3 ? parse_int(parts[2], t, list) : 1;
      if (step <= 0) bad_item(t, list, "the step must be positive");
      if (hi < lo) bad_item(t, list, "the end is smaller than the start");
      if ((hi - lo) / step + 1 + out.size() > kMaxListSize) bad_item(t, list, "too many values");
      for (std::int64_t v = lo;; v += step) {
        out.push_back(v);
        if (hi - v < step) break;  // no overflow past hi
      }
    } else {
      bad_item(t, list, "expected N, START:END or START:END:STEP");
    }
    if (out.size() > kMaxListSize) bad_item(t, list, "too many values");
  }
  return out;
}

std::vector<double> parse_real_list(std::string_view list) {
  if (trim(list).empty()) throw std::invalid_argument("empty list");
  std::vector<double> out;
  for (std::string_view item : split_raw(list, ',')) {
    std::string_view t = trim(item);
    if (t.empty()) bad_item(item, list, "empty item");
    auto parts = split_raw(t, ':');
    if (parts.size() == 1) {
      out.push_back(parse_real(parts[0], t, list));
    } else if (parts.size() <= 3) {
      double const lo = parse_real(parts[0], t, list), hi = parse_real(parts[1], t, list);
      double const step = parts.size() == 3 ? parse_real(parts[2], t, list) : 1.0;
      if (!(step > 0)) bad_item(t, list, "the step must be positive");
      if (hi < lo) bad_item(t, list, "the end is smaller than the start");
      double const count = std::floor((hi - lo) / step + 1e-9) + 1;
      if (count + double(out.size()) > double(kMaxListSize)) bad_item(t, list, "too many values");
      for (std::int64_t i = 0; i < std::int64_t(count); ++i) out.push_back(lo + double(i) * step);
    } else {
      bad_item(t, list, "expected X, START:END or START:END:STEP");
    }
  }
  return out;
}

std::vector<std::string> split_list(std::string_view list) {
  if (trim(list).empty()) throw std::invalid_argument("empty list");
  std::vector<std::string> out;
  for (std::string_view item : split_raw(list, ',')) {
    std::string_view t = trim(item);
    if (t.empty()) bad_item(item, list, "empty item");
    out.emplace_back(t);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> parse_tags(std::string_view text,
                                                            std::vector<std::string> const& reserved) {
  std::vector<std::pair<std::string, std::string>> tags;
  for (std::string const& item : split_list(text)) {
    std::size_t const colon = item.find(':');
    if (colon == std::string::npos)
      throw std::invalid_argument("\"" + item + "\" is not key:value (tags are separated by commas, so a value cannot hold one)");
    std::string const key(trim(std::string_view(item).substr(0, colon)));
    std::string const value(trim(std::string_view(item).substr(colon + 1)));
    if (key.empty()) throw std::invalid_argument("\"" + item + "\" has an empty key");
    for (char c : key)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-')
        throw std::invalid_argument("key \"" + key + "\" may hold only letters, digits, '_', '.' and '-'");
    if (value.empty()) throw std::invalid_argument("\"" + item + "\" has an empty value");
    for (char c : value) {
      if (c == '\n' || c == '\r') throw std::invalid_argument("the value of \"" + key + "\" holds a line break");
      if (c == ';') throw std::invalid_argument("the value of \"" + key + "\" holds ';'");
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        throw std::invalid_argument("the value of \"" + key + "\" holds a control character");
    }
    if (std::find(reserved.begin(), reserved.end(), key) != reserved.end())
      throw std::invalid_argument("key \"" + key + "\" is one of the report's own fields");
    for (auto const& t : tags)
      if (t.first == key) throw std::invalid_argument("key \"" + key + "\" is given twice");
    tags.emplace_back(key, value);
  }
  return tags;
}

std::vector<Case> expand(SweepSpec const& s) {
  std::vector<KernelInfo const*> ks;
  for (auto const& name : s.kernels) {
    KernelInfo const* k = find_kernel(name);
    if (!k) throw std::invalid_argument("unknown kernel \"" + name + "\"");
    if (k->op == s.op) ks.push_back(k);
  }
  std::vector<Problem> layouts;
  for (auto const& l : s.layouts) {
    Problem p;
    if (!parse_layout(l, &p))
      throw std::invalid_argument("bad layout \"" + l + "\": expected three of 'c' or 'r' (A, B, C)");
    layouts.push_back(p);
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> mn = s.mn_pairs;
  if (mn.empty())
    for (auto m : s.m)
      for (auto n : s.n) mn.emplace_back(m, n);
  std::vector<std::int64_t> ks_dim = s.op == OpKind::add || s.k_follows_m ? std::vector<std::int64_t>{0} : s.k;
  std::vector<std::pair<double, double>> ab = s.ab_pairs;
  if (ab.empty())
    for (auto a : s.alpha)
      for (auto b : s.beta) ab.emplace_back(a, b);

  std::vector<Case> out;
  for (KernelInfo const* k : ks)
    for (DType t : s.dtypes)
    for (DType o : (s.op == OpKind::gemm && t != DType::f32 && !s.out_dtypes.empty()) ? s.out_dtypes : std::vector<DType>{t}) {
      if (std::find(k->dtypes.begin(), k->dtypes.end(), t) == k->dtypes.end()) continue;
      if (o != t && o != DType::f32) continue;
      for (Problem const& l : layouts)
        for (auto [m, n] : mn)
          for (std::int64_t kk : ks_dim)
            for (auto [alpha, beta] : ab)
              for (std::int64_t pad : s.ld_pad)
                for (int mis : s.misalign) {
                  Problem p;
                  p.op = s.op;
                  p.dtype = t;
                  p.out_dtype = o;
                  p.m = m;
                  p.n = n;
                  p.k = s.op == OpKind::gemm && s.k_follows_m ? m : kk;
                  p.a = l.a;
                  p.b = l.b;
                  p.c = l.c;
                  p.alpha = alpha;
                  p.beta = beta;
                  p.lda = min_ld(p.a, rows_a(p), cols_a(p)) + pad;
                  p.ldb = min_ld(p.b, rows_b(p), cols_b(p)) + pad;
                  p.ldc = min_ld(p.c, p.m, p.n) + pad;
                  out.push_back(Case{k, p, mis});
                }
    }
  return out;
}

std::uint64_t count_cases(SweepSpec const& s) {
  using u128 = unsigned __int128;
  u128 const cap = ~std::uint64_t(0);
  auto mul = [&](u128 a, u128 b) { return a > 0 && b > cap / a ? cap : a * b; };
  u128 per_dims = 0;  // (kernel, dtype, out dtype) triples, as expand's outer loops take them
  for (auto const& name : s.kernels) {
    KernelInfo const* k = find_kernel(name);
    if (!k) throw std::invalid_argument("unknown kernel \"" + name + "\"");
    if (k->op != s.op) continue;
    for (DType t : s.dtypes) {
      if (std::find(k->dtypes.begin(), k->dtypes.end(), t) == k->dtypes.end()) continue;
      if (s.op == OpKind::gemm && t != DType::f32 && !s.out_dtypes.empty()) {
        for (DType o : s.out_dtypes) per_dims += (o == t || o == DType::f32) ? 1 : 0;
      } else {
        per_dims += 1;
      }
    }
  }
  u128 n = per_dims;
  n = mul(n, s.layouts.size());
  n = mul(n, s.mn_pairs.empty() ? mul(s.m.size(), s.n.size()) : u128(s.mn_pairs.size()));
  n = mul(n, s.op == OpKind::add || s.k_follows_m ? 1 : s.k.size());
  n = mul(n, s.ab_pairs.empty() ? mul(s.alpha.size(), s.beta.size()) : u128(s.ab_pairs.size()));
  n = mul(n, s.ld_pad.size());
  n = mul(n, s.misalign.size());
  return n > cap ? std::uint64_t(cap) : std::uint64_t(n);
}

namespace {
// The rows of a loom-bench JSON document: the text between "benchmarks": [ and the array's closing
// bracket (the document's last ']', followed only by the object's '}'), trimmed; *open and *close
// are the brackets' offsets. False when the document does not have that shape.
bool benchmark_rows(std::string const& doc, std::size_t* open, std::size_t* close, std::string* rows) {
  std::size_t const key = doc.find("\"benchmarks\"");
  if (key == std::string::npos) return false;
  *open = doc.find('[', key);
  std::size_t const end = doc.find_last_not_of(" \t\r\n");
  if (*open == std::string::npos || end == std::string::npos || doc[end] != '}') return false;
  *close = doc.find_last_not_of(" \t\r\n", end - 1);
  if (*close == std::string::npos || doc[*close] != ']' || *close < *open) return false;
  if (doc.find_first_not_of(" \t\r\n:", key + 12) != *open) return false;
  std::size_t const b = doc.find_first_not_of(" \t\r\n", *open + 1);
  std::size_t const e = doc.find_last_not_of(" \t\r\n", *close - 1);
  *rows = b == std::string::npos || b >= *close ? std::string() : doc.substr(b, e - b + 1);
  return true;
}
}  // namespace

std::string append_benchmark_rows(std::string const& base, std::string const& more, std::string* why) {
  std::size_t bo = 0, bc = 0, mo = 0, mc = 0;
  std::string base_rows, more_rows;
  if (!benchmark_rows(base, &bo, &bc, &base_rows)) {
    *why = "not a loom-bench JSON file (no \"benchmarks\": [...] closing the document)";
    return {};
  }
  if (!benchmark_rows(more, &mo, &mc, &more_rows)) {
    *why = "this run's JSON has no \"benchmarks\" array";
    return {};
  }
  std::string rows = base_rows;
  if (!more_rows.empty()) rows += (rows.empty() ? "" : ",\n    ") + more_rows;
  return base.substr(0, bo + 1) + (rows.empty() ? "" : "\n    " + rows) + "\n  ]\n}\n";
}

std::string why_not_writable(std::string const& path) {
  if (path.empty()) return "the file name is empty";
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "it is a directory";
    return ::access(path.c_str(), W_OK) == 0 ? "" : "it is not writable";
  }
  std::string::size_type const slash = path.find_last_of('/');
  std::string const dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (::stat(dir.c_str(), &st) != 0) return "no directory " + dir;
  if (!S_ISDIR(st.st_mode)) return dir + " is not a directory";
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return "directory " + dir + " is not writable";
  return "";
}

SweepSpec default_validate_sweep(OpKind op) {
  SweepSpec s;
  s.op = op;
  for (auto const& k : kernels())
    if (k.op == op) s.kernels.push_back(k.name);
  s.dtypes = {DType::f32, DType::f16, DType::bf16};
  s.layouts = {"ccc", "ccr", "crc", "crr", "rcc", "rcr", "rrc", "rrr"};
  s.ld_pad = {0, 3};
  s.misalign = {0, 1};
  if (op == OpKind::add) {
    // Every size in {1, 7, 127, 1000, 4097} appears as M and as N, plus vectors and a power of two.
    s.m = {1, 7, 127, 1000, 4097};
    s.n = {1, 7, 127, 1000, 4097};
    s.mn_pairs = {{1, 1},     {7, 127},  {127, 7},  {1000, 1000}, {4097, 31},
                  {33, 4097}, {1024, 1024}, {1, 4097}, {4097, 1}};
    s.k = {0};
    s.alpha = {1, 0.5, 1.25};
    s.beta = {0, -2, 0.75};
    s.ab_pairs = {{1, 0}, {0.5, -2}, {1.25, 0.75}};
  } else {
    // Ragged M, N and K around tile sizes. With --reference=auto the fp64 host reference takes
    // M*N*K <= 2^24; the three larger shapes, (256,256,1024), (1000,129,255) and (1000,129,1024),
    // go to cuBLAS.
    s.m = {1, 7, 127, 256, 1000};
    s.n = {1, 33, 64, 256, 129};
    s.mn_pairs = {{1, 1}, {7, 33}, {127, 64}, {64, 127}, {256, 256}, {1000, 129}};
    s.k = {1, 7, 64, 255, 1024};
    s.alpha = {1, 0.5};
    s.beta = {0, -2};
    s.ab_pairs = {{1, 0}, {0.5, -2}};
  }
  return s;
}

std::vector<SweepSpec> llm_validate_sweep(bool ragged, std::vector<std::int64_t> const& ms,
                                          std::vector<std::string> const& layouts) {
  // loom-bench --sweep=llm's (N, K) pairs and its M up to 1024 (the larger M are the big-tile
  // path the default sweep's shapes already take).
  static constexpr std::int64_t kM[] = {1, 16, 64, 128, 256, 512, 1024};
  static constexpr std::int64_t kNk[][2] = {{4096, 4096},  {11008, 4096}, {4096, 11008}, {14336, 4096},
                                            {4096, 14336}, {28672, 8192}, {8192, 28672}};
  std::vector<std::int64_t> const m_list = ms.empty() ? std::vector<std::int64_t>(std::begin(kM), std::end(kM)) : ms;
  std::vector<std::string> const l_list =
      layouts.empty() ? std::vector<std::string>{"ccc", "ccr", "crc", "crr", "rcc", "rcr", "rrc", "rrr"} : layouts;
  std::vector<SweepSpec> out;
  for (std::size_t j = 0; j < std::size(kNk); ++j)
    for (std::size_t i = 0; i < m_list.size(); ++i)
      for (std::size_t l = 0; l < l_list.size(); ++l) {
        // Every shape in every layout; the dtype and the (alpha, beta) pair alternate with the
        // layout, M and (N, K), so that each layout meets both dtypes and both epilogues (C read or
        // not) across the shapes without crossing them all.
        SweepSpec s;
        s.op = OpKind::gemm;
        s.layouts = {l_list[l]};
        s.dtypes = {(l + i) % 2 ? DType::f16 : DType::bf16};
        s.ld_pad = {0};
        s.misalign = {0};
        if ((l + j) % 2) {
          s.alpha = {1.5}, s.beta = {0.5};
        } else {
          s.alpha = {1}, s.beta = {0};
        }
        // Ragged: M and K grow and N shrinks by 1 to 7, by a pattern that varies with the shape,
        // so that the sweep meets many residues of the tile edges (a given M stays as given).
        std::int64_t const ii = std::int64_t(i), jj = std::int64_t(j);
        s.m = {m_list[i] + (ragged && ms.empty() ? 1 + (ii + 2 * jj) % 7 : 0)};
        s.n = {kNk[j][0] - (ragged ? 1 + (3 * ii + jj) % 7 : 0)};
        s.k = {kNk[j][1] + (ragged ? 1 + (5 * ii + 4 * jj) % 7 : 0)};
        out.push_back(s);
      }
  return out;
}

// =============================================================================================
// Host conversions


namespace {

// Round |x| (given as the bits of a finite, non-negative double) to nearest even in a binary format
// with `mbits` stored significand bits and minimum normal exponent emin; returns the format's bit
// pattern without sign, or `inf` when it overflows (emax is where the exponent field saturates).
std::uint32_t round_bits(std::uint64_t a, int mbits, int emin, int emax, std::uint32_t inf) {
  int const e = int(a >> 52) - 1023;
  if (e > emax) return inf;
  if (e < emin - mbits - 1) return 0;  // below half the smallest subnormal (double subnormals too)
  std::uint64_t const mant = (a & ((std::uint64_t(1) << 52) - 1)) | (std::uint64_t(1) << 52);
  int const shift = 52 - mbits + (e < emin ? emin - e : 0);  // in [52 - mbits, 53]
  std::uint64_t q = mant >> shift;
  std::uint64_t const rem = mant & ((std::uint64_t(1) << shift) - 1), half = std::uint64_t(1) << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;
  // Normal: q includes the implicit bit, which adds one to the biased exponent; a carry out of the
  // significand moves into the exponent (and up to infinity) by itself. Subnormal: q is the field.
  if (e < emin) return std::uint32_t(q);
  return std::uint32_t((std::uint64_t(e - emin) << mbits) + q);
}

std::array<double, 65536> const& f16_table() {
  static std::array<double, 65536> const t = [] {
    std::array<double, 65536> v{};
    for (std::uint32_t b = 0; b < 65536; ++b) {
      double const sign = (b & 0x8000) ? -1.0 : 1.0;
      int const exp = (b >> 10) & 0x1F;
      int const mant = b & 0x3FF;
      if (exp == 0) v[b] = sign * std::ldexp(double(mant), -24);
      else if (exp == 31) v[b] = mant ? std::numeric_limits<double>::quiet_NaN() : sign * HUGE_VAL;
      else v[b] = sign * std::ldexp(double(1024 + mant), exp - 25);
    }
    return v;
  }();
  return t;
}

}  // namespace

double f16_to_double(std::uint16_t bits) { return f16_table()[bits]; }

double bf16_to_double(std::uint16_t bits) {
  return double(std::bit_cast<float>(std::uint32_t(bits) << 16));
}

std::uint16_t double_to_f16(double x) {
  std::uint64_t const u = std::bit_cast<std::uint64_t>(x);
  auto const sign = std::uint16_t((u >> 48) & 0x8000);
  std::uint64_t const a = u & 0x7FFFFFFFFFFFFFFFull;
  if (a > 0x7FF0000000000000ull) return sign | 0x7E00;  // NaN
  if (a == 0x7FF0000000000000ull) return sign | 0x7C00;
  return sign | std::uint16_t(round_bits(a, 10, -14, 15, 0x7C00));
}

std::uint16_t double_to_bf16(double x) {
  std::uint64_t const u = std::bit_cast<std::uint64_t>(x);
  auto const sign = std::uint16_t((u >> 48) & 0x8000);
  std::uint64_t const a = u & 0x7FFFFFFFFFFFFFFFull;
  if (a > 0x7FF0000000000000ull) return sign | 0x7FC0;  // NaN
  if (a == 0x7FF0000000000000ull) return sign | 0x7F80;
  return sign | std::uint16_t(round_bits(a, 7, -126, 127, 0x7F80));
}

double round_to(DType t, double x) {
  switch (t) {
    case DType::f32: return double(float(x));
    case DType::f16: return f16_to_double(double_to_f16(x));
    case DType::bf16: return bf16_to_double(double_to_bf16(x));
  }
  return x;
}

double unit_roundoff(DType t) {
  switch (t) {
    case DType::f32: return std::ldexp(1.0, -24);
    case DType::f16: return std::ldexp(1.0, -11);
    case DType::bf16: return std::ldexp(1.0, -8);
  }
  return 0;
}

// =============================================================================================
// Buffers

namespace {

std::int64_t contiguous_extent(Order o, std::int64_t rows, std::int64_t cols) {
  return o == Order::col ? rows : cols;
}
std::int64_t outer_extent(Order o, std::int64_t rows, std::int64_t cols) {
  return o == Order::col ? cols : rows;
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// log2 of the grid spacing of random values: every k * 2^-bits with |k| <= 2^bits is exact.
int random_bits(DType t) {
  switch (t) {
    case DType::f32: return 23;
    case DType::f16: return 11;
    case DType::bf16: return 8;
  }
  return 8;
}

// Packed host image of the stored elements in storage order (contiguous extent fastest), as raw
// element bits.
template <class Bits>
void store_bits(DeviceMatrix const& m, std::vector<double> const& v, std::vector<Bits>& img) {
  std::int64_t const R = m.rows(), C = m.cols();
  img.resize(std::size_t(R * C));
  DType const t = m.dtype();
  auto encode = [t](double x) -> Bits {
    if constexpr (sizeof(Bits) == 4) {
      return std::bit_cast<std::uint32_t>(float(x));
    } else {
      return t == DType::f16 ? double_to_f16(x) : double_to_bf16(x);
    }
  };
  if (m.order() == Order::col) {
    parallel_for(R * C, kGrain, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) img[std::size_t(i)] = encode(v[std::size_t(i)]);
    });
  } else {
    parallel_for(R, std::max<std::int64_t>(1, kGrain / C), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i)
        for (std::int64_t j = 0; j < C; ++j) img[std::size_t(i * C + j)] = encode(v[std::size_t(i + j * R)]);
    });
  }
}

template <class Bits>
void load_bits(DeviceMatrix const& m, std::vector<Bits> const& img, std::vector<double>& v) {
  std::int64_t const R = m.rows(), C = m.cols();
  v.resize(std::size_t(R * C));
  DType const t = m.dtype();
  auto decode = [t](Bits b) -> double {
    if constexpr (sizeof(Bits) == 4) {
      return double(std::bit_cast<float>(b));
    } else {
      return t == DType::f16 ? f16_to_double(b) : bf16_to_double(b);
    }
  };
  if (m.order() == Order::col) {
    parallel_for(R * C, kGrain, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) v[std::size_t(i)] = decode(img[std::size_t(i)]);
    });
  } else {
    parallel_for(C, std::max<std::int64_t>(1, kGrain / R), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t j = b; j < e; ++j)
        for (std::int64_t i = 0; i < R; ++i) v[std::size_t(i + j * R)] = decode(img[std::size_t(i * C + j)]);
    });
  }
}

// Copy a packed storage-order image to or from the strided device storage.
void upload_image(DeviceMatrix& m, void const* host) {
  std::size_t const es = size_of(m.dtype());
  std::int64_t const contig = contiguous_extent(m.order(), m.rows(), m.cols());
  std::int64_t const outer = outer_extent(m.order(), m.rows(), m.cols());
  LOOM_CUDA(cudaMemcpy2D(m.data(), std::size_t(m.ld()) * es, host, std::size_t(contig) * es,
                         std::size_t(contig) * es, std::size_t(outer), cudaMemcpyHostToDevice));
}
void download_image(DeviceMatrix const& m, void* host) {
  std::size_t const es = size_of(m.dtype());
  std::int64_t const contig = contiguous_extent(m.order(), m.rows(), m.cols());
  std::int64_t const outer = outer_extent(m.order(), m.rows(), m.cols());
  LOOM_CUDA(cudaMemcpy2D(host, std::size_t(contig) * es, m.data(), std::size_t(m.ld()) * es,
                         std::size_t(contig) * es, std::size_t(outer), cudaMemcpyDeviceToHost));
}

}  // namespace

DeviceMatrix::DeviceMatrix(DType dtype, std::int64_t rows, std::int64_t cols, Order order,
                           std::int64_t ld, int misalign)
    : dtype_(dtype), rows_(rows), cols_(cols), ld_(ld), order_(order), misalign_(misalign) {
  if (rows <= 0 || cols <= 0)
    throw Error("matrix sizes must be positive (" + std::to_string(rows) + " x " +
                std::to_string(cols) + ")");
  if (misalign < 0) throw Error("misalignment must be non-negative, got " + std::to_string(misalign));
  std::int64_t const need = min_ld(order, rows, cols);
  if (ld_ == 0) ld_ = need;
  if (ld_ < need)
    throw Error("leading dimension " + std::to_string(ld_) + " is smaller than a row (" +
                std::to_string(need) + ")");
  // matrix_bytes saturates: a size past 64 bits is refused here rather than wrapped around.
  std::uint64_t const bytes = matrix_bytes(dtype, rows, cols, order, ld_, misalign);
  if (bytes == ~std::uint64_t(0))
    throw Error("a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix is too large to allocate");
  bytes_ = std::size_t(bytes);
  LOOM_CUDA(cudaMalloc(&base_, bytes_));
}

std::uint64_t matrix_bytes(DType dtype, std::int64_t rows, std::int64_t cols, Order order, std::int64_t ld,
                           int misalign) {
  if (rows <= 0 || cols <= 0) return 0;
  if (ld <= 0) ld = min_ld(order, rows, cols);
  // ld * extent + misalign + 256 bytes of slack, all poisoned by poison().
  unsigned __int128 const b =
      ((unsigned __int128)std::uint64_t(ld) * std::uint64_t(outer_extent(order, rows, cols)) +
       std::uint64_t(std::max(misalign, 0))) * size_of(dtype) + 256;
  return b > ~std::uint64_t(0) ? ~std::uint64_t(0) : std::uint64_t(b);
}

DeviceMatrix::~DeviceMatrix() {
  if (base_) cudaFree(base_);  // no throw from a destructor; a sticky error shows up elsewhere
}

DeviceMatrix::DeviceMatrix(DeviceMatrix&& o) noexcept { *this = std::move(o); }

DeviceMatrix& DeviceMatrix::operator=(DeviceMatrix&& o) noexcept {
  if (this != &o) {
    if (base_) cudaFree(base_);
    base_ = std::exchange(o.base_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
    dtype_ = o.dtype_;
    rows_ = o.rows_;
    cols_ = o.cols_;
    ld_ = o.ld_;
    order_ = o.order_;
    misalign_ = o.misalign_;
  }
  return *this;
}

std::int64_t DeviceMatrix::span_elements() const {
  return ld_ * (outer_extent(order_, rows_, cols_) - 1) + contiguous_extent(order_, rows_, cols_);
}

std::vector<double> random_values(DType t, std::int64_t count, std::uint64_t seed) {
  std::vector<double> v(std::size_t(std::max<std::int64_t>(count, 0)));
  int const bits = random_bits(t);
  std::uint64_t const range = (std::uint64_t(1) << (bits + 1)) + 1;  // k in [-2^bits, 2^bits]
  double const scale = std::ldexp(1.0, -bits);
  std::uint64_t const key = splitmix64(seed);
  parallel_for(count, kGrain, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) {
      std::uint64_t const r = splitmix64(key ^ (std::uint64_t(i) * 0xD1B54A32D192ED03ull));
      auto const k = std::int64_t((unsigned __int128)r * range >> 64) - (std::int64_t(1) << bits);
      v[std::size_t(i)] = k == 0 ? 0.5 : double(k) * scale;
    }
  });
  return v;
}

void fill_random(DeviceMatrix& m, std::uint64_t seed) {
  from_host(m, random_values(m.dtype(), m.rows() * m.cols(), seed));
}

void poison(DeviceMatrix& m) {
  if (m.base()) LOOM_CUDA(cudaMemset(m.base(), 0xFF, m.bytes()));
}

void from_host(DeviceMatrix& m, std::vector<double> const& v) {
  if (m.empty() && v.empty()) return;
  if (m.empty() || std::int64_t(v.size()) != m.rows() * m.cols())
    throw Error("from_host: " + std::to_string(v.size()) + " values for a " + std::to_string(m.rows()) +
                " x " + std::to_string(m.cols()) + " matrix");
  if (size_of(m.dtype()) == 4) {
    std::vector<std::uint32_t> img;
    store_bits(m, v, img);
    upload_image(m, img.data());
  } else {
    std::vector<std::uint16_t> img;
    store_bits(m, v, img);
    upload_image(m, img.data());
  }
}

std::vector<double> to_host(DeviceMatrix const& m) {
  std::vector<double> v;
  if (!m.base()) return v;
  if (size_of(m.dtype()) == 4) {
    std::vector<std::uint32_t> img(std::size_t(m.rows() * m.cols()));
    download_image(m, img.data());
    load_bits(m, img, v);
  } else {
    std::vector<std::uint16_t> img(std::size_t(m.rows() * m.cols()));
    download_image(m, img.data());
    load_bits(m, img, v);
  }
  return v;
}

Operands CaseBuffers::operands() {
  Operands o;
  o.a = a.data();
  o.b = b.data();
  o.c = c.base() ? c.data() : nullptr;
  o.d = d.data();
  return o;
}

CaseBuffers make_buffers(Problem const& p0, int misalign) {
  Problem const p = with_default_lds(p0);
  CaseBuffers b;
  b.a = DeviceMatrix(p.dtype, rows_a(p), cols_a(p), p.a, p.lda, misalign);
  b.b = DeviceMatrix(p.dtype, rows_b(p), cols_b(p), p.b, p.ldb, misalign);
  if (p.op == OpKind::gemm) b.c = DeviceMatrix(p.out_dtype, p.m, p.n, p.c, p.ldc, misalign);
  b.d = DeviceMatrix(p.out_dtype, p.m, p.n, p.c, p.ldc, misalign);
  return b;
}

namespace {
std::uint64_t add_sat(std::uint64_t a, std::uint64_t b) { return a > ~std::uint64_t(0) - b ? ~std::uint64_t(0) : a + b; }

std::string bytes_text(std::uint64_t b) {
  char buf[64];
  if (b >= (std::uint64_t(1) << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", double(b) / double(std::uint64_t(1) << 30));
  else
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / double(1 << 20));
  return buf;
}
}  // namespace

std::uint64_t device_bytes(Problem const& p0, int misalign) {
  // The same matrices as make_buffers, in the same dimensions.
  Problem const p = with_default_lds(p0);
  std::uint64_t n = matrix_bytes(p.dtype, rows_a(p), cols_a(p), p.a, p.lda, misalign);
  n = add_sat(n, matrix_bytes(p.dtype, rows_b(p), cols_b(p), p.b, p.ldb, misalign));
  std::uint64_t const cd = matrix_bytes(p.out_dtype, p.m, p.n, p.c, p.ldc, misalign);
  if (p.op == OpKind::gemm) n = add_sat(n, cd);
  return add_sat(n, cd);
}

std::string why_no_memory(std::uint64_t need, std::uint64_t free) {
  if (free >= kMemoryReserve && need <= free - kMemoryReserve) return {};
  std::string s = "needs " + bytes_text(need) + ", the device has " + bytes_text(free) + " free";
  if (need <= free) s += " (" + bytes_text(kMemoryReserve) + " of it kept in reserve)";
  return s;
}

std::uint64_t free_device_bytes() {
  std::size_t free = 0, total = 0;
  LOOM_CUDA(cudaMemGetInfo(&free, &total));
  return free;
}

// =============================================================================================
// References

namespace {

cudaDataType_t cuda_type(DType t) {
  switch (t) {
    case DType::f32: return CUDA_R_32F;
    case DType::f16: return CUDA_R_16F;
    case DType::bf16: return CUDA_R_16BF;
  }
  return CUDA_R_32F;
}

bool fits_int(std::int64_t v) { return v >= 0 && v <= INT_MAX; }

}  // namespace

std::string why_no_cublas(Problem const& p0) {
  Problem const p = with_default_lds(p0);
  if (!fits_int(p.m) || !fits_int(p.n) || !fits_int(p.k) || !fits_int(p.lda) || !fits_int(p.ldb) ||
      !fits_int(p.ldc))
    return "cuBLAS takes 32-bit sizes and leading dimensions";
  if (p.op == OpKind::add) {
    if (p.dtype != DType::f32 || p.out_dtype != DType::f32)
      return std::string("cuBLAS has no ") + to_string(p.dtype) + " add (geam is fp32/fp64 only)";
    return {};
  }
  if (p.dtype == DType::f32 && p.out_dtype != DType::f32)
    return std::string("cuBLAS has no f32 gemm with ") + to_string(p.out_dtype) + " output";
  if (p.dtype != DType::f32 && p.out_dtype != p.dtype && p.out_dtype != DType::f32)
    return std::string("cuBLAS has no ") + to_string(p.dtype) + " gemm with " + to_string(p.out_dtype) +
           " output";
  return {};
}

void reference_cublas(Problem const& p0, Operands const& ops, cublasHandle_t h, cudaStream_t s) {
  Problem const p = with_default_lds(p0);
  std::string const why = why_no_cublas(p);
  if (!why.empty()) throw Error("no cuBLAS reference for " + case_name("cublas", p) + ": " + why);
  LOOM_CUBLAS(cublasSetStream(h, s));
  LOOM_CUBLAS(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
  float const alpha = float(p.alpha), beta = float(p.beta);
  bool const ccol = p.c == Order::col;
  // Everything is expressed in C's storage order: for row-major C, compute C^T (N x M).
  if (p.op == OpKind::add) {
    // C = alpha*op(A) + beta*op(B). An operand stored in C's order needs no transpose.
    auto op = [&](Order o) { return o == p.c ? CUBLAS_OP_N : CUBLAS_OP_T; };
    int const m = int(ccol ? p.m : p.n), n = int(ccol ? p.n : p.m);
    LOOM_CUBLAS(cublasSgeam(h, op(p.a), op(p.b), m, n, &alpha, static_cast<float const*>(ops.a),
                            int(p.lda), &beta, static_cast<float const*>(ops.b), int(p.ldb),
                            static_cast<float*>(ops.d), int(p.ldc)));
    return;
  }
  // gemm: cuBLAS updates C in place, so D starts as a copy of C when beta reads it.
  if (p.beta != 0 && ops.c && ops.c != ops.d) {
    std::size_t const es = size_of(p.out_dtype);
    std::int64_t const contig = ccol ? p.m : p.n, outer = ccol ? p.n : p.m;
    LOOM_CUDA(cudaMemcpy2DAsync(ops.d, std::size_t(p.ldc) * es, ops.c, std::size_t(p.ldc) * es,
                                std::size_t(contig) * es, std::size_t(outer), cudaMemcpyDeviceToDevice, s));
  }
  cublasComputeType_t const compute =
      p.dtype == DType::f32 ? CUBLAS_COMPUTE_32F_PEDANTIC : CUBLAS_COMPUTE_32F;
  cudaDataType_t const in = cuda_type(p.dtype), out = cuda_type(p.out_dtype);
  if (ccol) {
    // C (M x N) = op(A) op(B); a row-major operand is its transpose in column-major storage.
    auto opa = p.a == Order::col ? CUBLAS_OP_N : CUBLAS_OP_T;
    auto opb = p.b == Order::col ? CUBLAS_OP_N : CUBLAS_OP_T;
    LOOM_CUBLAS(cublasGemmEx(h, opa, opb, int(p.m), int(p.n), int(p.k), &alpha, ops.a, in, int(p.lda),
                             ops.b, in, int(p.ldb), &beta, ops.d, out, int(p.ldc), compute,
                             CUBLAS_GEMM_DEFAULT));
  } else {
    // C^T (N x M) = B^T A^T; a row-major operand is already transposed in column-major storage.
    auto opb = p.b == Order::row ? CUBLAS_OP_N : CUBLAS_OP_T;
    auto opa = p.a == Order::row ? CUBLAS_OP_N : CUBLAS_OP_T;
    LOOM_CUBLAS(cublasGemmEx(h, opb, opa, int(p.n), int(p.m), int(p.k), &alpha, ops.b, in, int(p.ldb),
                             ops.a, in, int(p.lda), &beta, ops.d, out, int(p.ldc), compute,
                             CUBLAS_GEMM_DEFAULT));
  }
}

std::vector<double> reference_host(Problem const& p, std::vector<double> const& A,
                                   std::vector<double> const& B, std::vector<double> const& C) {
  std::size_t const M = std::size_t(p.m), N = std::size_t(p.n);
  if (p.m <= 0 || p.n <= 0 || (p.op == OpKind::gemm && p.k <= 0))
    throw Error("reference_host: sizes must be positive");
  std::vector<double> D(M * N);
  if (p.op == OpKind::add) {
    if (A.size() != M * N || B.size() != M * N) throw Error("reference_host: A or B has the wrong size");
    parallel_for(std::int64_t(M * N), kGrain, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i)
        D[std::size_t(i)] = p.alpha * A[std::size_t(i)] + (p.beta == 0 ? 0.0 : p.beta * B[std::size_t(i)]);
    });
    return D;
  }
  std::size_t const K = std::size_t(p.k);
  if (A.size() != M * K || B.size() != K * N) throw Error("reference_host: A or B has the wrong size");
  if (p.beta != 0 && C.size() != M * N) throw Error("reference_host: C has the wrong size");
  std::int64_t const per_column = std::int64_t(M * K);
  parallel_for(std::int64_t(N), std::max<std::int64_t>(1, kGrain / per_column), [&](std::int64_t jb, std::int64_t je) {
    std::vector<double> acc(M);
    for (std::size_t j = std::size_t(jb); j < std::size_t(je); ++j) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::size_t l = 0; l < K; ++l) {
        double const b = B[l + j * K];
        double const* a = &A[l * M];
        for (std::size_t i = 0; i < M; ++i) acc[i] += a[i] * b;
      }
      for (std::size_t i = 0; i < M; ++i)
        D[i + j * M] = p.alpha * acc[i] + (p.beta == 0 ? 0.0 : p.beta * C[i + j * M]);
    }
  });
  return D;
}

// =============================================================================================
// Compare

double tolerance(DType out, OpKind op, std::int64_t k) {
  if (op == OpKind::add) {
    switch (out) {
      case DType::f32: return 1e-6;
      case DType::f16: return 1e-3;
      case DType::bf16: return 8e-3;
    }
  }
  switch (out) {
    case DType::f32: return 1e-6 * std::sqrt(double(std::max<std::int64_t>(k, 1)));
    case DType::f16: return 1e-2;
    case DType::bf16: return 2e-2;
  }
  return 0;
}

namespace {

double max_finite(DType t) {
  switch (t) {
    case DType::f32: return double(std::numeric_limits<float>::max());
    case DType::f16: return 65504.0;
    case DType::bf16: return std::ldexp(2.0 - std::ldexp(1.0, -7), 127);
  }
  return 0;
}

std::string fmt_g(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

double typical_rms(Problem const& p) {
  double const a2 = p.alpha * p.alpha, b2 = p.beta * p.beta;
  if (p.op == OpKind::add) return std::sqrt((a2 + b2) / 3);
  return std::sqrt(a2 * double(std::max<std::int64_t>(p.k, 0)) / 9 + b2 / 3);
}

ErrorStats compare(std::vector<double> const& out, std::vector<double> const& ref, DType out_dtype,
                   Problem const& p, double typical) {
  ErrorStats st;
  st.tol = tolerance(out_dtype, p.op, p.k);
  if (out.size() != ref.size()) {
    st.why = "output has " + std::to_string(out.size()) + " elements, reference " +
             std::to_string(ref.size());
    return st;
  }
  std::int64_t const M = std::max<std::int64_t>(p.m, 1);
  auto where = [&](std::size_t idx) {
    return "(" + std::to_string(std::int64_t(idx) % M) + "," + std::to_string(std::int64_t(idx) / M) + ")";
  };
  // Beyond this magnitude the output type rounds to infinity.
  double const overflow = max_finite(out_dtype) * (1 + unit_roundoff(out_dtype));
  auto const n = std::int64_t(out.size());
  std::int64_t const chunks = (n + kGrain - 1) / kGrain;

  // Pass 1: ||ref|| and the RMS of the finite reference, per chunk, summed in chunk order.
  std::vector<double> part_ref2(std::size_t(chunks), 0.0);
  std::vector<std::int64_t> part_nfin(std::size_t(chunks), 0);
  parallel_for(n, kGrain, [&](std::int64_t b, std::int64_t e) {
    double s2 = 0;
    std::int64_t f = 0;
    for (std::int64_t i = b; i < e; ++i) {
      double const r = ref[std::size_t(i)];
      if (std::isfinite(r)) {
        s2 += r * r;
        ++f;
      }
    }
    part_ref2[std::size_t(b / kGrain)] = s2;
    part_nfin[std::size_t(b / kGrain)] = f;
  });
  double ref2 = 0;
  std::int64_t nfin = 0;
  for (std::int64_t c = 0; c < chunks; ++c) {
    ref2 += part_ref2[std::size_t(c)];
    nfin += part_nfin[std::size_t(c)];
  }
  double const rms = std::max(nfin ? std::sqrt(ref2 / double(nfin)) : 0.0, typical);
  double const u = unit_roundoff(out_dtype), u32 = std::ldexp(1.0, -24);

  // Pass 2: errors per chunk.
  struct Part {
    double diff2 = 0, max_abs = 0, max_rel = 0, worst_ratio = 0, worst_bound = 0;
    std::int64_t nonfinite = 0, unwritten = 0, over_bound = 0;
    std::int64_t first_nonfinite = -1, worst = -1;
  };
  std::vector<Part> parts(static_cast<std::size_t>(chunks));
  parallel_for(n, kGrain, [&](std::int64_t b, std::int64_t e) {
    Part q;
    for (std::int64_t i = b; i < e; ++i) {
      double const o = out[std::size_t(i)], r = ref[std::size_t(i)];
      if (!std::isfinite(r) || std::fabs(r) > overflow) {
        // Non-finite reference, or one the output type cannot hold: the output must be the same
        // infinity (or NaN for a NaN reference).
        bool const same = std::isnan(r) ? std::isnan(o) : (std::isinf(o) && std::signbit(o) == std::signbit(r));
        if (!same) {
          ++q.nonfinite;
          if (std::isnan(o)) ++q.unwritten;
          if (q.first_nonfinite < 0) q.first_nonfinite = i;
        }
        continue;
      }
      if (!std::isfinite(o)) {
        ++q.nonfinite;
        if (std::isnan(o)) ++q.unwritten;
        if (q.first_nonfinite < 0) q.first_nonfinite = i;
        continue;
      }
      double const d = std::fabs(o - r);
      q.diff2 += d * d;
      q.max_abs = std::max(q.max_abs, d);
      if (r != 0) q.max_rel = std::max(q.max_rel, d / std::fabs(r));
      double const bound = rms == 0                ? st.tol  // all-zero reference: absolute
                           : p.op == OpKind::add ? 1.001 * u * std::fabs(r) + 16 * u32 * (std::fabs(r) + rms)
                                                 : 4 * st.tol * (std::fabs(r) + rms);
      if (d > bound) {
        ++q.over_bound;
        double const ratio = bound > 0 ? d / bound : HUGE_VAL;
        if (ratio > q.worst_ratio) {
          q.worst_ratio = ratio;
          q.worst_bound = bound;
          q.worst = i;
        }
      }
    }
    parts[std::size_t(b / kGrain)] = q;
  });
  double diff2 = 0, worst_ratio = 0, worst_bound = 0;
  std::int64_t first_nonfinite = -1, worst = -1;
  for (Part const& q : parts) {
    diff2 += q.diff2;
    st.max_abs = std::max(st.max_abs, q.max_abs);
    st.max_rel = std::max(st.max_rel, q.max_rel);
    st.nonfinite += q.nonfinite;
    st.unwritten += q.unwritten;
    st.over_bound += q.over_bound;
    if (first_nonfinite < 0) first_nonfinite = q.first_nonfinite;
    if (q.worst >= 0 && q.worst_ratio > worst_ratio) {
      worst_ratio = q.worst_ratio;
      worst_bound = q.worst_bound;
      worst = q.worst;
    }
  }
  auto element = [&](std::int64_t i) {
    return "element " + where(std::size_t(i)) + " is " + fmt_g(out[std::size_t(i)]) + ", reference " +
           fmt_g(ref[std::size_t(i)]);
  };
  std::string const first_nonfinite_s = first_nonfinite >= 0 ? element(first_nonfinite) : std::string();
  std::string const worst_elem =
      worst >= 0 ? element(worst) + " (error " + fmt_g(std::fabs(out[std::size_t(worst)] - ref[std::size_t(worst)])) +
                       " > bound " + fmt_g(worst_bound) + ")"
                 : std::string();
  double const ref_norm = std::max(std::sqrt(ref2), typical * std::sqrt(double(nfin)));
  st.rel_fro = ref_norm > 0 ? std::sqrt(diff2) / ref_norm : std::sqrt(diff2);

  std::vector<std::string> why;
  if (st.nonfinite > 0)
    why.push_back(std::to_string(st.nonfinite) + " non-finite elements (" + std::to_string(st.unwritten) +
                  " NaN: unwritten?); first: " + first_nonfinite_s);
  if (!(st.rel_fro <= st.tol))
    why.push_back("rel_fro " + fmt_g(st.rel_fro) + " > tolerance " + fmt_g(st.tol) +
                  (ref_norm > 0 ? "" : " (absolute: the reference is zero)"));
  if (st.over_bound > 0)
    why.push_back(std::to_string(st.over_bound) + " elements outside the element-wise bound; worst: " +
                  worst_elem);
  st.pass = why.empty();
  for (auto const& w : why) st.why += (st.why.empty() ? "" : "; ") + w;
  return st;
}

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

std::string kernel_list() {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-10s %-5s %-16s %-7s %s\n", "kernel", "op", "dtypes", "min_cc", "description");
  out += line;
  for (auto const& k : kernels()) {
    std::string dts;
    for (DType t : k.dtypes) dts += std::string(dts.empty() ? "" : ", ") + to_string(t);
    std::snprintf(line, sizeof line, "%-10s %-5s %-16s %d.%-5d %s\n", k.name.c_str(), to_string(k.op), dts.c_str(),
                  k.min_cc / 10, k.min_cc % 10, k.description.c_str());
    out += line;
  }
  return out;
}

namespace {
std::uint64_t mix64(std::uint64_t x) {  // splitmix64's finalizer
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
std::string shortest(double v) {  // the shortest text that reads back as v
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}
}  // namespace

std::uint64_t case_seed(std::uint64_t seed, Problem const& p, int misalign) {
  std::uint64_t h = mix64(seed + 0x9E3779B97F4A7C15ull);
  auto add = [&](std::uint64_t v) { h = mix64(h ^ (v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2))); };
  std::uint64_t ab[2];
  std::memcpy(&ab[0], &p.alpha, 8);
  std::memcpy(&ab[1], &p.beta, 8);
  for (std::uint64_t v : {std::uint64_t(p.op), std::uint64_t(p.dtype), std::uint64_t(p.out_dtype), std::uint64_t(p.m),
                          std::uint64_t(p.n), std::uint64_t(p.k), std::uint64_t(p.a), std::uint64_t(p.b),
                          std::uint64_t(p.c), std::uint64_t(p.lda), std::uint64_t(p.ldb), std::uint64_t(p.ldc),
                          std::uint64_t(misalign), ab[0], ab[1]})
    add(v);
  return h;
}

std::string repro_command(std::string const& kernel, Problem const& p0, int misalign, std::uint64_t seed) {
  Problem const p = with_default_lds(p0);
  // loom-validate sets every leading dimension to its minimum plus one --ld-pad: the case's pad.
  std::int64_t const pad = p.lda - min_ld(p.a, rows_a(p), cols_a(p));
  std::string cmd = "loom-validate --kernels=" + kernel + " --op=" + to_string(p.op) + " --dtypes=" +
                    to_string(p.dtype);
  if (p.out_dtype != p.dtype) cmd += std::string(" --out-dtypes=") + to_string(p.out_dtype);
  cmd += " --layouts=" + layout_string(p) + " --m=" + std::to_string(p.m) + " --n=" + std::to_string(p.n);
  if (p.op == OpKind::gemm) cmd += " --k=" + std::to_string(p.k);
  cmd += " --ld-pad=" + std::to_string(pad) + " --misalign=" + std::to_string(misalign) + " --alpha=" +
         shortest(p.alpha) + " --beta=" + shortest(p.beta) + " --seed=" + std::to_string(seed);
  return cmd;
}

std::string bench_repro_command(std::string const& kernel, std::string const& providers, Problem const& p) {
  if (p.out_dtype != p.dtype)
    throw std::invalid_argument(std::string("loom-bench times no ") + to_string(p.dtype) + " case with " +
                                to_string(p.out_dtype) + " output");
  std::string cmd = "loom-bench --kernels=" + kernel + " --dtypes=" + to_string(p.dtype) + " --layouts=" +
                    layout_string(p) + " --m=" + std::to_string(p.m) + " --n=" + std::to_string(p.n);
  if (p.op == OpKind::gemm) cmd += " --k=" + std::to_string(p.k);
  // Both scalars, always: the defaults differ by op (beta 1 for add, 0 for gemm).
  cmd += " --alpha=" + shortest(p.alpha) + " --beta=" + shortest(p.beta);
  if (!providers.empty()) cmd += " --providers=" + providers;
  return cmd;
}

bool is_glob(std::string const& pattern) {
  std::size_t const open = pattern.find('[');
  return pattern.find_first_of("*?") != std::string::npos ||
         (open != std::string::npos && pattern.find(']', open + 1) != std::string::npos);
}

std::vector<KernelInfo const*> select_kernels(std::vector<std::string> const& patterns,
                                              std::vector<std::string> const& ignore) {
  auto matching = [](std::string const& pat, char const* opt) {
    std::vector<KernelInfo const*> out;
    for (auto const& k : kernels())
      if (is_glob(pat) ? fnmatch(pat.c_str(), k.name.c_str(), 0) == 0 : k.name == pat) out.push_back(&k);
    if (out.empty()) {
      std::string names;
      for (auto const& k : kernels()) names += (names.empty() ? "" : ", ") + k.name;
      throw std::invalid_argument(is_glob(pat) ? std::string(opt) + ": \"" + pat + "\" matches no kernel (registered: " + names + ")"
                                               : "unknown kernel \"" + pat + "\" (registered: " + names + ")");
    }
    return out;
  };
  std::vector<KernelInfo const*> sel;
  if (patterns.empty()) {
    for (auto const& k : kernels()) sel.push_back(&k);
  } else {
    for (auto const& pat : patterns)
      for (KernelInfo const* k : matching(pat, "--kernels"))
        if (std::find(sel.begin(), sel.end(), k) == sel.end()) sel.push_back(k);
    // Registry order, whatever the order of the patterns.
    std::sort(sel.begin(), sel.end(), [](KernelInfo const* a, KernelInfo const* b) { return a < b; });
  }
  for (auto const& pat : ignore)
    for (KernelInfo const* k : matching(pat, "--ignore-kernels")) std::erase(sel, k);
  return sel;
}

}  // namespace loom::harness
