# slow state (>8 functions loaded): node spacing vs graph size and distinct functions; then the
# torch_graphs decoder b1 graph in the same process.
import json, os, statistics as st, tempfile, sys
sys.argv = ["torch_graphs.py"]; sys.path.insert(0, "harness")
import torch
from torch.profiler import profile, ProfilerActivity
dev = torch.device("cuda")
def spacing(fn_replay):
    for _ in range(20): fn_replay()
    torch.cuda.synchronize()
    p = profile(activities=[ProfilerActivity.CUDA]); p.__enter__()
    for _ in range(6): fn_replay(); torch.cuda.synchronize()
    p.__exit__(None, None, None)
    f = tempfile.mktemp(suffix=".json"); p.export_chrome_trace(f)
    ev = sorted((e for e in json.load(open(f))["traceEvents"] if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    os.unlink(f)
    v = [b["ts"] - (a["ts"] + a["dur"]) for a, b in zip(ev, ev[1:]) if b["ts"] - (a["ts"] + a["dur"]) <= 5]
    return round(st.median(v), 3), len(v)
def capture(body):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s): body()
    torch.cuda.synchronize(); g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s): body()
    return g
t = torch.empty(4096, device=dev)
ops = [lambda: t.add_(1.0), lambda: t.mul_(0.5), lambda: t.sub_(0.25), lambda: t.div_(2.0), lambda: torch.relu_(t),
       lambda: t.clamp_(min=-1.0), lambda: torch.sigmoid_(t), lambda: torch.tanh_(t), lambda: torch.exp_(t),
       lambda: torch.neg_(t), lambda: torch.abs_(t), lambda: torch.floor_(t), lambda: torch.ceil_(t)]
for o in ops: o()
for n in (13, 64, 152, 512):
    for K in (1, 13):
        g = capture(lambda: [ops[i % K]() for i in range(n)])
        print(f"nodes {n:4d} functions {K:2d}: spacing {spacing(g.replay)}", flush=True)
import torch_graphs as tg
for name, b in (("decoder", 1), ("micro", 1), ("encoder", 1)):
    r = tg.Runner(name, b, "graph")
    print(f"{name} b{b} graph replay: {spacing(r.g.replay)}", flush=True)
g = capture(lambda: [ops[0]() for i in range(13)])
print(f"chain13 after the models: {spacing(g.replay)}", flush=True)
