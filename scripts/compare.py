#!/usr/bin/env python3
"""Compare two loom-bench JSON files case by case (Google Benchmark's tools/compare.py, for Loom).

    scripts/compare.sh OLD.json NEW.json [--threshold=PCT] [--fail-on-slower]

A case is a benchmark name without Google Benchmark's suffixes (`sm90/bf16/rcr/4096x4096x4096`).
For each case in both files: the median launch time (`median_us`, the median over repetitions when
the run has several), its change, the noise of each side, `vs_cublas` of each side, and a verdict.
Noise is the `noise_pct` counter when the run has one, else the coefficient of variation of
`median_us` over `--benchmark_repetitions` (0 with one repetition). A change counts as faster or
slower only beyond the larger of --threshold (default 2%) and the two sides' noise added; else
`same`. Cases in one file only are listed as such. Only the standard library is needed.

Exit status: 0; 1 with --fail-on-slower when a case is slower; 2 on bad input (one line on stderr).
"""
import argparse
import math
import statistics
import sys

from report_json import read_json

NAME_SUFFIXES = ("min_time:", "min_warmup_time:", "iterations:", "repeats:", "threads:",
                 "real_time", "manual_time", "process_time")


def die(msg):
    print(f"compare: {msg}", file=sys.stderr)
    sys.exit(2)


def case_of(name):
    return "/".join(p for p in name.split("/") if not p.startswith(NAME_SUFFIXES))


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def load(path):
    doc = read_json(path, die)
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        die(f"{path} is not Google Benchmark JSON (no 'benchmarks' list)")
    cases = {}
    for b in doc["benchmarks"]:
        if not isinstance(b, dict) or b.get("run_type") == "aggregate":
            continue  # repetitions' aggregates: recomputed from the rows below
        c = cases.setdefault(case_of(b.get("run_name") or b.get("name", "")),
                             {"median_us": [], "vs_cublas": [], "noise_pct": [], "error": ""})
        if b.get("error_occurred"):
            c["error"] = (b.get("error_message") or "error").splitlines()[0]
            continue
        for k in ("median_us", "vs_cublas", "noise_pct"):
            v = num(b.get(k))
            if not math.isnan(v):
                c[k].append(v)
    return cases


def summary(c):
    """(median time, noise in percent, vs_cublas) of one side, NaN where unknown."""
    t = c["median_us"]
    med = statistics.median(t) if t else math.nan
    if c["noise_pct"]:
        noise = statistics.median(c["noise_pct"])
    elif len(t) > 1:
        noise = 100.0 * statistics.stdev(t) / statistics.mean(t)
    else:
        noise = 0.0 if t else math.nan
    vs = statistics.median(c["vs_cublas"]) if c["vs_cublas"] else math.nan
    return med, noise, vs


def fmt(v, spec):
    return "-" if math.isnan(v) else format(v, spec)


def main():
    ap = argparse.ArgumentParser(description="Compare two loom-bench JSON files case by case.")
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--threshold", type=float, default=2.0,
                    help="smallest change in percent that counts as faster or slower (default 2)")
    ap.add_argument("--fail-on-slower", action="store_true", help="exit 1 when a case is slower")
    a = ap.parse_args()
    if not (a.threshold >= 0 and math.isfinite(a.threshold)):
        die(f"--threshold must be a non-negative number, got {a.threshold}")
    old, new = load(a.old), load(a.new)

    rows = [("case", "old_us", "new_us", "change", "old_noise", "new_noise", "old_vs_cublas", "new_vs_cublas",
             "verdict")]
    counts = {"faster": 0, "slower": 0, "same": 0}
    ratios = []
    for case in sorted(set(old) | set(new)):
        if case not in new or case not in old:
            rows.append((case, "", "", "", "", "", "", "", "only in " + ("OLD" if case in old else "NEW")))
            continue
        o, n = old[case], new[case]
        if o["error"] or n["error"]:
            rows.append((case, "", "", "", "", "", "", "", "error: " + (n["error"] or o["error"])))
            continue
        (to, no, vo), (tn, nn, vn) = summary(o), summary(n)
        if math.isnan(to) or math.isnan(tn) or to <= 0:
            rows.append((case, fmt(to, ".2f"), fmt(tn, ".2f"), "", "", "", "", "", "no median_us"))
            continue
        change = 100.0 * (tn / to - 1.0)
        limit = max(a.threshold, (no if not math.isnan(no) else 0) + (nn if not math.isnan(nn) else 0))
        verdict = "slower" if change > limit else "faster" if change < -limit else "same"
        counts[verdict] += 1
        ratios.append(tn / to)
        rows.append((case, f"{to:.2f}", f"{tn:.2f}", f"{change:+.1f}%", fmt(no, ".1f") + "%", fmt(nn, ".1f") + "%",
                     fmt(vo, ".3f"), fmt(vn, ".3f"), verdict))

    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) if i in (0, 8) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else math.nan
    print(f"compare: {len(ratios)} cases in both, {counts['faster']} faster, {counts['slower']} slower, "
          f"{counts['same']} same; geometric mean time new/old {fmt(geo, '.3f')}")
    return 1 if a.fail_on_slower and counts["slower"] else 0


if __name__ == "__main__":
    sys.exit(main())
