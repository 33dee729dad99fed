#!/usr/bin/env bash
# bank_conflicts and coalescing: totals derived by hand from the model (layout/access.hpp), and the
# errors of their inputs.
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect.sh" "$@"

# expect_total 'TOTAL LINE' ARGS...: exit 0, empty stderr, the last stdout line exactly TOTAL LINE.
expect_total() {
  local want=$1
  shift
  _checks=$((_checks + 1))
  _run "$@"
  local last=${_out##*$'\n'}
  if [[ $_rc -ne 0 || $last != "$want" || -n $_err ]]; then
    _fail "$(_show_args "$@")" "want: $want" "got:  $last" "exit: $_rc" "stderr: $_err"
  else
    echo "ok:   loom-layout $(_show_args "$@")  ->  $last"
  fi
}

# A row-major 32x32 fp32 tile (row stride 128 bytes = 32 banks). Index i of the tile is row i%32,
# column i/32. One thread a row, the 32 instructions walking the columns: the lanes of an
# instruction share a column, so all 32 words fall in one bank: 32 wavefronts each, ideal 1.
expect_total 'total: 1024 wavefronts, ideal 32, 992 bank conflicts (32.0x the ideal)' \
  bank_conflicts '(32,32):(32,1)' '(32,1,32):(1,0,32)'
# One thread a column: a row of 32 consecutive words, one per bank.
expect_total 'total: 32 wavefronts, ideal 32, conflict-free' bank_conflicts '(32,32):(32,1)' '(32,1,32):(32,0,1)'
# Every lane the same word: a broadcast, one wavefront.
expect_total 'total: 1 wavefronts, ideal 1, conflict-free' bank_conflicts '32:1' '32:0'
# Lane l at word 2l: banks 0,2,..,30 twice over: 2-way.
expect_total 'total: 2 wavefronts, ideal 1, 1 bank conflicts (2.00x the ideal)' bank_conflicts '64:1' '32:2'
# The 8-bit K-major 128-byte GMMA atom (loom-layout gmma_atom k sw128 8): a warp storing 16 bytes a
# lane down the 16-byte chunk columns (lane l: row l % 8, chunk l / 8; two instructions for the 8
# chunks). Under the swizzle chunk c of row r moves to c ^ r, so the 8 lanes of a quarter-warp phase
# reach 8 different 4-bank groups: 4 phases per instruction, the ideal. Without the swizzle all 8
# rows' chunk c is in the same 4 banks: 8 wavefronts per phase.
expect_total 'total: 8 wavefronts, ideal 8, conflict-free' \
  bank_conflicts 'Sw<3,4,3> o (8,128):(128,1)' '((8,4),16,2):((1,128),8,512)' --bytes=16
expect_total 'total: 64 wavefronts, ideal 8, 56 bank conflicts (8.00x the ideal)' \
  bank_conflicts '(8,128):(128,1)' '((8,4),16,2):((1,128),8,512)' --bytes=16
# 2-byte accesses, lanes 2l and 2l+1 in one word: one wavefront.
expect_total 'total: 1 wavefronts, ideal 1, conflict-free' bank_conflicts '64:1' '32:1' --bytes=2
# 16-byte chunks of an 8x64 bf16 tile (rows 128 bytes): a quarter-warp walks a column of chunks,
# 8 rows, all in the same four banks: 8 wavefronts a phase, 32 an instruction against 4; under
# Swizzle<3,3,3> (chunk c of row r moves to c ^ r) the 8 rows take 8 different chunks.
expect_total 'total: 64 wavefronts, ideal 8, 56 bank conflicts (8.00x the ideal)' \
  bank_conflicts '(8,64):(64,1)' '((8,4),8,2):((1,64),8,256)' --bytes=16
expect_total 'total: 8 wavefronts, ideal 8, conflict-free' \
  bank_conflicts '(8,64):(64,1)' '((8,4),8,2):((1,64),8,256)' --bytes=16 --swizzle=3,3,3
expect_total 'total: 8 wavefronts, ideal 8, conflict-free' \
  bank_conflicts 'Sw<3,3,3> o (8,64):(64,1)' '((8,4),8,2):((1,64),8,256)' --bytes=16
# 8-byte accesses: two half-warps; 16 lanes at a stride of 16 bytes cover 256 bytes, each bank
# twice: 2 wavefronts a phase, 4 against the ideal 2.
expect_total 'total: 4 wavefronts, ideal 2, 2 bank conflicts (2.00x the ideal)' bank_conflicts '128:1' '(32,2):(4,1)' --bytes=8
expect_total 'total: 2 wavefronts, ideal 2, conflict-free' bank_conflicts '64:1' '(32,2):(2,1)' --bytes=8

# Coalescing: fp32, one thread a row of 32 (128 bytes): every lane its own line and sector.
expect_total 'total: 1024 sectors (ideal 128), 1024 lines (ideal 32), 896 sectors more than ideal' \
  coalescing '(32,32):(32,1)' '(32,1,32):(1,0,32)' --bytes=4
expect_total 'total: 128 sectors (ideal 128), 32 lines (ideal 32), coalesced' coalescing '(32,32):(32,1)' '(32,1,32):(32,0,1)'
# 16-byte accesses along rows of 64 floats: 512 bytes a warp, 16 sectors, 4 lines.
expect_total 'total: 1024 sectors (ideal 1024), 256 lines (ideal 256), coalesced' \
  coalescing '(128,64):(64,1)' '((16,2),4,64):((512,1),128,2)' --bytes=16
# A stride of 2 elements: 256 bytes spanned, 128 used: 8 sectors against 4.
expect_total 'total: 8 sectors (ideal 4), 2 lines (ideal 1), 4 sectors more than ideal' coalescing '64:1' '32:2'

# Errors: one line, exit 2.
expect_error 'bank_conflicts: --bytes: expected 1, 2, 4, 8 or 16' bank_conflicts '64:1' '32:1' --bytes=3
expect_error 'bank_conflicts: --swizzle: expected B,M,S' bank_conflicts '64:1' '32:1' --swizzle=3,3
expect_error 'argument 1 (SMEM_LAYOUT)|a swizzle already' bank_conflicts 'Sw<3,3,3> o 64:1' '32:1' --swizzle=3,3,3
expect_error 'argument 2 (THREAD_LAYOUT)|outside the memory layout' bank_conflicts '32:1' '32:2'
expect_error 'argument 2 (THREAD_LAYOUT)|not consecutive in memory' bank_conflicts '64:2' '(32,2):(2,1)' --bytes=8
# lane 1's pair starts at element 1: byte 4, not a multiple of 8
expect_error 'argument 2 (THREAD_LAYOUT)|not aligned' bank_conflicts '64:1' '(32,2):(1,1)' --bytes=8
expect_error 'argument 2 (THREAD_LAYOUT)|do not divide --bytes=4' bank_conflicts '64:1' '(32,3):(1,32)'
expect_error 'coalescing: expected 2 arguments, got 1' coalescing '64:1'
expect_error "coalescing: unknown option '--swizzle=3,3,3'" coalescing '64:1' '32:1' --swizzle=3,3,3

finish
