// Compare: tolerances and the element-wise check of a kernel's output against its reference.
#include "harness/harness.hpp"
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
// Compare

double tolerance(DType in, DType out, OpKind op, std::int64_t k) {
  double const sqrt_k = std::sqrt(double(std::max<std::int64_t>(k, 1)));
  if (op == OpKind::add) {
    switch (out) {
      case DType::f32: return 1e-6;
      case DType::f16: return 1e-3;
      case DType::bf16: return 8e-3;
      default: return 0;  // add has no 8-bit output
    }
  }
  // 8-bit inputs: the 16-bit bound of the output type, or the accumulator's (validate/README.md),
  // whichever is larger.
  if (is_8bit(in)) return std::max(tolerance(DType::bf16, out, op, k), std::ldexp(1.0, -11) * sqrt_k);
  switch (out) {
    case DType::f32: return 1e-6 * sqrt_k;
    case DType::f16: return 1e-2;
    case DType::bf16: return 2e-2;
    default: return 0;  // gemm has no 8-bit output
  }
}

namespace {

double max_finite(DType t) {
  switch (t) {
    case DType::f32: return double(std::numeric_limits<float>::max());
    case DType::f16: return 65504.0;
    case DType::bf16: return std::ldexp(2.0 - std::ldexp(1.0, -7), 127);
    case DType::e4m3: return 448.0;
    case DType::e5m2: return 57344.0;
  }
  return 0;
}

std::string fmt_g(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

double typical_rms(Problem const& p, CaseScales const& scales) {
  double const b2 = p.beta * p.beta;
  if (p.op == OpKind::add) return std::sqrt((p.alpha * p.alpha + b2) / 3);
  double alpha = p.alpha * scales.tensor.a * scales.tensor.b;
  if (p.scale == ScaleMode::block && is_8bit(p.dtype)) {
    if (!scales.block) throw Error("typical_rms: a block-scaled case needs its block scales");
    // Each term's scale is one of A's times one of B's, drawn apart: the RMS of the product is the
    // product of the RMSs. B's padding (NaN) is no scale.
    auto rms = [](std::vector<float> const& v) {
      double s2 = 0;
      std::size_t n = 0;
      for (float x : v)
        if (std::isfinite(x)) s2 += double(x) * double(x), ++n;
      return n ? std::sqrt(s2 / double(n)) : 0.0;
    };
    alpha = p.alpha * rms(scales.block->a) * rms(scales.block->b);
  }
  return std::sqrt(alpha * alpha * double(std::max<std::int64_t>(p.k, 0)) / 9 + b2 / 3);
}

ErrorStats compare(std::vector<double> const& out, std::vector<double> const& ref, DType out_dtype,
                   Problem const& p, double typical) {
  ErrorStats st;
  st.tol = tolerance(p.dtype, out_dtype, p.op, p.k);
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

}  // namespace loom::harness
