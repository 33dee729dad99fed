#!/usr/bin/env bash
# ctest plot_py_llm: scripts/plot.py on a synthetic JSON of loom-bench --sweep=llm and
# --sweep=llm-layouts rows (labelled sweep=NAME) beside an add row and its copy: the
# transformer-layer section's plots, ratio tables, choice of Loom kernel, bar verdicts and GB/s of
# small M; llm-wide rows in a section of their own, and a second file of another GPU's run in its
# own section. Exit 77 (skipped) when pandas or matplotlib is missing.
# Usage: bash plot_llm_smoke.sh PYTHON3 WORK_DIR
set -uo pipefail
py=${1:?usage: plot_llm_smoke.sh PYTHON3 WORK_DIR}
work=${2:?usage: plot_llm_smoke.sh PYTHON3 WORK_DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)

# The byte count and the label tags need neither pandas nor matplotlib: checked first, always.
if ! "$py" -B -c "
import sys; sys.path.insert(0, '$root/scripts'); import plot, math
assert plot.min_bytes('bf16', 1, 4096, 4096, 0.0) == 33570816
assert plot.min_bytes('bf16', 1, 4096, 4096, math.nan) == 33570816
assert plot.min_bytes('f16', 1, 4096, 4096, 1.0) == 33579008
assert plot.min_bytes('f32', 2, 3, 5, 0.5) == 4 * (2 * 5 + 5 * 3 + 2 * 2 * 3)
assert plot.label_tags('path=tma; sweep=llm; beta=1', '') == ('llm', 1.0)
assert plot.label_tags('', 'alpha=1/beta=0')[1] == 0.0
assert plot.plain_label('path=tma, tma store; sweep=llm; beta=1') == 'path=tma, tma store'
"; then
  echo "FAIL: min_bytes, label_tags or plain_label"
  exit 1
fi
echo "ok   min_bytes, label_tags, plain_label"

if ! "$py" -c "import pandas, matplotlib" 2>/dev/null; then
  echo "pandas or matplotlib missing; skipping"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work/plots"

# Each case's cuBLAS row runs in 10 us (or the time given); a kernel's time follows from its ratio.
"$py" - "$work/bench.json" "$work/h200.json" <<'PY'
import json, sys
rows = []
def row(kernel, dtype, layout, m, n, k, us, vs, label="", error=None):
    name = f"{kernel}/{dtype}/{layout}/{m}x{n}x{k}/min_time:0.200/manual_time"
    r = {"name": name, "run_name": name, "run_type": "iteration", "iterations": 100, "time_unit": "us"}
    if error:
        r.update(error_occurred=True, error_message=error)
    else:
        tf = 2.0 * m * n * k / (us * 1e-6) / 1e12
        r.update({"median_us": us, "TFLOP/s": tf, "pct_peak": 100 * tf / 989.4, "vs_cublas": vs})
    if label:
        r["label"] = label
    rows.append(r)
def case(dtype, layout, m, n, k, ratios, sweep="llm", us=10.0, extra=""):
    tag = f"sweep={sweep}" + (f"; {extra}" if extra else "")
    row("cublas", dtype, layout, m, n, k, us, 1.0, tag)
    for kernel, v in ratios.items():
        if v is None:
            row(kernel, dtype, layout, m, n, k, 0, 0, tag, error="an illegal memory access")
        else:
            row(kernel, dtype, layout, m, n, k, us / v, v, (f"path=tma; {tag}" if kernel == "sm90" else tag))
# bf16 rcr: sm90 at 1.05 everywhere but 1x28672x8192, where sm80 is best at 0.88.
for m in (1, 16, 128, 1024, 8192):
    for n, k in ((4096, 4096), (28672, 8192)):
        worst = (m, n) == (1, 28672)
        case("bf16", "rcr", m, n, k, {"sm80": 0.88 if worst else 0.6, "sm90": 0.85 if worst else 1.05})
