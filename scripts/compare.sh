#!/usr/bin/env bash
# Compare two loom-bench JSON files case by case: median time, change, noise of each side,
# vs_cublas of each side and a verdict. See scripts/compare.py for the columns and the rule.
#
#   scripts/compare.sh OLD.json NEW.json [--threshold=PCT] [--fail-on-slower]
#
# Typical use: scripts/sweep.sh old --benchmark_repetitions=5 ...; (change); scripts/sweep.sh new
# ...; scripts/compare.sh old/bench.json new/bench.json
set -euo pipefail
py=${PYTHON:-python3}
command -v "$py" >/dev/null || { echo "compare.sh: python3 not found (set PYTHON)" >&2; exit 2; }
exec "$py" "$(dirname "${BASH_SOURCE[0]}")/compare.py" "$@"
