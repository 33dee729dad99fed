#!/usr/bin/env bash
# ctest bench_repro: every benchmark a command would run has a repro command (--repro, and under its
# row in --mode=enumerate) that times that case again: planned with --mode=enumerate, a kernel's
# command runs that kernel on that case (with its baselines) and nothing else, a baseline's command
# that baseline alone. No GPU needed.
# Usage: bash repro.sh PATH/TO/loom-bench
set -uo pipefail
bench=${1:?usage: $0 <path to loom-bench>}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
checked=0

# reruns ARGS...: each line of `--repro ARGS` replanned from its own command.
reruns() {
  "$bench" --repro --compute-capability=90 "$@" >"$tmp/list" 2>"$tmp/err" || { echo "FAIL --repro $*: $(cat "$tmp/err")"; fail=1; return; }
  [[ -s $tmp/list ]] || { echo "FAIL --repro $*: nothing listed"; fail=1; return; }
  local name cmd case_name kind
  while IFS=$'\t' read -r name cmd; do
    # One pair of scalars is not in the name: the name of a run with several carries them.
    case_name=${name%%/alpha=*}
    kind=${case_name%%/*}
    [[ $cmd == "loom-bench "* ]] || { echo "FAIL $name: not a loom-bench command: $cmd"; fail=1; continue; }
    # The name's scalars, where it has them, are the command's.
    if [[ $name == */alpha=*/beta=* ]]; then
      local ab=${name#*/alpha=}
      if [[ " $cmd " != *" --alpha=${ab%%/beta=*} --beta=${ab#*/beta=} "* ]]; then
        echo "FAIL $name: $cmd has other scalars"; fail=1; continue
      fi
    fi
    local args
    read -r -a args <<<"${cmd#loom-bench }"
    if ! "$bench" --mode=enumerate --compute-capability=90 "${args[@]}" >"$tmp/out" 2>"$tmp/err"; then
      echo "FAIL $name: $cmd: $(cat "$tmp/err")"; fail=1; continue
    fi
    local rows shape
    rows=$(grep -E '^[^ ]+ +would_run ' "$tmp/out" | awk '{print $1}')
    shape=${case_name#*/}
    if ! grep -qxF "$case_name" <<<"$rows"; then
      echo "FAIL $name: $cmd does not run it:"; cat "$tmp/out"; fail=1
    elif [[ $kind == cublas || $kind == memcpy_d2d ]] && [[ $(wc -l <<<"$rows") -ne 1 ]]; then
      echo "FAIL $name: $cmd runs more than the baseline:"; cat "$tmp/out"; fail=1
    elif grep -vqE "^(cublas|memcpy_d2d|$kind)/$shape\$" <<<"$rows"; then
      echo "FAIL $name: $cmd runs another case too:"; cat "$tmp/out"; fail=1
    fi
    checked=$((checked + 1))
  done <"$tmp/list"
}

# add and gemm kernels, f16 and f32 (the fp32 geam baseline of f16 add), two layouts, two pairs of
# scalars; the llm sweep's rows (its label is not in the command; the case is).
reruns --kernels=add,sm80,fma --dtypes=f16,f32 --layouts=ccc,rcr --m=1000 --n=96 --k=40 --alpha=1,0.5 --beta=0,-2
reruns --sweep=llm --kernels=gemm,sm90 --dtypes=f16 --m=16
# Output dtypes other than the default: the name's /out=O is the command's --out-dtypes=O.
reruns --kernels=sm80,sm90 --dtypes=bf16,e4m3 --out-dtypes=bf16,f32 --m=256 --alpha=1,0.5
[[ $checked -ge 40 ]] || { echo "FAIL: only $checked repro lines checked"; fail=1; }

# --mode=enumerate prints the same command under each would_run row.
"$bench" --mode=enumerate --compute-capability=90 --kernels=sm80 --dtypes=bf16 --layouts=rcr --m=4096 >"$tmp/out" 2>&1
if grep -A1 -E '^sm80/bf16/rcr/4096x4096x4096 +would_run' "$tmp/out" | grep -qxF \
    '  repro: loom-bench --kernels=sm80 --dtypes=bf16 --layouts=rcr --m=4096 --n=4096 --k=4096 --alpha=1 --beta=0'; then
  echo "ok   enumerate: the repro line under the row"
else
  echo "FAIL enumerate: no repro line under sm80's row:"; cat "$tmp/out"; fail=1
fi
[[ $fail -eq 0 ]] && echo "ok   $checked repro lines each rerun their case"
exit $fail
