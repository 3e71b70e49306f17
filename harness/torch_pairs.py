#!/usr/bin/env python3
"""Real library kernels alone and together (hqsim part L, issue 11): cuBLAS GEMMs (fp32, fp16 and
bf16 tensor-core; one that does not fill the GPU), a cuDNN convolution, an elementwise add, a sum,
softmax, layer norm and a skinny (GEMV-like) matmul, recorded with torch.profiler (Kineto).

  torch_pairs.py streams --out PREFIX [--reps 5]
      one process: every op alone (solo phase, --reps times), then the pairs and quads of
      EXPERIMENTS, each op on its own CUDA stream, launched back to back from the host,
      --reps times (each rep: synchronize, sleep 1 ms, launch all, synchronize).
      Writes PREFIX_trace.json.gz and PREFIX_meta.json.
      --together: GPU activity only (no CPU ops or annotations: the profiler's CPU recording
      costs ~60-100 us per op, which staggers the launches); the meta file's "sequence" then
      names the iterations in order, delimited by the synchronizes.
  torch_pairs.py proc --op OP --n N --rank R --barrier DIR --out PREFIX [--iters 5] [--launches 6]
      one of N processes: per iteration a file barrier with the others, then --launches
      launches of OP on one stream, synchronize.  Same outputs.
  torch_pairs.py ncu --out PREFIX
      every op once between cudaProfilerStart/Stop (after a warm-up), for
      `ncu --profile-from-start off`; writes PREFIX_meta.json.

Every iteration and every op launch is a record_function range ("L|<exp>|<rep>",
"op|<name>"), so harness/torch_pairs_post.py can tell which kernels belong to which op of
which experiment.  Provenance (GPU, driver, CUDA, torch, date) goes to the meta file.
--mock writes a synthetic trace of the same layout without torch (to test the scripts).
"""
import argparse
import contextlib
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import time

# name -> (family, description); shapes in build_ops()
OPS = {
    "mm_f32": ("cublas", "fp32 GEMM 2048x2048x2048 (torch.mm, TF32 off)"),
    "mm_f16": ("cublas", "fp16 GEMM 4096x4096x4096 (tensor cores)"),
    "mm_bf16s": ("cublas", "bf16 GEMM 512x1024x8192 (tensor cores; too few tiles to fill 132 SMs)"),
    "conv": ("cudnn", "fp16 conv2d 64x128x56x56, 128 filters 3x3, pad 1, channels_last"),
    "add": ("elementwise", "fp32 add of two 64M-element tensors into a third"),
    "sum": ("reduce", "fp32 sum of 128M elements"),
    "softmax": ("softmax", "fp32 softmax over rows of 16384x4096"),
    "layernorm": ("layernorm", "fp32 layer_norm over rows of 16384x4096"),
    "gemv": ("cublas", "fp16 skinny matmul [8x8192] x [8192x16384] (GEMV-like, reads 256 MiB)"),
}

# experiment -> ops, each on its own stream, launched in this order
EXPERIMENTS = {
    # compute + compute
    "l_mm16_mm32": ["mm_f16", "mm_f32"],
    "l_mm16_conv": ["mm_f16", "conv"],
    "l_conv_mm16": ["conv", "mm_f16"],
    "l_mm32_conv": ["mm_f32", "conv"],
    "l_mms_x2": ["mm_bf16s", "mm_bf16s"],
    "l_mms_conv": ["mm_bf16s", "conv"],
    "l_mm16_x2": ["mm_f16", "mm_f16"],
    # compute + memory
    "l_mm16_add": ["mm_f16", "add"],
    "l_add_mm16": ["add", "mm_f16"],
    "l_mm32_add": ["mm_f32", "add"],
    "l_conv_sum": ["conv", "sum"],
    "l_mms_gemv": ["mm_bf16s", "gemv"],
    "l_mms_softmax": ["mm_bf16s", "softmax"],
    "l_conv_lnorm": ["conv", "layernorm"],
    # memory + memory
    "l_add_x2": ["add", "add"],
    "l_add_sum": ["add", "sum"],
    "l_softmax_lnorm": ["softmax", "layernorm"],
    "l_gemv_add": ["gemv", "add"],
    "l_sum_softmax": ["sum", "softmax"],
    "l_gemv_x2": ["gemv", "gemv"],
    # quads
    "l_quad_mix": ["mm_f16", "conv", "add", "sum"],
    "l_quad_small": ["mm_bf16s", "gemv", "softmax", "layernorm"],
    "l_quad_gemm": ["mm_f32", "mm_bf16s", "sum", "gemv"],
    "l_quad_mem": ["add", "sum", "softmax", "layernorm"],
}


