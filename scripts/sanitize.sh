#!/usr/bin/env bash
# Run a small loom-validate sweep under compute-sanitizer: memcheck, racecheck, synccheck and initcheck.
# Needs a CUDA GPU and compute-sanitizer.
#
#   scripts/sanitize.sh [loom-validate args...]
#
# Default: two sweeps per tool. Every kernel over --m=1,130 --n=7,129 --k=5,200 --alpha=1.5
# --beta=0,0.5 (beta 0 takes sm90's TMA-store epilogue); and, on a compute capability 9.0 GPU,
# sm90 over 2100 x 2100 x 64 in rcr and ccc, more cluster tiles than the GPU holds clusters, so that
# its persistent loop, multicast and ring phases across tiles run; and sm90 over M = 16, 64, 256 by
# 2048 x 2048 in rcr and ccc, whose plans take split-K (128x128, 128x64) and swap-AB (128x16,
# 128x64), checked against the host reference (cuBLAS's own split-K kernels for these shapes draw
# racecheck reports inside cuBLAS). Arguments given replace the sweeps with one. Prints one line per tool and exits non-zero when any tool reports an error or
# loom-validate fails; full logs go to results/sanitize_TOOL.log.
# Env: TOOLS (default "memcheck racecheck synccheck initcheck"), COMPUTE_SANITIZER (the binary),
#      SANITIZER_ARGS (extra compute-sanitizer options, word-split), LOOM_SKIP_BUILD=1.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"  # cd to the repository root

sweeps=()
if [[ $# -gt 0 ]]; then
  sweeps+=("$*")
else
  sweeps+=("--m=1,130 --n=7,129 --k=5,200 --alpha=1.5 --beta=0,0.5 --quiet")
fi

if [[ ${LOOM_SKIP_BUILD:-0} != 1 ]]; then
  loom_build >&2
fi
validate=
for cand in "$BUILD_DIR/loom-validate"; do
  if [[ -x $cand ]]; then validate=$cand; break; fi
done
[[ -n $validate ]] || { echo "sanitize.sh: loom-validate not found under $BUILD_DIR" >&2; exit 1; }

cs=${COMPUTE_SANITIZER:-}
if [[ -z $cs ]]; then
  cs=$(command -v compute-sanitizer || true)
  [[ -n $cs || ! -x /usr/local/cuda/bin/compute-sanitizer ]] || cs=/usr/local/cuda/bin/compute-sanitizer
fi
[[ -n $cs ]] || { echo "sanitize.sh: compute-sanitizer not found; set COMPUTE_SANITIZER" >&2; exit 1; }
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "sanitize.sh: no CUDA GPU found" >&2
  exit 1
fi

if [[ $# -eq 0 ]] && [[ $(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 2>/dev/null) == 9.0 ]]; then
  sweeps+=("--kernels=sm90 --layouts=rcr,ccc --m=2100 --n=2100 --k=64 --beta=0,0.5 --quiet")
  sweeps+=("--kernels=sm90 --dtypes=bf16 --layouts=rcr,ccc --m=16,64,256 --n=2048 --k=2048 --beta=0,0.5 --reference=host --quiet")
fi

# compute-sanitizer slows kernels down 10 to 100 times: a case gets 30 minutes, not loom-validate's
# 60 s, before its watchdog calls it hung (unless the arguments give --timeout).
timeout_arg=(--timeout=1800)
[[ " $* " != *" --timeout="* ]] || timeout_arg=()
mkdir -p results
status=0
tools=(${TOOLS:-memcheck racecheck synccheck initcheck})
n_tool=0
for tool in "${tools[@]}"; do
  n_tool=$((n_tool + 1))
  # A line as each tool starts: racecheck alone runs for minutes over the default sweeps.
  echo "sanitize.sh: $tool ($n_tool/${#tools[@]}), ${#sweeps[@]} sweep(s) ..." >&2
  log=results/sanitize_$tool.log
  : >"$log"
  rc=0
  for sweep in "${sweeps[@]}"; do
    set +e
    # shellcheck disable=SC2086
    "$cs" --tool "$tool" --error-exitcode 1 ${SANITIZER_ARGS:-} "$validate" "${timeout_arg[@]}" $sweep >>"$log" 2>&1
    r=$?
    set -e
    [[ $r -eq 0 ]] || rc=$r
  done
  loom_stamp "$log"
  # racecheck ends with its own summary line (hazards, errors and warnings), the other tools with
  # an ERROR SUMMARY.
  summary=$(grep -Eo '(ERROR SUMMARY: [0-9]+ errors?|RACECHECK SUMMARY: [0-9]+ hazards? displayed \([0-9]+ errors?, [0-9]+ warnings?\))' "$log" | tail -n1 || true)
  if [[ $rc -eq 0 ]]; then
    echo "$tool: ok (${summary:-no error summary}) - $log"
  else
    echo "$tool: FAILED, exit status $rc (${summary:-no error summary}) - $log"
    grep -m 5 -E '^========= (Invalid|Race|Uninitialized|Error|Program hit|.*hazard)' "$log" | sed 's/^/  /' || true
    status=1
  fi
done
exit $status
