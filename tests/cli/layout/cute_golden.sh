#!/usr/bin/env bash
# loom-layout against NVIDIA CuTe 4.7.0 (CUTLASS v4.7.0): every line of
# tests/golden/cute_4_7_0.txt is `OP ARG...<TAB>EXPECTED`, where EXPECTED is what CuTe printed for
# the same operation on the same static layouts (normalized to loom-layout's notation, newlines
# written as \n), or `!error` where CuTe rejects the case at compile time. loom-layout must print
# EXPECTED exactly, or, for `!error`, exit with status 2 and one line on stderr.
# The fixture's header says how it was produced. The lines named in
# tests/golden/contract_exceptions.txt are where CuTe prints a layout with a shape entry <= 0, which
# breaks the op's contract: loom-layout must reject those (`!error`), and the script checks that
# each named line really has such an answer from CuTe.
#
# The lines named in tests/golden/contract_warnings.txt are where CuTe's answer (kept on stdout)
# breaks the op's contract: loom-layout must add exactly one `loom-layout: warning:` line on stderr
# there, and no other line may warn.
#
#   bash tests/cli/layout/cute_golden.sh path/to/loom-layout [FIXTURE [EXCEPTIONS [WARNINGS]]]
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect.sh" "$@"  # LOOM, and the scratch folder $_tmp
FIXTURE=${2:-"$(dirname "${BASH_SOURCE[0]}")/../../golden/cute_4_7_0.txt"}
EXCEPTIONS=${3:-"$(dirname "${BASH_SOURCE[0]}")/../../golden/contract_exceptions.txt"}
WARNINGS=${4:-"$(dirname "${BASH_SOURCE[0]}")/../../golden/contract_warnings.txt"}
if [[ ! -r $FIXTURE || ! -r $EXCEPTIONS || ! -r $WARNINGS ]]; then
  echo "FATAL: cannot read $FIXTURE, $EXCEPTIONS or $WARNINGS" >&2
  exit 1
fi
# Lines whose answer breaks the op's contract: CuTe's answer on stdout, exit 0, and exactly one
# stderr line `loom-layout: warning: ...`.
declare -A warns=()
while IFS= read -r line || [[ -n $line ]]; do
  [[ -z $line || $line == \#* ]] && continue
  warns[$line]=1
done <"$WARNINGS"
warned=0
declare -A exception=()
while IFS= read -r line || [[ -n $line ]]; do
  [[ -z $line || $line == \#* ]] && continue
  exception[$line]=1
done <"$EXCEPTIONS"
# Does a printed layout have a shape entry <= 0? Its shape is the text before the first ':'.
nonpositive_shape() {
  local shape=${1%%:*}
  [[ $1 == *:* && $shape =~ (^|[(,])(-|0[,)]|0$) ]]
}

passed=0
failed=0
excepted=0
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
  if [[ -n ${exception[$argv]:-} ]]; then
    if ! nonpositive_shape "$want"; then
      echo "FAIL (line $line_no): listed in $(basename "$EXCEPTIONS") but CuTe's answer $want has positive shapes"
      failed=$((failed + 1))
      continue
    fi
    unset "exception[$argv]"
    excepted=$((excepted + 1))
    want='!error'
  fi
  if [[ $want == '!error' ]]; then
    lines=$(printf '%s' "$err" | grep -c '')
    [[ $rc -eq 2 && -z $out && $lines -eq 1 && $err == "loom-layout: "* ]] || ok=0
    got=${out:-$err}
  else
    want=${want//\\n/$'\n'}
    if [[ -n ${warns[$argv]:-} ]]; then
      unset "warns[$argv]"
      warned=$((warned + 1))
      lines=$(printf '%s' "$err" | grep -c '')
      [[ $rc -eq 0 && $out == "$want" && $lines -eq 1 && $err == "loom-layout: warning: "* ]] || ok=0
    else
      [[ $rc -eq 0 && $out == "$want" && -z $err ]] || ok=0
    fi
    got=${out:-$err}
    [[ -n $err && $out == "$want" ]] && got="$out (stderr: $err)"
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
for line in "${!exception[@]}"; do
  echo "FAIL: listed in $(basename "$EXCEPTIONS") but not in the fixture: $line"
  failed=$((failed + 1))
done
for line in "${!warns[@]}"; do
  echo "FAIL: listed in $(basename "$WARNINGS") but not in the fixture: $line"
  failed=$((failed + 1))
done
echo "($excepted of them CuTe answers with a shape entry <= 0 and loom-layout rejects; see $(basename "$EXCEPTIONS"))"
echo "($warned of them CuTe answers against the op's contract and loom-layout warns; see $(basename "$WARNINGS"))"
echo "$passed passed, $failed failed"
((failed == 0 && passed > 0))
