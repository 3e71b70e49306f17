#!/usr/bin/env python3
"""Is a request slower after its process sat idle? (issue 10, idle10; FINDINGS §59)

  idle_probe.py --out PREFIX [--configs decoder:1,decoder:16,...] [--gaps-us 0,20,...]
                [--per-gap 50] [--closed-s 0.3] [--open-s 0.5] [--seed 1] [--mock]

One process (run it alone, with or without MPS).  Builds every graph configuration
(harness/torch_graphs.py's Runner: the open-loop campaign's request, pinned input ->
device, graph replay, output -> host, synchronize), warms each up, then per configuration:
  drift  closed 0.3 s -> open0.5 0.5 s -> open0.8 0.5 s -> closed -> open0.8 -> closed:
         Poisson arrivals at 0.5 / 0.8 times the first closed phase's throughput, one
         request at a time in arrival order, spinning (never sleeping) until each arrival,
         as harness/openloop.py does; the closed phase repeated after the open ones so
         that drift and slower-after-idle can be told apart;
  gaps   requests issued a fixed idle gap after the previous one ended (--gaps-us, each
         --per-gap times, in a seeded random order; spinning): service time against the
         preceding idle gap.
Per request (host clock time.perf_counter_ns, us from the phase's start): arrival, service
start, after the H2D copy call, after replay() returned, after the output's blocking copy
returned, end (after synchronize); and CUDA events (a pool, read after the phase, so that the
loop does no event query between requests) before the H2D copy (ea), before the replay (e0),
after it (e1), after the output copy (e2): g_h2d = ea->e0, g_span = e0->e1 (the graph's GPU
span from when the stream reached it), g_d2h = e1->e2, g_idle = the previous request's e2 ->
this one's ea (the GPU's idle gap as the stream saw it; -1 for a phase's first request).
Writes PREFIX.json.  --mock replaces the GPU work by a spin and the events by host marks
(to check the script where there is no GPU).
"""
import argparse
import contextlib
import json
import os
import platform
import random
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--out", required=True)
ap.add_argument("--configs", default="decoder:1,decoder:16,encoder:1,encoder:8,cnn:1,cnn:8")
ap.add_argument("--gaps-us", default="0,20,50,100,200,500,1000,2000,5000,10000")
ap.add_argument("--per-gap", type=int, default=50)
ap.add_argument("--closed-s", type=float, default=0.3)
ap.add_argument("--open-s", type=float, default=0.5)
ap.add_argument("--warmup", type=int, default=30)
ap.add_argument("--pool", type=int, default=4000, help="events per kind (requests a phase may record)")
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--mock", action="store_true")
a = ap.parse_args()
sys.argv = sys.argv[:1]  # torch_graphs parses its own arguments at import
NS = time.perf_counter_ns
DRIFT = (("closed", 0), ("open0.5", 0.5), ("open0.8", 0.8), ("closed", 0), ("open0.8", 0.8), ("closed", 0))
COLS = ["arr", "start", "h_h2d", "h_replay", "h_d2h", "end", "g_h2d", "g_span", "g_d2h", "g_idle"]


class MockEvent:
    def __init__(self):
        self.t = 0

    def record(self):
        self.t = NS()

    def elapsed_time(self, other):
        return (other.t - self.t) / 1e6


class MockRunner:
    """Stands in for torch_graphs.Runner: three spins in place of copy, replay and copy."""

    def __init__(self, name, batch):
        self.t_ns = int(150e3 * batch ** 0.5 * (2 if name == "cnn" else 1))
        self.g = self
        self.xd = self.yd = self.xh = self

    def spin(self, ns):
        end = NS() + ns
        while NS() < end:
            pass

    def copy_(self, *args, **kw):
        self.spin(5000)

    def replay(self):
        self.spin(self.t_ns)

    def to(self, *args):
        self.spin(10000)


if a.mock:
    Event, sync, version, device = MockEvent, (lambda: None), "mock", "mock"
    no_grad = contextlib.nullcontext

    def make(m, b):
        return MockRunner(m, b)
else:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch  # noqa: E402
    import torch_graphs  # noqa: E402

    def Event():
        return torch.cuda.Event(enable_timing=True)
    sync, version, device = torch.cuda.synchronize, torch.__version__, torch.cuda.get_device_name(0)
    no_grad = torch.inference_mode

    def make(m, b):
        return torch_graphs.Runner(m, b, "graph")

POOL = [[Event() for _ in range(a.pool)] for _ in range(4)]


