#!/usr/bin/env bash
# ctest plot_py_synthetic: scripts/plot.py on a small synthetic loom-bench JSON (fixture_bench.json)
# writes the PNGs and a RESULTS.md with the device header, the tables and the image links; on rows
# with the fields loom-bench writes now (dtype and layout in the label, counters m, n, k, --tags) it
# reads those.
# Exit 77 (skipped) when pandas or matplotlib is missing.
# Usage: bash plot_smoke.sh PYTHON3 WORK_DIR
set -uo pipefail
py=${1:?usage: plot_smoke.sh PYTHON3 WORK_DIR}
work=${2:?usage: plot_smoke.sh PYTHON3 WORK_DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)

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
check "table row of the bar case" grep -qE '^\| add \| f32 \| ccc \| 16384x16384 \| 1070\.2 \| 3,010\.0 \| 89\.8 \| 1\.038 \| 0\.21 \| 57 \| passed \|$' "$work/RESULTS.md"
check "failed benchmark shown" grep -qF "failed: add: an illegal memory access" "$work/RESULTS.md"
check "bar verdict printed" grep -qF "1.038x cublasSgeam: meets" "$work/stdout"
# add at 2048^2 and up against the copy: 2950 of 3000 GB/s at best 0.983; the failed rrr case has none.
check "add against the copy" grep -qF "Bar (add, every dtype and layout at 2048^2 and up, >= 0.97x of the copy in the same run): min 0.983x (add f16 ccc 2048x2048) over 5 case(s), 1 without a ratio: incomplete" "$work/RESULTS.md"
check "stdout table lists the kernels only" bash -c "! grep -q '^cublas' '$work/stdout'"

# Errors: a missing file and a non-benchmark JSON give one line and exit 2.
"$py" "$root/scripts/plot.py" "$work/missing.json" >/dev/null 2>"$work/err1"
check "missing JSON: exit 2" test $? -eq 2
check "missing JSON: one line" test "$(wc -l <"$work/err1")" -eq 1
echo '{"x": 1}' >"$work/bad.json"
"$py" "$root/scripts/plot.py" "$work/bad.json" >/dev/null 2>"$work/err2"
check "bad JSON: exit 2" test $? -eq 2

# Rows as loom-bench writes them now: dtype and layout in the label, M, N, K as the counters m, n,
# k (a failed row: in its label), --tags at the label's end. The fields are what plot.py reads.
"$py" - "$work/fields.json" <<'PY'
import json, sys
def row(kernel, dtype, layout, m, n, k, us, vs, label, error=None):
    name = f"{kernel}/{dtype}/{layout}/{m}x{n}x{k}/min_time:0.200/manual_time"
    r = {"name": name, "run_name": name, "run_type": "iteration", "iterations": 100, "time_unit": "us",
         "label": f"dtype={dtype}; layout={layout}" + (f"; {label}" if label else "") + "; gpu=h100"}
    if error:
        r.update(error_occurred=True, error_message=error)
        r["label"] += f"; m={m}; n={n}; k={k}"
    else:
        tf = 2.0 * m * n * k / (us * 1e-6) / 1e12
        r.update({"median_us": us, "TFLOP/s": tf, "pct_peak": 100 * tf / 989.4, "vs_cublas": vs, "m": m, "n": n, "k": k})
    return r
rows = [row("cublas", "bf16", "rcr", 4096, 4096, 4096, 100.0, 1.0, ""),
        row("sm90", "bf16", "rcr", 4096, 4096, 4096, 95.0, 1.0526, "path=tma, tma store"),
        row("cublas", "bf16", "rcr", 8192, 8192, 8192, 800.0, 1.0, ""),
        row("sm90", "bf16", "rcr", 8192, 8192, 8192, 0, 0, "path=tma, tma store", error="an illegal memory access")]
json.dump({"context": {"loom_device": "NVIDIA H100 80GB HBM3", "loom_tag_gpu": "h100"}, "benchmarks": rows},
          open(sys.argv[1], "w"), indent=1)
PY
mkdir -p "$work/fields_plots"
if ! "$py" "$root/scripts/plot.py" "$work/fields.json" --out-dir "$work/fields_plots" \
    --results-md "$work/FIELDS.md" >"$work/fields_stdout" 2>"$work/fields_stderr"; then
  echo "FAIL: plot.py exited non-zero on the new fields"; cat "$work/fields_stderr"; fails=$((fails + 1))
fi
check "fields: the kernel's row" grep -qE '^\| sm90 \| bf16 \| rcr \| 4096x4096x4096 \| 95\.0 \|' "$work/FIELDS.md"
check "fields: the failed row" grep -qF "| sm90 | bf16 | rcr | 8192x8192x8192 | failed: an illegal memory access" "$work/FIELDS.md"
check "fields: the plot" test -s "$work/fields_plots/gemm_bf16_rcr.png"
check "fields: notes keep the path and the tags" grep -qF "Note: path=tma, tma store; gpu=h100." "$work/FIELDS.md"
check "fields: no note of the row's own fields" bash -c "! grep -qE '^Note: .*(dtype|layout|m)=' '$work/FIELDS.md'"
# collect() takes the fields, the label's for a failed row, and the name only where they are missing.
check "fields: collect()" "$py" -B -c "
import sys; sys.path.insert(0, '$root/scripts'); import plot
rows = [{'name': 'x/f16/ccc/1x2x3/manual_time', 'run_type': 'iteration', 'TFLOP/s': 1.0, 'm': 10, 'n': 20, 'k': 30,
         'label': 'dtype=bf16; layout=rcr; path=tma'},
        {'name': 'y/f16/ccc/1x2x3/manual_time', 'run_type': 'iteration', 'error_occurred': True,
         'label': 'dtype=bf16; layout=crr; m=7; n=8; k=9'},
        {'name': 'z/f16/ccc/1x2x3/manual_time', 'run_type': 'iteration', 'TFLOP/s': 1.0}]
got = {r['kernel']: (r['dtype'], r['layout'], r['M'], r['N'], r['K'], r['op']) for r in plot.collect(rows)}
assert got == {'x': ('bf16', 'rcr', 10, 20, 30, 'gemm'), 'y': ('bf16', 'crr', 7, 8, 9, 'gemm'),
               'z': ('f16', 'ccc', 1, 2, 3, 'gemm')}, got
assert plot.plain_label('dtype=bf16; layout=rcr; path=tma; sweep=llm; gpu=h100; m=1; n=2; k=3') == 'path=tma; gpu=h100'
"

if [[ $fails -eq 0 ]]; then echo "plot.py: all checks passed"; fi
[[ $fails -eq 0 ]]
