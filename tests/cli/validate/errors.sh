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
# 8-bit inputs: the report's names (a pair only of two different 8-bit types); output types are
# 16 or 32 bits; block scales (--scale=block, or -block after an 8-bit type) only on 8-bit inputs
# and never with the fast accumulation mode (refused whatever else is given, before the GPU).
expect_bad_input "--dtypes: unknown dtype \"e4m3xe4m3\" (known: f32, f16, bf16, e4m3, e5m2, e4m3xe5m2, e5m2xe4m3, e4m3-fast, e5m2-fast, e4m3xe5m2-fast, e5m2xe4m3-fast, e4m3-block, e5m2-block, e4m3xe5m2-block, e5m2xe4m3-block)" --dtypes=e4m3xe4m3
expect_bad_input "unknown dtype \"bf16-fast\"" --dtypes=bf16-fast
expect_bad_input "unknown dtype \"bf16xf16\"" --dtypes=bf16xf16
expect_bad_input "unknown dtype \"fp8_e4m3\"" --dtypes=fp8_e4m3
expect_bad_input "unknown dtype \"e4m3xe4m3-block\"" --dtypes=e4m3xe4m3-block
expect_bad_input "--dtypes: \"bf16-block\": block scales are for 8-bit inputs (e4m3, e5m2, e4m3xe5m2, e5m2xe4m3), not bf16" --dtypes=bf16-block
expect_bad_input "--dtypes: \"e4m3-fast-block\": block scales need the promoted accumulation (each 128 of K's partial sum is scaled as it is promoted to fp32), which -fast leaves out; name e4m3-block or e4m3-fast" --dtypes=e4m3-fast-block
expect_bad_input "--dtypes: \"e5m2xe4m3-block-fast\": block scales need the promoted accumulation" --dtypes=e4m3,e5m2xe4m3-block-fast
expect_bad_input "--out-dtypes: unknown dtype \"e4m3\" (known: f32, f16, bf16)" --dtypes=e4m3 --out-dtypes=e4m3
expect_bad_input "--scale=block does not go with e4m3-fast: block scales need the promoted accumulation (each 128 of K's partial sum is scaled as it is promoted to fp32), which the fast mode leaves out; name e4m3 instead" --dtypes=e4m3-fast --scale=block
expect_bad_input "--scale=block does not go with e5m2-fast" --dtypes=e4m3,e5m2-fast --scale=tensor,block
expect_bad_input "--scale is for 8-bit inputs named without -block, and --dtypes names only -block ones" --dtypes=e4m3-block,bf16 --scale=block
expect_bad_input "--scale is tensor or block (or a comma list of both), found \"row\"" --dtypes=e4m3 --scale=row
expect_bad_input "--scale is tensor or block (or a comma list of both), found \"bogus\"" --dtypes=e4m3 --scale=tensor,bogus
expect_bad_input "--scale: bad item \"\"" --dtypes=e4m3 --scale=block,
expect_bad_input "kernel add does not support dtype e4m3" --kernels=add --dtypes=e4m3
expect_bad_input "kernel fma does not support dtype e4m3xe5m2" --kernels=fma --dtypes=e4m3xe5m2
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
expect_bad_input "--device: expected an integer in [0, 1023], found \"-1\"" --device=-1
expect_bad_input "was not expected" --bogus-option
expect_bad_input "was not expected" stray

# Issue 12: every option is checked before the GPU is looked for, and a sweep is counted before it
# is built (these said "no CUDA GPU found", or took 3 GB and 12 s, before).
expect_bad_input "cannot write --output file \"/nonexistent/dir/x.json\": no directory /nonexistent/dir" --output=/nonexistent/dir/x.json
expect_bad_input "cannot write --output file \"/\": it is a directory" --output=/
expect_bad_input "--seed: expected an integer in [0, 18446744073709551615], found \"-1\"" --seed=-1
expect_bad_input "--seed: expected an integer in [0, 18446744073709551615], found \"99999999999999999999999\"" --seed=99999999999999999999999
expect_bad_input "--list takes no value, found \"--list=2\"" --list=2
expect_bad_input "--quiet takes no value" --quiet=0
expect_bad_input "the sweep has 578880000 cases, more than the limit of 100000; narrow it, or raise the limit with --max-cases" --m=1:100 --n=1:100 --k=1:100
expect_bad_input "the sweep has 18446744073709551615 or more cases" --m=1:1048576 --n=1:1048576 --k=1:1048576
expect_bad_input "the sweep has 5760 cases, more than the limit of 100" --kernels=add --m=1:10 --n=1:2 --max-cases=100
expect_bad_input "--max-cases: expected an integer" --max-cases=-5
# A value with a line break or a control character in it still gives one line.
expect_bad_input "unknown kernel \"a; b\"" --kernels=$'a\nb'
expect_bad_input "unknown kernel \"\\x1b[1mx\"" --kernels=$'\e[1mx'

