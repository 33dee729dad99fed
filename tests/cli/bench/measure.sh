#!/usr/bin/env bash
# ctest bench_measurement: loom-bench's noise-aware sampling and its NVML clock check.
# Without a GPU: --min-samples, --max-noise, --max-time and --throttle-threshold take their ranges
# (anything else, NaN included: one line, exit 2) and --help names them. With a GPU (else
# Skipped, 77): a tiny run's rows carry samples (>= --min-samples), noise_pct, host_us, min_us <=
# median_us, and, where NVML reads the clock, throttled_discarded and sm_mhz; --iterations=N keeps
# exactly N samples; --max-noise=0 samples until --max-time; the JSON context says how it sampled,
# the clock threshold and the driver version from NVML.
# Usage: bash measure.sh PATH/TO/loom-bench
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

for args in "--min-samples=0" "--min-samples=-3" "--min-samples=x" "--max-noise=-1" "--max-noise=nan" "--max-noise=101" \
            "--max-time=0" "--max-time=abc" "--max-time=nan" "--max-time=1e9" "--throttle-threshold=150" \
            "--throttle-threshold=nan" "--throttle-threshold=-5" "--iterations=-1" "--max-time=60" \
            "--max-time=30 --timeout=20"; do
  rc=0
  # shellcheck disable=SC2086
  "$bench" --kernels=add --m=64 $args >"$tmp/out" 2>"$tmp/err" || rc=$?
  if [[ $rc -ne 2 || $(wc -l <"$tmp/err") -ne 1 || -s $tmp/out ]] || ! grep -q -- "${args%%=*}" "$tmp/err"; then
    echo "FAIL [$args]: exit $rc, stderr: $(cat "$tmp/err")"; fail=1
  else
    echo "ok   [$args]: $(cat "$tmp/err")"
  fi
done
"$bench" --help >"$tmp/out" 2>&1
for opt in --min-samples --max-noise --max-time --throttle-threshold; do check "--help: $opt" "$tmp/out" "^ +$opt "; done
# Good values are taken (enumerate needs no GPU); --timeout=0 lets --max-time be long, and a small
# --timeout alone is fine (the default --max-time shrinks under it).
rc=0
"$bench" --mode=enumerate --kernels=add --m=64 --timeout=0.5 >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 0 ]] && echo "ok   --timeout=0.5 alone" || { echo "FAIL --timeout=0.5 alone: exit $rc: $(cat "$tmp/err")"; fail=1; }
rc=0
"$bench" --mode=enumerate --kernels=add --m=64 --max-time=100 --timeout=0 >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 0 ]] && echo "ok   --max-time=100 --timeout=0" || { echo "FAIL --max-time=100 --timeout=0: exit $rc: $(cat "$tmp/err")"; fail=1; }
rc=0
"$bench" --mode=enumerate --kernels=add --m=64 --min-samples=3 --max-noise=0 --max-time=0.5 --throttle-threshold=0 \
  >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 0 ]] && echo "ok   good values" || { echo "FAIL good values: exit $rc: $(cat "$tmp/err")"; fail=1; }

if ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }; then
  echo "skipped: no GPU for the run"
  [[ $fail -eq 0 ]] && exit 77
  exit $fail
fi
py=$(command -v python3) || { echo "skipped: no python3 to read the JSON"; [[ $fail -eq 0 ]] && exit 77; exit $fail; }

# json FILE EXPR: evaluates a Python expression over the benchmarks (rows: name -> row) and the context.
json() {
  "$py" - "$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = {b["name"].split("/iterations:")[0].split("/manual_time")[0]: b for b in doc["benchmarks"]}
ctx = doc["context"]
ok = eval(sys.argv[2])
print("ok" if ok else "FAIL: " + json.dumps({k: {c: v for c, v in r.items() if c in (
    "samples", "noise_pct", "min_us", "median_us", "host_us", "throttled_discarded", "sm_mhz", "iterations", "label")}
    for k, r in rows.items()}) + " " + json.dumps({k: v for k, v in ctx.items() if k.startswith("loom_")}))
sys.exit(0 if ok else 1)
PY
}
jcheck() { if out=$(json "$2" "$3" 2>&1); then echo "ok   $1"; else echo "FAIL $1: $out"; fail=1; fi; }

