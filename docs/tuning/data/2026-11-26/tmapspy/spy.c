// LD_PRELOAD shim: logs every cuTensorMapEncodeTiled call that reaches the driver through
// cuGetProcAddress (the runtime's and cuBLAS's route), with all of its arguments.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <cuda.h>
#include <stdlib.h>

typedef CUresult (*encode_t)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*,
                             const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                             CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static encode_t real_encode;
static FILE* spylog(void) { static FILE* f; if (!f) f = fopen("/tmp/spy.log", "a"); return f ? f : stderr; }
static CUresult spy_encode(CUtensorMap* m, CUtensorMapDataType t, cuuint32_t rank, void* base, const cuuint64_t* dim,
                           const cuuint64_t* stride, const cuuint32_t* box, const cuuint32_t* es, CUtensorMapInterleave il,
                           CUtensorMapSwizzle sw, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  fprintf(spylog(), "TMAP type=%d rank=%u base=%p dims=", (int)t, rank, base);
  for (unsigned i = 0; i < rank; ++i) fprintf(spylog(), "%llu%s", (unsigned long long)dim[i], i + 1 < rank ? "," : "");
  fprintf(spylog(), " strides_bytes=");
  for (unsigned i = 0; i + 1 < rank; ++i) fprintf(spylog(), "%llu%s", (unsigned long long)stride[i], i + 2 < rank ? "," : "");
  fprintf(spylog(), " box=");
  for (unsigned i = 0; i < rank; ++i) fprintf(spylog(), "%u%s", box[i], i + 1 < rank ? "," : "");
  fprintf(spylog(), " estride=");
  for (unsigned i = 0; i < rank; ++i) fprintf(spylog(), "%u%s", es[i], i + 1 < rank ? "," : "");
  fprintf(spylog(), " interleave=%d swizzle=%d l2promo=%d oobfill=%d\n", (int)il, (int)sw, (int)l2, (int)oob);
  CUresult r = real_encode(m, t, rank, base, dim, stride, box, es, il, sw, l2, oob);
  const unsigned char* b = (const unsigned char*)m;
  fprintf(spylog(), "TMAP bytes=");
  for (int i = 0; i < 128; ++i) fprintf(spylog(), "%02x", b[i]);
  fprintf(spylog(), "\n");
  fflush(spylog());
  return r;
}

typedef CUresult (*gpa_t)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
static gpa_t real_gpa2;
static CUresult spy_gpa2(const char* sym, void** pfn, int ver, cuuint64_t flags, CUdriverProcAddressQueryResult* st) {
  CUresult r = real_gpa2(sym, pfn, ver, flags, st);
  if (getenv("SPY_VERBOSE") && strstr(sym, "Tensor")) fprintf(stderr, "SPY gpa2 %s -> %d\n", sym, (int)r);
  if (r == CUDA_SUCCESS && pfn && *pfn && strcmp(sym, "cuTensorMapEncodeTiled") == 0) {
    real_encode = (encode_t)*pfn;
    *pfn = (void*)spy_encode;
  }
  if (r == CUDA_SUCCESS && pfn && *pfn && strcmp(sym, "cuGetProcAddress") == 0) *pfn = (void*)spy_gpa2;
  return r;
}
typedef CUresult (*gpa1_t)(const char*, void**, int, cuuint64_t);
static gpa1_t real_gpa1;
static CUresult spy_gpa1(const char* sym, void** pfn, int ver, cuuint64_t flags) {
  CUresult r = real_gpa1(sym, pfn, ver, flags);
  if (r == CUDA_SUCCESS && pfn && *pfn && strcmp(sym, "cuTensorMapEncodeTiled") == 0) {
    real_encode = (encode_t)*pfn;
    *pfn = (void*)spy_encode;
  }
  return r;
}


