#!/usr/bin/env bash
# Profile one kernel launch with Nsight Compute (ncu). Needs a CUDA GPU and ncu.
#
#   scripts/profile.sh KERNEL [SHAPE] [--baseline] [loom-bench args...]
#
# --baseline profiles cuBLAS's call for the same case instead (the row "cublas/..." that loom-bench
# times beside KERNEL: GemmEx for gemm, geam for add), every kernel it launches (a split-K call
# launches two), into files named after that row (profile_cublas_...), so that the two reports can
# be opened side by side in ncu-ui or diffed with `ncu --import A --page details`.
#
# SHAPE is MxN (add; default 16384x16384) or MxNxK (gemm; default 4096x4096x4096). loom-bench args
# may pick one dtype and one layout (--dtypes=f16 --layouts=rrr; default f32, ccc), one output
# dtype (--out-dtypes=f32) or set --alpha/--beta. loom-bench runs that case alone (no baselines, no warm-up, no verification launch:
# --verification=off, one timed launch) and ncu profiles the launch inside its NVTX range, selected
# with --nvtx-include in the loom domain.
# --clock-control=base|none (default base, ncu's own default): base locks the GPU's clocks to their
# base values while profiling, so that profiles compare across runs, and durations come out longer
# than loom-bench's; none leaves the clocks as loom-bench runs them, so that ncu's duration matches
# loom-bench's median_us.
# Writes, in results/, named after the case (CASE = KERNEL_DTYPE_LAYOUT_SHAPE, e.g.
# sm90_bf16_rcr_4096x4096x4096, then _out-O for an --out-dtypes other than the input's default;
# cublas_... with --baseline), so that profiles of other cases do not overwrite it:
#   profile_CASE.ncu-rep   the report (open with ncu-ui, or ncu --import)
#   profile_CASE.txt       short summary: duration, DRAM bandwidth (FLOP/s for gemm), occupancy,
#                          top warp stalls, shared-memory bank conflicts (printed too)
#   profile_CASE.details.txt   ncu --page details; profile_CASE.raw.csv   ncu --page raw --csv
#   profile_CASE.log       ncu's and loom-bench's output
# Env: NCU (ncu binary), NCU_SET (section set, default full), LOOM_SKIP_BUILD=1 (no build step).
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}" >&2; exit 2; }
[[ $# -ge 1 && $1 != -* ]] || usage
kernel=$1
shift
shape=
if [[ $# -gt 0 && $1 =~ ^[0-9]+x[0-9]+(x[0-9]+)?$ ]]; then
  shape=$1
  shift
fi

# Pick one dtype and one layout out of the extra arguments; the rest go to loom-bench as given.
dtype=f32
layout=ccc
clock=base
baseline=0
extra=()
for a in "$@"; do
  case $a in
    --baseline) baseline=1 ;;
    --providers=*)
      echo "profile.sh: $a is set by profile.sh (--baseline profiles cuBLAS instead of KERNEL)" >&2
      exit 2 ;;
    --dtypes=*) dtype=${a#--dtypes=} ;;
    --layouts=*) layout=${a#--layouts=} ;;
    --clock-control=*)
      clock=${a#--clock-control=}
      [[ $clock == base || $clock == none ]] || { echo "profile.sh: --clock-control is base or none, got \"$clock\"" >&2; exit 2; } ;;
    --kernels=* | --m=* | --n=* | --k=* | --warmup=* | --iterations=* | --benchmark_filter=*)
      echo "profile.sh: $a is set by profile.sh (give KERNEL and SHAPE instead)" >&2
      exit 2 ;;
    --timeout=*) timeout_set=1; extra+=("$a") ;;
    --out-dtypes=*,*)
      echo "profile.sh: profile one output dtype at a time (got $a)" >&2
      exit 2 ;;
    *) extra+=("$a") ;;
  esac
done
# Under ncu a launch is replayed once per metric pass: a case gets 10 minutes, not loom-bench's 60 s,
# before its watchdog calls it hung (unless --timeout is given).
[[ -n ${timeout_set:-} ]] || extra+=(--timeout=600)
if [[ $dtype == *,* || $layout == *,* ]]; then
  echo "profile.sh: profile one dtype and one layout at a time (got --dtypes=$dtype --layouts=$layout)" >&2
  exit 2
fi

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"  # cd to the repository root
if [[ ${LOOM_SKIP_BUILD:-0} != 1 ]]; then
  loom_build >&2
fi
bench=$BUILD_DIR/loom-bench
[[ -x $bench ]] || { echo "profile.sh: $bench not found" >&2; exit 1; }

ncu=${NCU:-}
if [[ -z $ncu ]]; then
  ncu=$(command -v ncu || true)
  [[ -n $ncu || ! -x /usr/local/cuda/bin/ncu ]] || ncu=/usr/local/cuda/bin/ncu
fi
[[ -n $ncu ]] || { echo "profile.sh: ncu (Nsight Compute) not found; set NCU=/path/to/ncu" >&2; exit 1; }
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "profile.sh: no CUDA GPU found" >&2
  exit 1
