#!/usr/bin/env python3
"""An idle process's request beside N - 1 others that do nothing, spin, hold a CUDA context or serve
(issue 10, FINDINGS §71): host or GPU?

  ts_idle_probe.py --dir DIR --out FILE [--config decoder:1] [--gaps-us 300,2000,5000,20000]
                   [--per-gap 40] [--conds alone,spin7,ctx,serve,alone] [--mock]
  ts_idle_probe.py --dir DIR --sibling ctx|serve --rank R [--config decoder:1] [--rate 125] [--mock]

The probe (rank 0) builds one graph configuration (harness/torch_graphs.py's Runner: the open-loop
campaign's request: pinned input -> device, graph replay, output -> host, synchronize), warms it
up, then for each condition k waits for DIR/cond.<k> (harness/ts_idle_campaign.sh writes it once the
siblings of that condition are running) and issues requests a fixed idle gap after the previous one
ended (--gaps-us, each --per-gap times, seeded random order, spinning), then writes DIR/done.<k>.
Per request, as harness/idle_probe.py: host marks (us) arrival, start, after the H2D copy call, after
replay(), after the output copy, end; CUDA events: g_h2d, g_span (the graph's GPU span), g_d2h and
g_idle (the GPU idle gap the stream saw).  A sibling: `ctx` creates a CUDA context (a 4-byte tensor)
then spins in Python; `serve` builds the same configuration and serves Poisson arrivals at --rate per
second (harness/openloop.py's loop: spin until each arrival, one request at a time); both write
DIR/ready.<rank> when ready and run until killed.  --mock replaces the GPU by spins.
"""
import argparse
import json
import os
import random
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--dir", required=True)
ap.add_argument("--out")
ap.add_argument("--config", default="decoder:1")
ap.add_argument("--gaps-us", default="300,2000,5000,20000")
ap.add_argument("--per-gap", type=int, default=40)
ap.add_argument("--conds", default="alone,spin7,ctx,serve,alone")
ap.add_argument("--warmup", type=int, default=30)
ap.add_argument("--sibling", choices=("ctx", "serve"))
ap.add_argument("--rank", type=int, default=0)
ap.add_argument("--rate", type=float, default=125.0)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--mock", action="store_true")
a = ap.parse_args()
sys.argv = sys.argv[:1]  # torch_graphs parses its own arguments at import
NS = time.perf_counter_ns
COLS = ["arr", "start", "h_h2d", "h_replay", "h_d2h", "end", "gap_us", "g_h2d", "g_span", "g_d2h", "g_idle"]


class MockEvent:
    def __init__(self):
        self.t = 0

    def record(self):
        self.t = NS()

    def elapsed_time(self, other):
        return (other.t - self.t) / 1e6


class MockRunner:
    def __init__(self, name, batch):
        self.g = self.xd = self.yd = self.xh = self

    def spin(self, ns):
        end = NS() + ns
        while NS() < end:
            pass

    def copy_(self, *args, **kw):
        self.spin(5000)

    def replay(self):
        self.spin(400000)

    def to(self, *args):
        self.spin(10000)


if a.mock:
    Event, sync, device, torch = MockEvent, (lambda: None), "mock", None

    def make(m, b):
        return MockRunner(m, b)
else:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch  # noqa: E402
    import torch_graphs  # noqa: E402

    def Event():
        return torch.cuda.Event(enable_timing=True)
    sync, device = torch.cuda.synchronize, torch.cuda.get_device_name(0)

    def make(m, b):
        return torch_graphs.Runner(m, b, "graph")


def request(r, ev, t0):
    """One request; host marks (us from t0); @ev: four events (or None)."""
    s = NS()
    if ev:
        ev[0].record()
    r.xd.copy_(r.xh, non_blocking=True)
    h1 = NS()
    if ev:
        ev[1].record()
    r.g.replay()
    if ev:
        ev[2].record()
    h2 = NS()
    r.yd.to("cpu")
    h3 = NS()
    if ev:
        ev[3].record()
    sync()
    h4 = NS()
    return [round((h - t0) / 1e3, 1) for h in (s, h1, h2, h3, h4)]


def wait_file(path):
    while not os.path.exists(path):
        time.sleep(0.001)


def sibling(r_make):
    if a.sibling == "ctx":
        if torch:
            torch.zeros(1, device="cuda")
            torch.cuda.synchronize()
        open(os.path.join(a.dir, f"ready.{a.rank}"), "w").close()
        while True:
            time.time_ns()
    m, b = a.config.split(":")
    r = r_make(m, int(b))
    for _ in range(a.warmup):
        request(r, None, NS())
    open(os.path.join(a.dir, f"ready.{a.rank}"), "w").close()
    rng = random.Random(a.seed * 7919 + a.rank)
    t = NS()
    while True:
        t += int(rng.expovariate(a.rate) * 1e9)
        while NS() < t:
            pass
        request(r, None, t)
        t = max(t, NS() - int(1e9))  # never more than a second behind (no unbounded backlog)


def sweep(r, gaps, rng):
    order = [g for g in gaps for _ in range(a.per_gap)]
    rng.shuffle(order)
    evs = [[Event() for _ in range(4)] for _ in range(len(order) + 1)]
    t0 = NS()
    rows = [[0.0] + request(r, evs[0], t0)]
    prev_end = t0 + int(rows[0][5] * 1e3)
    for i, g in enumerate(order, 1):
        ta = prev_end + g * 1000
        while NS() < ta:
            pass
        rows.append([round((ta - t0) / 1e3, 1)] + request(r, evs[i], t0))
        prev_end = t0 + int(rows[-1][5] * 1e3)
    sync()
    out = []
    for i, row in enumerate(rows):
        e = evs[i]
        g = [e[0].elapsed_time(e[1]), e[1].elapsed_time(e[2]), e[2].elapsed_time(e[3]),
             evs[i - 1][3].elapsed_time(e[0]) if i else -0.001]
        out.append(row + [order[i - 1] if i else -1] + [round(x * 1e3, 2) for x in g])
    return out


def main():
    if a.sibling:
        sibling(make)
        return
    m, b = a.config.split(":")
    r = make(m, int(b))
    for _ in range(a.warmup):
        request(r, None, NS())
    sync()
    open(os.path.join(a.dir, "built"), "w").close()
    gaps = [int(x) for x in a.gaps_us.split(",")]
    res = []
    for k, cond in enumerate(a.conds.split(",")):
        wait_file(os.path.join(a.dir, f"cond.{k}"))
        for _ in range(10):
            request(r, None, NS())
        rows = sweep(r, gaps, random.Random(a.seed * 1000003 + k))
        res.append({"cond": cond, "epoch": time.time(), "rows": rows})
        open(os.path.join(a.dir, f"done.{k}"), "w").close()
        print(cond, len(rows), "requests", flush=True)
    with open(a.out, "w") as f:
        json.dump({"device": device, "torch": torch.__version__ if torch else "mock", "config": a.config,
                   "args": vars(a), "cols": COLS, "conds": res}, f, separators=(",", ":"))


if __name__ == "__main__":
    if a.mock:
        main()
    else:
        with torch.inference_mode():
            main()