rc=0
"$bench" --kernels=add --dtypes=f32 --m=1024 --min-time=0.001 --min-samples=12 --benchmark_format=json >"$tmp/run.json" 2>"$tmp/err" || rc=$?
[[ $rc -eq 0 ]] || { echo "FAIL run: exit $rc: $(tail -3 "$tmp/err")"; fail=1; }
k=add/f32/ccc/1024x1024x0
jcheck "one iteration per benchmark" "$tmp/run.json" "all(r['iterations'] == 1 for r in rows.values())"
jcheck "samples >= --min-samples" "$tmp/run.json" "all(r['samples'] >= 12 for r in rows.values())"
jcheck "noise_pct present" "$tmp/run.json" "all(r['noise_pct'] >= 0 for r in rows.values())"
jcheck "noise under --max-noise, or --max-time ran out" "$tmp/run.json" "rows['$k']['noise_pct'] <= 0.5 or rows['$k']['samples'] > 1000"
jcheck "min_us <= median_us" "$tmp/run.json" "all(0 < r['min_us'] <= r['median_us'] for r in rows.values())"
jcheck "host_us: the launch call's host time, positive and below a second" "$tmp/run.json" "all(0 < r['host_us'] < 1e6 for r in rows.values())"
jcheck "Time is the median" "$tmp/run.json" "abs(rows['$k']['real_time'] - rows['$k']['median_us']) <= 1e-3 * rows['$k']['median_us']"
jcheck "throttled_discarded and sm_mhz (NVML)" "$tmp/run.json" "all(r['throttled_discarded'] >= 0 and r['sm_mhz'] > 0 for r in rows.values())"
jcheck "context: sampling" "$tmp/run.json" "'noise_pct' in ctx['loom_sampling'] and 'MHz' in ctx['loom_clock_threshold']"
jcheck "context: driver from NVML" "$tmp/run.json" "ctx['loom_nvidia_driver'][0].isdigit() and 'MHz' in ctx['loom_clocks_at_start']"

"$bench" --kernels=add --dtypes=f32 --m=1024 --iterations=7 --providers=loom --benchmark_format=json >"$tmp/it.json" 2>"$tmp/err"
jcheck "--iterations=7: 7 samples" "$tmp/it.json" "rows['$k']['samples'] == 7"
"$bench" --kernels=add --dtypes=f32 --m=1024 --benchmark_min_time=5x --providers=loom --benchmark_format=json >"$tmp/bx.json" 2>"$tmp/err" \
  && jcheck "--benchmark_min_time=5x: 5 samples" "$tmp/bx.json" "rows['$k']['samples'] == 5" \
  || echo "ok   --benchmark_min_time=5x refused by this Google Benchmark: $(cat "$tmp/err")"
start=$(date +%s.%N)
"$bench" --kernels=add --dtypes=f32 --m=1024 --max-noise=0 --max-time=0.3 --providers=loom --benchmark_format=json >"$tmp/mt.json" 2>"$tmp/err"
end=$(date +%s.%N)
jcheck "--max-noise=0: sampled until --max-time" "$tmp/mt.json" "rows['$k']['samples'] > 20"
if "$py" -c "import sys; sys.exit(0 if $end - $start < 20 else 1)"; then echo "ok   --max-time bounds the run"; else echo "FAIL --max-time=0.3 took $("$py" -c "print($end - $start)") s"; fail=1; fi
"$bench" --kernels=add --dtypes=f32 --m=1024 --throttle-threshold=100 --max-time=0.5 --providers=loom --benchmark_format=json >"$tmp/th.json" 2>"$tmp/err"
jcheck "--throttle-threshold=100: a row all the same" "$tmp/th.json" "rows['$k']['samples'] >= 1"
jcheck "--throttle-threshold=100: context" "$tmp/th.json" "'(100% of the highest' in ctx['loom_clock_threshold']"
exit $fail
