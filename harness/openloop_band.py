#!/usr/bin/env python3
"""How much p50/p99 of one open-loop window vary by chance alone (N = 1).

  openloop_band.py SUMMARY.csv SPREAD_DIR [--windows 40] [--dur 0.5]

For each N = 1 open-loop row: one server, Poisson arrivals at the measured rate for --dur
seconds (the campaign's window), service times drawn from the measured closed-loop
latencies of that process (SPREAD_DIR/<config>.json); --windows windows with different
seeds.  Prints the measured p50/p99 and the 5%/50%/95% points of the windows' p50 and p99:
a measured p99 outside that band needs more than queueing to explain it.
"""
import csv
import json
import os
import random
import sys


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]


def main():
    summary, spread = sys.argv[1], sys.argv[2]
    windows = int(sys.argv[sys.argv.index("--windows") + 1]) if "--windows" in sys.argv else 40
    dur = float(sys.argv[sys.argv.index("--dur") + 1]) if "--dur" in sys.argv else 0.5
    print("config,sharing,loop,meas_p50_ms,meas_p99_ms,p50_5,p50_50,p50_95,p99_5,p99_50,p99_95")
    for r in csv.DictReader(open(summary)):
        if r["n"] != "1" or not r["loop"].startswith("open") or r["sharing"] != "nomps":
            continue
        svc = json.load(open(os.path.join(spread, r["config"] + ".json")))["latencies_us"]
        rate = float(r["rate_per_s_per_process"])
        p50s, p99s = [], []
        for seed in range(windows):
            rng = random.Random(seed)
            t, free, lat = 0.0, 0.0, []
            while True:
                t += rng.expovariate(rate) * 1e6
                if t >= dur * 1e6:
                    break
                free = max(t, free) + rng.choice(svc)
                lat.append(free - t)
            p50s.append(q(lat, 0.5) / 1e3)
            p99s.append(q(lat, 0.99) / 1e3)
        b = [q(p50s, x) for x in (0.05, 0.5, 0.95)] + [q(p99s, x) for x in (0.05, 0.5, 0.95)]
        print(",".join([r["config"], r["sharing"], r["loop"], r["lat_p50_ms"], r["lat_p99_ms"]] +
                       [f"{x:.3f}" for x in b]))


if __name__ == "__main__":
    main()
