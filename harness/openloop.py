#!/usr/bin/env python3
"""One serving process of an N-process group: closed- and open-loop (Poisson) phases.

  openloop.py --configs cnn:1:graph,decoder:16:eager --n N --rank R --barrier DIR --out PREFIX
              [--dur 0.5] [--loads 0.5,0.8] [--eager-loads 0.8] [--seed 1] [--mock]

Builds every configuration (model:batch:mode, harness/torch_graphs.py's Runner: pinned
input -> device, forward or graph replay, output -> host, synchronize), warms each up, then
for each configuration runs phases that all N processes start together (file barrier in
DIR, one file per phase and rank):
  closed     back-to-back requests for --dur seconds (every process stops issuing at the
             same wall time); each process writes its request rate to DIR
  open<L>    Poisson arrivals, per process at rate L * (sum of the N closed rates) / N, for
             --dur seconds; one request at a time in arrival order, latency = end - arrival
             (queueing included)
Writes PREFIX.json: per phase the request latencies in us (ints), the issue window, the
rate asked for and the completed count.  --mock replaces the GPU work by a sleep.
"""
import argparse
import json
import os
import random
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--configs", required=True)
ap.add_argument("--n", type=int, required=True)
ap.add_argument("--rank", type=int, required=True)
ap.add_argument("--barrier", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--dur", type=float, default=0.5)
ap.add_argument("--loads", default="0.5,0.8")
ap.add_argument("--eager-loads", default="0.8")
ap.add_argument("--warmup", type=int, default=15)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--mock", action="store_true")
a = ap.parse_args()


class MockRunner:
    def __init__(self, name, batch, mode):
        self.t = 0.0004 * batch if mode == "graph" else 0.002

    def request(self):
        time.sleep(self.t * random.uniform(0.9, 1.3))


def make(name, batch, mode):
    if a.mock:
        return MockRunner(name, batch, mode)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch_graphs
    return torch_graphs.Runner(name, batch, mode)


def barrier(tag, timeout=120.0):
    """Wait until every rank reached phase @tag; returns the release time (ns)."""
    open(os.path.join(a.barrier, f"{tag}.{a.rank}"), "w").close()
    lim = time.time() + timeout
    pre = tag + "."
    while True:
        n = sum(1 for f in os.listdir(a.barrier) if f.startswith(pre))
        if n >= a.n:
            return time.time_ns()
        if time.time() > lim:
            raise SystemExit(f"barrier {tag}: {n} of {a.n} after {timeout} s")
        time.sleep(0.0002)


def closed(r, t_go, dur_ns):
    lat, t_end = [], t_go + dur_ns
    while True:
        t0 = time.time_ns()
        if t0 >= t_end:
            break
        r.request()
        lat.append((time.time_ns() - t0) // 1000)
    return lat, time.time_ns()


def open_loop(r, t_go, dur_ns, rate, rng):
    """Poisson arrivals from t_go on, issued until t_go + dur_ns; served one at a time."""
    arr, t = [], float(t_go)
    while True:
        t += rng.expovariate(rate) * 1e9
        if t >= t_go + dur_ns:
            break
        arr.append(int(t))
    lat = []
    for ta in arr:
        while time.time_ns() < ta:
            pass  # spin: a sleep would add its wake-up latency to short requests
        r.request()
        lat.append((time.time_ns() - ta) // 1000)
    return lat, time.time_ns()


def main():
    cfgs = []
    for c in a.configs.split(","):
        m, b, mode = c.split(":")
        cfgs.append((m, int(b), mode))
    t_build = time.time()
    runners = {}
    for m, b, mode in cfgs:
        r = make(m, b, mode)
        for _ in range(a.warmup):
            r.request()
        runners[(m, b, mode)] = r
    build_s = time.time() - t_build
    dur_ns = int(a.dur * 1e9)
    phases = []
    for m, b, mode in cfgs:
        tag = f"{m}_b{b}_{mode}"
        r = runners[(m, b, mode)]
        t_go = barrier(tag + "_closed")
        lat, t_last = closed(r, t_go, dur_ns)
        rate = len(lat) / ((t_last - t_go) / 1e9)
        with open(os.path.join(a.barrier, f"cap_{tag}.{a.rank}"), "w") as f:
            f.write(repr(rate))
        phases.append({"cfg": tag, "loop": "closed", "t_go": t_go, "t_last": t_last, "lat_us": lat})
        barrier(tag + "_capdone")
        total = sum(float(open(os.path.join(a.barrier, f"cap_{tag}.{k}")).read()) for k in range(a.n))
        loads = a.loads if mode == "graph" else a.eager_loads
        for load in (float(x) for x in loads.split(",") if x):
            rng = random.Random(a.seed * 1000003 + a.rank * 7919 + int(load * 1000) + sum(tag.encode()) % 997)
            per = load * total / a.n
            t_go = barrier(f"{tag}_open{load}")
            lat, t_last = open_loop(r, t_go, dur_ns, per, rng)
            phases.append({"cfg": tag, "loop": f"open{load}", "rate_per_s": per, "t_go": t_go,
                           "t_last": t_last, "lat_us": lat})
    out = {"rank": a.rank, "n": a.n, "pid": os.getpid(), "build_s": build_s, "dur_s": a.dur,
           "mps": bool(os.environ.get("CUDA_MPS_PIPE_DIRECTORY")),
           "thread_pct": os.environ.get("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"), "phases": phases}
    with open(a.out + ".json", "w") as f:
        json.dump(out, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
