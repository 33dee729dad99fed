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
# 8-bit inputs: the report's names; --scale's mistakes refused before anything else happens:
# block scales on 16-bit inputs or with the fast accumulation mode, an axis that applies to nothing.
expect "--dtypes=e4m3xe4m3" '--dtypes: unknown dtype "e4m3xe4m3" (known: f32, f16, bf16, e4m3, e5m2, e4m3xe5m2, e5m2xe4m3, e4m3-fast, '
expect "--dtypes=e4m3xe4m3" 'e4m3xe5m2-fast, e5m2xe4m3-fast, e4m3-block, e5m2-block, e4m3xe5m2-block, e5m2xe4m3-block)'
expect "--dtypes=f16-fast" 'unknown dtype "f16-fast"'
expect "--dtypes=bf16-block" '--dtypes: "bf16-block": block scales are for 8-bit inputs (e4m3, e5m2, e4m3xe5m2, e5m2xe4m3), not bf16'
expect "--dtypes=e4m3-fast-block" '--dtypes: "e4m3-fast-block": block scales need the promoted accumulation'
expect "--dtypes=e4m3-block-fast" 'name e4m3-block or e4m3-fast'
expect "--dtypes=bf16 --scale=block" '--scale is for 8-bit inputs, and --dtypes names none'
expect "--scale=block" '--scale is for 8-bit inputs, and --dtypes names none'
expect "--kernels=gemm --dtypes=e4m3-fast --m=4096 --scale=block" '--scale=block does not go with e4m3-fast: block scales need the promoted accumulation'
expect "--dtypes=e4m3,e4m3xe5m2-fast --scale=tensor,block" '--scale=block does not go with e4m3xe5m2-fast'
expect "--dtypes=e4m3-block --scale=tensor" '--scale is for 8-bit inputs named without -block'
expect "--dtypes=e4m3 --scale=rows" '--scale is tensor or block (or a comma list of both), found "rows"'
expect "--dtypes=e4m3 --scale=tensor,,block" '--scale: bad item'
expect "--dtypes=bf16 --scale=tensor" '--scale is for 8-bit inputs, and --dtypes names none'
# --out-dtypes as loom-validate takes it: the names the reports print, and outputs of the sweep's
# gemm inputs only (a value none of them writes would be ignored).
expect "--out-dtypes=half" '--out-dtypes: unknown dtype "half" (known: f32, f16, bf16)'
expect "--dtypes=e4m3 --out-dtypes=e4m3" '--out-dtypes: unknown dtype "e4m3" (known: f32, f16, bf16)'
expect "--kernels=add --out-dtypes=f32" "--out-dtypes is for gemm with f16, bf16 or 8-bit inputs, and the sweep has none"
expect "--dtypes=f32 --out-dtypes=f16" "--out-dtypes is for gemm with f16, bf16 or 8-bit inputs, and the sweep has none"
expect "--dtypes=f16 --out-dtypes=bf16" "--out-dtypes: bf16 is no output of the sweep's gemm inputs (f16: f16 or f32)"
expect "--sweep=llm --dtypes=bf16 --out-dtypes=f16" "--out-dtypes: f16 is no output of the sweep's gemm inputs (bf16: bf16 or f32)"
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

# Issue 12: every option, Google Benchmark's included, is checked before the GPU is looked for; a
# sweep is counted before it is built (--m=1:1000 --n=1:1000 --k=1:1000 died of std::bad_alloc).
expect "--min-time=nan" "--min-time: expected seconds in [1e-06, 3600], found nan"
expect "--benchmark_min_time=-1" "--benchmark_min_time=-1: expected a positive number of seconds"
expect "--benchmark_min_time=abc" "--benchmark_min_time=abc: expected a positive number"
expect "--benchmark_repetitions=-1" "--benchmark_repetitions=-1: expected a whole number of repetitions"
expect "--benchmark_filter=[" "--benchmark_filter=[: not a regular expression"
expect "--benchmark_out=/nonexistent/dir/x.json" "--benchmark_out=/nonexistent/dir/x.json: cannot write the file: no directory /nonexistent/dir"
expect "--benchmark_format=xml" "--benchmark_format=xml: expected console, json or csv"
expect "--benchmark_out_format=xml" "--benchmark_out_format=xml: expected console, json or csv"
expect "--list-kernels=2" '--list-kernels takes no value, found "--list-kernels=2"'
expect "--m=1:1000 --n=1:1000 --k=1:1000" "the sweep has 9003000000 cases, more than the limit of 10000; narrow it, or raise the limit with --max-cases"
expect "--m=1:1000000 --n=1:1000000" "the sweep has 12000000000000 cases"
expect "--kernels=add --m=1:5 --n=1:5 --max-cases=10" "the sweep has 75 cases, more than the limit of 10"

