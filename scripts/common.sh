# shellcheck shell=bash
# Sourced by scripts/test.sh, scripts/run.sh and the scripts that build: configure and build Loom.
# Env: BUILD_DIR (default: build), CMAKE_ARGS (extra configure arguments, word-split),
# LOOM_SKIP_DEPS=1 (no dependency check: scripts/deps.sh).

LOOM_CALLER_PWD=$PWD  # where the script was called from (loom_out_dir reads relative paths there)
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
BUILD_DIR=${BUILD_DIR:-build}
JOBS=$(nproc 2>/dev/null || echo 2)

# nvcc is often not on PATH; point CMake at the default toolkit location.
if [[ -z ${CUDACXX:-} ]] && ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi

source scripts/deps.sh

# The output folder of a script that takes one as its first argument when that does not start with
# '-' (relative to where the script was called from; default results/): made, its absolute path in
# out_dir; out_shift is 1 when the argument was one, for the caller to shift it away.
loom_out_dir() {
  out_dir= out_shift=0
  if [[ $# -gt 0 && $1 != -* ]]; then
    out_dir=$1 out_shift=1
    [[ $out_dir == /* ]] || out_dir=$LOOM_CALLER_PWD/$out_dir
  fi
  out_dir=${out_dir:-$PWD/results}
  mkdir -p "$out_dir"
  out_dir=$(cd "$out_dir" && pwd)
}

# Installs what is missing (scripts/deps.sh) or stops with the line that names it, then builds.
loom_build() {
  loom_deps || exit 1
  local gen=()
  # Pick Ninja on first configure only; an existing cache keeps its generator.
  if [[ ! -f $BUILD_DIR/CMakeCache.txt ]] && command -v ninja >/dev/null; then
    gen=(-G Ninja)
  fi
  # shellcheck disable=SC2086
  cmake -S . -B "$BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-}
  cmake --build "$BUILD_DIR" -j"$JOBS"
}

# The commit a result was made at: `git rev-parse --short=12 HEAD`, with "+dirty" when tracked files
# differ from it, or "unknown" outside a git checkout. LOOM_COMMIT names it for a tree that is not a
# checkout (one unpacked from `git archive`), and is taken as given.
loom_commit() {
  [[ -n ${LOOM_COMMIT:-} ]] && { echo "$LOOM_COMMIT"; return; }
  local c
  c=$(git rev-parse --short=12 HEAD 2>/dev/null) || { echo unknown; return; }
  [[ -z $(git status --porcelain --untracked-files=no 2>/dev/null) ]] || c+="+dirty"
  echo "$c"
}

# Records beside FILE (FILE.commit) the commit it was made at, so that scripts/plot.py can say when
# RESULTS.md puts together sections from different commits.
loom_stamp() {
  loom_commit >"$1.commit"
}

