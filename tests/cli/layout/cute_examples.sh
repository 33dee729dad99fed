#!/usr/bin/env bash
# Examples published in NVIDIA CuTe's documentation (media/docs/cute/02_layout_algebra.md), with
# the results printed there, and the examples of layout/README.md (each re-derived by hand).
# CuTe prints static integers with a leading underscore (_12:_1); loom-layout does not.
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect.sh" "$@"

# --- 02_layout_algebra.md -------------------------------------------------------------------------
# Coalesce
expect 12:1 coalesce '(2,(1,6)):(1,(6,2))'
expect '(2,6):(1,2)' coalesce '(2,(1,6)):(1,(6,2))' '(1,1)'

# Composition
expect '((2,2),3):((24,2),8)' composition '(6,2):(8,2)' '(4,3):(3,1)'
# Example 1: 20:2 o (5,4):(4,1)
expect '(5,4):(8,2)' composition 20:2 '(5,4):(4,1)'
# Example 2, static case: (_5,(_2,_2)):(_16,(_80,_4))
expect '(5,(2,2)):(16,(80,4))' composition '(10,2):(16,4)' '(5,4):(1,5)'
# By-mode composition with the tiler <3:4, 8:2>: (_3,(2,4)):(236,(26,1))
expect '(3,(2,4)):(236,(26,1))' composition '(12,(4,8)):(59,(13,1))' '(3:4,8:2)'
# A shape as a tiler, <3:1, 8:1>: (_3,(4,2)):(59,(13,1))
expect '(3,(4,2)):(59,(13,1))' composition '(12,(4,8)):(59,(13,1))' '(3,8)'

# Complement
expect 6:4 complement 4:1 24
expect 4:1 complement 6:4 24
expect 1:0 complement '(4,6):(1,4)' 24
expect '(2,3):(1,8)' complement 4:2 24
expect 3:2 complement '(2,4):(1,6)' 24
expect '(3,2):(2,12)' complement '(2,2):(1,6)' 24

# Logical divide, 1-D: A = (4,2,3):(2,1,8), B = 4:2, B* = (2,3):(1,8). (Some revisions of the
# document print A as (2,4,3):(4,1,8), for which A o B is 4:1, not (2,2):(4,1); the result
# ((2,2),(2,3)):((4,1),(2,8)) belongs to (4,2,3):(2,1,8).)
expect '((2,2),(2,3)):((4,1),(2,8))' logical_divide '(4,2,3):(2,1,8)' 4:2
# Logical divide, 2-D: A = (9,(4,8)):(59,(13,1)), tiler <3:3, (2,4):(1,8)>. The document states the
# tile (the first mode of each mode) as (3,(2,4)):(236,(13,52)), which does not follow from these
# inputs: by definition mode 0 is 9:59 o 3:3 = 3:177, and mode 1 maps (i,j) to
# (4,8):(13,1)(i + 8j) = 13i + 2j, i.e. (2,4):(13,2). CuTe's algorithm gives the same as below.
#   mode 0: 9:59 o (3:3, complement(3:3, 9) = 3:1) = (3,3):(177,59)
#   mode 1: complement((2,4):(1,8), (4,8)) = 4:2 (offsets 2,4,6 fill the holes), and
#           (4,8):(13,1) o 4:2 = (2,2):(26,1)
expect '((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))' logical_divide '(9,(4,8)):(59,(13,1))' '(3:3,(2,4):(1,8))'
expect '(3,(2,4)):(177,(13,2))' composition '(9,(4,8)):(59,(13,1))' '(3:3,(2,4):(1,8))'
# zipped_divide of the same has sizes ((3,8),(3,4)) as the document says; its tile mode is the
# composition above
expect '((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))' zipped_divide '(9,(4,8)):(59,(13,1))' '(3:3,(2,4):(1,8))'

# Logical product, 1-D: A = (2,2):(4,1), B = 6:1, A* = (2,3):(2,8)
expect '((2,2),(2,3)):((4,1),(2,8))' logical_product '(2,2):(4,1)' 6:1
# Blocked and raked products: a 2x5 row-major block over a 3x4 column-major arrangement.
#   complement((2,5):(5,1), 10*12) = 12:10, o (3,4):(1,3) = (3,4):(10,30)
#   blocked: ((2,3),(5,4)):((5,10),(1,30)); CuTe 4.x does not coalesce the modes (the document's
#   (6,(5,4)) is the coalesced form printed by older CuTe)
expect '((2,3),(5,4)):((5,10),(1,30))' blocked_product '(2,5):(5,1)' '(3,4):(1,3)'
#   raked: ((3,2),(4,5)):((10,5),(30,1)), nothing coalesces
expect '((3,2),(4,5)):((10,5),(30,1))' raked_product '(2,5):(5,1)' '(3,4):(1,3)'

# --- layout/README.md "Operations, one example each" ------------------------------------------------
expect 24 size '(4,(2,3)):(2,(1,8))'
expect 24 cosize '(4,(2,3)):(2,(1,8))'
expect 2 rank '(4,(2,3)):(2,(1,8))'
expect 2 depth '(4,(2,3)):(2,(1,8))'
expect 19 crd2idx '(1,(1,2))' '(4,(2,3))' '(2,(1,8))'
expect '(1,(1,1))' idx2crd 13 '(4,(2,3))'
expect '(1,3)' get_flat_coord '(4,(2,3)):(1,(4,8))' 13
expect 6:1 filter '(4,2,3):(0,1,2)'
expect '(8,4):(4,1)' right_inverse '(4,8):(8,1)'
expect '(2,4):(4,1)' left_inverse '(4,2):(2,1)'
expect '((32,8),32):((1,32),256)' zipped_divide '(256,32):(1,256)' '(32,8):(1,32)'
expect '((4,4),2,2):((1,8),4,32)' tiled_divide '(8,8):(1,8)' '(4,4)'
expect '(4,4,2,2):(1,8,4,32)' flat_divide '(8,8):(1,8)' '(4,4)'
expect '((2,2),6):((1,2),4)' logical_product '(2,2):(1,2)' 6:1
expect '((2,3),(2,4)):((1,4),(2,12))' blocked_product '(2,2):(1,2)' '(3,4):(1,3)'
expect '((3,2),(4,2)):((4,1),(12,2))' raked_product '(2,2):(1,2)' '(3,4):(1,3)'
expect '(4,4):(1,8)@4' local_tile '(8,8):(1,8)' '(4,4)' '(1,0)'
expect '(4,4):(4,128)@80' local_partition '(16,32):(1,16)' '(4,8):(8,1)' 5
# Swizzle<3,3,3>: bits [6,9) into bits [3,6); 64..71 have bit 6 set -> XOR 8
expect 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,72,73,74,75,76,77,78,79 swizzle 3 3 3 72

finish
