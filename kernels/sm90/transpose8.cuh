// sm90's pass for 8-bit mn-major operands: wgmma reads 8-bit A and B from shared memory k-major
// only (it has no transpose bit for 8-bit types), and TMA copies bytes as they lie, so an mn-major
// A (column-major) or B (row-major) is first transposed by this kernel into the caller's workspace,
// and the GEMM reads the k-major copy. A transpose on the way into shared memory (TMA an mn-major
// box, then the consumers permute it in place) would spend the consumers' issue slots on byte
// shuffles in every k tile of every tile that reads the box, where this pass moves each byte once;
// kernels/sm90/sm90.cu times it with the call (loom-bench's rows include it).
//
// The pass: S is (R, C), C contiguous (row stride ld_s, any; a 16-byte aligned base, loom::gemm's
// rule for 8-bit operands); T = S^T is (C, R), R contiguous, row stride ld_t (a multiple of 16 at
// least R, in the workspace). A CTA of 256 threads moves one 64 x 64 tile of S:
//
//   mS = (R,C):(ld_s,1) -> local_tile<(64,64)>(mS, tr, tc) = gS (64,64)       the CTA's tile of S
//   mT = (C,R):(ld_t,1) -> local_tile<(64,64)>(mT, tc, tr) = gT (64,64)       the same bytes' place in T
//   thread t: row t/4 of gS, bytes [16 (t%4), 16 (t%4) + 16): one 16-byte load -> smem row t/4
//   thread t: row t/4 of gT, bytes [16 (t%4), 16 (t%4) + 16): smem column t/4, rows 16 (t%4) + i,
//             gathered byte by byte into one 16-byte store
//
// Edges: a load whose 16 bytes pass C moves byte by byte (S's last row may end at C, not at ld_s),
// and so does every load where ld_s is not a multiple of 16 (its rows are not 16-byte aligned);
// rows of S past R are zeros. A store writes all 16 bytes of a row of T that exists: its columns
// past R lie in ld_t's padding, which nothing reads (the GEMM's TMA map ends at R).
//
// Written by hand, and why: the 16-byte accesses (the core has no vector copy atom; add.cu says the
// same) and the byte gather, which is a permutation of registers, not an index.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "layout/tensor.hpp"

namespace loom::sm90 {

constexpr int kTransposeTile = 64;  // a CTA's tile: 64 x 64 bytes, 256 threads of 16 bytes each way

__global__ void __launch_bounds__(256) transpose8_kernel(std::uint8_t const* __restrict__ s, std::uint8_t* __restrict__ t,
                                                         std::int64_t rows, std::int64_t cols, std::int64_t ld_s,
                                                         std::int64_t ld_t, int tiles_c, bool vector) {
  constexpr Tile kTile = make_tile(kTransposeTile, kTransposeTile);
  __shared__ __align__(16) std::uint8_t tile[kTransposeTile][kTransposeTile + 16];  // 80-byte rows: 16-byte aligned
  int const tr = int(blockIdx.x) / tiles_c, tc = int(blockIdx.x) % tiles_c;
  int const tid = int(threadIdx.x), row = tid / 4, chunk = 16 * (tid % 4);
  auto const cS = local_tile<kTile>(make_identity_tensor(Coord<2>{{rows, cols}}), tr, tc);  // (64,64) -> (r,c) of S
  auto const gS = local_tile<kTile>(make_gmem_tensor<1>(s, Coord<2>{{rows, cols}}, Coord<2>{{ld_s, 1}}), tr, tc);  // (64,64)
  auto const gT = local_tile<kTile>(make_gmem_tensor<1>(t, Coord<2>{{cols, rows}}, Coord<2>{{ld_t, 1}}), tc, tr);  // (64,64)
  std::int64_t const r = cS.base[0] + row, c = cS.base[1] + chunk;  // this thread's first byte of S
  uint4 v = make_uint4(0, 0, 0, 0);
  if (r < rows) {
    if (vector && c + 16 <= cols) {
      v = *reinterpret_cast<uint4 const*>(&gS(row, chunk));
    } else {
      std::uint8_t b[16] = {};
      for (int i = 0; i < 16 && c + i < cols; ++i) b[i] = gS(row, chunk + i);
      v = *reinterpret_cast<uint4 const*>(b);
    }
  }
  *reinterpret_cast<uint4*>(&tile[row][chunk]) = v;
  __syncthreads();
  // Row `row` of gT is column `row` of gS: its bytes [chunk, chunk + 16) are tile[chunk + i][row].
  if (cS.base[1] + row >= cols || cS.base[0] + chunk >= rows) return;
  unsigned w[4];
#pragma unroll
  for (int q = 0; q < 4; ++q)
    w[q] = unsigned(tile[chunk + 4 * q][row]) | unsigned(tile[chunk + 4 * q + 1][row]) << 8 |
           unsigned(tile[chunk + 4 * q + 2][row]) << 16 | unsigned(tile[chunk + 4 * q + 3][row]) << 24;
  *reinterpret_cast<uint4*>(&gT(row, chunk)) = make_uint4(w[0], w[1], w[2], w[3]);
}

// The row stride of an operand's k-major copy: K rounded up to 16 bytes (TMA's rule).
constexpr std::int64_t transposed_ld(std::int64_t k) { return (k + 15) / 16 * 16; }

// T = S^T, S (rows, cols) with row stride ld_s, T (cols, rows) with row stride ld_t, in `stream`.
inline cudaError_t transpose8(void const* s, void* t, std::int64_t rows, std::int64_t cols, std::int64_t ld_s,
                              std::int64_t ld_t, cudaStream_t stream) {
  std::int64_t const tiles_r = (rows + kTransposeTile - 1) / kTransposeTile, tiles_c = (cols + kTransposeTile - 1) / kTransposeTile;
  if (tiles_r * tiles_c > 0x7fffffff) return cudaErrorInvalidValue;
  transpose8_kernel<<<unsigned(tiles_r * tiles_c), 256, 0, stream>>>(static_cast<std::uint8_t const*>(s),
                                                                      static_cast<std::uint8_t*>(t), rows, cols, ld_s,
                                                                      ld_t, int(tiles_c), ld_s % 16 == 0);
  return cudaGetLastError();
}

}  // namespace loom::sm90
