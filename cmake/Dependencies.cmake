# Third-party dependencies: use an installed package when there is one,
# otherwise fetch a pinned release with FetchContent (needs network).
include(FetchContent)

find_package(CUDAToolkit REQUIRED)  # CUDA::cudart, CUDA::cublas, CUDA::nvtx3

# GoogleTest -> GTest::gtest_main
if(LOOM_BUILD_TESTS)
  find_package(GTest CONFIG QUIET)
  if(NOT GTest_FOUND)
    find_package(GTest MODULE QUIET)
  endif()
  if(NOT TARGET GTest::gtest_main)
    message(STATUS "GoogleTest not found; fetching v1.14.0")
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
  message(STATUS "Google Benchmark not found; fetching v1.8.3")
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
  message(STATUS "CLI11 not found; fetching v2.4.1")
  FetchContent_Declare(CLI11
    GIT_REPOSITORY https://github.com/CLIUtils/CLI11.git
    GIT_TAG v2.4.1
    GIT_SHALLOW TRUE)
  FetchContent_MakeAvailable(CLI11)
endif()
