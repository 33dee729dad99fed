#!/usr/bin/env python3
"""Plot a loom-bench JSON and regenerate RESULTS.md.

usage: scripts/plot.py BENCH_JSON [BENCH_JSON...] [--out-dir DIR] [--results-md RESULTS.md] [--command CMD]

One PNG per (op, dtype, layout): throughput against problem size, one line per kernel, with the
cuBLAS baseline, the device-to-device copy (bandwidth-bound ops) and the device's peak. RESULTS.md
gets a header (GPU, driver, CUDA and cuBLAS versions, date, the command), then per plot its image
and a table: kernel, dtype, layout, shape, median us, GB/s or TFLOP/s, % of peak, vs cuBLAS. The
kernels' rows are printed to stdout last. Rows of loom-bench --sweep=llm and llm-layouts (label
sweep=NAME) get a section of their own instead, and those of --sweep=llm-wide another: per dtype
and layout, Loom/cuBLAS against M with one line per (N, K), a table of the ratios, the bar
verdicts, and GB/s at small M. The header is the first JSON's GPU; a JSON of another GPU's run
(its rows labelled device_name=NAME) gets sections of its own, named after that GPU. Needs pandas
and matplotlib.
"""

import argparse
import glob
import math
import os
import re
import sys

from report_json import read_json

BASELINES = ("cublas", "memcpy_d2d")
# Parts Google Benchmark appends to a benchmark's name.
NAME_SUFFIXES = ("min_time:", "min_warmup_time:", "iterations:", "repeats:", "threads:",
                 "real_time", "manual_time", "process_time")


def die(msg):
    print(f"plot.py: {msg}", file=sys.stderr)
    sys.exit(2)


def import_libs():
    try:
        import pandas as pd
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        die(f"needs pandas and matplotlib ({e}); install them with "
            "`apt-get install python3-pandas python3-matplotlib` or `pip install pandas matplotlib`")
    return pd, plt


def parse_name(name):
    """'add/f32/ccc/2048x2048x0/min_time:0.200/manual_time' -> (kernel, dtype, layout, M, N, K, variant)."""
    parts = name.split("/")
    if len(parts) < 4:
        return None
    kernel, dtype, layout, shape = parts[:4]
    dims = shape.split("x")
    if len(dims) != 3 or not all(d.isdigit() for d in dims):
        return None
    variant = "/".join(p for p in parts[4:] if not p.startswith(NAME_SUFFIXES))
    return kernel, dtype, layout, int(dims[0]), int(dims[1]), int(dims[2]), variant


def num(v):
    try:
        f = float(v)
    except (TypeError, ValueError):
        return math.nan
    return f


def median(values):
    vals = sorted(v for v in values if not math.isnan(v))
    if not vals:
        return math.nan
    mid = len(vals) // 2
    return vals[mid] if len(vals) % 2 else (vals[mid - 1] + vals[mid]) / 2


def load(path):
    doc = read_json(path, die)
    if not isinstance(doc, dict) or "benchmarks" not in doc:
        die(f"{path} is not Google Benchmark JSON (no 'benchmarks')")
    return doc.get("context", {}), doc["benchmarks"]


def collect(benchmarks):
    """One record per benchmark: the 'median' aggregate when there are repetitions, else the
    median over the repetitions' rows."""
    runs = {}
    for b in benchmarks:
        run = b.get("run_name") or b.get("name", "")
        entry = runs.setdefault(run, {"iterations": [], "median": None, "error": "", "label": ""})
        if b.get("error_occurred"):
            entry["error"] = b.get("error_message") or "error"
            entry["label"] = b.get("label", "")
        elif b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                entry["median"] = b
        else:
            entry["iterations"].append(b)

    records = []
    fields = ("median_us", "GB/s", "TFLOP/s", "pct_peak", "vs_cublas", "noise_pct", "samples")
    for run, e in runs.items():
        parsed = parse_name(run)
        if parsed is None:
            print(f"plot.py: skipping {run!r}: not <kernel>/<dtype>/<layout>/<M>x<N>x<K>", file=sys.stderr)
            continue
        kernel, dtype, layout, m, n, k, variant = parsed
        rows = [e["median"]] if e["median"] is not None else e["iterations"]
        label = rows[0].get("label", "") if rows else e["label"]
        # loom-bench's rows carry dtype and layout in the label and M, N, K as the counters m, n, k
        # (in the label too where a row failed, since Google Benchmark drops a failed row's
        # counters); the name is the fallback for files written before.
        given = label_fields(label)
        dtype, layout = given.get("dtype", dtype), given.get("layout", layout)
        dims = []
        for key, parsed_dim in (("m", m), ("n", n), ("k", k)):
            v = median([num(r.get(key)) for r in rows]) if rows else math.nan
            v = num(given.get(key)) if math.isnan(v) else v
            dims.append(parsed_dim if math.isnan(v) else int(v))
        m, n, k = dims
        rec = dict(kernel=kernel, dtype=dtype, layout=layout, M=m, N=n, K=k, variant=variant,
                   error=e["error"], label=label)
        for f in fields:
            rec[f] = median([num(r.get(f)) for r in rows]) if rows else math.nan
        rec["sweep"], rec["beta"] = label_tags(rec["label"], variant)
        # loom-bench's check of the row before timing it (passed, incorrect, not_verified, failed);
        # files written before it checked have none.
        rec["disposition"] = given.get("disposition", "")
        # The GPU that ran the row (loom-bench labels it device_name=NAME; older files do not).
        rec["card"] = given.get("device_name", "")
        if not math.isnan(rec["GB/s"]):
            rec["op"], rec["thr"], rec["unit"] = "add", rec["GB/s"], "GB/s"
        elif not math.isnan(rec["TFLOP/s"]):
            rec["op"], rec["thr"], rec["unit"] = "gemm", rec["TFLOP/s"], "TFLOP/s"
        else:  # failed: guess the op from K (add cases carry K 0 or 1)
            rec["op"], rec["thr"], rec["unit"] = ("add" if k <= 1 else "gemm"), math.nan, ""
        records.append(rec)
    return records


