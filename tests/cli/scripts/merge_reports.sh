#!/usr/bin/env bash
# scripts/merge_reports.py on hand-written reports of two shards each: loom-validate's (rows of both,
# each with its GPU's fields, the counts added up, every GPU in the header, the csv) and loom-bench's
# (rows of both labelled with their GPU, loom_devices in the context; compare.py and sweep_summary.py
# read the result, plot.py too where pandas and matplotlib are installed, and loom-bench --append
# takes it when $1, the path to loom-bench, is given); shards missing or given twice, and reports of
# two kinds, are one-line errors with exit status 2.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
bench=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/cli/scripts/lib.sh
source "$root/tests/cli/scripts/lib.sh"
merge() { python3 "$root/scripts/merge_reports.py" "$@"; }
# expect_error NAME FRAGMENT ARGS...: exit status 2 and one line on stderr holding FRAGMENT
expect_error() {
  local name=$1 frag=$2 rc=0
  shift 2
  merge "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  if [[ $rc -eq 2 && $(wc -l <"$tmp/err") -eq 1 ]] && grep -qF -- "$frag" "$tmp/err"; then echo "ok   $name"
  else echo "FAIL $name: exit $rc, stderr: $(cat "$tmp/err")"; fail=1; fi
}

# --- loom-validate ---------------------------------------------------------------------------
vrow() {  # name m status device device_name pci_bus_id: a row of loom-validate --format=json
  printf '{"name": "%s", "kernel": "sm90", "op": "gemm", "dtype": "bf16", "out_dtype": "bf16", "layout": "rcr", "m": %s, "n": 64, "k": 64, "lda": 64, "ldb": 64, "ldc": %s, "misalign": 0, "alpha": 1, "beta": 0, "reference": "host", "rel_fro": 1.5e-05, "max_abs": 0.001, "max_rel": 0.002, "tolerance": 0.0078125, "nonfinite": 0, "unwritten": 0, "over_bound": 0, "status": "%s", "reason": "", "path": "tma", "repro": "loom-validate --kernels=sm90", "workspace": "", "device": %s, "device_name": "%s", "pci_bus_id": "%s"}' \
    "$1" "$2" "$2" "$3" "$4" "$5" "$6"
}
vdev() {  # ordinal pci_bus_id
  printf '{"name": "NVIDIA H100 80GB HBM3", "cc": 90, "sm_count": 132, "driver_version": 13000, "runtime_version": 13000, "cublas_version": 130000, "ordinal": %s, "pci_bus_id": "%s", "uuid": "GPU-%s"}' "$1" "$2" "$1"
}
cat >"$tmp/v0.json" <<EOF
{
  "device": $(vdev 0 0000:19:00.0),
  "shard": "0/2",
  "cases": [
    $(vrow sm90/bf16/rcr/1x64x64 1 pass 0 "NVIDIA H100 80GB HBM3" 0000:19:00.0),
    $(vrow sm90/bf16/rcr/127x64x64 127 fail 0 "NVIDIA H100 80GB HBM3" 0000:19:00.0)
  ],
  "passed": 1, "failed": 1, "skipped": 0
}
EOF
# Shard 1 as a report from before rows named their GPU: the merger takes it from the header.
cat >"$tmp/v1.json" <<EOF
{
  "device": $(vdev 1 0000:2A:00.0),
  "shard": "1/2",
  "cases": [
    $(vrow sm90/bf16/rcr/64x64x64 64 pass 1 x y | sed 's/, "device": 1, "device_name": "x", "pci_bus_id": "y"//')
  ],
  "passed": 5, "failed": 0, "skipped": 2
}
EOF
rc=0
merge --output "$tmp/v.json" --csv "$tmp/v.csv" "$tmp/v0.json" "$tmp/v1.json" 2>"$tmp/err" || rc=$?
[[ $rc -eq 0 ]] && echo "ok   validate: merged" || { echo "FAIL validate merge: exit $rc: $(cat "$tmp/err")"; fail=1; }
check "validate: the summary line" '^merge_reports.py: 3 rows of 2 report\(s\) from 2 GPU\(s\)' "$tmp/err"
python3 - "$tmp/v.json" >"$tmp/vsum" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
print("rows", [(r["name"], r["device"], r["device_name"], r["pci_bus_id"]) for r in d["cases"]])
print("counts", d["passed"], d["failed"], d["skipped"])
print("devices", [(x["ordinal"], x["pci_bus_id"], x["shard"], x["file"], x["rows"]) for x in d["devices"]])
print("device", d["device"]["ordinal"], "shard", d["shard"])
PY
check "validate: rows of both, each with its GPU" \
  "^rows \[\('sm90/bf16/rcr/1x64x64', 0, 'NVIDIA H100 80GB HBM3', '0000:19:00.0'\), \('sm90/bf16/rcr/127x64x64', 0, .*\), \('sm90/bf16/rcr/64x64x64', 1, 'NVIDIA H100 80GB HBM3', '0000:2A:00.0'\)\]$" "$tmp/vsum"
