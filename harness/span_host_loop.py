#!/usr/bin/env python3
"""A fixed Python + torch host loop beside busy sibling processes (FINDINGS §44, issue 10; span10b).

usage: span_host_loop.py --rank R --n N --barrier DIR --out FILE [--secs 1.5] [--mode cpu|cuda]

N processes start together (files in DIR; rank 0 writes the start time).  Every process runs
the same loop for --secs; rank 0 times blocks of 200 iterations and writes one row per block
(rank,n,mode,block,us_per_iter) to FILE; the others only keep their core busy with the same loop.
One iteration is the host side of a graph request of the open-loop campaign without its GPU
wait (torch_graphs.py Runner.request()):
  cpu   under torch.inference_mode(): copy_ of a 64-element CPU tensor into another, an add,
        .to("cpu") of a 32 KiB CPU tensor (a no-op call through the dispatcher), a view and
        a Python call: aten dispatch and Python, no CUDA call
  cuda  the same plus a 64-byte H2D copy_ (non_blocking, from pinned memory) on the current
        stream and torch.cuda.current_stream().query(), no synchronize: CUDA runtime calls
        that do not wait for the GPU (the stream holds only tiny copies)
"""
import argparse
import statistics
import time

import torch

from start_together import start_together  # the script's folder is on sys.path

ap = argparse.ArgumentParser()
ap.add_argument("--rank", type=int, required=True)
ap.add_argument("--n", type=int, required=True)
ap.add_argument("--barrier", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--secs", type=float, default=1.5)
ap.add_argument("--mode", choices=("cpu", "cuda"), default="cpu")
a = ap.parse_args()

x = torch.zeros(64)
y = torch.ones(64)
big = torch.zeros(8192)
if a.mode == "cuda":
    xh = torch.zeros(16).pin_memory()
    xd = torch.empty(16, device="cuda")
    st = torch.cuda.current_stream()


def step():
    with torch.inference_mode():
        x.copy_(y)
        z = x + 1.0
        o = big.to("cpu")
        v = o.view(-1, 64)
        if a.mode == "cuda":
            xd.copy_(xh, non_blocking=True)
            st.query()
        return z, v


for _ in range(2000):
    step()
if a.mode == "cuda":
    torch.cuda.synchronize()

t0 = start_together(a.barrier, a.rank, a.n, 0.2)
while time.time() < t0:
    pass
end = t0 + a.secs
pc = time.perf_counter
blocks = []
k = 0
while time.time() < end:
    s = pc()
    for _ in range(200):
        step()
    blocks.append((pc() - s) * 1e6 / 200)
    k += 1
    if a.mode == "cuda" and k % 8 == 0:
        torch.cuda.synchronize()  # keep the stream short (outside the timed blocks)
if a.rank == 0:
    with open(a.out, "w") as f:
        f.write("rank,n,mode,block,us_per_iter\n")
        for i, b in enumerate(blocks):
            f.write(f"{a.rank},{a.n},{a.mode},{i},{b:.3f}\n")
    print("rank0", a.n, a.mode, len(blocks), "blocks, median", round(statistics.median(blocks), 3),
          "us/iter")
