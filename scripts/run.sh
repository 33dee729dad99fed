#!/usr/bin/env bash
# Main job: build, validate every kernel against cuBLAS, run the benchmark sweep, plot it and
# regenerate RESULTS.md. Needs a GPU.
#
#   scripts/run.sh [--resume] [loom-bench args...]
#   scripts/run.sh --quick [--resume]
#
# Writes results/bench.json and results/bench.txt (raw, not committed), the plots in docs/plots/
# and RESULTS.md (committed), and prints the kernels' table last. Arguments go to loom-bench
# (default: its default sweep). With arguments (a partial sweep) the committed RESULTS.md and
# docs/plots/ are left alone: the markdown and plots go to results/RESULTS.md and results/plots/,
# unless LOOM_WRITE_RESULTS=1. Plots of an earlier run are removed before new ones are written.
# The full run also validates loom-validate --sweep=llm, llm-ragged, llm-wide and llm-wide-ragged
# and times loom-bench --sweep=llm, llm-layouts and llm-wide, all with the kernel gemm
# (results/validate_llm*.txt, results/llm*/bench.json; LOOM_LLM_SWEEP=0 skips them).
#
# --quick runs every step on a small sweep (a few cases per kernel and dtype; the llm sweeps at a
# few M; the sanitizers over a few cases; the Nsight Compute profiles at 1024-sized shapes) and
# writes results/ only (results/RESULTS.md, results/plots/), never the committed files.
#
# --resume goes on from an interrupted run of the same form, arguments and commit: the steps it
# finished (results/run_done_FORM.tsv) are skipped, each with one line, and the build is redone
# (quick where build/ is kept); the last line gives the job's total, earlier runs' steps included.
# Without it, every step runs. For machines whose time runs out before the full job's does.
#
# Progress: one line as each step starts, "[4/8] loom-bench default sweep ...", with the step's
# duration in the last run of the same form (results/run_times_{full,quick,partial}.tsv) as its
# estimate where there was one, and one line as it ends with its time and the job's; loom-bench
# prints one short line per benchmark (--progress) while its full console table goes to
# results/bench.txt and everything to the JSON.
# Checks for a GPU before building anything, then for what the build and the plots need
# (scripts/deps.sh: installs it where it can, else names it and stops).
set -euo pipefail

quick=0
resume=0
args=()
for a in "$@"; do
  case $a in
    --quick) quick=1 ;;
    --resume) resume=1 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) args+=("$a") ;;
  esac
