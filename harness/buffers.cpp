// Device buffers (DeviceMatrix), random fill, poison, host copies, and the device memory a
// case needs.
#include "harness/harness.hpp"
#include "harness/splitmix64.hpp"
#include "harness/parallel.hpp"

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
// Buffers

namespace {

std::int64_t contiguous_extent(Order o, std::int64_t rows, std::int64_t cols) {
  return o == Order::col ? rows : cols;
}
std::int64_t outer_extent(Order o, std::int64_t rows, std::int64_t cols) {
  return o == Order::col ? cols : rows;
}

// log2 of the grid spacing of random values: every k * 2^-bits with |k| <= 2^bits is exact. The
// 8-bit formats take the f32 grid and round it to their own values (random_values).
int random_bits(DType t) {
  switch (t) {
    case DType::f32: return 23;
    case DType::f16: return 11;
    case DType::bf16: return 8;
    case DType::e4m3:
    case DType::e5m2: return 23;
  }
  return 8;
}

// One element's bits from a double (round to nearest even; the 8-bit formats not saturating, as
// round_to) and back.
template <class Bits>
Bits encode_bits(DType t, double x) {
  if constexpr (sizeof(Bits) == 4) {
    return std::bit_cast<std::uint32_t>(float(x));
  } else if constexpr (sizeof(Bits) == 2) {
    return t == DType::f16 ? double_to_f16(x) : double_to_bf16(x);
  } else {
    return t == DType::e4m3 ? double_to_e4m3(x, false) : double_to_e5m2(x, false);
  }
}
template <class Bits>
double decode_bits(DType t, Bits b) {
  if constexpr (sizeof(Bits) == 4) {
    return double(std::bit_cast<float>(b));
  } else if constexpr (sizeof(Bits) == 2) {
    return t == DType::f16 ? f16_to_double(b) : bf16_to_double(b);
  } else {
    return t == DType::e4m3 ? e4m3_to_double(b) : e5m2_to_double(b);
  }
}

// f(i, j) for every element of an R x C matrix, in parallel over blocks of kBlock x kBlock: for a
// copy between a column-major and a row-major array, each block's rows and columns stay in cache.
template <class F>
void for_blocks(std::int64_t R, std::int64_t C, F&& f) {
  constexpr std::int64_t kBlock = 64;
  std::int64_t const br = (R + kBlock - 1) / kBlock, bc = (C + kBlock - 1) / kBlock;
  parallel_for(br * bc, std::max<std::int64_t>(1, kGrain / (kBlock * kBlock)), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t t = b; t < e; ++t) {
      std::int64_t const i0 = (t / bc) * kBlock, j0 = (t % bc) * kBlock;
      std::int64_t const i1 = std::min(R, i0 + kBlock), j1 = std::min(C, j0 + kBlock);
      for (std::int64_t i = i0; i < i1; ++i)
        for (std::int64_t j = j0; j < j1; ++j) f(i, j);
    }
  });
}

// f(Bits()) with Bits the unsigned integer of t's element width: the host images' element type.
template <class F>
void with_bits(DType t, F&& f) {
  switch (size_of(t)) {
    case 4: return f(std::uint32_t());
    case 2: return f(std::uint16_t());
    default: return f(std::uint8_t());
  }
}

// Packed host image of the stored elements in storage order (contiguous extent fastest), as raw
// element bits.
template <class Bits>
void store_bits(DeviceMatrix const& m, std::vector<double> const& v, std::vector<Bits>& img) {
  std::int64_t const R = m.rows(), C = m.cols();
  img.resize(std::size_t(R * C));
  DType const t = m.dtype();
  auto encode = [t](double x) { return encode_bits<Bits>(t, x); };
  if (m.order() == Order::col) {
    parallel_for(R * C, kGrain, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) img[std::size_t(i)] = encode(v[std::size_t(i)]);
    });
  } else {
    // In blocks of kBlock x kBlock: v is column-major and img row-major, and element by element one
    // of the two is read or written a row or column apart (a page apart on large matrices).
    for_blocks(R, C, [&](std::int64_t i, std::int64_t j) { img[std::size_t(i * C + j)] = encode(v[std::size_t(i + j * R)]); });
  }
}