# --tags and --append: one line each, exit 2, before the GPU is looked for.
expect_bad_input "--tags: \"gpu\" is not key:value" --tags=gpu
expect_bad_input "--tags: \"80GB\" is not key:value (tags are separated by commas, so a value cannot hold one)" --tags=gpu:h100,80GB
expect_bad_input "--tags: \":h100\" has an empty key" --tags=:h100
expect_bad_input "--tags: \"gpu:\" has an empty value" --tags=gpu:
expect_bad_input "--tags: the value of \"gpu\" holds a line break" --tags=$'gpu:h1\n00'
expect_bad_input "--tags: the value of \"gpu\" holds ';'" --tags='gpu:a;b'
expect_bad_input "--tags: key \"gpu\" is given twice" --tags=gpu:a,run:1,gpu:b
expect_bad_input "--tags: key \"g u\" may hold only letters" --tags='g u:1'
expect_bad_input "--tags: key \"status\" is one of the report's own fields" --tags=status:ok
expect_bad_input "--tags: key \"disposition\" is one of the report's own fields" --tags=disposition:x
expect_bad_input "--tags: bad item \"\" in \"a:1,,b:2\": empty item" --tags=a:1,,b:2
expect_bad_input "--append appends to the --output file; name one" --append
expect_bad_input "--append takes no value, found \"--append=1\"" --append=1
expect_bad_input "--append does not go with --format=json" --append --format=json --output="$TMP/x.json"

# A value the run would ignore is an error too: --list prints the same text whatever else is given,
# --out-dtypes names an output no f16, bf16 or 8-bit gemm case of the sweep has, --scale names no
# 8-bit input, --k goes to no gemm kernel,
# and --output and --junit-output would write one file twice.
expect_bad_input "--list lists every kernel and takes no other option, found --dtypes" --list --dtypes=half
expect_bad_input "--list lists every kernel and takes no other option, found --op" --list --op=gemm
expect_bad_input "--out-dtypes is for gemm with f16, bf16 or 8-bit inputs, and the sweep has none" --op=add --out-dtypes=f32
expect_bad_input "--out-dtypes is for gemm with f16, bf16 or 8-bit inputs, and the sweep has none" --dtypes=f32 --out-dtypes=f16
expect_bad_input "--out-dtypes: bf16 is no output of the sweep's gemm inputs (f16: f16 or f32)" --dtypes=f16 --out-dtypes=bf16
expect_bad_input "--scale is for 8-bit inputs, and --dtypes names none" --dtypes=bf16 --scale=tensor
expect_bad_input "--scale is for 8-bit inputs, and --dtypes names none" --scale=tensor
expect_bad_input "--scale is for 8-bit inputs, and --dtypes names none (e4m3, e5m2, e4m3xe5m2, e5m2xe4m3)" --dtypes=bf16 --scale=block
expect_bad_input "--scale is for 8-bit inputs, and --dtypes names none" --scale=block
expect_bad_input "--scale is for 8-bit inputs, and --dtypes names none" --kernels=gemm --dtypes=f16,bf16 --scale=tensor,block
expect_bad_input "--k: K is gemm's, and no selected kernel computes gemm" --op=add --k=5
expect_bad_input "--k: K is gemm's, and no selected kernel computes gemm" --kernels=add --k=5
expect_bad_input "--output and --junit-output name the same file" --output="$TMP/r.csv" --junit-output="$TMP/r.csv"
expect_bad_input "--output and --junit-output name the same file" --output="$TMP/r.csv" --junit-output="$TMP/../${TMP##*/}/r.csv"
# The same options where they do apply: the sweep is refused by --max-cases, not by them.
expect_bad_input "the sweep has" --dtypes=f16 --out-dtypes=f32,f16 --max-cases=1
expect_bad_input "the sweep has" --kernels=add,sm80 --k=5 --max-cases=1
expect_bad_input "the sweep has" --output="$TMP/r.csv" --junit-output="$TMP/r.xml" --max-cases=1

finish
