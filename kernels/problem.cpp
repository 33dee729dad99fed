#include "kernels/problem.hpp"

#include <cstdio>

namespace loom {

const char* to_string(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::e4m3: return "e4m3";
    case DType::e5m2: return "e5m2";
  }
  return "?";
}
const char* to_string(Order o) { return o == Order::col ? "c" : "r"; }
const char* to_string(OpKind o) { return o == OpKind::add ? "add" : "gemm"; }

std::size_t size_of(DType t) { return t == DType::f32 ? 4 : is_8bit(t) ? 1 : 2; }

bool parse_dtype(std::string_view s, DType* t) {
  if (s == "f32" || s == "fp32" || s == "float") { *t = DType::f32; return true; }
  if (s == "f16" || s == "fp16" || s == "half") { *t = DType::f16; return true; }
  if (s == "bf16") { *t = DType::bf16; return true; }
  if (s == "e4m3" || s == "fp8_e4m3") { *t = DType::e4m3; return true; }
  if (s == "e5m2" || s == "fp8_e5m2") { *t = DType::e5m2; return true; }
  return false;
}
bool parse_op(std::string_view s, OpKind* o) {
  if (s == "add") { *o = OpKind::add; return true; }
  if (s == "gemm") { *o = OpKind::gemm; return true; }
  return false;
}

std::int64_t rows_a(Problem const& p) { return p.m; }
std::int64_t cols_a(Problem const& p) { return p.op == OpKind::add ? p.n : p.k; }
std::int64_t rows_b(Problem const& p) { return p.op == OpKind::add ? p.m : p.k; }
std::int64_t cols_b(Problem const& p) { return p.n; }
std::int64_t min_ld(Order o, std::int64_t rows, std::int64_t cols) {
  std::int64_t ld = o == Order::col ? rows : cols;
  return ld > 0 ? ld : 1;
}

Problem with_default_lds(Problem p) {
  if (p.lda == 0) p.lda = min_ld(p.a, rows_a(p), cols_a(p));
  if (p.ldb == 0) p.ldb = min_ld(p.b, rows_b(p), cols_b(p));
  if (p.ldc == 0) p.ldc = min_ld(p.c, p.m, p.n);
  return p;
}

std::string layout_string(Problem const& p) {
  return std::string(to_string(p.a)) + to_string(p.b) + to_string(p.c);
}

bool parse_layout(std::string_view s, Problem* p) {
  if (s.size() != 3) return false;
  Order o[3];
  for (int i = 0; i < 3; ++i) {
    if (s[i] == 'c') o[i] = Order::col;
    else if (s[i] == 'r') o[i] = Order::row;
    else return false;
  }
  p->a = o[0];
  p->b = o[1];
  p->c = o[2];
  return true;
}

std::string input_types(Problem const& p) {
  std::string s = to_string(p.dtype);
  if (b_type(p) != p.dtype) s = s + "x" + to_string(b_type(p));
  if (p.fast_accum && is_8bit(p.dtype)) s += "-fast";
  if (p.scale == ScaleMode::block && is_8bit(p.dtype)) s += "-block";
  return s;
}

bool parse_input_types(std::string_view s, Problem* p) {
  auto strip = [&s](std::string_view suffix) {
    bool const has = s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
    if (has) s.remove_suffix(suffix.size());
    return has;
  };
  bool const block = strip("-block");
  bool const fast = !block && strip("-fast");  // the promotion is what block scales ride on: never both
  DType a, b;
  std::size_t const x = s.find('x');
  if (x == std::string_view::npos) {
    if (!parse_dtype(s, &a)) return false;
    b = a;
  } else if (!parse_dtype(s.substr(0, x), &a) || !parse_dtype(s.substr(x + 1), &b)) {
    return false;
  }
  if ((fast || block) && !is_8bit(a)) return false;
  p->dtype = a;
  if (b == a) p->b_dtype.reset();
  else p->b_dtype = b;
  p->fast_accum = fast;
  p->scale = block ? ScaleMode::block : ScaleMode::tensor;
  return true;
}

std::string case_name(std::string_view kernel, Problem const& p) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.*s/%s/%s/%lldx%lldx%lld", int(kernel.size()), kernel.data(),
                input_types(p).c_str(), layout_string(p).c_str(), (long long)p.m, (long long)p.n,
                (long long)p.k);
  return buf;
}

}  // namespace loom
