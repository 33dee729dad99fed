# shellcheck shell=bash
# Helpers for tests/cli/layout/*.sh, sourced as:  source "$(dirname "$0")/lib/expect.sh" "$@"
# $1 is the path of the loom-layout binary (tests/CMakeLists.txt passes it). Each check prints one
# line; finish() exits non-zero if any check failed. This file does not match tests/cli/layout/*.sh, so
# it is not a test of its own.

LOOM=${1:?usage: $0 path/to/loom-layout}
if [[ ! -x $LOOM ]]; then
  echo "FATAL: $LOOM is not an executable" >&2
  exit 1
fi
_tmp=$(mktemp -d)
trap 'rm -rf "$_tmp"' EXIT
_checks=0
_failures=0

_run() {  # _run ARGS...: sets _out, _err, _rc
  "$LOOM" "$@" >"$_tmp/out" 2>"$_tmp/err"
  _rc=$?
  _out=$(cat "$_tmp/out")
  _err=$(cat "$_tmp/err")
}

_show_args() {
  local a s=""
  for a in "$@"; do s+=" '$a'"; done
  printf '%s' "${s# }"
}

_fail() {
  _failures=$((_failures + 1))
  echo "FAIL: loom-layout $1"
  shift
  local line
  for line in "$@"; do echo "      $line"; done
}

# expect EXPECTED ARGS...: exit 0, stdout exactly EXPECTED, stderr empty.
expect() {
  local want=$1
  shift
  _checks=$((_checks + 1))
  _run "$@"
  if [[ $_rc -ne 0 || "$_out" != "$want" || -n "$_err" ]]; then
    _fail "$(_show_args "$@")" "want: $want" "got:  $_out" "exit: $_rc" "stderr: $_err"
  else
    echo "ok:   loom-layout $(_show_args "$@")  ->  $_out"
  fi
}

# expect_error 'FRAGMENT...' ARGS...: non-zero exit, empty stdout, exactly one line on stderr that
# starts with "loom-layout: " and contains every '|'-separated fragment of the first argument.
expect_error() {
  local fragments=$1
  shift
  _checks=$((_checks + 1))
  _run "$@"
  local problems=()
  [[ $_rc -ne 0 ]] || problems+=("exit status is 0")
  [[ -z $_out ]] || problems+=("stdout is not empty: $_out")
  _one_stderr_line "loom-layout: " "$fragments"
  if ((${#problems[@]})); then
    _fail "$(_show_args "$@")" "${problems[@]}" "stderr: $_err"
  else
    echo "ok:   loom-layout $(_show_args "$@")  ->  exit $_rc: $_err"
  fi
}

# expect_warning EXPECTED 'FRAGMENT|...' ARGS...: exit 0, stdout exactly EXPECTED, stderr exactly one
# line starting with "loom-layout: warning: " and holding every fragment.
expect_warning() {
  local want=$1 fragments=$2
  shift 2
  _checks=$((_checks + 1))
  _run "$@"
  local problems=()
  [[ $_rc -eq 0 ]] || problems+=("exit status $_rc")
  [[ $_out == "$want" ]] || problems+=("stdout: $_out, want $want")
  _one_stderr_line "loom-layout: warning: " "$fragments"
  if ((${#problems[@]})); then
    _fail "$(_show_args "$@")" "${problems[@]}" "stderr: $_err"
  else
    echo "ok:   loom-layout $(_show_args "$@")  ->  $_out + $_err"
  fi
}

# Appends to the caller's `problems` what is wrong with $_err: not exactly one line, not starting
# with PREFIX, or lacking one of the '|'-separated FRAGMENTS.
_one_stderr_line() {
  local prefix=$1 frag lines
  lines=$(printf '%s' "$_err" | grep -c '')
  [[ $lines -eq 1 ]] || problems+=("stderr has $lines lines, want 1")
  [[ $_err == "$prefix"* ]] || problems+=("stderr does not start with '$prefix'")
  IFS='|' read -r -a frags <<<"$2"
  for frag in "${frags[@]}"; do
    [[ $_err == *"$frag"* ]] || problems+=("stderr lacks: $frag")
  done
}

# expect_known_bug ISSUE EXPECTED ARGS...: EXPECTED is CuTe's answer, which the layout core does
# not give yet (ISSUE says why). Reported, not counted as a failure; when the core is fixed this
# prints a reminder to turn the check into a plain `expect`.
expect_known_bug() {
  local issue=$1 want=$2
  shift 2
  _run "$@"
  if [[ $_rc -eq 0 && "$_out" == "$want" && -z $_err ]]; then
    echo "FIXED: loom-layout $(_show_args "$@") now gives CuTe's $want; make this an expect"
  else
    echo "KNOWN CORE BUG ($issue): loom-layout $(_show_args "$@")"
    echo "      CuTe: $want"
    echo "      got:  ${_out:-$_err} (exit $_rc)"
  fi
}

# expect_known_bug_error ISSUE 'FRAGMENT...' ARGS...: CuTe rejects this input, the layout core does
# not yet (ISSUE says why). Reported, not counted as a failure.
expect_known_bug_error() {
  local issue=$1 fragments=$2 frag missing=0
  shift 2
  _run "$@"
  IFS='|' read -r -a frags <<<"$fragments"
  for frag in "${frags[@]}"; do [[ $_err == *"$frag"* ]] || missing=1; done
  if [[ $_rc -ne 0 && -z $_out && $missing -eq 0 && $(printf '%s' "$_err" | grep -c '') -eq 1 ]]; then
    echo "FIXED: loom-layout $(_show_args "$@") is now rejected; make this an expect_error"
  else
    echo "KNOWN CORE BUG ($issue): loom-layout $(_show_args "$@")"
    echo "      CuTe: rejected (compile-time error)"
    echo "      got:  ${_out:-$_err} (exit $_rc)"
  fi
}

finish() {
  echo "$((_checks - _failures))/$_checks checks passed"
  ((_failures == 0))
  exit $?
}
