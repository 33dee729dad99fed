#!/usr/bin/env bash
# loom-validate --save-workspace=none|incorrect|all and --workspace-dir. Without a GPU: bad values
# and an unusable directory are one line, exit 2, before the GPU is looked for. With a GPU (else
# Skipped, 77): =all writes A, B, C, D and the reference of every compared case as .npy files
# named after the case, the report names them (table line, csv column, json key), and the files
# read back (with numpy where it is installed: shapes, D against the reference, the reference
# against A, B, C); =incorrect writes nothing for passing cases.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh" "$@"

check() {  # name, file, regex
  if grep -Eq -- "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1: no /$3/ in:"; head -20 "$2"; FAILS=$((FAILS + 1)); fi
}
small=(--kernels=add --dtypes=f32 --layouts=ccc --m=7 --n=5)

expect_bad_input '--save-workspace is none, incorrect or all, found "maybe"' "${small[@]}" --save-workspace=maybe
expect_bad_input '--save-workspace is none, incorrect or all, found "always"' "${small[@]}" --save-workspace=always
expect_bad_input '--workspace-dir goes with --save-workspace' "${small[@]}" --workspace-dir="$TMP/ws"
expect_bad_input 'is not a directory' "${small[@]}" --save-workspace=all --workspace-dir="$TMP/missing/ws"
touch "$TMP/file"
expect_bad_input 'not a directory' "${small[@]}" --save-workspace=incorrect --workspace-dir="$TMP/file"
expect_bad_input '--workspace-dir' "${small[@]}" --save-workspace=all --workspace-dir=
"$VALIDATE" --help >"$TMP/out" 2>&1
check "--help: --save-workspace" "$TMP/out" '^ +--save-workspace '
check "--help: --workspace-dir" "$TMP/out" '^ +--workspace-dir '
# Good values pass the checks (enumerate runs nothing and creates nothing).
rc=0
"$VALIDATE" --mode=enumerate "${small[@]}" --save-workspace=all --workspace-dir="$TMP/new" >"$TMP/out" 2>"$TMP/err" || rc=$?
if [[ $rc -eq 0 && ! -e $TMP/new ]]; then echo "ok   enumerate takes them, creates nothing"; else echo "FAIL enumerate: exit $rc, $(cat "$TMP/err")"; FAILS=$((FAILS + 1)); fi

if ! gpu_present; then
  echo "skipped: no GPU for the runs"
  [[ $FAILS -eq 0 ]] && exit 77
  finish
fi

# add (A, B, D, ref; no C) and fma gemm (A, B, C, D, ref), padded and misaligned, beta != 0.
ws=$TMP/ws
rc=0
"$VALIDATE" --kernels=add,fma --dtypes=f32 --layouts=crc --m=7 --n=5 --k=3 --ld-pad=2 --misalign=1 --alpha=1.5 --beta=-0.5 \
  --save-workspace=all --workspace-dir="$ws" >"$TMP/out" 2>"$TMP/err" || rc=$?
[[ $rc -eq 0 ]] || { echo "FAIL run: exit $rc: $(tail -3 "$TMP/err")"; FAILS=$((FAILS + 1)); }
add_name=add_f32_crc_7x5x0_ld9-7-9_mis1_alpha1.5_beta-0.5
fma_name=fma_f32_crc_7x5x3_ld9-7-9_mis1_alpha1.5_beta-0.5
check "table: add's files" "$TMP/out" "^  workspace: $ws/$add_name\\.\\{A,B,D,ref\\}\\.npy\$"
check "table: fma's files" "$TMP/out" "^  workspace: $ws/${fma_name}\\.\\{A,B,C,D,ref\\}\\.npy\$"
for f in "$add_name".{A,B,D,ref} "$fma_name".{A,B,C,D,ref}; do
  if [[ -s $ws/$f.npy ]]; then echo "ok   $f.npy"; else echo "FAIL no $ws/$f.npy"; FAILS=$((FAILS + 1)); fi
done
if command -v python3 >/dev/null 2>&1 && python3 -c 'import numpy' 2>/dev/null; then
  if python3 - "$ws" "$add_name" "$fma_name" <<'PY'; then echo "ok   numpy reads them"; else FAILS=$((FAILS + 1)); fi
import sys
import numpy as np
ws, add, fma = sys.argv[1:]
ld = lambda n, p: np.load(f"{ws}/{n}.{p}.npy")
A, B, D, R = (ld(add, p) for p in ("A", "B", "D", "ref"))
assert A.shape == B.shape == D.shape == R.shape == (7, 5) and A.dtype == np.float64, (A.shape, A.dtype)
assert np.allclose(R, 1.5 * A - 0.5 * B, rtol=1e-6, atol=1e-6) and np.allclose(D, R, rtol=1e-5, atol=1e-6)
A, B, C, D, R = (ld(fma, p) for p in ("A", "B", "C", "D", "ref"))
assert A.shape == (7, 3) and B.shape == (3, 5) and C.shape == D.shape == R.shape == (7, 5), (A.shape, B.shape, C.shape)
assert np.allclose(R, 1.5 * A @ B - 0.5 * C, rtol=1e-5, atol=1e-6) and np.allclose(D, R, rtol=1e-5, atol=1e-5)
PY
else
  head -c 6 "$ws/$add_name.A.npy" | od -c | head -1 | grep -q 'N   U   M   P   Y' && echo "ok   .npy magic (no numpy here)" \
    || { echo "FAIL not a .npy file"; FAILS=$((FAILS + 1)); }
fi
"$VALIDATE" --kernels=add --dtypes=f32 --layouts=ccc --m=7 --n=5 --ld-pad=0 --misalign=0 --alpha=1 --beta=0 \
  --save-workspace=all --workspace-dir="$ws" --format=csv >"$TMP/out" 2>"$TMP/err"
check "csv: the workspace column" "$TMP/out" '^kernel,.*,repro,workspace,device,device_name,pci_bus_id$'
# B of add is M x N like A (ld 7 in ccc); the field holds commas, so CSV quotes it. The GPU's
# columns follow: ordinal, name, PCI bus id.
check "csv: the files" "$TMP/out" "^add,.*,\"$ws/add_f32_ccc_7x5x0_ld7-7-7_mis0_alpha1_beta0\\.\\{A,B,D,ref\\}\\.npy\",0,[^,]+,[0-9A-Fa-f:.]+\$"
"$VALIDATE" --kernels=add --dtypes=f32 --layouts=ccc --m=7 --n=5 --ld-pad=0 --misalign=0 --alpha=1 --beta=0 \
  --save-workspace=all --workspace-dir="$ws" --format=json >"$TMP/out" 2>"$TMP/err"
check "json: the workspace key" "$TMP/out" '"workspace": ".*\.\{A,B,D,ref\}\.npy"'
# =incorrect: passing cases write nothing, and their report has no workspace line.
"$VALIDATE" "${small[@]}" --save-workspace=incorrect --workspace-dir="$TMP/inc" >"$TMP/out" 2>"$TMP/err"
if [[ -d $TMP/inc && -z $(ls -A "$TMP/inc") ]] && ! grep -q 'workspace:' "$TMP/out"; then
  echo "ok   =incorrect: nothing for passing cases"
else
  echo "FAIL =incorrect wrote: $(ls -A "$TMP/inc" 2>&1 | head -3)"; FAILS=$((FAILS + 1))
fi
finish
