#!/usr/bin/env bash
# Bad input: every error is one line on stderr that starts with "loom-layout: ", names the op and
# the argument at fault (number, name and text), and gives a non-zero exit status; stdout stays
# empty. Fragments to find in the message are separated by '|'.
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect.sh" "$@"

# --- malformed notation (with the 1-based character position) -----------------------------------
expect_error "size: argument 1 (L) \"(4,,3):(1,4,4)\"|expected an integer, '_' or '('|at position 4" size '(4,,3):(1,4,4)'
expect_error "argument 1 (L)|unexpected end of input, expected ',' or ')' at position 5" size '(4,3'
expect_error "argument 1 (L)|expected ':' and a stride|at position 6" size '(4,3)'
expect_error "argument 1 (L)|after the end of the value at position 12" size '(4,3):(1,4)extra'
expect_error "argument 1 (L)|found 'a' at position 2" size '(a,3):(1,4)'
expect_error "argument 1 (L)|expected a digit after '-' at position 2" size -
expect_error "argument 1 (L) \"\"|unexpected end of input" size ''
expect_error "argument 1 (L)|integer out of range at position 1" size '99999999999999999999:1'
expect_error "argument 1 (L)|positive integer in the shape of a layout, found 0 at position 4" size '(4,0):(1,4)'
expect_error "argument 1 (L)|'_' is not allowed in the shape of a layout at position 4" size '(4,_):(1,4)'
expect_error "argument 1 (L)|'_' is not allowed in the stride of a layout at position 10" size '(4,3):(1,_)'
expect_error "composition: argument 2 (B) \"(2,4:(1,8)\"|not congruent at position 5" composition '(8,8):(1,8)' '(2,4:(1,8)'
expect_error "composition: argument 2 (B)|expected ',' or ')', found ':' at position 13" composition '(8,8):(1,8)' '((2,4):(1,8):3)'
expect_error "argument 2 (B)|the shape of a layout cannot contain a layout" composition '(8,8):(1,8)' '(2:1,4):(1,8)'
expect_error "argument 2 (B)|nesting too deep" composition 8:1 '((((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))))))'
expect_error "argument 2 (B)|too many elements in the tiler" composition 8:1 '(1,2,3,4,5,6,7,8,9)'
expect_error "argument 2 (B)|expected a positive tile size, found -3" composition 8:1 -3
expect_error "crd2idx: argument 1 (COORD)|'_' is not allowed in a coordinate" crd2idx '(1,_)' '(4,4)' '(1,4)'
expect_error "idx2crd: argument 2 (SHAPE)|positive integer in a shape" idx2crd 3 '(4,-4)'
expect_error "get_hier_coord: argument 2 (IDX) \"1.5\"" get_hier_coord 8:1 1.5
expect_error "swizzle: argument 4 (N) \"x\"|expected an integer" swizzle 2 0 3 x

# --- shape and stride not congruent -------------------------------------------------------------
expect_error "size: argument 1 (L) \"(4,3):(1)\"|shape (4,3) and stride (1) are not congruent" size '(4,3):(1)'
expect_error "argument 1 (L)|shape ((4,2),3) and stride (4,2,3) are not congruent" size '((4,2),3):(4,2,3)'
expect_error "crd2idx: argument 3 (STRIDE) \"(1,4,2)\"|shape (4,4) and stride (1,4,2) are not congruent" crd2idx '(1,3)' '(4,4)' '(1,4,2)'

