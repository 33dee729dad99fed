#!/usr/bin/env bash
# scripts/profile.sh's own arguments, checked before it builds or looks for a GPU: each bad one gets
# one line on stderr and exit status 2; --baseline is taken (it profiles the cuBLAS row instead).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
prof="$root/scripts/profile.sh"
fail=0
bad() {  # expected-pattern args...
  local want=$1
  shift
  local err rc
  err=$(LOOM_SKIP_BUILD=1 bash "$prof" "$@" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc -ne 2 ]]; then echo "FAIL: profile.sh $*: exit status $rc, expected 2"; fail=1; fi
  if [[ $(wc -l <<<"$err") -ne 1 ]] || ! grep -qE "$want" <<<"$err"; then
    echo "FAIL: profile.sh $*: expected one line matching /$want/, got:"; echo "$err"; fail=1
  fi
}
bad 'providers=cublas is set by profile.sh' sm90 128x4096x4096 --baseline --providers=cublas
bad 'clock-control is base or none' sm90 --baseline --clock-control=fast
bad 'm=64 is set by profile.sh' sm90 --m=64 --baseline
bad 'one dtype and one layout' sm90 --baseline --dtypes=bf16,f16
bad 'one output dtype at a time \(got --out-dtypes=bf16,f32\)' sm90 --dtypes=bf16 --out-dtypes=bf16,f32
# --baseline itself is no error: past the argument checks profile.sh goes on to its build and GPU
# steps, which fail here (no build directory given, or no GPU) with another status than 2.
LOOM_SKIP_BUILD=1 BUILD_DIR=/nonexistent bash "$prof" sm90 128x4096x4096 --baseline --dtypes=bf16 --layouts=rcr >/dev/null 2>&1
rc=$?
if [[ $rc -eq 2 || $rc -eq 0 ]]; then echo "FAIL: profile.sh --baseline with no build: exit status $rc, expected 1"; fail=1; fi
[[ $fail -eq 0 ]] && echo "profile.sh argument checks: ok"
exit $fail
