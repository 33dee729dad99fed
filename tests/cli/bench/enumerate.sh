#!/usr/bin/env bash
# loom-bench --mode=enumerate lists what a command would time, with or without a GPU, and times
# nothing: every benchmark would_run, and what the GPU (--compute-capability) cannot run as
# not_supported with the reason.
set -uo pipefail
set -f  # the loop below passes globs such as --kernels=x* unquoted
bench=${1:?usage: $0 <path to loom-bench>}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if grep -Eq "$2" "$tmp/out"; then echo "ok   $1"; else echo "FAIL $1: no /$2/ in:"; head -30 "$tmp/out"; fail=1; fi; }

rc=0
"$bench" --mode=enumerate --kernels=sm90,sm80 --dtypes=bf16 --layouts=rcr --m=4096 --compute-capability=8.0 >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 0 && ! -s $tmp/err ]] || { echo "FAIL: exit $rc, stderr: $(cat "$tmp/err")"; fail=1; }
check "baseline" '^cublas/bf16/rcr/4096x4096x4096 +would_run'
check "sm80 runs at 8.0" '^sm80/bf16/rcr/4096x4096x4096 +would_run'
check "sm90 does not at 8.0" '^sm90/bf16/rcr/4096x4096x4096 +not_supported +4096 +4096 +4096 +sm90 needs compute capability 9\.0'
check "summary" '^enumerate: 2 benchmarks would run, 1 not_supported$'
# Each row's fields: m, n, k (its counters) and the label's dtype and layout.
check "fields: kernel" '^sm80/bf16/rcr/4096x4096x4096 +would_run +4096 +4096 +4096 +dtype=bf16; layout=rcr$'

"$bench" --mode=enumerate --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
check "default sweep at 9.0" '^enumerate: [0-9]+ benchmarks would run, 0 not_supported$'

# The configuration a kernel with several paths would pick (KernelInfo::plan), on the host alone.
"$bench" --mode=enumerate --kernels=gemm,sm90 --dtypes=bf16 --layouts=rcr --m=1,128 --n=4096 --k=4096 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
check "plan: gemm takes sm90's TMA path" '^  plan: sm90: tma [0-9]+x[0-9]+'
check "plan: sm90's own" '^  plan: tma [0-9]+x[0-9]+'
check "plan: gemm at M = 1 takes skinny" '^  plan: skinny$'
check "plan: sm90 swaps M = 1" '^  plan: tma [0-9]+x[0-9]+ swap-AB'
[[ $(grep -c '^  plan: ' "$tmp/out") -eq 4 ]] && echo "ok   plan: one line per kernel row" || { echo "FAIL plan lines: $(grep -c '^  plan: ' "$tmp/out")"; fail=1; }
"$bench" --mode=enumerate --kernels=gemm,sm90 --dtypes=bf16,f32 --layouts=ccc --m=1 --n=4096 --k=4096 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
check "plan: ccc at M = 1 (lda = 1, one row) takes TMA in sm90" '^  plan: tma [0-9]+x[0-9]+'
check "plan: ccc at M = 1 takes skinny in gemm" '^  plan: skinny$'
check "plan: fp32 is fma" '^  plan: fma$'
"$bench" --mode=enumerate --kernels=gemm --dtypes=bf16 --layouts=rrr --m=1 --n=4096 --k=4096 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
check "plan: rrr at M = 1 (B n-contiguous) is not skinny's" '^  plan: sm90: tma [0-9]+x[0-9]+'
"$bench" --mode=enumerate --kernels=gemm --dtypes=bf16 --layouts=ccc --m=2 --n=4096 --k=4096 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
check "plan: ccc at M = 2 (lda = 2, packed) takes skinny" '^  plan: skinny$'
"$bench" --mode=enumerate --kernels=gemm --dtypes=bf16 --layouts=rcr --m=2 --n=4096 --k=4095 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
check "plan: lda = 4095 goes to sm80" '^  plan: sm90: sm80 \(lda is not a multiple of 8 elements\)$'
# --sms plans for a named card: an H100 PCIe's 114 SMs change some of the llm sweep's picks (fewer
# clusters a wave), and the picks of 132 SMs are the default's without a GPU.
"$bench" --mode=enumerate --sweep=llm --kernels=gemm --dtypes=bf16 --layouts=rcr --compute-capability=9.0 --sms=132 | grep '^  plan' >"$tmp/p132"
"$bench" --mode=enumerate --sweep=llm --kernels=gemm --dtypes=bf16 --layouts=rcr --compute-capability=9.0 --sms=114 | grep '^  plan' >"$tmp/p114"
[[ -s $tmp/p132 ]] && ! cmp -s "$tmp/p132" "$tmp/p114" && echo "ok   --sms: 114 SMs plan differently from 132" ||
  { echo "FAIL --sms: the same plans for 114 and 132 SMs"; fail=1; }
