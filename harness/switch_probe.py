#!/usr/bin/env python3
"""Where the time goes when N processes take turns on the GPU without MPS.

  switch_probe.py --config decoder:1:graph --n N --rank R --barrier DIR --out PREFIX
                  [--nreq 20] [--warmup 30]

Every process builds one configuration (harness/torch_graphs.py's Runner), warms up,
waits at a file barrier, serves 10 requests unprofiled, then --nreq requests under the
PyTorch profiler, each inside record_function("req"); all N profile at once.  Writes
PREFIX.json.gz: the trace's kernels, copies, cudaGraphLaunch/cudaLaunchKernel calls and
the "req" annotations (name, ts, dur), with baseTimeNanoseconds, so the processes'
kernels can be put on one time line.
"""
import argparse
import gzip
import json
import os
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--config", required=True)
ap.add_argument("--n", type=int, required=True)
ap.add_argument("--rank", type=int, required=True)
ap.add_argument("--barrier", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--nreq", type=int, default=20)
ap.add_argument("--warmup", type=int, default=30)
a = ap.parse_args()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch_graphs  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function  # noqa: E402

m, b, mode = a.config.split(":")
r = torch_graphs.Runner(m, int(b), mode)
for _ in range(a.warmup):
    r.request()
open(os.path.join(a.barrier, f"go.{a.rank}"), "w").close()
while sum(1 for f in os.listdir(a.barrier) if f.startswith("go.")) < a.n:
    time.sleep(0.0002)
for _ in range(10):
    r.request()
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for _ in range(a.nreq):
        with record_function("req"):
            r.request()
tmp = a.out + ".raw.json"
prof.export_chrome_trace(tmp)
t = json.load(open(tmp))
os.remove(tmp)
keep = []
for e in t.get("traceEvents", []):
    c = e.get("cat", "")
    n = e.get("name", "")
    if c in ("kernel", "gpu_memcpy", "gpu_memset") or (c == "user_annotation" and n == "req") or (
            c == "cuda_runtime" and ("GraphLaunch" in n or "LaunchKernel" in n or "Synchronize" in n)):
        keep.append([c, n[:40], e.get("ts"), e.get("dur"), e.get("pid"), e.get("tid")])
out = {"config": a.config, "n": a.n, "rank": a.rank, "pid": os.getpid(),
       "baseTimeNanoseconds": t.get("baseTimeNanoseconds"), "events": keep,
       "torch": torch.__version__}
with gzip.open(a.out + ".json.gz", "wt") as f:
    json.dump(out, f, separators=(",", ":"))
print(a.rank, len(keep), "events")
