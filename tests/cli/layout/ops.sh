#!/usr/bin/env bash
# Every op of loom-layout on at least one input, with the expected output derived by hand from the
# definitions (the derivation is in the comment above each check). Published CuTe examples are in
# cute_examples.sh.
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect.sh" "$@"

# --- size, cosize, rank, depth ------------------------------------------------------------------
expect 32 size '(4,8):(1,4)'
# last element (3,7) -> 3*1 + 7*8 = 59, plus one
expect 60 cosize '(4,8):(1,8)'
# |strides| are used: (3,1) -> 3*2 + 1*3 = 9, plus one
expect 10 cosize '(4,2):(-2,3)'
expect 2 rank '((4,2),8):((1,32),4)'
expect 1 rank 8:1
expect 2 depth '((4,2),8):((1,32),4)'
expect 0 depth 8:1
expect 1 depth '(8):(1)'

# --- apply: i -> (i%2)*3 + (i/2)*1 ---------------------------------------------------------------
expect 0,3,1,4,2,5 apply '(2,3):(3,1)'
# a 1-D coordinate into a nested shape splits colexicographically: 5 -> (1,(0,1)) -> 1 + 8
expect 0,1,4,5,8,9,12,13 apply '(2,(2,2)):(1,(4,8))'

# --- coalesce, filter ----------------------------------------------------------------------------
# 4:1 ++ 2:4 merge (4*1 == 4), then ++ 3:8 (8*1 == 8)
expect 24:1 coalesce '(4,(2,3)):(1,(4,8))'
# 2:1 ++ 3:4 cannot merge (2*1 != 4)
expect '(2,3):(1,4)' coalesce '(2,3):(1,4)'
# by mode: mode 0 (2,2):(1,2) -> 4:1, mode 1 stays 3:8
expect '(4,3):(1,8)' coalesce '((2,2),3):((1,2),8)' '(1,1)'
# a static size-1 layout coalesces to 1:0
expect 1:0 coalesce '(1,1):(3,5)'
# the stride-0 mode becomes size 1 and disappears; 4:1 and 3:8 do not merge
expect '(4,3):(1,8)' filter '(4,2,3):(1,0,8)'
expect 1:0 filter '(4,2):(0,0)'

# --- composition ---------------------------------------------------------------------------------
# A = 12:1 is integral, so A o B = B with strides scaled by 1
expect '(4,3):(3,1)' composition 12:1 '(4,3):(3,1)'
# by-mode tiler <3:3, 2:1>: 8:1 o 3:3 = 3:3 and 3:8 o 2:1 = 2:8
expect '(3,2):(3,8)' composition '(8,3):(1,8)' '(3:3,2:1)'
# shape tiler (4,2) = <4:1, 2:1>: keeps the first 4 rows and 2 columns
expect '(4,2):(1,8)' composition '(8,8):(1,8)' '(4,2)'
# `_` leaves mode 1 alone
expect '(2,8):(1,8)' composition '(8,8):(1,8)' '(2,_)'
# (4,2):(2,1) coalesces no further; o 8:1 keeps it whole; o 4:2 picks offsets 0,4,1,5 = (2,2):(4,1)
expect '(2,2):(4,1)' composition '(4,2):(2,1)' 4:2

# --- complement -----------------------------------------------------------------------------------
# cotarget defaults to cosize(A) = 1 + 6 + 1 = 8: the gap [2,6) gives 3:2, nothing is left to repeat
expect 3:2 complement '(2,2):(1,6)'
# 4:2 in 16: fill the hole with 2:1, then repeat 2 times with stride 8
expect '(2,2):(1,8)' complement 4:2 16
# a shape cotarget (4,6) has size 24, like the integer 24
expect '(2,3):(1,8)' complement 4:2 '(4,6)'
# stride-0 A: the complement is the cotarget itself
expect 12:1 complement 4:0 12

# --- inverses --------------------------------------------------------------------------------------
# strides 1 (shape 8, new stride 4) then 8 (shape 4, new stride 1)
expect '(8,4):(4,1)' right_inverse '(4,8):(8,1)'
# the inverse of a permutation of 2 bits
expect '(2,2):(2,1)' right_inverse '(2,2):(2,1)'
# no stride 1: only index 0 can be inverted
expect 1:0 right_inverse '4:2'
# A = (4,2):(2,1), complement is 1:0: right_inverse of (4,2):(2,1) -> strides 1 (shape 2) then 2
expect '(2,4):(4,1)' left_inverse '(4,2):(2,1)'
# A = 4:2 reaches only even offsets: the gap below stride 2 becomes a mode 2:0 (an odd offset maps
# to the even one below it, as in CuTe 4.x), then 4:1
expect '(2,4):(0,1)' left_inverse 4:2

