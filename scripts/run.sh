#!/usr/bin/env bash
# Main job: build, validate every kernel against cuBLAS, run the benchmark sweep, plot it and
# regenerate RESULTS.md. Needs a GPU.
#
#   scripts/run.sh [loom-bench args...]
#
# Writes results/bench.json and results/bench.txt (raw, not committed), the plots in docs/plots/
# and RESULTS.md (committed), and prints the kernels' table last. Arguments go to loom-bench
# (default: its default sweep). With arguments (a partial sweep) the committed RESULTS.md and
# docs/plots/ are left alone: the markdown and plots go to results/RESULTS.md and results/plots/,
# unless LOOM_WRITE_RESULTS=1. Plots of an earlier run are removed before new ones are written.
# The full run also validates loom-validate --sweep=llm and --sweep=llm-ragged and times
# loom-bench --sweep=llm and --sweep=llm-layouts, all with the kernel gemm
# (results/validate_llm*.txt, results/llm*/bench.json; LOOM_LLM_SWEEP=0 skips them).
# Checks for a GPU before building anything.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "run.sh: no CUDA GPU found; the benchmark sweep needs one" >&2
  exit 1
fi

results_md=RESULTS.md
plots=docs/plots
if [[ $# -gt 0 && ${LOOM_WRITE_RESULTS:-0} != 1 ]]; then
  results_md=results/RESULTS.md
  plots=results/plots
  echo "run.sh: a partial sweep: writing $results_md and $plots/ (LOOM_WRITE_RESULTS=1 writes RESULTS.md)" >&2
fi

loom_build

# Numbers only count for kernels that are right: validate the registry first.
mkdir -p results
validate_rc=0
"$BUILD_DIR/loom-validate" --quiet --output=results/validate.txt || validate_rc=$?
if [[ $validate_rc -ne 0 ]]; then
  echo "run.sh: loom-validate failed (exit $validate_rc); failing cases (full report: results/validate.txt):" >&2
  grep -E ' fail(:|$| \[)' results/validate.txt | head -20 >&2 || true
  exit "$validate_rc"
fi

# The transformer-layer shapes at M <= 1024, as listed and ragged, through the entry point gemm
# (full run only; LOOM_LLM_SWEEP=0 leaves them out, with the llm timing sweeps below).
rm -f results/validate_llm.txt results/validate_llm_ragged.txt
if [[ $# -eq 0 && ${LOOM_LLM_SWEEP:-1} != 0 ]]; then
  for sweep in llm llm-ragged; do
    out=results/validate_${sweep//-/_}.txt
    "$BUILD_DIR/loom-validate" --sweep=$sweep --kernels=gemm --quiet --output="$out" || validate_rc=$?
    if [[ $validate_rc -ne 0 ]]; then
      echo "run.sh: loom-validate --sweep=$sweep failed (exit $validate_rc); failing cases (full report: $out):" >&2
      grep -E ' fail(:|$| \[)' "$out" | head -20 >&2 || true
      exit "$validate_rc"
    fi
  done
fi

sweep_rc=0
LOOM_SKIP_BUILD=1 bash scripts/sweep.sh results "$@" || sweep_rc=$?
if [[ ! -s results/bench.json ]]; then
  echo "run.sh: the sweep wrote no results/bench.json" >&2
  exit "$(( sweep_rc ? sweep_rc : 1 ))"
fi
# The transformer-layer sweeps (loom-bench --sweep=llm, llm-layouts) through the entry point gemm,
# for the full run only (LOOM_LLM_SWEEP=0 leaves them out).
llm_json=()
if [[ $# -eq 0 && ${LOOM_LLM_SWEEP:-1} != 0 ]]; then
  for sweep in llm llm-layouts; do
    rm -f "results/$sweep/bench.json"
    LOOM_SKIP_BUILD=1 bash scripts/sweep.sh "results/$sweep" --sweep=$sweep --kernels=gemm > /dev/null || sweep_rc=$?
    [[ -s results/$sweep/bench.json ]] && llm_json+=("results/$sweep/bench.json")
  done
fi

# compute-sanitizer over a small validate sweep, and one Nsight Compute profile per kernel; their
# summaries go into RESULTS.md with the numbers.
sanitize_rc=0
LOOM_SKIP_BUILD=1 bash scripts/sanitize.sh > results/sanitize.txt 2>&1 || sanitize_rc=$?
[[ $sanitize_rc -eq 0 ]] || echo "run.sh: scripts/sanitize.sh reported errors (results/sanitize.txt)" >&2
if command -v ncu >/dev/null; then
  # Each kernel in the dtype its performance bar names: bf16 where it has it, else its first.
  while IFS=$'\t' read -r k _ dtypes _; do
    dtype=${dtypes%%,*}
    [[ ,$dtypes, == *,bf16,* ]] && dtype=bf16
    LOOM_SKIP_BUILD=1 bash scripts/profile.sh "$k" --dtypes="$dtype" > /dev/null 2>&1 ||
      echo "run.sh: scripts/profile.sh $k failed (results/profile_$k.log)" >&2
  done < <("$BUILD_DIR/loom-bench" --list-kernels)
fi

command="scripts/run.sh"
for a in "$@"; do command+=" $(printf '%q' "$a")"; done
rm -f "$plots"/*.png
python3 scripts/plot.py results/bench.json "${llm_json[@]}" --out-dir "$plots" --results-md "$results_md" --command "$command" \
  --extra results
if [[ $sweep_rc -ne 0 ]]; then
  echo "run.sh: loom-bench exited with status $sweep_rc (some benchmarks failed; see above)" >&2
fi
[[ $sweep_rc -ne 0 ]] && exit "$sweep_rc"
exit "$sanitize_rc"
