#!/usr/bin/env bash
# Build everything and run all tests. Passes without a GPU (GPU tests report Skipped).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

loom_build
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS"
