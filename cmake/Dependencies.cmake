# Third-party dependencies: use an installed package when there is one,
# otherwise fetch a pinned release with FetchContent (needs network). Where the git server cannot
# be reached, the configure stops with the Debian package to install (cmake/FetchCheck.cmake)
# instead of FetchContent's git error.
include(FetchContent)
include(FetchCheck)

find_package(CUDAToolkit REQUIRED)  # CUDA::cudart, CUDA::cublas, CUDA::nvtx3

# GoogleTest -> GTest::gtest_main
if(LOOM_BUILD_TESTS)
  find_package(GTest CONFIG QUIET)
  if(NOT GTest_FOUND)
    find_package(GTest MODULE QUIET)
  endif()
  if(NOT TARGET GTest::gtest_main)
    message(STATUS "GoogleTest not found (Debian: libgtest-dev); fetching v1.14.0")
    loom_check_fetchable(GTest libgtest-dev https://github.com/google/googletest.git)
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
    FetchContent_Declare(googletest
      GIT_REPOSITORY https://github.com/google/googletest.git
      GIT_TAG v1.14.0
      GIT_SHALLOW TRUE)
    FetchContent_MakeAvailable(googletest)
  endif()
endif()

# Google Benchmark -> benchmark::benchmark
find_package(benchmark CONFIG QUIET)
if(NOT TARGET benchmark::benchmark)
  message(STATUS "Google Benchmark not found (Debian: libbenchmark-dev); fetching v1.8.3")
  loom_check_fetchable(benchmark libbenchmark-dev https://github.com/google/benchmark.git)
  set(BENCHMARK_ENABLE_TESTING OFF CACHE BOOL "" FORCE)
  set(BENCHMARK_ENABLE_GTEST_TESTS OFF CACHE BOOL "" FORCE)
  set(BENCHMARK_ENABLE_INSTALL OFF CACHE BOOL "" FORCE)
  FetchContent_Declare(benchmark
    GIT_REPOSITORY https://github.com/google/benchmark.git
    GIT_TAG v1.8.3
    GIT_SHALLOW TRUE)
  FetchContent_MakeAvailable(benchmark)
endif()

# CLI11 -> CLI11::CLI11
find_package(CLI11 CONFIG QUIET)
if(NOT TARGET CLI11::CLI11)
  message(STATUS "CLI11 not found (Debian: libcli11-dev); fetching v2.4.1")
  loom_check_fetchable(CLI11 libcli11-dev https://github.com/CLIUtils/CLI11.git)
  FetchContent_Declare(CLI11
    GIT_REPOSITORY https://github.com/CLIUtils/CLI11.git
    GIT_TAG v2.4.1
    GIT_SHALLOW TRUE)
  FetchContent_MakeAvailable(CLI11)
endif()
