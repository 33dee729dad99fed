#!/usr/bin/env bash
# Run the loom-bench sweep and keep its JSON. Needs a CUDA GPU.
#
#   scripts/sweep.sh [OUT_DIR] [loom-bench args...]
#
# Builds first if needed (skip with LOOM_SKIP_BUILD=1), prints the console table, and writes
# OUT_DIR/bench.json (Google Benchmark JSON) and OUT_DIR/bench.txt (the console table).
# OUT_DIR defaults to the repository's results/; a relative OUT_DIR is taken from the current
# directory. Arguments after OUT_DIR go to loom-bench, e.g.
#   scripts/sweep.sh results --kernels=add --dtypes=f32 --m=1024:16384:1024
# With LOOM_COMPACT=1 (scripts/run.sh sets it) the console table goes to OUT_DIR/bench.txt only,
# and the terminal gets loom-bench --progress's one line per benchmark instead (on stderr).
# Exit status: loom-bench's (1 when some benchmark failed; the JSON is still written).
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"  # cd to the repository root
loom_out_dir "$@"
shift "$out_shift"

if [[ ${LOOM_SKIP_BUILD:-0} != 1 ]]; then
  loom_build >&2
fi
bench=$BUILD_DIR/loom-bench
if [[ ! -x $bench ]]; then
  echo "sweep.sh: $bench not found; build it with: cmake --build $BUILD_DIR --target loom-bench" >&2
  exit 1
fi

json=$out_dir/bench.json
rm -f "$json"
rc=0
if [[ ${LOOM_COMPACT:-0} == 1 ]]; then
  "$bench" --progress --benchmark_format=console --benchmark_out="$json" --benchmark_out_format=json "$@" \
    >"$out_dir/bench.txt" || rc=$?
else
  "$bench" --benchmark_format=console --benchmark_out="$json" --benchmark_out_format=json "$@" \
    | tee "$out_dir/bench.txt" || rc=$?
fi
if [[ -s $json ]]; then
  loom_stamp "$json"
  echo "sweep.sh: JSON in $json, console table in $out_dir/bench.txt" >&2
else
  echo "sweep.sh: loom-bench wrote no JSON (exit status $rc)" >&2
  [[ $rc -ne 0 ]] || rc=1
fi
exit "$rc"
