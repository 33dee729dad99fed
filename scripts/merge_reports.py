#!/usr/bin/env python3
"""Merge the JSON reports of loom-validate or loom-bench processes that each ran a shard of one
sweep (--shard=I/N, one per GPU: scripts/multi_gpu.sh) into one report of the same kind.

usage: scripts/merge_reports.py --output MERGED.json [--csv MERGED.csv] REPORT.json [REPORT.json...]

loom-validate (--format=json): the rows of "cases" one after the other, each with its device fields
(device, device_name, pci_bus_id; taken from its report's "device" where an older report's rows lack
them); "passed", "failed" and "skipped" added up; "device" is the first report's, "devices" lists
every report's (its "device" with "shard", "file" and "rows"). --csv also writes the rows as csv, the
columns of loom-validate --format=csv (the json keys but "name").

loom-bench (Google Benchmark JSON): the "benchmarks" rows one after the other, each labelled with
the GPU that ran it (device=...; device_name=...; pci_bus_id=...); the first report's "context",
with "loom_devices" listing every report's GPU (ordinal, name, pci_bus_id, uuid, shard, command,
file, rows) and "loom_shard" 0/1. scripts/plot.py, compare.sh and sweep_summary.py read the result
as they read one run's, and loom-bench --append can add to it ("benchmarks" stays the last key).

The reports must be of one kind; where they are shards (N > 1), exactly the shards 0/N .. N-1/N,
each once, so that the merged report holds the whole sweep. A merged report can be merged again.
Errors: one line on stderr, exit status 2. Only the standard library is needed.
"""

import argparse
import csv
import json
import os
import sys

from report_json import read_json

DEVICE_FIELDS = ("device", "device_name", "pci_bus_id")