[[ $(wc -l <"$tmp/p132") -eq $(wc -l <"$tmp/p114") ]] && echo "ok   --sms: a plan line per row either way" || { echo "FAIL --sms: plan lines differ in number"; fail=1; }
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  "$bench" --mode=enumerate --sweep=llm --kernels=gemm --dtypes=bf16 --layouts=rcr --compute-capability=9.0 | grep '^  plan' >"$tmp/pdef"
  cmp -s "$tmp/p132" "$tmp/pdef" && echo "ok   --sms: without a GPU the default is 132" || { echo "FAIL --sms: the default without a GPU is not 132's"; fail=1; }
fi
"$bench" --mode=enumerate --kernels=gemm --dtypes=bf16 --layouts=rcr --m=256 --compute-capability=8.0 >"$tmp/out" 2>"$tmp/err"
check "plan at 8.0: sm80" '^  plan: sm80$'

# --kernels globs, --ignore-kernels, --providers.
"$bench" --mode=enumerate --kernels='sm*' --ignore-kernels=sm80 --dtypes=bf16 --layouts=rcr --m=4096 --compute-capability=90 >"$tmp/out" 2>"$tmp/err"
check "glob and ignore" '^enumerate: 2 benchmarks would run, 0 not_supported$'
check "glob: sm90" '^sm90/bf16/rcr/4096x4096x4096 +would_run'
"$bench" --mode=enumerate --kernels=add --dtypes=f32 --m=2048 --providers=loom >"$tmp/out" 2>"$tmp/err"
check "providers=loom: no baselines" '^enumerate: 1 benchmarks would run, 0 not_supported$'
"$bench" --mode=enumerate --kernels=add --dtypes=f32 --m=2048 --providers=cublas,memcpy >"$tmp/out" 2>"$tmp/err"
check "providers=cublas,memcpy" '^memcpy_d2d/f32/ccc/2048x2048x0 +would_run'
check "providers=cublas,memcpy: no kernel" '^enumerate: 2 benchmarks would run, 0 not_supported$'

# Whatever the name says: a gemm's K, add's K of 0, the f16 case's fp32 geam baseline.
"$bench" --mode=enumerate --kernels=add,fma --dtypes=f16,f32 --layouts=crr --m=1024 --n=3000 --k=77 --beta=0.5 >"$tmp/out" 2>"$tmp/err"
check "fields: gemm" '^fma/f32/crr/1024x3000x77 +would_run +1024 +3000 +77 +dtype=f32; layout=crr$'
check "fields: add" '^add/f16/crr/1024x3000x0 +would_run +1024 +3000 +0 +dtype=f16; layout=crr$'
check "fields: the fp32 baseline of f16 add is an f16 row" '^cublas/f16/crr/1024x3000x0 +would_run +1024 +3000 +0 +dtype=f16; layout=crr; fp32 geam \(cuBLAS has no f16 geam\)$'

# --tags: key=value in every row's label, after the named sweep's own fields.
"$bench" --mode=enumerate --kernels=sm80 --dtypes=bf16 --layouts=rcr --m=4096 --tags='gpu:h100 sxm,run:3' >"$tmp/out" 2>"$tmp/err"
check "tags: baseline label" '^cublas/bf16/rcr/4096x4096x4096 +would_run +.*gpu=h100 sxm; run=3$'
check "tags: kernel label" '^sm80/bf16/rcr/4096x4096x4096 +would_run +.*gpu=h100 sxm; run=3$'
"$bench" --mode=enumerate --sweep=llm --kernels=sm80 --dtypes=bf16 --m=1 --tags=gpu:h100 >"$tmp/out" 2>"$tmp/err"
check "tags after sweep=llm" '^sm80/bf16/rcr/1x4096x4096 +would_run +.*sweep=llm; gpu=h100$'

