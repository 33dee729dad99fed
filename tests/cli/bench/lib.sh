# shellcheck shell=bash
# Sourced by tests/cli/bench/*.sh as: source lib.sh "$@" ($1: path to loom-bench). Sets bench, a
# temporary directory tmp (removed on exit) and fail=0, and defines check NAME FILE REGEX: "ok" when
# an extended regex matches a line of FILE, else "FAIL" with FILE's head and fail=1.
set -uo pipefail
bench=${1:?usage: $0 <path to loom-bench>}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if grep -Eq -- "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1: no /$3/ in:"; head -40 "$2"; fail=1; fi; }