# --- divides (A = (8,8):(1,8), tiler (2,4)) ---------------------------------------------------------
# mode 0: 8:1 o (2:1, complement 4:2) = (2,4):(1,2); mode 1: 8:8 o (4:1, 2:4) = (4,2):(8,32)
expect '((2,4),(4,2)):((1,2),(8,32))' logical_divide '(8,8):(1,8)' '(2,4)'
expect '((2,4),(4,2)):((1,8),(2,32))' zipped_divide '(8,8):(1,8)' '(2,4)'
expect '((2,4),4,2):((1,8),2,32)' tiled_divide '(8,8):(1,8)' '(2,4)'
expect '(2,4,4,2):(1,8,2,32)' flat_divide '(8,8):(1,8)' '(2,4)'
# a single-layout tiler on a 2-D layout: A coalesces to 64:1, complement(4:1, (8,8)) = 16:4
expect '(4,16):(1,4)' logical_divide '(8,8):(1,8)' 4:1
# tiler with a `_` mode: mode 1 is left as it is (zipped_divide rejects this: see errors.sh)
expect '((2,4),8):((1,2),8)' logical_divide '(8,8):(1,8)' '(2,_)'
# a tiler with fewer modes than A: mode 1 is rest
expect '((2),(4,8)):((1),(2,8))' zipped_divide '(8,8):(1,8)' '(2)'

# --- products -----------------------------------------------------------------------------------------
# 1-D: complement(2:1, 2*3) = 3:2, o 3:1 = 3:2
expect '(2,3):(1,2)' logical_product 2:1 3:1
# by mode, A = (2,2):(1,2), B = <3:1, 4:1>
#   mode 0: 2:1 x 3:1 = (2,3):(1,2)
#   mode 1: 2:2 x 4:1: complement(2:2, 8) = (2,2):(1,4), o 4:1 = (2,2):(1,4)
expect '((2,3),(2,(2,2))):((1,2),(2,(1,4)))' logical_product '(2,2):(1,2)' '(3:1,4:1)'
expect '((2,2),(3,(2,2))):((1,2),(2,(1,4)))' zipped_product '(2,2):(1,2)' '(3:1,4:1)'
expect '((2,2),3,(2,2)):((1,2),2,(1,4))' tiled_product '(2,2):(1,2)' '(3:1,4:1)'
expect '(2,2,3,(2,2)):(1,2,2,(1,4))' flat_product '(2,2):(1,2)' '(3:1,4:1)'
# A = (2,2):(1,2), B = (3,4):(1,3): complement(A, 4*12) = 12:4, o B = (3,4):(4,12);
# blocked zips (A0,B0),(A1,B1) = ((2,3),(2,4)):((1,4),(2,12)), nothing coalesces
expect '((2,3),(2,4)):((1,4),(2,12))' blocked_product '(2,2):(1,2)' '(3,4):(1,3)'
# raked zips (B0,A0),(B1,A1)
expect '((3,2),(4,2)):((4,1),(12,2))' raked_product '(2,2):(1,2)' '(3,4):(1,3)'
# ranks differ: B = 3:1 is padded to (3,1):(1,0); complement(A, 4*3) = 3:4;
# mode 0 (2,3):(1,4), mode 1 (2,1):(2,0), not coalesced (CuTe 4.x keeps each mode's structure)
expect '((2,3),(2,1)):((1,4),(2,0))' blocked_product '(2,2):(1,2)' 3:1

