# Experiment permutations from a measured placement (gpcmap.txt): readers of one panel in one GPC.
import collections, sys
runs = collections.defaultdict(list); cur = None
for l in open(sys.argv[1]):
    if l.startswith('c='):
        d = dict(x.split('=') for x in l.split()); cur = (int(d['c']), int(d['rep'])); continue
    if cur and cur[1] == 0:
        c, b, sm, cid, rank = map(int, l.split()); runs[cur[0]].append((b, sm, cid, rank))
par = {}
def find(x):
    while par.setdefault(x, x) != x: x = par[x]
    return x
for c, rows in runs.items():
    cl = collections.defaultdict(list)
    for b, sm, cid, rank in rows: cl[cid].append(sm)
    for sms in cl.values():
        for s in sms[1:]: par[find(s)] = find(sms[0])
def cluster_gpc(size):
    cl = collections.defaultdict(list)
    for b, sm, cid, rank in runs[size]: cl[b // size].append(sm)   # cluster index as the GEMM counts it: blockIdx / size
    return {c: find(sms[0]) for c, sms in cl.items()}
def assign(size, rows, cols, along_rows):
    g = cluster_gpc(size); n = rows * cols
    by = collections.defaultdict(list)
    for c in range(n): by[g[c]].append(c)
    panels = [[r * cols + j for j in range(cols)] for r in range(rows)] if along_rows else [[r * cols + j for r in range(rows)] for j in range(cols)]
    k = len(panels[0]); perm = [None] * n; left = []; pi = 0
    for grp in sorted(by.values(), key=len, reverse=True):
        grp = list(grp)
        while len(grp) >= k and pi < len(panels):
            for j in range(k): perm[grp.pop(0)] = panels[pi][j]
            pi += 1
        left += grp
    for c, t in zip(left, [t for p in panels[pi:] for t in p]): perm[c] = t
    assert None not in perm
    inv = {t: c for c, t in enumerate(perm)}
    print(size, rows, cols, [len(set(g[inv[t]] for t in p)) for p in panels], file=sys.stderr)
    return perm
print(','.join(map(str, assign(4, 10, 3, True))))
print(','.join(map(str, assign(2, 3, 22, False))))