check "validate: counts added up" '^counts 6 1 2$' "$tmp/vsum"
check "validate: every GPU in the header" "^devices \[\(0, '0000:19:00.0', '0/2', 'v0.json', 2\), \(1, '0000:2A:00.0', '1/2', 'v1.json', 1\)\]$" "$tmp/vsum"
check "validate: the first device, the whole sweep" '^device 0 shard 0/1$' "$tmp/vsum"
check "validate csv: loom-validate's columns" '^kernel,op,dtype,out_dtype,layout,m,n,k,lda,ldb,ldc,misalign,alpha,beta,reference,rel_fro,max_abs,max_rel,tolerance,nonfinite,unwritten,over_bound,status,reason,path,repro,workspace,device,device_name,pci_bus_id$' "$tmp/v.csv"
check "validate csv: a row with its GPU" '^sm90,gemm,bf16,bf16,rcr,64,64,64,64,64,64,0,1,0,host,1.5e-05,0.001,0.002,0.0078125,0,0,0,pass,,tma,loom-validate --kernels=sm90,,1,NVIDIA H100 80GB HBM3,0000:2A:00.0$' "$tmp/v.csv"
[[ $(wc -l <"$tmp/v.csv") -eq 4 ]] && echo "ok   validate csv: a header and 3 rows" || { echo "FAIL validate csv:"; cat "$tmp/v.csv"; fail=1; }
# A merged report merges again (its GPUs as they were), alone here: its shards are whole.
merge --output "$tmp/vv.json" "$tmp/v.json" 2>/dev/null && python3 -c "
import json, sys; d = json.load(open(sys.argv[1])); sys.exit(len(d['cases']) != 3 or len(d['devices']) != 2)" "$tmp/vv.json" &&
  echo "ok   validate: a merged report merges again" || { echo "FAIL merging a merged report"; fail=1; }

# --- loom-bench ------------------------------------------------------------------------------
brow() {  # kernel m vs_cublas label: a row of loom-bench's JSON
  printf '{"name": "%s/bf16/rcr/%sx4096x4096/manual_time", "run_name": "%s/bf16/rcr/%sx4096x4096/manual_time", "run_type": "iteration", "m": %s, "n": 4096, "k": 4096, "median_us": 50.0, "TFLOP/s": 500.0, "vs_cublas": %s, "label": "%s"}' \
    "$1" "$2" "$1" "$2" "$2" "$3" "$4"
}
bfile() {  # FILE ordinal pci shard ROWS...
  local f=$1 o=$2 pci=$3 shard=$4
  shift 4
  local rows
  rows=$(IFS=,; echo "$*")
  cat >"$f" <<EOF
{
  "context": {"date": "2026-01-01", "host_name": "h", "loom_device": "NVIDIA H100 80GB HBM3", "loom_cc": "9.0",
              "loom_device_ordinal": "$o", "loom_pci_bus_id": "$pci", "loom_uuid": "GPU-$o", "loom_shard": "$shard",
              "loom_command": "loom-bench --device=$o --shard=$shard"},
  "benchmarks": [$rows]
}
EOF
}
dev0="device=0; device_name=NVIDIA H100 80GB HBM3; pci_bus_id=0000:19:00.0"
dev1="device=1; device_name=NVIDIA H100 80GB HBM3; pci_bus_id=0000:2A:00.0"
bfile "$tmp/b0.json" 0 0000:19:00.0 0/2 \
  "$(brow cublas 128 1.0 "dtype=bf16; layout=rcr; disposition=not_verified; $dev0")" \
  "$(brow gemm 128 0.8 "path=sm90: tma 128x128; dtype=bf16; layout=rcr; disposition=passed; $dev0")"
