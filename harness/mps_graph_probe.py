#!/usr/bin/env python3
"""Where a CUDA-graph request's time goes in N MPS clients (issue 10, fast10).

  mps_graph_probe.py --rank R --n N --barrier DIR --out PREFIX [--configs ...] [--kineto DIR]

Every process builds --configs (torch_graphs.py's Runner, graph mode, the open-loop
campaign's request), warms up, then per configuration, in step with the others (wall-clock
schedule written by rank 0 at the barrier):
  plain   PHASE_S seconds of closed-loop requests in every process, no profiler.  Per request
          the host times (us from the request's start) after the H2D copy call, after
          replay() returns, after the output's blocking copy to the host returns and after
          synchronize; and CUDA events recorded before the H2D copy (ea), before the replay
          (e0), after it (e1) and after the output copy (e2): ea->e0 the H2D copy, e0->e1 the
          graph's GPU span from when the stream reached it, e1->e2 the D2H copy.
  kineto  (with --kineto, rank 0 only) --kineto-requests (16) requests under torch.profiler
          while the others go on serving; the trace (compacted as torch_graphs.py does) ->
          DIR/<config>_n<N>.json.gz.  --kineto-warm profiles one request of each configuration
          before the barrier, so that the profiler's start-up (CUPTI) does not push rank 0's
          profiled requests past the others' slot (disj10b: at 50% it did, FINDINGS §51).
Writes PREFIX.json: per configuration and phase the request count and those lists, and t_begin /
t_end: seconds from the slot's start to the first request's start and the last one's end (for
rank 0's kineto phase: around the profiled requests), to check that ranks overlapped, and
slot_epoch, the slot's start (time.time()), to place them against other programs' clocks.
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
ap.add_argument("--configs", default="decoder:1,decoder:16,encoder:1,encoder:8,cnn:1,cnn:8")
ap.add_argument("--phase-s", type=float, default=0.6)
ap.add_argument("--kineto", default=None)
ap.add_argument("--kineto-requests", type=int, default=16)
ap.add_argument("--kineto-warm", action="store_true")
a = ap.parse_args()
sys.argv = sys.argv[:1]  # torch_graphs parses its own arguments at import
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
torch.cuda.synchronize()
if a.kineto and a.kineto_warm and a.rank == 0:
    from torch.profiler import ProfilerActivity, profile
    for r in runners.values():
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
            r.request()
            torch.cuda.synchronize()
    torch.cuda.synchronize()

t0 = start_together(a.barrier, a.rank, a.n, 0.3)
EV = [torch.cuda.Event(enable_timing=True) for _ in range(4)]


def timed(r):
    """One request of the campaign's kind with host marks and events."""
    ea, e0, e1, e2 = EV
    pc = time.perf_counter
    with torch.inference_mode():
        s = pc()
        ea.record()
        r.xd.copy_(r.xh, non_blocking=True)
        h1 = pc()
        e0.record()
        r.g.replay()
        e1.record()
        h2 = pc()
        out = r.yd.to("cpu")
        h3 = pc()
        e2.record()
        torch.cuda.synchronize()
        h4 = pc()
    us = 1e6
    return [round((h - s) * us, 1) for h in (h1, h2, h3, h4)] + \
        [round(ea.elapsed_time(e0) * 1e3, 2), round(e0.elapsed_time(e1) * 1e3, 2),
         round(e1.elapsed_time(e2) * 1e3, 2)], out


KINETO_S = 0.5
res = []
slot = 0
for cfg, r in runners.items():
    for phase in ("plain", "kineto") if a.kineto else ("plain",):
        dur = a.phase_s if phase == "plain" else KINETO_S
        start, end = t0 + slot, t0 + slot + dur - 0.08
        slot += dur
        while time.time() < start:
            pass
        rows = []
        tb = te = None
        if phase == "kineto" and a.rank == 0:
            from torch.profiler import ProfilerActivity, profile
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                tb = time.time() - start
                for _ in range(a.kineto_requests):
                    r.request()
                torch.cuda.synchronize()
                te = time.time() - start
            tag = f"{cfg.replace(':', '_b')}_n{a.n}"
            tmp = os.path.join(a.kineto, tag + ".json")
            prof.export_chrome_trace(tmp)
            torch_graphs.compact(tmp, tmp + ".gz")
            while time.time() < end:
                pass
        else:
            tb = time.time() - start
            while time.time() < end:
                rows.append(timed(r)[0])
            te = time.time() - start
        res.append({"config": cfg, "phase": phase, "count": len(rows),
                    "t_begin": round(tb, 4), "t_end": round(te, 4), "slot_epoch": round(start, 6),
                    "cols": ["h_h2d", "h_replay", "h_d2h", "h_sync", "g_h2d", "g_span", "g_d2h"],
                    "rows": rows})
with open(a.out + ".json", "w") as f:
    json.dump({"rank": a.rank, "n": a.n, "torch": torch.__version__,
               "mps": bool(os.environ.get("CUDA_MPS_PIPE_DIRECTORY")), "phases": res}, f)
print(a.rank, "done", len(res), "phases")
