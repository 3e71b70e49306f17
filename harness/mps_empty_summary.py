#!/usr/bin/env python3
"""Does an MPS client's launch path pay for the other clients' grid size, block rate, kernel rate
or block duration? (FINDINGS §27): harness/mps_empty_campaign.sh's table.

    python3 harness/mps_empty_summary.py traces/measured/h100/mpspct/empty

Reads DIR/empty.csv (victim rows) and DIR/aggr.csv (each aggressor's kernels/s in that row; a
row run twice has two groups of N - 1 lines, told apart by their index restarting at 1). The
aggressor config gG_tT_bB[_pP]: G blocks of B threads per kernel, thread 0 spinning T us, the host
pausing P us after each 32-node graph (_sS_lL, the --mem rows: S KB of dynamic shared memory per
block, L float4 read per thread from the L2). Baseline of a victim: the mean of its N = 1 rows of the
same mode (MPS: before, in the middle, after). Prints per row: the others' kernels/s and blocks/us
(all N - 1 together), the resident blocks they keep (blocks/us x T), X = blocks/us x G (FINDINGS
§26's correlate; one grid size, so the block-weighted mean grid is G) and c X with §26's fitted c,
the victim's span growth per node per other client (µs), its node gap (p50, mean) and kernel p50.
Then, over the MPS timer rows, the Spearman rank correlation of the span growth per node (all
other clients together) with each candidate: G, kernels/s, blocks/us, T, X.
"""
import csv
import os
import sys
from collections import defaultdict

NODES = 32
C26 = 6.66e-5  # FINDINGS §26, us per unit of X, fitted on the decoder/gemv/gemvl2 timer rows


def parse(name):
    """gG_tT_bB[_pP][_sS_lL] -> (G, T_us, B, P_us, S_KB, L)."""
    f = {p[0]: float(p[1:]) for p in name.split("_")}
    return int(f["g"]), f["t"], int(f["b"]), f.get("p", 0.0), f.get("s", 0.0), f.get("l", 0.0)


def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(v):  # ties get their mean rank
        j = i
        while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2
        i = j + 1
    return r


def spearman(x, y):
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else float("nan")


def aggr_rates(path):
    """(mode, n, aggr, victim) -> list over runs of the summed kernels/s."""
    runs = defaultdict(list)
    for a in csv.DictReader(open(path)):
        key = (a["mode"], a["n"], a["aggr"], a["victim"])
        if a["i"] == "1":
            runs[key].append(0.0)
        runs[key][-1] += float(a["kernels_per_s"])
    return runs


def main(d):
    rows = list(csv.DictReader(open(os.path.join(d, "empty.csv"))))
    rates = aggr_rates(os.path.join(d, "aggr.csv"))
    seen = defaultdict(int)
    base = defaultdict(list)
    for r in rows:
        if r["n"] == "1":
            base[(r["mode"], r["victim"])].append(float(r["span_p50_us"]))
    print("mode,victim,aggr,G,T_us,tpb,pause_us,n,others_kernels_per_s,others_blocks_per_us,"
          "resident_blocks,X,cX_per_node_per_client_us,span_p50_us,span_per_node_per_client_us,"
          "gap_p50_us,gap_mean_us,kern_p50_us")
    corr = []
    for r in rows:
        n = int(r["n"])
        if n == 1:
            continue
        key = (r["mode"], r["n"], r["aggr"], r["victim"])
        k = rates[key][seen[key]] if seen[key] < len(rates[key]) else float("nan")
        seen[key] += 1
        g, t, b, p, _, _ = parse(r["aggr"])
        bpu = k * g / 1e6
        x = bpu * g
        b0 = sum(base[(r["mode"], r["victim"])]) / len(base[(r["mode"], r["victim"])])
        ds = (float(r["span_p50_us"]) - b0) / NODES / (n - 1)
        print(f"{r['mode']},{r['victim']},{r['aggr']},{g},{t:g},{b},{p:g},{n},{k:.0f},{bpu:.1f},"
              f"{bpu * t:.0f},{x:.0f},{C26 * x / (n - 1):.2f},{r['span_p50_us']},{ds:+.2f},"
              f"{r['gap_p50_us']},{r['gap_mean_us']},{r['kern_p50_us']}")
        if r["mode"] == "mps" and r["victim"] == "timer":
            corr.append((ds * (n - 1), g, k, bpu, t, x))
    if len(corr) > 2:
        y = [c[0] for c in corr]
        print(f"\nSpearman rank correlation with the timer victim's span growth per node "
              f"(all others), {len(corr)} MPS rows:")
        for i, what in enumerate(["G (blocks per kernel)", "others' kernels/s",
                                  "others' blocks/us", "T (block spin us)", "X (§26)"], 1):
            print(f"  {what}: {spearman([c[i] for c in corr], y):+.2f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