def label_fields(label):
    """The key=value fields of a label ('dtype=bf16; layout=rcr; path=tma, tma store' ->
    {'dtype': 'bf16', 'layout': 'rcr', 'path': 'tma, tma store'}); free text without '=' is left out."""
    parts = label.split("; ") if label else []
    return dict(p.split("=", 1) for p in parts if "=" in p and " " not in p.split("=", 1)[0])


def label_tags(label, variant):
    """(sweep, beta) of a row: loom-bench labels the rows of a named sweep 'sweep=NAME', adds
    'beta=V' where C is read, and names carry '/beta=V' when a run has several. Beta is NaN when
    neither says (0 for gemm unless --beta was given)."""
    parts = label.split("; ") if label else []
    sweep = next((p[len("sweep="):] for p in parts if p.startswith("sweep=")), "")
    beta = next((num(p[len("beta="):]) for p in parts if p.startswith("beta=")), math.nan)
    m = re.search(r"(?:^|/)beta=([^/]+)", variant)
    if m:
        beta = num(m.group(1))
    return sweep, beta


# Label fields that every row has or that the tables show already: no note under a table. The GPU
# of a row (device, device_name, pci_bus_id) is in the header, every GPU of a merged file too.
ROW_FIELDS = ("sweep=", "beta=", "dtype=", "layout=", "out_dtype=", "m=", "n=", "k=", "disposition=",
              "device=", "device_name=", "pci_bus_id=")


def plain_label(label):
    """The label without the fields label_tags() reads and the row's own fields, for the notes
    under a table (what is left: a kernel's path, the cuBLAS baseline's note, --tags)."""
    return "; ".join(p for p in (label.split("; ") if label else []) if not p.startswith(ROW_FIELDS))


def shape_label(op, m, n, k):
    return f"{m}x{n}" if op == "add" else f"{m}x{n}x{k}"


def kernel_rank(kernel):
    return (BASELINES.index(kernel), kernel) if kernel in BASELINES else (len(BASELINES), kernel)


def fmt(v, spec):
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def slug(s):
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in s).strip("_")


def plot_group(plt, df, op, dtype, layout, variant, out_dir):
    shapes = (df[["M", "N", "K"]].drop_duplicates()
              .assign(size=lambda d: d.M * d.N * (d.K.clip(lower=1) if op == "gemm" else 1))
              .sort_values(["size", "M", "N", "K"]))
    keys = [tuple(r) for r in shapes[["M", "N", "K"]].itertuples(index=False)]
    xpos = {key: i for i, key in enumerate(keys)}
    unit = "GB/s" if op == "add" else "TFLOP/s"

    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for kernel in sorted(df.kernel.unique(), key=kernel_rank):
        d = df[(df.kernel == kernel) & df.thr.notna()]
        if d.empty:
            continue
        d = d.assign(x=[xpos[(r.M, r.N, r.K)] for r in d.itertuples()]).sort_values("x")
        cublas = "cuBLAS" + (" (fp32 geam)" if op == "add" and dtype != "f32" else "")
        style = {"cublas": dict(color="black", linestyle="--", marker="s", label=cublas),
                 "memcpy_d2d": dict(color="gray", linestyle=":", marker="^", label="cudaMemcpy D2D")
                 }.get(kernel, dict(linestyle="-", marker="o", linewidth=2, label=kernel))
        ax.plot(d.x, d.thr, **style)
    top = float(df.thr.max()) if df.thr.notna().any() else 1.0
    ok = df[df.thr.notna() & df.pct_peak.notna() & (df.pct_peak > 0)]
    if not ok.empty:
        peak = float((ok.thr * 100.0 / ok.pct_peak).median())
        ax.axhline(peak, color="red", linewidth=1, label=f"peak {peak:,.0f} {unit}")
        top = max(top, peak)
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([shape_label(op, *key) for key in keys], rotation=30 if len(keys) > 4 else 0)
    ax.set_xlabel("M x N" if op == "add" else "M x N x K")
    ax.set_ylabel(unit)
    ax.set_ylim(0, top * 1.08)
    title = f"{op} {dtype} {layout}" + (f" {variant}" if variant else "")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    name = slug(f"{op}_{dtype}_{layout}" + (f"_{variant}" if variant else "")) + ".png"
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path, title


