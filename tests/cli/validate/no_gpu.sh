#!/usr/bin/env bash
# Without a GPU, a plain run is bad input: exit 2 and "loom-validate: no CUDA GPU found".
# Skipped (77) where nvidia-smi sees a GPU.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" "$@"

if gpu_present; then
  echo "a GPU is present; skipping the no-GPU test"
  exit 77
fi
expect_bad_input "loom-validate: no CUDA GPU found" 
# The sweep options are checked first, then the GPU.
expect_bad_input "loom-validate: no CUDA GPU found" --kernels=add --dtypes=f32 --m=1:8 --n=3
finish