// Kernel launches: every 128-byte parameter (a CUtensorMap) dumped, with the kernel's name and grid.
typedef CUresult (*lke_t)(const CUlaunchConfig*, CUfunction, void**, void**);
typedef CUresult (*lk_t)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**);
typedef CUresult (*gpi_t)(CUfunction, size_t, size_t*, size_t*);
typedef CUresult (*gfn_t)(const char**, CUfunction);
static lke_t real_lke; static lk_t real_lk;
static void* real_dlsym_fn(void*, const char*);
static void dump_params(CUfunction f, void** params, unsigned gx, unsigned bx, void** extra) {
  static gpi_t gpi, kpi; static gfn_t gfn, kfn;
  if (!gpi) { void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD); gpi = (gpi_t)real_dlsym_fn(h, "cuFuncGetParamInfo"); gfn = (gfn_t)real_dlsym_fn(h, "cuFuncGetName"); kpi = (gpi_t)real_dlsym_fn(h, "cuKernelGetParamInfo"); kfn = (gfn_t)real_dlsym_fn(h, "cuKernelGetName"); }
  const char* name = "?";
  if (!gfn || gfn(&name, f) != CUDA_SUCCESS) { name = "?"; if (kfn && kfn(&name, f) != CUDA_SUCCESS) name = "??"; }
  fprintf(spylog(), "LAUNCH %s grid=%u block=%u\n", name, gx, bx);
  if (!params && extra) {
    for (int i = 0; extra[i] != CU_LAUNCH_PARAM_END && i < 16; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
        size_t n = 0;
        for (int j = 0; extra[j] != CU_LAUNCH_PARAM_END && j < 16; j += 2)
          if (extra[j] == CU_LAUNCH_PARAM_BUFFER_SIZE) n = *(size_t*)extra[j + 1];
        const unsigned char* b = (const unsigned char*)extra[i + 1];
        fprintf(spylog(), "BUFFER size=%zu ", n);
        for (size_t j = 0; j < n && j < 8192; ++j) fprintf(spylog(), "%02x", b[j]);
        fprintf(spylog(), "\n");
      }
    }
    fflush(spylog());
    return;
  }
  if (!gpi || !params) return;
  size_t o0, s0;
  gpi_t use = gpi(f, 0, &o0, &s0) == CUDA_SUCCESS ? gpi : kpi;
  if (use == kpi && (!kpi || kpi(f, 0, &o0, &s0) != CUDA_SUCCESS)) { fprintf(spylog(), "no param info\n"); return; }
  for (size_t i = 0; i < 64; ++i) {
    size_t off = 0, size = 0;
    if (use(f, i, &off, &size) != CUDA_SUCCESS) break;
    fprintf(spylog(), "P%zu:%zu@%zu ", i, size, off);
    if (size == 128) {
      const unsigned char* b = (const unsigned char*)params[i];
      fprintf(spylog(), "PARAM %zu off=%zu tmap=", i, off);
      for (int j = 0; j < 128; ++j) fprintf(spylog(), "%02x", b[j]);
      fprintf(spylog(), "\n");
    } else if (size > 128) {
      const unsigned char* b = (const unsigned char*)params[i];
      fprintf(spylog(), "PARAM %zu off=%zu size=%zu bytes=", i, off, size);
      for (size_t j = 0; j < size && j < 1024; ++j) fprintf(spylog(), "%02x", b[j]);
      fprintf(spylog(), "\n");
    }
  }
  fflush(spylog());
}
static int seen_launches;
static CUresult spy_lke(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) {
  if (seen_launches++ < 40) dump_params(f, params, c->gridDimX, c->blockDimX, extra);
  return real_lke(c, f, params, extra);
}
static CUresult spy_lk(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned sm, CUstream st, void** params, void** extra) {
  if (seen_launches++ < 40) dump_params(f, params, gx, bx, extra);
  return real_lk(f, gx, gy, gz, bx, by, bz, sm, st, params, extra);
}
static void* (*real_dlsym)(void*, const char*);
void* dlsym(void* h, const char* sym) {
  if (!real_dlsym) real_dlsym = (void* (*)(void*, const char*))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
  if (!real_dlsym) real_dlsym = (void* (*)(void*, const char*))dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
  void* p = real_dlsym(h, sym);
  if (getenv("SPY_VERBOSE") && sym && sym[0] == 'c' && sym[1] == 'u') fprintf(stderr, "SPY dlsym %s -> %p\n", sym, p);
  if (!p) return p;
  if (strcmp(sym, "cuGetProcAddress_v2") == 0) { real_gpa2 = (gpa_t)p; return (void*)spy_gpa2; }
  if (strcmp(sym, "cuGetProcAddress") == 0) { real_gpa1 = (gpa1_t)p; return (void*)spy_gpa1; }
  if (strcmp(sym, "cuTensorMapEncodeTiled") == 0) { real_encode = (encode_t)p; return (void*)spy_encode; }
  if (getenv("SPY_LAUNCH") && strcmp(sym, "cuLaunchKernelEx") == 0) { real_lke = (lke_t)p; return (void*)spy_lke; }
  if (getenv("SPY_LAUNCH") && strcmp(sym, "cuLaunchKernel") == 0) { real_lk = (lk_t)p; return (void*)spy_lk; }
  return p;
}
static void* real_dlsym_fn(void* h, const char* sym) { return real_dlsym(h, sym); }
