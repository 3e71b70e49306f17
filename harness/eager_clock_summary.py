#!/usr/bin/env python3
"""eager_clock_summary.py RAW OUT.csv -- harness/eager_clock_campaign.sh's groups, one row per
group x configuration: the group's closed-loop throughput (requests per second, summed over its
processes), the pooled p50 / p90 latency, and the GPU beside it while the phase ran (the 50 ms
samples of clocks.csv inside [t_go, t_last] of rank 0): median and minimum SM clock (MHz),
mean utilisation (%), mean power (W), the P-states seen; and the host CPUs' mean MHz at the
group's start."""
import glob
import json
import os
import statistics
import sys


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def clocks(path):
    out = []
    for line in open(path):
        f = [x.strip() for x in line.split(",")]
        if len(f) != 6:
            continue
        try:
            out.append((int(f[0]), float(f[1]), float(f[3]), float(f[4]), f[5]))
        except ValueError:
            continue  # "[N/A]" or a torn line
    return out


def main(raw, out_csv):
    clk = clocks(os.path.join(raw, "clocks.csv")) if os.path.exists(os.path.join(raw, "clocks.csv")) else []
    mhz = {}
    if os.path.exists(os.path.join(raw, "cpu_mhz.txt")):
        for line in open(os.path.join(raw, "cpu_mhz.txt")):
            t, _, v = line.split()
            mhz[t] = float(v)
    order = [l.split()[0] for l in open(os.path.join(raw, "groups.txt")) if l.split()[1] == "start"]
    rows = []
    for tag in order:
        procs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(raw, f"{tag}_p*.json")))]
        if not procs:
            continue
        for i, ph in enumerate(procs[0]["phases"]):
            lat, thr = [], 0.0
            for p in procs:
                q = p["phases"][i]
                lat += q["lat_us"]
                thr += len(q["lat_us"]) / ((q["t_last"] - q["t_go"]) / 1e9)
            t0, t1 = ph["t_go"] // 1000000, ph["t_last"] // 1000000
            w = [c for c in clk if t0 <= c[0] <= t1]
            sm = [c[1] for c in w]
            rows.append([tag, len(procs), ph["cfg"], f"{thr:.1f}", f"{pct(lat, 0.5) / 1000:.3f}",
                         f"{pct(lat, 0.9) / 1000:.3f}", len(w),
                         f"{statistics.median(sm):.0f}" if sm else "", f"{min(sm):.0f}" if sm else "",
                         f"{statistics.mean(c[2] for c in w):.1f}" if w else "",
                         f"{statistics.mean(c[3] for c in w):.1f}" if w else "",
                         "/".join(sorted({c[4] for c in w})), f"{mhz.get(tag, float('nan')):.0f}"])
    with open(out_csv, "w") as f:
        f.write("group,n,config,thr_per_s,p50_ms,p90_ms,samples,sm_mhz_p50,sm_mhz_min,"
                "util_mean,power_w_mean,pstates,cpu_mhz\n")
        for r in rows:
            f.write(",".join(str(x) for x in r) + "\n")
    for r in rows:
        print(*r)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
