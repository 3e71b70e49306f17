#!/usr/bin/env python3
"""Arrival times of open-loop phases, replayed from summary.csv alone (no raw data).

  openloop_arrivals.py SUMMARY.csv DIR [--configs a,b] [--dur 0.5] [--force]

harness/openloop.py draws each process's Poisson arrivals from a generator seeded by its rank,
the load and the configuration, at the rate per process the summary records (to 0.1/s).
openloop_summary.py --arrivals replays them from the raw files (exact per-process start
times); this does the same from the summary, for the phases it did not write (the eager
configurations' open0.8), every process starting at the group's release. Each phase's pooled
count must equal the summary's request count, or nothing is written for it. Times differ from
a replay from raw data by the barrier skew between processes and the rounding of the rate
(at most ~0.2 ms over the 0.5 s phase). Writes DIR/<sharing>_n<N>_<config>_<loop>.json.gz
(gzip -9n, like openloop_summary's files after compression); existing files are kept
unless --force.
"""
import argparse
import csv
import gzip
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openloop_summary import arrivals  # noqa: E402  (the campaign's own generator)

ap = argparse.ArgumentParser()
ap.add_argument("summary")
ap.add_argument("dir")
ap.add_argument("--configs", default=None)
ap.add_argument("--dur", type=float, default=0.5, help="seconds of issuing per phase (openloop_campaign.sh DUR)")
ap.add_argument("--force", action="store_true")
a = ap.parse_args()


def main():
    want = set(a.configs.split(",")) if a.configs else None
    os.makedirs(a.dir, exist_ok=True)
    bad = 0
    for r in csv.DictReader(open(a.summary)):
        if not r["loop"].startswith("open") or (want and r["config"] not in want):
            continue
        n = int(r["n"])
        path = os.path.join(a.dir, f"{r['sharing']}_n{n}_{r['config']}_{r['loop']}.json.gz")
        if os.path.exists(path) and not a.force:
            continue
        ph = {"loop": r["loop"], "cfg": r["config"], "rate_per_s": float(r["rate_per_s_per_process"]), "t_go": 0}
        per = [arrivals({"rank": k, "dur_s": a.dur}, ph) for k in range(n)]
        got = sum(len(x) for x in per)
        if got != int(r["requests"]):
            print(f"{path}: {got} arrivals for {r['requests']} requests; not written", file=sys.stderr)
            bad += 1
            continue
        t0 = min(x[0] for x in per if x)
        body = json.dumps({"processes": [[(t - t0) // 1000 for t in x] for x in per]}, separators=(",", ":"))
        with open(path, "wb") as f:
            f.write(gzip.compress(body.encode(), 9, mtime=0))
        print(path, got)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
