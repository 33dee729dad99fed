#!/usr/bin/env bash
# scripts/deps.sh (the dependency check of scripts/test.sh, scripts/run.sh and .ci/run) against
# stub commands, and cmake/FetchCheck.cmake against an unreachable server. No GPU, no network, no
# real install: dpkg-query, apt-get, sudo and id are stubs on PATH that say what is installed and
# record what was asked of them.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
stubs=$tmp/bin
mkdir -p "$stubs"
# dpkg-query -W -f=... PKG: installed when PKG is listed in $tmp/installed.
cat >"$stubs/dpkg-query" <<STUB
#!/usr/bin/env bash
pkg=\${!#}
grep -qx "\$pkg" "$tmp/installed" && printf 'install ok installed'
STUB
cat >"$stubs/apt-get" <<STUB
#!/usr/bin/env bash
echo "apt-get \$*" >>"$tmp/apt.log"
[[ \${STUB_APT_FAILS:-0} == 1 ]] && exit 100
# An install makes its packages installed.
if [[ \$1 == install ]]; then for a in "\$@"; do [[ \$a == -* || \$a == install ]] || echo "\$a" >>"$tmp/installed"; done; fi
exit 0
STUB
cat >"$stubs/sudo" <<STUB
#!/usr/bin/env bash
[[ \${STUB_SUDO_OK:-0} == 1 ]] || { echo "sudo: a password is required" >&2; exit 1; }
shift  # -n
"\$@"
STUB
cat >"$stubs/id" <<STUB
#!/usr/bin/env bash
echo "\${STUB_UID:-1000}"
STUB
for t in cmake ninja g++ nvcc; do printf '#!/bin/sh\nexit 0\n' >"$stubs/$t"; done
chmod +x "$stubs"/*

# run_deps [ARG]: loom_deps in a fresh shell with only the stubs and the basic tools on PATH.
run_deps() {
  : >"$tmp/apt.log"
  env -i PATH="$stubs:/usr/bin:/bin" HOME="$tmp" STUB_UID="${STUB_UID:-1000}" STUB_SUDO_OK="${STUB_SUDO_OK:-0}" \
    STUB_APT_FAILS="${STUB_APT_FAILS:-0}" LOOM_SCRIPT_NAME=test.sh \
    bash -c 'source "$1/scripts/deps.sh"; loom_deps "${@:2}"' _ "$root" "$@" >"$tmp/out" 2>"$tmp/err"
}
expect() {  # expect NAME RC STDERR_REGEX APT_LOG_REGEX (empty regexes: nothing on stderr; apt-get not called)
  local name=$1 want_rc=$2 err_re=$3 apt_re=$4 ok=1
  [[ $rc -eq $want_rc ]] || ok=0
  if [[ -z $err_re ]]; then [[ ! -s $tmp/err ]] || ok=0; else grep -Eq -- "$err_re" "$tmp/err" || ok=0; fi
  if [[ -z $apt_re ]]; then [[ ! -s $tmp/apt.log ]] || ok=0; else grep -Eq -- "$apt_re" "$tmp/apt.log" || ok=0; fi
  [[ -s $tmp/out ]] && ok=0  # nothing on stdout
  if ((ok)); then echo "ok   $name"; else
    echo "FAIL $name: exit $rc (want $want_rc); stderr: $(cat "$tmp/err"); apt: $(cat "$tmp/apt.log")"; fail=1
  fi
}

# Everything installed: nothing said, nothing installed.
printf '%s\n' libcli11-dev libgtest-dev libbenchmark-dev >"$tmp/installed"
rc=0; run_deps || rc=$?
expect "all installed" 0 '' ''

# Missing, not root, no passwordless sudo: one line naming the packages and the command; exit 1.
printf '%s\n' libcli11-dev >"$tmp/installed"
rc=0; run_deps || rc=$?
expect "no sudo: names the packages" 1 \
  '^test\.sh: missing libgtest-dev libbenchmark-dev; install them with: sudo apt-get install -y --no-install-recommends libgtest-dev libbenchmark-dev' ''
[[ $(wc -l <"$tmp/err") -eq 1 ]] || { echo "FAIL no sudo: more than one line"; fail=1; }

# Missing, passwordless sudo: installed through sudo -n apt-get, exit 0.
printf '%s\n' libcli11-dev >"$tmp/installed"
rc=0; STUB_SUDO_OK=1 run_deps || rc=$?
expect "passwordless sudo installs" 0 '^test\.sh: installing libgtest-dev libbenchmark-dev$' \
  '^apt-get install -y -q --no-install-recommends libgtest-dev libbenchmark-dev$'

# Missing, root: apt-get without sudo.
printf '%s\n' libgtest-dev libbenchmark-dev >"$tmp/installed"
rc=0; STUB_UID=0 run_deps || rc=$?
expect "root installs" 0 'installing libcli11-dev' '^apt-get install .*libcli11-dev$'

# apt-get fails (no network): one line with the command, exit 1.
printf '%s\n' libgtest-dev libbenchmark-dev >"$tmp/installed"
rc=0; STUB_UID=0 STUB_APT_FAILS=1 run_deps || rc=$?
expect "apt-get fails" 1 '^test\.sh: apt-get could not install libcli11-dev; install them with: sudo apt-get install' '^apt-get update'

# `run` also wants python3 with pandas and matplotlib (scripts/plot.py); a python3 stub that
# lacks both modules.
printf '%s\n' libcli11-dev libgtest-dev libbenchmark-dev >"$tmp/installed"
printf '#!/bin/sh\nexit 1\n' >"$stubs/python3"; chmod +x "$stubs/python3"
rc=0; run_deps run || rc=$?
expect "run: python modules" 1 'missing python3-pandas python3-matplotlib;' ''
rc=0; run_deps || rc=$?
expect "build only: no python needed" 0 '' ''
rm -f "$stubs/python3"

# No CUDA compiler: one line, exit 1, before any package check (unless the system has its own
# nvcc on /usr/bin, which the stubs cannot hide).
rm -f "$stubs/nvcc"
if [[ ! -x /usr/bin/nvcc && ! -x /bin/nvcc ]]; then
  rc=0; run_deps || rc=$?
  expect "no nvcc" 1 '^test\.sh: no CUDA compiler' ''
fi
printf '#!/bin/sh\nexit 0\n' >"$stubs/nvcc"; chmod +x "$stubs/nvcc"

# LOOM_SKIP_DEPS=1: no check at all.
printf '' >"$tmp/installed"
rc=0
env -i PATH="$stubs:/usr/bin:/bin" LOOM_SKIP_DEPS=1 bash -c 'source "$1/scripts/deps.sh"; loom_deps' _ "$root" \
  >"$tmp/out" 2>"$tmp/err" || rc=$?
[[ $rc -eq 0 && ! -s $tmp/err ]] && echo "ok   LOOM_SKIP_DEPS=1" || { echo "FAIL LOOM_SKIP_DEPS=1: exit $rc: $(cat "$tmp/err")"; fail=1; }

# CMake without the package and without a network: the configure names the Debian package.
if command -v cmake >/dev/null; then
  cat >"$tmp/check.cmake" <<CM
list(APPEND CMAKE_MODULE_PATH "$root/cmake")
include(FetchCheck)
loom_check_fetchable(GTest libgtest-dev https://github.com/google/googletest.git)
CM
  rc=0
  cmake -DLOOM_FETCH_CHECK_URL=http://127.0.0.1:9/ -P "$tmp/check.cmake" >"$tmp/out" 2>"$tmp/err" || rc=$?
  if [[ $rc -ne 0 ]] && tr '\n' ' ' <"$tmp/err" | grep -Eq 'GTest is not installed.*apt-get +install +libgtest-dev'; then
    echo "ok   FetchCheck names libgtest-dev"
  else
    echo "FAIL FetchCheck: exit $rc: $(cat "$tmp/err")"; fail=1
  fi
fi
exit $fail
