// NumPy .npy files of a case's matrices (loom-validate --save-workspace). #include "harness/npy.hpp"
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loom::harness {

// Writes a rows x cols matrix of logical column-major values (element (i, j) at i + j*rows, as
// to_host() returns them) to `path` as a .npy file (format version 1.0): dtype '<f8' (every f32,
// f16 and bf16 value is exact in it), shape (rows, cols), fortran_order True, so that
// numpy.load(path)[i, j] is element (i, j). Returns "" or why the file could not be written.
std::string write_npy(std::string const& path, std::int64_t rows, std::int64_t cols, std::vector<double> const& values);

// The .npy header write_npy() writes for a rows x cols matrix: "\x93NUMPY", version 1.0, the
// header's length (little-endian uint16), then the dict padded with spaces and a '\n' to a
// multiple of 64 bytes in all.
std::string npy_header(std::int64_t rows, std::int64_t cols);

}  // namespace loom::harness
