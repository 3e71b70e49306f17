#!/usr/bin/env python3
"""Summary of harness/mps_disj_campaign.sh part 1 (issue 10, disj10): do MPS clients at a thread
percentage get disjoint SMs?  mps_disj_summary.py RAW [OUT.csv]

Per group (p<P>_n<N>), rep, kernel (gt = 2 ms %globaltimer spin, one 120 KiB block per SM; fma =
1024-thread FMA blocks) and client: the client's blocks, distinct (virtual) SM ids, its kernel
window (first block start to last block end, us) counted from the earliest start of any client in
that rep, and 'late' = blocks that started more than 200 us after the client's first block (they
waited for an SM).  The row 'all' per rep: the windows' union and the clients' start skew."""
import csv
import glob
import os
import sys
from collections import defaultdict

raw = sys.argv[1]
out = open(sys.argv[2], "w") if len(sys.argv) > 2 else sys.stdout
blk = defaultdict(list)  # (group, rep, op, client) -> [(smid, t0, t1)]
for f in sorted(glob.glob(os.path.join(raw, "p*_blocks.csv"))):
    for r in csv.DictReader(open(f)):
        g, c = r["tag"].rsplit("_c", 1)
        blk[(g, int(r["rep"]), int(r["op"]), int(c))].append((int(r["smid"]), int(r["t0"]), int(r["t1"])))
w = csv.writer(out)
w.writerow(["group", "rep", "kernel", "client", "blocks", "sms", "start_us", "end_us", "window_us", "late_blocks",
            "block_p50_us"])
order = ["p50_n1", "p25_n1", "p60_n1", "p100_n1", "p50_n2", "p25_n4", "p60_n2", "p100_n2"]
keys = sorted(blk, key=lambda k: (order.index(k[0]) if k[0] in order else 99, k[1], k[2], k[3]))
for (g, rep, op) in sorted({k[:3] for k in keys}, key=lambda k: (order.index(k[0]) if k[0] in order else 99, k[1], k[2])):
    cs = sorted(k[3] for k in keys if k[:3] == (g, rep, op))
    base = min(b[1] for c in cs for b in blk[(g, rep, op, c)])
    ends = []
    for c in cs:
        b = blk[(g, rep, op, c)]
        s0 = min(x[1] for x in b)
        e1 = max(x[2] for x in b)
        ends.append(e1)
        late = sum(x[1] > s0 + 200000 for x in b)
        d = sorted(x[2] - x[1] for x in b)
        w.writerow([g, rep, "gt" if op == 0 else "fma", c, len(b), len({x[0] for x in b}), f"{(s0 - base) / 1e3:.1f}",
                    f"{(e1 - base) / 1e3:.1f}", f"{(e1 - s0) / 1e3:.1f}", late, f"{d[len(d) // 2] / 1e3:.1f}"])
    if len(cs) > 1:
        w.writerow([g, rep, "gt" if op == 0 else "fma", "all", "", "", "0.0", f"{(max(ends) - base) / 1e3:.1f}",
                    f"{(max(ends) - base) / 1e3:.1f}", "", ""])
