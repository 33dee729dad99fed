#!/usr/bin/env bash
# scripts/run.sh's steps on a stand-in machine: a copy of scripts/ in a scratch tree, with stubs
# for nvidia-smi (a GPU), cmake (the build), loom-validate, loom-bench, compute-sanitizer, ncu and
# python3 that record how they were called. Checks the progress lines ("[N/T] NAME ..." as a step
# starts and "[N/T] NAME: XmYYs (job: ...)" as it ends, with the last run's time as the estimate
# the second time), that --quick hands every tool its small sweep, and that --quick writes
# results/ only. No GPU needed; the real tools' own tests are elsewhere.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
repo=$tmp/repo
mkdir -p "$repo/build" "$tmp/bin"
cp -r "$root/scripts" "$repo/"
log=$tmp/calls.log
stub() {  # stub PATH BODY: a script that logs its name and arguments, then runs BODY
  printf '#!/usr/bin/env bash\necho "$(basename "$0") $*" >>"%s"\n%s\n' "$log" "$2" >"$1"
  chmod +x "$1"
}
stub "$tmp/bin/nvidia-smi" 'echo "GPU 0: Stand-in (UUID: GPU-0)"'
stub "$tmp/bin/cmake" 'exit 0'
stub "$tmp/bin/python3" 'exit 0'
stub "$tmp/bin/compute-sanitizer" 'exit 0'
stub "$tmp/bin/ncu" 'exit 0'
stub "$repo/build/loom-validate" 'for a; do [[ $a == --output=* ]] && echo "validate: 1 passed, 0 failed, 0 skipped" >"${a#--output=}"; done; exit 0'
# loom-bench: --list-kernels for run.sh and profile.sh, a JSON where sweep.sh asks for one.
stub "$repo/build/loom-bench" '
if [[ " $* " == *" --list-kernels "* ]]; then printf "add\tadd\tf32,f16,bf16\tx\nsm80\tgemm\tf16,bf16\tx\n"; exit 0; fi
for a; do [[ $a == --benchmark_out=* ]] && echo "{\"benchmarks\": []}" >"${a#--benchmark_out=}"; done; exit 0'

run() {  # run ARGS...: scripts/run.sh in the scratch tree; stderr in $tmp/err
  : >"$log"
  PATH="$tmp/bin:$PATH" LOOM_SKIP_DEPS=1 COMPUTE_SANITIZER="$tmp/bin/compute-sanitizer" NCU="$tmp/bin/ncu" \
    bash "$repo/scripts/run.sh" "$@" >"$tmp/out" 2>"$tmp/err"
}
check() {  # check NAME FILE REGEX
  if grep -Eq -- "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1: no /$3/ in $2:"; sed 's/^/  /' "$2"; fail=1; fi
}

rc=0; run --quick || rc=$?
[[ $rc -eq 0 ]] && echo "ok   --quick exits 0" || { echo "FAIL --quick: exit $rc"; cat "$tmp/err"; fail=1; }
check "step 1 starts" "$tmp/err" '^\[1/8\] build \.\.\.$'
check "step 4 starts" "$tmp/err" '^\[4/8\] loom-bench default sweep \.\.\.$'
check "step ends with its time and the job's" "$tmp/err" '^\[8/8\] plots and results/RESULTS\.md: [0-9]+m[0-9]{2}s \(job: [0-9]+m[0-9]{2}s\)$'
check "quick validate sweep" "$log" '^loom-validate --quiet --output=results/validate.txt --m=1,127,1000 --layouts=ccc,rcr'
check "quick llm validate" "$log" '^loom-validate --sweep=llm-ragged --kernels=gemm --quiet .* --m=1,128'
check "quick bench sweep, compact" "$log" '^loom-bench --progress .* --m=1024,4096 --layouts=ccc,rcr$'
check "quick llm bench" "$log" '^loom-bench --progress .* --sweep=llm-layouts --kernels=gemm --m=128$'
check "quick llm-wide validate" "$log" '^loom-validate --sweep=llm-wide-ragged --kernels=gemm --quiet .* --m=4,160$'
check "quick llm-wide bench" "$log" '^loom-bench --progress .* --sweep=llm-wide --kernels=gemm --m=4,160,1536$'
check "the llm-wide JSON plotted" "$log" '^python3 scripts/plot.py results/bench.json results/llm/bench.json results/llm-layouts/bench.json results/llm-wide/bench.json '
check "quick sanitizer sweep" "$log" '^compute-sanitizer --tool memcheck .* --m=1,130 --n=129 --k=200'
check "each sanitizer tool's start on the terminal" "$tmp/err" '^  sanitize\.sh: racecheck \(2/4\), 1 sweep\(s\) \.\.\.$'
check "each sanitizer tool's end on the terminal" "$tmp/err" '^  initcheck: ok '
check "quick profiles at small shapes" "$log" '^loom-bench --kernels=sm80 --dtypes=bf16 --layouts=ccc --m=1024 --n=1024 --k=1024'
check "quick writes results/RESULTS.md" "$log" '^python3 scripts/plot.py .* --results-md results/RESULTS.md --command scripts/run.sh --quick'
[[ -s $repo/results/run_times_quick.tsv ]] && echo "ok   step times kept" || { echo "FAIL no results/run_times_quick.tsv"; fail=1; }