# --- coordinates ---------------------------------------------------------------------------------------
expect 9 crd2idx '(1,2)' '(4,8)' '(1,4)'
expect 10 crd2idx '(1,2)' '(4,8)' '(8,1)'
# an integer coordinate is split: 9 -> (1,2)
expect 10 crd2idx 9 '(4,8)' '(8,1)'
# hierarchical: 1*2 + (1*1 + 2*8)
expect 19 crd2idx '(1,(1,2))' '(4,(2,3))' '(2,(1,8))'
expect '(1,2)' idx2crd 9 '(4,8)'
# 13 -> (13%4, (13/4%2, 13/8%3)) = (1,(1,1))
expect '(1,(1,1))' idx2crd 13 '(4,(2,3))'
expect 7 idx2crd 7 8
expect '(1,(1,1))' get_hier_coord '(4,(2,4)):(1,(4,8))' 13
# flat: mode 1 (1,1) in (2,4) -> 1 + 2*1 = 3
expect '(1,3)' get_flat_coord '(4,(2,4)):(1,(4,8))' 13
# hier: (13/8%4, (13/1%2, 13/2%4)) = (1,(1,2)); 1-D: 1 + 4*(1 + 2*2) = 21; check L(21) = 8 + 1 + 4 = 13
expect 21 get_1d_coord '(4,(2,4)):(8,(1,2))' 13
# row-major (4,8):(8,1): offset 13 is row 1, column 5 -> column-major index 1 + 4*5 = 21
expect '(1,5)' get_hier_coord '(4,8):(8,1)' 13
expect 21 get_1d_coord '(4,8):(8,1)' 13

# --- local_tile ----------------------------------------------------------------------------------------
# zipped_divide((8,8):(1,8), (4,4)) = ((4,4),(2,2)):((1,8),(4,32)); tile (1,0) starts at 4
expect '(4,4):(1,8)@4' local_tile '(8,8):(1,8)' '(4,4)' '(1,0)'
# an integer coordinate indexes the rest modes colexicographically: 3 -> (1,1) -> 4 + 32
expect '(4,4):(1,8)@36' local_tile '(8,8):(1,8)' '(4,4)' 3
# `_` in the coordinate keeps that rest mode
expect '(4,4,2):(1,8,32)@4' local_tile '(8,8):(1,8)' '(4,4)' '(1,_)'
# GEMM A tile: (M,K) = (256,64) column-major, CTA tiler (128,128,32), coord (1,0,_), Step (1,X,1):
# tiler (128,32), coord (1,_): ((128,32),(2,2)):((1,256),(128,8192)) -> (128,32,2) at 128
expect '(128,32,2):(1,256,8192)@128' local_tile '(256,64):(1,256)' '(128,128,32)' '(1,0,_)' '(1,_,1)'

# --- local_partition --------------------------------------------------------------------------------------
# threads (2,4):(4,1), thread 5 is at (1,1); tiles of (2,4): ((2,4),(4,2)):((1,8),(2,32))
expect '(4,2):(2,32)@9' local_partition '(8,8):(1,8)' '(2,4):(4,1)' 5
# threads (4,8):(8,1), thread 5 at (0,5): ((4,8),(4,4)):((1,16),(4,128)) -> offset 5*16
expect '(4,4):(4,128)@80' local_partition '(16,32):(1,16)' '(4,8):(8,1)' 5
# with a projection that keeps every mode, the same as without
expect '(4,2):(2,32)@9' local_partition '(8,8):(1,8)' '(2,4):(4,1)' 5 '(1,1)'
# Step (1,X): the thread layout becomes (2):(4); thread 5 -> (5/4)%2 = 1; tiles ((2),(4,8))
# The index counts threads of the full layout (CuTe's own example runs 32 threads over a
# projection of size 2), so every thread of the full layout is valid here.
expect '(4,8):(2,8)@1' local_partition '(8,8):(1,8)' '(2,4):(4,1)' 5 '(1,_)'
# thread 1 is inside the diced size either way
expect '(4,8):(2,8)@0' local_partition '(8,8):(1,8)' '(2,4):(4,1)' 1 '(1,_)'

# --- swizzle ---------------------------------------------------------------------------------------------
# Swizzle<2,0,3>: bits [3,5) XOR into bits [0,2)
expect 0,1,2,3,4,5,6,7,9,8,11,10,13,12,15,14,18,19,16,17,22,23,20,21,27,26,25,24,31,30,29,28 swizzle 2 0 3 32
# negative shift: bits [0,2) XOR into bits [3,5): x ^ ((x & 3) << 3)
expect 0,9,18,27,4,13,22,31,8,1,26,19,12,5,30,23 swizzle 2 0 -3 16
# B = 0 is the identity
expect 0,1,2,3 swizzle 0 0 0 4
expect '' swizzle 3 3 3 0

