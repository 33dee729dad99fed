#!/usr/bin/env bash
# --help lists every op with an example, every listed example runs, and OP --help works.
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect.sh" "$@"

ops=(size cosize rank depth apply coalesce filter composition complement right_inverse left_inverse
  logical_divide zipped_divide tiled_divide flat_divide logical_product zipped_product tiled_product
  flat_product blocked_product raked_product crd2idx idx2crd get_hier_coord get_flat_coord
  get_1d_coord local_tile local_partition swizzle partition_A partition_B partition_C tma_partition
  draw bank_conflicts coalescing gmma_atom show)

check() {  # check DESCRIPTION CONDITION...
  local what=$1
  shift
  _checks=$((_checks + 1))
  if "$@"; then
    echo "ok:   $what"
  else
    _failures=$((_failures + 1))
    echo "FAIL: $what"
  fi
}

_run --help
help=$_out
check "--help exits 0 with empty stderr" test "$_rc" -eq 0 -a -z "$_err"
for op in "${ops[@]}"; do
  check "--help lists $op with an example" grep -q "e\.g\. loom-layout $op " <<<"$help"
done
examples=$(grep -c 'e\.g\. loom-layout ' <<<"$help")
check "--help has one example per op (${#ops[@]}, found $examples)" test "$examples" -eq "${#ops[@]}"

# Every example in the help runs and prints something.
while IFS= read -r line; do
  cmd=${line#*e.g. loom-layout }
  eval "set -- $cmd"
  _run "$@"
  check "example runs: loom-layout $cmd  ->  ${_out%%$'\n'*}" test "$_rc" -eq 0 -a -n "$_out" -a -z "$_err"
done < <(grep 'e\.g\. loom-layout ' <<<"$help")

# The help says what a warning is and the exit status that goes with it.
check "--help describes the contract warning and its exit status 0" \
  grep -q "one stderr line 'loom-layout: warning: OP: ...' naming the" <<<"$help"
check "--help says a warning exits 0" grep -q "and exit status 0 (the answer is CuTe's" <<<"$help"

_run -h
check "-h exits 0 and prints the same help" test "$_rc" -eq 0 -a "$_out" == "$help"

for op in composition local_partition partition_C swizzle tma_partition; do
  _run "$op" --help
  check "$op --help exits 0 and shows its arguments and an example" \
    test "$_rc" -eq 0 -a -z "$_err" -a "${_out/Example:/}" != "$_out" -a "${_out/Positionals:/}" != "$_out"
done
_run local_tile -h
check "local_tile -h names COORD and STEP" test "$_rc" -eq 0 -a "${_out/COORD/}" != "$_out" -a "${_out/STEP/}" != "$_out"

finish
