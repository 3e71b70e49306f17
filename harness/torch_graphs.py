#!/usr/bin/env python3
"""Inference requests of three model kinds, eager or as one CUDA graph, with Kineto traces.

Models (random weights, eval, fp32 on CUDA, no downloads):
  cnn      torchvision resnet50 (a hand-built 8-layer CNN if torchvision is missing), 224x224
  encoder  nn.TransformerEncoder, d_model 512, 8 heads, 6 layers, sequence 128
  decoder  GPT-style decoder step with a KV cache (hand-written): 8 layers, d 512, 8 heads,
           one new token per sequence, cache of 256 positions, position from a device tensor
  micro    a small graph of kernels, device-to-device copies and memsets (cupy), to see the
           spacing around memsets and copies
A request: pinned input -> device (non_blocking) -> forward (eager, or replay of a graph
captured once) -> output to host (blocking) -> torch.cuda.synchronize().

--profile-all OUTDIR: for every model x batch x mode, warm up, then record --nprof requests
with torch.profiler and write a compact Kineto trace OUTDIR/<model>_b<B>_<mode>.json.gz
(GPU activities, runtime/driver calls and metadata only; names cut to 80 characters).
--serve: a closed loop of --nreq requests of one configuration (--barrier DIR to start N
processes together), per-request latencies in OUT_meta.json.
"""
import argparse
import gzip
import json
import math
import os
import time

import torch
import torch.nn as nn

ap = argparse.ArgumentParser()
ap.add_argument("--profile-all", default=None)
ap.add_argument("--serve", action="store_true")
ap.add_argument("--model", default="decoder")
ap.add_argument("--batch", type=int, default=1)
ap.add_argument("--mode", default="graph", choices=["eager", "graph"])
ap.add_argument("--nreq", type=int, default=300)
ap.add_argument("--nprof", type=int, default=8)
ap.add_argument("--warmup", type=int, default=20)
ap.add_argument("--out", default="/tmp/tg")
ap.add_argument("--barrier", default=None)
ap.add_argument("--only", default=None, help="profile-all: comma list of model names")
ap.add_argument("--modes", default="eager,graph", help="profile-all: comma list of modes")
ap.add_argument("--ncu-one", action="store_true",
                help="warm up --model/--batch/--mode, then one request between cudaProfilerStart/Stop "
                     "(for ncu --profile-from-start off)")
a = ap.parse_args() if __name__ == "__main__" else ap.parse_args([])

dev = torch.device("cuda")
torch.manual_seed(0)
torch.backends.cudnn.benchmark = False


