// Loom test harness: what loom-validate and loom-bench share.
//
//   errors      Error, NoGpu, LOOM_CUDA / LOOM_CUBLAS (throw with "expr: <error string>")
//   device      DeviceInfo, query_device(), describe(); through NVML (nvml.cpp): current_clocks(),
//               sm_clock_mhz(), clock_event_reasons(), nvidia_driver_version()
//   sweeps      parse_int_list / parse_real_list / split_list (CUTLASS-profiler list syntax),
//               SweepSpec, expand() into Cases, default_validate_sweep()
//   buffers     DeviceMatrix (RAII, padded and deliberately misalignable), fill_random, poison,
//               to_host, host f16/bf16/e4m3/e5m2 converters, an 8-bit case's tensor or block scales
//   memory      device_bytes() a case allocates, why_no_memory() against the free bytes
//   references  reference_cublas() (cuBLAS, in C's storage order), reference_host() (fp64),
//               make_buffers(), why_no_cublas(); cublaslt_gemm() (cublaslt.cpp: cuBLASLt's FP8
//               gemm, loom-bench's baseline of 8-bit cases), why_no_cublaslt()
//   cases       a case's input seed, and the commands that rerun it in loom-validate and loom-bench
//   selection   the kernels --kernels / --ignore-kernels name, the --list table
//   compare     tolerance(), compare() -> ErrorStats
//   profiling   NvtxRange (in the "loom" NVTX domain), Timer (CUDA events)
//
// Elsewhere in harness/: the named sweeps (named_sweeps.hpp), the options both tools share
// (cli.hpp), splitmix64 (splitmix64.hpp), the thread pool (parallel.hpp), .npy files (npy.hpp),
// the watchdog and fault injection (watchdog.hpp, fault.hpp).
//
// Host element vectors (to_host, reference_host, compare) hold the logical elements of a matrix
// column-major by (i, j): element (i, j) of an R x C matrix is at i + j*R, whatever the storage
// order and leading dimension on the device.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/named_sweeps.hpp"
#include "kernels/registry.hpp"

