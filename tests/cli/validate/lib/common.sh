# shellcheck shell=bash
# Sourced by tests/cli/validate/*.sh as: source lib/common.sh "$@" ($1: path to loom-validate).
set -u
VALIDATE=${1:?usage: $0 <path to loom-validate>}
FAILS=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# A CUDA GPU is visible to the driver.
gpu_present() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }

# expect_bad_input FRAGMENT ARGS...: exit status 2, nothing on stdout, exactly one line on stderr
# that starts with "loom-validate: " and contains FRAGMENT.
expect_bad_input() {
  local frag=$1
  shift
  local rc=0
  "$VALIDATE" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
  local lines
  lines=$(wc -l <"$TMP/err")
  local err
  err=$(cat "$TMP/err")
  if [[ $rc -ne 2 ]]; then
    echo "FAIL [$*]: exit status $rc, expected 2 (stderr: $err)"
    FAILS=$((FAILS + 1))
  elif [[ -s $TMP/out ]]; then
    echo "FAIL [$*]: stdout not empty: $(head -c 300 "$TMP/out")"
    FAILS=$((FAILS + 1))
  elif [[ $lines -ne 1 ]]; then
    echo "FAIL [$*]: $lines lines on stderr, expected 1: $err"
    FAILS=$((FAILS + 1))
  elif [[ $err != "loom-validate: "* ]]; then
    echo "FAIL [$*]: stderr does not start with 'loom-validate: ': $err"
    FAILS=$((FAILS + 1))
  elif [[ $err != *"$frag"* ]]; then
    echo "FAIL [$*]: stderr lacks \"$frag\": $err"
    FAILS=$((FAILS + 1))
  else
    echo "ok   [$*]: $err"
  fi
}

finish() {
  if [[ $FAILS -ne 0 ]]; then
    echo "$FAILS check(s) failed"
    exit 1
  fi
  exit 0
}