def provenance(mock):
    p = {"date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "host": os.uname().release,
         "python": sys.version.split()[0]}
    if mock:
        p.update({"gpu": "mock", "torch": "mock"})
        return p
    import torch
    p.update({"torch": torch.__version__, "cuda_runtime": torch.version.cuda,
              "cudnn": torch.backends.cudnn.version(), "gpu": torch.cuda.get_device_name(0),
              "sm_count": torch.cuda.get_device_properties(0).multi_processor_count,
              "allow_tf32_matmul": torch.backends.cuda.matmul.allow_tf32,
              "allow_tf32_cudnn": torch.backends.cudnn.allow_tf32,
              "cudnn_benchmark": torch.backends.cudnn.benchmark})
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        p["nvidia_smi"] = q.stdout.strip()
    except Exception as e:  # provenance is best effort; the trace names the GPU too
        p["nvidia_smi"] = f"unavailable: {e}"
    return p


def build_ops(names):
    """name -> a closure that launches the op on the current stream (outputs preallocated where
    the op has an out= form, so the caching allocator stays out of the way)."""
    import torch
    import torch.nn.functional as F
    dev = torch.device("cuda")
    g = torch.Generator(device=dev).manual_seed(0)

    def rnd(*shape, dtype=torch.float32):
        return torch.randn(*shape, device=dev, dtype=dtype, generator=g)
    ops = {}
    for n in names:
        if n == "mm_f32":
            a, b, c = rnd(2048, 2048), rnd(2048, 2048), torch.empty(2048, 2048, device=dev)
            ops[n] = lambda a=a, b=b, c=c: torch.mm(a, b, out=c)
        elif n == "mm_f16":
            a, b = rnd(4096, 4096, dtype=torch.float16), rnd(4096, 4096, dtype=torch.float16)
            c = torch.empty(4096, 4096, device=dev, dtype=torch.float16)
            ops[n] = lambda a=a, b=b, c=c: torch.mm(a, b, out=c)
        elif n == "mm_bf16s":
            a, b = rnd(512, 8192, dtype=torch.bfloat16), rnd(8192, 1024, dtype=torch.bfloat16)
            c = torch.empty(512, 1024, device=dev, dtype=torch.bfloat16)
            ops[n] = lambda a=a, b=b, c=c: torch.mm(a, b, out=c)
        elif n == "conv":
            x = rnd(64, 128, 56, 56, dtype=torch.float16).to(memory_format=torch.channels_last)
            w = rnd(128, 128, 3, 3, dtype=torch.float16).to(memory_format=torch.channels_last)
            ops[n] = lambda x=x, w=w: F.conv2d(x, w, padding=1)
        elif n == "add":
            x, y, z = rnd(64 << 20), rnd(64 << 20), torch.empty(64 << 20, device=dev)
            ops[n] = lambda x=x, y=y, z=z: torch.add(x, y, out=z)
        elif n == "sum":
            x = rnd(128 << 20)
            ops[n] = lambda x=x: x.sum()
        elif n == "softmax":
            x = rnd(16384, 4096)
            ops[n] = lambda x=x: torch.softmax(x, dim=-1)
        elif n == "layernorm":
            x, w, b = rnd(16384, 4096), rnd(4096), rnd(4096)
            ops[n] = lambda x=x, w=w, b=b: F.layer_norm(x, (4096,), w, b)
        elif n == "gemv":
            x, w = rnd(8, 8192, dtype=torch.float16), rnd(8192, 16384, dtype=torch.float16)
            y = torch.empty(8, 16384, device=dev, dtype=torch.float16)
            ops[n] = lambda x=x, w=w, y=y: torch.mm(x, w, out=y)
        else:
            raise SystemExit(f"unknown op {n}")
    torch.cuda.synchronize()
    return ops


