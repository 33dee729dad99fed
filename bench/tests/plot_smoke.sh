#!/usr/bin/env bash
# ctest plot_py_synthetic: scripts/plot.py on a small synthetic loom-bench JSON (fixture_bench.json)
# writes the PNGs and a RESULTS.md with the device header, the tables and the image links.
# Exit 77 (skipped) when pandas or matplotlib is missing.
# Usage: bash plot_smoke.sh PYTHON3 WORK_DIR
set -uo pipefail
py=${1:?usage: plot_smoke.sh PYTHON3 WORK_DIR}
work=${2:?usage: plot_smoke.sh PYTHON3 WORK_DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

if ! "$py" -c "import pandas, matplotlib" 2>/dev/null; then
  echo "pandas or matplotlib missing; skipping"
  exit 77
fi

rm -rf "$work"
mkdir -p "$work/plots"
if ! "$py" "$root/scripts/plot.py" "$here/fixture_bench.json" --out-dir "$work/plots" \
    --results-md "$work/RESULTS.md" --command "scripts/run.sh" >"$work/stdout" 2>"$work/stderr"; then
  echo "FAIL: plot.py exited non-zero"; cat "$work/stderr"; exit 1
fi

fails=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if ! "$@"; then echo "FAIL: $what"; fails=$((fails + 1)); fi
}
for png in add_f32_ccc add_f16_ccc add_f32_rrr; do
  check "$png.png written" test -s "$work/plots/$png.png"
  check "RESULTS.md links $png.png" grep -qF "(plots/$png.png)" "$work/RESULTS.md"
done
check "header names the GPU" grep -qF "NVIDIA H100 80GB HBM3" "$work/RESULTS.md"
check "header has the versions" grep -qF "NVIDIA driver 580.159.04 (CUDA driver API 13.0), CUDA runtime 13.0, cuBLAS 13.0.0" "$work/RESULTS.md"
check "header has the command" grep -qF -- '- Command: `scripts/run.sh`' "$work/RESULTS.md"
check "table header" grep -qF "| kernel | dtype | layout | shape | median µs | GB/s | % of peak | vs cuBLAS |" "$work/RESULTS.md"
check "table row of the bar case" grep -qE '^\| add \| f32 \| ccc \| 16384x16384 \| 1070\.2 \| 3,010\.0 \| 89\.8 \| 1\.038 \|$' "$work/RESULTS.md"
check "failed benchmark shown" grep -qF "failed: add: an illegal memory access" "$work/RESULTS.md"
check "bar verdict printed" grep -qF "1.038x cublasSgeam: meets" "$work/stdout"
check "stdout table lists the kernels only" bash -c "! grep -q '^cublas' '$work/stdout'"

# Errors: a missing file and a non-benchmark JSON give one line and exit 2.
"$py" "$root/scripts/plot.py" "$work/missing.json" >/dev/null 2>"$work/err1"
check "missing JSON: exit 2" test $? -eq 2
check "missing JSON: one line" test "$(wc -l <"$work/err1")" -eq 1
echo '{"x": 1}' >"$work/bad.json"
"$py" "$root/scripts/plot.py" "$work/bad.json" >/dev/null 2>"$work/err2"
check "bad JSON: exit 2" test $? -eq 2

if [[ $fails -eq 0 ]]; then echo "plot.py: all checks passed"; fi
[[ $fails -eq 0 ]]
