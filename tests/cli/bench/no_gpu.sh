#!/usr/bin/env bash
# ctest bench_no_gpu: without a GPU, loom-bench prints exactly "loom-bench: no CUDA GPU found"
# on stderr, nothing on stdout, and exits 2. Exit 77 (skipped) where a GPU is present.
# Usage: bash no_gpu.sh PATH/TO/loom-bench
set -uo pipefail
bench=${1:?usage: no_gpu.sh PATH/TO/loom-bench}

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "a GPU is present; skipping"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A tiny sweep, so that a GPU that nvidia-smi did not see still finishes quickly.
"$bench" --kernels=add --m=64 --benchmark_list_tests=true >"$tmp/out" 2>"$tmp/err"
rc=$?
if [[ $rc -eq 0 ]]; then
  echo "loom-bench found a GPU that nvidia-smi did not; skipping"
  exit 77
fi
status=0
[[ $rc -eq 2 ]] || { echo "FAIL: exit status $rc, expected 2"; status=1; }
[[ ! -s $tmp/out ]] || { echo "FAIL: unexpected stdout:"; cat "$tmp/out"; status=1; }
if [[ $(cat "$tmp/err") != "loom-bench: no CUDA GPU found" ]]; then
  echo "FAIL: stderr is not the one expected line:"
  cat "$tmp/err"
  status=1
fi
[[ $status -eq 0 ]] && echo "ok: one line, exit 2"
exit $status
