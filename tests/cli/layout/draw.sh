#!/usr/bin/env bash
# loom-layout draw: the SVG parses as XML, and its cells and labels are the layout's (small cases
# derived by hand); --latex gives a TikZ document; --output writes the file; errors.
source "$(dirname "${BASH_SOURCE[0]}")/lib/expect.sh" "$@"

PY=$(command -v python3 || true)
if [[ -z $PY ]]; then
  echo "python3 not found: the SVG checks need it"
  exit 1
fi

# svg_cells ARGS...: parses loom-layout draw ARGS as XML and prints, per panel, its title and then
# "count: N" and the cells' labels row by row (two-line labels joined by '/', empty cells as '.').
svg_cells() {
  "$LOOM" draw "$@" >"$_tmp/svg" 2>"$_tmp/err" || return 1
  [[ -s $_tmp/err ]] && return 1
  "$PY" - "$_tmp/svg" <<'PYEOF'
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
for g in root.findall("s:g", ns):
    title = g.find("s:text[@class='title']", ns).text
    rects = g.findall("s:rect[@class='cell']", ns)
    labels = g.findall("s:text[@class='label']", ns)
    assert len(rects) == len(labels), "a label per cell"
    ys = sorted({float(r.get("y")) for r in rects})
    rows = {y: [] for y in ys}
    for r, t in zip(rects, labels):
        parts = [p.text or "" for p in t.findall("s:tspan", ns)] or [t.text or ""]
        rows[float(r.get("y"))].append("/".join(parts) or ".")
    print(title)
    print("count: %d" % len(rects))
    for y in ys:
        print(" ".join(rows[y]))
PYEOF
}

# expect_svg 'EXPECTED' ARGS...: the parsed picture (see svg_cells) is EXPECTED.
expect_svg() {
  local want=$1
  shift
  _checks=$((_checks + 1))
  local got
  if ! got=$(svg_cells "$@" 2>&1); then
    _fail "draw $(_show_args "$@")" "not a valid SVG (or stderr not empty): $got $(cat "$_tmp/err")"
  elif [[ $got != "$want" ]]; then
    _fail "draw $(_show_args "$@")" "want: ${want//$'\n'/ | }" "got:  ${got//$'\n'/ | }"
  else
    echo "ok:   loom-layout draw $(_show_args "$@")  ->  ${got//$'\n'/ | }"
  fi
}

# (2,4):(4,1): row r, column c holds 4r + c.
expect_svg '(2,4):(4,1)
count: 8
0 1 2 3
4 5 6 7' '(2,4):(4,1)'
# Rank 1: one column.
expect_svg '3:2
count: 3
0
2
4' '3:2'
# A TV layout of 4 threads x 2 values over a 2x4 tile, column-major: thread t holds indices 2t, 2t+1
# (column t), value v is row v.
expect_svg '(4,2):(2,1) over (2,4)
count: 8
T0/V0 T1/V0 T2/V0 T3/V0
T0/V1 T1/V1 T2/V1 T3/V1' '(4,2):(2,1)' '(2,4)'
# A thread stride of 0: every thread holds the same cell; the first one shows, the rest stay white.
expect_svg '(2,1):(0,0) over (1,2)
count: 2
T0/V0 .' '(2,1):(0,0)' '(1,2)'
# The FMA atom 2x1x1: A (2x1) is thread m's, B (1x1) both threads', C (2x1) thread m's.
expect_svg 'A (M x K)
count: 2
T0/V0
T1/V0
B (K x N)
count: 1
T0/V0
C (M x N)
count: 2
T0/V0
T1/V0' mma fma '(2,1,1)' _
# make_tiled_copy with 2x2 threads (column-major) of 1x2 values: a 2x4 tile, thread t at row t%2,
# columns 2(t/2) + {0,1}.
expect_svg 'S (source)
count: 8
T0/V0 T0/V1 T2/V0 T2/V1
T1/V0 T1/V1 T3/V0 T3/V1
D (destination)
count: 8
T0/V0 T0/V1 T2/V0 T2/V1
T1/V0 T1/V1 T3/V0 T3/V1' copy '(2,2)' '(1,2)'

# The m16n8k16 atom: 16x16 A, 8x16 B, 16x8 C cells; thread 0 holds C(0,0) and C(0,1) as V0, V1
# and C(8,0) as V2.
_checks=$((_checks + 1))
out=$(svg_cells mma sm80_16x8x16 1:0 _)
if [[ $(grep -c '^count' <<<"$out") -eq 3 && $(grep '^count' <<<"$out" | tr '\n' ' ') == "count: 256 count: 128 count: 128 " &&
      $(sed -n '/^C (M x N)/,$p' <<<"$out" | sed -n 3p | cut -d' ' -f1-3) == "T0/V0 T0/V1 T1/V0" &&
      $(sed -n '/^C (M x N)/,$p' <<<"$out" | sed -n 11p | cut -d' ' -f1) == "T0/V2" ]]; then
  echo "ok:   loom-layout draw mma sm80_16x8x16 1:0 _  ->  256/128/128 cells, C as the PTX fragment"
else
  _fail "draw mma sm80_16x8x16 1:0 _" "got: ${out//$'\n'/ | }"
fi

# --latex: a standalone TikZ document, one \filldraw per cell.
_checks=$((_checks + 1))
_run draw '(2,4):(4,1)' --latex
if [[ $_rc -eq 0 && -z $_err && $_out == '\documentclass[tikz]{standalone}'* && $_out == *'\end{document}' &&
      $(grep -c '\\filldraw' <<<"$_out") -eq 8 && $_out == *'node[midway] {7}'* ]]; then
  echo "ok:   loom-layout draw '(2,4):(4,1)' --latex  ->  8 cells"
else
  _fail "draw '(2,4):(4,1)' --latex" "got: $_out" "stderr: $_err"
fi
# --output writes the file and says so.
expect "wrote $_tmp/l.svg" draw '(2,2):(1,2)' --output="$_tmp/l.svg"
_checks=$((_checks + 1))
if "$PY" -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); sys.exit(len(r.findall(".//{http://www.w3.org/2000/svg}rect[@class=\"cell\"]")) != 4)' "$_tmp/l.svg"; then
  echo "ok:   --output file parses, 4 cells"
else
  _fail "draw --output" "$_tmp/l.svg does not parse or lacks its 4 cells"
fi

expect_error 'draw: argument 1 (LAYOUT)|rank 3' draw '(2,2,2)'
expect_error "draw: argument 1 (LAYOUT)|outside the 2 x 2 tile" draw '(4,2):(2,1)' '(2,2)'
expect_error 'draw: argument 2 (TILE/ATOM/THR_LAYOUT)' draw '(4,2):(2,1)' '(2,x)'
expect_error 'draw: expected '"'"'draw mma ATOM ATOM_LAYOUT PERMUTATION'"'" draw mma fma
expect_error 'draw: argument 2 (TILE/ATOM/THR_LAYOUT)|unknown MMA atom' draw mma nope 1:0 _
expect_error 'draw: --output: cannot open' draw 4:1 --output=/nonexistent/dir/x.svg
expect_error 'more than 65536' draw '(512,512)'

finish
