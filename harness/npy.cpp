// NumPy .npy writer (format version 1.0: https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html).
#include "harness/npy.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace loom::harness {

std::string npy_header(std::int64_t rows, std::int64_t cols) {
  std::string dict = "{'descr': '<f8', 'fortran_order': True, 'shape': (" + std::to_string(rows) + ", " +
                     std::to_string(cols) + "), }";
  std::size_t const prefix = 6 + 2 + 2;  // magic, version, header length
  std::size_t const total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string h = "\x93NUMPY";
  h += char(1);
  h += char(0);
  h += char(dict.size() & 0xff);
  h += char((dict.size() >> 8) & 0xff);
  return h + dict;
}

std::string write_npy(std::string const& path, std::int64_t rows, std::int64_t cols, std::vector<double> const& values) {
  if (rows < 0 || cols < 0 || values.size() != std::size_t(rows) * std::size_t(cols))
    return "write_npy: " + std::to_string(values.size()) + " values for a " + std::to_string(rows) + " x " +
           std::to_string(cols) + " matrix";
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) return path + ": " + std::strerror(errno);
  std::string const h = npy_header(rows, cols);
  // The host is little-endian (x86-64, aarch64), as '<f8' says.
  bool ok = std::fwrite(h.data(), 1, h.size(), f.get()) == h.size() &&
            std::fwrite(values.data(), sizeof(double), values.size(), f.get()) == values.size();
  int const e = errno;
  ok = (std::fclose(f.release()) == 0) && ok;
  if (!ok) return path + ": " + std::strerror(e ? e : EIO);
  return "";
}

}  // namespace loom::harness
