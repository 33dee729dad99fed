# shellcheck shell=bash
# Sourced by scripts/common.sh (so by scripts/test.sh, scripts/run.sh and the scripts that build)
# and by .ci/run: the one place that knows what Loom needs to build and run, and installs it.
#
#   loom_deps [run]
#
# Checks for cmake, ninja, g++ and the Debian packages of GoogleTest, Google Benchmark and CLI11
# (and, with `run`, python3 with pandas and matplotlib for scripts/plot.py). What is missing is
# installed with apt-get where that can be done without asking: as root, or through passwordless
# `sudo -n`. Otherwise, or when apt-get fails, prints one line naming the packages and the command
# that installs them, and returns 1. Returns 0 when nothing is missing or all of it was installed.
# Also returns 1, with one line, when no CUDA compiler is found (the toolkit is not a Debian
# package this script can choose for the user).
# Env: LOOM_SKIP_DEPS=1 skips every check (dependencies installed some other way: CMake then
# finds them, or fetches them with FetchContent where a network is reachable).

# The Debian package of each library, found by dpkg-query. Where there is no dpkg-query (not a
# Debian system), the libraries are left to CMake, whose error names the package
# (cmake/Dependencies.cmake).
LOOM_DEB_LIBS=(libcli11-dev libgtest-dev libbenchmark-dev)

loom_have_deb() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# The packages missing for `loom_deps [run]`, one per line.
loom_missing_deps() {
  command -v cmake >/dev/null || echo cmake
  command -v ninja >/dev/null || echo ninja-build
  command -v g++ >/dev/null || echo g++
  if command -v dpkg-query >/dev/null; then
    local p
    for p in "${LOOM_DEB_LIBS[@]}"; do loom_have_deb "$p" || echo "$p"; done
  fi
  if [[ ${1:-} == run ]]; then
    if ! command -v python3 >/dev/null; then
      printf '%s\n' python3 python3-pandas python3-matplotlib
    else
      python3 -c 'import pandas' 2>/dev/null || echo python3-pandas
      python3 -c 'import matplotlib' 2>/dev/null || echo python3-matplotlib
    fi
  fi
}

loom_deps() {
  [[ ${LOOM_SKIP_DEPS:-0} != 1 ]] || return 0
  local me
  me=${LOOM_SCRIPT_NAME:-$(basename "$0")}
  if [[ -z ${CUDACXX:-} ]] && ! command -v nvcc >/dev/null; then
    echo "$me: no CUDA compiler (nvcc not on PATH, no /usr/local/cuda/bin/nvcc); install the CUDA Toolkit 12.x or 13.x, or set CUDACXX" >&2
    return 1
  fi
  local missing=()
  mapfile -t missing < <(loom_missing_deps "${1:-}")
  ((${#missing[@]})) || return 0

  local sudo=() can=0
  if [[ $(id -u) -eq 0 ]]; then
    can=1
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
    can=1
  fi
  command -v apt-get >/dev/null || can=0
  local cmd="sudo apt-get install -y --no-install-recommends ${missing[*]}"
  if ((!can)); then
    echo "$me: missing ${missing[*]}; install them with: $cmd (or set LOOM_SKIP_DEPS=1 if they are installed another way)" >&2
    return 1
  fi
  echo "$me: installing ${missing[*]}" >&2
  if ! { DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get update -q &&
         DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"; } \
       </dev/null >&2; then
    echo "$me: apt-get could not install ${missing[*]}; install them with: $cmd" >&2
    return 1
  fi
  # What apt-get installed must now be found, or the next step fails on it less clearly.
  mapfile -t missing < <(loom_missing_deps "${1:-}")
  if ((${#missing[@]})); then
    echo "$me: still missing ${missing[*]} after apt-get; install them with: sudo apt-get install -y ${missing[*]}" >&2
    return 1
  fi
}
