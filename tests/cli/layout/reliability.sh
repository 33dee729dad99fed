#!/usr/bin/env bash
# Issue 12: no silent wrong answer, no crash and no hang. Each defect the issue lists, as loom-layout
# answers it now: a 64-bit overflow is a one-line error naming the argument; an op on a negative or
# non-invertible input gives CuTe 4.7.0's answer, with one warning line where it breaks the op's contract
# (issue 25), or an error where CuTe's answer is no layout (a negative shape) or CuTe does not compile;
# an error quotes at most about 80 characters of an argument. tests/fuzz/fuzz_tools.py throws
# thousands of generated inputs at the same rules.
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect.sh" "$@"

# expect_error_without 'ABSENT' 'FRAGMENT...' ARGS...: expect_error, and the line lacks ABSENT.
expect_error_without() {
  local absent=$1
  shift
  expect_error "$@"
  if [[ $_err == *"$absent"* ]]; then
    _failures=$((_failures + 1))
    echo "FAIL: the message has '$absent': $_err"
  fi
}

# --- 64-bit overflow: an error that names the argument, never a wrapped value ----------------------
overflow="integer overflow: a value does not fit in 64 bits"
expect_error "apply: argument 1 (L) \"3:4611686018427387904\": $overflow" apply 3:4611686018427387904
expect_error "cosize: argument 1 (L) \"2:-9223372036854775808\": $overflow" cosize 2:-9223372036854775808
expect_error "crd2idx: argument 3 (STRIDE)|$overflow" crd2idx '(1,1)' '(2,2)' '(4611686018427387904,4611686018427387904)'
expect_error "composition: argument 2 (B) \"2:4294967296\": $overflow" composition 2:4294967296 2:4294967296
expect_error "complement: argument 2 (COTARGET) \"9223372036854775807\": $overflow" complement 4:1 9223372036854775807
expect_error "logical_product: argument 2 (B)|$overflow" logical_product '(2,2):(1,2)' 2:4611686018427387904
expect_error "blocked_product: argument 2 (B)|$overflow" blocked_product '(2,2):(1,2)' '(2,2):(1,4611686018427387904)'
expect_error "raked_product: argument 2 (B)|$overflow" raked_product '(2,2):(1,2)' '(2,2):(1,4611686018427387904)'
expect_error "local_tile: argument 3 (COORD)|$overflow" local_tile '(4,4):(1,4)' '(2,2)' '(4611686018427387904,1)'
expect_error "partition_C: argument 4 (TENSOR_LAYOUT)|$overflow" partition_C fma '(16,16,1):(16,1,0)' _ '(128,128):(128,4611686018427387904)' 1
# INT64_MIN / -1 used to trap (SIGFPE) and print only "arithmetic fault"
expect_error_without "arithmetic fault" "logical_product: argument 2 (B) \"2:-9223372036854775808\": $overflow" logical_product 2:-1 2:-9223372036854775808
# exact answers next to the limit still come out
expect 0,4611686018427387904 apply 2:4611686018427387904
expect 9223372036854775807 cosize 2:9223372036854775806
expect '(2,(2,4)):(1,(2,4611686018427387904))' logical_divide '(4,4):(1,4611686018427387904)' 2:1

