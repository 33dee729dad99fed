// A user's program: D = A B in fp32 through <loom/gemm.hpp> and nothing else of Loom's, checked
// against a host loop. Exit 0 when right, 1 when wrong or on a failed call; without a GPU it says
// "skipped: " and why (ctest then reports Skipped).
#include <loom/gemm.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

#include <cuda_runtime_api.h>

int main() {
  loom::GemmDesc desc;
  desc.m = 70, desc.n = 50, desc.k = 40;
  desc.ab_type = desc.cd_type = loom::DType::f32;  // all column-major, packed
  std::vector<float> a(desc.m * desc.k), b(desc.k * desc.n), d(desc.m * desc.n, -1.f);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = float(int(i * 7 % 13) - 6) / 8;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(int(i * 5 % 11) - 5) / 4;

  std::size_t ws_bytes = 0;
  loom::Status s = loom::gemm_workspace_size(desc, &ws_bytes);
  if (s.code() == loom::StatusCode::no_device) {
    std::printf("skipped: %s\n", s.message());
    return 0;
  }
  if (!s.ok()) return std::printf("gemm_workspace_size: %s\n", s.message()), 1;
  void *da = nullptr, *db = nullptr, *dd = nullptr, *ws = nullptr;
  if (cudaMalloc(&da, a.size() * 4) != cudaSuccess || cudaMalloc(&db, b.size() * 4) != cudaSuccess ||
      cudaMalloc(&dd, d.size() * 4) != cudaSuccess || (ws_bytes && cudaMalloc(&ws, ws_bytes) != cudaSuccess))
    return std::printf("cudaMalloc failed\n"), 1;
  cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice);
  s = loom::gemm(desc, 1.f, da, db, 0.f, nullptr, dd, ws, ws_bytes, nullptr);
  if (!s.ok()) return std::printf("loom::gemm: %s (%s)\n", s.message(), loom::to_string(s.code())), 1;
  if (cudaMemcpy(d.data(), dd, d.size() * 4, cudaMemcpyDeviceToHost) != cudaSuccess) return std::printf("copy failed\n"), 1;
  int wrong = 0;
  for (int j = 0; j < desc.n; ++j)
    for (int i = 0; i < desc.m; ++i) {
      double ref = 0;
      for (int l = 0; l < desc.k; ++l) ref += double(a[i + l * desc.m]) * b[l + j * desc.k];
      if (!(std::fabs(d[i + j * desc.m] - ref) <= 1e-4 * (1 + std::fabs(ref)))) ++wrong;
    }
  std::printf("loom::gemm %lldx%lldx%lld through the installed package (built for %s): %d wrong\n", (long long)desc.m,
              (long long)desc.n, (long long)desc.k, loom::built_architectures(), wrong);
  return wrong == 0 ? 0 : 1;
}
