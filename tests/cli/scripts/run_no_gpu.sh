#!/usr/bin/env bash
# scripts/run.sh on a machine without a GPU: one line, exit 1, and nothing built (it checks for the
# GPU first). Skipped (77) where a GPU is present.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "skipped: a GPU is present"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
err=$(BUILD_DIR="$tmp/build" bash "$root/scripts/run.sh" 2>&1 >/dev/null); rc=$?
fail=0
[[ $rc -eq 1 ]] || { echo "FAIL: exit $rc, expected 1"; fail=1; }
[[ $(wc -l <<<"$err") -eq 1 && $err == "run.sh: no CUDA GPU found"* ]] || { echo "FAIL: stderr: $err"; fail=1; }
[[ ! -e $tmp/build ]] || { echo "FAIL: run.sh configured a build before checking for a GPU"; fail=1; }
[[ $fail -eq 0 ]] && echo "ok: run.sh stops before building without a GPU"
exit $fail
