#!/usr/bin/env bash
# ctest bench_bad_input: each bad command line gives one line on stderr, naming the problem, and
# exit status 2, before any GPU is touched. Usage: bash bad_input.sh PATH/TO/loom-bench
set -uo pipefail
bench=${1:?usage: bad_input.sh PATH/TO/loom-bench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
checks=0

# expect "ARGS" "SUBSTRING OF THE ERROR LINE"
expect() {
  local args=$1 want=$2 rc
  checks=$((checks + 1))
  # shellcheck disable=SC2086
  "$bench" $args >"$tmp/out" 2>"$tmp/err"
  rc=$?
  local lines
  lines=$(wc -l <"$tmp/err")
  if [[ $rc -ne 2 || $lines -ne 1 || -s $tmp/out ]] || ! grep -qF -- "$want" "$tmp/err"; then
    echo "FAIL: loom-bench $args -> exit $rc, $lines stderr line(s), want one line with: $want"
    sed 's/^/  stderr: /' "$tmp/err"
    sed 's/^/  stdout: /' "$tmp/out"
    fails=$((fails + 1))
  fi
}

expect "--kernels=nope" 'unknown kernel "nope"'
expect "--dtypes=f64" 'unknown dtype "f64"'
expect "--layouts=cxc" 'bad layout "cxc"'
expect "--m=0" "sizes must be positive"
expect "--n=-4" "sizes must be positive"
expect "--m=1:x" 'bad item "1:x"'
expect "--m=8:1" "the end is smaller than the start"
expect "--k=1,,2" "empty item"
expect "--alpha=one" 'bad item "one"'
expect "--warmup=-1" "--warmup"
expect "--no-such-option" "--no-such-option"
expect "--benchmark_no_such_flag=1" "--benchmark_no_such_flag"

# Help and the kernel list need no GPU.
checks=$((checks + 2))
if ! "$bench" --help >"$tmp/out" 2>&1 || ! grep -q -- "--benchmark_filter" "$tmp/out"; then
  echo "FAIL: --help does not exit 0 or does not list the Google Benchmark flags"
  fails=$((fails + 1))
fi
if ! "$bench" --list-kernels >"$tmp/out" 2>&1 || ! grep -q "^add	add	" "$tmp/out"; then
  echo "FAIL: --list-kernels does not list add"
  fails=$((fails + 1))
fi

echo "$((checks - fails)) passed, $fails failed"
[[ $fails -eq 0 ]]
