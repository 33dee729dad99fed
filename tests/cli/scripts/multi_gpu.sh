#!/usr/bin/env bash
# scripts/multi_gpu.sh on a stand-in machine: a copy of scripts/ in a scratch tree, with stubs for
# nvidia-smi (STUB_GPUS GPUs), loom-validate and loom-bench (each writes the report of its --shard
# of a five-case sweep, with its --device's fields, and exits STUB_RC_<shard index>, default 0).
# Checks that one process runs per GPU with --device=I --shard=I/N and its own --output, that
# --gpus=N and CUDA_VISIBLE_DEVICES set N, that the merged report holds every case once, and the
# exit statuses: a failed process (1) still merges, any other status does not; bad arguments and
# no GPU are one line. No GPU needed; the tools' own --shard tests are elsewhere.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/cli/scripts/lib.sh
source "$root/tests/cli/scripts/lib.sh"
repo=$tmp/repo
mkdir -p "$repo/build" "$tmp/bin" "$tmp/cwd"
cp -r "$root/scripts" "$repo/"
log=$tmp/calls.log
stub() {  # stub PATH BODY: a script that logs its name and arguments, then runs BODY
  printf '#!/usr/bin/env bash\necho "$(basename "$0") $*" >>"%s"\n%s\n' "$log" "$2" >"$1"
  chmod +x "$1"
}
stub "$tmp/bin/nvidia-smi" 'for ((g = 0; g < ${STUB_GPUS:-3}; g++)); do echo "GPU $g: Stand-in (UUID: GPU-$g)"; done'
# The shard's cases of five: index j with j % N == I.
common='
for a; do case $a in --device=*) d=${a#*=} ;; --shard=*) s=${a#*=} ;; --output=*) out=${a#*=} ;; esac; done
i=${s%/*} n=${s#*/} rows=
for ((j = 0; j < 5; j++)); do ((j % n == i)) || continue; rows+="${rows:+,}$(row $j)"; done
rc_var=STUB_RC_$i'
stub "$repo/build/loom-validate" "row() { printf '{\"name\": \"case/%s\", \"status\": \"pass\", \"device\": %s, \"device_name\": \"Stand-in\", \"pci_bus_id\": \"0000:0%s:00.0\"}' \$1 \$d \$d; }
$common
printf '{\"device\": {\"name\": \"Stand-in\", \"ordinal\": %s, \"pci_bus_id\": \"0000:0%s:00.0\"}, \"shard\": \"%s\", \"cases\": [%s], \"passed\": 1, \"failed\": 0, \"skipped\": 0}\n' \$d \$d \$s \"\$rows\" >\"\$out\"
echo \"validate: 1 passed, 0 failed, 0 skipped\"
exit \${!rc_var:-0}"
stub "$repo/build/loom-bench" "row() { printf '{\"name\": \"gemm/bf16/rcr/%sx64x64/manual_time\", \"run_type\": \"iteration\", \"median_us\": 1.0, \"label\": \"dtype=bf16; device=%s\"}' \$((\$1 + 1)) \$d; }
$common
printf '{\"context\": {\"loom_device\": \"Stand-in\", \"loom_device_ordinal\": \"%s\", \"loom_pci_bus_id\": \"0000:0%s:00.0\", \"loom_shard\": \"%s\"}, \"benchmarks\": [%s]}\n' \$d \$d \$s \"\$rows\" >\"\$out\"
exit \${!rc_var:-0}"

run() {  # run ARGS...: scripts/multi_gpu.sh from $tmp/cwd; exit status in rc, stderr in $tmp/err
  : >"$log"
  rc=0
  (cd "$tmp/cwd" && PATH="$tmp/bin:$PATH" LOOM_SKIP_BUILD=1 bash "$repo/scripts/multi_gpu.sh" "$@") >"$tmp/out" 2>"$tmp/err" || rc=$?
}
expect_rc() {  # NAME STATUS
  if [[ $rc -eq $2 ]]; then echo "ok   $1: exit $rc"; else echo "FAIL $1: exit $rc, expected $2:"; cat "$tmp/err"; fail=1; fi
}
cases_of() {  # the sorted names of a merged report's rows, one line
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(" ".join(sorted(r["name"] for r in d.get("cases", d.get("benchmarks", [])))))' "$1"
}

run validate out --m=1
expect_rc "validate on 3 GPUs" 0
for i in 0 1 2; do
  check "validate: process $i" "^loom-validate --m=1 --device=$i --shard=$i/3 --format=json --output=$tmp/cwd/out/validate.shard-$i-of-3.json$" "$log"
done
[[ $(grep -c '^loom-validate ' "$log") -eq 3 ]] && echo "ok   validate: 3 processes" || { echo "FAIL validate processes:"; cat "$log"; fail=1; }
[[ $(cases_of "$tmp/cwd/out/validate.json") == "case/0 case/1 case/2 case/3 case/4" ]] && echo "ok   validate: every case once" ||
  { echo "FAIL validate merged: $(cases_of "$tmp/cwd/out/validate.json")"; fail=1; }
check "validate: csv with the device columns" '^status,device,device_name,pci_bus_id$' "$tmp/cwd/out/validate.csv"
check "validate: a row's GPU in the csv" '^pass,2,Stand-in,0000:02:00.0$' "$tmp/cwd/out/validate.csv"
[[ -s $tmp/cwd/out/validate.json.commit ]] && echo "ok   validate: the commit stamp" || { echo "FAIL no validate.json.commit"; fail=1; }
check "validate: a line per shard" '^multi_gpu.sh: shard 2/3 \(GPU 2\): exit 0 after [0-9]+ s; validate: 1 passed' "$tmp/err"

run bench --gpus=2 "$tmp/b" --kernels=gemm
expect_rc "bench --gpus=2" 0
check "bench: process 1" "^loom-bench --kernels=gemm --device=1 --shard=1/2 --output=$tmp/b/bench.shard-1-of-2.json$" "$log"
[[ $(grep -c '^loom-bench ' "$log") -eq 2 ]] && echo "ok   bench: 2 processes" || { echo "FAIL bench processes:"; cat "$log"; fail=1; }
[[ $(cases_of "$tmp/b/bench.json") == "gemm/bf16/rcr/1x64x64/manual_time gemm/bf16/rcr/2x64x64/manual_time gemm/bf16/rcr/3x64x64/manual_time gemm/bf16/rcr/4x64x64/manual_time gemm/bf16/rcr/5x64x64/manual_time" ]] &&
  echo "ok   bench: every case once" || { echo "FAIL bench merged: $(cases_of "$tmp/b/bench.json")"; fail=1; }
[[ ! -e $tmp/b/validate.csv ]] && echo "ok   bench: no csv" || { echo "FAIL bench wrote a csv"; fail=1; }

CUDA_VISIBLE_DEVICES=4,6 run validate "$tmp/v"
expect_rc "CUDA_VISIBLE_DEVICES=4,6" 0
check "CUDA_VISIBLE_DEVICES: device 1 of 2" "^loom-validate --device=1 --shard=1/2 " "$log"

STUB_RC_1=1 run validate "$tmp/f"
expect_rc "a process with failed cases" 1
[[ $(cases_of "$tmp/f/validate.json") == "case/0 case/1 case/2 case/3 case/4" ]] && echo "ok   failed cases: merged all the same" ||
  { echo "FAIL failed cases not merged"; fail=1; }

STUB_RC_0=3 STUB_RC_2=2 run validate "$tmp/h"
expect_rc "a process that hung (3) and one with bad input (2)" 3
check "not merged" '^multi_gpu.sh: not merging: a process exited with status 3' "$tmp/err"
[[ ! -e $tmp/h/validate.json ]] && echo "ok   no merged report" || { echo "FAIL merged a report after a hang"; fail=1; }

# Bad arguments: one line, exit 2, nothing started.
for args in "validate --device=1" "bench --shard=0/2" "validate --output=x.json" "validate --format=csv" \
  "bench --mode=enumerate" "bench --repro" "validate --gpus=0" "validate --gpus=x" "sweep" ""; do
  # shellcheck disable=SC2086
  run $args
  if [[ $rc -eq 2 && $(wc -l <"$tmp/err") -eq 1 && ! -s $log ]] && grep -q '^multi_gpu.sh: ' "$tmp/err"; then
    echo "ok   [$args]: $(cat "$tmp/err")"
  else
    echo "FAIL [$args]: exit $rc, stderr: $(cat "$tmp/err"), calls: $(cat "$log")"; fail=1
  fi
done
STUB_GPUS=0 run validate "$tmp/n"
if [[ $rc -eq 1 && $(wc -l <"$tmp/err") -eq 1 ]] && grep -q 'no CUDA GPU found' "$tmp/err"; then echo "ok   no GPU: $(cat "$tmp/err")"
else echo "FAIL no GPU: exit $rc: $(cat "$tmp/err")"; fail=1; fi
exit $fail
