# One fresh process per variant: do PRE, then measure a 13-kernel chain graph's K->K spacing.
import sys, json, os, statistics as st, collections, tempfile
import torch
from torch.profiler import profile, ProfilerActivity
dev = torch.device("cuda")
pre = sys.argv[1]

def summ(prof):
    f = tempfile.mktemp(suffix=".json"); prof.export_chrome_trace(f)
    ev = [e for e in json.load(open(f))["traceEvents"] if e.get("cat") == "kernel"]
    os.unlink(f); ev.sort(key=lambda e: e["ts"])
    v = [b["ts"] - (a["ts"] + a["dur"]) for a, b in zip(ev, ev[1:]) if b["ts"] - (a["ts"] + a["dur"]) <= 5]
    return len(v), round(st.median(v), 3)

t = torch.zeros(4096, device=dev)
torch.cuda.synchronize()
if pre == "streams2":
    ss = [torch.cuda.Stream() for _ in range(2)]
    for s in ss:
        with torch.cuda.stream(s): t.add_(1.0)
elif pre == "waitstream":
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s): t.add_(1.0)
    torch.cuda.current_stream().wait_stream(s)
elif pre == "scalar_tensor":
    x = torch.ones(1, 4, device=dev); t.add_(x[0, 0])
elif pre == "defaultcapture":
    g0 = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g0): t.add_(1.0)
    g0.replay()
elif pre == "sidecapture":
    s = torch.cuda.Stream()
    g0 = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g0, stream=s): t.add_(1.0)
    g0.replay()
elif pre == "eager_many":
    for f in (torch.relu, torch.sigmoid, torch.tanh, torch.exp, torch.log1p, torch.sin, torch.cos, torch.sqrt, torch.abs, torch.neg):
        f(t)
elif pre == "linear":
    torch.nn.Linear(512, 512).to(dev)(torch.randn(1, 512, device=dev))
elif pre == "d2h":
    t[:16].to("cpu")
torch.cuda.synchronize()
s = torch.cuda.Stream()
with torch.cuda.stream(s):
    for _ in range(13): t.add_(1.0)
torch.cuda.synchronize(); g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g, stream=s):
    for _ in range(13): t.add_(1.0)
for _ in range(50): g.replay(); torch.cuda.synchronize()
p = profile(activities=[ProfilerActivity.CUDA]); p.__enter__()
for _ in range(8): g.replay(); torch.cuda.synchronize()
p.__exit__(None, None, None)
print(f"{pre:16s} chain13 K->K (n, median us): {summ(p)}", flush=True)
