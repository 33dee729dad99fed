#!/usr/bin/env bash
# ctest bench_verification: loom-bench's verification inside the timed run (--verification).
# Without a GPU: --verification takes on or off (anything else: one line, exit 2), and
# --mode=enumerate says under each row what the run would check it against (cuBLAS, fp64 on the
# host, or nothing: a baseline, --verification=off). With a GPU (else Skipped, 77): a tiny run gives
# every kernel row disposition=passed and every baseline row disposition=not_verified, in the
# console and in the JSON label; --verification=off makes every row not_verified.
# Usage: bash verify.sh PATH/TO/loom-bench
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
count() { local n; n=$(grep -Ec -- "$3" "$2"); if [[ $n -eq $4 ]]; then echo "ok   $1"; else echo "FAIL $1: $n lines match /$3/, expected $4"; fail=1; fi; }

for args in "--verification=maybe" "--verification=" "--verification=ON"; do
  rc=0
  # shellcheck disable=SC2086
  "$bench" --mode=enumerate --kernels=add --m=64 $args >"$tmp/out" 2>"$tmp/err" || rc=$?
  if [[ $rc -ne 2 || $(wc -l <"$tmp/err") -ne 1 || -s $tmp/out ]]; then
    echo "FAIL [$args]: exit $rc, stderr: $(cat "$tmp/err")"; fail=1
  else
    echo "ok   [$args]: $(cat "$tmp/err")"
  fi
done

# Enumerate: the reference of each row. f32 add and gemm: cuBLAS; f16 add (no cuBLAS geam): fp64 on the
# host; the baselines: none.
"$bench" --mode=enumerate --compute-capability=90 --kernels=add,sm80 --dtypes=f32,f16 --m=256 >"$tmp/out" 2>"$tmp/err"
check "enumerate ran" "$tmp/out" '^enumerate: [0-9]+ benchmarks would run'
grep -A2 -E '^add/f32/ccc/256x256x0[/ ]' "$tmp/out" >"$tmp/add32"
check "f32 add: cuBLAS" "$tmp/add32" '^  verify: cuBLAS \(disposition passed or incorrect\)$'
grep -A2 -E '^add/f16/ccc/256x256x0[/ ]' "$tmp/out" >"$tmp/add16"
check "f16 add: host" "$tmp/add16" '^  verify: fp64 on the host \(disposition passed or incorrect\)$'
grep -A2 -E '^sm80/f16/ccc/256x256x256[/ ]' "$tmp/out" >"$tmp/sm80"
check "f16 gemm: cuBLAS" "$tmp/sm80" '^  verify: cuBLAS '
grep -A2 -E '^cublas/f32/ccc/256x256x0[/ ]' "$tmp/out" >"$tmp/cub"
check "baseline: none" "$tmp/cub" '^  verify: none \(disposition not_verified: a baseline\)$'
grep -A2 -E '^memcpy_d2d/f32/ccc/256x256x0[/ ]' "$tmp/out" >"$tmp/mc"
check "copy: none" "$tmp/mc" '^  verify: none \(disposition not_verified: a baseline\)$'
count "one verify line per row" "$tmp/out" '^  verify: ' "$(grep -Ec ' would_run ' "$tmp/out")"
"$bench" --mode=enumerate --compute-capability=90 --kernels=add --dtypes=f32 --m=256 --verification=off >"$tmp/out" 2>"$tmp/err"
grep -A2 -E '^add/f32/ccc/256x256x0[/ ]' "$tmp/out" >"$tmp/off"
check "off: none" "$tmp/off" '^  verify: none \(disposition not_verified: --verification=off\)$'
"$bench" --help >"$tmp/out" 2>&1
check "--help names it" "$tmp/out" '--verification'

if ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }; then
  echo "skipped: no GPU for the run"
  [[ $fail -eq 0 ]] && exit 77
  exit $fail
fi

# A tiny run: add f32 and f16 (cuBLAS and host references) and a gemm kernel that runs on every
# GPU loom-bench takes (sm80: cc 8.0 and newer; fma for fp32 anywhere).
rc=0
"$bench" --kernels=add,fma --dtypes=f32,f16 --m=256 --min-time=0.001 --benchmark_out="$tmp/json" \
  --benchmark_out_format=json >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 0 ]] || { echo "FAIL run: exit $rc: $(tail -3 "$tmp/err")"; fail=1; }
# Kernel rows: passed; baselines: not_verified; nothing else. Every label ends with the GPU that ran
# the row.
dev='; device=0; device_name=[^;]+; pci_bus_id=[0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+\.[0-9]'
check "add f32 passed" "$tmp/out" '^add/f32/ccc/256x256x0/.* dtype=f32; layout=ccc; disposition=passed'"$dev"'$'
check "add f16 passed (host reference)" "$tmp/out" '^add/f16/ccc/256x256x0/.* dtype=f16; layout=ccc; disposition=passed'"$dev"'$'
check "fma passed" "$tmp/out" '^fma/f32/ccc/256x256x256/.* dtype=f32; layout=ccc; disposition=passed'"$dev"'$'
check "cuBLAS not_verified" "$tmp/out" '^cublas/f32/ccc/256x256x0/.* dtype=f32; layout=ccc; disposition=not_verified'"$dev"'$'
check "copy not_verified" "$tmp/out" '^memcpy_d2d/f32/ccc/256x256x0/.* disposition=not_verified'"$dev"'$'
check "f16 baseline keeps its note" "$tmp/out" '^cublas/f16/ccc/256x256x0/.* dtype=f16; layout=ccc; disposition=not_verified; fp32 geam'
count "no incorrect or failed row" "$tmp/out" 'disposition=(incorrect|failed)' 0
check "JSON label" "$tmp/json" '"label": "dtype=f32; layout=ccc; disposition=passed'"$dev"'"'
check "JSON context: the GPU" "$tmp/json" '"loom_pci_bus_id": "[0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+\.[0-9]"'
check "JSON context: the shard" "$tmp/json" '"loom_shard": "0/1"'
check "JSON context" "$tmp/json" '"loom_verification": "on: '
rc=0
"$bench" --kernels=add --dtypes=f32 --m=256 --min-time=0.001 --verification=off >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 0 ]] || { echo "FAIL run off: exit $rc: $(tail -3 "$tmp/err")"; fail=1; }
check "off: console label" "$tmp/out" '^add/f32/ccc/256x256x0.* dtype=f32; layout=ccc; disposition=not_verified'
count "off: nothing passed" "$tmp/out" 'disposition=passed' 0
# --progress: one short line per benchmark on stderr, "[i/N] NAME  T us  X GB/s ... disposition  XmYYs",
# N the run's benchmarks (add f32 256: the kernel, cuBLAS geam and the copy).
rc=0
"$bench" --kernels=add --dtypes=f32 --m=256 --min-time=0.001 --progress >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 0 ]] || { echo "FAIL --progress: exit $rc: $(tail -3 "$tmp/err")"; fail=1; }
check "--progress: the kernel's line" "$tmp/err" '^\[[1-3]/3\] add/f32/ccc/256x256x0  [0-9.]+ us  [0-9.]+ GB/s  [0-9.]+x cuBLAS  passed  [0-9]+m[0-9]{2}s$'
count "--progress: a line per benchmark" "$tmp/err" '^\[[1-3]/3\] ' 3
exit $fail
