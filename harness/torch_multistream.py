#!/usr/bin/env python3
"""A small multi-stream PyTorch program recorded with torch.profiler (Kineto trace, gzip):
stream s1: chain of 2048x2048 fp32 matmuls; stream s2: conv2d chain; stream s3: pinned
H2D/D2H copies of 32 MiB; the default stream waits for all three through events, then
adds the results. 5 iterations after 3 warm-ups. Output: OUT_trace.json.gz, OUT_meta.json.
"""
import argparse
import gzip
import json
import os
import shutil
import time

import torch
from torch.profiler import ProfilerActivity, profile

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
a = ap.parse_args()
dev = torch.device("cuda")
torch.manual_seed(0)
A = torch.randn(2048, 2048, device=dev)
B = torch.randn(2048, 2048, device=dev)
X = torch.randn(16, 64, 56, 56, device=dev)
W = torch.randn(64, 64, 3, 3, device=dev)
H = torch.randn(8 << 20).pin_memory()
D = torch.empty(8 << 20, device=dev)
H2 = torch.empty(8 << 20).pin_memory()
s1, s2, s3 = torch.cuda.Stream(), torch.cuda.Stream(), torch.cuda.Stream()


def step():
    e = []
    with torch.cuda.stream(s1):
        c = A
        for _ in range(4):
            c = torch.mm(c, B)
        e1 = torch.cuda.Event(); e1.record(s1)
    with torch.cuda.stream(s2):
        y = X
        for _ in range(4):
            y = torch.nn.functional.conv2d(y, W, padding=1)
        e2 = torch.cuda.Event(); e2.record(s2)
    with torch.cuda.stream(s3):
        D.copy_(H, non_blocking=True)
        H2.copy_(D, non_blocking=True)
        e3 = torch.cuda.Event(); e3.record(s3)
    cur = torch.cuda.current_stream()
    for ev in (e1, e2, e3):
        cur.wait_event(ev)
    r = c.sum() + y.sum() + D.sum()
    torch.cuda.synchronize()
    return r


with torch.no_grad():
    for _ in range(3):
        step()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            step()
tmp = a.out + "_trace.json"
prof.export_chrome_trace(tmp)
with open(tmp, "rb") as fi, gzip.open(tmp + ".gz", "wb", compresslevel=9) as fo:
    shutil.copyfileobj(fi, fo)
os.remove(tmp)
with open(a.out + "_meta.json", "w") as f:
    json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "t": time.time_ns(),
               "program": "3 streams: 4x mm 2048^2 | 4x conv2d 16x64x56x56 3x3 | 32MiB H2D+D2H pinned; 5 iterations"},
              f, indent=1)
