#!/usr/bin/env bash
# scripts/plot.py says when RESULTS.md puts together sections made at different commits: each result
# file's FILE.commit (scripts/common.sh's loom_stamp) against the benchmarks' JSON's. No pandas or
# GPU needed: the sections are built by extra_sections() alone, and loom_stamp is run as the scripts
# run it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/cli/scripts/lib.sh
source "$root/tests/cli/scripts/lib.sh"

# loom_stamp writes the checkout's commit (or "unknown" outside git) beside a file.
(source "$root/scripts/common.sh" >/dev/null 2>&1 || true; loom_stamp "$tmp/stamped")
[[ -s $tmp/stamped.commit ]] && echo "ok   loom_stamp writes FILE.commit" || { echo "FAIL loom_stamp wrote nothing"; fail=1; }
# LOOM_COMMIT names the commit of a tree that is not a checkout (one unpacked from git archive).
(source "$root/scripts/common.sh" >/dev/null 2>&1 || true; LOOM_COMMIT=feedc0ffee12 loom_stamp "$tmp/named")
[[ $(cat "$tmp/named.commit") == feedc0ffee12 ]] && echo "ok   LOOM_COMMIT names the commit" ||
  { echo "FAIL LOOM_COMMIT: $(cat "$tmp/named.commit")"; fail=1; }

mkdir -p "$tmp/res"
printf 'validate: 10 passed, 0 failed, 0 skipped\n' >"$tmp/res/validate.txt"
echo aaaaaaaaaaaa >"$tmp/res/validate.txt.commit"
printf 'memcheck ========= ERROR SUMMARY: 0 errors\n' >"$tmp/res/sanitize_memcheck.log"
echo aaaaaaaaaaaa >"$tmp/res/sanitize_memcheck.log.commit"
printf 'summary of an old profile\n' >"$tmp/res/profile_sm90_bf16_rcr_4096x4096x4096.txt"
echo 0123456789ab >"$tmp/res/profile_sm90_bf16_rcr_4096x4096x4096.txt.commit"
printf 'summary without a stamp\n' >"$tmp/res/profile_add_f32_ccc_1024x1024.txt"

sections() {  # bench commit ("" for none)
  python3 - "$root/scripts" "$tmp/res" "$1" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import plot
print("\n".join(plot.extra_sections(sys.argv[2], sys.argv[3] or None)))
PY
}
sections aaaaaaaaaaaa >"$tmp/same"
grep -A2 '^## Validation' "$tmp/same" >"$tmp/validation"
absent "same commit: no note on validation" 'Note:' "$tmp/validation"
grep -A2 '^## compute-sanitizer' "$tmp/same" >"$tmp/sanitizer"
absent "same commit: no note on the sanitizers" 'Note:' "$tmp/sanitizer"
check "older profile: a note names both commits" 'Note:\*\* this section was made at `0123456789ab`, the benchmarks above at `aaaaaaaaaaaa`' "$tmp/same"
check "unstamped profile: a note says so" 'made at an unrecorded commit, the benchmarks above at `aaaaaaaaaaaa`' "$tmp/same"
[[ $(grep -c 'Note:' "$tmp/same") -eq 2 ]] && echo "ok   two notes, the matching sections none" || { echo "FAIL notes: $(grep -c 'Note:' "$tmp/same")"; cat "$tmp/same"; fail=1; }
sections "" >"$tmp/none"
[[ $(grep -c 'Note:' "$tmp/none") -eq 4 ]] && echo "ok   no bench commit: every section noted" || { echo "FAIL notes without a bench commit: $(grep -c 'Note:' "$tmp/none")"; fail=1; }
exit $fail
