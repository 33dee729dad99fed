#!/usr/bin/env bash
# ctest bench_llm_sweep: loom-bench --sweep=llm and --sweep=llm-layouts, planned with
# --mode=enumerate (no GPU needed): how many benchmarks, a few of their names, how --m, --dtypes,
# --layouts and --kernels narrow the sweep, that --max-cases still holds, and one-line errors
# (exit 2) for a bad --sweep and for options that do not go with it.
# Usage: bash llm_sweep.sh PATH/TO/loom-bench
set -uo pipefail
bench=${1:?usage: llm_sweep.sh PATH/TO/loom-bench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if grep -Eq "$2" "$tmp/out"; then echo "ok   $1"; else echo "FAIL $1: no /$2/ in:"; head -30 "$tmp/out"; fail=1; fi; }
run() {  # run ARGS...: enumerate at compute capability 9.0, which must succeed quietly
  local rc=0
  "$bench" --mode=enumerate --compute-capability=9.0 "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ $rc -eq 0 && ! -s $tmp/err ]] || { echo "FAIL [$*]: exit $rc, stderr: $(cat "$tmp/err")"; fail=1; }
}
# The sweep runs every registered gemm kernel over the dtypes it takes of bf16 and f16 (which ones,
# --list-kernels says): 70 shapes per (kernel, dtype), and a cuBLAS baseline per (shape, dtype).
per_shape=$("$bench" --list-kernels | awk -F'\t' '$2 == "gemm" { n += ($3 ~ /(^|,)bf16(,|$)/) + ($3 ~ /(^|,)f16(,|$)/) } END { print n + 0 }')
[[ $per_shape -ge 2 ]] || { echo "FAIL: no f16/bf16 gemm kernel in --list-kernels"; exit 1; }
cases=$((70 * per_shape))
total=$((cases + 140))

# 10 M x 7 (N, K) x 2 dtypes = 140 shapes, each with its cuBLAS baseline and its kernels.
run --sweep=llm
check "llm: $total benchmarks" "^enumerate: $total benchmarks would run, 0 not_supported$"
check "llm: cuBLAS at M=1" '^cublas/bf16/rcr/1x4096x4096 +would_run'
check "llm: down projection" '^cublas/f16/rcr/16x4096x11008 +would_run'
check "llm: the largest case" '^cublas/bf16/rcr/8192x28672x8192 +would_run'
check "llm: last (N, K)" '^cublas/f16/rcr/8192x8192x28672 +would_run'
inside=$(grep -Ec '^[^ /]+/(f16|bf16)/rcr/(1|16|64|128|256|512|1024|2048|4096|8192)x(4096x4096|11008x4096|4096x11008|14336x4096|4096x14336|28672x8192|8192x28672) +would_run' "$tmp/out")
if [[ $inside -eq $total ]]; then
  echo "ok   llm: only its dtypes, layout and shapes"
else
  echo "FAIL llm: $inside of $total benchmarks are of the sweep's dtypes, layout and shapes"; fail=1
fi

