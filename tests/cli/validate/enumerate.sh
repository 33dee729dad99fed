#!/usr/bin/env bash
# --mode=enumerate lists the cases a command would run, with or without a GPU, and runs nothing:
# every case as would_run or not_supported (with the reason) for --compute-capability.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" "$@"

check() {  # name, command output file, regex
  if grep -Eq "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1: no /$3/ in:"; head -20 "$2"; FAILS=$((FAILS + 1)); fi
}
one=(--kernels=sm90,sm80 --dtypes=bf16 --layouts=rcr --m=128 --n=256 --k=64 --ld-pad=0 --misalign=0 --alpha=1 --beta=0)

rc=0
"$VALIDATE" --mode=enumerate "${one[@]}" --compute-capability=8.0 >"$TMP/out" 2>"$TMP/err" || rc=$?
[[ $rc -eq 0 ]] || { echo "FAIL enumerate at 8.0: exit $rc: $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); }
check "sm90 not_supported at 8.0" "$TMP/out" '^sm90/bf16/rcr/128x256x64/.* not_supported +sm90 needs compute capability 9\.0'
check "sm80 would_run at 8.0" "$TMP/out" '^sm80/bf16/rcr/128x256x64/.* would_run'
check "summary" "$TMP/out" '^enumerate: 2 cases, 1 would run, 1 not_supported$'

# sm_90a code runs on 9.0 alone: a newer GPU gets sm80 (and gemm), not sm90.
"$VALIDATE" --mode=enumerate "${one[@]}" --compute-capability=10.0 >"$TMP/out" 2>"$TMP/err"
check "sm90 not_supported at 10.0" "$TMP/out" '^sm90/bf16/rcr/128x256x64/.* not_supported +sm90 needs compute capability 9\.0 exactly, this GPU has 10\.0'
check "sm80 would_run at 10.0" "$TMP/out" '^sm80/bf16/rcr/128x256x64/.* would_run'

"$VALIDATE" --mode=enumerate "${one[@]}" --compute-capability=90 --format=csv >"$TMP/out" 2>"$TMP/err"
check "csv header" "$TMP/out" '^name,kernel,op,dtype,out_dtype,layout,m,n,k,lda,ldb,ldc,misalign,alpha,beta,disposition,reason$'
check "csv row" "$TMP/out" '^sm90/bf16/rcr/128x256x64,sm90,gemm,bf16,bf16,rcr,128,256,64,64,64,256,0,1,0,would_run,$'
check "csv summary on stderr" "$TMP/err" '^enumerate: 2 cases, 2 would run, 0 not_supported$'

# The default sweep counts as many cases as a run would validate.
"$VALIDATE" --mode=enumerate --compute-capability=9.0 >"$TMP/out" 2>"$TMP/err"
check "default sweep" "$TMP/out" '^enumerate: [0-9]+ cases, [0-9]+ would run, 0 not_supported$'

# --kernels globs and --ignore-kernels.
"$VALIDATE" --mode=enumerate --compute-capability=90 --kernels='sm*' --ignore-kernels=sm90 --dtypes=bf16 --layouts=rcr \
  --m=64 --n=64 --k=64 --ld-pad=0 --misalign=0 --alpha=1 --beta=0 >"$TMP/out" 2>"$TMP/err"
check "glob and ignore" "$TMP/out" '^enumerate: 1 cases, 1 would run, 0 not_supported$'
check "glob: sm80" "$TMP/out" '^sm80/bf16/rcr/64x64x64/'
expect_bad_input 'matches no kernel' --mode=enumerate --kernels='zz*'
expect_bad_input '--ignore-kernels leaves no kernel' --mode=enumerate --kernels=add --ignore-kernels='a*'

# A repro line (harness::repro_command, printed under a failing row) selects exactly its case.
"$VALIDATE" --mode=enumerate --compute-capability=90 --kernels=sm90 --op=gemm --dtypes=bf16 --out-dtypes=f32 \
  --layouts=rcr --m=1000 --n=129 --k=255 --ld-pad=3 --misalign=1 --alpha=0.5 --beta=-2 --seed=20240601 >"$TMP/out" 2>"$TMP/err"
check "repro: the case" "$TMP/out" '^sm90/bf16/rcr/1000x129x255/out=f32/alpha=0\.5/beta=-2/ld=258,258,132 +1 +would_run'
check "repro: only it" "$TMP/out" '^enumerate: 1 cases, 1 would run, 0 not_supported$'

# --tags: constant columns after the others, in csv, json and the table; --output takes the listing.
"$VALIDATE" --mode=enumerate "${one[@]}" --compute-capability=90 --format=csv --tags='gpu:h100 sxm,commit:abc:1' \
  --output="$TMP/t.csv" >"$TMP/out" 2>"$TMP/err"
check "tags: csv header" "$TMP/t.csv" '^name,kernel,.*,disposition,reason,gpu,commit$'
check "tags: csv row" "$TMP/t.csv" '^sm90/bf16/rcr/128x256x64,sm90,.*,would_run,,h100 sxm,abc:1$'
check "--output: summary on stdout" "$TMP/out" '^enumerate: 2 cases, 2 would run, 0 not_supported$'
"$VALIDATE" --mode=enumerate "${one[@]}" --compute-capability=90 --format=json --tags=gpu:h100 >"$TMP/out" 2>"$TMP/err"
check "tags: json" "$TMP/out" '"disposition": "would_run", "reason": "", "gpu": "h100"\}'
"$VALIDATE" --mode=enumerate "${one[@]}" --compute-capability=90 --tags=gpu:h100,run:7 >"$TMP/out" 2>"$TMP/err"
check "tags: table" "$TMP/out" '^tags: gpu=h100, run=7$'

# --append: a csv file grows by its rows, the header once; another header is refused; without
# --append the file is overwritten.
"$VALIDATE" --mode=enumerate "${one[@]}" --compute-capability=90 --format=csv --tags=gpu:h100 --output="$TMP/a.csv" --append >/dev/null 2>&1
"$VALIDATE" --mode=enumerate "${one[@]}" --compute-capability=80 --format=csv --tags=gpu:h100 --output="$TMP/a.csv" --append >/dev/null 2>&1
n_header=$(grep -c '^name,' "$TMP/a.csv")
n_rows=$(grep -c '^sm' "$TMP/a.csv")
if [[ $n_header -eq 1 && $n_rows -eq 4 ]] && grep -q 'not_supported,"sm90 needs compute capability 9.0, this GPU has 8.0",h100$' "$TMP/a.csv"; then
  echo "ok   append: one header, 4 rows"
else
  echo "FAIL append: $n_header headers, $n_rows rows:"; cat "$TMP/a.csv"; FAILS=$((FAILS + 1))
fi
expect_bad_input "--append: \"$TMP/a.csv\" does not start with this report's csv header" \
  --mode=enumerate "${one[@]}" --format=csv --tags=gpu:h200,run:1 --output="$TMP/a.csv" --append
"$VALIDATE" --mode=enumerate "${one[@]}" --compute-capability=90 --format=csv --tags=gpu:h100 --output="$TMP/a.csv" >/dev/null 2>&1
check "no --append: overwritten" "$TMP/a.csv" '^name,'
[[ $(wc -l <"$TMP/a.csv") -eq 3 ]] || { echo "FAIL no --append: $(wc -l <"$TMP/a.csv") lines"; FAILS=$((FAILS + 1)); }
# An empty file gets the header.
: >"$TMP/e.csv"
"$VALIDATE" --mode=enumerate "${one[@]}" --compute-capability=90 --format=csv --output="$TMP/e.csv" --append >/dev/null 2>&1
check "append to an empty file: header" "$TMP/e.csv" '^name,kernel,.*,disposition,reason$'

# 8-bit inputs, where sm90 takes them: --dtypes names them, and they take their own sweep (k-major
# layouts, K a multiple of 16, bf16 output), beside the default one's for the other dtypes named.
if "$VALIDATE" --list | grep -E '^sm90 ' | grep -q e4m3; then
  "$VALIDATE" --mode=enumerate --compute-capability=90 --kernels=sm90 --dtypes=e4m3,e4m3xe5m2,e5m2xe4m3 >"$TMP/out" 2>"$TMP/err"
  check "8-bit sweep: 432 cases" "$TMP/out" '^enumerate: 432 cases, '
  "$VALIDATE" --mode=enumerate --compute-capability=90 --kernels=sm90 --dtypes=e4m3,e4m3xe5m2,e5m2xe4m3,e4m3-fast >"$TMP/out" 2>"$TMP/err"
  check "8-bit sweep with the fast mode: 576 cases" "$TMP/out" '^enumerate: 576 cases, '
  check "8-bit sweep: fast mode" "$TMP/out" '^sm90/e4m3-fast/rc[cr]/'
  check "8-bit sweep: pair" "$TMP/out" '^sm90/e5m2xe4m3/rc[cr]/[0-9]+x[0-9]+x(16|272|1024)/out=bf16/'
  ! grep -E '^sm90/' "$TMP/out" | grep -Ev '^sm90/[^/]+/rc[rc]/' | grep -q . && echo "ok   8-bit sweep: k-major layouts only" ||
    { echo "FAIL 8-bit sweep: other layouts"; FAILS=$((FAILS + 1)); }
  "$VALIDATE" --mode=enumerate --compute-capability=90 --kernels=sm90 --dtypes=bf16,e4m3 --out-dtypes=f32 --m=256 \
    --ld-pad=0 --misalign=0 --alpha=1 --beta=0 --layouts=rcr >"$TMP/out" 2>"$TMP/err"
  check "8-bit and bf16, f32 output" "$TMP/out" '^enumerate: 2 cases, '
  check "8-bit, f32 output" "$TMP/out" '^sm90/e4m3/rcr/256x256x256/out=f32/'
  "$VALIDATE" --mode=enumerate --compute-capability=90 --kernels=sm90 --dtypes=e4m3 --out-dtypes=f16 --format=csv \
    --m=128 --n=256 --k=64 --ld-pad=0 --misalign=0 --alpha=1 --beta=0 --layouts=rcr >"$TMP/out" 2>"$TMP/err"
  check "8-bit csv row" "$TMP/out" '^sm90/e4m3/rcr/128x256x64/out=f16,sm90,gemm,e4m3,f16,rcr,128,256,64,64,64,256,0,1,0,'
  # The named sweeps take 8-bit inputs, in k-major layouts unless --layouts says otherwise.
  "$VALIDATE" --mode=enumerate --compute-capability=90 --sweep=llm --kernels=sm90 --dtypes=e4m3 --m=128 >"$TMP/out" 2>"$TMP/err"
  check "--sweep=llm 8-bit" "$TMP/out" '^sm90/e4m3/rc[rc]/128x[0-9]+x[0-9]+/out=bf16/'
  ! grep -E '^sm90/' "$TMP/out" | grep -Ev '^sm90/[^/]+/rc[rc]/' | grep -q . && echo "ok   --sweep=llm 8-bit: k-major layouts" ||
    { echo "FAIL --sweep=llm 8-bit: other layouts"; FAILS=$((FAILS + 1)); }
  # Block scales: --scale is an axis over the 8-bit inputs (a case per mode), "-block" names one;
  # both name the cases alike, and the 16-bit ones of the sweep keep theirs.
  "$VALIDATE" --mode=enumerate --compute-capability=90 --kernels=sm90 --dtypes=e4m3,e4m3xe5m2,e5m2xe4m3 --scale=tensor,block >"$TMP/out" 2>"$TMP/err"
  check "8-bit sweep, --scale=tensor,block: 864 cases" "$TMP/out" '^enumerate: 864 cases, '
  check "8-bit sweep: block case" "$TMP/out" '^sm90/e4m3xe5m2-block/rc[cr]/[0-9]+x[0-9]+x(16|272|1024)/out=bf16/'
  check "8-bit sweep: tensor case" "$TMP/out" '^sm90/e4m3xe5m2/rc[cr]/[0-9]+x[0-9]+x(16|272|1024)/out=bf16/'
  "$VALIDATE" --mode=enumerate --compute-capability=90 --kernels=sm90 --dtypes=bf16,e4m3 --scale=block --m=256 \
    --ld-pad=0 --misalign=0 --alpha=1 --beta=0 --layouts=rcr --format=csv >"$TMP/out" 2>"$TMP/err"
  check "--scale=block: the 8-bit case" "$TMP/out" '^sm90/e4m3-block/rcr/256x256x256/out=bf16,sm90,gemm,e4m3-block,bf16,rcr,256,256,256,'
  check "--scale=block: bf16 as it was" "$TMP/out" '^sm90/bf16/rcr/256x256x256,sm90,gemm,bf16,bf16,rcr,'
  check "--scale=block: 2 cases" "$TMP/err" '^enumerate: 2 cases, '
  "$VALIDATE" --mode=enumerate --compute-capability=90 --kernels=sm90 --dtypes=bf16,e4m3-block --m=256 \
    --ld-pad=0 --misalign=0 --alpha=1 --beta=0 --layouts=rcr --format=csv >"$TMP/out2" 2>"$TMP/err2"
  cmp -s "$TMP/out" "$TMP/out2" && echo "ok   --dtypes=e4m3-block is --dtypes=e4m3 --scale=block" ||
    { echo "FAIL --dtypes=e4m3-block lists other cases than --scale=block:"; diff "$TMP/out" "$TMP/out2" | head; FAILS=$((FAILS + 1)); }
else
  echo "skip 8-bit cases: sm90 takes no e4m3 yet"
fi

expect_bad_input '--compute-capability: expected e.g. 90 or 9.0' --mode=enumerate --compute-capability=nine
expect_bad_input '--mode is run or enumerate' --mode=list
expect_bad_input '--compute-capability is for --mode=enumerate' --compute-capability=90
finish
