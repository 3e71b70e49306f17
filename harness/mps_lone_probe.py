#!/usr/bin/env python3
"""A lone process's CUDA graphs of PyTorch kernels, span per replay (issue 10, lone10).

  mps_lone_probe.py --out OUT.json [--reps 300] [--variants a,b,...]

Run once without MPS and once as the only client of an MPS server (harness/mps_lone_campaign.sh);
the difference of the spans per node is what being an MPS client costs each kind of kernel.  The
open-loop decoder b1 graph loses 12% inside MPS, all of it in its kernels (FINDINGS §55): every
kernel right after a 1-block kernel grows 0.3-2.4 us under Kineto, the rest ~0.2, while the probe
kernels of mpspct/var (harness/mps_probe.cu) after a 1-block kernel pay ~0.  These variants build the
decoder's own PyTorch kernels (d = 512, fp32, batch 1: harness/torch_graphs.py's Decoder) into
small graphs, one class of neighbour at a time:

  add      64 x  x = x + b                      1-block add after itself
  ln       64 x  x = layer_norm(x)              1-block layer norm after itself
  addln    32 x  (x = x + b; x = ln(x))         the decoder's 1-block add -> 1-block layer norm
  idx      64 x  k.index_copy_(2, p, v)         the decoder's 1-block KV-cache copy after itself
  addwln   32 x  (x = x + b; w = w * s; x = ln(x))   w 1 M floats (2048 blocks): ln after a wide kernel
  lngemv   32 x  (x = x + Linear(ln(x)))        layer norm -> the 512 x 512 gemv (+ bias) -> add
  gemv     64 x  h = W h                        the 512 x 512 gemv (no bias) after itself
  sleep    64 x  torch.cuda._sleep(2000)        a 1-thread spin kernel (tiny code, no memory) after itself
  sleepln  32 x  (_sleep; x = ln(x))            layer norm after the spin kernel, the spin after layer norm
  sleepgemv 32 x (_sleep; h = W h)              the 512 x 512 gemv after the spin kernel
  lnW1     32 x  (h = ln(x); y = W h; x = x + y[:, :512])   W 2048 x 512 (4 MiB), one for all: L2-resident
  lnWs     the same with 32 distinct W (128 MiB of weights streamed per replay, beyond the 50 MiB L2)
  lnWm     the same with 32 distinct 512 x 512 W (32 MiB)
  addlnS   32 x  (s = J_i.sum(); x = x + b; x = ln(x))   J_i distinct 4 MiB slices of 128 MiB: streaming
  addlnL   the same with one J (4 MiB, L2-resident)
  f8, f16  64 x  y = op_i(y), op_i cycling over 8 / 16 distinct elementwise functions (add, mul, sub,
                 div, relu, sigmoid, tanh, exp, sin, cos, abs, neg, sqrt, reciprocal, square, log1p) on
                 [1, 512]: 1-block kernels, each function at LRU distance 7 / 15 (add: the same at d = 0)
  addw, f8w      the same on 2^20 floats (2048-block kernels, L2-resident): add, 8 functions
  f1mix, f8mix   64 x alternating a [1, 512] and a 2^20-float tensor (1 block / 2048 blocks): add only,
                 or the 8 functions in turn (every wide kernel after a 1-block one, at d = 0 / 7)
  dec      the decoder b1 step (torch_graphs.build("decoder", 1)), 151 kernels
  add_late, addln_late   add / addln again after all the others (the process has run more functions)
  addln_mem              addln after 40 GiB more device memory is allocated

Per variant: the graph is captured after 3 eager warm-up runs, replayed 20 times, then --reps times
with a CUDA event before and after each replay and a synchronize after each (a closed loop, no
profiler); the JSON holds per variant the nominal kernel nodes, the spans (us), their median and
10th percentile, and with --kineto the kernels of one replay under torch.profiler made after every
variant's timed replays (name, start, duration: the actual nodes).
"""
import argparse
import json
import statistics
import time

import torch
import torch.nn as nn

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--reps", type=int, default=300)
ap.add_argument("--variants", default="add,ln,addln,idx,addwln,lngemv,gemv,sleep,sleepln,sleepgemv,dec,"
                "add_late,addln_late,addln_mem")
ap.add_argument("--kineto", action="store_true", help="after all timed replays, one replay of each graph under "
                "torch.profiler: its kernels (name cut to 80, grid, duration) into the JSON")
a = ap.parse_args()
dev = torch.device("cuda")
D = 512
torch.manual_seed(1)


def t(*shape):
    return torch.randn(*shape, device=dev)