# --- divisibility and other failures of the algebra (thrown by the core) ---------------------------
# (6,2):(8,2) o 5:3: the stride 3 falls inside the mode of 6 (allowed since CuTe 3.9), which leaves
# 2 elements there, and 2 does not divide 5
expect_error "composition: argument 2 (B) \"5:3\"|shape divisibility condition" composition '(6,2):(8,2)' 5:3
expect_error "composition: argument 2 (B)|the tiler has more modes than the layout" composition '(4,2):(2,1)' '(4:1,4:1,4:1)'
# (4,6):(1,5) o (6:1, ...): 6 elements of the mode of 4, and 4 does not divide 6
expect_error "logical_divide: argument 2 (TILER) \"6:1\"|shape divisibility condition" logical_divide '(4,6):(1,5)' 6:1
expect_error "zipped_divide: argument 2 (TILER)|shape divisibility condition" zipped_divide '(4,6):(1,5)' 6:1
expect_error "tiled_divide: argument 2 (TILER)|shape divisibility condition" tiled_divide '(4,6):(1,5)' 6:1
expect_error "flat_divide: argument 2 (TILER)|shape divisibility condition" flat_divide '(4,6):(1,5)' 6:1
# the stride 6 steps past the mode of 4 without being a multiple of it
expect_error "composition: argument 2 (B) \"2:6\"|stride divisibility condition" composition '(4,6):(1,5)' 2:6
# zipped_divide needs a rank-2 mode under every tiler leaf; `_` leaves mode 1 rank 1 (CuTe's
# zip2_by static_asserts there as well)
expect_error "zipped_divide: argument 2 (TILER) \"(2,_)\"|zip2_by" zipped_divide '(8,8):(1,8)' '(2,_)'
# complement((2,2):(1,4), 12) = (2,3):(2,8) cannot take 3:1 (2 does not divide 3)
expect_error "logical_product: argument 2 (B) \"3:1\"|shape divisibility condition" logical_product '(2,2):(1,4)' 3:1
expect_error "zipped_product: argument 2 (B)|shape divisibility condition" zipped_product '(2,2):(1,4)' 3:1
expect_error "tiled_product: argument 2 (B)|shape divisibility condition" tiled_product '(2,2):(1,4)' 3:1
expect_error "flat_product: argument 2 (B)|shape divisibility condition" flat_product '(2,2):(1,4)' 3:1
expect_error "blocked_product: argument 2 (B)|shape divisibility condition" blocked_product '(2,2):(1,4)' '3:1'
expect_error "raked_product: argument 2 (B)|shape divisibility condition" raked_product '(2,2):(1,4)' '3:1'
# A's only mode is the rank-1 tuple (2), while A* o B = (2,2):(1,4) has two modes: zipping them is a
# rank mismatch: the modes of block and tiler cannot be zipped (CuTe's zip static_asserts).
expect_error "blocked_product: argument 2 (B)|zip: mismatched ranks" blocked_product '(2):(2)' 4:1
expect_error "raked_product: argument 2 (B)|zip: mismatched ranks" raked_product '(2):(2)' 4:1
expect_error "complement: argument 1 (A) \"(2,2):(1,1)\"|not injective" complement '(2,2):(1,1)' 8
# left_inverse: sorted by stride, (8,2):(5,16) makes a gap mode 5:0 for stride 5, and 16 is not a
# multiple of the 5 covered so far
expect_error "left_inverse: argument 1 (L)|divisibility condition" left_inverse '(8,2,(2)):(5,0,(16))'
expect_error "coalesce: argument 2 (PROFILE) \"(1,1)\"|more modes than the layout" coalesce 8:1 '(1,1)'
expect_error "show: argument 1 (L)|rank 1 or 2" show '(2,2,2):(1,2,4)'
expect_error "local_tile: argument 2 (TILER) \"(4,4,4)\"" local_tile '(8,8):(1,8)' '(4,4,4)' '(1,0)'
expect_error "local_tile: argument 4 (STEP) \"(1,1,1)\"|step rank" local_tile '(8,8):(1,8)' '(4,4)' '(1,0)' '(1,1,1)'
# get_hier_coord divides by the strides: a size-2 mode of stride 0 has no inverse
expect_error "get_hier_coord: argument 1 (L)|division by zero" get_hier_coord '(4,2):(1,0)' 5

# --- coordinates that do not follow the shape; steps that drop everything -----------------------------
# (indices and coordinates past the size are not errors: CuTe lets the last mode take what remains,
# and thread indices wrap; tests/golden/cute_4_7_0.txt has such cases)
expect_error "crd2idx: argument 1 (COORD) \"(1,2,3)\"|does not follow the modes of the shape (4,4)" crd2idx '(1,2,3)' '(4,4)' '(1,4)'
expect_error "idx2crd: argument 1 (IDX) \"(1,2,3)\"|does not follow the modes of the shape (4,4)" idx2crd '(1,2,3)' '(4,4)'
expect_error "local_tile: argument 3 (COORD) \"(1,0,0)\"|more modes than the tiles" local_tile '(8,8):(1,8)' '(4,4)' '(1,0,0)'
expect_error "local_tile: argument 4 (STEP) \"(_,_)\"|drops every mode" local_tile '(8,8):(1,8)' '(4,4)' '(1,0)' '(_,_)'
expect_error "local_partition: argument 4 (STEP) \"(_,_)\"|drops every mode" local_partition '(8,8):(1,8)' '(2,4):(4,1)' 5 '(_,_)'

