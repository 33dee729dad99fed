#!/usr/bin/env bash
# The bank-conflict model against Nsight Compute: runs every case of loom_bank_conflicts_micro
# (tests/bank_conflicts/bank_conflicts_micro.cu) under ncu and prints one table, case by case: the
# layout (as loom-layout bank_conflicts takes it), the model's wavefronts and ideal, and the
# measured wavefronts and bank conflicts of the case's op (shared stores or loads).
#
#   tests/bank_conflicts/run_ncu.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR: a CMake build of this repository; the script builds the optional target
# loom_bank_conflicts_micro there. OUT_DIR: where ncu's raw CSV per case and table.md go (created).
# Needs a CUDA GPU and ncu (on PATH, or NCU=/path/to/ncu); ncu needs permission to read the GPU's
# counters (root, or the driver's RmProfilingAdminOnly=0).
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 BUILD_DIR OUT_DIR" >&2
  exit 2
fi
BUILD_DIR=$1
OUT_DIR=$2
NCU=${NCU:-$(command -v ncu || true)}
if [[ -z $NCU || ! -x $NCU ]]; then
  echo "run_ncu.sh: ncu (Nsight Compute) not found: put it on PATH or set NCU=/path/to/ncu" >&2
  exit 1
fi
if ! command -v python3 >/dev/null; then
  echo "run_ncu.sh: python3 not found (it reads ncu's CSV)" >&2
  exit 1
fi
if [[ ! -f $BUILD_DIR/CMakeCache.txt ]]; then
  echo "run_ncu.sh: $BUILD_DIR is not a CMake build directory (no CMakeCache.txt)" >&2
  exit 1
fi
cmake --build "$BUILD_DIR" --target loom_bank_conflicts_micro
BIN=$(find "$BUILD_DIR" -type f -name loom_bank_conflicts_micro -perm -u+x | head -n 1)
if [[ -z $BIN ]]; then
  echo "run_ncu.sh: loom_bank_conflicts_micro not found under $BUILD_DIR after building it" >&2
  exit 1
fi
mkdir -p "$OUT_DIR"
METRICS=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum

"$BIN" --list >"$OUT_DIR/cases.tsv"
device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 || echo unknown)
while IFS=$'\t' read -r idx op model ideal name args; do
  csv="$OUT_DIR/case_$idx.csv"
  if ! "$NCU" --metrics "$METRICS" --csv --kernel-name regex:bank_micro "$BIN" --case "$idx" >"$csv" 2>"$OUT_DIR/case_$idx.err"; then
    echo "run_ncu.sh: ncu failed on case $idx ($name); see $OUT_DIR/case_$idx.err" >&2
    cat "$OUT_DIR/case_$idx.err" >&2
    exit 1
  fi
done <"$OUT_DIR/cases.tsv"

python3 - "$OUT_DIR" "$device" <<'PY'
import csv, io, os, sys
out, device = sys.argv[1], sys.argv[2]
rows = []
bad = 0
for line in open(os.path.join(out, "cases.tsv")):
    idx, op, model, ideal, name, args = line.rstrip("\n").split("\t")
    text = open(os.path.join(out, "case_%s.csv" % idx)).read()
    # ncu prints its own lines (==PROF== ...) before the CSV; the CSV starts at the header row.
    start = text.find('"ID"')
    if start < 0:
        sys.exit("run_ncu.sh: no CSV in case_%s.csv (did the kernel run?)" % idx)
    metrics = {}
    for r in csv.DictReader(io.StringIO(text[start:])):
        metrics[r["Metric Name"]] = int(float(r["Metric Value"].replace(",", "")))
    wav = metrics.get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_%s.sum" % op)
    con = metrics.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_%s.sum" % op)
    if wav is None or con is None:
        sys.exit("run_ncu.sh: case %s: the metrics are missing from ncu's output" % idx)
    agree = "yes" if wav == int(model) else "NO"
    bad += agree == "NO"
    rows.append("| %s | %s | `%s` | %s | %s | %s | %d | %d | %s |" % (idx, name, args, op, model, ideal, wav, con, agree))
table = ["Device: " + device, "",
         "| # | case | loom-layout arguments | op | model wavefronts | model ideal | measured wavefronts | measured conflicts | agree |",
         "|---|---|---|---|---|---|---|---|---|"] + rows + ["", "%d of %d cases agree" % (len(rows) - bad, len(rows))]
open(os.path.join(out, "table.md"), "w").write("\n".join(table) + "\n")
print("\n".join(table))
PY
echo "table: $OUT_DIR/table.md"