def make(name):
    """Returns (fn, nodes): fn() issues the variant's kernels once."""
    base = name.replace("_late", "").replace("_mem", "")
    x, b = t(1, D), t(1, D)
    ln = nn.LayerNorm(D).to(dev)
    if base == "add":
        return (lambda: [x.add_(b) for _ in range(64)]), 64
    if base == "ln":
        def f():
            y = x
            for _ in range(64):
                y = ln(y)
        return f, 64
    if base == "addln":
        def f():
            y = x
            for _ in range(32):
                y = ln(y + b)
        return f, 64
    if base == "idx":
        k, v, p = torch.zeros(1, 8, 256, D // 8, device=dev), t(1, 8, 1, D // 8), torch.tensor([17], device=dev)
        return (lambda: [k.index_copy_(2, p, v) for _ in range(64)]), 64
    if base == "addwln":
        w = t(1 << 20)

        def f():
            y = x
            for _ in range(32):
                y = y + b
                w.mul_(1.0001)
                y = ln(y)
        return f, 96
    if base == "lngemv":
        lin = nn.Linear(D, D).to(dev)

        def f():
            y = x
            for _ in range(32):
                y = y + lin(ln(y))
        return f, 96
    if base == "gemv":
        lin = nn.Linear(D, D, bias=False).to(dev)

        def f():
            y = x
            for _ in range(64):
                y = lin(y)
        return f, 64
    if base == "sleep":
        return (lambda: [torch.cuda._sleep(2000) for _ in range(64)]), 64
    if base == "sleepln":
        def f():
            y = x
            for _ in range(32):
                torch.cuda._sleep(2000)
                y = ln(y)
        return f, 64
    if base == "sleepgemv":
        lin = nn.Linear(D, D, bias=False).to(dev)

        def f():
            y = x
            for _ in range(32):
                torch.cuda._sleep(2000)
                y = lin(y)
        return f, 64
    if base in ("lnW1", "lnWs", "lnWm"):
        out = 512 if base == "lnWm" else 2048
        ws = [t(out, D) for _ in range(1 if base == "lnW1" else 32)]

        def f():
            y = x
            for i in range(32):
                z = torch.mv(ws[i % len(ws)], ln(y)[0])
                y = y + z[:D]
        return f, 96
    if base in ("addlnS", "addlnL"):
        J = t(32 if base == "addlnS" else 1, 1 << 20)

        def f():
            y = x
            for i in range(32):
                J[i % J.shape[0]].sum()
                y = ln(y + b)
        return f, 96
    if base in ("f8", "f16", "addw", "f8w", "f1mix", "f8mix"):
        ops = [lambda y, c: y + c, lambda y, c: y * c, lambda y, c: y - c, lambda y, c: y / c,
               lambda y, c: torch.relu(y), lambda y, c: torch.sigmoid(y), lambda y, c: torch.tanh(y),
               lambda y, c: torch.exp(y), lambda y, c: torch.sin(y), lambda y, c: torch.cos(y),
               lambda y, c: torch.abs(y), lambda y, c: torch.neg(y), lambda y, c: torch.sqrt(y),
               lambda y, c: torch.reciprocal(y), lambda y, c: torch.square(y), lambda y, c: torch.log1p(y)]
        nf = {"f8": 8, "f16": 16, "addw": 1, "f8w": 8, "f1mix": 1, "f8mix": 8}[base]
        wide, bw = t(1, 1 << 20), t(1, 1 << 20)
        mix = base.endswith("mix")

        def f():
            ys, yw = x, wide
            for i in range(64):
                if (mix and i % 2) or base in ("addw", "f8w"):
                    yw = ops[i % nf](yw, bw)
                else:
                    ys = ops[i % nf](ys, b)
        return f, 64
    if base == "dec":
        import os
        import sys
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import torch_graphs
        m, _, xh = torch_graphs.build("decoder", 1)
        xd = xh.to(dev)
        return (lambda: m(xd)), 151
    raise SystemExit("unknown variant " + name)


def run(name):
    fn, nodes = make(name)
    with torch.inference_mode():
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            fn()
        torch.cuda.current_stream().wait_stream(s)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            fn()
        torch.cuda.synchronize()
        for _ in range(20):
            g.replay()
        torch.cuda.synchronize()
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        spans = []
        for _ in range(a.reps):
            e0.record()
            g.replay()
            e1.record()
            e1.synchronize()
            spans.append(e0.elapsed_time(e1) * 1000.0)
    return (g, fn), {"nodes": nodes, "median_us": statistics.median(spans),
               "p10_us": sorted(spans)[len(spans) // 10], "spans_us": [round(v, 3) for v in spans]}


def kernels(g):
    """One replay of @g under the profiler: its kernels in order."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        g.replay()
        torch.cuda.synchronize()
    ks = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return [[e.name[:80], round(e.time_range.start, 3), round(e.time_range.end - e.time_range.start, 3)] for e in ks]


res, hold, graphs = {"t0": time.time(), "variants": {}}, [], {}
for name in a.variants.split(","):
    if name.endswith("_mem"):
        hold.append(torch.empty(40 << 30, dtype=torch.uint8, device=dev))
    graphs[name], r = run(name)  # (graph, its function): the tensors it captured stay alive
    res["variants"][name] = r
    print(f"{name}: {r['nodes']} nodes, span median {r['median_us']:.2f} us", flush=True)
if a.kineto:
    for name, (g, _) in graphs.items():
        try:
            res["variants"][name]["kernels"] = kernels(g)
        except Exception as e:  # the spans stand without it
            res["variants"][name]["kernels_error"] = repr(e)
res["t1"] = time.time()
json.dump(res, open(a.out, "w"))