def table(df, op):
    unit = "GB/s" if op == "add" else "TFLOP/s"
    lines = [f"| kernel | dtype | layout | shape | median µs | {unit} | % of peak | vs cuBLAS | noise % | samples | check |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in df.itertuples():
        if r.error:
            lines.append(f"| {r.kernel} | {r.dtype} | {r.layout} | {shape_label(op, r.M, r.N, r.K)} | "
                         f"failed: {str(r.error).replace('|', '/')} | | | | | | {r.disposition} |")
            continue
        check = "**incorrect**" if r.disposition == "incorrect" else r.disposition
        lines.append(f"| {r.kernel} | {r.dtype} | {r.layout} | {shape_label(op, r.M, r.N, r.K)} | "
                     f"{fmt(r.median_us, '.1f')} | {fmt(r.thr, ',.1f' if op == 'add' else '.2f')} | "
                     f"{fmt(r.pct_peak, '.1f')} | {fmt(r.vs_cublas, '.3f')} | {fmt(r.noise_pct, '.2f')} | "
                     f"{fmt(r.samples, '.0f')} | {check} |")
    return lines


def ordered(df):
    size = df.M * df.N * (df.K.clip(lower=1).where(df.op == "gemm", 1))
    return (df.assign(_size=size, _rank=[kernel_rank(k) for k in df.kernel])
            .sort_values(["op", "dtype", "layout", "variant", "_size", "M", "N", "K", "_rank"])
            .drop(columns=["_size", "_rank"]))


def bar_lines(df):
    """The performance bars' verdicts: add against cublasSgeam and the copy, the GEMM kernels against
    cuBLAS at their squares."""
    out = []
    big = df[(df.op == "add") & (df.dtype == "f32") & ~df.kernel.isin(BASELINES) &
             (df.M * df.N * 4 >= 1 << 30)]
    for r in big.itertuples():
        if r.error or math.isnan(r.vs_cublas):
            verdict = "no result" if r.error else "no cuBLAS baseline in this run"
        else:
            verdict = f"{r.vs_cublas:.3f}x cublasSgeam: " + ("meets" if r.vs_cublas >= 1.0 else "misses")
        out.append(f"Bar (fp32 add, 1 GiB operands, >= 1.0x cublasSgeam): "
                   f"{r.kernel} {r.layout} {r.M}x{r.N}: {verdict}")

    # add against the device-to-device copy of the same bytes in the same run, at 2048^2 and up.
    copies = {(r.dtype, r.layout, r.variant, r.M, r.N): r.thr
              for r in df[(df.kernel == "memcpy_d2d") & df.thr.notna()].itertuples()}
    adds = df[(df.op == "add") & ~df.kernel.isin(BASELINES) & (df.M * df.N >= 2048 * 2048)]
    ratios, missing = [], 0
    for r in adds.itertuples():
        c = copies.get((r.dtype, r.layout, r.variant, r.M, r.N), math.nan)
        if r.error or math.isnan(r.thr) or math.isnan(c) or c <= 0:
            missing += 1
        else:
            ratios.append((r.thr / c, r))
    if ratios or missing:
        what = "Bar (add, every dtype and layout at 2048^2 and up, >= 0.97x of the copy in the same run): "
        if not ratios:
            out.append(what + f"no ratio in this run ({missing} case(s) without one)")
        else:
            lo, w = min(ratios, key=lambda t: t[0])
            verdict = "incomplete" if missing else "meets" if lo >= 0.97 else "misses"
            out.append(what + f"min {lo:.3f}x ({w.kernel} {w.dtype} {w.layout} {w.M}x{w.N}) over {len(ratios)} "
                       f"case(s)" + (f", {missing} without a ratio" if missing else "") + f": {verdict}")

    gemm = df[(df.op == "gemm") & ~df.kernel.isin(BASELINES) & ~df.error.astype(bool)]

    def ratio_line(what, rows, bar):
        for r in rows.itertuples():
            v = r.vs_cublas
            verdict = "no cuBLAS baseline in this run" if math.isnan(v) else \
                f"{v:.3f}x cuBLAS: " + ("meets" if v >= bar else "misses")
            out.append(f"Bar ({what}, >= {bar}x cuBLAS): {r.kernel} {r.dtype} {r.layout} "
                       f"{r.M}x{r.N}x{r.K}: {verdict}")

    square = (gemm.M == gemm.N) & (gemm.N == gemm.K)
    ratio_line("fp32 SGEMM at 4096^3 and 8192^3", gemm[(gemm.kernel == "fma") & square & gemm.M.isin([4096, 8192])], 1.0)
    f32 = gemm[(gemm.kernel == "fma") & ~gemm.vs_cublas.isna()]
    if len(f32) > 1 and (~square[f32.index]).any():
        g = math.exp(sum(math.log(v) for v in f32.vs_cublas) / len(f32))
        out.append(f"Bar (fp32 SGEMM geometric mean over {len(f32)} shapes incl. skinny, >= 0.85x cuBLAS): "
                   f"fma {g:.3f}x: " + ("meets" if g >= 0.85 else "misses"))
    for size, bar in ((8192, 0.65), (4096, 0.55)):
        ratio_line(f"bf16 mma.sync GEMM at {size}^3", gemm[(gemm.kernel == "sm80") & (gemm.dtype == "bf16") & square & (gemm.M == size)], bar)
    for dt, bar in (("bf16", 1.0), ("f16", 0.97)):
        ratio_line(f"{dt} Hopper wgmma GEMM at 4096^3 and 8192^3", gemm[(gemm.kernel == "sm90") & (gemm.dtype == dt) & square & gemm.M.isin([4096, 8192])], bar)
    sm80 = gemm[(gemm.kernel == "sm80") & square]
    cub = df[(df.kernel == "cublas") & (df.op == "gemm") & ~df.error.astype(bool)]
    for (m, lay), grp in sm80.groupby(["M", "layout"]):
        t = dict(zip(grp.dtype, grp.thr))
        if "f16" in t and "bf16" in t and t["bf16"] > 0:
            q = t["f16"] / t["bf16"]
            # cuBLAS's own f16/bf16 ratio in the same run: the power cap lowers clocks more for f16.
            c = cub[(cub.M == m) & (cub.N == m) & (cub.K == m) & (cub.layout == lay)]
            ct = dict(zip(c.dtype, c.thr))
            ref = f" (cuBLAS f16/bf16 = {ct['f16'] / ct['bf16']:.3f})" if "f16" in ct and ct.get("bf16", 0) > 0 else ""
            out.append(f"Bar (fp16 within 3% of bf16): sm80 {lay} {m}^3: f16/bf16 = {q:.3f}{ref}: " +
                       ("meets" if q >= 0.97 else "misses"))
    return out


# Rows of loom-bench --sweep=llm, --sweep=llm-layouts and --sweep=llm-wide (their label says
# sweep=NAME). llm and llm-layouts share a section; llm-wide, the wider projections, has its own.
LLM_SWEEPS = ("llm", "llm-layouts", "llm-wide")
# Per section: its heading, the name its bar lines give, its plots' file prefix and title words.
LLM_TITLES = {"llm": ("transformer-layer shapes (`--sweep=llm`)", "transformer-layer GEMM", "llm_",
                      "transformer layers"),
              "llm-wide": ("wider transformer-layer shapes (`--sweep=llm-wide`)", "llm-wide GEMM", "llm_wide_",
                           "wider transformer layers")}
# The bars of the transformer-layer sweep, best Loom kernel over cuBLAS per case: a geometric mean
# of at least 1.00 and no shape under 0.90; for ccc and crr, a geometric mean of at least 0.98 over
# a short, a medium and a long M.
LLM_GEOMEAN_BAR, LLM_MIN_BAR = 1.00, 0.90
LLM_LOOSE_LAYOUTS, LLM_LOOSE_M, LLM_LOOSE_BAR = ("ccc", "crr"), (128, 1024, 8192), 0.98
# Decoding-sized M, bound by reading B: these rows also get GB/s against the DRAM peak.
LLM_SMALL_M = 16
DTYPE_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "e4m3": 1, "e5m2": 1}
# A kernel registered under this name is the one GEMM entry point; where it ran, its ratio is the
# row's, rather than the best of the kernels that ran.
PRIMARY_GEMM = "gemm"


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan


def min_bytes(dtype, m, n, k, beta):
    """What a GEMM must move at least: read A and B, write D, and read C where beta != 0. The
    output is in the input dtype, or bf16 for 8-bit inputs (loom-bench times gemm so; an 8-bit row's
    dtype is its input types, e.g. e4m3, e4m3xe5m2, e4m3-fast or e4m3-block); unknown beta counts as 0."""
    e = DTYPE_BYTES.get(dtype.split("-")[0].split("x")[0], math.nan)
    out = 2 if e == 1 else e
    reads_c = not math.isnan(beta) and beta != 0
    return e * (m * k + k * n) + out * m * n * (2 if reads_c else 1)


def llm_cases(g):
    """Per case of one (dtype, layout, variant) group: the Loom kernel whose ratio counts, the ratio
    (its throughput over cuBLAS's), and both median times. A case where nothing ran has ratio NaN."""
    cases = []
    for (m, n, k), rows in g.groupby(["M", "N", "K"]):
        cub = rows[(rows.kernel == "cublas") & ~rows.error.astype(bool)]
        cub_thr = float(cub.thr.iloc[0]) if not cub.empty else math.nan
        cub_us = float(cub.median_us.iloc[0]) if not cub.empty else math.nan
        beta = next((b for b in rows.beta if not math.isnan(b)), math.nan)
        best = None
        for r in rows[~rows.kernel.isin(BASELINES) & ~rows.error.astype(bool)].itertuples():
            ratio = r.vs_cublas if not math.isnan(r.vs_cublas) else (
                r.thr / cub_thr if cub_thr > 0 else math.nan)
            if math.isnan(ratio):
                continue
            if r.kernel == PRIMARY_GEMM:
                best = (r.kernel, ratio, r.median_us)
                break
            if best is None or ratio > best[1]:
                best = (r.kernel, ratio, r.median_us)
        kernel, ratio, us = best if best else ("", math.nan, math.nan)
        cases.append(dict(M=m, N=n, K=k, beta=beta, kernel=kernel, ratio=ratio, loom_us=us, cublas_us=cub_us))
    return cases


