#!/usr/bin/env bash
# Bad input: exit 2, one line on stderr naming the problem. All of these are caught before the
# GPU is looked for, so they hold with or without one.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" "$@"

expect_bad_input "--m: sizes must be positive, found 0" --m=0
expect_bad_input "--n: sizes must be positive, found -4" --n=-4
expect_bad_input "--k: sizes must be positive, found 0" --k=0
expect_bad_input "unknown kernel \"nope\"" --kernels=nope
expect_bad_input "unknown kernel \"nope\"" --kernels=add,nope
expect_bad_input "--kernels: bad item" --kernels=add,
expect_bad_input "--m: bad item \"1:x\"" --m=1:x
expect_bad_input "--m: bad item \"x\"" --m=x
expect_bad_input "--m: bad item \"\"" --m=1,,2
expect_bad_input "the step must be positive" --m=1:8:0
expect_bad_input "the step must be positive" --m=1:8:-2
expect_bad_input "the end is smaller than the start" --m=8:1
expect_bad_input "integer out of range" --m=99999999999999999999
expect_bad_input "--alpha: bad item \"abc\"" --alpha=abc
expect_bad_input "--beta: bad item \"nan\"" --beta=nan
expect_bad_input "unknown dtype \"f64\"" --dtypes=f64
expect_bad_input "bad layout \"cxc\"" --layouts=cxc
expect_bad_input "bad layout \"cc\"" --layouts=ccc,cc
expect_bad_input "--ld-pad: padding must be non-negative, found -1" --ld-pad=-1
expect_bad_input "--misalign: misalignment must be non-negative, found -1" --misalign=-1
expect_bad_input "unknown --reference \"bogus\"" --reference=bogus
expect_bad_input "unknown --format \"xml\"" --format=xml
expect_bad_input "unknown op \"mul\"" --op=mul
expect_bad_input "kernel add computes add, not gemm" --kernels=add --op=gemm
expect_bad_input "--reference=cublas: cuBLAS has no f16 add" --reference=cublas --dtypes=f16
expect_bad_input "--seed" --seed=abc
expect_bad_input "--device: ordinal must be non-negative" --device=-1
expect_bad_input "was not expected" --bogus-option
expect_bad_input "was not expected" stray

finish
