#!/usr/bin/env bash
# scripts/compare.sh on two synthetic loom-bench JSON files: verdicts beyond the threshold and the
# noise, cases in one file only, errors, --fail-on-slower, and one-line errors for bad input.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
cmp="$root/scripts/compare.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if ! grep -qE "$2" <<<"$1"; then echo "FAIL: expected /$2/ in:"; echo "$1"; fail=1; fi; }

row() {  # name median_us vs_cublas
  printf '{"name": "%s/min_time:0.200/manual_time", "run_name": "%s/min_time:0.200/manual_time", "run_type": "iteration", "median_us": %s, "vs_cublas": %s}' "$1" "$1" "$2" "$3"
}
fields() {  # name median_us: a row with loom-bench's fields (counters m, n, k; dtype, layout, tags in the label)
  printf '{"name": "%s/min_time:0.200/manual_time", "run_name": "%s/min_time:0.200/manual_time", "run_type": "iteration", "median_us": %s, "vs_cublas": 1.0, "m": 4096, "n": 4096, "k": 4096, "label": "dtype=bf16; layout=rcr; path=tma, tma store; gpu=h100"}' "$1" "$1" "$2"
}
cat > "$tmp/old.json" <<EOF2
{"context": {}, "benchmarks": [
 $(row sm90/bf16/rcr/4096x4096x4096 200 0.95), $(row sm90/bf16/rcr/4096x4096x4096 202 0.95),
 $(row sm80/bf16/rcr/4096x4096x4096 300 0.55),
 $(row add/f32/ccc/2048x2048x0 17 1.0),
 $(row gone/f32/ccc/1x1x1 1 1.0), $(fields gemm/bf16/rcr/4096x4096x4096 100),
 {"name": "bad/f32/ccc/1x1x1/min_time:0.200/manual_time", "run_type": "iteration", "error_occurred": true, "error_message": "boom"}
]}
EOF2
cat > "$tmp/new.json" <<EOF2
{"context": {}, "benchmarks": [
 $(row sm90/bf16/rcr/4096x4096x4096 180 1.05), $(row sm90/bf16/rcr/4096x4096x4096 182 1.05),
 $(row sm80/bf16/rcr/4096x4096x4096 330 0.50),
 $(row add/f32/ccc/2048x2048x0 17.1 1.0),
 $(row fresh/f32/ccc/1x1x1 1 1.0), $(fields gemm/bf16/rcr/4096x4096x4096 90),
 $(row bad/f32/ccc/1x1x1 1 1.0)
]}
EOF2
out=$(bash "$cmp" "$tmp/old.json" "$tmp/new.json"); rc=$?
[[ $rc -eq 0 ]] || { echo "FAIL: exit $rc"; fail=1; }
check "$out" '^sm90/bf16/rcr/4096x4096x4096 +201\.00 +181\.00 +-10\.0% .* 0\.950 +1\.050 +faster$'
check "$out" '^sm80/bf16/rcr/4096x4096x4096 .*\+10\.0% .*slower$'
check "$out" '^add/f32/ccc/2048x2048x0 .*\+0\.6% .*same$'
check "$out" '^gone/f32/ccc/1x1x1 .*only in OLD$'
check "$out" '^fresh/f32/ccc/1x1x1 .*only in NEW$'
check "$out" '^bad/f32/ccc/1x1x1 .*error: boom$'
check "$out" '^gemm/bf16/rcr/4096x4096x4096 +100\.00 +90\.00 +-10\.0% .*faster$'
check "$out" '^compare: 4 cases in both, 2 faster, 1 slower, 1 same'
# A wider threshold makes the 10% changes "same".
out=$(bash "$cmp" "$tmp/old.json" "$tmp/new.json" --threshold=15)
check "$out" '0 faster, 0 slower, 4 same'
bash "$cmp" "$tmp/old.json" "$tmp/new.json" --fail-on-slower >/dev/null; rc=$?
[[ $rc -eq 1 ]] || { echo "FAIL: --fail-on-slower exited $rc, expected 1"; fail=1; }
# Bad input: one line, exit 2.
for args in "$tmp/nope.json $tmp/new.json" "$tmp/old.json $root/README.md" "$tmp/old.json $tmp/new.json --threshold=-1"; do
  # shellcheck disable=SC2086
  err=$(bash "$cmp" $args 2>&1 >/dev/null); rc=$?
  if [[ $rc -ne 2 || $(wc -l <<<"$err") -ne 1 ]]; then echo "FAIL: '$args' gave exit $rc and: $err"; fail=1; fi
done
[[ $fail -eq 0 ]] && echo "ok: compare.sh"
exit $fail