def llm_verdict(dtype, layout, variant, cases, name="transformer-layer GEMM", card=""):
    """One bar line for the group, and the summary sentences under its table; name and card (where
    it is not the card of the benchmarks above) say which sweep and GPU the bar is about."""
    what = f"{dtype} {layout}" + (f" {variant}" if variant else "") + (f" on {card}" if card else "")
    ok = [c for c in cases if not math.isnan(c["ratio"])]
    missing = len(cases) - len(ok)
    sentences = []
    if ok:
        worst = min(ok, key=lambda c: c["ratio"])
        sentences.append(f"Geometric mean {geomean([c['ratio'] for c in ok]):.3f}x cuBLAS over {len(ok)} "
                         f"case(s); minimum {worst['ratio']:.3f}x at {worst['M']}x{worst['N']}x{worst['K']} "
                         f"({worst['kernel']}).")
    if missing:
        sentences.append(f"{missing} case(s) without a ratio (failed, or no Loom kernel or cuBLAS row).")
    if layout in LLM_LOOSE_LAYOUTS:
        bar = f">= {LLM_LOOSE_BAR:.2f}x geometric mean over M in {', '.join(map(str, LLM_LOOSE_M))}"
        at = [c for c in cases if c["M"] in LLM_LOOSE_M]
        vals = [c["ratio"] for c in at if not math.isnan(c["ratio"])]
        if not at:
            verdict = "no case at those M in this run"
        else:
            g = geomean(vals)
            verdict = f"{g:.3f}x over {len(vals)} case(s): " + (
                "incomplete" if len(vals) < len(at) else "meets" if g >= LLM_LOOSE_BAR else "misses")
    else:
        bar = f">= {LLM_GEOMEAN_BAR:.2f}x geometric mean, no shape < {LLM_MIN_BAR:.2f}x"
        if not ok:
            verdict = "no ratio in this run"
        else:
            g, lo = geomean([c["ratio"] for c in ok]), min(c["ratio"] for c in ok)
            verdict = f"geomean {g:.3f}x, min {lo:.3f}x: " + (
                "incomplete" if missing else
                "meets" if g >= LLM_GEOMEAN_BAR and lo >= LLM_MIN_BAR else "misses")
    return f"Bar ({name} {what}, {bar}): {verdict}", sentences