template <class Bits>
void load_bits(DeviceMatrix const& m, std::vector<Bits> const& img, std::vector<double>& v) {
  std::int64_t const R = m.rows(), C = m.cols();
  v.resize(std::size_t(R * C));
  DType const t = m.dtype();
  auto decode = [t](Bits b) { return decode_bits<Bits>(t, b); };
  if (m.order() == Order::col) {
    parallel_for(R * C, kGrain, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) v[std::size_t(i)] = decode(img[std::size_t(i)]);
    });
  } else {
    for_blocks(R, C, [&](std::int64_t i, std::int64_t j) { v[std::size_t(i + j * R)] = decode(img[std::size_t(i * C + j)]); });
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

namespace {

// Element i's value of random_values(t, ., seed): k * 2^-bits for k uniform in [-2^bits, 2^bits],
// from a splitmix64 hash of (seed, i) alone, so that any element can be drawn on its own.
struct RandomDraw {
  DType t;
  int bits;
  std::uint64_t range;  // 2^(bits+1) + 1 values of k
  double scale;
  std::uint64_t key;
  bool narrow;
  RandomDraw(DType t_, std::uint64_t seed)
      : t(t_), bits(random_bits(t_)), range((std::uint64_t(1) << (bits + 1)) + 1), scale(std::ldexp(1.0, -bits)),
        key(splitmix64(seed)), narrow(is_8bit(t_)) {}
  double operator()(std::int64_t i) const {
    std::uint64_t const r = splitmix64(key ^ (std::uint64_t(i) * 0xD1B54A32D192ED03ull));
    auto const k = std::int64_t((unsigned __int128)r * range >> 64) - (std::int64_t(1) << bits);
    double x = k == 0 ? 0.5 : double(k) * scale;
    // 8-bit formats: the uniform value rounded to the format (nearest even; |x| <= 1 never
    // overflows), one that rounds to 0 giving 0.5 as k = 0 does. Not a grid of the format's own
    // coarse enough to hold every point (k/16 for e4m3): on it every partial sum of a dot product
    // is exact in the 8-bit tensor core's shortened accumulator, so that the error the 8-bit
    // tolerance is about never showed (rel_fro 0 at K up to 65536 on an H100); rounded, the values
    // take every significand and the exponents down to the subnormals, as real data does.
    if (narrow) {
      x = round_to(t, x);
      if (x == 0) x = 0.5;
    }
    return x;
  }
};

// The packed storage-order image of random_values(t, rows * cols, seed) (element (r, c) is value
// r + c * rows), each element drawn straight into its place: no host vector of doubles, and no
// strided pass over one for a row-major matrix (for a 28672 x 4096 operand, 0.9 GB of doubles).
template <class Bits>
void random_image_bits(DType t, Order o, std::int64_t R, std::int64_t C, std::uint64_t seed, Bits* img) {
  RandomDraw const draw(t, seed);
  if (o == Order::col) {
    parallel_for(R * C, kGrain, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) img[i] = encode_bits<Bits>(t, draw(i));
    });
  } else {
    parallel_for(R, std::max<std::int64_t>(1, kGrain / std::max<std::int64_t>(C, 1)), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t r = b; r < e; ++r)
        for (std::int64_t c = 0; c < C; ++c) img[r * C + c] = encode_bits<Bits>(t, draw(r + c * R));
    });
  }
}

}  // namespace

std::vector<double> random_values(DType t, std::int64_t count, std::uint64_t seed) {
  std::vector<double> v(std::size_t(std::max<std::int64_t>(count, 0)));
  RandomDraw const draw(t, seed);
  parallel_for(count, kGrain, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) v[std::size_t(i)] = draw(i);
  });
  return v;
}

std::vector<unsigned char> random_image(DType t, Order o, std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::int64_t const n = std::max<std::int64_t>(rows, 0) * std::max<std::int64_t>(cols, 0);
  std::vector<unsigned char> img(std::size_t(n) * size_of(t));
  with_bits(t, [&](auto bits) {
    random_image_bits(t, o, rows, cols, seed, reinterpret_cast<decltype(bits)*>(img.data()));
  });
  return img;
}

void fill_random(DeviceMatrix& m, std::uint64_t seed) {
  if (m.empty()) return;
  std::vector<unsigned char> const img = random_image(m.dtype(), m.order(), m.rows(), m.cols(), seed);
  upload_image(m, img.data());
}

void poison(DeviceMatrix& m) {
  if (m.base()) LOOM_CUDA(cudaMemset(m.base(), 0xFF, m.bytes()));
}

