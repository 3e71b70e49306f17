#!/usr/bin/env python3
"""resnet50 b1's per-kernel growth at 50/25% threads beside its Nsight Compute throughputs (FINDINGS
§46): joins mps_pct_fixed_fit.py --per-kernel's CSV with a raw `ncu --csv --page details` file of
harness/ncu_campaign.sh (SpeedOfLight, MemoryWorkloadAnalysis, Occupancy, SchedulerStats sections)
on (kernel name cut to 60, grid, block); medians over the kernel's launches. Kernels whose Kineto and
ncu names differ within 60 characters are not matched (counted on stderr).
usage: mps_pctw_ncu.py GROWTH.csv CONFIG NCU_RAW.csv OUT.csv"""
import collections
import csv
import statistics
import sys

METRICS = ["Duration", "L2 Cache Throughput", "L1/TEX Cache Throughput", "DRAM Throughput",
           "Compute (SM) Throughput", "Mem Busy", "Achieved Occupancy", "Issue Slots Busy"]


def ncu(path):
    lines = [ln for ln in open(path) if not ln.startswith("==")]
    rd = csv.reader(lines)
    h = next(rd)
    ix = {k: h.index(k) for k in ("Kernel Name", "Grid Size", "Block Size", "Metric Name", "Metric Value")}
    met = collections.defaultdict(lambda: collections.defaultdict(list))
    for x in rd:
        key = (x[ix["Kernel Name"]][:60], x[ix["Grid Size"]].strip("()").replace(", ", "x"),
               x[ix["Block Size"]].strip("()").replace(", ", "x"))
        try:
            met[key][x[ix["Metric Name"]]].append(float(x[ix["Metric Value"]].replace(",", "")))
        except ValueError:
            pass
    return met


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    growth, cfg, raw, out = sys.argv[1:]
    met = ncu(raw)
    rows, miss = [], 0
    for g in csv.DictReader(open(growth)):
        if g["config"] != cfg:
            continue
        k = (g["kernel"], g["grid"], g["block"])
        if k not in met:
            miss += 1
            continue
        row = {c: g[c] for c in ("kernel", "grid", "block", "per_request", "meas_us_100", "meas_growth_50",
                                 "hqsim_growth_50", "meas_growth_25", "hqsim_growth_25")}
        for m in METRICS:
            v = met[k].get(m)
            row[m.lower().replace(" ", "_").replace("/", "_").replace("(", "").replace(")", "")] = \
                round(statistics.median(v), 2) if v else ""
        rows.append(row)
    print(f"{len(rows)} kernels matched, {miss} not", file=sys.stderr)
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
