// The epilogue both tensor-core GEMMs share: D = alpha*acc + beta*C from the accumulator fragment
// of a TiledMMA straight to global memory, two neighbouring columns per store (one element per store
// where D is column-major as the kernel sees it: sm90's swapped problems).
//
// The chain is the core's: mD (M,N) -> local_tile<kTileC>(mD, m, n) -> partition_C<kMma>(.., tid),
// and the same for C and for the identity tensor that gives every accumulator's coordinate (the
// edge predicates). The caller's TiledMMA must give each thread pairs of neighbouring columns in
// consecutive accumulators (values 2j, 2j+1), for the paired stores with N contiguous in D: both
// kernels static_assert that on their configuration.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "kernels/numeric.cuh"
#include "layout/tensor.hpp"

namespace loom {

template <class T> struct Pair;
template <> struct Pair<float> { using type = float2; };
template <> struct Pair<__half> { using type = __half2; };
template <> struct Pair<__nv_bfloat16> { using type = __nv_bfloat162; };

template <class T>
__device__ __forceinline__ typename Pair<T>::type pair_from(float x, float y) {
  if constexpr (std::is_same_v<T, float>) return make_float2(x, y);
  else if constexpr (std::is_same_v<T, __half>) return __floats2half2_rn(x, y);
  else return __floats2bfloat162_rn(x, y);
}
template <class T>
__device__ __forceinline__ float2 pair_to(typename Pair<T>::type v) {
  if constexpr (std::is_same_v<T, float>) return v;
  else if constexpr (std::is_same_v<T, __half>) return __half22float2(v);
  else return __bfloat1622float2(v);
}

// PTX ISA "Data Movement and Conversion Instructions: st", under a guard predicate: the store
// happens where `pred` holds. The address and the value are computed whatever `pred` is, so no
// branch surrounds the store: where a C++ `if` guarded it, ptxas kept a branch and its address
// arithmetic per element (kernels/sm90's swapped store: about 15 instructions an element).
template <class T>
__device__ __forceinline__ void store_if(T* ptr, T v, bool pred) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "a 16- or 32-bit element");
  if constexpr (sizeof(T) == 2) {
    unsigned short bits;
    __builtin_memcpy(&bits, &v, 2);
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n @p st.global.b16 [%0], %1;\n}\n" ::"l"(ptr), "h"(bits),
                 "r"(int(pred))
                 : "memory");
  } else {
    unsigned bits;
    __builtin_memcpy(&bits, &v, 4);
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %2, 0;\n @p st.global.b32 [%0], %1;\n}\n" ::"l"(ptr), "r"(bits),
                 "r"(int(pred))
                 : "memory");
  }
}

// What the epilogue reads of the problem: D is row-major (m, n), n contiguous and m at stride ldd,
// or with d_col (sm90's swapped problems) column-major, m contiguous and n at stride ldd.
struct EpilogueArgs {
  void const* c;
  void* d;
  Coord<2> cd_shape;  // (M, N)
  i64 ldd;            // the stride of m in C and D (of n with d_col)
  float alpha, beta;
  bool pair_d;        // C and D take one store per two neighbouring columns (aligned; never with d_col)
  bool d_col = false;
};