def request(r, i, t0):
    """One request of the campaign's kind; host marks (us from t0) and events slot i."""
    ea, e0, e1, e2 = (POOL[k][i] for k in range(4))
    s = NS()
    ea.record()
    r.xd.copy_(r.xh, non_blocking=True)
    h1 = NS()
    e0.record()
    r.g.replay()
    e1.record()
    h2 = NS()
    r.yd.to("cpu")
    h3 = NS()
    e2.record()
    sync()
    h4 = NS()
    return [round((h - t0) / 1e3, 1) for h in (s, h1, h2, h3, h4)]


def gpu_cols(n):
    """g_h2d, g_span, g_d2h, g_idle (us) of the phase's n requests (after a synchronize)."""
    sync()
    P, out = POOL, []
    for i in range(n):
        g = [P[0][i].elapsed_time(P[1][i]), P[1][i].elapsed_time(P[2][i]), P[2][i].elapsed_time(P[3][i]),
             P[3][i - 1].elapsed_time(P[0][i]) if i else -0.001]
        out.append([round(x * 1e3, 2) for x in g])
    return out


def run_phase(r, arrivals_ns, t0, dur_ns):
    """Serve @arrivals_ns (absolute perf_counter ns; None = closed loop until t0 + dur_ns)."""
    rows = []
    if arrivals_ns is None:
        while NS() < t0 + dur_ns and len(rows) < a.pool:
            s = NS()
            rows.append([round((s - t0) / 1e3, 1)] + request(r, len(rows), t0))
    else:
        for ta in arrivals_ns[:a.pool]:
            while NS() < ta:
                pass  # spin: a sleep would add its wake-up latency (openloop.py)
            rows.append([round((ta - t0) / 1e3, 1)] + request(r, len(rows), t0))
    return [h + g for h, g in zip(rows, gpu_cols(len(rows)))]


def poisson(rng, rate, t0, dur_ns):
    arr, t = [], float(t0)
    while True:
        t += rng.expovariate(rate) * 1e9
        if t >= t0 + dur_ns:
            return arr
        arr.append(int(t))


def gap_sweep(r, gaps, rng):
    """Each request issued gap us after the previous one ended; a seeded random order."""
    order = [g for g in gaps for _ in range(a.per_gap)]
    rng.shuffle(order)
    order = order[:a.pool - 1]
    t0 = NS()
    rows = [[0.0] + request(r, 0, t0)]  # the first request's gap is not controlled
    prev_end = t0 + int(rows[0][5] * 1e3)
    for i, g in enumerate(order, 1):
        ta = prev_end + g * 1000
        while NS() < ta:
            pass
        rows.append([round((ta - t0) / 1e3, 1)] + request(r, i, t0))
        prev_end = t0 + int(rows[-1][5] * 1e3)
    g = gpu_cols(len(rows))
    return [-1] + order, [h + x for h, x in zip(rows, g)]


def main():
    gaps = [int(x) for x in a.gaps_us.split(",")]
    runners = {}
    t_build = time.time()
    for c in a.configs.split(","):
        m, b = c.split(":")
        runners[c] = make(m, int(b))
        for _ in range(a.warmup):
            request(runners[c], 0, NS())
    sync()
    build_s = time.time() - t_build
    res = []
    for ci, (c, r) in enumerate(runners.items()):
        rng = random.Random(a.seed * 1000003 + ci)
        for _ in range(10):
            request(r, 0, NS())
        phases, base = [], None
        for name, load in DRIFT:
            t0 = NS()
            dur = int((a.closed_s if load == 0 else a.open_s) * 1e9)
            arr = None if load == 0 else poisson(rng, load * base, t0, dur)
            rows = run_phase(r, arr, t0, dur)
            wall = (rows[-1][5] - rows[0][1]) / 1e6 if rows else 0
            if load == 0 and base is None:
                base = len(rows) / wall
            phases.append({"phase": name, "rate_per_s": round(load * base, 2) if load else None,
                           "epoch": time.time(), "count": len(rows), "rows": rows})
            print(c, name, len(rows), "requests", flush=True)
        order, rows = gap_sweep(r, gaps, rng)
        print(c, "gaps", len(rows), "requests", flush=True)
        res.append({"config": c, "closed_rate_per_s": round(base, 2), "phases": phases,
                    "sweep": {"gap_us": order, "rows": rows}})
    out = {"torch": version, "device": device, "host": platform.node(), "build_s": round(build_s, 1),
           "mps": bool(os.environ.get("CUDA_MPS_PIPE_DIRECTORY")), "mock": a.mock, "cols": COLS,
           "args": vars(a), "configs": res}
    with open(a.out + ".json", "w") as f:
        json.dump(out, f, separators=(",", ":"))
    print("done", len(res), "configs", round(time.time() - t_build, 1), "s")


if __name__ == "__main__":
    with no_grad():
        main()
