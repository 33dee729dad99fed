#!/usr/bin/env bash
# Run loom-validate or loom-bench on every GPU of the host at once, a shard of the sweep on each,
# and merge their reports into one. Needs CUDA GPUs.
#
#   scripts/multi_gpu.sh validate|bench [--gpus=N] [OUT_DIR] [tool args...]
#
# Starts N processes of the tool, process I with --device=I --shard=I/N (the cases whose index in
# the sweep is I modulo N), each writing its JSON report to OUT_DIR/TOOL.shard-I-of-N.json and its
# console output to OUT_DIR/TOOL.shard-I-of-N.log; waits for all, then merges the reports
# (scripts/merge_reports.py) into OUT_DIR/validate.json and OUT_DIR/validate.csv, or
# OUT_DIR/bench.json, which scripts/plot.py, compare.sh and sweep_summary.py read as one run's. Each
# row names the GPU that ran it (validate: device, device_name, pci_bus_id; bench: the same in its
# label), the merged header every GPU (validate: "devices"; bench: context "loom_devices").
# N: --gpus=N, else the GPUs CUDA_VISIBLE_DEVICES names where it is set (the tools number those
# 0..N-1), else the GPUs `nvidia-smi -L` lists. OUT_DIR defaults to the repository's results/; a
# relative OUT_DIR is taken from the current directory. The other arguments go to every process,
# e.g.
#   scripts/multi_gpu.sh validate --sweep=llm --kernels=gemm
#   scripts/multi_gpu.sh bench results/h100x8 --sweep=llm --kernels=gemm
# The script sets --device, --shard, --output (and validate's --format) itself; --mode=enumerate
# and --repro run nothing to merge (give the tool --shard=I/N itself to list a shard).
# Builds first if needed (skip with LOOM_SKIP_BUILD=1), as scripts/sweep.sh does.
# Exit status: 0 when every process exited 0; 1 when one exited 1 (a failed case or benchmark:
# its report is complete, and merged); otherwise a process's other status (bad input 2, a hang 3),
# with no merge; 2 for a bad command line of this script.
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }
die() {  # die STATUS MESSAGE: one line on stderr
  echo "multi_gpu.sh: $2" >&2
  exit "$1"
}

[[ ${1:-} == -h || ${1:-} == --help ]] && { usage; exit 0; }
tool=${1:-}
case $tool in
  validate | bench) shift ;;
  "") die 2 "name the tool: scripts/multi_gpu.sh validate|bench [--gpus=N] [OUT_DIR] [tool args...]" ;;
  *) die 2 "the tool is validate or bench, found \"$tool\"" ;;
esac

gpus=
args=()
for a in "$@"; do
  case $a in
    --gpus=*)
      gpus=${a#--gpus=}
      [[ $gpus =~ ^[1-9][0-9]{0,3}$ ]] || die 2 "--gpus: expected a whole number of GPUs in [1, 9999], found \"$gpus\""
      ;;
    --gpus) die 2 "--gpus: expected --gpus=N" ;;
    # What each process must get from this script alone: one value per process, or its own file.
    --device | --device=* | --shard | --shard=* | --output | --output=* | --format | --format=* | --append | \
      --junit-output | --junit-output=* | --benchmark_out=* | --benchmark_out_format=*)
      die 2 "${a%%=*} is set per process by this script; leave it out" ;;
    --mode | --mode=* | --repro)
      die 2 "${a%%=*} lists without running, and leaves nothing to merge; give the tool itself --shard=I/N for that" ;;
    *) args+=("$a") ;;
  esac
done
set -- ${args[@]+"${args[@]}"}

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"  # cd to the repository root
loom_out_dir "$@"
shift "$out_shift"
py=${PYTHON:-python3}
command -v "$py" >/dev/null || die 2 "python3 not found (set PYTHON): scripts/merge_reports.py merges the reports"

if [[ -z $gpus ]]; then
  if [[ -n ${CUDA_VISIBLE_DEVICES+set} ]]; then
    # The CUDA runtime shows these alone, as devices 0..N-1 (nvidia-smi ignores the variable).
    IFS=, read -ra visible <<<"$CUDA_VISIBLE_DEVICES"
    gpus=${#visible[@]}
    [[ $gpus -gt 0 ]] || die 1 "CUDA_VISIBLE_DEVICES is empty: no GPU is visible"
  else
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
    [[ ${gpus:-0} -gt 0 ]] || die 1 "no CUDA GPU found (nvidia-smi -L lists none); --gpus=N sets the count"
  fi
fi

if [[ ${LOOM_SKIP_BUILD:-0} != 1 ]]; then
  loom_build >&2
fi
exe=$BUILD_DIR/loom-$tool
[[ -x $exe ]] || die 1 "$exe not found; build it with: cmake --build $BUILD_DIR --target loom-$tool"

# loom-validate writes the format it is told; loom-bench's --output is always JSON.
format=()
[[ $tool == validate ]] && format=(--format=json)

pids=()
# Ctrl-C or a kill stops the processes started here, not only this script.
trap '[[ ${#pids[@]} -gt 0 ]] && kill "${pids[@]}" 2>/dev/null; exit 130' INT TERM
reports=()
start=$SECONDS
for ((i = 0; i < gpus; i++)); do
  base=$out_dir/$tool.shard-$i-of-$gpus
  rm -f "$base.json"
  "$exe" ${@+"$@"} --device="$i" --shard="$i/$gpus" ${format[@]+"${format[@]}"} --output="$base.json" >"$base.log" 2>&1 &
  pids+=($!)
  reports+=("$base.json")
done
echo "multi_gpu.sh: $gpus process(es) of loom-$tool, one per GPU; output in $out_dir/$tool.shard-*-of-$gpus.log" >&2

worst=0  # 1 where a process exited 1; else the first other non-zero status
for ((i = 0; i < gpus; i++)); do
  rc=0
  wait "${pids[$i]}" || rc=$?
  log=$out_dir/$tool.shard-$i-of-$gpus.log
  echo "multi_gpu.sh: shard $i/$gpus (GPU $i): exit $rc after $((SECONDS - start)) s; $(tail -n 1 "$log" 2>/dev/null)" >&2
  if [[ $rc -ne 0 ]]; then
    [[ $rc -ne 1 ]] && tail -n 5 "$log" | sed 's/^/  /' >&2
    if [[ $rc -ne 1 && ($worst -eq 0 || $worst -eq 1) ]]; then worst=$rc; elif [[ $worst -eq 0 ]]; then worst=1; fi
  fi
done
trap - INT TERM

if [[ $worst -gt 1 ]]; then
  echo "multi_gpu.sh: not merging: a process exited with status $worst (its log above)" >&2
  exit "$worst"
fi
merged=$out_dir/$tool.json
csv=()
[[ $tool == validate ]] && csv=(--csv "$out_dir/validate.csv")
rm -f "$merged"
"$py" scripts/merge_reports.py --output "$merged" ${csv[@]+"${csv[@]}"} "${reports[@]}"
loom_stamp "$merged"
[[ $tool == validate ]] && loom_stamp "$out_dir/validate.csv"
[[ $worst -eq 0 ]] || echo "multi_gpu.sh: a process exited with status 1 (failed cases or benchmarks; they are in $merged)" >&2
exit "$worst"