def die(msg):
    print(f"merge_reports.py: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    doc = read_json(path, die)
    if isinstance(doc, dict) and isinstance(doc.get("benchmarks"), list):
        return "bench", doc
    if isinstance(doc, dict) and isinstance(doc.get("cases"), list):
        if not isinstance(doc.get("device"), dict):
            die(f"{path} is a loom-validate --mode=enumerate listing (no \"device\"), not the report of a run")
        return "validate", doc
    die(f"{path} is neither a loom-validate --format=json report nor loom-bench JSON")


def parse_shard(text, path):
    try:
        i, n = (int(x) for x in str(text).split("/"))
        if 0 <= i < n:
            return i, n
    except ValueError:
        pass
    die(f"{path}: bad shard \"{text}\" (expected I/N with 0 <= I < N)")


def check_shards(devices):
    """Where any report is a shard (N > 1): the shards 0/N .. N-1/N, each once."""
    shards = [(parse_shard(d.get("shard", "0/1"), d["file"]), d["file"]) for d in devices]
    counts = {n for (_, n), _ in shards}
    if counts <= {1}:
        return  # whole sweeps: any number of them merge
    if len(counts) > 1:
        die("the reports are shards of different counts (" + ", ".join(f"{i}/{n} in {f}" for (i, n), f in shards) + ")")
    n = counts.pop()
    seen = {}
    for (i, _), f in shards:
        if i in seen:
            die(f"shard {i}/{n} is in both {seen[i]} and {f}")
        seen[i] = f
    missing = [f"{i}/{n}" for i in range(n) if i not in seen]
    if missing:
        die(f"shard(s) {', '.join(missing)} missing: the reports hold {len(seen)} of the sweep's {n} shards")


def label_fields(label):
    parts = label.split("; ") if label else []
    return {p.split("=", 1)[0] for p in parts if "=" in p}


def merge_validate(docs):
    devices, cases = [], []
    totals = {"passed": 0, "failed": 0, "skipped": 0}
    for path, doc in docs:
        if isinstance(doc.get("devices"), list):  # a merged report: its GPUs as they were
            devices += [dict(d, file=d.get("file", os.path.basename(path))) for d in doc["devices"]]
        else:
            devices.append(dict(doc["device"], shard=doc.get("shard", "0/1"), file=os.path.basename(path),
                                rows=len(doc["cases"])))
        dev = doc["device"]
        for row in doc["cases"]:
            if not isinstance(row, dict):
                die(f"{path}: a row of \"cases\" is not an object")
            if "device" not in row:  # a report from before rows named their GPU
                row = dict(row, device=dev.get("ordinal"), device_name=dev.get("name"), pci_bus_id=dev.get("pci_bus_id"))
            cases.append(row)
        for k in totals:
            v = doc.get(k, 0)
            if not isinstance(v, int):
                die(f"{path}: \"{k}\" is not a count")
            totals[k] += v
    check_shards(devices)
    return {"device": docs[0][1]["device"], "devices": devices, "shard": "0/1", "cases": cases, **totals}


def merge_bench(docs):
    devices, rows = [], []
    for path, doc in docs:
        ctx = doc.get("context", {})
        if not isinstance(ctx, dict):
            die(f"{path}: \"context\" is not an object")
        fields = ""
        if isinstance(ctx.get("loom_devices"), list):  # a merged report
            devices += [dict(d, file=d.get("file", os.path.basename(path))) for d in ctx["loom_devices"]]
        else:
            ordinal = ctx.get("loom_device_ordinal")
            devices.append({"ordinal": int(ordinal) if str(ordinal).isdigit() else None, "name": ctx.get("loom_device"),
                            "pci_bus_id": ctx.get("loom_pci_bus_id"), "uuid": ctx.get("loom_uuid"),
                            "shard": ctx.get("loom_shard", "0/1"), "command": ctx.get("loom_command"),
                            "file": os.path.basename(path), "rows": len(doc["benchmarks"])})
            if str(ordinal).isdigit():
                fields = f"device={ordinal}; device_name={ctx.get('loom_device')}; pci_bus_id={ctx.get('loom_pci_bus_id', '')}"
        for b in doc["benchmarks"]:
            if not isinstance(b, dict):
                die(f"{path}: a row of \"benchmarks\" is not an object")
            # Every row of this version's runs names its GPU in its label; an older file's rows get it
            # from the file's context where that has it.
            if fields and "device" not in label_fields(b.get("label", "")):
                b = dict(b, label=(b["label"] + "; " if b.get("label") else "") + fields)
            rows.append(b)
    check_shards(devices)
    # A shard may have had nothing to time (loom-bench --shard exits 0 then); all of them, never:
    # one process would have said "no case of the sweep runs on this GPU".
    if not rows:
        die("no report holds a benchmark row: no case of the sweep ran on any GPU (each shard's output says why)")
    ctx = dict(docs[0][1].get("context", {}))
    ctx["loom_devices"] = devices
    ctx["loom_shard"] = "0/1"
    return {"context": ctx, "benchmarks": rows}


def write_csv(path, cases):
    # loom-validate's csv columns are its json keys but "name", in order; keys of later rows (other
    # --tags) are added at the end, empty where a row has none.
    cols = []
    for row in cases:
        cols += [k for k in row if k != "name" and k not in cols]

    def cell(v):
        if v is None:
            return ""
        if isinstance(v, float):
            return repr(v)
        return str(v)

    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        for row in cases:
            w.writerow([cell(row.get(c)) for c in cols])


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, as every other error here, not argparse's usage and line
        die(message)


def main():
    ap = Parser(description="Merge the JSON reports of loom-validate or loom-bench shards.")
    ap.add_argument("reports", nargs="+", help="the reports to merge, e.g. one per GPU")
    ap.add_argument("--output", required=True, help="the merged JSON report")
    ap.add_argument("--csv", help="loom-validate reports: also write the merged rows as csv")
    a = ap.parse_args()
    docs = [(p, load(p)) for p in a.reports]
    kinds = {k for _, (k, _) in docs}
    if len(kinds) > 1:
        die("the reports are of both loom-validate and loom-bench: " +
            ", ".join(f"{p} ({k})" for p, (k, _) in docs))
    kind = kinds.pop()
    if a.csv and kind != "validate":
        die("--csv is for loom-validate reports (loom-bench writes JSON only)")
    docs = [(p, d) for p, (_, d) in docs]
    merged = merge_validate(docs) if kind == "validate" else merge_bench(docs)
    try:
        with open(a.output, "w") as f:
            json.dump(merged, f, indent=2)
            f.write("\n")
        if a.csv:
            write_csv(a.csv, merged["cases"])
    except OSError as e:
        die(f"cannot write {e.filename}: {e.strerror}")
    rows = merged["cases" if kind == "validate" else "benchmarks"]
    n = len(merged["devices"] if kind == "validate" else merged["context"]["loom_devices"])
    print(f"merge_reports.py: {len(rows)} rows of {len(docs)} report(s) from {n} GPU(s) in {a.output}"
          + (f" and {a.csv}" if a.csv else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
