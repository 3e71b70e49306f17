# (1) fresh process, functions loaded one at a time: chain13 spacing after each;
# (2) then graphs of 13 nodes cycling through K distinct functions (all already loaded).
import json, os, statistics as st, tempfile
import torch
from torch.profiler import profile, ProfilerActivity
dev = torch.device("cuda")

def spacing(g):
    for _ in range(20): g.replay()
    torch.cuda.synchronize()
    p = profile(activities=[ProfilerActivity.CUDA]); p.__enter__()
    for _ in range(6): g.replay(); torch.cuda.synchronize()
    p.__exit__(None, None, None)
    f = tempfile.mktemp(suffix=".json"); p.export_chrome_trace(f)
    ev = sorted((e for e in json.load(open(f))["traceEvents"] if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    os.unlink(f)
    v = [b["ts"] - (a["ts"] + a["dur"]) for a, b in zip(ev, ev[1:]) if b["ts"] - (a["ts"] + a["dur"]) <= 5]
    return round(st.median(v), 3)

def capture(body):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s): body()
    torch.cuda.synchronize(); g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s): body()
    return g

t = torch.empty(4096, device=dev)
ops = [lambda: t.add_(1.0), lambda: t.mul_(0.5), lambda: t.sub_(0.25), lambda: t.div_(2.0), lambda: torch.relu_(t),
       lambda: t.clamp_(min=-1.0), lambda: torch.sigmoid_(t), lambda: torch.tanh_(t), lambda: torch.exp_(t),
       lambda: torch.neg_(t), lambda: torch.abs_(t), lambda: torch.floor_(t), lambda: torch.ceil_(t),
       lambda: torch.round_(t), lambda: torch.trunc_(t), lambda: torch.sign(t), lambda: torch.square(t),
       lambda: torch.sin_(t), lambda: torch.cos_(t), lambda: torch.sqrt(t)]
g1 = capture(lambda: [ops[0]() for _ in range(13)])
print("functions_loaded(approx: add + k) spacing", flush=True)
print(0, spacing(g1), flush=True)
for k in range(1, 20):
    ops[k](); torch.cuda.synchronize()
    print(k, spacing(g1), flush=True)
for K in (1, 2, 4, 8, 13):
    gk = capture(lambda: [ops[i % K]() for i in range(13)])
    print(f"graph cycling {K} functions:", spacing(gk), flush=True)