# f16 rcr with beta = 1: a kernel named gemm counts, though sm90 is faster.
for m, v in ((1, 1.0), (1024, 1.02)):
    case("f16", "rcr", m, 4096, 4096, {"gemm": v, "sm90": 1.2}, extra="beta=1")
# ccc and crr from --sweep=llm-layouts; one crr case failed.
for m, v in ((128, 0.99), (1024, 0.97), (8192, 1.00)):
    case("bf16", "ccc", m, 4096, 4096, {"sm90": v}, sweep="llm-layouts")
    case("bf16", "crr", m, 4096, 4096, {"sm90": None if m == 1024 else 1.0}, sweep="llm-layouts")
# Another sweep's rows: their own section, and the copy's bandwidth in the small-M note.
rows.append({"name": "memcpy_d2d/f32/ccc/2048x2048x0/min_time:0.200/manual_time", "run_type": "iteration",
             "median_us": 10.0, "GB/s": 3000.0, "pct_peak": 89.5, "vs_cublas": 1.0})
rows.append({"name": "add/f32/ccc/2048x2048x0/min_time:0.200/manual_time", "run_type": "iteration",
             "median_us": 10.0, "GB/s": 2950.0, "pct_peak": 88.0})
# --sweep=llm-wide on the same GPU (labelled with it): a section of its own.
for m, v in ((1, 1.1), (160, 0.85)):
    case("bf16", "rcr", m, 3584, 3584, {"gemm": v}, sweep="llm-wide", extra="device_name=NVIDIA H100 80GB HBM3")
json.dump({"context": {"loom_device": "NVIDIA H100 80GB HBM3", "loom_peak_dram_gbs": "3350.0"},
           "benchmarks": rows}, open(sys.argv[1], "w"), indent=1)
# Another GPU's run of a case that the first file has too: its own section, named after the GPU.
rows = []
case("bf16", "rcr", 1, 4096, 4096, {"gemm": 0.95}, extra="device_name=NVIDIA H200")
json.dump({"context": {"loom_device": "NVIDIA H200", "loom_peak_dram_gbs": "4800.0"},
           "benchmarks": rows}, open(sys.argv[2], "w"), indent=1)
PY

if ! "$py" "$root/scripts/plot.py" "$work/bench.json" "$work/h200.json" --out-dir "$work/plots" --results-md "$work/RESULTS.md" \
    >"$work/stdout" 2>"$work/stderr"; then
  echo "FAIL: plot.py exited non-zero"; cat "$work/stderr"; exit 1
fi

fails=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then echo "ok   $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}
md=$work/RESULTS.md
for png in llm_bf16_rcr llm_f16_rcr llm_bf16_ccc llm_bf16_crr add_f32_ccc; do
  check "$png.png written and linked" test -s "$work/plots/$png.png" -a -n "$(grep -F "(plots/$png.png)" "$md")"
