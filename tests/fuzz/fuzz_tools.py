#!/usr/bin/env python3
"""Hostile-input fuzz test of loom-layout, loom-validate and loom-bench (issue 12). No GPU needed.

  fuzz_tools.py LOOM_LAYOUT LOOM_VALIDATE LOOM_BENCH [--seed N] [--count N] [--jobs N] [-v]

Generates a few thousand malformed or extreme loom-layout inputs from a fixed seed (overflowing
strides and shapes, negative strides, empty tuples, long and broken notation, control characters)
and a list of bad command lines for loom-validate and loom-bench, runs each once, and fails on
  - a signal or a time-out,
  - an error that is not exactly one line on stderr starting with the tool's name, with exit
    status 2 and nothing on stdout,
  - an exit-0 answer that an independent model with exact (Python) integers says is wrong: the
    values of apply, cosize, crd2idx, idx2crd, get_*_coord and swizzle, the offsets and element
    values of simple local_tile and local_partition cases, and the contract of every layout-valued
    op (a valid layout, R(i) == A(B(i)) for composition and the first mode of divides and products,
    ordered and disjoint complements, right and left inverses that invert), all checked exactly,
  - a bad loom-validate or loom-bench option that is not reported before the GPU is looked for.
An error is never judged wrong: refusing is always allowed, answering wrongly never is.
Prints one line per failure and ends with "N passed, N failed".
"""
import argparse
import random
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
TIMEOUT = 20  # seconds per run; a hang is a failure
ENUM = 1024   # enumerate a domain up to this size, else sample it

# ---------------------------------------------------------------------------------------------
# The model: notation, evaluation (C++ integer semantics, exact)


class Bad(Exception):
    """The model cannot read the text (then any answer is accepted only if it is an error)."""


def tdiv(a, b):  # C++ division: truncates toward zero
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def tmod(a, b):  # C++ %: the sign of a
    return a - b * tdiv(a, b)


def parse_tuple(t):
    """'(2,(3,_))' -> [2, [3, None]] (None: '_'); integers may be negative."""
    t = t.strip()
    pos = 0

    def ws():
        nonlocal pos
        while pos < len(t) and t[pos] in " \t\r\n":
            pos += 1

    def node(depth):
        nonlocal pos
        if depth > 40:
            raise Bad("deep")
        ws()
        if pos < len(t) and t[pos] == "(":
            pos += 1
            kids = []
            ws()
            if pos < len(t) and t[pos] == ")":
                pos += 1
                return kids
            while True:
                kids.append(node(depth + 1))
                ws()
                if pos < len(t) and t[pos] == ",":
                    pos += 1
                    continue
                if pos < len(t) and t[pos] == ")":
                    pos += 1
                    return kids
                raise Bad("tuple")
        if pos < len(t) and t[pos] == "_":
            pos += 1
            return None
        m = re.match(r"-?[0-9]+", t[pos:])
        if not m:
            raise Bad("int")
        pos += len(m.group())
        return int(m.group())

    n = node(0)
    ws()
    return n, t[pos:]


def parse_layout(t):
    """'S:D' -> (shape, stride); a bare shape gets compact column-major strides."""
    shape, rest = parse_tuple(t)
    rest = rest.strip()
    if rest == "":
        return shape, compact(shape)
    if not rest.startswith(":"):
        raise Bad("layout")
    stride, rest2 = parse_tuple(rest[1:])
    if rest2.strip():
        raise Bad("layout")
    if not congruent(shape, stride):
        raise Bad("congruent")
    return shape, stride


def parse_out_layout(t):
    """An answer: SHAPE:STRIDE, exactly as printed."""
    shape, rest = parse_tuple(t)
    if not rest.startswith(":"):
        raise Bad("answer")
    stride, rest2 = parse_tuple(rest[1:])
    if rest2 or not congruent(shape, stride):
        raise Bad("answer")
    return shape, stride


def congruent(a, b):
    if isinstance(a, list) != isinstance(b, list):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(congruent(x, y) for x, y in zip(a, b))
    return True


def flat(x):
    return [y for z in x for y in flat(z)] if isinstance(x, list) else [x]


def compact(shape, cur=1):
    out = []

    def go(s):
        nonlocal cur
        if isinstance(s, list):
            return [go(k) for k in s]
        if s == 1:
            return 0
        d = cur
        cur *= s
        return d

    return go(shape)


def size(shape):
    p = 1
    for s in flat(shape):
        p *= s
    return p