void from_host(DeviceMatrix& m, std::vector<double> const& v) {
  if (m.empty() && v.empty()) return;
  if (m.empty() || std::int64_t(v.size()) != m.rows() * m.cols())
    throw Error("from_host: " + std::to_string(v.size()) + " values for a " + std::to_string(m.rows()) +
                " x " + std::to_string(m.cols()) + " matrix");
  auto store = [&](auto bits) {
    std::vector<decltype(bits)> img;
    store_bits(m, v, img);
    upload_image(m, img.data());
  };
  with_bits(m.dtype(), store);
}

std::vector<double> to_host(DeviceMatrix const& m) {
  std::vector<double> v;
  if (!m.base()) return v;
  auto load = [&](auto bits) {
    std::vector<decltype(bits)> img(std::size_t(m.rows() * m.cols()));
    download_image(m, img.data());
    load_bits(m, img, v);
  };
  with_bits(m.dtype(), load);
  return v;
}

TensorScales random_scales(std::uint64_t seed) {
  // Each 0.75 or 1.25 times 2^e, e in [-2, 2]: from 0.1875 to 5, exact in fp32 (their product too:
  // 5 significant bits at most). Never 1, and the two never equal, so that a kernel that reads no
  // scale, or A's twice, fails.
  std::uint64_t const r = splitmix64(seed ^ 0x5CA1E5CA1E5CA1E5ull);
  auto pick = [](std::uint64_t bits) { return std::ldexp((bits & 1) ? 1.25 : 0.75, int((bits >> 1) % 5) - 2); };
  TensorScales s;
  s.a = pick(r);
  s.b = pick(r >> 32);
  if (s.b == s.a) s.b = pick((r >> 32) ^ 1);  // the other mantissa, same power of two
  return s;
}

BlockScales random_block_scales(Problem const& p, std::uint64_t seed) {
  // Each 0.75 or 1.25 times 2^e, e in [-3, 3] (3/32 to 10), drawn per element, so that a kernel
  // that takes one scale for another (a row's for its neighbour's, A's for B's, a transposed index,
  // another stride) fails; never 1, so that one that reads none fails too.
  //
  // Why such a scale times an 8-bit value is exact in bf16 and f16 (reference_cublas widens the
  // products to 16 bits and sums them in fp32): the scale has 2 or 3 significant bits (0.11b,
  // 1.01b), an e4m3 value at most 4 and an e5m2 value at most 3, so a product has at most 7, within
  // bf16's 8 and f16's 11. Range: the largest product is 448 * 10 = 4480 for e4m3, below f16's
  // 65504 (bf16 has fp32's range); e5m2 values above 6553.6 would overflow f16 at a scale of 10,
  // but random_values' lie in [-1, 1]. The smallest: e4m3's values are multiples of 2^-9 (its
  // smallest subnormal) and e5m2's of 2^-16, the scales multiples of 2^-5 (3 * 2^-5 the smallest),
  // so a product is a multiple of 2^-21 at the least, on f16's subnormal grid of 2^-24 and far above
  // bf16's (2^-133). An e in [-6, 3] would still hold for e5m2 (2^-24); [-3, 3] keeps a margin, and
  // fp32 holds every product exactly too (the kernel's own arithmetic). HarnessConvert tests it.
  BlockScales s;
  s.m = p.m, s.n = p.n, s.k = p.k;
  std::int64_t const kb = s.k_blocks(), ld = s.ld(), nb = (p.n + 127) / 128;
  auto draw = [key = splitmix64(seed ^ 0xB10C5CA1E5B10C5Cull)](std::uint64_t which, std::int64_t i) {
    std::uint64_t const r = splitmix64(key ^ (which << 62) ^ (std::uint64_t(i) * 0xD1B54A32D192ED03ull));
    return float(std::ldexp((r & 1) ? 1.25 : 0.75, int((r >> 1) % 7) - 3));
  };
  s.a.resize(std::size_t(p.m * kb));
  for (std::int64_t i = 0; i < p.m * kb; ++i) s.a[std::size_t(i)] = draw(1, i);
  s.b.assign(std::size_t(ld * nb), std::numeric_limits<float>::quiet_NaN());
  for (std::int64_t l = 0; l < nb; ++l)
    for (std::int64_t j = 0; j < kb; ++j) s.b[std::size_t(j + l * ld)] = draw(2, j + l * ld);
  return s;
}

