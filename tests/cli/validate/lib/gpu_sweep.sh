#!/usr/bin/env bash
# ctest validate_gpu: the default sweep, failures only. Skipped (77) without a GPU.
set -u
VALIDATE=${1:?usage: $0 <path to loom-validate>}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

rc=0
"$VALIDATE" --quiet >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"
cat "$TMP/err" >&2
if [[ $rc -eq 2 ]] && grep -q 'no CUDA GPU found' "$TMP/err"; then
  echo "no CUDA GPU; skipping"
  exit 77
fi
if ! tail -n 1 "$TMP/out" | grep -Eq '^validate: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'; then
  echo "FAIL: the last line is not the summary"
  exit 1
fi
exit "$rc"