namespace loom::harness {

// ---------------------------------------------------------------------------------------------
// Errors

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// No usable CUDA GPU (cudaGetDeviceCount failed or found none): "no CUDA GPU found", see
// query_device().
struct NoGpu : Error {
  using Error::Error;
};

[[noreturn]] void throw_cuda(cudaError_t e, char const* expr);
[[noreturn]] void throw_cublas(cublasStatus_t s, char const* expr);
char const* cublas_status_string(cublasStatus_t s);

#define LOOM_CUDA(expr)                                                        \
  do {                                                                         \
    cudaError_t loom_cuda_err_ = (expr);                                       \
    if (loom_cuda_err_ != cudaSuccess)                                         \
      ::loom::harness::throw_cuda(loom_cuda_err_, #expr);                      \
  } while (0)

#define LOOM_CUBLAS(expr)                                                      \
  do {                                                                         \
    cublasStatus_t loom_cublas_st_ = (expr);                                   \
    if (loom_cublas_st_ != CUBLAS_STATUS_SUCCESS)                              \
      ::loom::harness::throw_cublas(loom_cublas_st_, #expr);                   \
  } while (0)

// ---------------------------------------------------------------------------------------------
// Device

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc = 0;  // major*10 + minor
  int sm_count = 0;
  int driver_version = 0;   // cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;  // cudaRuntimeGetVersion
  int cublas_version = 0;   // cublasGetVersion
  std::int64_t l2_bytes = 0;
  std::int64_t global_mem_bytes = 0;
  // memory clock (kHz) * 1e3 * bus width (bits) / 8 * 2 (double data rate) / 1e9
  double peak_dram_gbs = 0;
  // sm_count * fp32_lanes_per_sm FMA/clk * 2 flop/FMA * max SM clock / 1e12
  double peak_fp32_tflops = 0;
  int fp32_lanes_per_sm = 128;  // 128 on cc 8.6 and newer (H100: 128); 64 on cc 6.0, 7.x, 8.0
  int sm_clock_mhz = 0;   // maximum SM clock (cudaDevAttrClockRate)
  int mem_clock_mhz = 0;  // maximum memory clock (cudaDevAttrMemoryClockRate)
  // Which physical GPU this is: the ordinal is the process's (CUDA_VISIBLE_DEVICES renumbers), so
  // reports that are merged across processes (scripts/multi_gpu.sh) tell GPUs apart by these.
  std::string pci_bus_id;  // cudaDeviceGetPCIBusId, e.g. "0000:19:00.0"; "" where the runtime has none
  std::string uuid;        // cudaDeviceProp::uuid as nvidia-smi -L writes it, "GPU-xxxxxxxx-xxxx-..."
};

// Throws NoGpu("no CUDA GPU found") when there is no device or no driver; when cudaGetDeviceCount
// fails for another reason, NoGpu("no CUDA GPU found (cudaGetDeviceCount: <error string>)").
// Error for a bad ordinal.
DeviceInfo query_device(int ordinal = 0);
// One or two lines, including the formulas behind the peak numbers.
std::string describe(DeviceInfo const&);

// NVML (harness/nvml.cpp): the driver's libnvidia-ml.so.1, opened at run time (dlopen), not linked,
// so that a machine without the driver still runs the tools; where the library, nvmlInit or the
// device's lookup fails, every query below answers "unavailable" (-1, empty, nullopt), never an
// error. A CUDA device is found in NVML by its PCI bus id (nvmlDeviceGetHandleByPciBusId_v2), once.
struct Clocks {
  int sm_mhz = -1;   // -1: unavailable
  int mem_mhz = -1;
};
// Why NVML cannot answer for CUDA device `ordinal` ("" when it can), e.g. "libnvidia-ml.so.1 not
// found (no NVIDIA driver)".
std::string nvml_unavailable(int ordinal = 0);
// Current SM and memory clocks (nvmlDeviceGetClockInfo); -1 where unavailable.
Clocks current_clocks(int ordinal = 0);
// The current SM clock alone (one NVML call, cheap enough to read after every timed launch); -1
// where unavailable.
int sm_clock_mhz(int ordinal = 0);
// The highest SM clock (nvmlDeviceGetMaxClockInfo); -1 where unavailable.
int max_sm_clock_mhz(int ordinal = 0);
// Active clock event (throttle) reasons as NVML's bit mask (nvmlDeviceGetCurrentClocksEventReasons,
// or ...ThrottleReasons on drivers older than 535); nullopt where unavailable.
std::optional<unsigned long long> clock_event_reasons(int ordinal = 0);
// The names of a mask's bits and the mask: "sw_power_cap, hw_slowdown (0xc)"; "none (0x0)".
std::string describe_clock_event_reasons(unsigned long long mask);
// The NVIDIA kernel driver's version (nvmlSystemGetDriverVersion, e.g. 580.159.04); empty when
// unavailable.
std::string nvidia_driver_version(int ordinal = 0);

// ---------------------------------------------------------------------------------------------
// Sweeps (CUTLASS-profiler syntax)

// "1024", "1,7,127", "1024:8192:1024" (inclusive start:end:step, step defaults to 1 in
// "start:end"), or a mixture "1,7,64:256:64". Throws std::invalid_argument naming the bad item
// for garbage, empty items, zero/negative steps and end < start.
std::vector<std::int64_t> parse_int_list(std::string_view);
// "1", "0.5,-2", "0:1:0.25" (inclusive, with a small tolerance on the end).
std::vector<double> parse_real_list(std::string_view);
// "a,b,c" -> {"a","b","c"}; throws std::invalid_argument on an empty item.
std::vector<std::string> split_list(std::string_view);

// The input types of a case: A's and B's dtypes, one for both but in the 8-bit pairs (e4m3 x e5m2,
// e5m2 x e4m3), and for 8-bit inputs the fast accumulation mode (Problem::fast_accum: the partial
// sums not promoted to fp32) or block scales (Problem::scale, "-block"; never both: block scales are
// applied as each 128 of K is promoted). A DType converts to the pair of it with itself.
struct InputTypes {
  DType a = DType::f32, b = DType::f32;
  bool fast = false;
  ScaleMode scale = ScaleMode::tensor;  // block: named "-block", whatever SweepSpec::scales says
  InputTypes() = default;
  InputTypes(DType t) : a(t), b(t) {}  // NOLINT: implicit, so that {DType::f16} is a list of them
  InputTypes(DType a_, DType b_, bool fast_ = false, ScaleMode scale_ = ScaleMode::tensor)
      : a(a_), b(b_), fast(fast_), scale(scale_) {}
  bool operator==(InputTypes const&) const = default;
  // As input_types() names a case's: "bf16", "e4m3", "e4m3xe5m2", "e4m3-fast", "e4m3-block".
  std::string name() const;
};
// The output dtypes gemm of these inputs may write: f32 inputs f32; f16/bf16 inputs their own or
// f32; 8-bit inputs bf16, f16 or f32. add writes its input dtype.
bool takes_output(OpKind, InputTypes, DType out);
// The output dtype of a case when none is asked: bf16 for 8-bit inputs, else the input dtype.
DType default_output(InputTypes);

struct SweepSpec {
  std::vector<std::string> kernels;  // registered kernel names
  std::vector<InputTypes> dtypes;    // each a kernel takes both of (KernelInfo::dtypes) is crossed
  std::vector<std::string> layouts;  // "ccc", "rcr", ...
  // m, n, k are crossed; when mn_pairs is non-empty it replaces the cross product of m and n.
  std::vector<std::int64_t> m, n, k;
  std::vector<std::pair<std::int64_t, std::int64_t>> mn_pairs;
  bool k_follows_m = false;  // gemm: K = M in every case, the k list unused (the tools' size rule)
  std::vector<double> alpha, beta;  // crossed, unless ab_pairs is non-empty
  std::vector<std::pair<double, double>> ab_pairs;
  std::vector<std::int64_t> ld_pad;  // extra elements added to each leading dimension
  std::vector<int> misalign;         // element offset of every base pointer
  // Output dtypes of gemm: for each input, those of them it takes (takes_output); empty: the
  // input's default_output. add and f32 gemm always output their input dtype.
  std::vector<DType> out_dtypes;
  // The scaling of 8-bit inputs (--scale): each 8-bit input named without "-block" gives a case per
  // mode here (empty: tensor alone), its "-fast" form tensor alone (the fast mode has no block
  // scales); an input named "-block" is block whatever this says, and 16- and 32-bit inputs ignore
  // it. A case that two inputs give alike (e4m3 with block here, and e4m3-block) is made once.
  std::vector<ScaleMode> scales = {ScaleMode::tensor};
  OpKind op = OpKind::add;
};

struct Case {
  KernelInfo const* kernel = nullptr;
  Problem problem;  // lds filled in: minimal + pad
  int misalign = 0;
};

// Every combination, kernels of another op left out; input types a kernel does not list left out.
// For add, k is set to 0 (unused) and the k list is ignored. Throws std::invalid_argument on an unknown
// kernel or a bad layout string.
std::vector<Case> expand(SweepSpec const&);
// How many cases expand(spec) gives, counted without building them (saturates at UINT64_MAX), so
// that a tool refuses a sweep too large to hold before it allocates any of it.
std::uint64_t count_cases(SweepSpec const&);
// The largest sweeps loom-validate and loom-bench take unless --max-cases raises the limit. The
// default validation sweep has about 14,000 cases; a benchmark case takes about a second.
inline constexpr std::uint64_t kValidateMaxCases = 100000;
inline constexpr std::uint64_t kBenchMaxCases = 10000;
// --tags=key:value[,key:value...]: constant fields a tool adds to every row of its report (a run's
// machine, commit, ...), in the order given. A key is letters, digits, '_', '.' and '-'; a value is
// what follows the first ':', without surrounding blanks, not empty, and without ',' (the tags'
// separator), ';' (the separator of loom-bench's label fields) or control characters (a line
// break would split a row). Throws std::invalid_argument naming the bad tag: an empty list or
// item, no ':', an empty key or value, a bad character, a key given twice, or one of `reserved`
// (the report's own fields).
std::vector<std::pair<std::string, std::string>> parse_tags(std::string_view text,
                                                            std::vector<std::string> const& reserved);
// "" when a file can be written at `path` (an existing writable file, or a new one in an existing
// writable directory), else why not; the file is neither created nor changed.
std::string why_not_writable(std::string const& path);
// loom-bench --append: the rows of Google Benchmark JSON document `more` added after those of
// `base`, whose context (the first run's) is kept. Both must be loom-bench JSON files: an object
// whose last member is "benchmarks": [...]. Returns the merged document, or "" with *why set.
std::string append_benchmark_rows(std::string const& base, std::string const& more, std::string* why);
// The default correctness sweep for one op, with kernels = every registered kernel of that op
// (may be empty for an op without kernels). Its dtypes are f32, f16 and bf16.
SweepSpec default_validate_sweep(OpKind);
// loom-validate's sweep of 8-bit gemm inputs (--dtypes=e4m3, ...; not in the default sweep): e4m3,
// e4m3 x e5m2, e5m2 x e4m3 and e4m3 in the fast accumulation mode, k-major A and B (layouts rcr and rcc, what Hopper's 8-bit wgmma
// reads), the default gemm sweep's (M, N) pairs, K of 16, 272 and 1024 (one partial k tile of 128,
// two and a partial one, eight whole) and leading dimensions padded by 0 and 16 (A's and B's a
// multiple of 16 bytes, as the 8-bit path needs), aligned pointers; kernels every registered gemm
// kernel.
SweepSpec default_validate_sweep_8bit();
// loom-validate --sweep=NAME / NAME-ragged (harness/named_sweeps.hpp): gemm over the sweep's
// shapes (its M values up to 1024, or `ms`, by its (N, K) pairs), one spec per shape and layout
// (every layout, or `layouts`), bf16 or f16 and alpha/beta 1/0 (TMA store) or 1.5/0.5 (C read)
// alternating over them; `ragged`: each size off by 1 to 7 (M as given when `ms` is). Kernels
// left empty for the caller.
std::vector<SweepSpec> llm_validate_sweep(NamedSweep const& sweep, bool ragged, std::vector<std::int64_t> const& ms,
                                          std::vector<std::string> const& layouts);

// ---------------------------------------------------------------------------------------------
// Buffers

class DeviceMatrix {
 public:
  DeviceMatrix() = default;
  // rows x cols logical elements stored in `order` with leading dimension ld (0: the minimum);
  // data() is base + misalign elements. The allocation covers ld * extent + misalign + slack.
  DeviceMatrix(DType dtype, std::int64_t rows, std::int64_t cols, Order order, std::int64_t ld = 0,
               int misalign = 0);
  ~DeviceMatrix();
  DeviceMatrix(DeviceMatrix&&) noexcept;
  DeviceMatrix& operator=(DeviceMatrix&&) noexcept;
  DeviceMatrix(DeviceMatrix const&) = delete;
  DeviceMatrix& operator=(DeviceMatrix const&) = delete;

  void* data() { return static_cast<char*>(base_) + std::size_t(misalign_) * size_of(dtype_); }
  void const* data() const {
    return static_cast<char const*>(base_) + std::size_t(misalign_) * size_of(dtype_);
  }
  void* base() { return base_; }
  void const* base() const { return base_; }
  bool empty() const { return base_ == nullptr; }
  DType dtype() const { return dtype_; }
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  Order order() const { return order_; }
  std::int64_t ld() const { return ld_; }
  int misalign() const { return misalign_; }
  std::size_t bytes() const { return bytes_; }  // whole allocation
  // Elements from data() to the end of the last stored element: ld*(extent-1) + contiguous extent.
  std::int64_t span_elements() const;
  // Storage offset of logical element (i, j) from data().
  std::int64_t offset(std::int64_t i, std::int64_t j) const {
    return order_ == Order::col ? i + j * ld_ : i * ld_ + j;
  }

 private:
  void* base_ = nullptr;
  std::size_t bytes_ = 0;
  DType dtype_ = DType::f32;
  std::int64_t rows_ = 0, cols_ = 0, ld_ = 0;
  Order order_ = Order::col;
  int misalign_ = 0;
};

// k * 2^-b for k uniform over the integers in [-2^b, 2^b], so in [-1, 1] and exact in the dtype:
// b = 23 for f32, 11 for f16, 8 for bf16; for e4m3 and e5m2, f32's value rounded to the format
// (every significand and exponent, subnormals too; buffers.cpp says why). Never zero: k = 0, or an
// 8-bit value that rounds to 0, gives 0.5 instead. Deterministic in (dtype, seed, logical column-major index);
// the padding is left alone (NaN if poisoned first).
void fill_random(DeviceMatrix&, std::uint64_t seed);
// The host values fill_random writes, logical column-major (for tests, and the fp64 reference).
std::vector<double> random_values(DType, std::int64_t count, std::uint64_t seed);
// The bits fill_random writes: random_values(t, rows * cols, seed) encoded in t (round to nearest
// even), packed in storage order (o's contiguous extent fastest), size_of(t) bytes an element.
// Each element is drawn in its place, so that no vector of doubles is made on the way.
std::vector<unsigned char> random_image(DType t, Order o, std::int64_t rows, std::int64_t cols, std::uint64_t seed);
// Per-tensor scales of an 8-bit gemm case, D = alpha (scale_a A)(scale_b B) + beta C (1 and 1: none).
struct TensorScales {
  double a = 1, b = 1;
};
// The scales make_buffers gives an 8-bit case from its seed: each 0.75 or 1.25 times a power of two
// in [1/4, 4], never 1, the two never equal. Deterministic in the seed.
TensorScales random_scales(std::uint64_t seed);
// Block scales of an 8-bit gemm case (ScaleMode::block), host copies of the two arrays in the
// layouts of loom/gemm.hpp's GemmScales (cuBLASLt's VEC128_32F and BLK128x128_32F), kb = ceil(K/128):
//   a: kb x M, m contiguous: the scale of A's row i, k in [128j, 128j + 128), at a[i + j*M];
//   b: ceil(N/128) columns of block_scale_ld(K) (kb rounded up to 4): the scale of B's block
//      (k in [128j, 128j + 128), n in [128l, 128l + 128)) at b[j + l*block_scale_ld(K)]; the
//      padding (j >= kb) NaN, so that a kernel that reads it fails.
// D = alpha * sum_k (A[i,k] a_at(i,k)) (B[k,j] b_at(k,j)) + beta C.
struct BlockScales {
  std::int64_t m = 0, n = 0, k = 0;  // the case's
  std::vector<float> a, b;
  bool empty() const { return a.empty(); }
  std::int64_t k_blocks() const { return (k + 127) / 128; }
  std::int64_t ld() const { return block_scale_ld(k); }
  double a_at(std::int64_t i, std::int64_t kk) const { return a[std::size_t(i + kk / 128 * m)]; }
  double b_at(std::int64_t kk, std::int64_t j) const { return b[std::size_t(kk / 128 + j / 128 * ld())]; }
};
// The block scales make_buffers gives an 8-bit case of ScaleMode::block from its seed: each value
// drawn alone, 0.75 or 1.25 times 2^e with e in [-3, 3] (3/32 to 10), never 1. Deterministic in
// (seed, M, N, K). Every such scale times an e4m3 or e5m2 value in [-1, 1] (random_values'), and
// times any e4m3 value, is exact in bf16 and f16 (buffers.cpp says why): reference_cublas widens
// A*scale and B*scale to 16 bits exactly.
BlockScales random_block_scales(Problem const&, std::uint64_t seed);
// An 8-bit case's scales as reference_host and typical_rms take them: the tensor scales, or where
// `block` is set (a case of ScaleMode::block), its block scales (the tensor scales then unused). A
// TensorScales or a BlockScales converts to it; CaseBuffers::host_scales() gives a case's.
struct CaseScales {
  TensorScales tensor;
  BlockScales const* block = nullptr;  // not owned
  CaseScales() = default;
  CaseScales(TensorScales t) : tensor(t) {}          // NOLINT: implicit
  CaseScales(BlockScales const& b) : block(&b) {}    // NOLINT: implicit
};
// The RMS a result of p has for random_values() inputs (each of variance about 1/3) when nothing
// cancels: sqrt(alpha'^2 K/9 + beta^2/3) for gemm, alpha' = alpha * scales.a * scales.b (block
// scales: alpha times the RMS of A's scales times the RMS of B's, their padding aside), and
// sqrt((alpha^2 + beta^2)/3) for add. compare() takes it as a floor for the reference's scale, so
// that one dot product that happens to cancel (a 1x1 output, say) is not held to a relative error
// its rounding cannot meet. Throws Error for a block-scaled 8-bit case without its block scales.
double typical_rms(Problem const&, CaseScales const& scales = {});
// Every byte 0xFF (NaN in f32, f16, bf16, e4m3 and e5m2), padding included.
void poison(DeviceMatrix&);
// Logical elements, column-major by (i, j), as double.
std::vector<double> to_host(DeviceMatrix const&);
// Write logical column-major values (converted to the dtype, round to nearest even, as round_to)
// into the stored elements; padding untouched.
void from_host(DeviceMatrix&, std::vector<double> const&);

// Bit-exact host conversions.
double f16_to_double(std::uint16_t bits);
double bf16_to_double(std::uint16_t bits);
std::uint16_t double_to_f16(double);   // round to nearest even, overflow to inf
std::uint16_t double_to_bf16(double);  // round to nearest even (via float)
// The 8-bit formats: e4m3 (E4M3FN: no infinities, 0x7F/0xFF the NaN, +-448 the largest) and e5m2
// (+-57344 the largest, 0x7C/0xFC infinity). Round to nearest even; what rounds past the largest
// finite value gives the largest (saturate) or, otherwise, NaN (e4m3) or infinity (e5m2), as CUDA's
// __nv_cvt_double_to_fp8 with __NV_SATFINITE or __NV_NOSAT.
double e4m3_to_double(std::uint8_t bits);
double e5m2_to_double(std::uint8_t bits);
std::uint8_t double_to_e4m3(double, bool saturate);
std::uint8_t double_to_e5m2(double, bool saturate);
// Round a double to the nearest value of the dtype and back (the 8-bit formats not saturating: past
// the largest finite value, e4m3's NaN and e5m2's infinity).
double round_to(DType, double);

// ---------------------------------------------------------------------------------------------
// References

// Operands of a case as device matrices, in the problem's orders and leading dimensions (B in
// b_type(p)), and an 8-bit gemm's scales.
struct CaseBuffers {
  DeviceMatrix a, b, c, d;  // c: gemm only (and beta != 0 for gemm reads it)
  TensorScales scales;      // 8-bit gemm with tensor scales: random_scales(seed); else 1 and 1
  DeviceMatrix scale_buf;   // the same: scales.a and scales.b on the device, fp32, 16 bytes apart (else empty)
  BlockScales block;        // 8-bit gemm with block scales: random_block_scales(p, seed); else empty
  // The same: block.a and block.b on the device, fp32, as they are on the host (block_b's padding
  // NaN), each its own allocation (256-byte aligned, as GemmScales and cuBLASLt need); else empty.
  DeviceMatrix block_a, block_b;
  // d is written; for add, c is unused; scale_a, scale_b into scale_buf, or block_a and block_b.
  Operands operands();
  // The scales as reference_host and typical_rms take them (the block scales where there are).
  CaseScales host_scales() const { return block.empty() ? CaseScales(scales) : CaseScales(block); }
};
// `seed`: the case's (case_seed), from which an 8-bit gemm's scales are drawn (random_scales, or
// random_block_scales for Problem::scale == block).
CaseBuffers make_buffers(Problem const&, int misalign, std::uint64_t seed = 0);

// ---------------------------------------------------------------------------------------------
// Device memory: a case is checked against the free memory before anything of it is allocated, so
// that one too large for the device is reported as such (not_supported) instead of failing in
// cudaMalloc halfway through its buffers.

// Bytes DeviceMatrix(dtype, rows, cols, order, ld, misalign) allocates (ld 0: the minimum);
// saturates at UINT64_MAX instead of wrapping around for absurd sizes.
std::uint64_t matrix_bytes(DType, std::int64_t rows, std::int64_t cols, Order, std::int64_t ld, int misalign);
// Bytes make_buffers(p, misalign) allocates: A, B, C (gemm only), D and an 8-bit gemm's scales
// (two fp32 values, or the two block-scale arrays). Saturates as above.
std::uint64_t device_bytes(Problem const&, int misalign);
// Kept free beyond what a case allocates: cuBLAS's workspace (allocated on its first call, up to
// 32 MiB per handle on Hopper) and cuBLASLt's (32 MiB, cublaslt_gemm's), the runtime's own
// allocations, and cudaMalloc rounding each buffer up to its 2 MiB pages.
inline constexpr std::uint64_t kMemoryReserve = std::uint64_t(256) << 20;
// "" when `need` bytes fit in `free` less kMemoryReserve; else one line such as "needs 96.0 GiB,
// the device has 79.1 GiB free" (with "(256.0 MiB of it kept in reserve)" after it when `need`
// alone would fit). Sizes below 1 GiB are given in MiB.
std::string why_no_memory(std::uint64_t need, std::uint64_t free);
// cudaMemGetInfo's free bytes on the current device. Throws Error when the call fails.
std::uint64_t free_device_bytes();

// The CUDA data type of a dtype, as cuBLAS and cuBLASLt name it.
cudaDataType_t cuda_data_type(DType);
// Whether the case's sizes and leading dimensions (0: the smallest legal) fit the 32-bit ints that
// cuBLAS and cuBLASLt take.
bool fits_cublas_ints(Problem const&);
// Why cuBLAS cannot compute this case (e.g. f16/bf16 add), empty if it can. 8-bit gemm is
// reference_cublas's exact route (see there), which takes every layout and bf16, f16 or f32 output.
std::string why_no_cublas(Problem const&);
// Device bytes reference_cublas(p, ...) allocates for its own use while it runs: an 8-bit gemm's
// 16-bit copies of A and B (block scales too); 0 for other cases.
std::uint64_t reference_cublas_bytes(Problem const&);

// The seed of one case's inputs: a hash of the run's seed and the case itself (op, dtypes, sizes,
// orders, leading dimensions, misalignment, alpha, beta), not of its position in the sweep, so
// that rerunning one case (repro_command) gives it the same inputs, and every kernel of a sweep
// gets the same inputs for the same problem. An 8-bit case's accumulation mode (fast_accum) is not
// hashed: both modes of a problem get the same inputs, so that their errors compare.
std::uint64_t case_seed(std::uint64_t seed, Problem const& p, int misalign);

// A loom-validate command line that reruns exactly this case of this kernel, inputs included.
std::string repro_command(std::string const& kernel, Problem const& p, int misalign, std::uint64_t seed);
// Its sibling for loom-bench: a command line that times this case again, kernel, input types,
// output type where it is not the default one (default_output: the input dtype, bf16 for 8-bit
// inputs), layout, M, N, K (not for add, which has none), alpha and beta; `providers` ("" for the
// default: the kernel with its baselines) becomes --providers. loom-bench times minimal leading
// dimensions and aligned pointers only, so those are not options.
std::string bench_repro_command(std::string const& kernel, std::string const& providers, Problem const& p);

// The kernels that --kernels PATTERNS and --ignore-kernels IGNORE name, in registry order. Each
// pattern is a name or a shell glob (`sm*`, `fma?simple`); a name that is not registered, or a glob
// that matches nothing, throws std::invalid_argument naming it. Empty PATTERNS: every kernel.
std::vector<KernelInfo const*> select_kernels(std::vector<std::string> const& patterns,
                                              std::vector<std::string> const& ignore);
// Whether a --kernels pattern is a glob: it has * or ?, or a [...] class (then loom-validate does
// not insist that every kernel it matches takes every named dtype or op).
bool is_glob(std::string const& pattern);

// The registered kernels as loom-validate --list and loom-bench --list print them: a header, then one
// line each of name, op, dtypes, minimum compute capability and description.
std::string kernel_list();
// Computes the problem with cuBLAS into ops.d: geam for f32 add, GemmEx for gemm (f32 with
// CUBLAS_COMPUTE_32F_PEDANTIC, f16/bf16 with CUBLAS_COMPUTE_32F). 8-bit gemm: A and B widened on
// the device to bf16 (f16 for f16 output, which cuBLAS's bf16 gemm cannot write), exactly (every
// e4m3 and e5m2 value is one of both), then GemmEx with CUBLAS_COMPUTE_32F and alpha * scale_a *
// scale_b (ops' scales, read back; null is 1): exact products accumulated in fp32, with none of the
// 8-bit tensor core's shortened accumulation. Block scales (Problem::scale == block): each element
// widened times its scale (ops' arrays, read on the device), A[i,k] sa[i,k/128] and B[k,j]
// sb[k/128,j/128], and alpha alone; exact for random_block_scales' scales (a product of at most 7
// significant bits, within both 16-bit types' ranges for |x| <= 6144: every e4m3 value, and
// random_values' e5m2 ones), else each rounded once to the 16-bit type. Synchronizes `s` for an
// 8-bit case (the scales' read and the copies' release). Throws Error naming the case when cuBLAS
// lacks it (see why_no_cublas) or a call fails.
void reference_cublas(Problem const&, Operands const&, cublasHandle_t, cudaStream_t);
// fp64 reference over logical column-major element vectors: A is rows_a x cols_a logically as
// M x N (add) or M x K (gemm), B is M x N (add) or K x N (gemm), C is M x N (gemm; ignored for
// add, may be empty). An 8-bit gemm's A and B are the stored (unscaled) values, and `scales` its
// tensor scales: D = alpha * scales.a * scales.b * (A B) + beta C; or for a case of block scales
// (p.scale), its block scales (scales.block, required): each 128 of K's partial sum times A's
// row's scale and B's block's, D = alpha * sum_j sa[i,j] sb[j,n/128] (A_j B_j) + beta C. Returns
// D, M x N. Throws Error for a block-scaled case without block scales of its M, N and K.
std::vector<double> reference_host(Problem const&, std::vector<double> const& A,
                                   std::vector<double> const& B, std::vector<double> const& C,
                                   CaseScales const& scales = {});

// cuBLASLt's FP8 gemm (harness/cublaslt.cpp), loom-bench's baseline of 8-bit cases: cublasLtMatmul
// with A and B in their 8-bit types, CUBLAS_COMPUTE_32F, fp32 alpha/beta, the tensor scales as
// CUBLASLT_MATMUL_DESC_A/B_SCALE_POINTER, C and D in out_dtype, fast accumulation as the case's
// (Problem::fast_accum; off, cuBLASLt's default, promotes its partial sums to fp32 as it goes),
// and the heuristic's first algorithm with up to 32 MiB of workspace. Block scales (Problem::scale):
// the same pointers, to the arrays of GemmScales, with CUBLASLT_MATMUL_DESC_A/B_SCALE_MODE
// VEC128_32F for the operand that is Loom's A and BLK128x128_32F for Loom's B (whichever of
// cuBLASLt's A and B each is), fast accumulation off.
//
// Why cuBLASLt cannot run this case ("" if it can): FP8 is "TN" only, A transposed and B not in its
// column-major terms, which are Loom's k-major A and B (row-major A, column-major B: layouts rcc and
// rcr, the latter as D^T = B^T A^T with the operands, their types and scales swapped); e5m2 x e5m2
// is not among its FP8 types; K and the leading dimensions of A, B and D in bytes a multiple of 16,
// 32-bit sizes. Not for other inputs.
std::string why_no_cublaslt(Problem const&);
// The call that runs the case into ops.d (C from ops.c when beta != 0; it may be ops.d) in the
// stream it is given: cublasLtMatmul and nothing else on the host. Per device, one cuBLASLt handle
// and one 32 MiB workspace, made on the first use; per problem, pointer alignment and scale
// pointers, the descriptors and the heuristic's algorithm, made here once and kept. Throws Error
// when the case is one why_no_cublaslt refuses, a pointer is not 16-byte aligned or the heuristic
// offers no algorithm; the call throws Error when cublasLtMatmul fails. One stream at a time per
// device (the workspace is shared).
std::function<void(cudaStream_t)> cublaslt_gemm_call(Problem const&, Operands const&);
// Whether cuBLASLt's heuristic offers an algorithm for the case ("" if so, else why not): the
// descriptors cublaslt_gemm_call would make, with pointers taken as 256-byte aligned, asked of the
// current device (a GPU needed). For what why_no_cublaslt cannot know ahead: which block-scaled
// cases this cuBLASLt takes. Throws Error where why_no_cublaslt refuses the case.
std::string why_cublaslt_heuristic_refuses(Problem const&);
// cublaslt_gemm_call(p, ops)(stream).
void cublaslt_gemm(Problem const&, Operands const&, cudaStream_t stream);

// ---------------------------------------------------------------------------------------------
// Compare

struct ErrorStats {
  double rel_fro = 0;   // ||out - ref||_F / ||ref||_F (absolute when ||ref|| == 0)
  double max_abs = 0;   // largest |out - ref| over finite pairs
  double max_rel = 0;   // largest |out - ref| / |ref| over finite pairs with ref != 0
  std::int64_t nonfinite = 0;  // NaN/Inf outputs where the reference is finite
  std::int64_t unwritten = 0;  // NaN outputs (the poison value)
  std::int64_t over_bound = 0;  // finite elements outside the element-wise bound (see compare)
  double tol = 0;               // tolerance(dtype, out_dtype, op, k) that rel_fro was held to
  bool pass = false;
  std::string why;  // empty when pass
};

// Tolerance on rel_fro, by input dtype `in` (A's), output dtype, op and K:
//   add:  f32 1e-6, f16 1e-3, bf16 8e-3: fp32 arithmetic, then one rounding to the output type
//         (unit roundoff 2^-24, 2^-11, 2^-8)
//   gemm: f32 output 1e-6 * sqrt(max(k, 1)): fp32 accumulation error grows about like
//         sqrt(k) * eps; f16 output 1e-2, bf16 2e-2: fp32 accumulation of exact products, one
//         rounding of the output.
//         8-bit inputs: max(that, 2^-11 * sqrt(max(k, 1))). The products are exact in fp32, but
//         Hopper's 8-bit wgmma adds them into its accumulator keeping fewer bits than fp32 (about
//         13 or 14), so the error grows with K (validate/README.md; to be checked against GPU runs).
double tolerance(DType in, DType out, OpKind, std::int64_t k);
// Unit roundoff of a dtype: 2^-24 (f32), 2^-11 (f16), 2^-8 (bf16), 2^-4 (e4m3), 2^-3 (e5m2).
double unit_roundoff(DType);
// A case passes when every element is finite where the reference is (a NaN output, the poison
// value, counts as unwritten), rel_fro <= tolerance(), and every element is within
//   add:  |out - ref| <= 1.001 * u(out) * |ref| + 16 * 2^-24 * (|ref| + rms(ref))
//   gemm: |out - ref| <= 4 * tolerance * (|ref| + rms(ref))
// so that a few wrong elements in a large matrix cannot hide in the Frobenius norm. `typical` (see
// typical_rms) floors rms(ref) here and ||ref||_F in rel_fro at typical * sqrt(elements). When
// the floored ||ref|| is 0, rel_fro is the absolute ||out - ref|| and the element bound is the tolerance. A reference beyond the output type's range
// accepts the infinity of the same sign. The tolerance is tolerance(p.dtype, out_dtype, p.op, p.k).
ErrorStats compare(std::vector<double> const& out, std::vector<double> const& ref, DType out_dtype,
                   Problem const& p, double typical = 0);

// ---------------------------------------------------------------------------------------------
// Profiling

// An NVTX range in the "loom" domain, pushed on construction and popped on destruction.
class NvtxRange {
 public:
  explicit NvtxRange(std::string const& name);
  ~NvtxRange();
  NvtxRange(NvtxRange const&) = delete;
  NvtxRange& operator=(NvtxRange const&) = delete;
};

// CUDA event pair on a stream; elapsed_ms() synchronizes on the stop event.
class Timer {
 public:
  explicit Timer(cudaStream_t stream = nullptr);
  ~Timer();
  Timer(Timer const&) = delete;
  Timer& operator=(Timer const&) = delete;
  void start();
  void stop();
  float elapsed_ms();

 private:
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace loom::harness
