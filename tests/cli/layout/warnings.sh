#!/usr/bin/env bash
# Where CuTe 4.7.0's answer breaks the op's own contract, loom-layout prints that answer, exit 0,
# and one stderr line `loom-layout: warning: OP: ...` naming the property (issue 25, item 4).
# Where the contract holds, stderr stays empty (every `expect` in the other scripts checks that too).
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect.sh" "$@"

# (2,2):(1,1) maps 1 and 2 both to 1, so no R gives both back; CuTe answers 2:2 (R(A(1)) = R(1) = 2).
expect_warning 2:2 'left_inverse: A is not injective (A(1) = A(2) = 1)' left_inverse '(2,2):(1,1)'
# (3,4):(4,2): A(1) = 4 = A(0 + 3*2) = 2*2
expect_warning '(2,2,3):(0,3,1)' 'left_inverse: A is not injective (A(1) = A(6) = 4)' left_inverse '(3,4):(4,2)'
# The tiler 12:5 steps 5 through the mode 6 of stride 5 without dividing it: R(2) = 1, A(B(2)) = A(10) = 21
expect_warning '((2,6),5):((25,1),5)' 'zipped_divide: |R(2) = 1, but A(B(2)) = A(10) = 21' zipped_divide '(6,3):(5,1)' 12:5
expect_warning '((2,6),5):((25,1),5)' 'logical_divide: |R(2) = 1' logical_divide '(6,3):(5,1)' 12:5
# The same divide under local_tile: the tile is the tiler's first tile
expect_warning '(2,6):(25,1)@0' 'local_tile: |R(2) = 1' local_tile '(6,3):(5,1)' 12:5 0
# composition: the README's own example, (4,4):(8,4) o 12:3 = (2,6):(24,4); A(B(2)) = A(6) = 8*2 + 4*1 = 20, R(2) = 4
expect_warning '(2,6):(24,4)' 'composition: R is not A o B point-wise: R(2) = 4, but A(B(2)) = A(6) = 20' composition '(4,4):(8,4)' 12:3
# a thread layout whose coordinates cannot be read back from its offsets: CuTe 4.7.0's partition
# (the same here) is that of coordinate (1,0), which the thread layout maps to 2, not to thread 3
expect_warning '(2,1):(8,0)@2' "local_partition: THR_LAYOUT's coordinates cannot be read back|index 3's coordinate (1,0) maps back to 2, not to 3" local_partition '(8,4):(2,16)' '(4,6):(2,6)' 3

# The contract holds: no warning.
expect '(2,4):(4,1)' left_inverse '(4,2):(2,1)'
expect '(2,4):(0,1)' left_inverse 4:2
expect '((32,8),32):((1,32),256)' zipped_divide '(256,32):(1,256)' '(32,8):(1,32)'
expect '(3,2):(2,12)' complement '(2,2):(1,6)' 24
expect '(8,4):(4,1)' right_inverse '(4,8):(8,1)'

finish
