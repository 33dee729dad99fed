// PLACEHOLDER -- replaced by the real loom-layout calculator.
// Exists only so the build skeleton has a target; safe to overwrite wholesale.
#include <cstdio>

int main() {
  std::fputs("loom-layout: not implemented yet\n", stderr);
  return 2;
}