# --out-dtypes: gemm's D and C in another type, each a case of its own named .../out=O (a case of
# the default output keeps its name), labelled out_dtype=O, beside a cuBLAS baseline of the same
# type, with a repro that names it; f32 gemm writes f32 whatever the list holds.
"$bench" --mode=enumerate --kernels=sm80,fma --dtypes=bf16,f32 --out-dtypes=bf16,f32 --layouts=rcr --m=4096 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
check "out: the default output's row" '^sm80/bf16/rcr/4096x4096x4096 +would_run +4096 +4096 +4096 +dtype=bf16; layout=rcr$'
check "out: f32 row" '^sm80/bf16/rcr/4096x4096x4096/out=f32 +would_run +4096 +4096 +4096 +dtype=bf16; layout=rcr; out_dtype=f32$'
check "out: f32 baseline" '^cublas/bf16/rcr/4096x4096x4096/out=f32 +would_run +4096 +4096 +4096 +dtype=bf16; layout=rcr; out_dtype=f32$'
check "out: f32 repro" '^  repro: loom-bench --kernels=sm80 --dtypes=bf16 --out-dtypes=f32 --layouts=rcr --m=4096 --n=4096 --k=4096 --alpha=1 --beta=0$'
check "out: f32 inputs" '^fma/f32/rcr/4096x4096x4096 +would_run +4096 +4096 +4096 +dtype=f32; layout=rcr$'
check "out: summary" '^enumerate: 6 benchmarks would run, 0 not_supported$'
# Not a sweep list: the default sweep and a named one take it too.
"$bench" --mode=enumerate --kernels=sm80 --out-dtypes=f32 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
check "out: the default sweep" '^sm80/bf16/ccc/4096x4096x4096/out=f32 +would_run .*dtype=bf16; layout=ccc; out_dtype=f32$'
! grep -Eq '^sm80/[^ ]*/[0-9]+x[0-9]+x[0-9]+ ' "$tmp/out" && echo "ok   out: no default-output row left" || { echo "FAIL out: default-output rows with --out-dtypes=f32"; fail=1; }
"$bench" --mode=enumerate --sweep=llm --kernels=sm80 --dtypes=bf16 --m=1 --out-dtypes=f32 >"$tmp/out" 2>"$tmp/err"
check "out: --sweep=llm" '^sm80/bf16/rcr/1x4096x4096/out=f32 +would_run .*dtype=bf16; layout=rcr; out_dtype=f32; sweep=llm$'

# --list: loom-validate's table (header, dtypes, minimum compute capability).
"$bench" --list >"$tmp/out" 2>"$tmp/err"
check "--list header" '^kernel +op +dtypes +min_cc +description$'
check "--list sm90" '^sm90 +gemm +f16, bf16(, e4m3, e5m2)? +9\.0 '

for args in "--list=1" "--repro=1" "--repro --kernels=x*" "--mode=enumerate --kernels=x*" "--mode=enumerate --providers=foo" "--mode=enumerate --kernels=sm90 --ignore-kernels=sm*" "--mode=enumerate --compute-capability=nine" "--mode=time" "--compute-capability=90" "--mode=enumerate --sms=0" "--mode=enumerate --sms=x" "--sms=114" "--mode=enumerate --card=h300" "--card=h200"; do
  rc=0
  # shellcheck disable=SC2086
  "$bench" $args >"$tmp/out" 2>"$tmp/err" || rc=$?
  if [[ $rc -ne 2 || $(wc -l <"$tmp/err") -ne 1 || -s $tmp/out ]]; then
    echo "FAIL [$args]: exit $rc, stderr: $(cat "$tmp/err")"; fail=1
  else
    echo "ok   [$args]: $(cat "$tmp/err")"
  fi
done
# --card plans for a named GPU: an H200's faster memory changes some of the llm sweep's picks, an
# H100 SXM's clocks and bus are the default's without a GPU, and --sms overrides the card's SM count.
# The card's clusters resident are what it measured (an H100 SXM holds 39 clusters of three, not
# 132 / 3), and with --sms the SM count over the size.
"$bench" --mode=enumerate --sweep=llm-wide --kernels=gemm --dtypes=bf16 --layouts=rcr --compute-capability=9.0 --card=h100-sxm | grep '^  plan' >"$tmp/c100"
"$bench" --mode=enumerate --sweep=llm-wide --kernels=gemm --dtypes=bf16 --layouts=rcr --compute-capability=9.0 --card=h200 | grep '^  plan' >"$tmp/c200"
[[ -s $tmp/c100 ]] && ! cmp -s "$tmp/c100" "$tmp/c200" && echo "ok   --card: an H200 plans differently from an H100 SXM" ||
  { echo "FAIL --card: h200 and h100-sxm plan alike"; fail=1; }
