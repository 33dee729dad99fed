#!/usr/bin/env bash
# --sweep=llm, llm-ragged, llm-wide and llm-wide-ragged: gemm over transformer-layer shapes
# (harness/named_sweeps.hpp, harness::llm_validate_sweep), listed with --mode=enumerate, no GPU needed.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" "$@"

check() {  # name, file, regex
  if grep -Eq "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1: no /$3/ in:"; head -20 "$2"; FAILS=$((FAILS + 1)); fi
}

# 7 M x 7 (N, K) x 8 layouts = 392 cases per kernel; dtype and alpha/beta alternate.
"$VALIDATE" --mode=enumerate --compute-capability=90 --sweep=llm --kernels=gemm >"$TMP/out" 2>"$TMP/err"
check "llm: count" "$TMP/out" '^enumerate: 392 cases, 392 would run, 0 not_supported$'
check "llm: a decode shape" "$TMP/out" '^gemm/f16/rcr/1x4096x14336/alpha=1\.5/beta=0\.5/ld=[0-9,]+ '
check "llm: a prefill shape" "$TMP/out" '^gemm/f16/rcr/1024x4096x4096/alpha=1\.5/beta=0\.5/ld=[0-9,]+ '
if grep -Eq '^gemm/[a-z0-9]+/[cr]{3}/2048x' "$TMP/out"; then
  echo "FAIL llm: M above 1024"; FAILS=$((FAILS + 1))
else
  echo "ok   llm: M up to 1024"
fi

# Each layout meets both dtypes and both alpha/beta pairs.
"$VALIDATE" --mode=enumerate --compute-capability=90 --sweep=llm --kernels=gemm --format=csv >"$TMP/csv" 2>"$TMP/err"
ld=$(awk -F, 'NR > 1 {print $6, $4}' "$TMP/csv" | sort -u | wc -l)
lab=$(awk -F, 'NR > 1 {print $6, $14, $15}' "$TMP/csv" | sort -u | wc -l)
[[ $ld -eq 16 && $lab -eq 16 ]] && echo "ok   llm: every layout x dtype and x alpha/beta" ||
  { echo "FAIL llm: $ld layout-dtype and $lab layout-alpha/beta pairs, want 16 each"; FAILS=$((FAILS + 1)); }

# Ragged: one shape per (M, (N, K)), each size off by 1 to 7 from the listed one.
"$VALIDATE" --mode=enumerate --compute-capability=90 --sweep=llm-ragged --kernels=gemm --dtypes=bf16 --layouts=rcr \
  --format=csv >"$TMP/out" 2>"$TMP/err"
rows=$(grep -c '^gemm/' "$TMP/out")
[[ $rows -eq 49 ]] && echo "ok   llm-ragged: 49 shapes" || { echo "FAIL llm-ragged: $rows rows"; FAILS=$((FAILS + 1)); }
bad=$(awk -F, 'NR > 1 {
  m = $7; n = $8; k = $9; ok = 0
  split("1 16 64 128 256 512 1024", ms, " "); for (i in ms) if (m - ms[i] >= 1 && m - ms[i] <= 7) ok++
  split("4096 11008 14336 28672 8192", ns, " "); for (i in ns) { if (ns[i] - n >= 1 && ns[i] - n <= 7) ok++; if (k - ns[i] >= 1 && k - ns[i] <= 7) ok++ }
  if (ok != 3) print $1 }' "$TMP/out" | head -3)
[[ -z $bad ]] && echo "ok   llm-ragged: every size off by 1..7" || { echo "FAIL llm-ragged: $bad"; FAILS=$((FAILS + 1)); }

# The sweep's lists give way to explicit ones, as the default sweep's do.
"$VALIDATE" --mode=enumerate --compute-capability=90 --sweep=llm --kernels=gemm --dtypes=bf16 --layouts=ccc --m=64 \
  --alpha=1 --beta=0 >"$TMP/out" 2>"$TMP/err"
check "llm: narrowed" "$TMP/out" '^enumerate: 7 cases, 7 would run, 0 not_supported$'

# llm-wide: 7 M up to 1024 (1, 4, 32, 96, 160, 384, 640) x 9 (N, K) x 8 layouts = 504 cases.
"$VALIDATE" --mode=enumerate --compute-capability=90 --sweep=llm-wide --kernels=gemm >"$TMP/out" 2>"$TMP/err"
check "llm-wide: count" "$TMP/out" '^enumerate: 504 cases, 504 would run, 0 not_supported$'
check "llm-wide: Llama-3-70B gate/up" "$TMP/out" '^gemm/(bf|f)16/[cr]{3}/640x57344x8192/'
check "llm-wide: Qwen2.5-7B down" "$TMP/out" '^gemm/(bf|f)16/[cr]{3}/1x3584x18944/'
if grep -Eq '^gemm/[a-z0-9]+/[cr]{3}/(1536|2560|6144)x' "$TMP/out"; then
  echo "FAIL llm-wide: M above 1024"; FAILS=$((FAILS + 1))
else
  echo "ok   llm-wide: M up to 1024"
fi
"$VALIDATE" --mode=enumerate --compute-capability=90 --sweep=llm-wide-ragged --kernels=gemm --dtypes=bf16 --layouts=rcr \
  --format=csv >"$TMP/out" 2>"$TMP/err"
rows=$(grep -c '^gemm/' "$TMP/out")
[[ $rows -eq 63 ]] && echo "ok   llm-wide-ragged: 63 shapes" || { echo "FAIL llm-wide-ragged: $rows rows"; FAILS=$((FAILS + 1)); }
bad=$(awk -F, 'NR > 1 && ($8 % 2 == 0 || $9 % 2 == 0) { r = $8 % 8 == 0 || $9 % 8 == 0; if (r) print $1 }' "$TMP/out" | head -3)
[[ -z $bad ]] && echo "ok   llm-wide-ragged: N and K off the listed sizes" || { echo "FAIL llm-wide-ragged: $bad"; FAILS=$((FAILS + 1)); }

expect_bad_input 'unknown sweep "foo" (known: llm, llm-ragged, llm-wide, llm-wide-ragged)' --sweep=foo
expect_bad_input 'unknown sweep "llm-layouts"' --sweep=llm-layouts
expect_bad_input '--n and --k do not go with it' --sweep=llm --k=64
expect_bad_input 'is a gemm sweep; --op=add does not go with it' --sweep=llm --op=add
expect_bad_input 'kernel add computes add, not gemm' --sweep=llm --kernels=add
finish