class Real:
    """The GPU path: torch ops on streams, recorded by torch.profiler."""

    def __init__(self, names, nstreams, cpu=True):
        import torch
        self.torch = torch
        self.cpu = cpu
        self.ops = build_ops(names)
        self.streams = [torch.cuda.Stream() for _ in range(nstreams)]
        self.keep = []
        # warm every op on every stream it may run on (cuBLAS/cuDNN handles and workspaces,
        # the caching allocator's per-stream pools)
        for s in self.streams:
            with torch.cuda.stream(s):
                for f in self.ops.values():
                    for _ in range(3):
                        f()
        torch.cuda.synchronize()

    def profile(self):
        from torch.profiler import ProfilerActivity, profile
        return profile(activities=([ProfilerActivity.CPU] if self.cpu else []) + [ProfilerActivity.CUDA])

    def label(self, text):
        # without CPU activity no annotation is recorded (and none is made: it costs host time);
        # the meta file's "sequence" then names the iterations, which synchronizes delimit
        return self.torch.profiler.record_function(text) if self.cpu else contextlib.nullcontext()

    def launch(self, name, si):
        with self.torch.cuda.stream(self.streams[si]):
            with self.label("op|" + name):
                self.keep.append(self.ops[name]())

    def sync(self):
        self.torch.cuda.synchronize()
        self.keep.clear()

    def save(self, prof, prefix):
        tmp = prefix + "_trace.json"
        prof.export_chrome_trace(tmp)
        with open(tmp, "rb") as fi, gzip.open(tmp + ".gz", "wb", compresslevel=9) as fo:
            shutil.copyfileobj(fi, fo)
        os.remove(tmp)


class Mock:
    """Synthetic Kineto-like events with the real path's layout: CPU annotations, launch calls
    with correlation ids, kernels on streams with launch shapes (no GPU, no torch)."""
    DUR = {"mm_f32": 300, "mm_f16": 230, "mm_bf16s": 60, "conv": 150, "add": 270, "sum": 180,
           "softmax": 190, "layernorm": 185, "gemv": 95}

    def __init__(self, names, nstreams, cpu=True):
        self.ev, self.t, self.corr, self.open, self.cpu = [], 1000.0, 1, [], cpu
        self.stream_free = {7 + 2 * i: 0.0 for i in range(nstreams)}
        self.rng = random.Random(len(names) * 7 + nstreams)

    class _Range:
        def __init__(self, m, text):
            self.m, self.text = m, text

        def __enter__(self):
            self.t0 = self.m.t
            self.m.t += 1.0

        def __exit__(self, *a):
            self.m.t += 1.0
            if self.m.cpu:
                self.m.ev.append({"ph": "X", "cat": "user_annotation", "name": self.text, "pid": 1, "tid": 1,
                              "ts": self.t0, "dur": self.m.t - self.t0})

    def profile(self):
        m = self

        class P:
            def __enter__(self):
                return self

            def __exit__(self, *a):
                pass
            events = m.ev
        return P()

    def label(self, text):
        return Mock._Range(self, text)

    def launch(self, name, si):
        with self.label("op|" + name):
            nk = 2 if name == "conv" else 1
            for k in range(nk):
                self.corr += 1
                api = 6.0 + self.rng.random()
                self.ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                                "tid": 1, "ts": self.t, "dur": api, "args": {"correlation": self.corr}})
                sid = 7 + 2 * si
                busy = sum(1 for v in self.stream_free.values() if v > self.t)
                st = max(self.t + 3.0, self.stream_free[sid])
                d = (self.DUR[name] if k == 0 else 8.0) * (1 + 0.6 * busy) * self.rng.uniform(0.98, 1.02)
                self.stream_free[sid] = st + d
                grid = [132 * (2 if name != "mm_bf16s" else 0) or 32, 1, 1]
                self.ev.append({"ph": "X", "cat": "kernel", "name": f"void mock_{name}_k{k}<float>(float*)",
                                "pid": 0, "tid": sid, "ts": st, "dur": d,
                                "args": {"correlation": self.corr, "stream": sid, "device": 0,
                                         "registers per thread": 64 + 32 * k, "shared memory": 16384 * k,
                                         "grid": grid, "block": [256, 1, 1]}})
                self.t += api + 1.0

    def sync(self):
        self.t = max([self.t] + list(self.stream_free.values())) + 5.0
        self.ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1,
                        "ts": self.t - 4.0, "dur": 4.0, "args": {"correlation": 0}})

    def save(self, prof, prefix):
        with gzip.open(prefix + "_trace.json.gz", "wt") as f:
            json.dump({"traceEvents": self.ev, "mock": True}, f)


