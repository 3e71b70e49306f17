#!/usr/bin/env python3
"""The host scale of the resnet18 PyTorch profile (README "What-if from a trace"): the --host-scale
that makes one unprofiled process without MPS serve what it measured.

  torch_host_scale.py [--hqsim build/hqsim] [--iterations 300]

Measured: traces/measured/h100/pytorch/torch_nomps_n1_requests.csv, requests / (last end - first
start) (467.3 requests/s).  Predicted: hqsim run torch_profile_trace.json.gz --loop-request
--iterations I --host-scale H --processes 1 --mode timeslice (its throughput_per_s).  Bisection on
H in [0.2, 0.6] (the profiler slows the host two- to fivefold); prints each step and the scale to
three decimals, the one figure the README's N = 1..8 table, its host-core table and
tests/test_e2e_closed_loop.c use.  tests/test_pytorch.c fits the same way at 100 iterations.
"""
import argparse
import csv
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
D = os.path.join(ROOT, "traces/measured/h100/pytorch")
ap = argparse.ArgumentParser()
ap.add_argument("--hqsim", default=os.path.join(ROOT, "build", "hqsim"))
ap.add_argument("--iterations", type=int, default=300)
ap.add_argument("--steps", type=int, default=16)
a = ap.parse_args()

rows = list(csv.DictReader(open(os.path.join(D, "torch_nomps_n1_requests.csv"))))
target = len(rows) / ((max(int(r["end_ns"]) for r in rows) - min(int(r["start_ns"]) for r in rows)) / 1e9)


def thr(h):
    cmd = [a.hqsim, "run", os.path.join(D, "torch_profile_trace.json.gz"), "--loop-request", "--iterations",
           str(a.iterations), "--host-scale", f"{h:.6f}", "--processes", "1", "--mode", "timeslice", "-q",
           "--json", "-"]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)["run"][
        "throughput_per_s"]


lo, hi = 0.2, 0.6
print(f"measured N = 1 without MPS: {target:.1f} requests/s")
for _ in range(a.steps):
    mid = (lo + hi) / 2
    t = thr(mid)
    print(f"  host scale {mid:.6f}: {t:.1f} requests/s")
    lo, hi = (mid, hi) if t > target else (lo, mid)
h = round((lo + hi) / 2, 3)
print(f"host scale {h:.3f}: {thr(h):.1f} requests/s ({a.iterations} iterations)")
