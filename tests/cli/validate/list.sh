#!/usr/bin/env bash
# --list and --help need no GPU and exit 0.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" "$@"

rc=0
"$VALIDATE" --list >"$TMP/out" 2>"$TMP/err" || rc=$?
if [[ $rc -ne 0 ]] || ! grep -Eq '^add +add +f32, f16, bf16 +8\.0' "$TMP/out"; then
  echo "FAIL --list: exit $rc"; cat "$TMP/out" "$TMP/err"; FAILS=$((FAILS + 1))
else
  echo "ok   --list"; cat "$TMP/out"
fi

rc=0
"$VALIDATE" --help >"$TMP/out" 2>"$TMP/err" || rc=$?
if [[ $rc -ne 0 ]] || ! grep -q -- '--reference' "$TMP/out"; then
  echo "FAIL --help: exit $rc"; FAILS=$((FAILS + 1))
else
  echo "ok   --help"
fi
finish