# --- partition_A/B/C ------------------------------------------------------------------------------------
# The tensor is a kernel's: its integers are run-time ints (CuTe 4.7.0's answers in
# tests/golden/cute_4_7_0.txt are for that tensor), so a rest mode of extent 1 keeps its stride
# where an all-static tensor would give a static stride 0.
# FMA atom, 2x2x1 atoms (2,2,1):(1,2,0), no permutation: the thread layout (V,M,N,K) is
# (1,2,2,1):(0,1,2,0). C (4,4):(1,4) splits as ((1,(2,2)),(1,(2,2))):((0,(1,4)),(0,(2,8)));
# thread 1 is (m,n) = (1,0): its elements are rows {1,3} x columns {0,2}.
expect '(1,2,2):(0,2,8)@1' partition_C fma '(2,2,1):(1,2,0)' _ '(4,4):(1,4)' 1
# A (M,K) = (4,4):(1,4): threads split M only (ThrK = 1); thread 1 -> m = 1, thread 2 -> m = 0
expect '(1,2,4):(0,2,4)@1' partition_A fma '(2,2,1):(1,2,0)' _ '(4,4):(1,4)' 1
expect '(1,2,4):(0,2,4)@0' partition_A fma '(2,2,1):(1,2,0)' _ '(4,4):(1,4)' 2
# B (N,K): thread 2 -> n = 1
expect '(1,2,4):(0,2,4)@1' partition_B fma '(2,2,1):(1,2,0)' _ '(4,4):(1,4)' 2
# a shape for the atom layout means make_layout(shape): (2,2,1):(1,2,0)
expect '(1,2,2):(0,2,8)@1' partition_C fma '(2,2,1)' _ '(4,4):(1,4)' 1
# m16n8k16 C fragment, one atom, C = (16,8) column-major: lane l holds (l/4, 2(l%4)+{0,1}) and
# the same 8 rows down; values ((2,2)) step 16 (next column) and 8 (row + 8).
# lane 0 starts at 0; lane 5 at row 1, column 2 -> 1 + 2*16 = 33
expect '((2,2),1,1):((16,8),16,128)@0' partition_C sm80_16x8x16 1:0 _ '(16,8):(1,16)' 0
expect '((2,2),1,1):((16,8),16,128)@33' partition_C sm80_16x8x16 1:0 _ '(16,8):(1,16)' 5
# The issue's reference case: 16x16 FMA atoms with a (16,4):(4,1) permutation of M and N.
expect '(1,(4,2),(4,2)):(0,(128,8192),(1,64))@4' \
  partition_C fma '(16,16,1):(16,1,0)' '((16,4):(4,1),(16,4):(4,1),_)' '(128,128):(128,1)' 1
# Issue 25, item 4: m16n8k16 atoms 2x2x1 with the permutation (32,32,16) on (64,64):(64,1). C's
# 64 columns are 2 permutation tiles of 32 (stride 32), each 8 per atom x 2 atoms in N x 2 repeats
# (stride 16): the rest of N is (2,2):(16,32), nested as CuTe keeps it for a run-time tensor (an
# all-Int<N> tensor gives the flat 4:16).
expect '((2,2),2,(2,2)):((1,512),2048,(16,32))@0' partition_C sm80_16x8x16 '(2,2,1)' '(32,32,16)' '(64,64):(64,1)' 0
expect '((2,2),(2,2),4):((1,8),(1024,2048),16)@66' partition_B sm80_16x8x16 '(2,2,1)' '(32,32,16)' '(64,64):(64,1)' 37

