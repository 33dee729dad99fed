#!/usr/bin/env bash
# ctest bench_shard: --shard=I/N. A bad value is one line and exit status 2, before the GPU is looked
# for; the shards 0/3, 1/3 and 2/3 of a sweep, as --mode=enumerate plans them (no GPU needed),
# together hold every benchmark of the unsharded plan exactly once, and each case whole: its cuBLAS
# baseline in the same shard as its kernels (vs_cublas divides by the baseline of the same process).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" "$@"

for bad in 3/2 1/0 x 0/0 -1/2 1/ 0/2/3; do
  rc=0
  "$bench" --mode=enumerate --shard="$bad" >"$tmp/out" 2>"$tmp/err" || rc=$?
  if [[ $rc -eq 2 && ! -s $tmp/out && $(wc -l <"$tmp/err") -eq 1 ]] &&
    grep -qxF "loom-bench: --shard: expected I/N, whole numbers with 0 <= I < N (e.g. 0/4), found \"$bad\"" "$tmp/err"; then
    echo "ok   --shard=$bad: $(cat "$tmp/err")"
  else
    echo "FAIL --shard=$bad: exit $rc, stderr: $(cat "$tmp/err"), stdout: $(head -c 200 "$tmp/out")"; fail=1
  fi
done

# The rows of a plan: name, disposition, m, n, k and label (its repro, plan and verify lines left out).
rows() { grep -E '^[^ ].* (would_run|not_supported) ' "$1" | grep -v '^benchmark '; }

# Four kernels over two layouts and three sizes (six cases of a cuBLAS row and four kernel rows),
# planned for 8.0, where sm90 is left out (not_supported rows are sharded with their case too), and
# an add sweep with its copy baseline.
for sweep in "--kernels=sm90,sm80,gemm --dtypes=bf16 --layouts=ccc,rcr --m=128,256,512 --compute-capability=8.0" \
  "--kernels=add --dtypes=f32,bf16 --m=2048,4096 --compute-capability=9.0"; do
  # shellcheck disable=SC2086
  "$bench" --mode=enumerate $sweep >"$tmp/all.txt" 2>&1
  rows "$tmp/all.txt" | sort >"$tmp/all"
  : >"$tmp/union"
  for i in 0 1 2; do
    # shellcheck disable=SC2086
    "$bench" --mode=enumerate $sweep --shard=$i/3 >"$tmp/s$i.txt" 2>&1
    rows "$tmp/s$i.txt" >"$tmp/s$i"
    cat "$tmp/s$i" >>"$tmp/union"
    n=$(grep -c ' would_run ' "$tmp/s$i")
    check "[$sweep] shard $i/3: the summary counts its rows" "$tmp/s$i.txt" "^enumerate: $n benchmarks would run,"
    # The case of a row is its name without the kernel: its shard holds the case's cuBLAS row.
    awk '{ sub(/^[^\/]*\//, "", $1); print $1 }' "$tmp/s$i" | sort -u >"$tmp/cases$i"
    awk '$1 ~ /^cublas\// { sub(/^cublas\//, "", $1); print $1 }' "$tmp/s$i" | sort -u >"$tmp/baselines$i"
    if [[ -s $tmp/cases$i ]] && cmp -s "$tmp/cases$i" "$tmp/baselines$i"; then
      echo "ok   [$sweep] shard $i/3: $(wc -l <"$tmp/cases$i") cases, each with its cuBLAS row"
    else
      echo "FAIL [$sweep] shard $i/3: cases without their cuBLAS row, or none:"; diff "$tmp/cases$i" "$tmp/baselines$i"; fail=1
    fi
  done
  if [[ $(wc -l <"$tmp/all") -ge 12 ]] && cmp -s "$tmp/all" <(sort "$tmp/union"); then
    echo "ok   [$sweep] shards 0/3, 1/3, 2/3: each of the $(wc -l <"$tmp/all") rows once"
  else
    echo "FAIL [$sweep] the shards' union is not the unsharded plan:"; diff "$tmp/all" <(sort "$tmp/union") | head; fail=1
  fi
  dups=$(cat "$tmp/cases0" "$tmp/cases1" "$tmp/cases2" | sort | uniq -d)
  [[ -z $dups ]] && echo "ok   [$sweep] no case in two shards" || { echo "FAIL [$sweep] cases in two shards: $dups"; fail=1; }
done

# A shard beyond the sweep's cases plans nothing and is not an error (one process per GPU may get
# none of a small sweep).
rc=0
"$bench" --mode=enumerate --kernels=add --dtypes=f32 --m=2048 --shard=3/4 >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 0 ]] || { echo "FAIL empty shard: exit $rc: $(cat "$tmp/err")"; fail=1; }
check "empty shard: nothing planned" "$tmp/out" '^enumerate: 0 benchmarks would run, 0 not_supported$'
# --repro lists the shard's benchmarks too.
"$bench" --repro --kernels=add --dtypes=f32,bf16 --m=2048,4096 --shard=1/2 >"$tmp/out" 2>&1
[[ $(wc -l <"$tmp/out") -eq 6 ]] && echo "ok   --repro: the shard's 6 benchmarks" || { echo "FAIL --repro --shard=1/2: $(cat "$tmp/out")"; fail=1; }

# With a GPU: a shard times its cases alone, its rows and context naming the GPU; a shard of no case
# still writes a JSON report (no rows) for the merge, and exits 0.
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  rc=0
  "$bench" --kernels=add --dtypes=f32 --m=256,512 --iterations=5 --warmup=1 --shard=1/2 --output="$tmp/s.json" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ $rc -eq 0 ]] || { echo "FAIL a shard's run: exit $rc: $(tail -3 "$tmp/err")"; fail=1; }
  python3 - "$tmp/s.json" >"$tmp/sum" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
print("names", sorted({b["name"].split("/")[3] for b in d["benchmarks"]}))
print("kinds", sorted({b["name"].split("/")[0] for b in d["benchmarks"]}))
print("devices", sorted({b["label"].split("; device=")[1] for b in d["benchmarks"]}))
print("shard", d["context"]["loom_shard"], d["context"]["loom_device_ordinal"], d["context"]["loom_pci_bus_id"] != "")
PY
  check "run: the shard's one case" "$tmp/sum" "^names \['512x512x0'\]$"
  check "run: its kernel and both baselines" "$tmp/sum" "^kinds \['add', 'cublas', 'memcpy_d2d'\]$"
  check "run: each row names the GPU" "$tmp/sum" "^devices \['0; device_name=[^;]+; pci_bus_id=[0-9A-Fa-f:.]+'\]$"
  check "run: the context names the shard and the GPU" "$tmp/sum" '^shard 1/2 0 True$'
  rc=0
  "$bench" --kernels=add --dtypes=f32 --m=256 --iterations=5 --shard=3/4 --output="$tmp/e.json" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ $rc -eq 0 ]] || { echo "FAIL an empty shard's run: exit $rc: $(tail -3 "$tmp/err")"; fail=1; }
  check "run: an empty shard says so" "$tmp/err" '^loom-bench: --shard=3/4 holds none of the sweep.s cases; nothing to time$'
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(d["benchmarks"] != [] or d["context"]["loom_shard"] != "3/4")' \
    "$tmp/e.json" && echo "ok   run: an empty shard's JSON has its context and no rows" || { echo "FAIL empty shard JSON: $(head -c 300 "$tmp/e.json")"; fail=1; }
fi
exit $fail