# --kernels picks kernels; --providers=cublas counts the cases alone.
run --sweep=llm --providers=cublas
check "llm: 140 cases" '^enumerate: 140 benchmarks would run, 0 not_supported$'
run --sweep=llm --providers=cublas --m=128,1024 --dtypes=bf16
check "--m and --dtypes replace the sweep's lists" '^enumerate: 14 benchmarks would run, 0 not_supported$'
run --sweep=llm --providers=cublas --m=3000
check "--m may name an M outside the sweep" '^cublas/bf16/rcr/3000x28672x8192 +would_run'
run --sweep=llm --providers=cublas --layouts=ccc,crr --m=128,1024,8192
check "llm with ccc, crr" '^enumerate: 84 benchmarks would run, 0 not_supported$'
cp "$tmp/out" "$tmp/explicit"
run --sweep=llm-layouts --providers=cublas
check "llm-layouts: 84 benchmarks" '^enumerate: 84 benchmarks would run, 0 not_supported$'
# llm-wide: 10 M x 9 (N, K) of Llama-3-8B, Llama-3-70B and Qwen2.5-7B x 2 dtypes = 180 cases, rcr.
cp "$tmp/out" "$tmp/layouts_out"
run --sweep=llm-wide --providers=cublas
check "llm-wide: 180 cases" '^enumerate: 180 benchmarks would run, 0 not_supported$'
check "llm-wide: Llama-3-70B gate/up at M 6144" '^cublas/bf16/rcr/6144x57344x8192 +would_run'
check "llm-wide: Qwen2.5-7B down at M 1" '^cublas/f16/rcr/1x3584x18944 +would_run'
check "llm-wide: rows labelled with the sweep" 'sweep=llm-wide'
cp "$tmp/layouts_out" "$tmp/out"
check "llm-layouts: crr" '^cublas/bf16/crr/1024x14336x4096 +would_run'
# The same benchmarks; only the label names the sweep each was asked for by.
sed -i 's/sweep=llm-layouts/sweep=llm/' "$tmp/out"
if diff -q "$tmp/out" "$tmp/explicit" >/dev/null; then
  echo "ok   llm-layouts is --sweep=llm --layouts=ccc,crr --m=128,1024,8192"
else
  echo "FAIL llm-layouts differs from --sweep=llm --layouts=ccc,crr --m=128,1024,8192:"; diff "$tmp/out" "$tmp/explicit" | head; fail=1
fi
first=$("$bench" --list-kernels | awk -F'\t' '$2 == "gemm" && $3 ~ /(^|,)bf16(,|$)/ { print $1; exit }')
run --sweep=llm --kernels="$first" --dtypes=bf16 --m=1
check "--kernels=$first" "^$first/bf16/rcr/1x8192x28672 +would_run"
check "--kernels=$first: 7 cases" '^enumerate: 14 benchmarks would run, 0 not_supported$'

# Bad input: one line on stderr naming the argument, nothing on stdout, exit status 2.
expect() {  # expect "SUBSTRING OF THE ERROR LINE" ARGS...
  local want=$1 rc=0
  shift
  "$bench" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  if [[ $rc -ne 2 || $(wc -l <"$tmp/err") -ne 1 || -s $tmp/out ]] || ! grep -qF -- "$want" "$tmp/err"; then
    echo "FAIL [$*]: exit $rc, want one line with: $want"; sed 's/^/  stderr: /' "$tmp/err"; fail=1
  else
    echo "ok   [$*]: $(cat "$tmp/err")"
  fi
}
expect 'loom-bench: --sweep: unknown sweep "foo" (known: llm, llm-layouts, llm-wide)' --sweep=foo
expect 'loom-bench: --sweep: unknown sweep "llm-ragged"' --sweep=llm-ragged
expect 'loom-bench: --sweep: unknown sweep "foo"' --mode=enumerate --sweep=foo
expect '--sweep: unknown sweep ""' --sweep ''
expect '--sweep=llm sets N and K (its (N, K) pairs); --n and --k do not go with it' --sweep=llm --n=4096
expect '--sweep=llm-layouts sets N and K' --mode=enumerate --sweep=llm-layouts --k=4096
expect '--sweep=llm-wide sets N and K' --sweep=llm-wide --n=4096
other=$("$bench" --list-kernels | awk -F'\t' '$2 != "gemm" { print $1; exit }')
if [[ -n $other ]]; then
  expect '--sweep=llm times gemm kernels, and no selected kernel is one' --mode=enumerate --sweep=llm --kernels="$other"
fi
expect "the sweep has $cases cases, more than the limit of 100;" --mode=enumerate --sweep=llm --max-cases=100
expect 'the sweep has 7000000 cases, more than the limit of 10000' --mode=enumerate --sweep=llm --kernels="$first" --dtypes=bf16 --m=1:1000000
expect 'sizes must be positive' --sweep=llm --m=0
exit $fail
