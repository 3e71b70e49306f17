#!/usr/bin/env python3
"""What sets the spacing between CUDA-graph nodes (issue 10, FINDINGS §36).

The Kineto traces of traces/measured/h100/launch/kineto/ space graph nodes
0.416 us apart (kernel -> kernel, CUPTI) in every PyTorch model graph
(55-228 nodes), with memset nodes costing 1.0 us before and 3.5-4.8 us after
them, but the 13-node micro graph spaces every node (kernels, 16 KiB
memsets, 16 KiB device copies) 0.256 us apart.  This script captures graphs
that differ in one thing at a time and records CUPTI timestamps with
torch.profiler, as the traces were recorded:

  chain_nN      N tiny kernels (a.add_(1) on 4096 floats: 4 blocks), N = 4..512
  funcs_nN_kK   N tiny kernels cycling through K different functions
  wide_nN       N kernels of 1024 blocks (1M floats)
  mset_SIZE_nN  N tiny kernels with a memset of SIZE bytes after every 4th
  copy_nN       N tiny kernels with a 16 KiB device copy after every 4th
  micro         the micro graph of harness/torch_graphs.py

Each variant: capture once, 20 warm replays, then --reps profiled replays;
per transition kind (K->K, K->memset, memset->K, ...) the median gap
(start of a node minus end of the one before it, us) over the replays.

Usage: graph_spacing.py OUTDIR   (writes OUTDIR/graph_spacing.json, info.txt)
"""
import argparse
import ctypes
import glob
import json
import os
import statistics
import subprocess
import tempfile
import time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--reps", type=int, default=10)
ap.add_argument("--cpu", action="store_true", help="profile CPU activities too (as torch_graphs.py)")
ap.add_argument("--only", default=None, help="regular expression: variants to run")
ap.add_argument("--request", action="store_true",
                help="replay as torch_graphs.py's request: pinned input -> device, replay, output -> host")
ap.add_argument("--tag", default="", help="suffix of the output file names")
a = ap.parse_args()
os.makedirs(a.out, exist_ok=True)
dev = torch.device("cuda")
stream = torch.cuda.Stream()


def cudart():
    """cudaMemsetAsync from the CUDA runtime torch ships (cupy not needed)."""
    try:
        import cupy
        return lambda p, v, n, s: cupy.cuda.runtime.memsetAsync(p, v, n, s)
    except Exception:
        pass
    libs = glob.glob(os.path.join(os.path.dirname(torch.__file__), "..", "nvidia", "cu*", "lib",
                                  "libcudart.so*"))
    libs += glob.glob(os.path.join(os.path.dirname(torch.__file__), "..", "nvidia",
                                   "cuda_runtime", "lib", "libcudart.so*"))
    libs += ["libcudart.so"]
    for lib in libs:
        try:
            rt = ctypes.CDLL(lib)
            break
        except OSError:
            continue
    rt.cudaMemsetAsync.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t,
                                   ctypes.c_void_p]

    def memset(p, v, n, s):
        err = rt.cudaMemsetAsync(p, v, n, s)
        assert err == 0, f"cudaMemsetAsync {err}"
    return memset


memset_async = cudart()
small = torch.zeros(4096, device=dev)
big = torch.zeros(1 << 20, device=dev)
pool = torch.zeros(1 << 22, device=dev)  # memset / copy targets
funcs = [lambda t: t.add_(1.0), lambda t: t.mul_(0.5), lambda t: t.sub_(0.25),
         lambda t: t.div_(2.0), lambda t: torch.relu_(t), lambda t: t.clamp_(min=-1.0),
         lambda t: torch.sigmoid_(t), lambda t: torch.tanh_(t)]