# Shard 1's rows carry no device fields (a file from before they did): the merger adds its context's.
bfile "$tmp/b1.json" 1 0000:2A:00.0 1/2 \
  "$(brow cublas 4096 1.0 "dtype=bf16; layout=rcr; disposition=not_verified")" \
  "$(brow gemm 4096 1.25 "path=sm90: tma 128x256; dtype=bf16; layout=rcr; disposition=passed")"
rc=0
merge --output "$tmp/b.json" "$tmp/b0.json" "$tmp/b1.json" 2>"$tmp/err" || rc=$?
[[ $rc -eq 0 ]] && echo "ok   bench: merged" || { echo "FAIL bench merge: exit $rc: $(cat "$tmp/err")"; fail=1; }
python3 - "$tmp/b.json" >"$tmp/bsum" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    print("row", b["name"].split("/")[0], b["m"], b["label"])
print("devices", [(x["ordinal"], x["pci_bus_id"], x["shard"], x["rows"], x["command"]) for x in d["context"]["loom_devices"]])
print("context", d["context"]["loom_device"], d["context"]["loom_shard"], list(d)[-1])
PY
check "bench: shard 0's rows keep their GPU" "^row gemm 128 path=sm90: tma 128x128; dtype=bf16; layout=rcr; disposition=passed; $dev0$" "$tmp/bsum"
check "bench: shard 1's rows get theirs" "^row gemm 4096 path=sm90: tma 128x256; dtype=bf16; layout=rcr; disposition=passed; $dev1$" "$tmp/bsum"
[[ $(grep -c '^row ' "$tmp/bsum") -eq 4 ]] && echo "ok   bench: 4 rows" || { echo "FAIL bench rows:"; cat "$tmp/bsum"; fail=1; }
check "bench: loom_devices" "^devices \[\(0, '0000:19:00.0', '0/2', 2, 'loom-bench --device=0 --shard=0/2'\), \(1, '0000:2A:00.0', '1/2', 2, .*\)\]$" "$tmp/bsum"
check "bench: the first context, the whole sweep, benchmarks last" '^context NVIDIA H100 80GB HBM3 0/1 benchmarks$' "$tmp/bsum"

# The consumers of loom-bench JSON read the merged file as one run's.
python3 "$root/scripts/sweep_summary.py" "$tmp/b.json" --worst 1 >"$tmp/sum.txt" 2>&1 || { echo "FAIL sweep_summary.py: $(cat "$tmp/sum.txt")"; fail=1; }
check "sweep_summary.py reads it" '^\| b.json \| NVIDIA H100 80GB HBM3 \| bf16 \| rcr \| 2 \| 1.000 \| 0.800 \| 1 \|' "$tmp/sum.txt"
python3 "$root/scripts/compare.py" "$tmp/b0.json" "$tmp/b.json" >"$tmp/cmp.txt" 2>&1 || { echo "FAIL compare.py: $(cat "$tmp/cmp.txt")"; fail=1; }
check "compare.py reads it" '^compare: 2 cases in both, 0 faster, 0 slower, 2 same' "$tmp/cmp.txt"
if python3 -c 'import pandas, matplotlib' 2>/dev/null; then
  python3 "$root/scripts/plot.py" "$tmp/b.json" --out-dir "$tmp/plots" --results-md "$tmp/R.md" >"$tmp/plot.txt" 2>&1 ||
    { echo "FAIL plot.py: $(tail -5 "$tmp/plot.txt")"; fail=1; }
  check "plot.py: the GPUs in the header" '^- GPUs: 2 processes, one per GPU: 0 NVIDIA H100 80GB HBM3 \(0000:19:00.0, shard 0/2\); 1 ' "$tmp/R.md"
  absent "plot.py: no note of the device fields" '^Note: .*device=' "$tmp/R.md"