def plot_llm(plt, dtype, layout, variant, cases, out_dir, family="llm", card=""):
    _, _, prefix, words = LLM_TITLES[family]
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    ms = sorted({c["M"] for c in cases})
    for n, k in sorted({(c["N"], c["K"]) for c in cases}, key=lambda nk: (nk[0] * nk[1], nk)):
        pts = sorted((c["M"], c["ratio"]) for c in cases
                     if (c["N"], c["K"]) == (n, k) and not math.isnan(c["ratio"]))
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"N={n}, K={k}")
    ax.axhline(1.0, color="black", linewidth=1, label="1.00 (cuBLAS)")
    ax.axhline(LLM_MIN_BAR, color="red", linewidth=1, linestyle="--", label=f"{LLM_MIN_BAR:.2f}")
    if layout in LLM_LOOSE_LAYOUTS:
        ax.axhline(LLM_LOOSE_BAR, color="orange", linewidth=1, linestyle=":", label=f"{LLM_LOOSE_BAR:.2f}")
    ax.set_xscale("log", base=2)
    if ms:
        ax.set_xticks(ms)
        ax.set_xticklabels([str(m) for m in ms])
        ax.minorticks_off()
    ax.set_xlabel("M (tokens)")
    ax.set_ylabel("Loom / cuBLAS throughput")
    title = f"gemm {dtype} {layout} {words}" + (f" {variant}" if variant else "") + (f", {card}" if card else "")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    path = os.path.join(out_dir, slug(f"{prefix}{dtype}_{layout}" + (f"_{variant}" if variant else "") +
                                      (f"_{card}" if card else "")) + ".png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path, title


def llm_sections(plt, llm, ctx, memcpy_gbs, out_dir, md_dir, contexts, bench_commit=None):
    """RESULTS.md's sections for the transformer-layer sweeps and their bar lines: one per sweep
    (llm with llm-layouts, and llm-wide) and GPU, those of the benchmarks' GPU first. A section of
    another GPU (rows of another run's JSON) names it, and leaves out the DRAM peak and copy of
    this one; a section made at another commit says so. contexts: each JSON file's context by path."""
    home = str(ctx.get("loom_device", ""))
    family = llm.sweep.where(llm.sweep == "llm-wide", "llm")
    card = llm.card.where(~llm.card.isin(["", home]), "")
    keys = sorted({(c, f) for f, c in zip(family, card)}, key=lambda cf: (cf[0] != "", cf[0], cf[1] != "llm"))
    md, bars = [], []
    for c, f in keys:
        g = llm[(family == f) & (card == c)]
        sources = sorted(set(g.source))
        note = commit_note(sources, bench_commit)
        if c:  # another GPU: where and how its rows were measured, from its file
            o = contexts[sources[0]]
            note += [f"Measured on {c} ({o.get('loom_sm_count', '?')} SMs), {o.get('date', '?')}: NVIDIA driver "
                     f"{o.get('loom_nvidia_driver', '?')}, CUDA runtime {o.get('loom_cuda_runtime', '?')}, cuBLAS "
                     f"{o.get('loom_cublas', '?')}" +
                     (f"; `{o['loom_command']}`" if o.get("loom_command") else "") + ".", ""]
        m, b = llm_section(plt, g, ctx, math.nan if c else memcpy_gbs, out_dir, md_dir, f, c, note)
        md += m
        bars += b
    return md, bars


def llm_section(plt, llm, ctx, memcpy_gbs, out_dir, md_dir, family="llm", card="", note=()):
    """RESULTS.md's section for one transformer-layer sweep on one GPU, and its bar lines."""
    heading, name, _, _ = LLM_TITLES[family]
    md = [f"## gemm: {heading}" + (f", {card}" if card else ""), "", *note,
          "Each cell is the Loom kernel's throughput over cuBLAS's for the same case in the same run: "
          f"the kernel `{PRIMARY_GEMM}` where it ran, else the best Loom kernel of the case (named in "
          "the cell when the best is not the same kernel everywhere). Bars: a geometric mean of "
          f">= {LLM_GEOMEAN_BAR:.2f}x with no shape < {LLM_MIN_BAR:.2f}x; for "
          f"{' and '.join(LLM_LOOSE_LAYOUTS)}, >= {LLM_LOOSE_BAR:.2f}x geometric mean over "
          f"M in {', '.join(map(str, LLM_LOOSE_M))}. Ratios under {LLM_MIN_BAR:.2f} are in bold.", ""]
    peak = math.nan if card else num(ctx.get("loom_peak_dram_gbs"))
    bars = []
    for (dtype, layout, variant), g in llm.groupby(["dtype", "layout", "variant"], sort=True):
        cases = llm_cases(g)
        bar, sentences = llm_verdict(dtype, layout, variant, cases, name, card)
        bars.append(bar)
        path, title = plot_llm(plt, dtype, layout, variant, cases, out_dir, family, card)
        rel = os.path.relpath(os.path.abspath(path), md_dir).replace(os.sep, "/")
        md += [f"### {dtype}, {layout}" + (f", {variant}" if variant else ""), "", f"![{title}]({rel})", ""]

        winners = sorted({c["kernel"] for c in cases if c["kernel"]})
        counts = {w: sum(c["kernel"] == w for c in cases) for w in winners}
        if len(winners) == 1:
            md += [f"Loom kernel: `{winners[0]}`.", ""]
        elif winners:
            md += ["Loom kernel: the best per case (" +
                   ", ".join(f"`{w}` in {counts[w]}" for w in winners) + ").", ""]
        nks = sorted({(c["N"], c["K"]) for c in cases}, key=lambda nk: (nk[0] * nk[1], nk))
        by = {(c["M"], c["N"], c["K"]): c for c in cases}
        md += ["Columns: N x K.", "",
               "| M | " + " | ".join(f"{n}x{k}" for n, k in nks) + " |",
               "|---:|" + "---:|" * len(nks)]
        for m in sorted({c["M"] for c in cases}):
            cells = []
            for n, k in nks:
                c = by.get((m, n, k))
                if c is None:
                    cells.append("")
                elif math.isnan(c["ratio"]):
                    cells.append("–")
                else:
                    v = f"{c['ratio']:.3f}"
                    v = f"**{v}**" if c["ratio"] < LLM_MIN_BAR else v
                    cells.append(v + (f" {c['kernel']}" if len(winners) > 1 else ""))
            md.append(f"| {m} | " + " | ".join(cells) + " |")
        md += ["", *sentences, f"**{bar}**", ""]

        small = [c for c in cases if c["M"] <= LLM_SMALL_M]
        if small:
            pct = not math.isnan(peak) and peak > 0
            md += [f"M <= {LLM_SMALL_M}, bound by reading B: achieved GB/s from the bytes the GEMM must move "
                   "at least (A + B read, D written, C read where beta != 0), over the median time" +
                   (f"; % of the DRAM peak, {peak:,.0f} GB/s" if pct else "") +
                   (f"; the best device-to-device copy of this run reached {memcpy_gbs:,.0f} GB/s"
                    if not math.isnan(memcpy_gbs) else "") + ".", "",
                   "| shape | Loom kernel | Loom µs | Loom GB/s |" + (" Loom % of DRAM |" if pct else "") +
                   " cuBLAS µs | cuBLAS GB/s |" + (" cuBLAS % of DRAM |" if pct else ""),
                   "|---|---|---:|---:|" + ("---:|" if pct else "") + "---:|---:|" + ("---:|" if pct else "")]
            for c in sorted(small, key=lambda c: (c["M"], c["N"] * c["K"], c["N"])):
                b = min_bytes(dtype, c["M"], c["N"], c["K"], c["beta"])
                cols = [f"{c['M']}x{c['N']}x{c['K']}", c["kernel"] or "–"]
                for us in (c["loom_us"], c["cublas_us"]):
                    gbs = b / (us * 1e-6) / 1e9 if us > 0 else math.nan
                    cols += [fmt(us, ".1f"), fmt(gbs, ",.0f")] + ([fmt(100 * gbs / peak, ".1f")] if pct else [])
                md.append("| " + " | ".join(cols) + " |")
            md.append("")

        labels = sorted({plain_label(r.label) for r in g.itertuples() if plain_label(r.label)})
        md += [f"Note: {lab}." for lab in labels] + ([""] if labels else [])
        md += ["<details><summary>Every row</summary>", ""] + table(g, "gemm") + ["", "</details>", ""]
    return md, bars


def header(ctx, json_path, command, commit=None):
    def get(key, default="?"):
        v = ctx.get(key)
        return str(v) if v not in (None, "") else default

    lines = ["# Results", "",
             f"Generated by `scripts/plot.py` from `{json_path}`; rerun `scripts/run.sh` to refresh.", ""]
    if command:
        lines.append(f"- Command: `{command}`")
    lines.append(f"- Commit: `{commit}`" if commit else "- Commit: not recorded (the JSON has no .commit beside it)")
    if ctx.get("loom_command"):
        lines.append(f"- loom-bench: `{ctx['loom_command']}`")
    l2 = num(ctx.get("loom_l2_bytes"))
    l2_mib = "?" if math.isnan(l2) else f"{l2 / 2**20:g}"
    lines += [
        f"- Date: {get('date')}",
        f"- GPU: {get('loom_device')} ({get('loom_sm_count')} SMs, compute capability {get('loom_cc')}, "
        f"max SM clock {get('loom_sm_clock_max_mhz')} MHz, L2 {l2_mib} MiB)",
        *gpus_line(ctx),
        f"- Clocks at start: {get('loom_clocks_at_start')}",
        f"- NVIDIA driver {get('loom_nvidia_driver')} (CUDA driver API {get('loom_driver')}), "
        f"CUDA runtime {get('loom_cuda_runtime')}, cuBLAS {get('loom_cublas')}",
        f"- Peaks: {get('loom_peaks')}",
        f"- Timing: {get('loom_timing')}",
        f"- Host: {get('host_name')}, Google Benchmark library built as {get('library_build_type')}"
        + (" (the library's own code: it only drives the loop and records the CUDA-event times loom-bench "
           "hands it; the timed kernels are Loom's Release build and cuBLAS)"
           if get('library_build_type') == 'debug' else ""),
        "",
        "Columns: *median µs* is the median time of one launch (CUDA events); *GB/s* counts two reads "
        "and one write per element of add, *TFLOP/s* 2·M·N·K for gemm, both from the median; "
        "*% of peak* is against the peak above; *vs cuBLAS* is the throughput divided by cuBLAS's for "
        "the same case in the same run (f16/bf16 add, which cuBLAS lacks: fp32 geam over the same "
        "shape, compared in bytes per second). *memcpy_d2d* moves the same number of bytes with "
        "cudaMemcpyAsync, as a bandwidth ceiling.",
        ""]
    return lines


def gpus_line(ctx):
    """A file merged from one process per GPU (scripts/merge_reports.py) lists its GPUs; the line
    above is the first's."""
    devices = ctx.get("loom_devices")
    if not isinstance(devices, list) or len(devices) < 2:
        return []
    each = "; ".join(f"{d.get('ordinal', '?')} {d.get('name', '?')} ({d.get('pci_bus_id') or '?'}, shard {d.get('shard', '?')})"
                     for d in devices if isinstance(d, dict))
    return [f"- GPUs: {len(devices)} processes, one per GPU: {each}"]


def commit_of(path):
    """The commit a result file was made at (its FILE.commit, scripts/common.sh's loom_stamp), or None."""
    try:
        with open(path + ".commit") as f:
            return f.read().strip() or None
    except OSError:
        return None


def commit_note(paths, bench_commit):
    """A visible note when a section's files were not made at the benchmarks' commit (or say none)."""
    commits = sorted({commit_of(p) or "an unrecorded commit" for p in paths})
    if bench_commit and commits == [bench_commit]:
        return []
    made = " and ".join(f"`{c}`" if c != "an unrecorded commit" else c for c in commits)
    bench = f"`{bench_commit}`" if bench_commit else "an unrecorded commit"
    return [f"> **Note:** this section was made at {made}, the benchmarks above at {bench}.", ""]


def extra_sections(folder, bench_commit=None):
    """Validation, sanitizer and Nsight Compute summaries from the same run, verbatim; a section made
    at another commit than the benchmarks (a file left from an older run) says so in a note."""
    out = []
    validate = os.path.join(folder, "validate.txt")
    if os.path.isfile(validate):
        with open(validate) as f:
            lines = [ln.rstrip() for ln in f if ln.strip()]
        if lines:
            out += ["## Validation against cuBLAS and fp64", "", *commit_note([validate], bench_commit),
                    "`build/loom-validate --quiet` (the default sweep: ragged sizes, every layout, padded "
                    "and misaligned leading dimensions, alpha/beta other than 1/0), in the same run:", "",
                    "```", *lines[-20:], "```", ""]
    # The named validation sweeps (run.sh: loom-validate --sweep=llm and llm-ragged through gemm).
    for path in sorted(glob.glob(os.path.join(folder, "validate_*.txt"))):
        sweep = os.path.basename(path)[len("validate_"):-len(".txt")].replace("_", "-")
        with open(path) as f:
            lines = [ln.rstrip() for ln in f if ln.strip()]
        failing = [ln for ln in lines if re.search(r" fail( |:|$)", ln)]
        if lines:
            out += [*commit_note([path], bench_commit),
                    f"`build/loom-validate --sweep={sweep} --kernels=gemm --quiet`, in the same run:", "",
                    "```", *failing[:20], lines[-1], "```", ""]
    sanitize = sorted(glob.glob(os.path.join(folder, "sanitize_*.log")))
    if sanitize:
        out += ["## compute-sanitizer", "", *commit_note(sanitize, bench_commit), "`scripts/sanitize.sh`:", "", "```"]
        for path in sanitize:
            tool = os.path.basename(path)[len("sanitize_"):-len(".log")]
            with open(path) as f:
                summary = [ln.strip() for ln in f if "ERROR SUMMARY" in ln or "RACECHECK SUMMARY" in ln]
            out.append(f"{tool}: " + (summary[-1] if summary else "no error reported"))
        out += ["```", ""]
    for path in sorted(glob.glob(os.path.join(folder, "profile_*.txt"))):
        if path.endswith(".details.txt"):
            continue
        name = os.path.basename(path)[len("profile_"):-len(".txt")]
        with open(path) as f:
            body = f.read().rstrip()
        # profile_KERNEL_DTYPE_LAYOUT_SHAPE.txt (profile.sh names its outputs after the case)
        m = re.match(r"^(.+)_(f32|f16|bf16)_([cr]{3})_(\d+x\d+(?:x\d+)?)$", name)
        cmd = (f"scripts/profile.sh {m.group(1)} {m.group(4)} --dtypes={m.group(2)} --layouts={m.group(3)}"
               if m else f"scripts/profile.sh {name}")
        out += [f"## Nsight Compute: {m.group(1) if m else name}", "", *commit_note([path], bench_commit),
                f"`{cmd}`:", "", "```", body, "```", ""]
    return out


def main():
    ap = argparse.ArgumentParser(description="Plot a loom-bench JSON and regenerate RESULTS.md.")
    ap.add_argument("bench_json", nargs="+",
                    help="loom-bench JSON files, e.g. the default sweep's and --sweep=llm's (the first's context heads RESULTS.md)")
    ap.add_argument("--out-dir", default="results", help="where the PNGs go (default: results)")
    ap.add_argument("--results-md", help="write this markdown file (e.g. RESULTS.md)")
    ap.add_argument("--command", default="", help="the command that produced the numbers, for the header")
    ap.add_argument("--extra", help="a results folder whose validate.txt, sanitize_*.log and profile_*.txt "
                                    "summaries are appended to the markdown")
    args = ap.parse_args()

    docs = {path: load(path) for path in args.bench_json}  # path -> (context, benchmarks)
    ctx = docs[args.bench_json[0]][0]
    pd, plt = import_libs()
    # Each file's rows on their own, so that the same case in two files (two GPUs' runs) stays two
    # records, each knowing its file (and so its commit).
    records = []
    for path, (_, benchmarks) in docs.items():
        for rec in collect(benchmarks):
            rec["source"] = path
            records.append(rec)
    if not records:
        die(f"{' '.join(args.bench_json)} has no loom-bench results")
    df = ordered(pd.DataFrame.from_records(records))
    os.makedirs(args.out_dir, exist_ok=True)

    md_dir = os.path.dirname(os.path.abspath(args.results_md)) if args.results_md else os.getcwd()
    json_ref = ", ".join(os.path.relpath(os.path.abspath(j), md_dir).replace(os.sep, "/") for j in args.bench_json)
    md = header(ctx, json_ref, args.command, commit_of(args.bench_json[0]))
    # The transformer-layer sweep's rows get a section of their own (ratio against M, per N x K),
    # not the per-shape plots of the other sweeps, where 70 shapes would crowd one axis.
    is_llm = df.sweep.isin(LLM_SWEEPS) & (df.op == "gemm")
    llm_md, llm_bars = [], []
    if is_llm.any():
        copies = df[(df.kernel == "memcpy_d2d") & df.thr.notna()]
        memcpy_gbs = float(copies.thr.max()) if not copies.empty else math.nan
        llm_md, llm_bars = llm_sections(plt, df[is_llm], ctx, memcpy_gbs, args.out_dir, md_dir,
                                        {path: doc[0] for path, doc in docs.items()}, commit_of(args.bench_json[0]))
    bar = bar_lines(df) + llm_bars
    if bar:
        md += [f"**{b}**" + ("  " if i + 1 < len(bar) else "") for i, b in enumerate(bar)] + [""]

    rest = df[~is_llm]
    for op in sorted(rest.op.unique()):
        md += [f"## {op}", ""]
        dop = rest[rest.op == op]
        groups = dop[["dtype", "layout", "variant"]].drop_duplicates().itertuples(index=False)
        for dtype, layout, variant in groups:
            g = dop[(dop.dtype == dtype) & (dop.layout == layout) & (dop.variant == variant)]
            path, title = plot_group(plt, g, op, dtype, layout, variant, args.out_dir)
            rel = os.path.relpath(os.path.abspath(path), md_dir).replace(os.sep, "/")
            md += [f"### {dtype}, {layout}" + (f", {variant}" if variant else ""), "",
                   f"![{title}]({rel})", ""]
            md += table(g, op) + [""]
            labels = sorted({plain_label(r.label) for r in g.itertuples() if plain_label(r.label)})
            md += [f"Note: {lab}." for lab in labels] + ([""] if labels else [])
    md += llm_md

    if args.extra:
        md += extra_sections(args.extra, commit_of(args.bench_json[0]))
    # Hand-kept tuning logs (each names its own device, date and commands), verbatim.
    for path in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "tuning", "*.md"))):
        with open(path) as f:
            md += [f.read().rstrip(), ""]

    if args.results_md:
        with open(args.results_md, "w") as f:
            f.write("\n".join(md).rstrip() + "\n")
        nplots = (rest.groupby(['op', 'dtype', 'layout', 'variant']).ngroups +
                  df[is_llm].groupby(['sweep', 'card', 'dtype', 'layout', 'variant']).ngroups)
        print(f"plot.py: wrote {args.results_md} and {nplots} plot(s) in {args.out_dir}", file=sys.stderr)
    else:
        print(f"plot.py: wrote the plots in {args.out_dir}", file=sys.stderr)

    # Short table of the kernels (baselines left out) on stdout, last.
    kern = df[~df.kernel.isin(BASELINES)]
    rows = [("kernel", "dtype", "layout", "shape", "median_us", "throughput", "%peak", "vs_cublas")]
    for r in kern.itertuples():
        if r.error:
            rows.append((r.kernel, r.dtype, r.layout, shape_label(r.op, r.M, r.N, r.K), "failed", "", "", ""))
        else:
            rows.append((r.kernel, r.dtype, r.layout, shape_label(r.op, r.M, r.N, r.K), fmt(r.median_us, ".1f"),
                         f"{fmt(r.thr, '.1f' if r.op == 'add' else '.2f')} {r.unit}", fmt(r.pct_peak, ".1f"),
                         fmt(r.vs_cublas, ".3f")))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(c.ljust(w) if i < 4 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    for b in bar:
        print(b)


if __name__ == "__main__":
    main()