Operands CaseBuffers::operands() {
  Operands o;
  o.a = a.data();
  o.b = b.data();
  o.c = c.base() ? c.data() : nullptr;
  o.d = d.data();
  if (!scale_buf.empty()) {
    o.scale_a = static_cast<float const*>(scale_buf.data());
    o.scale_b = o.scale_a + scale_buf.offset(0, 1);
  }
  if (!block_a.empty()) {
    o.scale_a = static_cast<float const*>(block_a.data());
    o.scale_b = static_cast<float const*>(block_b.data());
  }
  return o;
}

namespace {
// An 8-bit gemm's two scales, fp32, A's then B's, as one device matrix of 1 x 2 with a leading
// dimension of 4: each 16-byte aligned, as cuBLASLt needs its scale pointers (cublasLtMatmul
// answers CUBLAS_STATUS_NOT_SUPPORTED for 4 bytes apart, cuBLAS 13.1 on an H100).
bool has_scales(Problem const& p) { return p.op == OpKind::gemm && is_8bit(p.dtype); }
bool has_block_scales(Problem const& p) { return has_scales(p) && p.scale == ScaleMode::block; }
DeviceMatrix scale_matrix() { return DeviceMatrix(DType::f32, 1, 2, Order::col, 4); }
std::uint64_t scale_matrix_bytes() { return matrix_bytes(DType::f32, 1, 2, Order::col, 4, 0); }
// The block scales' arrays as fp32 matrices, column-major with no padding of their own (their
// layouts' padding, B's k blocks past kb, is rows of the matrix): A's M x kb, B's block_scale_ld(K)
// x ceil(N/128). Each its own cudaMalloc, so 256-byte aligned.
struct BlockShape {
  std::int64_t a_rows, a_cols, b_rows, b_cols;
};
BlockShape block_shape(Problem const& p) {
  return {p.m, (p.k + 127) / 128, block_scale_ld(p.k), (p.n + 127) / 128};
}
}  // namespace

CaseBuffers make_buffers(Problem const& p0, int misalign, std::uint64_t seed) {
  Problem const p = with_default_lds(p0);
  CaseBuffers b;
  b.a = DeviceMatrix(p.dtype, rows_a(p), cols_a(p), p.a, p.lda, misalign);
  b.b = DeviceMatrix(b_type(p), rows_b(p), cols_b(p), p.b, p.ldb, misalign);
  if (p.op == OpKind::gemm) b.c = DeviceMatrix(p.out_dtype, p.m, p.n, p.c, p.ldc, misalign);
  b.d = DeviceMatrix(p.out_dtype, p.m, p.n, p.c, p.ldc, misalign);
  if (has_block_scales(p)) {
    b.block = random_block_scales(p, seed);
    BlockShape const sh = block_shape(p);
    b.block_a = DeviceMatrix(DType::f32, sh.a_rows, sh.a_cols, Order::col);
    b.block_b = DeviceMatrix(DType::f32, sh.b_rows, sh.b_cols, Order::col);
    from_host(b.block_a, std::vector<double>(b.block.a.begin(), b.block.a.end()));
    from_host(b.block_b, std::vector<double>(b.block.b.begin(), b.block.b.end()));  // NaN padding as is
  } else if (has_scales(p)) {
    b.scales = random_scales(seed);
    b.scale_buf = scale_matrix();
    from_host(b.scale_buf, {b.scales.a, b.scales.b});
  }
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
  n = add_sat(n, matrix_bytes(b_type(p), rows_b(p), cols_b(p), p.b, p.ldb, misalign));
  std::uint64_t const cd = matrix_bytes(p.out_dtype, p.m, p.n, p.c, p.ldc, misalign);
  if (p.op == OpKind::gemm) n = add_sat(n, cd);
  if (has_block_scales(p)) {
    BlockShape const sh = block_shape(p);
    n = add_sat(n, matrix_bytes(DType::f32, sh.a_rows, sh.a_cols, Order::col, 0, 0));
    n = add_sat(n, matrix_bytes(DType::f32, sh.b_rows, sh.b_cols, Order::col, 0, 0));
  } else if (has_scales(p)) {
    n = add_sat(n, scale_matrix_bytes());
  }
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

}  // namespace loom::harness
