#!/usr/bin/env python3
"""Short summary of one Nsight Compute profile, from `ncu --import R --page raw --csv --print-units base`.

usage: scripts/ncu_summary.py RAW_CSV [--case NAME] [--op add|gemm] [--m M --n N --k K --dtype T]

Prints per profiled kernel: duration, achieved DRAM bandwidth (and FLOP/s for gemm, from 2*M*N*K),
throughputs as % of peak, achieved against theoretical occupancy, the top warp stall reasons and
the shared-memory bank conflicts. Standard library only.
"""

import argparse
import csv
import math
import re
import sys

ELEM_BYTES = {"f32": 4, "f16": 2, "bf16": 2}
TIME_SCALE = {"nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0}
STALL = re.compile(r"^smsp__average_warps_issue_stalled_(.+)_per_issue_active\.ratio$")


def number(text):
    """'1,073,741,824' -> 1073741824.0; '' or 'n/a' -> nan."""
    t = (text or "").strip().replace(",", "")
    try:
        return float(t)
    except ValueError:
        return math.nan


def dram_pct(rec, bw):
    """DRAM throughput in % of peak: ncu's dram__throughput where the export has it; else (exports
    without it, as the H100 machine's ncu gives) the bytes per second over the peak bytes per DRAM
    cycle times the DRAM clock; else the read and write shares of the peak, added."""
    direct = number(rec.get("dram__throughput.avg.pct_of_peak_sustained_elapsed"))
    if not math.isnan(direct):
        return direct
    peak = number(rec.get("dram__bytes.sum.peak_sustained")) * number(rec.get("dram__cycles_elapsed.avg.per_second"))
    if not math.isnan(bw) and peak > 0:
        return 100.0 * bw / peak
    rd = number(rec.get("dram__bytes_read.sum.pct_of_peak_sustained_elapsed"))
    wr = number(rec.get("dram__bytes_write.sum.pct_of_peak_sustained_elapsed"))
    return rd + wr


def read(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        sys.exit(f"ncu_summary.py: cannot read {path}: {e.strerror}")
    # ncu may print ==PROF== or ==WARNING== lines before the CSV: start at the header row.
    start = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
    if start is None:
        sys.exit(f"ncu_summary.py: {path} has no ncu raw CSV header (a row starting with \"ID\")")
    header = rows[start]
    units, kernels = {}, []
    for r in rows[start + 1:]:
        if len(r) < len(header):
            continue
        rec = dict(zip(header, r))
        if not rec.get("ID"):  # the units row
            units = rec
        else:
            kernels.append(rec)
    return header, units, kernels


def seconds(rec, units, metric):
    v = number(rec.get(metric))
    return v * TIME_SCALE.get(units.get(metric, "nsecond"), 1e-9)


def fmt_bytes(b):
    return "n/a" if math.isnan(b) else f"{b / 1e9:.3f} GB"


def pct(v):
    return "n/a" if math.isnan(v) else f"{v:.1f}%"


def summarize(rec, units, header, args):
    out = []
    name = rec.get("Kernel Name") or rec.get("Function Name") or "?"
    out.append(f"kernel: {name}")
    launch = f"  launch: grid {rec.get('Grid Size', '?')}, block {rec.get('Block Size', '?')}"
    regs = number(rec.get("launch__registers_per_thread"))
    if not math.isnan(regs):
        launch += f", {regs:.0f} registers/thread"
    smem = number(rec.get("launch__shared_mem_per_block_static")) + \
        number(rec.get("launch__shared_mem_per_block_dynamic"))
    if not math.isnan(smem):
        launch += f", {smem:,.0f} bytes of shared memory/block"
    out.append(launch)

    dur = seconds(rec, units, "gpu__time_duration.sum")
    out.append(f"  duration: {'n/a' if math.isnan(dur) else f'{dur * 1e6:.1f} us'} "
               f"(clocks as ncu set them; see --clock-control)")

    rd, wr = number(rec.get("dram__bytes_read.sum")), number(rec.get("dram__bytes_write.sum"))
    moved = (0 if math.isnan(rd) else rd) + (0 if math.isnan(wr) else wr)
    bw = number(rec.get("dram__bytes.sum.per_second"))
    if math.isnan(bw) and moved > 0 and dur > 0:
        bw = moved / dur
    line = f"  DRAM: {'n/a' if math.isnan(bw) else f'{bw / 1e9:,.1f} GB/s'} achieved " \
           f"(read {fmt_bytes(rd)}, write {fmt_bytes(wr)}), {pct(dram_pct(rec, bw))} of peak"
    if args.op == "add" and args.m and args.n and not math.isnan(dur) and dur > 0:
        ideal = 3.0 * args.m * args.n * ELEM_BYTES.get(args.dtype, 4)
        line += f"; 2 reads + 1 write of the operands = {ideal / dur / 1e9:,.1f} GB/s"
    out.append(line)

    if args.op == "gemm" and args.m and args.n and args.k and not math.isnan(dur) and dur > 0:
        out.append(f"  FLOP/s: {2.0 * args.m * args.n * args.k / dur / 1e12:.2f} TFLOP/s (2*M*N*K / duration)")

    out.append(f"  throughput: SM {pct(number(rec.get('sm__throughput.avg.pct_of_peak_sustained_elapsed')))}, "
               f"memory {pct(number(rec.get('gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed')))} "
               f"of peak")
    out.append(f"  occupancy: achieved {pct(number(rec.get('sm__warps_active.avg.pct_of_peak_sustained_active')))}"
               f" of theoretical {pct(number(rec.get('sm__maximum_warps_per_active_cycle_pct')))}")

    stalls = []
    for col in header:
        m = STALL.match(col)
        if m and m.group(1) not in ("selected", "not_selected"):
            v = number(rec.get(col))
            if not math.isnan(v):
                stalls.append((v, m.group(1)))
    stalls.sort(reverse=True)
    if stalls:
        out.append("  top warp stalls (warps stalled per issue-active cycle): " +
                   ", ".join(f"{n} {v:.2f}" for v, n in stalls[:5]))
    else:
        out.append("  top warp stalls: n/a (collect the WarpStateStats section, e.g. --set full)")

    ld = number(rec.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"))
    st = number(rec.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"))
    if math.isnan(ld) and math.isnan(st):
        out.append("  shared-memory bank conflicts: n/a")
    else:
        out.append(f"  shared-memory bank conflicts: loads {'n/a' if math.isnan(ld) else f'{ld:,.0f}'}, "
                   f"stores {'n/a' if math.isnan(st) else f'{st:,.0f}'}")
    return out


def main():
    ap = argparse.ArgumentParser(description="Summarize an ncu raw CSV export.")
    ap.add_argument("raw_csv")
    ap.add_argument("--case", default="", help="the case name, for the title")
    ap.add_argument("--op", choices=["add", "gemm"])
    ap.add_argument("--m", type=int, default=0)
    ap.add_argument("--n", type=int, default=0)
    ap.add_argument("--k", type=int, default=0)
    ap.add_argument("--dtype", default="f32")
    args = ap.parse_args()

    header, units, kernels = read(args.raw_csv)
    if not kernels:
        sys.exit(f"ncu_summary.py: {args.raw_csv} has no profiled kernel")
    # sm90's one-time GPC measurement (kernels/sm90/sm90.cu's placement_probe) runs inside the first
    # call's range: it is not the case's work.
    name = lambda rec: rec.get("Kernel Name") or rec.get("Function Name") or ""
    probes = [rec for rec in kernels if "placement_probe" in name(rec)]
    kernels = [rec for rec in kernels if "placement_probe" not in name(rec)]
    if not kernels:
        sys.exit(f"ncu_summary.py: {args.raw_csv} holds only sm90's GPC probes ({len(probes)} launches), not the case's kernel: "
                 "profile more launches (profile.sh's launches)")
    print(f"Nsight Compute summary{': ' + args.case if args.case else ''} ({len(kernels)} kernel(s)"
          + (f"; {len(probes)} launches of sm90's one-time GPC probe left out" if probes else "") + ")")
    for rec in kernels:
        print("\n".join(summarize(rec, units, header, args)))


if __name__ == "__main__":
    main()
