#!/usr/bin/env bash
# GPU-side faults (validate/README.md, "Time-out and kernel faults"):
# - bad --timeout and --inject-fault values are bad input (exit 2, one line), with or without a GPU;
# - on a GPU, --inject-fault=hang with a small --timeout: the watchdog's one line naming the case,
#   the time-out, the cases not run and the repro, exit status 3, within the time-out and a few
#   seconds; the report's header and --junit-output are written;
# - --inject-fault=trap and =illegal-address: the case fails with its name, the run stops with one
#   line "CUDA context lost after CASE (...); N cases not run", the summary, exit status 1;
# - a run that does not hang is not stopped by a small --timeout.
# The GPU part is Skipped (77) without a GPU.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" "$@"

for bad in -1 abc nan inf 1e3 604801 0x10 ' 5' 1.2.3; do
  expect_bad_input "--timeout: expected seconds in [0, 604800] (0: no time-out), found \"$bad\"" --kernels=add "--timeout=$bad"
done
expect_bad_input "--timeout: 1 required TEXT missing" --timeout=
expect_bad_input "--inject-fault: expected hang, trap or illegal-address, found \"bogus\"" --inject-fault=bogus
expect_bad_input "--inject-fault: expected hang, trap or illegal-address, found no value" --inject-fault=
expect_bad_input "--inject-fault: expected hang, trap or illegal-address, found no value" --inject-fault --m=4
# A testing aid: not in --help.
if "$VALIDATE" --help | grep -q -- --inject-fault; then
  echo "FAIL --help lists --inject-fault"
  FAILS=$((FAILS + 1))
else
  echo "ok   --help leaves out --inject-fault"
fi

if ! gpu_present; then
  # Good values pass the checks and stop at the GPU, as every option does.
  expect_bad_input "loom-validate: no CUDA GPU found" --kernels=add --timeout=0.5 --inject-fault=hang
  echo "skipped: no GPU for the fault checks"
  [[ $FAILS -eq 0 ]] && exit 77
  finish
fi

check() {  # name, file, regex
  if grep -Eq -- "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1: no /$3/ in:"; head -20 "$2"; FAILS=$((FAILS + 1)); fi
}
expect_rc() {  # name, got, want
  if [[ $2 -eq $3 ]]; then echo "ok   $1: exit status $2"; else echo "FAIL $1: exit status $2, expected $3"; FAILS=$((FAILS + 1)); fi
}
# Two cases: the first gets the fault, the second is not run.
small=(--kernels=add --dtypes=f32 --layouts=ccc --m=64,65 --n=64 --ld-pad=0 --misalign=0 --alpha=1 --beta=0)

# A hang: the watchdog stops the run (timeout(1) kills it should the watchdog not).
t0=$(date +%s%N)
rc=0
timeout -s KILL 120 "$VALIDATE" "${small[@]}" --inject-fault=hang --timeout=3 --format=csv --output="$TMP/hang.csv" \
  --junit-output="$TMP/hang.xml" >"$TMP/out" 2>"$TMP/err" || rc=$?
secs=$((($(date +%s%N) - t0) / 1000000000))
expect_rc "hang" $rc 3
if [[ $secs -le 25 ]]; then echo "ok   hang: stopped after $secs s"; else echo "FAIL hang: stopped after $secs s (time-out 3 s)"; FAILS=$((FAILS + 1)); fi
if [[ $(wc -l <"$TMP/err") -eq 1 ]]; then echo "ok   hang: one line on stderr"; else echo "FAIL hang: stderr:"; cat "$TMP/err"; FAILS=$((FAILS + 1)); fi
check "hang: the line" "$TMP/err" \
  '^loom-validate: case add/f32/ccc/64x64x0 did not finish within 3 s \(a hung kernel\?\); stopping, 1 cases not run; repro: loom-validate --kernels=add .*--m=64 --n=64 .*$'
check "hang: the report so far (csv header)" "$TMP/hang.csv" '^kernel,op,dtype,'
check "hang: --junit-output" "$TMP/hang.xml" '<failure message="case add/f32/ccc/64x64x0 did not finish within 3 s'

# A kernel fault: the case fails, the run stops, the rest is said not to have run.
for fault in trap illegal-address; do
  rc=0
  timeout -s KILL 120 "$VALIDATE" "${small[@]}" --inject-fault=$fault --format=csv >"$TMP/out" 2>"$TMP/err" || rc=$?
  expect_rc "$fault" $rc 1
  check "$fault: the case fails" "$TMP/out" '^add,add,f32,f32,ccc,64,64,0,.*,fail,'
  if grep -q '^add,add,f32,f32,ccc,65,' "$TMP/out"; then echo "FAIL $fault: the second case ran"; FAILS=$((FAILS + 1)); fi
  check "$fault: the stop" "$TMP/err" '^loom-validate: CUDA context lost after add/f32/ccc/64x64x0 \(.+\); 1 cases not run$'
  check "$fault: the summary" "$TMP/err" '^validate: 0 passed, 1 failed, 0 skipped$'
done
check "illegal-address: the reason" "$TMP/err" 'illegal memory access'

# No fault: a small time-out does not stop a run that finishes.
rc=0
timeout -s KILL 120 "$VALIDATE" "${small[@]}" --timeout=20 --format=csv >"$TMP/out" 2>"$TMP/err" || rc=$?
expect_rc "no fault, --timeout=20" $rc 0
check "no fault: the summary" "$TMP/err" '^validate: 2 passed, 0 failed, 0 skipped$'
finish
