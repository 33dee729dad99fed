#!/usr/bin/env bash
# The size rule both tools share (README.md, "Sizes"): lists given are crossed; with --m given, N
# and K left out follow M value by value. loom-validate and loom-bench (next to it in the build
# directory) enumerate the same M x N x K for the same size options, without a GPU.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" "$@"
BENCH=$(dirname "$VALIDATE")/loom-bench
[[ -x $BENCH ]] || { echo "FAIL: no loom-bench beside $VALIDATE"; exit 1; }

shapes_validate() {  # the distinct MxNxK of loom-validate's enumeration, sorted
  "$VALIDATE" --mode=enumerate --kernels=sm80 --dtypes=bf16 --layouts=rcr --ld-pad=0 --misalign=0 --alpha=1 --beta=0 "$@" 2>/dev/null |
    grep -oE '^sm80/bf16/rcr/[0-9]+x[0-9]+x[0-9]+' | cut -d/ -f4 | sort -u
}
shapes_bench() {
  "$BENCH" --mode=enumerate --kernels=sm80 --dtypes=bf16 --layouts=rcr --providers=loom "$@" 2>/dev/null |
    grep -oE '^sm80/bf16/rcr/[0-9]+x[0-9]+x[0-9]+' | cut -d/ -f4 | sort -u
}
same() {  # expected shapes (space-separated), size options...
  local want=$1
  shift
  local v b
  v=$(shapes_validate "$@" | paste -sd' ')
  b=$(shapes_bench "$@" | paste -sd' ')
  if [[ $v == "$want" && $b == "$want" ]]; then
    echo "ok   $*: $want"
  else
    echo "FAIL $*: expected \"$want\"; loom-validate \"$v\", loom-bench \"$b\""
    FAILS=$((FAILS + 1))
  fi
}
same "1000x1000x1000" --m=1000
same "1000x129x1000 2000x129x2000" --m=1000,2000 --n=129
same "1000x1000x64 2000x2000x64" --m=1000,2000 --k=64
same "1000x129x64 1000x7x64 2000x129x64 2000x7x64" --m=1000,2000 --n=7,129 --k=64
same "64x64x64 65x65x65 66x66x66" --m=64:66
finish