done
if [[ $quick == 1 && ${#args[@]} -gt 0 ]]; then
  echo "run.sh: --quick runs its own small sweep; it takes no loom-bench arguments (found ${args[*]})" >&2
  exit 2
fi
set -- ${args[@]+"${args[@]}"}

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "run.sh: no CUDA GPU found; the benchmark sweep needs one" >&2
  exit 1
fi
loom_deps run || exit 1

results_md=RESULTS.md
plots=docs/plots
form=full
if [[ $quick == 1 ]]; then
  results_md=results/RESULTS.md
  plots=results/plots
  form=quick
elif [[ $# -gt 0 ]]; then
  form=partial
  if [[ ${LOOM_WRITE_RESULTS:-0} != 1 ]]; then
    results_md=results/RESULTS.md
    plots=results/plots
    echo "run.sh: a partial sweep: writing $results_md and $plots/ (LOOM_WRITE_RESULTS=1 writes RESULTS.md)" >&2
  fi
fi
llm=0
[[ $form == quick || ( $form == full && ${LOOM_LLM_SWEEP:-1} != 0 ) ]] && llm=1
have_ncu=0
if [[ -n ${NCU:-} ]] || command -v ncu >/dev/null || [[ -x /usr/local/cuda/bin/ncu ]]; then have_ncu=1; fi

# --- progress --------------------------------------------------------------------------------
mkdir -p results
steps=("build" "loom-validate default sweep")
((llm)) && steps+=("loom-validate llm sweeps")
steps+=("loom-bench default sweep")
((llm)) && steps+=("loom-bench llm sweeps")
steps+=("compute-sanitizer")
((have_ncu)) && steps+=("Nsight Compute profiles")
steps+=("plots and $results_md")
times_file=results/run_times_$form.tsv  # step name <TAB> seconds, from the last run of this form
# The steps this run (and, with --resume, earlier ones) finished: a first line naming the commit,
# form and arguments, then step name <TAB> seconds. Only a run of the same key resumes from it.
done_file=results/run_done_$form.tsv
run_key="$(loom_commit) $form ${args[*]:-}"
declare -A done_before=()
if ((resume)); then
  if [[ -f $done_file && $(head -n1 "$done_file") == "$run_key" ]]; then
    while IFS=$'\t' read -r name secs; do [[ -n $secs ]] && done_before[$name]=$secs; done < <(tail -n +2 "$done_file")
  else
    echo "run.sh: --resume: no interrupted run of this commit and sweep in $done_file; running every step" >&2
  fi
fi
declare -A finished=()
for k in "${!done_before[@]}"; do finished[$k]=${done_before[$k]}; done
declare -A last=()
if [[ -f $times_file ]]; then
  while IFS=$'\t' read -r name secs; do [[ -n $name ]] && last[$name]=$secs; done <"$times_file"
fi
job_start=$SECONDS
step_n=0
step_name=
step_start=0
hms() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
step() {  # step NAME: ends the step before it, starts NAME
  step_end
  step_name=$1
  step_n=$((step_n + 1))
  step_start=$SECONDS
  local est=""
  [[ -n ${last[$step_name]:-} ]] && est=" (last run: $(hms "${last[$step_name]}"))"
  echo "[$step_n/${#steps[@]}] $step_name ...$est" >&2
}
step_end() {
  [[ -n $step_name ]] || return 0
  local took=$((SECONDS - step_start)) name=$step_name
  last[$name]=$took  # each step runs once: its estimate is no longer needed
  finished[$name]=$took
  echo "[$step_n/${#steps[@]}] $name: $(hms $took) (job: $(hms $((SECONDS - job_start))))" >&2
  step_name=
  # Kept as the steps end, so that an interrupted run still leaves estimates of what it finished
  # (and a resumed one keeps those of the steps it skipped).
  local k
  for k in "${!last[@]}"; do printf '%s\t%s\n' "$k" "${last[$k]}"; done >"$times_file"
  { echo "$run_key"; for k in "${!finished[@]}"; do printf '%s\t%s\n' "$k" "${finished[$k]}"; done; } >"$done_file"
}
# skip_step NAME: with --resume, true (and one line) when an earlier run finished NAME.
skip_step() {
  [[ -n ${done_before[$1]:-} ]] || return 1
  step_end
  step_n=$((step_n + 1))
  echo "[$step_n/${#steps[@]}] $1: done in an earlier run ($(hms "${done_before[$1]}")), skipped" >&2
}

# --- the steps -------------------------------------------------------------------------------
step "build"
loom_build > results/build.log 2>&1 || {
  echo "run.sh: the build failed; the end of results/build.log:" >&2
  tail -n 30 results/build.log >&2
  exit 1
}

# fail_validate OUT RC: the failing cases and the report's path, then exit.
fail_validate() {
  echo "run.sh: loom-validate failed (exit $2); failing cases (full report: $1):" >&2
  grep -E ' fail(:|$| \[)' "$1" | head -20 >&2 || true
  exit "$2"
}

# Numbers only count for kernels that are right: validate the registry first.
validate_rc=0
if ! skip_step "loom-validate default sweep"; then
  step "loom-validate default sweep"
  validate_args=()
  # quick: a few sizes (N and K follow M), two layouts, padded and not; the default sweep's scalars.
  [[ $form == quick ]] && validate_args=(--m=1,127,1000 --layouts=ccc,rcr --ld-pad=0,3 --misalign=0)
  "$BUILD_DIR/loom-validate" --quiet --output=results/validate.txt ${validate_args[@]+"${validate_args[@]}"} || validate_rc=$?
  loom_stamp results/validate.txt
  [[ $validate_rc -eq 0 ]] || fail_validate results/validate.txt "$validate_rc"
fi

# The transformer-layer shapes at M <= 1024, as listed and ragged, through the entry point gemm
# (full and quick runs; LOOM_LLM_SWEEP=0 leaves them out of a full run, with the llm timing sweeps).
if ((llm)) && ! skip_step "loom-validate llm sweeps"; then
  step "loom-validate llm sweeps"
  rm -f results/validate_llm*.txt results/validate_llm*.txt.commit
  for sweep in llm llm-ragged llm-wide llm-wide-ragged; do
    llm_validate_args=()
    if [[ $form == quick ]]; then
      llm_validate_args=(--m=1,128 --layouts=rcr,ccc)
      [[ $sweep == llm-wide* ]] && llm_validate_args=(--m=4,160)
    fi
    out=results/validate_${sweep//-/_}.txt
    "$BUILD_DIR/loom-validate" --sweep=$sweep --kernels=gemm --quiet --output="$out" \
      ${llm_validate_args[@]+"${llm_validate_args[@]}"} || validate_rc=$?
    loom_stamp "$out"
    [[ $validate_rc -eq 0 ]] || fail_validate "$out" "$validate_rc"
  done
elif ((!llm)); then
  rm -f results/validate_llm*.txt results/validate_llm*.txt.commit
fi

export LOOM_COMPACT=1  # sweep.sh: loom-bench --progress on the terminal, the console table to bench.txt
sweep_rc=0
if ! { [[ -s results/bench.json ]] && skip_step "loom-bench default sweep"; }; then
  step "loom-bench default sweep"
  bench_args=("$@")
  # quick: two sizes (N and K follow M) in ccc and rcr, every kernel and dtype.
  [[ $form == quick ]] && bench_args=(--m=1024,4096 --layouts=ccc,rcr)
  LOOM_SKIP_BUILD=1 bash scripts/sweep.sh results ${bench_args[@]+"${bench_args[@]}"} || sweep_rc=$?
  if [[ ! -s results/bench.json ]]; then
    echo "run.sh: the sweep wrote no results/bench.json" >&2
    exit "$(( sweep_rc ? sweep_rc : 1 ))"
  fi
fi
# The transformer-layer sweeps (loom-bench --sweep=llm, llm-layouts, llm-wide) through the entry
# point gemm.
llm_json=()
if ((llm)) && ! skip_step "loom-bench llm sweeps"; then
  step "loom-bench llm sweeps"
  for sweep in llm llm-layouts llm-wide; do
    m_arg=()
    if [[ $form == quick ]]; then
      m_arg=(--m=1,128,4096)
      [[ $sweep == llm-layouts ]] && m_arg=(--m=128)
      [[ $sweep == llm-wide ]] && m_arg=(--m=4,160,1536)
    fi
    rm -f "results/$sweep/bench.json"
    LOOM_SKIP_BUILD=1 bash scripts/sweep.sh "results/$sweep" --sweep=$sweep --kernels=gemm ${m_arg[@]+"${m_arg[@]}"} ||
      sweep_rc=$?
  done
fi
if ((llm)); then
  for sweep in llm llm-layouts llm-wide; do [[ -s results/$sweep/bench.json ]] && llm_json+=("results/$sweep/bench.json"); done
fi

# compute-sanitizer over a small validate sweep, and one Nsight Compute profile per kernel; their
# summaries go into RESULTS.md with the numbers.
sanitize_rc=0
if skip_step "compute-sanitizer"; then
  ! grep -q FAILED results/sanitize.txt 2>/dev/null || sanitize_rc=1
else
  step "compute-sanitizer"
  sanitize_args=()
  [[ $form == quick ]] && sanitize_args=(--m=1,130 --n=129 --k=200 --layouts=rcr --beta=0,0.5 --ld-pad=0 --misalign=0 --quiet)
  # Its lines (one as each tool starts, one as it ends) on the terminal too, indented.
  LOOM_SKIP_BUILD=1 bash scripts/sanitize.sh ${sanitize_args[@]+"${sanitize_args[@]}"} 2>&1 |
    tee results/sanitize.txt | sed 's/^/  /' >&2 || sanitize_rc=$?
fi
[[ $sanitize_rc -eq 0 ]] || echo "run.sh: scripts/sanitize.sh reported errors (results/sanitize.txt)" >&2
if ((have_ncu)) && ! skip_step "Nsight Compute profiles"; then
  step "Nsight Compute profiles"
  # Each kernel in the dtype its performance bar names: bf16 where it has it, else its first.
  while IFS=$'\t' read -r k op dtypes _; do
    dtype=${dtypes%%,*}
    [[ ,$dtypes, == *,bf16,* ]] && dtype=bf16
    shape=()
    [[ $form == quick ]] && shape=("$([[ $op == add ]] && echo 1024x1024 || echo 1024x1024x1024)")
    echo "  ncu $k ${shape[*]:-} --dtypes=$dtype" >&2
    LOOM_SKIP_BUILD=1 bash scripts/profile.sh "$k" ${shape[@]+"${shape[@]}"} --dtypes="$dtype" > /dev/null 2>&1 ||
      echo "run.sh: scripts/profile.sh $k failed (results/profile_$k*.log)" >&2
  done < <("$BUILD_DIR/loom-bench" --list-kernels)
fi

step "plots and $results_md"
command="scripts/run.sh"
[[ $form == quick ]] && command+=" --quick"
for a in "$@"; do command+=" $(printf '%q' "$a")"; done
mkdir -p "$plots"
rm -f "$plots"/*.png
python3 scripts/plot.py results/bench.json ${llm_json[@]+"${llm_json[@]}"} --out-dir "$plots" --results-md "$results_md" \
  --command "$command" --extra results
step_end
total=0
for k in "${!finished[@]}"; do total=$((total + finished[$k])); done
earlier=""
((${#done_before[@]})) && earlier=" (the steps in all, earlier runs' included: $(hms $total))"
echo "run.sh: done in $(hms $((SECONDS - job_start)))$earlier; $results_md, $plots/, raw results in results/" >&2
if [[ $sweep_rc -ne 0 ]]; then
  echo "run.sh: loom-bench exited with status $sweep_rc (some benchmarks failed; see above)" >&2
fi
[[ $sweep_rc -ne 0 ]] && exit "$sweep_rc"
exit "$sanitize_rc"