fi

op=$("$bench" --list-kernels | awk -F'\t' -v k="$kernel" '$1 == k { print $2 }')
if [[ -z $op ]]; then
  echo "profile.sh: unknown kernel \"$kernel\"; kernels: $("$bench" --list-kernels | cut -f1 | paste -sd' ')" >&2
  exit 2
fi
if [[ -z $shape ]]; then
  shape=$([[ $op == add ]] && echo 16384x16384 || echo 4096x4096x4096)
fi
IFS=x read -r m n k <<<"$shape"
k=${k:-$m}
sweep=(--kernels="$kernel" --dtypes="$dtype" --layouts="$layout" --m="$m" --n="$n")
[[ $op == add ]] || sweep+=(--k="$k")
# The row to profile: KERNEL's, or with --baseline the cuBLAS row loom-bench times beside it.
row=$kernel
# Every kernel of the one call (ncu stops at the NVTX range's end): cuBLAS's split-K launches two,
# and so does an 8-bit sm90 call with an mn-major operand (its k-major copy, then the GEMM). The
# process's first sm90 call also measures the GPCs with up to nine launches of placement_probe
# before its own (kernels/sm90/sm90.cu); with 8 here they took every slot and the GEMM went
# unprofiled. ncu_summary.py leaves the probes out of the summary.
launches=16
if [[ $baseline == 1 ]]; then
  row=cublas
  sweep+=(--providers=cublas)
else
  sweep+=(--providers=loom)
fi

# The exact case name (and so the NVTX range) as loom-bench spells it, e.g. add/f32/ccc/16384x16384x0,
# or sm90/bf16/rcr/4096x4096x4096/out=f32 for an output other than the inputs' default.
case_name=$("$bench" "${sweep[@]}" "${extra[@]}" --benchmark_list_tests=true 2>/dev/null |
  grep "^$row/" | head -n1 | sed -E 's#^(([^/]+/){3}[^/]+(/out=[^/]+)?).*#\1#') || true
if [[ -z $case_name ]]; then
  echo "profile.sh: loom-bench has no case $row/$dtype/$layout/$shape; its output:" >&2
  "$bench" "${sweep[@]}" "${extra[@]}" --benchmark_list_tests=true >&2 || true
  exit 1
fi

out=results
mkdir -p "$out"
base=$out/profile_${row}_${dtype}_${layout}_$shape
[[ $case_name != */out=* ]] || base+=_out-${case_name##*/out=}
rep=$base.ncu-rep
log=$base.log
: >"$log"

# NVTX filter: <domain>@<range>, and a trailing '/' for a push/pop range. '/' inside a range name
# is ncu's nesting delimiter, so it is escaped with a backslash. Should this ncu not take the
# escape, the second try matches the name as a regular expression with '.' for '/'.
filters=("loom@${case_name//\//\\/}/" "regex:loom@${case_name//\//.}/")
used=
for filter in "${filters[@]}"; do
  rm -f "$rep" "$base.ncu-repz"
  echo "profile.sh: ncu --nvtx --nvtx-include '$filter'" | tee -a "$log" >&2
  set +e
  "$ncu" --nvtx --nvtx-include "$filter" --launch-count "$launches" --set "${NCU_SET:-full}" --clock-control "$clock" -f -o "$rep" \
    "$bench" "${sweep[@]}" --warmup=0 --iterations=1 --verification=off --benchmark_filter="^${case_name}(/|\$)" "${extra[@]}" \
    >>"$log" 2>&1
  rc=$?
  set -e
  [[ -s $rep || ! -s $base.ncu-repz ]] || rep=$base.ncu-repz
  if [[ -s $rep ]]; then
    used=$filter
    break
  fi
  if grep -q "ERR_NVGPUCTRPERM" "$log"; then
    echo "profile.sh: ncu may not read the GPU's performance counters here (ERR_NVGPUCTRPERM): run as root," >&2
    echo "  or load the driver with NVreg_RestrictProfilingToAdminUsers=0" >&2
    exit 1
  fi
  echo "profile.sh: no kernel profiled with that filter (ncu exit status $rc)" | tee -a "$log" >&2
done
if [[ -z $used ]]; then
  echo "profile.sh: ncu profiled nothing; the end of $log:" >&2
  tail -n 30 "$log" >&2
  exit 1
fi

"$ncu" --import "$rep" --page details >"$base.details.txt"
"$ncu" --import "$rep" --page raw --csv --print-units base >"$base.raw.csv"
{
  python3 scripts/ncu_summary.py "$base.raw.csv" --case "$case_name" --op "$op" --m "$m" --n "$n" --k "$k" \
    --dtype "$dtype"
  echo "report: $rep (NVTX filter '$used', section set ${NCU_SET:-full}, clock control $clock)"
} | tee "$base.txt"
loom_stamp "$base.txt"
echo "profile.sh: summary in $base.txt, details in $base.details.txt" >&2