else
  echo "skip plot.py (no pandas or matplotlib)"
fi
if [[ -n $bench ]]; then
  # --append checks the file before anything else; --mode=enumerate then runs nothing.
  rc=0
  "$bench" --mode=enumerate --output="$tmp/b.json" --append --kernels=add --dtypes=f32 --m=2048 >/dev/null 2>"$tmp/err" || rc=$?
  [[ $rc -eq 0 ]] && echo "ok   loom-bench --append takes the merged file" || { echo "FAIL loom-bench --append: exit $rc: $(cat "$tmp/err")"; fail=1; }
fi

# A shard with nothing to time (loom-bench wrote its context and no rows) merges; all of them do not.
bfile "$tmp/e1.json" 1 0000:2A:00.0 1/2
merge --output "$tmp/be.json" "$tmp/b0.json" "$tmp/e1.json" 2>/dev/null &&
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(len(d["benchmarks"]) != 2 or len(d["context"]["loom_devices"]) != 2)' "$tmp/be.json" &&
  echo "ok   bench: an empty shard merges" || { echo "FAIL bench: merging an empty shard"; fail=1; }
bfile "$tmp/e0.json" 0 0000:19:00.0 0/2

# --- errors ----------------------------------------------------------------------------------
expect_error "bench: no row in any shard" 'no report holds a benchmark row' --output "$tmp/x.json" "$tmp/e0.json" "$tmp/e1.json"
sed 's#"0/2"#"0/3"#' "$tmp/v0.json" >"$tmp/v0of3.json"
sed 's#"1/2"#"1/3"#' "$tmp/v1.json" >"$tmp/v1of3.json"
expect_error "a shard missing" 'shard(s) 2/3 missing: the reports hold 2 of the sweep' --output "$tmp/x.json" "$tmp/v0of3.json" "$tmp/v1of3.json"
expect_error "a shard twice" 'shard 0/2 is in both v0.json and v0.json' --output "$tmp/x.json" "$tmp/v0.json" "$tmp/v0.json" "$tmp/v1.json"
expect_error "shards of two counts" 'shards of different counts' --output "$tmp/x.json" "$tmp/v0.json" "$tmp/v1of3.json"
expect_error "two kinds" 'of both loom-validate and loom-bench' --output "$tmp/x.json" "$tmp/v0.json" "$tmp/b1.json"
expect_error "--csv with bench" '--csv is for loom-validate reports' --output "$tmp/x.json" --csv "$tmp/x.csv" "$tmp/b0.json" "$tmp/b1.json"
echo '{"compute_capability": 90, "cases": []}' >"$tmp/enum.json"
expect_error "an enumerate listing" 'is a loom-validate --mode=enumerate listing' --output "$tmp/x.json" "$tmp/enum.json"
expect_error "not JSON" 'is not JSON' --output "$tmp/x.json" "$root/README.md"
expect_error "no --output" 'the following arguments are required: --output' "$tmp/v0.json"
[[ ! -e $tmp/x.json ]] && echo "ok   errors write nothing" || { echo "FAIL an error wrote $tmp/x.json"; fail=1; }
exit $fail
