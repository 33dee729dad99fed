#!/usr/bin/env bash
# scripts/sweep_summary.py on a synthetic loom-bench JSON: the geometric mean, the minimum, the rows
# below 0.90 and the bands of M, the lowest rows with their paths; a file without the kernel's rows
# is an error naming it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/cli/scripts/lib.sh
source "$root/tests/cli/scripts/lib.sh"
python3 - "$tmp/b.json" <<'PY'
import json, sys
rows = []
for m, vs in ((1, 0.8), (100, 1.0), (500, 0.5), (4096, 1.25)):
    rows.append({"name": f"cublas/bf16/rcr/{m}x4096x4096/manual_time", "m": m, "median_us": 10.0, "vs_cublas": 1.0})
    rows.append({"name": f"gemm/bf16/rcr/{m}x4096x4096/manual_time", "m": m, "median_us": 10.0 / vs, "vs_cublas": vs,
                 "label": f"path=sm90: tma 128x128, tma store; dtype=bf16; layout=rcr"})
json.dump({"context": {"loom_device": "Test GPU"}, "benchmarks": rows}, open(sys.argv[1], "w"))
PY
python3 "$root/scripts/sweep_summary.py" "$tmp/b.json" --worst 1 >"$tmp/out.txt"
# geomean of 0.8, 1.0, 0.5, 1.25 = 0.841; min 0.5; two rows below 0.90; one row per band.
check "summary row" '^\| b.json \| Test GPU \| bf16 \| rcr \| 4 \| 0.841 \| 0.500 \| 2 \| 0.800 \| 1.000 \| 0.500 \| 1.250 \|$' "$tmp/out.txt"
check "lowest row and its path" '^- bf16 rcr 500x4096x4096: 0.500x \(sm90: tma 128x128, tma store\)$' "$tmp/out.txt"
if python3 "$root/scripts/sweep_summary.py" "$tmp/b.json" --kernel sm80 >"$tmp/none.txt" 2>&1; then
  echo "FAIL a file without the kernel's rows exits 0"; fail=1
else
  check "no rows is an error" 'b.json: no sm80 rows with vs_cublas' "$tmp/none.txt"
fi
exit $fail