def body(n, k=1, tensor=None, mset=0, copy=0):
    t = small if tensor is None else tensor

    def run():
        s = torch.cuda.current_stream().cuda_stream
        for i in range(n):
            funcs[i % k](t)
            if mset and i % 4 == 3:
                memset_async(pool.data_ptr(), 0, mset, s)
            if copy and i % 4 == 3:
                pool[:copy // 4].copy_(small[:copy // 4])
    return run


def micro():
    aa, bb, x = pool[:4096], pool[8192:12288], torch.ones(4, device=dev)

    def run():
        s = torch.cuda.current_stream().cuda_stream
        aa.add_(x[0]); aa.mul_(0.5); memset_async(bb.data_ptr(), 0, 16384, s)
        bb.add_(aa); bb.copy_(aa); aa.add_(1.0)
        memset_async(aa.data_ptr(), 0, 16384, s); memset_async(bb.data_ptr(), 0, 16384, s)
        aa.add_(bb); bb.copy_(aa); bb.copy_(aa)
    return run


def variants():
    v = {}
    for n in (4, 8, 13, 16, 24, 32, 48, 64, 128, 256, 512):
        v[f"chain_n{n}"] = body(n)
    for n in (13, 128):
        for k in (2, 4, 8):
            v[f"funcs_n{n}_k{k}"] = body(n, k)
    for n in (13, 128):
        v[f"wide_n{n}"] = body(n, tensor=big)
    for size in (256, 640, 4096, 6144, 8192, 12288, 16384, 65536, 1 << 20):
        for n in (12, 128):
            v[f"mset_{size}_n{n}"] = body(n, mset=size)
    for n in (12, 128):
        v[f"copy_n{n}"] = body(n, copy=16384)
    v["micro"] = micro()
    return v


def kind(e):
    return {"kernel": "K", "gpu_memset": "memset", "gpu_memcpy": "copy"}[e["cat"]]


def gaps(trace):
    ev = [e for e in trace["traceEvents"] if e.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy")]
    ev.sort(key=lambda e: e["ts"])
    out, spans, start = {}, [], None
    for x, y in zip(ev, ev[1:]):
        g = y["ts"] - (x["ts"] + x["dur"])
        if start is None:
            start = x["ts"]
        if g > 20:  # the next replay
            spans.append(x["ts"] + x["dur"] - start)
            start = None
            continue
        out.setdefault(f"{kind(x)}->{kind(y)}", []).append(g)
    return out, spans, len(ev)


def measure(name, fn):
    with torch.cuda.stream(stream):
        fn()  # warm the allocator / kernels eagerly
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=stream):
        fn()
    for _ in range(20):
        g.replay()
    torch.cuda.synchronize()
    acts = [torch.profiler.ProfilerActivity.CUDA]
    if a.cpu:
        acts.append(torch.profiler.ProfilerActivity.CPU)
    xh, xd = torch.ones(4).pin_memory(), torch.empty(4, device=dev)
    with torch.profiler.profile(activities=acts) as prof:
        for _ in range(a.reps):
            if a.request:
                xd.copy_(xh, non_blocking=True)
                g.replay()
                small[:16].to("cpu")
            else:
                g.replay()
                time.sleep(0.0002)
            torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    prof.export_chrome_trace(path)
    with open(path) as f:
        trace = json.load(f)
    os.unlink(path)
    gp, spans, nev = gaps(trace)
    row = {"variant": name, "events": nev,
           "span_us_median": statistics.median(spans) if spans else None}
    for k, v in sorted(gp.items()):
        row[k] = {"n": len(v), "median": round(statistics.median(v), 4),
                  "p10": round(sorted(v)[len(v) // 10], 4),
                  "p90": round(sorted(v)[9 * len(v) // 10], 4)}
    return row


rows = []
import re  # noqa: E402
for name, fn in variants().items():
    if a.only and not re.search(a.only, name):
        continue
    try:
        rows.append(measure(name, fn))
    except Exception as e:  # keep the other variants' data
        rows.append({"variant": name, "error": repr(e)})
    r = rows[-1]
    print(name, {k: (v["median"] if isinstance(v, dict) else v) for k, v in r.items()
                 if k != "variant"}, flush=True)

smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                     capture_output=True, text=True).stdout.strip()
info = (f"gpu,driver: {smi}\ntorch {torch.__version__} cuda {torch.version.cuda}\n"
        f"date {time.strftime('%Y-%m-%dT%H:%MZ', time.gmtime())}\n"
        f"command: python3 harness/graph_spacing.py OUT --reps {a.reps}"
        f"{' --cpu' if a.cpu else ''}{' --only ' + a.only if a.only else ''}\n")
with open(os.path.join(a.out, f"info{a.tag}.txt"), "w") as f:
    f.write(info)
with open(os.path.join(a.out, f"graph_spacing{a.tag}.json"), "w") as f:
    json.dump(rows, f, indent=1)
print(info)