# The second run of the same form gives each step the first run's time as its estimate.
rc=0; run --quick || rc=$?
check "estimate from the last run" "$tmp/err" '^\[1/8\] build \.\.\. \(last run: [0-9]+m[0-9]{2}s\)$'

# A partial sweep: no llm steps, so six.
rc=0; run --kernels=add || rc=$?
check "partial sweep: six steps" "$tmp/err" '^\[6/6\] plots and results/RESULTS\.md: '
check "partial sweep: arguments to loom-bench" "$log" '^loom-bench --progress .* --kernels=add$'

# --resume: an interrupted run (loom-bench writes nothing) goes on from the step that stopped it;
# the validation steps it finished are skipped with one line each, and the last line sums the steps.
bench_stub=$(cat "$repo/build/loom-bench")
stub "$repo/build/loom-bench" 'exit 1'
rc=0; run --quick || rc=$?
[[ $rc -ne 0 ]] && echo "ok   an interrupted run exits non-zero" || { echo "FAIL the stand-in failure did not stop run.sh"; fail=1; }
printf '%s\n' "$bench_stub" >"$repo/build/loom-bench"
rc=0; run --quick --resume || rc=$?
[[ $rc -eq 0 ]] && echo "ok   --resume exits 0" || { echo "FAIL --resume: exit $rc"; cat "$tmp/err"; fail=1; }
check "--resume skips a finished step" "$tmp/err" '^\[2/8\] loom-validate default sweep: done in an earlier run \([0-9]+m[0-9]{2}s\), skipped$'
check "--resume skips the llm validation" "$tmp/err" '^\[3/8\] loom-validate llm sweeps: done in an earlier run'
check "--resume runs the step that stopped" "$tmp/err" '^\[4/8\] loom-bench default sweep \.\.\.'
check "--resume rebuilds" "$tmp/err" '^\[1/8\] build \.\.\.'
check "--resume sums the steps" "$tmp/err" "^run.sh: done in [0-9]+m[0-9]{2}s \(the steps in all, earlier runs' included: [0-9]+m[0-9]{2}s\)"
if grep -q '^loom-validate ' "$log"; then echo "FAIL --resume ran loom-validate again"; fail=1; else echo "ok   --resume: no validation rerun"; fi
# A run of another form or sweep does not resume from it.
rc=0; run --kernels=sm80 --resume || rc=$?
check "--resume of another sweep runs every step" "$tmp/err" '^run.sh: --resume: no interrupted run of this commit and sweep'
check "--resume of another sweep validates" "$log" '^loom-validate --quiet --output=results/validate.txt$'

# A sanitizer that reports an error: its FAILED line on the terminal, and run.sh exits non-zero.
stub "$tmp/bin/compute-sanitizer" 'echo "========= ERROR SUMMARY: 1 error"; exit 1'
rc=0; run --quick || rc=$?
[[ $rc -ne 0 ]] && echo "ok   a sanitizer error makes run.sh exit non-zero" || { echo "FAIL a sanitizer error: exit 0"; fail=1; }
check "the failing tool on the terminal" "$tmp/err" '^  memcheck: FAILED, exit status 1 \(ERROR SUMMARY: 1 error\)'
check "run.sh names the report" "$tmp/err" '^run.sh: scripts/sanitize.sh reported errors \(results/sanitize.txt\)$'
stub "$tmp/bin/compute-sanitizer" 'exit 0'

# --quick with loom-bench arguments: one line, exit 2.
rc=0; run --quick --kernels=add || rc=$?
if [[ $rc -eq 2 && $(wc -l <"$tmp/err") -eq 1 ]] && grep -q -- '--quick' "$tmp/err"; then echo "ok   --quick takes no arguments"
else echo "FAIL --quick --kernels=add: exit $rc: $(cat "$tmp/err")"; fail=1; fi
exit $fail
