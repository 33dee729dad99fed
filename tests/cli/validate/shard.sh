#!/usr/bin/env bash
# --shard=I/N: a bad value is one line and exit status 2, before the GPU is looked for; the shards
# 0/3, 1/3 and 2/3 of a sweep, listed by --mode=enumerate (no GPU needed), are the unsharded list's
# cases I, I+3, I+6, ..., so that together they hold every case exactly once.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" "$@"

for bad in 3/2 1/0 0/0 x 1/ /2 -1/2 0/2/3 " 0/2" 1.5/2 99999999999999999999/1; do
  expect_bad_input "--shard: expected I/N, whole numbers with 0 <= I < N (e.g. 0/4), found \"$bad\"" --shard="$bad"
done
expect_bad_input "--shard" --shard

# A sweep of a few hundred cases: both ops, ragged sizes, two layouts, padded and not.
sweep=(--mode=enumerate --compute-capability=90 --format=csv --m=1,127,1000 --layouts=ccc,rcr --ld-pad=0,3 --misalign=0)
"$VALIDATE" "${sweep[@]}" 2>/dev/null | tail -n +2 >"$TMP/all"
total=$(wc -l <"$TMP/all")
: >"$TMP/union"
for i in 0 1 2; do
  "$VALIDATE" "${sweep[@]}" --shard=$i/3 >"$TMP/s$i.csv" 2>"$TMP/err$i"
  tail -n +2 "$TMP/s$i.csv" >"$TMP/s$i"
  cat "$TMP/s$i" >>"$TMP/union"
  # Shard i is the full list's rows i, i+3, ... in order (the header is line 1 of neither).
  awk -v i=$i 'NR % 3 == (i + 1) % 3' "$TMP/all" >"$TMP/want$i"
  if cmp -s "$TMP/s$i" "$TMP/want$i"; then echo "ok   shard $i/3: the cases of index $i modulo 3"
  else echo "FAIL shard $i/3 is not every third case from $i:"; diff "$TMP/want$i" "$TMP/s$i" | head; FAILS=$((FAILS + 1)); fi
  n=$(wc -l <"$TMP/s$i")
  grep -q "^enumerate: $n cases," "$TMP/err$i" && echo "ok   shard $i/3: the summary counts its $n cases" ||
    { echo "FAIL shard $i/3 summary: $(cat "$TMP/err$i")"; FAILS=$((FAILS + 1)); }
done
if [[ $total -ge 100 ]] && cmp -s <(sort "$TMP/all") <(sort "$TMP/union"); then
  echo "ok   shards 0/3, 1/3, 2/3: every one of the $total cases once"
else
  echo "FAIL the shards' union ($(wc -l <"$TMP/union") rows) is not the $total cases of the sweep"; FAILS=$((FAILS + 1))
fi
# Row by row the listing has no duplicate, so the union holding each once means no case is in two.
[[ -z $(sort "$TMP/all" | uniq -d) ]] && echo "ok   no case listed twice" || { echo "FAIL duplicate rows in the sweep"; FAILS=$((FAILS + 1)); }

# --shard=0/1 is the whole sweep; a shard beyond the cases is empty, not an error.
"$VALIDATE" "${sweep[@]}" --shard=0/1 2>/dev/null | tail -n +2 | cmp -s - "$TMP/all" && echo "ok   0/1: everything" ||
  { echo "FAIL --shard=0/1 differs from no --shard"; FAILS=$((FAILS + 1)); }
rc=0
"$VALIDATE" --mode=enumerate --compute-capability=90 --kernels=add --dtypes=f32 --layouts=ccc --m=64 --ld-pad=0 \
  --misalign=0 --alpha=1 --beta=1 --shard=5/8 >"$TMP/out" 2>"$TMP/err" || rc=$?
[[ $rc -eq 0 ]] && grep -q '^enumerate: 0 cases, 0 would run, 0 not_supported$' "$TMP/out" &&
  echo "ok   an empty shard lists nothing, exit 0" || { echo "FAIL empty shard: exit $rc: $(cat "$TMP/out" "$TMP/err")"; FAILS=$((FAILS + 1)); }

# --max-cases counts the whole sweep, so every shard refuses a sweep alike.
expect_bad_input "the sweep has 5760 cases, more than the limit of 100" --kernels=add --m=1:10 --n=1:2 --max-cases=100 --shard=1/4

# With a GPU: a shard runs its cases alone, each row with the GPU's fields, the header its shard.
if gpu_present; then
  rc=0
  "$VALIDATE" "${sweep[@]:3}" --kernels=add --dtypes=f32 --shard=1/3 --format=json --output="$TMP/r.json" >"$TMP/out" 2>"$TMP/err" || rc=$?
  [[ $rc -eq 0 ]] || { echo "FAIL a shard's run: exit $rc: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); }
  "$VALIDATE" "${sweep[@]}" --kernels=add --dtypes=f32 --shard=1/3 2>/dev/null | tail -n +2 | cut -d, -f1 >"$TMP/want"
  python3 - "$TMP/r.json" "$TMP/want" <<'PY' && echo "ok   run: the shard's cases, each with the GPU's fields" || FAILS=$((FAILS + 1))
import json, sys
d = json.load(open(sys.argv[1]))
want = [l.strip() for l in open(sys.argv[2]) if l.strip()]
got = [r["name"] for r in d["cases"]]
assert got == [w.split("/out=")[0].split("/alpha=")[0] for w in want], (got[:5], want[:5])
assert d["shard"] == "1/3" and d["device"]["ordinal"] == 0 and d["device"]["pci_bus_id"], d["device"]
assert all(r["device"] == 0 and r["device_name"] == d["device"]["name"] and r["pci_bus_id"] == d["device"]["pci_bus_id"]
           for r in d["cases"]), d["cases"][0]
PY
fi
finish
