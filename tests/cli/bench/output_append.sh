#!/usr/bin/env bash
# ctest bench_output: loom-bench --output FILE (JSON rows, as --benchmark_out=FILE with JSON) and
# --append (this run's rows added to FILE's, its first run's context kept). Without a GPU: bad
# combinations get one line and exit 2 before the GPU check (--append without --output, with
# --benchmark_out, a non-JSON --benchmark_out_format, an unwritable FILE, a FILE --append cannot
# extend). With a GPU (else Skipped, 77): two runs into one file give one JSON document holding both
# runs' rows and the first run's context, and no part file is left behind.
# Usage: bash output_append.sh PATH/TO/loom-bench
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"
bad() {  # fragment, args...
  local frag=$1
  shift
  local rc=0
  "$bench" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
  if [[ $rc -ne 2 || $(wc -l <"$tmp/err") -ne 1 || -s $tmp/out ]] || ! grep -qF -- "$frag" "$tmp/err"; then
    echo "FAIL [$*]: exit $rc, stderr: $(cat "$tmp/err")"; fail=1
  else
    echo "ok   [$*]: $(cat "$tmp/err")"
  fi
}
bad "--append appends to the --output file; name one" --kernels=add --m=64 --append
bad "--output and --benchmark_out name the same thing" --kernels=add --m=64 --output="$tmp/a.json" --benchmark_out="$tmp/b.json"
bad "--output writes JSON" --kernels=add --m=64 --output="$tmp/a.json" --benchmark_out_format=csv
bad "cannot write the file" --kernels=add --m=64 --output="$tmp/no/such/dir/a.json"
printf 'name,median_us\nadd,1\n' >"$tmp/table.csv"
bad "not a loom-bench JSON file" --kernels=add --m=64 --output="$tmp/table.csv" --append
"$bench" --help >"$tmp/out" 2>&1
for opt in --output --append; do
  if grep -Eq "^ +$opt " "$tmp/out"; then echo "ok   --help lists $opt"; else echo "FAIL --help lacks $opt"; fail=1; fi
done

if ! { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }; then
  echo "skipped: no GPU for the runs"
  [[ $fail -eq 0 ]] && exit 77
  exit 1
fi
file=$tmp/runs.json
run=(--kernels=add --dtypes=f32 --layouts=ccc --n=64 --providers=loom --iterations=3)
"$bench" "${run[@]}" --m=64 --output="$file" --tags=run:one >/dev/null 2>"$tmp/err1" || { echo "FAIL first run: $(tail -2 "$tmp/err1")"; fail=1; }
"$bench" "${run[@]}" --m=128 --output="$file" --append --tags=run:two >/dev/null 2>"$tmp/err2" || { echo "FAIL second run: $(tail -2 "$tmp/err2")"; fail=1; }
if python3 - "$file" <<'PY'; then echo "ok   one JSON document, both runs' rows, the first context"; else fail=1; fi
import json, sys
d = json.load(open(sys.argv[1]))
names = [b["name"].split("/")[3] for b in d["benchmarks"]]
labels = [b.get("label", "") for b in d["benchmarks"]]
assert names == ["64x64x0", "128x64x0"], names
assert "run=one" in labels[0] and "run=two" in labels[1], labels
assert d["context"].get("loom_tag_run") == "one", d["context"].get("loom_tag_run")
PY
if [[ -e $file.part ]]; then echo "FAIL $file.part left behind"; fail=1; else echo "ok   no part file left"; fi
exit $fail