# --- negative strides and inputs CuTe's rules do not cover ----------------------------------------
# CuTe 4.7.0 prints (-1,-1):(1,-4), a negative shape: a complement must be ordered
expect_error "complement: argument 1 (A) \"(4,8):(-1,4)\": a negative stride (the complement needs positive strides)" complement '(4,8):(-1,4)' 24
expect_error "logical_product: argument 1 (A) \"2:-1\": complement: a negative stride" logical_product 2:-1 2:1
# CuTe's answer, and a right inverse: R = 1:0 and A(R(0)) = 0
expect 1:0 right_inverse '(4,8):(-1,4)'
# CuTe 4.7.0 prints (-2,4):(0,1): offsets below 0 are no layout's indices
expect_error "left_inverse: argument 1 (L) \"4:-2\": a negative stride" left_inverse 4:-2
# R(55) of CuTe 3.x's (20,2):(4,1) is 62; CuTe 4.x and Loom refuse it
expect_error "left_inverse: argument 1 (L) \"(2,2):(20,55)\"|divisibility condition" left_inverse '(2,2):(20,55)'
# the thread index 5 is no offset of (2,4):(4,-1): CuTe 4.7.0's coordinate (1,-1) lies outside the
# thread layout, and its partition starts at the offset -7; printed, with the broken property named
expect_warning '(4,2):(2,32)@-7' "local_partition: THR_LAYOUT's coordinates cannot be read back from its offsets|index 5's coordinate (1,-1) lies outside the shape (2,4)" local_partition '(8,8):(1,8)' '(2,4):(4,-1)' 5
expect '(4,2):(2,32)@9' local_partition '(8,8):(1,8)' '(2,4):(4,1)' 5
# (2,2):(1,1) is not injective: CuTe's (1,1) maps back to 2, not 3; printed, with a warning
expect_warning '(1,1)' "get_hier_coord: L's coordinates cannot be read back from its offsets|index 3's coordinate (1,1) maps back to 2, not to 3" get_hier_coord '(2,2):(1,1)' 3
expect_warning '(1,1)' "get_flat_coord: |maps back to 4, not to 3" get_flat_coord '(2,3):(1,3)' 3
# where the coordinate does map back, no warning, even for such a layout
expect '(1,2)' get_hier_coord '(2,4):(1,3)' 7
# a layout with gaps whose coordinates follow from offsets is fine, as in CuTe
expect '((0,1,2))' get_hier_coord '((4,2,6)):((24,12,1))' 14

# --- error messages ---------------------------------------------------------------------------------
expect_error_without "swizzle: swizzle:" "swizzle: argument 1 (B) \"30\": B must be in [0, 23]" swizzle 30 0 30 4
expect_error "swizzle: argument 3 (S) \"30\": B + M + |S| must be at most 61" swizzle 20 20 30 4
expect_error_without "left_inverse: left_inverse:" "left_inverse: argument 1 (L)" left_inverse '(2,2):(20,55)'
# argument 1 is at fault, not argument 2
expect_error "composition: argument 1 (A) \"():()\": a layout with an empty tuple () in its shape at position 1" composition '():()' 4:1
expect_error "composition: argument 2 (B) \"():()\": a layout with an empty tuple ()" composition 4:1 '():()'
expect_error "composition: argument 2 (B) \"()\": the tiler is an empty tuple" composition 64:1 '()'
expect_error "depth: argument 1 (L) \"(4,()):(1,())\": a layout with an empty tuple () in its shape at position 4" depth '(4,()):(1,())'
expect 1 size '():()'
expect 0 rank '():()'
# a long argument is quoted in part, around the position at fault, with its length
long="($(printf '1,%.0s' $(seq 1 20000))x)"
expect_error "size: argument 1 (L) \"...|,1,x)\" (40003 characters): expected an integer, '_' or '(', found 'x' at position 40002" size "$long"
if ((${#_err} > 300)); then
  _failures=$((_failures + 1))
  echo "FAIL: a ${#_err}-character error line for a 40003-character argument"
fi
long_ok="($(printf '1,%.0s' $(seq 1 40))1):($(printf '0,%.0s' $(seq 1 40))0)"
expect_error "size: argument 1 (L) \"(1,1,1,|...\" (167 characters): too many entries" size "$long_ok"
# control characters and line breaks in an argument stay on the one line
expect_error "size: argument 1 (L) \"(4,\\x1b3):(1,2)\": expected an integer, '_' or '(', found '\\x1b' at position 4" size $'(4,\e3):(1,2)'
expect_error "unknown op 'a\\x0ab'" $'a\nb'

finish
