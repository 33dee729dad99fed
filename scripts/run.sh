#!/usr/bin/env bash
# Main job: build, then run the benchmark sweep (or the GPU tests until it exists). Needs a GPU.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

loom_build

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "run.sh: no CUDA GPU found; the benchmark sweep needs one" >&2
  exit 1
fi

if [[ -f scripts/sweep.sh ]]; then
  exec bash scripts/sweep.sh "$@"
fi
exec ctest --test-dir "$BUILD_DIR" -R '[Gg]pu' --output-on-failure
