#!/usr/bin/env python3
"""Per victim kind, aggressor kind and N: what one MPS client's kernels lose per other client.

    python3 harness/mps_probe_summary.py traces/measured/h100/mpspct/probe.csv \
        traces/measured/h100/mpspct/probe_aggr.csv

Reads harness/mps_probe_campaign.sh's probe.csv and aggr.csv. The baseline of a victim kind is
the mean of its N = 1 rows of the same mode (MPS: before and after; nomps: one). Prints, per row: the aggressors' DRAM traffic
(TB/s, all of them together: a triad kernel moves 3 x 256 MiB, a stream kernel reads 4 MiB, the
other kinds ~0), the victim's median kernel duration and its growth per other client, and the
growth of the request's GPU span (first kernel start to last kernel end, median) per kernel per
other client: the kernel's own growth plus that of the gap before the next kernel.
"""
import csv
import sys
from collections import defaultdict

NODES = 32
BYTES = {"triad": 3 * 256 * 2**20, "stream": 4 * 2**20}  # per aggressor kernel


def kind_bytes(kind):
    return BYTES["triad"] if kind.startswith("triad") else BYTES.get(kind, 0)


def main(probe, aggr):
    rows = list(csv.DictReader(open(probe)))
    tbs = defaultdict(float)  # (mode, n, aggr, victim) -> TB/s of all aggressors
    for a in csv.DictReader(open(aggr)):
        key = (a["mode"], a["n"], a["aggr"], a["victim"])
        tbs[key] += float(a["kernels_per_s"]) * kind_bytes(a["aggr"]) / 1e12
    base = defaultdict(list)
    for r in rows:
        if r["n"] == "1":
            base[(r["mode"], r["victim"])].append(r)
    print("mode,victim,aggr,n,aggr_dram_tbs,kern_p50_us,kern_per_client_us,"
          "span_per_kernel_per_client_us,gap_p50_us,req_per_s")
    for r in rows:
        n = int(r["n"])
        if n == 1:
            continue
        b = base[(r["mode"], r["victim"])]
        k0 = sum(float(x["kern_p50_us"]) for x in b) / len(b)
        s0 = sum(float(x["span_p50_us"]) for x in b) / len(b)
        key = (r["mode"], r["n"], r["aggr"], r["victim"])
        dk = (float(r["kern_p50_us"]) - k0) / (n - 1)
        ds = (float(r["span_p50_us"]) - s0) / NODES / (n - 1)
        print(f"{r['mode']},{r['victim']},{r['aggr']},{n},{tbs[key]:.2f},{r['kern_p50_us']},"
              f"{dk:+.2f},{ds:+.2f},{r['gap_p50_us']},{r['req_per_s']}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