# --- unknown op, atom, option; wrong number of arguments ----------------------------------------------
expect_error "unknown op 'frobnicate'" frobnicate '8:1'
expect_error "unknown op ''" ''
expect_error "missing OP"
expect_error "unknown option '--bogus'" --bogus
expect_error "composition: unknown option '--foo'" composition --foo 8:1 8:1
expect_error "partition_C: argument 1 (ATOM) \"tf32\"|unknown MMA atom" partition_C tf32 '(1,1,1):(0,0,0)' _ '(4,4):(1,4)' 0
expect_error "partition_C: argument 1 (ATOM) \"sm90_64x12x32\"|N must be a multiple of 8 from 8 to 256, got 12" \
  partition_C sm90_64x12x32 '(2,1,1)' _ '(128,12)' 0
expect_error "partition_A: argument 1 (ATOM) \"sm90_64x264x16_rs\"|got 264" partition_A sm90_64x264x16_rs '(2,1,1)' _ '(128,64)' 0
expect_error "partition_B: argument 1 (ATOM) \"sm90_64x64x8\"|unknown MMA atom" partition_B sm90_64x64x8 '(2,1,1)' _ '(64,64)' 0
expect_error "partition_B: argument 1 (ATOM) \"sm90_64x064x32\"|unknown MMA atom" partition_B sm90_64x064x32 '(2,1,1)' _ '(64,64)' 0
expect_error "gmma_atom: argument 1 (MAJOR) \"t\"|MAJOR must be k or mn" gmma_atom t sw128 8
expect_error "gmma_atom: argument 2 (SWIZZLE) \"sw256\"|inter, sw32, sw64 or sw128" gmma_atom k sw256 8
expect_error "gmma_atom: argument 3 (BITS) \"4\"|BITS must be 8, 16 or 32" gmma_atom k sw128 4
expect_error "gmma_atom: argument 3 (BITS) \"x\"" gmma_atom k sw128 x
expect_error "gmma_atom: expected 3 arguments, got 2" gmma_atom k sw128
expect_error "partition_A: argument 2 (ATOM_LAYOUT)|more than 3 modes" partition_A fma '(2,2,1,1):(1,2,0,0)' _ '(4,4):(1,4)' 0
expect_error "partition_A: argument 3 (PERMUTATION)|more than 3 modes" partition_A fma '(2,2,1):(1,2,0)' '(4,4,4,4)' '(4,4):(1,4)' 0
expect_error "size: expected 1 argument, got 0|usage: loom-layout size L" size
expect_error "composition: expected 2 arguments, got 1|usage: loom-layout composition A B" composition 8:1
expect_error "composition: expected 2 arguments, got 3" composition 8:1 8:1 8:1
expect_error "coalesce: expected 1 to 2 arguments, got 3|coalesce L [PROFILE]" coalesce 8:1 1 1
expect_error "local_tile: expected 3 to 4 arguments, got 2" local_tile '(8,8):(1,8)' '(4,4)'
expect_error "swizzle: expected 4 arguments, got 3" swizzle 2 0 3
expect_error "partition_B: expected 5 arguments, got 4" partition_B fma 1:0 _ '(4,4):(1,4)'
# a negative number is an argument, not an option; here it is one too many
expect_error "swizzle: expected 4 arguments, got 5" swizzle 2 0 -3 4 -1

# --- swizzle parameters ---------------------------------------------------------------------------------
expect_error "swizzle: argument 1 (B) \"-1\"|B must be" swizzle -1 0 3 4
expect_error "swizzle: argument 2 (M) \"-1\"|M must be" swizzle 2 -1 3 4
expect_error "swizzle: argument 3 (S) \"2\"|S| must be in [B" swizzle 3 0 2 4
expect_error "swizzle: argument 3 (S) \"-2\"|S| must be in [B" swizzle 3 0 -2 4
expect_error "swizzle: argument 1 (B) \"4294967298\"|B must be" swizzle 4294967298 0 3 4
expect_error "swizzle: argument 1 (B) \"30\": B must be in [0, 23]" swizzle 30 0 30 4

# --- sizes that would flood the terminal or overflow ------------------------------------------------------
expect_error "apply: argument 1 (L) \"2000000:1\"|more than the limit of 1048576" apply 2000000:1
expect_error "show: argument 1 (L) \"(2048,1024):(1,2048)\"|more than the limit" show '(2048,1024):(1,2048)'
expect_error "swizzle: argument 4 (N) \"2000000\"|N must be in [0, 1048576]" swizzle 2 0 3 2000000
expect_error "swizzle: argument 4 (N) \"-1\"|N must be" swizzle 2 0 3 -1
expect_error "size: argument 1 (L)|does not fit in 64 bits" size '(65536,65536,65536,65536,2):(1,1,1,1,1)'

finish
