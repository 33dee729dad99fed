#!/usr/bin/env bash
# loom-layout against NVIDIA CuTe 4.7.0 (CUTLASS v4.7.0): every line of
# tests/golden/cute_4_7_0.txt is `OP ARG...<TAB>EXPECTED`, where EXPECTED is what CuTe printed for
# the same operation on the same static layouts (normalized to loom-layout's notation, newlines
# written as \n), or `!error` where CuTe rejects the case at compile time. loom-layout must print
# EXPECTED exactly, or, for `!error`, exit with status 2 and one line on stderr.
# The fixture's header says how it was produced.
#
#   bash tests/cli/cute_golden.sh path/to/loom-layout [FIXTURE]
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect.sh" "$@"  # LOOM, and the scratch folder $_tmp
FIXTURE=${2:-"$(dirname "${BASH_SOURCE[0]}")/../golden/cute_4_7_0.txt"}
if [[ ! -r $FIXTURE ]]; then
  echo "FATAL: cannot read $FIXTURE" >&2
  exit 1
fi

passed=0
failed=0
shown=0
line_no=0
while IFS=$'\t' read -r argv want || [[ -n $argv ]]; do
  line_no=$((line_no + 1))
  [[ -z $argv || $argv == \#* ]] && continue
  read -r -a args <<<"$argv"
  "$LOOM" "${args[@]}" >"$_tmp/out" 2>"$_tmp/err"
  rc=$?
  out=$(<"$_tmp/out")
  err=$(<"$_tmp/err")
  ok=1
  if [[ $want == '!error' ]]; then
    lines=$(printf '%s' "$err" | grep -c '')
    [[ $rc -eq 2 && -z $out && $lines -eq 1 && $err == "loom-layout: "* ]] || ok=0
    got=${out:-$err}
  else
    want=${want//\\n/$'\n'}
    [[ $rc -eq 0 && $out == "$want" && -z $err ]] || ok=0
    got=${out:-$err}
  fi
  if ((ok)); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    if ((shown < 40)); then
      shown=$((shown + 1))
      echo "FAIL (line $line_no): loom-layout $argv"
      echo "      CuTe:  ${want//$'\n'/\\n}"
      echo "      loom:  ${got//$'\n'/\\n} (exit $rc)"
    fi
  fi
done <"$FIXTURE"
((shown < failed)) && echo "... and $((failed - shown)) more failures"
echo "$passed passed, $failed failed"
((failed == 0 && passed > 0))
