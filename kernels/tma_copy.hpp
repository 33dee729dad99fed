// The host side of a TMA copy: a CUtensorMap for one operand, built from the layout core's
// TmaDesc (layout/tma.hpp: dims, strides, box and swizzle all read off the global tensor, the
// shared stage layout and the CTA tile) and the global base address.
//
// The driver's cuTensorMapEncodeTiled is reached through cudaGetDriverEntryPointByVersion, so that
// nothing links libcuda directly (the runtime already loaded the driver). Only the CUtensorMap
// type and the enums come from <cuda.h>.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "layout/tma.hpp"

namespace loom {

// Fills *map for a tiled TMA copy of `desc` at global address `base`. Returns "" or a one-line
// reason: the base is not 16-byte aligned (the driver's rule for tiled maps without interleave),
// the element width has no TMA data type here, the driver entry point is missing, or the driver
// refused the map.
inline std::string make_tma_copy(TmaDesc const& desc, void const* base, bool is_float, CUtensorMap* map) {
  using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, cuuint64_t const*,
                              cuuint64_t const*, cuuint32_t const*, cuuint32_t const*, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  static Encode const encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      fn = nullptr;
    return reinterpret_cast<Encode>(fn);
  }();
  if (!encode) return "tma: the driver has no cuTensorMapEncodeTiled (CUDA 12.0 or later is needed)";
  if (reinterpret_cast<std::uintptr_t>(base) % 16 != 0) return "tma: the global base address is not 16-byte aligned";

  CUtensorMapDataType type;
  switch (desc.elem_bytes) {
    case 1: type = CU_TENSOR_MAP_DATA_TYPE_UINT8; break;
    case 2: type = is_float ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_UINT16; break;
    case 4: type = is_float ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_UINT32; break;
    case 8: type = is_float ? CU_TENSOR_MAP_DATA_TYPE_FLOAT64 : CU_TENSOR_MAP_DATA_TYPE_UINT64; break;
    default: return "tma: no TMA data type of " + std::to_string(desc.elem_bytes) + " bytes";
  }
  CUtensorMapSwizzle const swizzle = desc.swizzle_bytes == 0    ? CU_TENSOR_MAP_SWIZZLE_NONE
                                     : desc.swizzle_bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                     : desc.swizzle_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                                                : CU_TENSOR_MAP_SWIZZLE_128B;
  cuuint64_t dim[kTmaMaxRank], stride[kTmaMaxRank];
  cuuint32_t box[kTmaMaxRank], estride[kTmaMaxRank];
  for (int i = 0; i < desc.rank; ++i) {
    dim[i] = desc.global_dim[i];
    stride[i] = desc.global_stride_bytes[i];
    box[i] = desc.box_dim[i];
    estride[i] = desc.element_strides[i];
  }
  // Out-of-bounds elements are zeros (FLOAT_OOB_FILL_NONE), which is what a GEMM's ragged edge
  // needs: a zero times anything adds nothing. L2 promotion of 256 bytes, as the operands are
  // streamed in whole 128-byte rows.
  CUresult const r = encode(map, type, cuuint32_t(desc.rank), const_cast<void*>(base), dim, stride + 1, box, estride,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) return "tma: cuTensorMapEncodeTiled failed (CUresult " + std::to_string(int(r)) + ")";
  return {};
}

}  // namespace loom
