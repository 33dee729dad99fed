// loom-bench --append: rows of one Google Benchmark JSON document added to another's.
#include "harness/harness.hpp"

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

namespace {
// The rows of a loom-bench JSON document: the text between "benchmarks": [ and the array's closing
// bracket (the document's last ']', followed only by the object's '}'), trimmed; *open and *close
// are the brackets' offsets. False when the document does not have that shape.
bool benchmark_rows(std::string const& doc, std::size_t* open, std::size_t* close, std::string* rows) {
  std::size_t const key = doc.find("\"benchmarks\"");
  if (key == std::string::npos) return false;
  *open = doc.find('[', key);
  std::size_t const end = doc.find_last_not_of(" \t\r\n");
  if (*open == std::string::npos || end == std::string::npos || doc[end] != '}') return false;
  *close = doc.find_last_not_of(" \t\r\n", end - 1);
  if (*close == std::string::npos || doc[*close] != ']' || *close < *open) return false;
  if (doc.find_first_not_of(" \t\r\n:", key + 12) != *open) return false;
  std::size_t const b = doc.find_first_not_of(" \t\r\n", *open + 1);
  std::size_t const e = doc.find_last_not_of(" \t\r\n", *close - 1);
  *rows = b == std::string::npos || b >= *close ? std::string() : doc.substr(b, e - b + 1);
  return true;
}
}  // namespace

std::string append_benchmark_rows(std::string const& base, std::string const& more, std::string* why) {
  std::size_t bo = 0, bc = 0, mo = 0, mc = 0;
  std::string base_rows, more_rows;
  if (!benchmark_rows(base, &bo, &bc, &base_rows)) {
    *why = "not a loom-bench JSON file (no \"benchmarks\": [...] closing the document)";
    return {};
  }
  if (!benchmark_rows(more, &mo, &mc, &more_rows)) {
    *why = "this run's JSON has no \"benchmarks\" array";
    return {};
  }
  std::string rows = base_rows;
  if (!more_rows.empty()) rows += (rows.empty() ? "" : ",\n    ") + more_rows;
  return base.substr(0, bo + 1) + (rows.empty() ? "" : "\n    " + rows) + "\n  ]\n}\n";
}

}  // namespace loom::harness