// D = alpha*acc + beta*C over thread tid's fragment of tile (m, n); acc(i) is accumulator i in the
// order of partition_C. beta == 0 never reads C (it may hold NaNs), as in BLAS. A tile wholly
// inside D with paired stores takes no predicates. kDCol: D is column-major (args.d_col), one
// element per store, each predicated.
//
// Index: the tile indices' type. sm90's 8-bit kernels pass them unsigned, so that the tile's offsets
// widen them by zero-extension: as ints, their sign word, computed with the tile's coordinates
// before the main loop, stayed live through it and spilled in the 128x256 block-scaled kernel.
//
// kSplitBeta (kDCol only): beta == 0 takes a loop of its own, which reads no C (below); off where
// registers are tight (sm90's three and four consumer warpgroups at 152 and 104 a thread), whose
// kernels keep the one loop: with both, 256x136_2x1's spills grew from 72 to 628 bytes of loads,
// one more of them in its k loop.
template <TiledMMA kMma, Tile kTileC, class T, bool kDCol = false, bool kSplitBeta = true, class Acc, class Index>
__device__ __forceinline__ void store_d(EpilogueArgs const& args, Acc const& acc, Index m, Index n, int tid) {
  if constexpr (kDCol) {
    Coord<2> const extent = args.cd_shape, stride{{1, args.ldd}};
    auto tCgD = partition_C<kMma, Offsets::kTabulated>(
        local_tile<kTileC>(make_gmem_tensor<0>(static_cast<T*>(args.d), extent, stride), m, n), tid);
    auto tCgC = partition_C<kMma, Offsets::kTabulated>(
        local_tile<kTileC>(make_gmem_tensor<0>(static_cast<T const*>(args.c), extent, stride), m, n), tid);
    auto const cD = local_tile<kTileC>(make_identity_tensor(extent), m, n);  // (BM,BN) -> (m,n)
    auto tCcD = partition_C<kMma, Offsets::kTabulated>(cD, tid);
    constexpr int kValues = int(size(decltype(tCgD)::layout).v);
    float const alpha = args.alpha, beta = args.beta;
    // beta == 0 (a swapped plan's usual case): no read of C, and no branch. Branched on element by
    // element and on beta, a 64x120 tile's epilogue was about 1,000 instructions a warp, with no
    // other warp on the SM sub-partition to hide their latency (Nsight Compute's PC samples at 230
    // x 3584 x 4096, docs/tuning/sm90.md, twenty-seventh round). ee7f3ee's loop (a C++ `if` on
    // `inside || elem_less`) made 64x120_4x2 and 64x168_4x2 2-3% faster there, but ptxas kept a
    // branch and the address arithmetic per element (873 instructions for bf16's 60 elements);
    // this one (store_if, 32-bit compares of the layout's constants) is 472, with none. With
    // ConsumerMma's lane-0 broadcasts, 64x120_4x2 went from 18.1 to 17.1 us there on an H200
    // (twenty-eighth round). (One loop for both cases, C read by a predicated load, measured
    // slower: the twenty-seventh round.)
    if (kSplitBeta && beta == 0.f) {
      // Element i is inside D where its coordinate relative to the thread's first (a constant of
      // the layout) is below what is left of D from there: 32-bit compares of constants, two
      // distinct rows and BN/4 distinct columns a thread.
      auto const left = [&](int d) { return int(::min(::max(extent[d] - tCcD.base[d], -(i64(1) << 30)), i64(1) << 30)); };
      int const rows_left = left(0), cols_left = left(1);
#pragma unroll
      for (int i = 0; i < kValues; ++i) {
        Coord<2> const c = decltype(tCcD)::value(i);
        store_if(&tCgD(i), from_f32<T>(alpha * acc(i)), int(c[0]) < rows_left && int(c[1]) < cols_left);
      }
      return;
    }
#pragma unroll
    for (int i = 0; i < kValues; ++i)
      if (elem_less(tCcD(i), extent))
        tCgD(i) = from_f32<T>(beta != 0.f ? alpha * acc(i) + beta * to_f32(tCgC(i)) : alpha * acc(i));
    return;
  }
  Coord<2> const extent = args.cd_shape, stride{{args.ldd, 1}};
  auto tCgD = partition_C<kMma, Offsets::kTabulated>(
      local_tile<kTileC>(make_gmem_tensor<1>(static_cast<T*>(args.d), extent, stride), m, n), tid);
  auto tCgC = partition_C<kMma, Offsets::kTabulated>(
      local_tile<kTileC>(make_gmem_tensor<1>(static_cast<T const*>(args.c), extent, stride), m, n), tid);
  auto cD = local_tile<kTileC>(make_identity_tensor(extent), m, n);  // (BM,BN) -> (m,n)
  auto tCcD = partition_C<kMma, Offsets::kTabulated>(cD, tid);
  constexpr int kPairs = int(size(decltype(tCgD)::layout).v) / 2;
  float const alpha = args.alpha, beta = args.beta;
  using P = typename Pair<T>::type;
  constexpr i64 kBM = size(get(kTileC, 0)).v, kBN = size(get(kTileC, 1)).v;
  if (args.pair_d && cD.base[0] + kBM <= extent[0] && cD.base[1] + kBN <= extent[1]) {  // cD.base: the tile's origin
#pragma unroll
    for (int p = 0; p < kPairs; ++p) {
      float x = alpha * acc(2 * p), y = alpha * acc(2 * p + 1);
      if (beta != 0.f) {
        float2 const cv = pair_to<T>(*reinterpret_cast<P const*>(&tCgC(2 * p)));
        x += beta * cv.x, y += beta * cv.y;
      }
      *reinterpret_cast<P*>(&tCgD(2 * p)) = pair_from<T>(x, y);
    }
    return;
  }
#pragma unroll
  for (int p = 0; p < kPairs; ++p) {
    float x = alpha * acc(2 * p), y = alpha * acc(2 * p + 1);
    if (args.pair_d && elem_less(tCcD(2 * p + 1), extent)) {
      if (beta != 0.f) {
        float2 const cv = pair_to<T>(*reinterpret_cast<P const*>(&tCgC(2 * p)));
        x += beta * cv.x, y += beta * cv.y;
      }
      *reinterpret_cast<P*>(&tCgD(2 * p)) = pair_from<T>(x, y);
    } else {
      if (elem_less(tCcD(2 * p), extent)) tCgD(2 * p) = from_f32<T>(beta != 0.f ? x + beta * to_f32(tCgC(2 * p)) : x);
      if (elem_less(tCcD(2 * p + 1), extent))
        tCgD(2 * p + 1) = from_f32<T>(beta != 0.f ? y + beta * to_f32(tCgC(2 * p + 1)) : y);
    }
  }
}

}  // namespace loom