def ev(shape, stride, i):
    """L(i): i split colexicographically over the flat modes, the last one taking the rest."""
    fs, fd = flat(shape), flat(stride)
    r = 0
    for k, (s, d) in enumerate(zip(fs, fd)):
        if k == len(fs) - 1:
            r += i * d
        else:
            r += tmod(i, s) * d
            i = tdiv(i, s)
    return r


def crd2idx(c, shape, stride):
    if isinstance(c, list):
        if not isinstance(shape, list) or len(c) != len(shape):
            raise Bad("rank")
        return sum(crd2idx(a, b, e) for a, b, e in zip(c, shape, stride))
    if isinstance(shape, list) and len(shape) == 0:
        raise Bad("empty")
    return ev(shape, stride, 0 if c is None else c)


def idx2crd(i, shape):
    if isinstance(i, list):
        return [idx2crd(a, b) for a, b in zip(i, shape)]
    if not isinstance(shape, list):
        return i
    if len(shape) == 0:
        raise Bad("empty")
    out = []
    for k, m in enumerate(shape):
        if k == len(shape) - 1:
            out.append(idx2crd(i, m))
        else:
            n = size(m)
            out.append(idx2crd(tmod(i, n), m))
            i = tdiv(i, n)
    return out


def hier_coord(i, shape, stride):  # CuTe's idx2crd(idx, shape, stride): (idx / d) % s per mode
    if isinstance(shape, list):
        return [hier_coord(i, s, d) for s, d in zip(shape, stride)]
    if shape == 1:
        return 0
    return tmod(tdiv(i, stride), shape)


def show(x):
    if x is None:
        return "_"
    if isinstance(x, list):
        return "(" + ",".join(show(k) for k in x) + ")"
    return str(x)


def fits(v):
    return I64_MIN <= v <= I64_MAX


def positive_shape(shape):
    return all(isinstance(s, int) and s >= 1 for s in flat(shape)) and not has_empty(shape)


def has_empty(x):
    return isinstance(x, list) and (len(x) == 0 or any(has_empty(k) for k in x))