"$bench" --mode=enumerate --sweep=llm --kernels=gemm --dtypes=bf16 --layouts=rcr --compute-capability=9.0 --card=h100-sxm --sms=114 | grep '^  plan' >"$tmp/c114"
cmp -s "$tmp/c114" "$tmp/p114" && echo "ok   --card: --sms overrides its SM count" || { echo "FAIL --card --sms=114 plans unlike --sms=114"; fail=1; }
for c in "--card=h100-sxm:132/66/39/30/22/17/15/15" "--card=h200:132/66/44/30/26/22/18/15" "--card=h100-sxm --sms=114:114/57/38/28/22/19/16/14"; do
  got=$("$bench" --mode=enumerate --kernels=sm90 --plans=1 --dtypes=bf16 --layouts=rcr --m=384 --n=6144 --k=4096 --compute-capability=9.0 ${c%%:*} | grep -m1 -o 'clusters=[0-9/]*')
  [[ $got == "clusters=${c#*:}" ]] && echo "ok   ${c%%:*}: $got" || { echo "FAIL ${c%%:*}: $got, not clusters=${c#*:}"; fail=1; }
done

# --plans=N: the model's N best plans as rows of their own, the first the model's choice (the plan
# the kernel's own row takes), each labelled with its spec, its words and the model's estimate.
"$bench" --mode=enumerate --kernels=sm90 --plans=3 --dtypes=bf16 --layouts=rcr --m=64 --n=4096 --k=4096 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
check "plans: a row per plan" '^sm90\[plan=[0-9]+:[0-9]+:[01]:[012]\]/bf16/rcr/64x4096x4096 +would_run .*plan=[0-9:]+; plan_desc=[0-9]+x[0-9]+.*; estimate_us=[0-9.]+'
[[ $(grep -c '^sm90\[plan=' "$tmp/out") -eq 3 ]] && echo "ok   plans: three rows" || { echo "FAIL plans rows: $(grep -c '^sm90\[plan=' "$tmp/out")"; fail=1; }
first=$(grep -m1 -o 'plan_desc=[^;]*' "$tmp/out" | cut -d= -f2)
grep -q "^  plan: tma $first\$" "$tmp/out" && echo "ok   plans: the first is the model's choice" || { echo "FAIL plans: first is $first, the kernel's plan is $(grep -m1 '^  plan: ' "$tmp/out")"; fail=1; }
# --plan-set=shapes: the best plan of each kind (tile shape, orientation; whole, K split for every
# tile, the last wave split), however the model rates the shape: at 64 x 4096 x 4096 every shape of
# the menu the plan offers (36; the six forced-only ones, min_m kForcedOnly, never) takes rcr in both
# orientations, but 64x80_2x2 swapped only (its min_m is 1024; 64
# is every other shape's), so each is timed whole both ways (71), and no kind twice; the first is
# still the model's choice, and N caps the rows.
"$bench" --mode=enumerate --kernels=sm90 --plans=1000 --plan-set=shapes --dtypes=bf16 --layouts=rcr --m=64 --n=4096 --k=4096 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
shapes=$(grep -c '^sm90\[plan=[0-9]*:1:[01]:0\]' "$tmp/out")
[[ $shapes -eq 71 ]] && echo "ok   plan-set: every shape whole, both ways (71)" ||
  { echo "FAIL plan-set: $shapes whole plans, not 71"; fail=1; }
kinds=$(grep -o '^sm90\[plan=[0-9]*:[0-9]*:[01]:[012]' "$tmp/out" | sed -E 's/^sm90\[plan=([0-9]+):([0-9]+):([01]):([012])/\1 \3 \4 \2/' |
  awk '{print $1, $2, $3, ($3 == 0 && $4 > 1) ? "split" : "one"}' | sort | uniq -d | wc -l)
