# loom_check_fetchable(<what> <debian package> <url>): stop the configure with one message naming
# the Debian package to install when <url> (the git server FetchContent would clone <what> from)
# cannot be reached. Without this check, a machine with neither the package nor a network gets
# FetchContent's git error, which names neither. Works in script mode too (tests/cli/scripts/deps.sh).
# LOOM_FETCH_CHECK_URL, where set, replaces <url> (the test points it at a closed port).
function(loom_check_fetchable what deb url)
  if(DEFINED LOOM_FETCH_CHECK_URL)
    set(url "${LOOM_FETCH_CHECK_URL}")
  endif()
  # A download to nowhere (CMake >= 3.19): only whether the server answers matters.
  file(DOWNLOAD "${url}" STATUS status TIMEOUT 20 INACTIVITY_TIMEOUT 10)
  list(GET status 0 code)
  if(NOT code EQUAL 0)
    list(GET status 1 why)
    message(FATAL_ERROR
      "${what} is not installed, and ${url} cannot be reached to fetch it (${why}). "
      "Install the Debian package: sudo apt-get install ${deb} "
      "(scripts/test.sh and scripts/run.sh install it where they can), or point CMake at an "
      "installed copy with -D${what}_DIR=<dir of its CMake config>.")
  endif()
endfunction()