class Decoder(nn.Module):
    """One decoding step of a GPT-style model with a preallocated KV cache."""

    def __init__(self, batch, d=512, heads=8, layers=8, maxlen=256, vocab=8192):
        super().__init__()
        self.h, self.dh, self.maxlen = heads, d // heads, maxlen
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(maxlen, d)
        self.ln1 = nn.ModuleList(nn.LayerNorm(d) for _ in range(layers))
        self.qkv = nn.ModuleList(nn.Linear(d, 3 * d) for _ in range(layers))
        self.proj = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
        self.ln2 = nn.ModuleList(nn.LayerNorm(d) for _ in range(layers))
        self.fc1 = nn.ModuleList(nn.Linear(d, 4 * d) for _ in range(layers))
        self.fc2 = nn.ModuleList(nn.Linear(4 * d, d) for _ in range(layers))
        self.lnf = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)
        self.register_buffer("k", torch.zeros(layers, batch, heads, maxlen, d // heads))
        self.register_buffer("v", torch.zeros(layers, batch, heads, maxlen, d // heads))
        self.register_buffer("p", torch.tensor([17], dtype=torch.long))  # current position

    def forward(self, tok):  # tok: [B] token ids (device)
        B = tok.shape[0]
        x = self.emb(tok) + self.pos(self.p)
        ar = torch.arange(self.maxlen, device=tok.device)
        mask = (ar <= self.p).view(1, 1, 1, self.maxlen)
        for i in range(len(self.qkv)):
            h = self.ln1[i](x)
            q, k, v = self.qkv[i](h).view(B, 3, self.h, self.dh).unbind(1)
            self.k[i].index_copy_(2, self.p, k.unsqueeze(2))
            self.v[i].index_copy_(2, self.p, v.unsqueeze(2))
            att = (q.unsqueeze(2) @ self.k[i].transpose(-1, -2)) / math.sqrt(self.dh)
            att = att.masked_fill(~mask, float("-inf")).softmax(-1)
            y = (att @ self.v[i]).reshape(B, -1)
            x = x + self.proj[i](y)
            x = x + self.fc2[i](torch.relu(self.fc1[i](self.ln2[i](x))))
        return self.head(self.lnf(x))


class Micro(nn.Module):
    """Kernels, device-to-device copies and memsets in one stream."""

    def __init__(self, batch):
        super().__init__()
        self.register_buffer("a", torch.zeros(4096 * batch))
        self.register_buffer("b", torch.zeros(4096 * batch))
        try:
            import cupy
            self.cp = cupy
        except Exception:
            self.cp = None

    def memset(self, t):
        if self.cp is None:
            t.zero_()
            return
        self.cp.cuda.runtime.memsetAsync(t.data_ptr(), 0, t.numel() * 4,
                                         torch.cuda.current_stream().cuda_stream)

    def forward(self, x):
        self.a.add_(x[0, 0])
        self.a.mul_(0.5)
        self.memset(self.b)
        self.b.add_(self.a)
        self.b.copy_(self.a)
        self.a.add_(1.0)
        self.memset(self.a)
        self.memset(self.b)
        self.a.add_(self.b)
        self.b.copy_(self.a)
        self.b.copy_(self.a)
        return self.a[:16] + self.b[:16]


def build(name, batch):
    if name == "cnn":
        try:
            import torchvision
            m, kind = torchvision.models.resnet50(weights=None), "resnet50"
        except Exception:
            layers, c = [], 3
            for co in (32, 64, 64, 128, 128, 256, 256, 512):
                layers += [nn.Conv2d(c, co, 3, padding=1, stride=2 if co != c else 1),
                           nn.BatchNorm2d(co), nn.ReLU()]
                c = co
            m, kind = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, 1000)), "cnn8"
        x = torch.randn(batch, 3, 224, 224)
    elif name == "encoder":
        layer = nn.TransformerEncoderLayer(512, 8, 2048, dropout=0.0, batch_first=True)
        m, kind = nn.TransformerEncoder(layer, 6, enable_nested_tensor=False), "transformer_encoder"
        x = torch.randn(batch, 128, 512)
    elif name == "decoder":
        m, kind = Decoder(batch), "gpt_decoder_step"
        x = torch.randint(0, 8192, (batch,))
    else:
        m, kind = Micro(batch), "micro"
        x = torch.randn(batch, 4)
    return m.to(dev).eval(), kind, x.pin_memory()


class Runner:
    def __init__(self, name, batch, mode):
        self.model, self.kind, self.xh = build(name, batch)
        self.xd = torch.empty_like(self.xh, device=dev)
        self.mode = mode
        with torch.inference_mode():
            for _ in range(3):
                self.xd.copy_(self.xh, non_blocking=True)
                self.model(self.xd)
            torch.cuda.synchronize()
            if mode == "graph":
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    for _ in range(3):
                        self.model(self.xd)
                torch.cuda.current_stream().wait_stream(s)
                torch.cuda.synchronize()
                self.g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(self.g):
                    self.yd = self.model(self.xd)
                torch.cuda.synchronize()

    def request(self):
        with torch.inference_mode():
            self.xd.copy_(self.xh, non_blocking=True)
            if self.mode == "graph":
                self.g.replay()
                y = self.yd
            else:
                y = self.model(self.xd)
            out = y.to("cpu")
            torch.cuda.synchronize()
            return out


KEEP = {"kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver", "Kernel", "Memcpy",
        "Memset", "Runtime", "Driver"}


def compact(src, dst):
    with open(src) as f:
        t = json.load(f)
    ev = []
    for e in t.get("traceEvents", []):
        if e.get("ph") == "M" or e.get("cat") in KEEP:
            if "name" in e and len(e["name"]) > 80:
                e["name"] = e["name"][:80]
            ev.append(e)
    t["traceEvents"] = ev
    for k in ("distributedInfo",):
        t.pop(k, None)
    with gzip.open(dst, "wt", compresslevel=9) as f:
        json.dump(t, f, separators=(",", ":"))
    os.remove(src)
    return len(ev)


def profile_all(outdir):
    from torch.profiler import ProfilerActivity, profile
    os.makedirs(outdir, exist_ok=True)
    configs = []
    names = a.only.split(",") if a.only else ["micro", "cnn", "encoder", "decoder"]
    for name in names:
        for batch in ((1,) if name == "micro" else (1, 16 if name == "decoder" else 8)):
            for mode in a.modes.split(","):
                configs.append((name, batch, mode))
    summary = []
    for name, batch, mode in configs:
        tag = f"{name}_b{batch}_{mode}"
        try:
            t0 = time.time()
            r = Runner(name, batch, mode)
            for _ in range(a.warmup):
                r.request()
            lat = []
            for _ in range(50):
                s = time.time_ns()
                r.request()
                lat.append((time.time_ns() - s) / 1e6)
            lat.sort()
            prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
            prof.__enter__()
            for _ in range(a.nprof):
                r.request()
            prof.__exit__(None, None, None)
            tmp = os.path.join(outdir, tag + ".json")
            prof.export_chrome_trace(tmp)
            n = compact(tmp, tmp + ".gz")
            row = {"tag": tag, "model": r.kind, "batch": batch, "mode": mode, "events": n,
                   "unprofiled_lat_ms_p50": lat[len(lat) // 2], "unprofiled_lat_ms_min": lat[0],
                   "secs": round(time.time() - t0, 1)}
            del r
            torch.cuda.empty_cache()
        except Exception as ex:  # one failing model must not lose the others
            row = {"tag": tag, "error": repr(ex)[:300]}
        print(json.dumps(row), flush=True)
        summary.append(row)
    meta = {"torch": torch.__version__, "cuda": torch.version.cuda,
            "device": torch.cuda.get_device_name(0), "date": time.strftime("%Y-%m-%d", time.gmtime()),
            "configs": summary}
    try:
        import torchvision
        meta["torchvision"] = torchvision.__version__
    except Exception:
        pass
    with open(os.path.join(outdir, "profiles.json"), "w") as f:
        json.dump(meta, f, indent=1)


def serve():
    r = Runner(a.model, a.batch, a.mode)
    for _ in range(a.warmup):
        r.request()
    if a.barrier:
        open(os.path.join(a.barrier, f"ready.{os.getpid()}"), "w").close()
        go = os.path.join(a.barrier, "go")
        while not os.path.exists(go):
            time.sleep(0.0002)
    rows = []
    for _ in range(a.nreq):
        t0 = time.time_ns()
        r.request()
        rows.append((t0, time.time_ns()))
    lat = sorted((t1 - t0) / 1e6 for t0, t1 in rows)
    meta = {"pid": os.getpid(), "model": r.kind, "batch": a.batch, "mode": a.mode, "nreq": a.nreq,
            "mps": bool(os.environ.get("CUDA_MPS_PIPE_DIRECTORY")),
            "throughput_req_s": len(rows) / ((rows[-1][1] - rows[0][0]) / 1e9),
            "lat_ms_p50": lat[len(lat) // 2], "lat_ms_p90": lat[int(0.9 * (len(lat) - 1))],
            "lat_ms_p99": lat[int(0.99 * (len(lat) - 1))], "lat_ms_mean": sum(lat) / len(lat),
            "t0_first": rows[0][0], "t1_last": rows[-1][1]}
    with open(a.out + "_meta.json", "w") as f:
        json.dump(meta, f)
    print(json.dumps({k: meta[k] for k in ("pid", "throughput_req_s", "lat_ms_p50", "lat_ms_p99")}), flush=True)


def ncu_one():
    r = Runner(a.model, a.batch, a.mode)
    for _ in range(a.warmup):
        r.request()
    torch.cuda.profiler.start()
    r.request()
    torch.cuda.profiler.stop()


if a.profile_all:
    profile_all(a.profile_all)
elif a.ncu_one:
    ncu_one()
elif a.serve:
    serve()
