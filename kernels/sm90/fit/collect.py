#!/usr/bin/env python3
"""Turns `loom-bench --kernels=sm90 --plans=N` JSON files into the plan model's fit data: one CSV
row per timed plan (the columns of kernels/sm90/fit/fit_data.hpp's kColumns), written to stdout.

    python3 kernels/sm90/fit/collect.py plans.json [more.json ...] > kernels/sm90/fit/data/h200.csv

Each row carries what the model reads of the device (the SM count, the clusters resident, the
clocks and the bus width: the plan rows' labels say them) and of the problem, the plan's spec and
the measured median. Only rcr rows are taken (both operands k-major as the kernel sees them);
anything else is counted on stderr and left out.
"""

import json
import sys

COLUMNS = ("card,sms,clusters1,clusters2,clusters4,clusters8,sm_khz,mem_khz,bus_bits,a_k_major,b_k_major,"
           "out_bytes,beta,m,n,k,plan,median_us")
BYTES = {"f32": 4, "f16": 2, "bf16": 2}


def fields(label):
    out = {}
    for part in label.split("; "):
        if "=" in part:
            key, value = part.split("=", 1)
            out[key] = value
    return out


def main(paths):
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
            clusters = f["clusters"].split("/")
            out_bytes = BYTES[f.get("out_dtype", f["dtype"])]
            beta = 1 if float(f.get("beta", "0")) != 0 else 0
            print(",".join(str(x) for x in (
                card.replace(",", " "), f["sms"], *clusters, f["sm_khz"], f["mem_khz"], f["bus_bits"], 1, 1,
                out_bytes, beta, int(row["m"]), int(row["n"]), int(row["k"]), f["plan"],
                "%.3f" % row["median_us"])))
    if skipped:
        print(f"collect.py: left out {skipped} plan rows that are not rcr", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: collect.py LOOM_BENCH_JSON...")
    main(sys.argv[1:])
