#!/usr/bin/env bash
# ctest bench_faults: GPU-side faults (bench/README.md, "Time-out and kernel faults").
# - bad --timeout and --inject-fault values: one line, exit 2, with or without a GPU;
# - on a GPU, --inject-fault=hang with a small --timeout: the watchdog's one line naming the
#   benchmark, the time-out and the repro, exit status 3, within the time-out and a few seconds;
# - --inject-fault=trap and =illegal-address: the benchmark fails, the next is a failed row
#   "not run: CUDA context lost after ...", the run ends with one line counting them, exit 1, and
#   the JSON is whole;
# - a run that does not hang is not stopped by a small --timeout.
# The GPU part is Skipped (77) without a GPU. Usage: bash faults.sh PATH/TO/loom-bench
set -uo pipefail
bench=${1:?usage: faults.sh PATH/TO/loom-bench}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# expect WANT ARGS...: exit 2, nothing on stdout, one line on stderr containing WANT.
expect() {
  local want=$1 rc=0
  shift
  "$bench" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
  if [[ $rc -ne 2 || $(wc -l <"$tmp/err") -ne 1 || -s $tmp/out ]] || ! grep -qF -- "$want" "$tmp/err"; then
    echo "FAIL [$*]: exit $rc, want one line with: $want"
    sed 's/^/  stderr: /' "$tmp/err"
    fail=1
  else
    echo "ok   [$*]: $(cat "$tmp/err")"
  fi
}
check() {  # name, file, regex
  if grep -Eq -- "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1: no /$3/ in:"; tail -20 "$2"; fail=1; fi
}
expect_rc() {  # name, got, want
  if [[ $2 -eq $3 ]]; then echo "ok   $1: exit status $2"; else echo "FAIL $1: exit status $2, expected $3"; fail=1; fi
}

for bad in -1 abc nan inf 1e3 604801 ' 5'; do
  expect "--timeout: expected seconds in [0, 604800] (0: no time-out), found \"$bad\"" --kernels=add "--timeout=$bad"
done
expect "--timeout: 1 required TEXT missing" --timeout=
expect '--inject-fault: expected hang, trap or illegal-address, found "bogus"' --inject-fault=bogus
expect "--inject-fault: expected hang, trap or illegal-address, found no value" --inject-fault=
expect "--inject-fault: expected hang, trap or illegal-address, found no value" --inject-fault --m=64
if "$bench" --help | grep -q -- --inject-fault; then echo "FAIL --help lists --inject-fault"; fail=1; fi

if ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }; then
  expect "no CUDA GPU found" --kernels=add --timeout=0.5 --inject-fault=hang
  echo "skipped: no GPU for the fault checks"
  [[ $fail -eq 0 ]] && exit 77
  exit $fail
fi

# Two benchmarks, the kernel's alone: the first gets the fault.
args=(--kernels=add --dtypes=f32 --layouts=ccc --m=1024,2048 --providers=loom --warmup=1 --iterations=2
      --benchmark_format=json)

# A hang: the watchdog stops the run (timeout(1) kills it should the watchdog not).
t0=$(date +%s%N)
rc=0
timeout -s KILL 120 "$bench" "${args[@]}" --inject-fault=hang --timeout=3 >"$tmp/out" 2>"$tmp/err" || rc=$?
secs=$((($(date +%s%N) - t0) / 1000000000))
expect_rc "hang" $rc 3
if [[ $secs -le 25 ]]; then echo "ok   hang: stopped after $secs s"; else echo "FAIL hang: stopped after $secs s (time-out 3 s)"; fail=1; fi
if [[ $(grep -c 'did not finish' "$tmp/err") -eq 1 ]]; then echo "ok   hang: one line"; else echo "FAIL hang: stderr:"; cat "$tmp/err"; fail=1; fi
check "hang: the line, last" <(tail -n 1 "$tmp/err") \
  '^loom-bench: benchmark add/f32/ccc/1024x1024x0 did not finish within 3 s \(a hung kernel\?\); stopping; repro: loom-bench --kernels=add .*--m=1024 .*$'

# A kernel fault: the benchmark fails, the next one is not run, the JSON is whole.
for fault in trap illegal-address; do
  rc=0
  timeout -s KILL 120 "$bench" "${args[@]}" --inject-fault=$fault >"$tmp/out" 2>"$tmp/err" || rc=$?
  expect_rc "$fault" $rc 1
  check "$fault: the end" "$tmp/err" \
    '^loom-bench: CUDA context lost after add/f32/ccc/1024x1024x0 \(.+\); 1 benchmark\(s\) failed, 1 not run$'
  check "$fault: the next row" "$tmp/out" '"error_message": "not run: CUDA context lost after add/f32/ccc/1024x1024x0 \('
  if command -v python3 >/dev/null; then
    if python3 - "$tmp/out" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))["benchmarks"]
assert len(rows) == 2, rows
assert rows[0]["name"].startswith("add/f32/ccc/1024x1024x0/") and rows[0]["error_occurred"], rows[0]
assert not rows[0]["error_message"].startswith("not run"), rows[0]
assert rows[1]["name"].startswith("add/f32/ccc/2048x2048x0/") and rows[1]["error_occurred"], rows[1]
EOF
    then echo "ok   $fault: the JSON (the faulted row, the one not run)"; else echo "FAIL $fault: the JSON"; fail=1; fi
  fi
done
check "illegal-address: the reason" "$tmp/err" 'illegal memory access'

# No fault: a small time-out does not stop a run that finishes.
rc=0
timeout -s KILL 120 "$bench" "${args[@]}" --timeout=20 >"$tmp/out" 2>"$tmp/err" || rc=$?
expect_rc "no fault, --timeout=20" $rc 0
exit $fail
