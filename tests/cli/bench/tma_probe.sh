#!/usr/bin/env bash
# ctest tma_probe_cli: loom-tma-probe's bad values get one line naming them and exit status 2,
# before any GPU is looked for; without a GPU, "loom-tma-probe: no CUDA GPU found" and 2; with an
# sm_90 GPU, a two-configuration sweep prints a row for each (a GPU of another kind: exit 77).
# Usage: bash tma_probe.sh PATH/TO/loom-tma-probe
set -uo pipefail
probe=${1:?usage: tma_probe.sh PATH/TO/loom-tma-probe}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

expect_error() {  # expect_error "PATTERN" ARGS...: exit 2, one stderr line matching PATTERN
  local pat=$1
  shift
  "$probe" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [[ $rc -ne 2 ]]; then
    echo "FAIL: $* exited $rc, expected 2"
    status=1
  elif ! grep -q -- "$pat" "$tmp/err" || [[ $(wc -l <"$tmp/err") -ne 1 ]]; then
    echo "FAIL: $*: stderr is not one line matching '$pat':"
    cat "$tmp/err"
    status=1
  fi
}
expect_error "--rows=100: a box has 64, 128, 144, 192 or 256 rows" --rows=100
expect_error "--k=100 is not a multiple of 64" --k=100
expect_error "cluster" --cluster=3
expect_error "stages" --stages=0

gpu=0
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && gpu=1
if [[ $gpu -eq 0 ]]; then
  "$probe" --rows=64 >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [[ $rc -eq 2 ]] || { echo "FAIL: without a GPU, exit status $rc, expected 2"; status=1; }
  [[ $(cat "$tmp/err") == "loom-tma-probe: no CUDA GPU found" ]] || { echo "FAIL: without a GPU, stderr:"; cat "$tmp/err"; status=1; }
else
  "$probe" --rows=64,128 --boxes=1 --stages=4 --cluster=1 --share=1 --iters=64 >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [[ $rc -eq 2 ]] && grep -q "compute capability" "$tmp/err"; then
    echo "not an sm_90 GPU; skipping the run"
    [[ $status -eq 0 ]] && exit 77
  elif [[ $rc -ne 0 ]]; then
    echo "FAIL: the sweep exited $rc:"
    cat "$tmp/err"
    status=1
  elif [[ $(grep -cE '^ +(64|128) +1 +4 +1 +1 ' "$tmp/out") -ne 2 ]]; then
    echo "FAIL: expected one row for each of 64 and 128 rows:"
    cat "$tmp/out"
    status=1
  fi
fi
[[ $status -eq 0 ]] && echo "ok"
exit $status