[[ $kinds -eq 0 ]] && echo "ok   plan-set: no kind twice" || { echo "FAIL plan-set: $kinds kinds timed twice"; fail=1; }
first=$(grep -m1 -o 'plan_desc=[^;]*' "$tmp/out" | cut -d= -f2)
grep -q "^  plan: tma $first\$" "$tmp/out" && echo "ok   plan-set: the first is the model's choice" || { echo "FAIL plan-set: first is $first"; fail=1; }
"$bench" --mode=enumerate --kernels=sm90 --plans=5 --plan-set=shapes --dtypes=bf16 --layouts=rcr --m=64 --n=4096 --k=4096 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
[[ $(grep -c '^sm90\[plan=' "$tmp/out") -eq 5 ]] && echo "ok   plan-set: --plans=5 caps it" || { echo "FAIL plan-set rows with --plans=5: $(grep -c '^sm90\[plan=' "$tmp/out")"; fail=1; }
# --plan-shapes: only the shapes named (the clusters of four at 300 x 5120 x 13824, whole, split
# and swapped), each kind once with --plan-set=shapes, and N caps them.
"$bench" --mode=enumerate --kernels=sm90 --plans=100 --plan-set=shapes --plan-shapes=33,34,35 --dtypes=bf16 --layouts=rcr --m=300 --n=5120 --k=13824 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
rows=$(grep -c '^sm90\[plan=' "$tmp/out"); others=$(grep '^sm90\[plan=' "$tmp/out" | grep -vc '^sm90\[plan=3[345]:')
[[ $rows -ge 3 && $others -eq 0 ]] && echo "ok   plan-shapes: $rows plans, all of 33-35" || { echo "FAIL plan-shapes: $rows rows, $others of other shapes"; fail=1; }
"$bench" --mode=enumerate --kernels=sm90 --plans=2 --plan-shapes=34 --dtypes=bf16 --layouts=rcr --m=300 --n=5120 --k=13824 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
[[ $(grep -c '^sm90\[plan=34:' "$tmp/out") -eq 2 && $(grep -c '^sm90\[plan=' "$tmp/out") -eq 2 ]] && echo "ok   plan-shapes: --plans=2 caps it" ||
  { echo "FAIL plan-shapes with --plans=2: $(grep -c '^sm90\[plan=' "$tmp/out") rows"; fail=1; }
# A shape named is timed where the model does not offer it: 40 (256x104 on 4x1) is offered at 192-1024
# tokens (min_n, max_n), and --plan-shapes=40 times it at 2048, swapped and not; without
# --plan-shapes the model does not weigh it there.
"$bench" --mode=enumerate --kernels=sm90 --plans=100 --plan-set=shapes --plan-shapes=40 --dtypes=bf16 --layouts=rcr --m=2048 --n=6144 --k=5120 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
[[ $(grep -c '^sm90\[plan=40:[0-9]*:1:' "$tmp/out") -ge 1 && $(grep -c '^sm90\[plan=40:[0-9]*:0:' "$tmp/out") -ge 1 && $(grep '^sm90\[plan=' "$tmp/out" | grep -vc '^sm90\[plan=40:') -eq 0 ]] &&
  echo "ok   plan-shapes: a shape named is timed where it is not offered" || { echo "FAIL plan-shapes 40: $(grep -c '^sm90\[plan=' "$tmp/out") rows"; fail=1; }
"$bench" --mode=enumerate --kernels=sm90 --plans=1000 --plan-set=shapes --dtypes=bf16 --layouts=rcr --m=2048 --n=6144 --k=5120 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
[[ $(grep -c '^sm90\[plan=' "$tmp/out") -ge 10 && $(grep -Ec '^sm90\[plan=(3[6-9]|4[01]):' "$tmp/out") -eq 0 ]] &&
  echo "ok   plans: a shape is not weighed beyond its tokens unless named" || { echo "FAIL shapes 36-41 weighed at 2048 tokens: $(grep -Ec '^sm90\[plan=(3[6-9]|4[01]):' "$tmp/out")"; fail=1; }
"$bench" --mode=enumerate --kernels=sm90 --plans=1000 --plan-set=shapes --dtypes=bf16 --layouts=rcr --m=520 --n=6144 --k=5120 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
[[ $(grep -c '^sm90\[plan=40:[0-9]*:1:' "$tmp/out") -ge 1 ]] &&
  echo "ok   plans: 256x104 weighed swapped at 520 tokens" || { echo "FAIL 40 not weighed at 520 tokens"; fail=1; }
