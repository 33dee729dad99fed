#!/usr/bin/env python3
"""Turns `loom-bench --kernels=sm90 --plans=N` JSON files into the plan model's fit data: one CSV
row per timed plan (the columns of kernels/sm90/fit/fit_data.hpp's kColumns), written to stdout.

    python3 kernels/sm90/fit/collect.py [--drop-stalls] plans.json [more.json ...] > kernels/sm90/fit/data/h200.csv

Each row carries what the model reads of the device (the SM count, the clusters resident, the
clocks and the bus width: the plan rows' labels say them) and of the problem, the plan's spec, the
measured median, and the inputs' type and mode: `dtype` as loom-bench names it less `-fast`
(bf16, f16, e4m3, e4m3xe5m2, ...), `promote` 1 for 8-bit rows of the accurate mode (no `-fast`),
else 0. Only rcr rows are taken (both operands k-major as the kernel sees them); anything else is
counted on stderr and left out.

--drop-stalls leaves out, and lists on stderr, the rows that measured more than twice the model's
estimate when timed (the label's estimate_us) and more than 100 us above it. On an H100
(2026-11-26) about 30 of 23,000 8-bit rows measured about 200 us more than the same plan of the
same problem in a row beside it, or than the model expected, every sample of the row alike
(docs/tuning/fp8.md); kept, one such row decides a problem's regret. A plan the model merely
misjudges by less than twice stays in.
"""

import json
import sys

COLUMNS = ("card,sms,clusters1,clusters2,clusters4,clusters8,sm_khz,mem_khz,bus_bits,a_k_major,b_k_major,"
           "out_bytes,beta,m,n,k,plan,median_us,dtype,promote")
BYTES = {"f32": 4, "f16": 2, "bf16": 2}


def fields(label):
    out = {}
    for part in label.split("; "):
        if "=" in part:
            key, value = part.split("=", 1)
            out[key] = value
    return out


def main(paths, drop_stalls):
    print(COLUMNS)
    skipped = 0
    for path in paths:
        data = json.load(open(path))
        card = data["context"].get("loom_device", "unknown")
        for row in data["benchmarks"]:
            f = fields(row.get("label", ""))
            if "plan" not in f or "median_us" not in row:
                continue
            if f.get("layout") != "rcr" or "sms" not in f:
                skipped += 1
                continue
            est = float(f.get("estimate_us", "0"))
            if drop_stalls and est > 0 and row["median_us"] > 2 * est and row["median_us"] - est > 100:
                print(f"collect.py: dropped a stall: {row['name'].split('/iterations')[0]} {row['median_us']:.1f} us, "
                      f"estimated {est:.1f}", file=sys.stderr)
                continue
            clusters = f["clusters"].split("/")
            if len(clusters) == 8:  # sizes 1 to 8; the data keeps sizes 1, 2, 4 and 8
                clusters = [clusters[0], clusters[1], clusters[3], clusters[7]]
            dtype = f["dtype"]
            fast = dtype.endswith("-fast")
            dtype = dtype[:-len("-fast")] if fast else dtype
            promote = 0 if fast or dtype in ("bf16", "f16") else 1
            out_bytes = BYTES[f.get("out_dtype", dtype)]
            beta = 1 if float(f.get("beta", "0")) != 0 else 0
            print(",".join(str(x) for x in (
                card.replace(",", " "), f["sms"], *clusters, f["sm_khz"], f["mem_khz"], f["bus_bits"], 1, 1,
                out_bytes, beta, int(row["m"]), int(row["n"]), int(row["k"]), f["plan"],
                "%.3f" % row["median_us"], dtype, promote)))
    if skipped:
        print(f"collect.py: left out {skipped} plan rows that are not rcr", file=sys.stderr)


if __name__ == "__main__":
    args = sys.argv[1:]
    drop = "--drop-stalls" in args
    args = [a for a in args if a != "--drop-stalls"]
    if not args:
        sys.exit("usage: collect.py [--drop-stalls] LOOM_BENCH_JSON...")
    main(args, drop)
