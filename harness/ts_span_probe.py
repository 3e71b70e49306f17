#!/usr/bin/env python3
"""How long a CUDA graph request's GPU span is when its context takes turns (issue 10).

  ts_span_probe.py --rank R --n N --barrier DIR --out PREFIX --plan PLAN [--configs ...]

No profiler: CUDA events around each graph replay (e0 before, e1 after, on the request's
stream) give the span from when the stream reached the graph to its last node's end.
Every process builds --configs (torch_graphs.py's Runner, graph mode), warms up, then runs
the phases of PLAN in step with the others (wall-clock schedule written by rank 0 at the
barrier, PHASE_S seconds each).  PLAN: ';'-separated phases, each 'config:role0,role1,...'
(role of rank r; missing ranks idle).  Roles:
  req     closed loop of requests: H2D, e0, replay, e1, D2H, synchronize
  queued  like req, but a ~100 us spin kernel (torch.cuda._sleep) runs before e0, so the
          whole graph is submitted before the GPU reaches it
  b2b     10 replays back to back between e0 and e1, then synchronize (span / 10 each)
  spin    back-to-back ~2 ms spin kernels (another context that always has work)
  idle    nothing (the context exists, no work)
Writes PREFIX.json: per phase the role, request count, span_us list, request wall times.
"""
import argparse
import json
import os
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--rank", type=int, required=True)
ap.add_argument("--n", type=int, required=True)
ap.add_argument("--barrier", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--plan", required=True)
ap.add_argument("--configs", default="decoder:1,cnn:1,encoder:8,decoder:16")
ap.add_argument("--phase-s", type=float, default=0.6)
a = ap.parse_args()
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch_graphs  # noqa: E402
from start_together import start_together  # noqa: E402

runners = {}
for c in a.configs.split(","):
    m, b = c.split(":")
    runners[c] = torch_graphs.Runner(m, int(b), "graph")
    for _ in range(30):
        runners[c].request()
torch.cuda._sleep(1000)
torch.cuda.synchronize()

t0 = start_together(a.barrier, a.rank, a.n, 0.3)


def one(r, role, e0, e1):
    with torch.inference_mode():
        r.xd.copy_(r.xh, non_blocking=True)
        if role == "queued":
            torch.cuda._sleep(200000)
        e0.record()
        reps = 10 if role == "b2b" else 1
        for _ in range(reps):
            r.g.replay()
        e1.record()
        out = r.yd.to("cpu")
        torch.cuda.synchronize()
        return e0.elapsed_time(e1) * 1000.0 / reps, out


res = []
for i, ph in enumerate(a.plan.split(";")):
    cfg, roles = ph.rsplit(":", 1)
    roles = roles.split(",")
    role = roles[a.rank] if a.rank < len(roles) else "idle"
    start, end = t0 + i * a.phase_s, t0 + (i + 1) * a.phase_s - 0.08
    while time.time() < start:
        pass
    r = runners[cfg]
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    spans, walls = [], []
    if role in ("req", "queued", "b2b"):
        while time.time() < end:
            w = time.perf_counter()
            s, _ = one(r, role, e0, e1)
            walls.append((time.perf_counter() - w) * 1e6)
            spans.append(s)
    elif role == "spin":
        while time.time() < end:
            for _ in range(5):
                torch.cuda._sleep(4000000)
            torch.cuda.synchronize()
    res.append({"phase": i, "config": cfg, "roles": roles, "role": role, "count": len(spans),
                "span_us": [round(x, 2) for x in spans], "wall_us": [round(x, 1) for x in walls]})
with open(a.out + ".json", "w") as f:
    json.dump({"rank": a.rank, "n": a.n, "torch": torch.__version__, "phases": res}, f)
print(a.rank, "done", len(res), "phases")
