// Which cuTensorMapEncodeTiled arguments give cuBLAS's descriptor words (384x6144x4096's B map).
#include <cuda.h>
#include <cstdio>
#include <cstring>
int main() {
  cuInit(0); CUdevice d; cuDeviceGet(&d, 0); CUcontext c; cuDevicePrimaryCtxRetain(&c, d); cuCtxSetCurrent(c);
  CUdeviceptr p; cuMemAlloc(&p, 64 << 20);
  CUtensorMapDataType types[] = {CU_TENSOR_MAP_DATA_TYPE_FLOAT16, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, CU_TENSOR_MAP_DATA_TYPE_UINT16};
  const char* tn[] = {"f16", "bf16", "u16"};
  for (int t = 0; t < 3; ++t) for (int rank = 2; rank <= 3; ++rank) for (int promo = 0; promo < 4; ++promo) for (int oob = 0; oob < 2; ++oob) {
    cuuint64_t dim[3] = {4096, 6144, 1}, stride[2] = {8192, 8192ull * 6144};
    cuuint32_t box[3] = {64, 144, 1}, es[3] = {1, 1, 1};
    alignas(64) CUtensorMap m; memset(&m, 0, sizeof m);
    CUresult r = cuTensorMapEncodeTiled(&m, types[t], rank, (void*)p, dim, stride, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        CU_TENSOR_MAP_SWIZZLE_128B, (CUtensorMapL2promotion)promo, (CUtensorMapFloatOOBfill)oob);
    unsigned long long w[16]; memcpy(w, &m, 128);
    printf("%s rank=%d promo=%d oob=%d r=%d w1=%016llx w2=%016llx w4=%016llx w6=%016llx w7=%016llx w8=%016llx w9=%016llx\n", tn[t], rank, promo, oob, (int)r, w[1], w[2], w[4], w[6], w[7], w[8], w[9]);
  }
  return 0;
}
