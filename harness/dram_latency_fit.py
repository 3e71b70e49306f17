#!/usr/bin/env python3
"""The DRAM loaded-latency term of hqsim (sim/engine_dram.c), fitted on the MPS probe.

    python3 harness/dram_latency_fit.py traces/measured/h100/mpspct/probe.csv \
        traces/measured/h100/mpspct/probe_aggr.csv

Loaded latency by Little's law: with P the pressure on DRAM (requested bandwidth in units of the
achievable B) and d(P) = P / (1 + P^n)^(1/n) what is delivered, requests in flight grow as P and
leave at d(P), so a request waits L(P) = P / d(P) = (1 + P^n)^(1/n) times its unloaded latency.
P of a row comes from the other clients' delivered traffic u = TB/s / B (mps_probe_summary.py's
aggr_dram_tbs), inverted through d. Nothing of L is fitted (B and n are the H100 model's,
calibrated on triads alone, FINDINGS §16).

- chase rows (predicted): a dependent DRAM load's time, kernel / alone, against L(P).
- timer rows (fitted): a compute-only graph node's span growth per kernel (summed over the other
  clients) = s (L(P) - 1), s = the launch path's memory-latency part (dram_launch_latency_us),
  least squares through 0. Left out: fmaall (issue slots) and triad at N = 4 (its 3 x 528
  blocks fill every SM's warps: the victim waits for room, hqsim's occupancy).
"""
import csv
import sys
from collections import defaultdict

B_TBS, N_EXP = 3.140, 1.7  # models/h100-sxm.json dram_achievable_gbps, dram_curve_exponent
NODES = 32
BYTES = {"triad": 3 * 256 * 2**20, "stream": 4 * 2**20}


def pressure(u):
    u = min(u, 0.98)  # engine_dram.c's DRAM_MAX_SHARE
    return u / (1 - u**N_EXP) ** (1 / N_EXP)


def loaded(u):
    return (1 + pressure(u) ** N_EXP) ** (1 / N_EXP)


def rows(probe, aggr):
    tbs = defaultdict(float)
    for a in csv.DictReader(open(aggr)):
        b = BYTES["triad"] if a["aggr"].startswith("triad") else BYTES.get(a["aggr"], 0)
        tbs[(a["mode"], a["n"], a["aggr"], a["victim"])] += float(a["kernels_per_s"]) * b / 1e12
    rs = [r for r in csv.DictReader(open(probe)) if r["mode"] == "mps"]
    base = defaultdict(list)
    for r in rs:
        if r["n"] == "1":
            base[r["victim"]].append(r)
    for r in rs:
        if r["n"] == "1" or r["aggr"] == "fmaall" or (r["aggr"] == "triad" and r["n"] == "4"):
            continue
        b = base[r["victim"]]
        k0 = sum(float(x["kern_p50_us"]) for x in b) / len(b)
        s0 = sum(float(x["span_p50_us"]) for x in b) / len(b)
        u = tbs[("mps", r["n"], r["aggr"], r["victim"])] / B_TBS
        yield (r["victim"], r["aggr"], int(r["n"]), u, float(r["kern_p50_us"]) / k0,
               (float(r["span_p50_us"]) - s0) / NODES)


def main(probe, aggr):
    rs = list(rows(probe, aggr))
    print("chase (predicted): aggr,n,u,L(P),kernel/alone")
    for v, a, n, u, kr, _ in rs:
        if v == "chase":
            print(f"  {a},{n},{u:.3f},{loaded(u):.2f},{kr:.2f}")
    t = [(loaded(u) - 1, g, a, n, u) for v, a, n, u, _, g in rs if v == "timer"]
    s = sum(x * g for x, g, *_ in t) / sum(x * x for x, *_ in t)
    print(f"timer (fitted): s = {s:.3f} us; aggr,n,u,L(P),growth_us,fit_us")
    for x, g, a, n, u in t:
        print(f"  {a},{n},{u:.3f},{x + 1:.2f},{g:+.2f},{s * x:+.2f}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