done
check "no per-shape plot of the llm rows" test ! -e "$work/plots/gemm_bf16_rcr.png"
check "the other sweep keeps its section" grep -qx "## add" "$md"
check "no plain gemm section" bash -c "! grep -qx '## gemm' '$md'"
check "section" grep -qxF '## gemm: transformer-layer shapes (`--sweep=llm`)' "$md"
check "columns are N x K" grep -qxF "| M | 4096x4096 | 28672x8192 |" "$md"
check "best kernel per cell, under 0.90 in bold" grep -qxF "| 1 | 1.050 sm90 | **0.880** sm80 |" "$md"
check "which kernels won" grep -qxF 'Loom kernel: the best per case (`sm80` in 1, `sm90` in 9).' "$md"
# bf16 rcr: geomean of nine 1.05 and one 0.88 = 1.0321.
check "rcr summary" grep -qxF "Geometric mean 1.032x cuBLAS over 10 case(s); minimum 0.880x at 1x28672x8192 (sm80)." "$md"
check "rcr bar misses on the minimum" grep -qF "Bar (transformer-layer GEMM bf16 rcr, >= 1.00x geometric mean, no shape < 0.90x): geomean 1.032x, min 0.880x: misses" "$md"
check "a kernel named gemm counts" grep -qxF 'Loom kernel: `gemm`.' "$md"
check "f16 rcr meets" grep -qF "Bar (transformer-layer GEMM f16 rcr, >= 1.00x geometric mean, no shape < 0.90x): geomean 1.010x, min 1.000x: meets" "$md"
# ccc: (0.99 * 0.97 * 1.00)^(1/3) = 0.9866, over the bar of 0.98 though one M is under it.
check "ccc bar at M 128, 1024, 8192" grep -qF "Bar (transformer-layer GEMM bf16 ccc, >= 0.98x geometric mean over M in 128, 1024, 8192): 0.987x over 3 case(s): meets" "$md"
check "crr with a failed case is incomplete" grep -qF "GEMM bf16 crr, >= 0.98x geometric mean over M in 128, 1024, 8192): 1.000x over 2 case(s): incomplete" "$md"
check "failed case shown" grep -qxF "| 1024 | – |" "$md"
# GB/s at M <= 16: 1x4096x4096 bf16 moves 2 * (4096 + 4096^2 + 4096) bytes = 33570816; cuBLAS in
# 10 us: 3,357 GB/s, 100.2% of 3350; sm90 at 1.05x: 3,525 GB/s, 105.2%.
check "GB/s header" grep -qF "| shape | Loom kernel | Loom µs | Loom GB/s | Loom % of DRAM | cuBLAS µs | cuBLAS GB/s | cuBLAS % of DRAM |" "$md"
check "GB/s of M=1" grep -qxF "| 1x4096x4096 | sm90 | 9.5 | 3,525 | 105.2 | 10.0 | 3,357 | 100.2 |" "$md"
check "GB/s note names the peak and the copy" grep -qF "% of the DRAM peak, 3,350 GB/s; the best device-to-device copy of this run reached 3,000 GB/s." "$md"
# f16 with beta = 1 reads C too: 2 * (4096 + 4096^2 + 2 * 4096) = 33579008 bytes.
check "beta = 1 counts C" grep -qxF "| 1x4096x4096 | gemm | 10.0 | 3,358 | 100.2 | 10.0 | 3,358 | 100.2 |" "$md"
check "no GB/s rows past M = 16" bash -c "! grep -qF '| 128x4096x4096 | sm90 |' '$md'"
check "path notes without the sweep tag" grep -qxF "Note: path=tma." "$md"
check "bars on stdout" grep -qF "Bar (transformer-layer GEMM bf16 ccc" "$work/stdout"
check "llm-wide section" grep -qxF '## gemm: wider transformer-layer shapes (`--sweep=llm-wide`)' "$md"
check "llm-wide plot" test -s "$work/plots/llm_wide_bf16_rcr.png"
check "llm-wide bar" grep -qF "Bar (llm-wide GEMM bf16 rcr, >= 1.00x geometric mean, no shape < 0.90x): geomean 0.967x, min 0.850x: misses" "$md"
check "another GPU's section" grep -qxF '## gemm: transformer-layer shapes (`--sweep=llm`), NVIDIA H200' "$md"
check "another GPU's bar" grep -qF "Bar (transformer-layer GEMM bf16 rcr on NVIDIA H200, >= 1.00x geometric mean, no shape < 0.90x): geomean 0.950x, min 0.950x: misses" "$md"
check "another GPU's run named" grep -qF "Measured on NVIDIA H200 (? SMs)" "$md"
check "another GPU's plot" test -s "$work/plots/llm_bf16_rcr_NVIDIA_H200.png"
check "another GPU: no DRAM peak of this one" grep -qxF "| 1x4096x4096 | gemm | 10.5 | 3,189 | 10.0 | 3,357 |" "$md"
if [[ $fails -eq 0 ]]; then echo "plot.py llm: all checks passed"; fi
[[ $fails -eq 0 ]]