# expect_argv WANT ARG...: as expect, for arguments with blanks or line breaks in them.
expect_argv() {
  local want=$1 rc lines
  shift
  checks=$((checks + 1))
  "$bench" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  lines=$(wc -l <"$tmp/err")
  if [[ $rc -ne 2 || $lines -ne 1 || -s $tmp/out ]] || ! grep -qF -- "$want" "$tmp/err"; then
    echo "FAIL: loom-bench $* -> exit $rc, $lines stderr line(s), want one line with: $want"
    sed 's/^/  stderr: /' "$tmp/err"
    fails=$((fails + 1))
  fi
}
expect_argv "--benchmark_min_time=1; 2: expected a positive number" --benchmark_min_time=$'1\n2'
# --tags: each malformed tag is one line naming it.
expect_argv '--tags: "gpu" is not key:value' --tags=gpu
expect_argv '--tags: "80GB" is not key:value (tags are separated by commas, so a value cannot hold one)' --tags=gpu:h100,80GB
expect_argv '--tags: ":h100" has an empty key' --tags=:h100
expect_argv '--tags: "gpu:" has an empty value' --tags=gpu:
expect_argv '--tags: the value of "gpu" holds a line break' --tags=$'gpu:h1\n00'
expect_argv "--tags: the value of \"gpu\" holds ';'" --tags='gpu:a;b'
expect_argv '--tags: key "gpu" is given twice' --tags=gpu:a,run:1,gpu:b
expect_argv '--tags: key "path" is one of the report'"'"'s own fields' --tags=path:x
expect_argv '--tags: key "m" is one of the report'"'"'s own fields' --mode=enumerate --tags=m:1
expect_argv 'unknown kernel "a; b"' --kernels=$'a\nb'

# Google Benchmark reads any value of a boolean flag it does not know as true, and leaves a
# malformed --benchmark_context or --v in argv: each gets its own line here.
for flag in list_tests enable_random_interleaving report_aggregates_only display_aggregates_only counters_tabular; do
  expect "--benchmark_$flag=maybe" "--benchmark_$flag=maybe: expected true or false"
done
expect "--benchmark_color=x" "--benchmark_color=x: expected auto, true or false"
expect "--benchmark_context=gpu" '--benchmark_context=gpu: expected key=value[,key=value...], found "gpu"'
expect "--benchmark_context=a=1,b" 'found "b"'
expect "--v=x" "--v=x: expected a whole number (the log verbosity)"
# The values these flags take still pass, to the sweep's own check.
expect "--benchmark_counters_tabular=true --benchmark_color=auto --benchmark_context=a=1 --v=1 --max-cases=1" "the sweep has"
expect "--benchmark_list_tests --max-cases=1" "the sweep has"

# A value the run would ignore is an error too: --max-cases holds for the default sweep, --k, --plans
# and --providers=memcpy must reach a selected kernel, and --list and --list-kernels print the same
# text whatever else is given.
expect "--max-cases=1" "cases, more than the limit of 1;"
expect "--kernels=add --max-cases=15" "the sweep has 16 cases, more than the limit of 15"
expect "--kernels=add --k=5" "--k: K is gemm's, and no selected kernel computes gemm"
expect "--kernels=add --plans=2" "--plans: no selected kernel plans its problems with a model"
expect "--kernels=sm90 --plan-set=shapes" "--plan-set: it picks which plans --plans=N times; give --plans"
expect "--kernels=sm90 --plans=2 --plan-set=all" "--plan-set"
expect "--kernels=sm90 --plan-shapes=33" "--plan-shapes: it filters the plans --plans=N times; give --plans"
expect "--kernels=sm90 --providers=memcpy" "--providers: memcpy is the copy ceiling of add, and no selected kernel computes add"
expect "--list --dtypes=half" "--list lists every kernel and takes no other option, found --dtypes"
expect "--list-kernels --providers=x" "--list-kernels lists every kernel and takes no other option, found --providers"
expect "--kernels=add,sm90 --k=5 --plans=2 --providers=loom,memcpy --max-cases=1" "the sweep has"
# --out-dtypes multiplies the cases it applies to, and is counted with them.
expect "--dtypes=f16 --out-dtypes=f32,f16 --max-cases=1" "the sweep has"
expect "--kernels=sm80 --dtypes=bf16 --m=4096 --out-dtypes=bf16,f32 --max-cases=1" "the sweep has 2 cases, more than the limit of 1"

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
