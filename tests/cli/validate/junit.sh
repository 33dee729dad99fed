#!/usr/bin/env bash
# --junit-output: a bad path is one line and exit 2 before anything runs; on a GPU, a small sweep
# writes JUnit XML with one testcase per case and no failures, and --tags as the suite's
# properties. Skipped (77) without a GPU after the bad-path check.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" "$@"

expect_bad_input 'cannot write --junit-output file' --junit-output=/nonexistent-dir/x.xml
if ! gpu_present; then
  echo "skipped: no GPU for the JUnit run"
  [[ $FAILS -eq 0 ]] && exit 77
  finish
fi
rc=0
"$VALIDATE" --kernels=add --dtypes=f32 --layouts=ccc,rrr --m=7,130 --n=9 --ld-pad=0 --misalign=0 --quiet \
  --tags=gpu:ci,run:7 --junit-output="$TMP/j.xml" >"$TMP/out" 2>"$TMP/err" || rc=$?
n=$(grep -c '<testcase ' "$TMP/j.xml" 2>/dev/null || echo 0)
if [[ $rc -ne 0 || $n -ne 12 ]] || ! grep -q '<testsuites name="loom-validate" tests="12" failures="0" skipped="0"' "$TMP/j.xml"; then
  echo "FAIL junit: exit $rc, $n testcases"; head -5 "$TMP/j.xml" 2>/dev/null; FAILS=$((FAILS + 1))
else
  echo "ok   junit: 12 testcases, 0 failures"
fi
# --tags: the suite's properties.
if grep -q '<property name="gpu" value="ci"/>' "$TMP/j.xml" && grep -q '<property name="run" value="7"/>' "$TMP/j.xml"; then
  echo "ok   junit: --tags as properties"
else
  echo "FAIL junit: no properties for --tags"; FAILS=$((FAILS + 1))
fi
finish