"$bench" --mode=enumerate --kernels=add --plans=3 --dtypes=f32 --layouts=ccc --m=64 >"$tmp/out" 2>"$tmp/err"
[[ $(grep -c '\[plan=' "$tmp/out") -eq 0 ]] && echo "ok   plans: none for a kernel without a model" || { echo "FAIL plans rows for add"; fail=1; }

# 8-bit inputs, where sm90 takes them: rcr without --layouts, each row labelled with its input
# types, bf16 output and scale=tensor, the baseline cuBLASLt's FP8 gemm; a layout cuBLASLt cannot
# take leaves the case without a baseline, with the reason.
if "$bench" --list | grep -E '^sm90 ' | grep -q e4m3; then
  "$bench" --mode=enumerate --kernels=sm90 --dtypes=e4m3,e4m3xe5m2 --m=4096 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
  check "8-bit: kernel row" '^sm90/e4m3/rcr/4096x4096x4096 +would_run +4096 +4096 +4096 +dtype=e4m3; layout=rcr; out_dtype=bf16; scale=tensor$'
  check "8-bit: pair row" '^sm90/e4m3xe5m2/rcr/4096x4096x4096 +would_run .*dtype=e4m3xe5m2; layout=rcr; out_dtype=bf16; scale=tensor$'
  check "8-bit: cuBLASLt baseline" '^cublas/e4m3/rcr/4096x4096x4096 +would_run .*dtype=e4m3; layout=rcr; out_dtype=bf16; scale=tensor; cuBLASLt FP8'
  check "8-bit: repro" '^  repro: loom-bench --kernels=sm90 --dtypes=e4m3xe5m2 --layouts=rcr --m=4096 --n=4096 --k=4096 --alpha=1 --beta=0$'
  check "8-bit: verified against cuBLAS" '^  verify: cuBLAS'
  # The fast accumulation mode: rows of their own, timed against cuBLASLt's fast mode.
  "$bench" --mode=enumerate --kernels=sm90 --dtypes=e4m3,e4m3-fast --m=4096 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
  check "8-bit fast: kernel row" '^sm90/e4m3-fast/rcr/4096x4096x4096 +would_run .*dtype=e4m3-fast; layout=rcr; out_dtype=bf16; scale=tensor$'
  check "8-bit fast: cuBLASLt's fast mode" '^cublas/e4m3-fast/rcr/4096x4096x4096 +would_run .*cuBLASLt FP8 \(cublasLtMatmul, tensor scales, fast accumulation on\)$'
  check "8-bit: cuBLASLt's accurate mode" '^cublas/e4m3/rcr/4096x4096x4096 +would_run .*fast accumulation off\)$'
  # A shape cuBLASLt's FP8 gemm cannot take (D's columns of 4100 bf16 in rcc): the kernel's row alone.
  "$bench" --mode=enumerate --kernels=sm90 --dtypes=e4m3 --layouts=rcc --m=4100 --n=4096 --k=4096 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
  check "8-bit: no cuBLASLt baseline" '^cublas/e4m3/rcc/4100x4096x4096 +not_supported .*no cuBLASLt baseline: ldc=4100 is not a multiple of 16 bytes of bf16'
  check "8-bit: the kernel's row without it" '^sm90/e4m3/rcc/4100x4096x4096 +would_run'
  # --out-dtypes: f16 and f32 D, each a case of its own beside cuBLASLt writing the same type. At
  # the shape above f32's ldc of 16400 bytes is one cuBLASLt takes, bf16's 8200 not.
  "$bench" --mode=enumerate --kernels=sm90 --dtypes=e4m3 --out-dtypes=bf16,f32 --layouts=rcc --m=4100 --n=4096 --k=4096 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
  check "8-bit out f32: kernel row" '^sm90/e4m3/rcc/4100x4096x4096/out=f32 +would_run +4100 +4096 +4096 +dtype=e4m3; layout=rcc; out_dtype=f32; scale=tensor$'
  check "8-bit out f32: cuBLASLt baseline" '^cublas/e4m3/rcc/4100x4096x4096/out=f32 +would_run .*dtype=e4m3; layout=rcc; out_dtype=f32; scale=tensor; cuBLASLt FP8'
  check "8-bit out f32: repro" '^  repro: loom-bench --kernels=sm90 --dtypes=e4m3 --out-dtypes=f32 --layouts=rcc --m=4100 --n=4096 --k=4096 --alpha=1 --beta=0$'
  check "8-bit out bf16: no cuBLASLt baseline" '^cublas/e4m3/rcc/4100x4096x4096 +not_supported .*no cuBLASLt baseline: ldc=4100 is not a multiple of 16 bytes of bf16'
  check "8-bit out: summary" '^enumerate: 3 benchmarks would run, 1 not_supported$'
  "$bench" --mode=enumerate --kernels=sm90 --dtypes=e4m3xe5m2 --out-dtypes=f16 --m=4096 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
  check "8-bit out f16: pair row" '^sm90/e4m3xe5m2/rcr/4096x4096x4096/out=f16 +would_run .*dtype=e4m3xe5m2; layout=rcr; out_dtype=f16; scale=tensor$'
  check "8-bit out f16: cuBLASLt baseline" '^cublas/e4m3xe5m2/rcr/4096x4096x4096/out=f16 +would_run .*out_dtype=f16; scale=tensor; cuBLASLt FP8'
  "$bench" --mode=enumerate --sweep=llm --kernels=sm90 --dtypes=e4m3 --m=128 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
  check "8-bit: --sweep=llm" '^sm90/e4m3/rcr/128x[0-9]+x[0-9]+ +would_run .*dtype=e4m3; layout=rcr; out_dtype=bf16; scale=tensor; sweep=llm'
  check "8-bit: --sweep=llm summary" '^enumerate: 14 benchmarks would run, 0 not_supported$'
  # Block scales (--scale=block, or -block in --dtypes): rows of their own, labelled scale=block,
  # beside cuBLASLt in its block modes (with --compute-capability no GPU is asked, so its static
  # rules alone say whether it takes the case), each with a repro line that names them.
  "$bench" --mode=enumerate --kernels=sm90 --dtypes=e4m3 --scale=tensor,block --m=4096 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
  check "8-bit block: kernel row" '^sm90/e4m3-block/rcr/4096x4096x4096 +(would_run +4096 +4096 +4096 +dtype=e4m3-block; layout=rcr; out_dtype=bf16; scale=block$|not_supported )'
  check "8-bit block: tensor row too" '^sm90/e4m3/rcr/4096x4096x4096 +would_run .*dtype=e4m3; layout=rcr; out_dtype=bf16; scale=tensor$'
  "$bench" --mode=enumerate --kernels=gemm --providers=cublas --dtypes=e4m3-block --m=4096 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
  check "8-bit block: cuBLASLt's block modes" '^cublas/e4m3-block/rcr/4096x4096x4096 +would_run .*dtype=e4m3-block; layout=rcr; out_dtype=bf16; scale=block; cuBLASLt FP8 \(cublasLtMatmul, block scales VEC128_32F x BLK128x128_32F, fast accumulation off\)$'
  check "8-bit block: repro" '^  repro: loom-bench --kernels=gemm --dtypes=e4m3-block --layouts=rcr --m=4096 --n=4096 --k=4096 --alpha=1 --beta=0 --providers=cublas$'
  "$bench" --mode=enumerate --kernels=gemm --providers=cublas --dtypes=e4m3 --scale=block --m=4096 --compute-capability=9.0 >"$tmp/out2" 2>"$tmp/err"
  cmp -s "$tmp/out" "$tmp/out2" && echo "ok   8-bit block: --dtypes=e4m3-block is --dtypes=e4m3 --scale=block" ||
    { echo "FAIL 8-bit block: --scale=block lists other rows"; diff "$tmp/out" "$tmp/out2" | head; fail=1; }
  # Not in the default sweep.
  "$bench" --mode=enumerate --kernels=sm90 --compute-capability=9.0 >"$tmp/out" 2>"$tmp/err"
  ! grep -Eq '/e[45]m[23]' "$tmp/out" && echo "ok   8-bit: not in the default sweep" || { echo "FAIL 8-bit rows in the default sweep"; fail=1; }
else
  echo "skip 8-bit rows: sm90 takes no e4m3 yet"
fi

exit $fail