# wgmma atoms. m64nNk32 (8-bit A and B): C is the m64nNk16 fragment. Thread 130 is thread 2 of
# warpgroup 1 (rows 64-127): lane 2 holds row 0 of its warp, columns 2(2%4) = 4, 5: offset 64 + 4*128.
expect '((2,2,8),1,1):((128,8,1024),128,8192)@576' partition_C sm90_64x64x32 '(2,1,1)' _ '(128,64)' 130
expect '((2,2,8),1,1):((128,8,1024),128,8192)@576' partition_C sm90_64x64x16 '(2,1,1)' _ '(128,64)' 130
# A and B from shared memory: every thread of a warpgroup sees its whole 64 x 32 slab (32 of K, where
# 16-bit inputs have 16); warpgroup 1 starts at row 64, k-blocks 32 columns apart.
expect '((64,32),1,4):((1,128),128,4096)@64' partition_A sm90_64x64x32 '(2,1,1)' _ '(128,128)' 130
expect '((64,16),1,4):((1,128),128,2048)@64' partition_A sm90_64x64x16 '(2,1,1)' _ '(128,64)' 130
# A from registers, 8-bit: four consecutive k per register. Thread 201 = warpgroup 1, warp 2, lane 9:
# row 64 + 32 + 9/4 = 98, k 4(9%4) = 4: 98 + 4*128 = 610.
expect '((4,2,2),1,4):((128,8,2048),128,4096)@610' partition_A sm90_64x64x32_rs '(2,1,1)' _ '(128,128)' 201

# --- gmma_atom -----------------------------------------------------------------------------------
# CuTe's GMMA::Layout_*_Atom<T> with the swizzle on element offsets: the 8-bit K-major 128-byte atom
# holds 128 elements of K per row (CuTe: Sw<3,4,3> o smem_ptr[8b] o (8,128):(128,1)).
expect 'Sw<3,4,3> o (8,128):(128,1)' gmma_atom k sw128 8
expect 'Sw<2,4,3> o (8,64):(64,1)' gmma_atom k sw64 8
expect 'Sw<1,4,3> o (8,32):(32,1)' gmma_atom k sw32 8
expect 'Sw<0,4,3> o (8,16):(16,1)' gmma_atom k inter 8
expect 'Sw<3,3,3> o (8,64):(64,1)' gmma_atom k sw128 16
expect 'Sw<3,3,3> o (64,8):(1,64)' gmma_atom mn sw128 16
expect 'Sw<3,2,3> o (8,32):(32,1)' gmma_atom k sw128 32
# An mn atom of 8-bit elements is a layout too (wgmma cannot read it; make_gmma_desc refuses it).
expect 'Sw<3,4,3> o (128,8):(1,128)' gmma_atom mn sw128 8

# --- tma_partition -------------------------------------------------------------------------------
# Expected outputs are CuTe 4.7.0's (cute::tma_partition on the same layouts, host-only, NumValSrc
# from make_tma_atom; see tests/test_layout_tma.cpp), underscores dropped, offsets from the inputs'.
# K-major bf16 stage (128,64) x 3 under the 128B swizzle: right_inverse of mode 0 is (64,128):(128,1),
# one instruction of 8192 values per stage; the gmem tile walks K (1@0) then M (1@1).
sk='Sw<3,3,3> o (((8,16),(64,1)),(1,3)):(((64,512),(1,0)),(0,8192))'
gk='((128,64),16):((1@1,1@0),64@0)'
expect 'Sw<3,3,3> o 0 o ((8192,1),(1,3)):((1,0),(0,8192))
(((64,128),1),16):(((1@0,1@1),0),64@0)@(0,0)' tma_partition 8192 0 1:0 "$sk" "$gk"
# multicast to 2 CTAs: CTA 1 starts at TMA index 1 * 8192/2 = 4096 = row 64 of the tile
expect 'Sw<3,3,3> o 4096 o ((8192,1),(1,3)):((1,0),(0,8192))
(((64,128),1),16):(((1@0,1@1),0),64@0)@(0,64)' tma_partition 8192 1 2:1 "$sk" "$gk"
# cosize(2:2) = 3: 2 * (8192/3) = 5460 = (20, 85) in the (64,128) TMA mode
expect 'Sw<3,3,3> o 5460 o ((8192,1),(1,3)):((1,0),(0,8192))
(((64,128),1),16):(((1@0,1@1),0),64@0)@(20,85)' tma_partition 8192 1 2:2 "$sk" "$gk"
# an offset in the input is kept; (1,1) in (2,2):(1,2) is id 3: 512 + 3 * 8192/4
expect 'Sw<3,3,3> o 6656 o ((8192,1),(1,3)):((1,0),(0,8192))
(((64,128),1),16):(((1@0,1@1),0),64@0)@(0,96)' tma_partition 8192 '(1,1)' '(2,2):(1,2)' \
  'Sw<3,3,3> o 512 o (((8,16),(64,1)),(1,3)):(((64,512),(1,0)),(0,8192))' "$gk"