def idle(gpu, mock, s):
    if mock:
        gpu.t += s * 1e6
    else:
        time.sleep(s)


def run_streams(a):
    names = sorted(OPS)
    nstreams = max(len(v) for v in EXPERIMENTS.values())
    gpu = (Mock if a.mock else Real)(names, nstreams, cpu=not a.together)
    seq = []
    meta = {"phase": "streams", "reps": a.reps, "ops": OPS, "experiments": EXPERIMENTS, "sequence": seq,
            "cpu_activity": not a.together,
            "provenance": provenance(a.mock), "launch": "each op on its own stream (stream i for the "
            "i-th op), launched back to back from one host thread; synchronize and sleep 1 ms between reps"}
    t0 = time.time()
    if not a.mock:  # clocks up before anything is recorded (about 50 ms of GEMMs)
        for _ in range(200):
            gpu.ops["mm_f16"]()
        gpu.sync()

    def solo(tag):
        for n in names:
            for r in range(a.reps):
                gpu.sync()
                idle(gpu, a.mock, 0.001)
                seq.append([f"{tag}_{n}", r, [n]])
                with gpu.label(f"L|{tag}_{n}|{r}"):
                    gpu.launch(n, 0)
                gpu.sync()
    with gpu.profile() as prof:
        solo("solo")  # the inputs of every prediction
        for e, ops in EXPERIMENTS.items():
            for r in range(a.reps):
                gpu.sync()
                idle(gpu, a.mock, 0.001)
                seq.append([e, r, ops])
                with gpu.label(f"L|{e}|{r}"):
                    for i, n in enumerate(ops):
                        gpu.launch(n, i)
                gpu.sync()
        solo("solo2")  # again at the end: how much solo times drift over the run
    meta["wall_s"] = time.time() - t0
    gpu.save(prof, a.out)
    with open(a.out + "_meta.json", "w") as f:
        json.dump(meta, f, indent=1)


def barrier(d, tag, rank, n, timeout=60.0):
    open(os.path.join(d, f"{tag}.{rank}"), "w").close()
    lim = time.time() + timeout
    while sum(1 for f in os.listdir(d) if f.startswith(tag + ".")) < n:
        if time.time() > lim:
            raise SystemExit(f"barrier {tag}: timeout")
        time.sleep(0.0002)


def run_proc(a):
    gpu = (Mock if a.mock else Real)([a.op], 1)
    meta = {"phase": "proc", "op": a.op, "n": a.n, "rank": a.rank, "iters": a.iters, "launches": a.launches,
            "pid": os.getpid(), "mps": bool(os.environ.get("CUDA_MPS_PIPE_DIRECTORY")),
            "provenance": provenance(a.mock), "anchors": []}
    with gpu.profile() as prof:
        for it in range(a.iters):
            gpu.sync()
            barrier(a.barrier, f"it{it}", a.rank, a.n)
            with gpu.label(f"L|proc|{it}"):
                for _ in range(a.launches):
                    gpu.launch(a.op, 0)
            gpu.sync()
            idle(gpu, a.mock, 0.005)
    gpu.save(prof, a.out)
    with open(a.out + "_meta.json", "w") as f:
        json.dump(meta, f, indent=1)


def run_ncu(a):
    names = sorted(OPS)
    meta = {"phase": "ncu", "order": names, "provenance": provenance(a.mock)}
    if not a.mock:
        import torch
        gpu = Real(names, 1)
        torch.cuda.profiler.start()
        for n in names:
            gpu.launch(n, 0)
            gpu.sync()
        torch.cuda.profiler.stop()
    with open(a.out + "_meta.json", "w") as f:
        json.dump(meta, f, indent=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("phase", choices=["streams", "proc", "ncu"])
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--op")
    ap.add_argument("--n", type=int, default=1)
    ap.add_argument("--rank", type=int, default=0)
    ap.add_argument("--barrier")
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--launches", type=int, default=6)
    ap.add_argument("--together", action="store_true",
                    help="streams: record GPU activity only (no CPU ops, no annotations), so the ops of an "
                         "experiment leave the host a few us apart instead of ~100 us")
    ap.add_argument("--mock", action="store_true")
    a = ap.parse_args()
    {"streams": run_streams, "proc": run_proc, "ncu": run_ncu}[a.phase](a)


if __name__ == "__main__":
    main()
