#!/usr/bin/env python3
"""Summarise harness/switch_campaign.sh: per configuration and N, the profiled requests'
GPU span (first kernel start to last kernel end) and busy time (sum of kernel times), and
for N = 2 the kernel time line of both processes merged: how many times the GPU changed
hands while both were profiling, how long each turn ran, and the gap between one
process's last kernel and the other's first (the context switch as the GPU shows it).

  switch_summary.py RAWDIR > switch.csv
"""
import glob
import gzip
import json
import os
import statistics as st
import sys


def main():
    raw = sys.argv[1]
    print("config,n,requests,span_us_p50,busy_us_p50,kernels_per_request,turns,turn_us_p50,switch_gap_us_p10,"
          "switch_gap_us_p50,switch_gap_us_p90")
    cfgs = sorted({os.path.basename(f).rsplit("_n", 1)[0] for f in glob.glob(os.path.join(raw, "*_p0.json.gz"))})
    for cfg in cfgs:
        for n in (1, 2):
            procs = [json.load(gzip.open(f)) for f in sorted(glob.glob(os.path.join(raw, f"{cfg}_n{n}_p*.json.gz")))]
            if not procs:
                continue
            spans, busy, nk, allk = [], [], [], []
            for p in procs:
                ks = sorted((e[2], e[2] + e[3]) for e in p["events"] if e[0] == "kernel")
                allk += [(a, b, p["rank"]) for a, b in ks]
                for e in p["events"]:
                    if e[0] != "user_annotation":
                        continue
                    kk = [k for k in ks if k[0] >= e[2] and k[1] <= e[2] + e[3] + 5]
                    if kk:
                        spans.append(kk[-1][1] - kk[0][0])
                        busy.append(sum(b - a for a, b in kk))
                        nk.append(len(kk))
            turns, gaps = [], []
            if n == 2:
                allk.sort()
                start, end, owner = allk[0][0], allk[0][1], allk[0][2]
                for a, b, r in allk[1:]:
                    if r != owner:
                        turns.append(end - start)
                        gaps.append(a - end)
                        start, owner = a, r
                    end = max(end, b) if r == owner else b
            q = (lambda v, p: sorted(v)[int(p * (len(v) - 1))] if v else float("nan"))
            print(f"{cfg},{n},{len(spans)},{st.median(spans):.1f},{st.median(busy):.1f},{st.median(nk):.0f},"
                  f"{len(gaps)},{q(turns, .5):.1f},{q(gaps, .1):.1f},{q(gaps, .5):.1f},{q(gaps, .9):.1f}")


if __name__ == "__main__":
    main()
