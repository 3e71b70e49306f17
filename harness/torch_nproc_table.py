#!/usr/bin/env python3
"""README "What-if from a trace": the table of N resnet18 processes predicted from one profile.

  torch_nproc_table.py [--hqsim build/hqsim] [--host-scale 0.372] [--iterations 300]

Measured: traces/measured/h100/pytorch/torch_{nomps,mps}_n{1,2,4,8}_requests.csv (requests /
(last end - first start); percentiles by nearest rank over every request, as hqsim's).  Predicted:
hqsim run torch_profile_trace.json.gz --loop-request --iterations I --host-scale H --processes N
--mode timeslice|mps (the rows of `hqsim compare ... --processes N`).  Prints the README's rows.
The host scale comes from harness/torch_host_scale.py.
"""
import argparse
import csv
import json
import math
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
D = os.path.join(ROOT, "traces/measured/h100/pytorch")
ap = argparse.ArgumentParser()
ap.add_argument("--hqsim", default=os.path.join(ROOT, "build", "hqsim"))
ap.add_argument("--host-scale", default="0.372")
ap.add_argument("--iterations", type=int, default=300)
a = ap.parse_args()


def pct(v, p):
    v = sorted(v)
    return v[min(len(v), max(1, math.ceil(p / 100 * len(v)))) - 1]


def measured(mode, n):
    rows = list(csv.DictReader(open(os.path.join(D, f"torch_{mode}_n{n}_requests.csv"))))
    thr = len(rows) / ((max(int(r["end_ns"]) for r in rows) - min(int(r["start_ns"]) for r in rows)) / 1e9)
    lat = [int(r["latency_ns"]) / 1e6 for r in rows]
    return thr, [pct(lat, p) for p in (50, 90, 99)]


def predicted(mode, n):
    cmd = [a.hqsim, "run", os.path.join(D, "torch_profile_trace.json.gz"), "--loop-request", "--iterations",
           str(a.iterations), "--host-scale", a.host_scale, "--processes", str(n), "--mode",
           "timeslice" if mode == "nomps" else "mps", "-q", "--json", "-"]
    r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)["run"]
    return r["throughput_per_s"], [r[f"latency_p{p}_ms"] for p in (50, 90, 99)]


print("| N | mode | measured req/s | predicted | error | measured p50 / p90 / p99 ms | predicted p50 / p90 / p99 "
      "| p99 error | p99/p50 measured / predicted |")
print("|---|---|---|---|---|---|---|---|---|")
for n in (1, 2, 4, 8):
    for mode in ("nomps", "mps"):
        mt, ml = measured(mode, n)
        pt, pl = predicted(mode, n)
        print(f"| {n} | {'no MPS' if mode == 'nomps' else 'MPS'} | {mt:.1f} | {pt:.1f} | {100 * (pt / mt - 1):+.1f}% "
              f"| {' / '.join(f'{x:.2f}' for x in ml)} | {' / '.join(f'{x:.2f}' for x in pl)} "
              f"| {100 * (pl[2] / ml[2] - 1):+.1f}% | {ml[2] / ml[0]:.2f} / {pl[2] / pl[0]:.2f} |", flush=True)
