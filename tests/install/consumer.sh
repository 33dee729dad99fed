#!/usr/bin/env bash
# ctest install_consumer: installs this build into a scratch prefix, then configures, builds and
# runs tests/install as a user's project would (find_package(Loom CONFIG REQUIRED), Loom::loom).
# Usage: consumer.sh <build dir> <scratch dir> <cmake generator>
set -euo pipefail
build=$1 scratch=$2 gen=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$scratch"
cmake --install "$build" --prefix "$scratch/prefix" > "$scratch.install.log" 2>&1 || { cat "$scratch.install.log"; exit 1; }
test -f "$scratch/prefix/include/loom/gemm.hpp"
cmake -S "$here" -B "$scratch/build" -G "$gen" -DCMAKE_PREFIX_PATH="$scratch/prefix" -DCMAKE_BUILD_TYPE=Release
cmake --build "$scratch/build"
"$scratch/build/loom_consumer"
