#!/usr/bin/env python3
"""Summarize loom-bench JSON files as a kernel against cuBLAS: per file, dtype and layout, the
geometric mean of vs_cublas, its minimum, the rows below 0.90, and the geometric mean in bands of M.

usage: scripts/sweep_summary.py BENCH_JSON [BENCH_JSON...] [--kernel gemm] [--worst N]

One markdown table on stdout, a row per (file, dtype, layout), naming the file's card; with
--worst N, then the N lowest rows of each file with the path each took. Rows without vs_cublas (the
baselines, failed rows) are left out; a file with none of the kernel's rows is an error.
"""

import argparse
import json
import math
import os
import sys

BANDS = ((1, 16, "M 1-16"), (17, 160, "M 17-160"), (161, 1024, "M 161-1024"), (1025, 1 << 62, "M > 1024"))


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def rows_of(path, kernel):
    try:
        data = json.load(open(path))
    except (OSError, ValueError) as e:
        sys.exit(f"sweep_summary.py: {path}: {e}")
    card = data.get("context", {}).get("loom_device", "?")
    rows = []
    for b in data.get("benchmarks", []):
        parts = b.get("name", "").split("/")
        if len(parts) < 4 or parts[0] != kernel or not b.get("vs_cublas"):
            continue
        path_label = b.get("label", "").split(";")[0]
        rows.append((parts[1], parts[2], int(b["m"]), parts[3], float(b["vs_cublas"]),
                     path_label[5:] if path_label.startswith("path=") else ""))
    if not rows:
        sys.exit(f"sweep_summary.py: {path}: no {kernel} rows with vs_cublas")
    return card, rows


def main():
    ap = argparse.ArgumentParser(description="Summarize loom-bench JSON files against cuBLAS.")
    ap.add_argument("bench_json", nargs="+")
    ap.add_argument("--kernel", default="gemm", help="the kernel whose rows are summarized (default: gemm)")
    ap.add_argument("--worst", type=int, default=0, help="also list each file's N lowest rows")
    a = ap.parse_args()
    print("| file | card | dtype | layout | rows | geomean | min | < 0.90 | " + " | ".join(b[2] for b in BANDS) + " |")
    print("|---" * (8 + len(BANDS)) + "|")
    worst = []
    for path in a.bench_json:
        card, rows = rows_of(path, a.kernel)
        for dt, lay in sorted({(r[0], r[1]) for r in rows}):
            v = [r for r in rows if r[0] == dt and r[1] == lay]
            x = [r[4] for r in v]
            bands = [geomean([r[4] for r in v if lo <= r[2] <= hi]) for lo, hi, _ in BANDS]
            print(f"| {os.path.basename(path)} | {card} | {dt} | {lay} | {len(v)} | {geomean(x):.3f} | {min(x):.3f} | "
                  f"{sum(1 for y in x if y < 0.9)} | " + " | ".join("–" if math.isnan(b) else f"{b:.3f}" for b in bands) + " |")
        worst.append((path, sorted(rows, key=lambda r: r[4])[:a.worst]))
    for path, low in worst:
        if low:
            print(f"\n{os.path.basename(path)}, lowest rows:")
            for dt, lay, m, shape, vs, how in low:
                print(f"- {dt} {lay} {shape}: {vs:.3f}x ({how})")


if __name__ == "__main__":
    main()
