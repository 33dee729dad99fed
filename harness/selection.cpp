// The registered kernels: --list's table, and the kernels --kernels and --ignore-kernels name.
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

std::string kernel_list() {
  // The dtypes column as wide as its longest entry (a kernel of f16, bf16, e4m3 and e5m2), so that
  // the columns after it line up.
  std::vector<std::string> dtypes;
  std::size_t width = 16;
  for (auto const& k : kernels()) {
    std::string dts;
    for (DType t : k.dtypes) dts += std::string(dts.empty() ? "" : ", ") + to_string(t);
    width = std::max(width, dts.size());
    dtypes.push_back(std::move(dts));
  }
  auto pad = [](std::string s, std::size_t w) { return s.size() < w ? s + std::string(w - s.size(), ' ') : s; };
  std::string out = pad("kernel", 10) + " " + pad("op", 5) + " " + pad("dtypes", width) + " " + pad("min_cc", 7) +
                    " description\n";
  std::size_t i = 0;
  for (auto const& k : kernels()) {
    std::string const cc = std::to_string(k.min_cc / 10) + "." + std::to_string(k.min_cc % 10);
    out += pad(k.name, 10) + " " + pad(to_string(k.op), 5) + " " + pad(dtypes[i++], width) + " " + pad(cc, 7) + " " +
           k.description + "\n";
  }
  return out;
}

bool is_glob(std::string const& pattern) {
  std::size_t const open = pattern.find('[');
  return pattern.find_first_of("*?") != std::string::npos ||
         (open != std::string::npos && pattern.find(']', open + 1) != std::string::npos);
}

std::vector<KernelInfo const*> select_kernels(std::vector<std::string> const& patterns,
                                              std::vector<std::string> const& ignore) {
  auto matching = [](std::string const& pat, char const* opt) {
    std::vector<KernelInfo const*> out;
    for (auto const& k : kernels())
      if (is_glob(pat) ? fnmatch(pat.c_str(), k.name.c_str(), 0) == 0 : k.name == pat) out.push_back(&k);
    if (out.empty()) {
      std::string names;
      for (auto const& k : kernels()) names += (names.empty() ? "" : ", ") + k.name;
      throw std::invalid_argument(is_glob(pat) ? std::string(opt) + ": \"" + pat + "\" matches no kernel (registered: " + names + ")"
                                               : "unknown kernel \"" + pat + "\" (registered: " + names + ")");
    }
    return out;
  };
  std::vector<KernelInfo const*> sel;
  if (patterns.empty()) {
    for (auto const& k : kernels()) sel.push_back(&k);
  } else {
    for (auto const& pat : patterns)
      for (KernelInfo const* k : matching(pat, "--kernels"))
        if (std::find(sel.begin(), sel.end(), k) == sel.end()) sel.push_back(k);
    // Registry order, whatever the order of the patterns.
    std::sort(sel.begin(), sel.end(), [](KernelInfo const* a, KernelInfo const* b) { return a < b; });
  }
  for (auto const& pat : ignore)
    for (KernelInfo const* k : matching(pat, "--ignore-kernels")) std::erase(sel, k);
  return sel;
}

}  // namespace loom::harness
