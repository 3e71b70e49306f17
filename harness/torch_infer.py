#!/usr/bin/env python3
"""Closed-loop inference of a torchvision model (random weights, eval, fp32, CUDA).

Each request: pinned host input -> H2D copy (non_blocking) -> forward -> logits to host
-> torch.cuda.synchronize(). Per-request host timestamps (CLOCK_REALTIME ns) are written
to OUT_requests.csv. --barrier DIR: after warm-up, touch DIR/ready.<pid> and wait for
DIR/go (so N processes start their timed loops together). --profile: record the timed
loop with torch.profiler and export a Chrome/Kineto trace (gzip) as OUT_trace.json.gz.
"""
import argparse
import gzip
import json
import os
import shutil
import time

import torch
import torchvision

ap = argparse.ArgumentParser()
ap.add_argument("--model", default="resnet18")
ap.add_argument("--batch", type=int, default=8)
ap.add_argument("--warmup", type=int, default=50)
ap.add_argument("--nreq", type=int, default=300)
ap.add_argument("--out", required=True)
ap.add_argument("--barrier", default=None)
ap.add_argument("--profile", action="store_true")
a = ap.parse_args()

t_start = time.time_ns()
torch.manual_seed(0)
dev = torch.device("cuda")
model = getattr(torchvision.models, a.model)(weights=None).to(dev).eval()
xh = torch.randn(a.batch, 3, 224, 224).pin_memory()
xd = torch.empty_like(xh, device=dev)
t_ready_model = time.time_ns()


def request():
    xd.copy_(xh, non_blocking=True)
    y = model(xd)
    out = y.to("cpu", non_blocking=False)
    torch.cuda.synchronize()
    return out


with torch.inference_mode():
    for _ in range(a.warmup):
        request()
    torch.cuda.synchronize()
    free, total = torch.cuda.mem_get_info()
    t_go = None
    if a.barrier:
        open(os.path.join(a.barrier, f"ready.{os.getpid()}"), "w").close()
        go = os.path.join(a.barrier, "go")
        while not os.path.exists(go):
            time.sleep(0.0002)
        t_go = time.time_ns()
    rows = []
    prof = None
    if a.profile:
        from torch.profiler import ProfilerActivity, profile
        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True)
        prof.__enter__()
    for i in range(a.nreq):
        t0 = time.time_ns()
        request()
        t1 = time.time_ns()
        rows.append((i, t0, t1))
    if prof is not None:
        prof.__exit__(None, None, None)
        tmp = a.out + "_trace.json"
        prof.export_chrome_trace(tmp)
        with open(tmp, "rb") as fi, gzip.open(tmp + ".gz", "wb", compresslevel=9) as fo:
            shutil.copyfileobj(fi, fo)
        os.remove(tmp)
        with open(a.out + "_kernels.txt", "w") as f:
            f.write(prof.key_averages().table(sort_by="cuda_time_total", row_limit=40))

with open(a.out + "_requests.csv", "w") as f:
    f.write("pid,i,t0_ns,t1_ns\n")
    for i, t0, t1 in rows:
        f.write(f"{os.getpid()},{i},{t0},{t1}\n")
lat = sorted((t1 - t0) / 1e6 for _, t0, t1 in rows)
meta = {
    "pid": os.getpid(), "model": a.model, "batch": a.batch, "warmup": a.warmup, "nreq": a.nreq,
    "torch": torch.__version__, "torchvision": torchvision.__version__, "cuda": torch.version.cuda,
    "cudnn": torch.backends.cudnn.version(), "device": torch.cuda.get_device_name(0),
    "sm_count": torch.cuda.get_device_properties(0).multi_processor_count,
    "mem_free_after_warmup": free, "mem_total": total,
    "max_memory_allocated": torch.cuda.max_memory_allocated(), "max_memory_reserved": torch.cuda.max_memory_reserved(),
    "t_start": t_start, "t_ready_model": t_ready_model, "t_go": t_go,
    "lat_ms_p50": lat[len(lat) // 2] if lat else None, "lat_ms_p99": lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else None,
    "env": {k: os.environ.get(k, "") for k in ("CUDA_MPS_PIPE_DIRECTORY", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                                               "CUDA_DEVICE_MAX_CONNECTIONS")},
}
if rows:
    meta["throughput_req_s"] = len(rows) / ((rows[-1][2] - rows[0][1]) / 1e9)
with open(a.out + "_meta.json", "w") as f:
    json.dump(meta, f, indent=1)
print(json.dumps({k: meta[k] for k in ("pid", "lat_ms_p50", "lat_ms_p99")}))