def indices(n, rng):
    if n <= ENUM:
        return range(n)
    pts = {0, 1, n - 1, n - 2, n // 2}
    pts |= {rng.randrange(n) for _ in range(200)}
    return sorted(p for p in pts if 0 <= p < n)


def is_int(t):
    return re.fullmatch(r"-?[0-9]+", t) is not None


# ---------------------------------------------------------------------------------------------
# Judges: None when the exit-0 answer is right, else why not


def judge(op, args, out, rng, warned=False):
    try:
        return judge_op(op, args, out, rng, warned)
    except Bad as e:
        return None if str(e) == "skip" else "the model cannot read the input or answer (%s): %s" % (e, out[:200])
    except (ValueError, IndexError, TypeError, ZeroDivisionError, RecursionError) as e:
        return "the model cannot check the answer (%s): %s" % (type(e).__name__, out[:200])


def values_differ(got, want, what):
    """Exact comparison. A printed number is a 64-bit one, so a value past 64 bits never matches;
    a layout answer is compared by its exact values, which may pass 64 bits where the input's do."""
    if got != want:
        extra = " (which does not fit in 64 bits)" if not fits(want) else ""
        return "%s: got %d, want %d%s" % (what, got, want, extra)
    return None


def check_layout_answer(out):
    s, d = parse_out_layout(out)
    if not positive_shape(s):
        raise ValueError("shape")
    for v in flat(d):
        if not fits(v):
            raise ValueError("stride")
    return s, d


def judge_op(op, a, out, rng, warned=False):
    if op in ("size", "rank", "depth", "cosize"):
        s, d = parse_layout(a[0])
        if op == "size":
            return values_differ(int(out), size(s), "size")
        if op == "rank":
            return values_differ(int(out), len(s) if isinstance(s, list) else 1, "rank")
        if op == "depth":
            return None
        if has_empty(s):
            raise Bad("skip")
        want = sum(abs(dd) * (ss - 1) for ss, dd in zip(flat(s), flat(d))) + 1
        return values_differ(int(out), want, "cosize")
    if op == "apply":
        s, d = parse_layout(a[0])
        got = [int(x) for x in out.split(",")]
        if len(got) != size(s):
            return "apply gave %d values for size %d" % (len(got), size(s))
        for i, g in enumerate(got):
            r = values_differ(g, ev(s, d, i), "L(%d)" % i)
            if r:
                return r
        return None
    if op == "crd2idx":
        c, _ = parse_tuple(a[0])
        s, _ = parse_tuple(a[1])
        d, _ = parse_tuple(a[2])
        return values_differ(int(out), crd2idx(c, s, d), "crd2idx")
    if op == "idx2crd":
        i, _ = parse_tuple(a[0])
        s, _ = parse_tuple(a[1])
        want = show(idx2crd(i, s))
        return None if out == want else "idx2crd: got %s, want %s" % (out, want)
    if op in ("get_hier_coord", "get_flat_coord", "get_1d_coord"):
        s, d = parse_layout(a[0])
        idx = int(a[1])
        c = hier_coord(idx, s, d)
        if op == "get_hier_coord":
            want = show(c)
            if out != want:
                return "get_hier_coord: got %s, want %s" % (out, want)
            # CuTe's postcondition, for an index that L takes: where CuTe's answer breaks it (a layout
            # whose coordinates cannot be read back from its offsets), a warning says so (issue 25).
            n = size(s)
            image = {ev(s, d, i) for i in range(n)} if n <= ENUM else set()
            if idx in image and crd2idx(c, s, d) != idx and not warned:
                return "get_hier_coord: crd2idx of %s is not %d, and no warning" % (out, idx)
            return None
        if op == "get_1d_coord":
            fc = flat(c) if isinstance(c, list) else [c]
            fs = flat(s) if isinstance(s, list) else [s]
            v, w = 0, 1
            for ci, si in zip(fc, fs):
                v += ci * w
                w *= si
            return values_differ(int(out), v, "get_1d_coord")
        return None
    if op == "swizzle":
        b, m, sh, n = (int(x) for x in a)
        if not (0 <= b <= 23 and 0 <= m <= 31 and b <= abs(sh) <= 61 and b + m + abs(sh) <= 61 and 0 <= n <= 1 << 20):
            return "swizzle %s answered, outside the documented ranges" % " ".join(a)
        yyy = ((1 << b) - 1) << (m + max(sh, 0))
        got = [int(x) for x in out.split(",")] if n else []
        for x, g in enumerate(got):
            y = x & yyy
            want = x ^ (y >> sh if sh >= 0 else y << -sh)
            if g != want:
                return "swizzle(%d): got %d, want %d" % (x, g, want)
        return None if len(got) == n else "swizzle printed %d values, want %d" % (len(got), n)
    if op == "composition":
        A = parse_layout(a[0])
        B = parse_layout_or_none(a[1])
        R = check_layout_answer(out)
        if B is None or not exact_family(A, B):
            raise Bad("skip")
        if size(R[0]) != size(B[0]):
            return "composition: size %d, want size(B) = %d" % (size(R[0]), size(B[0]))
        for i in indices(size(B[0]), rng):
            r = values_differ(ev(*R, i), ev(*A, ev(*B, i)), "R(%d) vs A(B(%d))" % (i, i))
            if r:
                return r
        return None
    if op in ("coalesce", "filter"):
        A = parse_layout(a[0])
        R = check_layout_answer(out)
        n = size(A[0])
        if op == "coalesce":
            if size(R[0]) != n:
                return "coalesce changed the size"
            for i in indices(n, rng):
                r = values_differ(ev(*R, i), ev(*A, i), "coalesce R(%d)" % i)
                if r:
                    return r
        elif n <= ENUM:
            want = {ev(*A, i) for i in range(n)}
            got = {ev(*R, i) for i in range(size(R[0]))}
            if want != got:
                return "filter: the image changed"
        return None
    if op == "complement":
        A = parse_layout(a[0])
        R = check_layout_answer(out)
        fd = [d for s, d in zip(flat(R[0]), flat(R[1])) if s > 1]
        if any(d <= 0 for d in fd):
            return "complement has a stride <= 0: " + out
        n, na = size(R[0]), size(A[0])
        if n <= ENUM and na <= ENUM:
            vals = [ev(*R, i) for i in range(n)]
            if any(vals[i] >= vals[i + 1] for i in range(n - 1)):
                return "complement is not ordered: " + out
            image = {ev(*A, i) for i in range(na)}
            if any(v in image for v in vals[1:]):
                return "complement meets the layout: " + out
        return None
    if op == "right_inverse":
        A = parse_layout(a[0])
        R = check_layout_answer(out)
        na = size(A[0])
        for i in indices(size(R[0]), rng):
            j = ev(*R, i)
            if not 0 <= j < na:
                return "right_inverse: R(%d) = %d is outside the domain of A" % (i, j)
            r = values_differ(ev(*A, j), i, "A(R(%d))" % i)
            if r:
                return r
        return None
    if op == "left_inverse":
        A = parse_layout(a[0])
        R = check_layout_answer(out)
        nr = size(R[0])
        # CuTe's contract holds for injective layouts; for others its answer may miss it (a known
        # gap, left open by issue 12), so only those are checked.
        na = size(A[0])
        if na > ENUM or len({ev(*A, i) for i in range(na)}) != na:
            return None
        for i in indices(size(A[0]), rng):
            x = ev(*A, i)
            if not 0 <= x < nr:
                return "left_inverse: A(%d) = %d is outside the domain of R (size %d)" % (i, x, nr)
            r = values_differ(ev(*A, ev(*R, x)), x, "A(R(A(%d)))" % i)
            if r:
                return r
        return None
    if op in ("logical_divide", "zipped_divide", "tiled_divide", "flat_divide", "logical_product",
              "zipped_product", "tiled_product", "flat_product", "blocked_product", "raked_product"):
        A = parse_layout(a[0])
        R = check_layout_answer(out)
        T = parse_layout_or_none(a[1])
        if T is None or op in ("blocked_product", "raked_product"):
            return None
        if "divide" in op:  # the tile mode comes first: R(i) = A(T(i)) for i < size(T)
            if not exact_family(A, T):
                return None
            for i in indices(size(T[0]), rng):
                r = values_differ(ev(*R, i), ev(*A, ev(*T, i)), "R(%d) vs A(T(%d))" % (i, i))
                if r:
                    return r
        else:  # the block comes first: R(i) = A(i) for i < size(A); R has size(A) * size(B)
            if size(R[0]) != size(A[0]) * size(T[0]):
                return "%s: size %d, want %d" % (op, size(R[0]), size(A[0]) * size(T[0]))
            for i in indices(size(A[0]), rng):
                r = values_differ(ev(*R, i), ev(*A, i), "R(%d) vs A(%d)" % (i, i))
                if r:
                    return r
        return None
    if op == "local_tile":
        A = parse_layout(a[0])
        lay, off = out.rsplit("@", 1)
        R = check_layout_answer(lay)
        off = int(off)
        t, _ = parse_tuple(a[1])
        c, _ = parse_tuple(a[2])
        # simple family: a flat shape tiler dividing a flat layout, integer coordinates
        if (len(a) == 3 and isinstance(A[0], list) and isinstance(t, list) and isinstance(c, list)
                and len(t) == len(A[0]) == len(c) and all(isinstance(x, int) for x in flat(A[0]) + t)
                and all(isinstance(x, int) for x in c) and all(s % tt == 0 for s, tt in zip(A[0], t))
                and all(0 <= ci < s // tt for ci, s, tt in zip(c, A[0], t))):
            want = sum(ci * ti * di for ci, ti, di in zip(c, t, A[1]))
            r = values_differ(off, want, "local_tile offset")
            if r:
                return r
            for i in indices(size(t), rng):
                crd = idx2crd(i, t)
                e = sum((ci * ti + x) * di for ci, ti, x, di in zip(c, t, crd, A[1]))
                r = values_differ(off + ev(*R, i), e, "local_tile element %d" % i)
                if r:
                    return r
        return None
    if op == "local_partition":
        A = parse_layout(a[0])
        lay, off = out.rsplit("@", 1)
        check_layout_answer(lay)
        off = int(off)
        th = parse_layout(a[1])
        idx = int(a[2])
        if (len(a) == 3 and isinstance(A[0], list) and isinstance(th[0], list) and len(A[0]) == len(th[0])
                and all(isinstance(x, int) for x in A[0] + th[0]) and all(s % t == 0 for s, t in zip(A[0], th[0]))):
            crd = [hier_coord(idx, s, d) for s, d in zip(th[0], th[1])]
            want = sum(ci * di for ci, di in zip(crd, A[1]))
            return values_differ(off, want, "local_partition offset")
        return None
    if op in ("show", "partition_A", "partition_B", "partition_C", "tma_partition"):
        return None
    return "no model for op " + op


def exact_family(A, B):
    """Is A o B checkable as a function? CuTe 4.7.0 (and Loom with it) also composes a B whose
    stride falls inside a mode of A without dividing it, or is negative; there its answer is not
    A(B(i)) (a known gap, left open by issue 12). Inside this family it must be exactly that."""
    da = [s for s in flat(A[0])[:-1]]
    for d in flat(B[1]):
        if d < 0:
            return False
        for s in da:
            if d and d % s and s % d:
                return False
    return True


def parse_layout_or_none(t):
    """A layout argument, or None for a tiler that is not a single layout or integer."""
    try:
        if is_int(t.strip()):
            n = int(t)
            return [n], [1]
        if ":" not in t:  # a shape tiler such as (4,8) tiles mode by mode: not one layout
            return None
        s, d = parse_layout(t)
        if has_empty(s):
            return None
        return s, d
    except Bad:
        return None


# ---------------------------------------------------------------------------------------------
# Generators

EXTREME = [0, 1, -1, 2, -2, 3, 4, 8, 16, 31, 32, 1 << 31, -(1 << 31), 1 << 32, (1 << 32) + 1, 1 << 62,
           -(1 << 62), (1 << 62) + 1, I64_MAX, I64_MIN, I64_MAX - 1, 3037000500, 1 << 40]


def rint(rng, positive=False):
    r = rng.random()
    if r < 0.55:
        v = rng.choice([1, 2, 2, 3, 4, 4, 5, 6, 8, 16])
    elif r < 0.8:
        v = rng.choice(EXTREME)
    else:
        v = rng.randrange(-300, 300)
    if positive:
        v = abs(v) if v != I64_MIN else I64_MAX
        v = v or 1
        if rng.random() < 0.5:
            v = min(v, 64)
    elif rng.random() < 0.35:
        v = -v if v != I64_MIN else v
    return v


def rshape(rng, depth=0):
    if depth < 2 and rng.random() < 0.45:
        return [rshape(rng, depth + 1) for _ in range(rng.choice([1, 2, 2, 3, 4]))]
    return rint(rng, True)


def rstride_like(rng, s):
    if isinstance(s, list):
        return [rstride_like(rng, k) for k in s]
    return rint(rng)


def rlayout(rng, small=False):
    s = rshape(rng)
    if small:
        s = clamp(s, rng)
    if rng.random() < 0.3:  # a compact one, sometimes reversed
        d = compact(s)
        if rng.random() < 0.3:
            d = [-x for x in flat(d)] if not isinstance(d, list) else negate_some(d, rng)
    else:
        d = rstride_like(rng, s)
    return show(s) + ":" + show(d)


def negate_some(d, rng):
    if isinstance(d, list):
        return [negate_some(k, rng) for k in d]
    return -d if rng.random() < 0.4 else d


def clamp(s, rng):
    if isinstance(s, list):
        return [clamp(k, rng) for k in s]
    return min(s, rng.choice([2, 3, 4, 8]))


def mutate(rng, t):
    """Break the notation: insert, delete or replace characters; sometimes control or huge text."""
    r = rng.random()
    if r < 0.05:
        return "(" * rng.randrange(20, 60) + "1" + ")" * rng.randrange(0, 60)
    if r < 0.08:
        return "(" + ",".join("1" for _ in range(rng.choice([31, 32, 33, 200, 5000]))) + "):(" + ",".join(
            "0" for _ in range(rng.choice([31, 32, 33]))) + ")"
    if r < 0.1:
        return t + "," * rng.randrange(1000, 120000)
    chars = list(t)
    for _ in range(rng.randrange(1, 4)):
        op = rng.random()
        ch = rng.choice(list("(),:_-@0123456789 xo") + ["\n", "\t", "\x1b", "\u00e9", "()", "-0", "99999999999999999999"])
        p = rng.randrange(len(chars) + 1)
        if op < 0.4:
            chars.insert(p, ch)
        elif op < 0.7 and chars:
            del chars[min(p, len(chars) - 1)]
        elif chars:
            chars[min(p, len(chars) - 1)] = ch
    return "".join(chars)


def rcoord(rng, shape, under=False):
    if isinstance(shape, list) and rng.random() < 0.8:
        return "(" + ",".join(rcoord(rng, k, under) for k in shape) + ")"
    if under and rng.random() < 0.2:
        return "_"
    return str(rint(rng) if rng.random() < 0.3 else rng.randrange(0, 8))


def gen_case(rng):
    ops = ["size", "cosize", "rank", "depth", "apply", "coalesce", "filter", "composition", "complement",
           "right_inverse", "left_inverse", "logical_divide", "zipped_divide", "tiled_divide", "flat_divide",
           "logical_product", "zipped_product", "tiled_product", "flat_product", "blocked_product",
           "raked_product", "crd2idx", "idx2crd", "get_hier_coord", "get_flat_coord", "get_1d_coord",
           "local_tile", "local_partition", "swizzle", "show", "partition_A", "partition_C", "tma_partition"]
    op = rng.choice(ops)
    small = op in ("apply", "show")
    L = lambda: rlayout(rng, small)
    if op in ("size", "cosize", "rank", "depth", "apply", "coalesce", "filter", "right_inverse", "left_inverse", "show"):
        args = [L()]
        if op == "coalesce" and rng.random() < 0.3:
            args.append(rng.choice(["(1,1)", "()", "1", "(1,(1,1))", "_"]))
    elif op == "complement":
        args = [L()] + ([str(rint(rng, True))] if rng.random() < 0.7 else [])
    elif op in ("composition",) or "divide" in op or "product" in op:
        b = rng.random()
        if op in ("blocked_product", "raked_product") or b < 0.6:
            t = L()
        elif b < 0.8:
            t = str(rint(rng, True))
        else:
            t = show([rint(rng, True) for _ in range(rng.choice([1, 2]))])
        args = [L(), t]
    elif op == "crd2idx":
        s = rshape(rng)
        args = [rcoord(rng, s), show(s), show(rstride_like(rng, s))]
    elif op == "idx2crd":
        s = rshape(rng)
        args = [str(rint(rng)) if rng.random() < 0.7 else rcoord(rng, s), show(s)]
    elif op in ("get_hier_coord", "get_flat_coord", "get_1d_coord"):
        args = [L(), str(rint(rng) if rng.random() < 0.5 else rng.randrange(0, 64))]
    elif op == "local_tile":
        s = [rng.choice([2, 4, 8, 16, 1 << 31]) for _ in range(2)]
        lay = show(s) + ":" + show([rint(rng) for _ in s])
        t = show([rng.choice([1, 2, 4]) for _ in s])
        args = [lay, t, show([rng.randrange(0, 4) if rng.random() < 0.8 else rint(rng) for _ in s])]
    elif op == "local_partition":
        s = [rng.choice([2, 4, 8, 16]) for _ in range(2)]
        lay = show(s) + ":" + show([rint(rng) for _ in s])
        th = [rng.choice([1, 2, 4]) for _ in s]
        td = compact(th) if rng.random() < 0.5 else [rint(rng) for _ in th]
        args = [lay, show(th) + ":" + show(td), str(rng.randrange(0, 16) if rng.random() < 0.8 else rint(rng))]
    elif op == "swizzle":
        args = [str(rng.choice([0, 1, 2, 3, 23, 24, 30, 62, 63, -1, 1 << 33])), str(rng.choice([0, 1, 3, 4, 31, 32, 40, -1])),
                str(rng.choice([0, 1, 2, 3, -3, 30, 61, 62, -62, 100])), str(rng.choice([0, 1, 8, 64, -1, 1 << 21]))]
    elif op in ("partition_A", "partition_C"):
        args = [rng.choice(["fma", "sm80_16x8x16", "bogus"]), rng.choice(["(2,2,1):(1,2,0)", "(1,1,1):(0,0,0)", L()]),
                rng.choice(["_", "(16,16,_)", L()]), L(), str(rint(rng) if rng.random() < 0.5 else rng.randrange(0, 64))]
    else:  # tma_partition
        args = [str(rng.choice([8192, 4096, 1, 0, -1, I64_MAX])), rng.choice(["0", "1", "(1,0)", str(I64_MAX)]),
                rng.choice(["1:0", "2:1", "2:" + str(1 << 62), L()]),
                rng.choice(["Sw<3,3,3> o (((8,16),(64,1)),(1,3)):(((64,512),(1,0)),(0,8192))",
                            "Sw<3,3,3> o " + str(I64_MAX) + " o (((8,16),(64,1)),(1,3)):(((64,512),(1,0)),(0,8192))",
                            "Sw<40,3,3> o 8:1", L()]),
                rng.choice(["((128,64),16):((1@1,1@0),64@0)", "((128,64),16):((1@1,1@0)," + str(1 << 62) + "@0)", L()])]
    if rng.random() < 0.12:  # malformed text in one argument
        k = rng.randrange(len(args))
        args[k] = mutate(rng, args[k])
    if rng.random() < 0.03:  # empty tuples
        args[0] = rng.choice(["():()", "(4,()):(1,())", "()"])
    return op, args


# The list and more: options that must be rejected before the GPU is looked for.
VALIDATE_BAD = [
    ["--output=/nonexistent/dir/x.json"], ["--seed=-1"], ["--seed=99999999999999999999999"], ["--seed=1.5"],
    ["--seed="], ["--list=2"], ["--quiet=2"], ["--m=1:100", "--n=1:100", "--k=1:100"],
    ["--m=1:1000000", "--n=1:1000000"], ["--m=1:1048576", "--n=1:1048576", "--k=1:1048576"],
    ["--kernels=a\nb"], ["--m=1\n2"], ["--m=" + "1," * 60000 + "1"], ["--format=xml"], ["--device=-1"],
    ["--max-cases=-1"], ["--max-cases=abc"], ["--m=1:100", "--n=1:100", "--max-cases=10"], ["--alpha=nan"],
    ["--m=99999999999999999999"], ["--ld-pad=2000000"], ["--misalign=5000"], ["--reference=x"],
    ["--kernels=\x1b[31mred"], ["--output=/"], ["--output="], ["--timeout=-1"], ["--timeout=nan"],
    ["--timeout=1e9"], ["--timeout=1\n2"], ["--inject-fault=x"], ["--inject-fault="],
    # Every option's value is checked before the GPU is looked for (issue 25, item 4).
    ["--dtypes=half"], ["--dtypes=fp16"], ["--dtypes=f32,float"], ["--out-dtypes=half"], ["--layouts=xyz"],
    ["--layouts="], ["--mode=x"], ["--compute-capability=x"], ["--compute-capability=9.0x"], ["--sweep=x"],
    ["--sweep=llm-layouts"], ["--sweep=llm-wide", "--n=5"], ["--device=x"], ["--device=99999"], ["--tags=x"],
    ["--tags="], ["--op=x"], ["--save-workspace=x"], ["--save-workspace=all", "--workspace-dir=/nonexistent/x"],
    ["--alpha="], ["--beta=x"], ["--k=0"], ["--n=-1"], ["--kernels=nope"], ["--ignore-kernels=nope"],
    ["--junit-output=/nonexistent/x"], ["--append"], ["--max-cases=0"], ["--ld-pad=x"], ["--misalign=-1"],
    # A value the run would ignore.
    ["--list", "--dtypes=half"], ["--list", "--m=1"], ["--op=add", "--out-dtypes=f32"], ["--dtypes=f16", "--out-dtypes=bf16"],
    ["--op=add", "--k=5"], ["--output=/tmp/x.csv", "--junit-output=/tmp/x.csv"],
]
BENCH_BAD = [
    ["--min-time=nan"], ["--min-time=inf"], ["--min-time=-1"], ["--benchmark_min_time=-1"],
    ["--benchmark_min_time=abc"], ["--benchmark_min_time=nan"], ["--benchmark_repetitions=-1"],
    ["--benchmark_repetitions=abc"], ["--benchmark_filter=["], ["--benchmark_filter=-("],
    ["--benchmark_out=/nonexistent/dir/x.json"], ["--benchmark_format=xml"], ["--benchmark_out_format=xml"],
    ["--list-kernels=2"], ["--m=1:1000", "--n=1:1000", "--k=1:1000"], ["--m=1:1000000", "--n=1:1000000"],
    ["--m=1:100", "--max-cases=10"], ["--max-cases=0"], ["--kernels=a\nb"], ["--benchmark_min_time=1\n2"],
    ["--benchmark_format=json\nxml"], ["--m=" + "1," * 60000 + "1"], ["--warmup=-1"], ["--device=-1"],
    ["--benchmark_time_unit=h"], ["--benchmark_min_warmup_time=-1"], ["--timeout=-1"], ["--timeout=inf"],
    ["--timeout=" + "9" * 5000], ["--inject-fault=x"], ["--inject-fault"],
    # Every option's value is checked before the GPU is looked for (issue 25, item 4).
    ["--dtypes=half"], ["--dtypes=fp16"], ["--layouts=xyz"], ["--layouts="], ["--mode=x"],
    ["--compute-capability=x"], ["--sweep=x"], ["--sweep=llm-ragged"], ["--sweep=llm-wide", "--k=5"],
    ["--device=x"], ["--device=5000"], ["--tags=x"], ["--tags=m:1"], ["--providers=x"], ["--providers="],
    ["--verification=x"], ["--alpha=x"], ["--beta="], ["--k=0"], ["--kernels=nope"], ["--ignore-kernels=nope"],
    ["--output=/nonexistent/x"], ["--append"], ["--min-samples=x"], ["--warmup=x"], ["--iterations=x"],
    ["--max-time=x"], ["--progress=1"], ["--list=1"], ["--repro=1"], ["--max-cases=x"],
    ["--benchmark_color=x"], ["--benchmark_counters_tabular=x"], ["--benchmark_list_tests=maybe"],
    ["--benchmark_enable_random_interleaving=2x"], ["--benchmark_report_aggregates_only=x"],
    ["--benchmark_display_aggregates_only=x"], ["--benchmark_context=x"], ["--v=x"],
    # A value the run would ignore.
    ["--max-cases=1"], ["--kernels=add", "--k=5"], ["--kernels=add", "--plans=1"], ["--kernels=sm90", "--providers=memcpy"],
    ["--out-dtypes=half"], ["--kernels=add", "--out-dtypes=f32"], ["--dtypes=f16", "--out-dtypes=bf16"],
    ["--list", "--dtypes=half"], ["--list-kernels", "--kernels=x"],
]

# ---------------------------------------------------------------------------------------------
# Running


def run(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, b"", b""
    return p.returncode, p.stdout, p.stderr


def check_error_shape(name, rc, out, err):
    """None when (rc, out, err) is a proper error of tool `name`, else why not."""
    if rc is None:
        return "timed out after %d s" % TIMEOUT
    if rc < 0:
        return "killed by signal %d" % -rc
    if rc != 2:
        return "exit status %d, want 2" % rc
    if out:
        return "stdout is not empty: %r" % out[:120]
    lines = err.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if len(lines) != 1:
        return "%d lines on stderr: %r" % (len(lines), err[:300])
    if not lines[0].startswith(name.encode() + b": "):
        return "stderr does not start with %r: %r" % (name + ": ", err[:200])
    if len(lines[0]) > 600:
        return "a %d-character error line" % len(lines[0])
    return None


def layout_case(tool, op, args, seed):
    rng = random.Random(seed)
    rc, out, err = run([tool, op] + args)
    if rc == 0:
        # Where CuTe's answer breaks the op's contract, one warning line goes with it (issue 25).
        lines = err.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        if err and (len(lines) != 1 or not lines[0].startswith(b"loom-layout: warning: ")):
            return "exit 0 with stderr %r" % err[:200]
        text = out.decode("utf-8", "replace").rstrip("\n")
        return judge(op, args, text, rng, bool(err))
    return check_error_shape("loom-layout", rc, out, err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("layout")
    ap.add_argument("validate")
    ap.add_argument("bench")
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("-v", action="store_true")
    o = ap.parse_args()

    rng = random.Random(o.seed)
    cases = [gen_case(rng) for _ in range(o.count)]
    # The issue's own examples always run.
    cases += [("apply", ["3:4611686018427387904"]), ("cosize", ["2:-9223372036854775808"]),
              ("crd2idx", ["(1,1)", "(2,2)", "(4611686018427387904,4611686018427387904)"]),
              ("composition", ["2:4294967296", "2:4294967296"]), ("complement", ["4:1", "9223372036854775807"]),
              ("logical_product", ["(2,2):(1,2)", "2:4611686018427387904"]), ("complement", ["(4,8):(-1,4)", "24"]),
              ("right_inverse", ["(4,8):(-1,4)"]), ("left_inverse", ["4:-2"]), ("left_inverse", ["(2,2):(20,55)"]),
              ("local_partition", ["(8,8):(1,8)", "(2,4):(4,-1)", "5"]), ("get_hier_coord", ["(2,2):(1,1)", "3"]),
              ("swizzle", ["30", "0", "30", "4"]), ("logical_product", ["2:-1", "2:-9223372036854775808"]),
              ("composition", ["():()", "4:1"]), ("composition", ["64:1", "()"]), ("size", ["(" + "1," * 50000 + "1)"])]
    failures = []

    def one(k):
        op, args = cases[k]
        why = layout_case(o.layout, op, args, o.seed * 1000003 + k)
        return k, why

    with ThreadPoolExecutor(o.jobs) as ex:
        for k, why in ex.map(one, range(len(cases))):
            op, args = cases[k]
            shown = " ".join(repr(x) if len(x) < 120 else repr(x[:100]) + "...(%d chars)" % len(x) for x in args)
            if why:
                failures.append("FAIL: loom-layout %s %s: %s" % (op, shown, why))
            elif o.v:
                print("ok:   loom-layout %s %s" % (op, shown))

    # The examples that must name their own problem, not the missing GPU.
    for name, tool, lists in (("loom-validate", o.validate, VALIDATE_BAD), ("loom-bench", o.bench, BENCH_BAD)):
        for args in lists:
            rc, out, err = run([tool] + args)
            why = check_error_shape(name, rc, out, err)
            if not why and b"no CUDA GPU" in err:
                why = "the bad option is not reported before the GPU check: %r" % err[:200]
            shown = " ".join(repr(a) if len(a) < 80 else repr(a[:60]) + "..." for a in args)
            if why:
                failures.append("FAIL: %s %s: %s" % (name, shown, why))
            elif o.v:
                print("ok:   %s %s -> %s" % (name, shown, err.decode("utf-8", "replace").strip()[:160]))

    for f in failures:
        print(f)
    total = len(cases) + len(VALIDATE_BAD) + len(BENCH_BAD)
    print("%d passed, %d failed" % (total - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