# a smaller instruction (512 values): 16 per stage
expect 'Sw<3,3,3> o 0 o ((512,16),(1,3)):((1,512),(0,8192))
(((64,8),16),16):(((1@0,1@1),8@1),64@0)@(0,0)' tma_partition 512 0 1:0 "$sk" "$gk"
# MN-major stage: the box is (64,8), NumValSrc 512
expect 'Sw<3,3,3> o 0 o ((512,16),(1,3)):((1,512),(0,8192))
(((64,8),(2,8)),16):(((1@0,1@1),(64@0,8@1)),64@1)@(0,0)' \
  tma_partition 512 0 1:0 'Sw<3,3,3> o (((64,2),(8,8)),(1,3)):(((1,512),(64,1024)),(0,8192))' '((128,64),16):((1@0,1@1),64@1)'
# no swizzle: L@OFFSET; a gmem of plain offsets moves by an offset (row 32 of 256: 8192)
expect '((2048,1),2):((1,0),2048)@1024
(((32,64),1),8):(((1,256),0),32)@8192' tma_partition 2048 1 2 '((64,32),2):((32,1),2048)' '((64,32),8):((256,1),32)'
# padded rows (pitch 72): the vector is 64 long and tiles over the 8 rows
expect '(((64,2),4),2):(((1,72),144),1024)@72
(((64,2),4),4):(((1@0,1@1),2@1),8@1)@(0,1)' tma_partition 128 1 2:1 '((64,8),2):((1,72),1024)' '((64,8),4):((1@0,1@1),8@1)'
# rank-1 tensors
expect '((256,2)):((1,256))@128
((256,2)):((1@0,256@0))@(128)' tma_partition 256 1 2:1 512:1 512:1@0
# errors
expect_error 'tma_partition|CTA_COORD|outside CTA_LAYOUT 2:1' tma_partition 8192 2 2:1 "$sk" "$gk"
expect_error 'tma_partition|CTA_COORD|outside CTA_LAYOUT' tma_partition 8192 '(0,2)' '(2,2):(1,2)' "$sk" "$gk"
expect_error 'tma_partition|CTA_COORD|outside CTA_LAYOUT' tma_partition 8192 -1 2:1 "$sk" "$gk"
expect_error 'tma_partition|NUM_VAL_SRC|does not divide the TMA tile' tma_partition 3000 0 1:0 "$sk" "$gk"
expect_error 'tma_partition|NUM_VAL_SRC|positive' tma_partition 0 0 1:0 "$sk" "$gk"
expect_error 'tma_partition|GMEM|mode 0 of GMEM has 4096 elements' tma_partition 8192 0 1:0 "$sk" '((128,32),16):((1@1,1@0),32@0)'
expect_error 'tma_partition|SMEM|expected' tma_partition 8192 0 1:0 'Sw<3,3 o (8,8):(8,1)' "$gk"
expect_error 'tma_partition|SMEM|expected' tma_partition 8192 0 1:0 'Sw<3,3,3> (8,8):(8,1)' "$gk"
expect_error 'tma_partition|SMEM|swizzle' tma_partition 8192 0 1:0 'Sw<3,3,2> o (8,8):(8,1)' "$gk"
expect_error 'tma_partition|GMEM|0..4' tma_partition 8192 0 1:0 "$sk" '((128,64),16):((1@1,1@7),64@0)'
expect_error 'tma_partition|GMEM|stride only' tma_partition 8192 0 1:0 "$sk" '((128@1,64),16):((1@1,1@0),64@0)'
expect_error 'tma_partition|GMEM|position' tma_partition 8192 0 1:0 "$sk" '((128,64),16):((1@1,1@0),64@0'
expect_error 'tma_partition|expected 5 arguments, got 4' tma_partition 8192 0 1:0 "$sk"

# --- show -------------------------------------------------------------------------------------------------
expect "(2,3):(3,1)
      0   1   2 
    +---+---+---+
 0  | 0 | 1 | 2 |
    +---+---+---+
 1  | 3 | 4 | 5 |
    +---+---+---+" show '(2,3):(3,1)'
# rank 1 prints one column; cosize 13 is two digits wide
expect "4:4
       0 
    +----+
 0  |  0 |
    +----+
 1  |  4 |
    +----+
 2  |  8 |
    +----+
 3  | 12 |
    +----+" show 4:4

finish
