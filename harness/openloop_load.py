#!/usr/bin/env python3
"""How much of an open-loop latency miss is the closed-loop throughput miss (issue 10).

  openloop_load.py PREDICTED.csv [--loop open0.8] [--draws 20] [--rows]

A queue of one process serving one request at a time (harness/openloop.py) at the arrival
times it drew (arrivals/, as hqsim replays them): the Lindley recursion
  start = max(arrival, previous end), end = start + service,
with the service times the lone process's measured closed-loop latencies (spread/<config>.json,
drawn at random, as --request-spread does) scaled to a mean of 1 / closed-loop throughput of the
same group (sharing, N, configuration) -- per process, every request of every process pooled
for p50 as openloop_summary.py does.  Per open-loop row of the graph configurations it prints:
  meas    the measured p50 (ms)
  q_meas  the queue's p50 with the MEASURED closed-loop throughput of the group
  q_pred  the queue's p50 with hqsim's PREDICTED closed-loop throughput of the group
  hqsim   hqsim's own open-loop p50 (predicted.csv)
  s_fit   the factor on the measured closed-loop service time that makes the queue's p50 the
          measured one (bisection): the open-loop phase behaved as if requests took s_fit
          times what the closed phase before it measured
  p99     the measured p99 and the queue's with the measured closed-loop throughput: whether
          the lone process's spread is as wide as the open loop's
  sd      the p50's spread (relative standard deviation) over --draws orders of the same
          service times at the same arrivals: the part of a p50 no model can predict
and then counts, per kind of row, how many are within 10% of the measured p50 for each.
The queue is exact for N = 1; for N > 1 the closed-loop service time counts every other
process busy, an upper bound (at 0.8 load they are busy about 80% of the time).
"""
import argparse
import csv
import gzip
import json
import os
import random
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
OL = os.path.join(os.path.dirname(HERE), "traces/measured/h100/openloop")
ap = argparse.ArgumentParser()
ap.add_argument("predicted")
ap.add_argument("--loop", default="open0.8", help="open0.5, open0.8 or all")
ap.add_argument("--draws", type=int, default=20)
ap.add_argument("--rows", action="store_true", help="print every row, not only the counts")
a = ap.parse_args()


def q(v, p):
    """Nearest rank, as openloop_summary.py."""
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]


def pct(arr, base, mean_us, seed, p=0.5):
    """Pooled percentile @p (ms) of the per-process queues: service = base sample * mean_us / mean(base)."""
    rng = random.Random(seed)
    k = mean_us / statistics.fmean(base)
    lat = []
    for proc in arr:
        end = 0.0
        for t in proc:
            end = max(t, end) + rng.choice(base) * k
            lat.append(end - t)
    lat.sort()
    return q(lat, p) / 1e3


def med(arr, base, mean_us, draws, p=0.5):
    v = [pct(arr, base, mean_us, s, p) for s in range(draws)]
    return statistics.median(v), statistics.pstdev(v) / statistics.fmean(v)


def s_fit(arr, base, mean_us, target):
    lo, hi = 0.5, 2.0
    for _ in range(20):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if med(arr, base, mean_us * mid, 5)[0] < target else (lo, mid)
    return (lo + hi) / 2


def main():
    rs = [r for r in csv.DictReader(open(a.predicted)) if r["config"].endswith("_graph")]
    closed = {(r["config"], r["sharing"], r["n"]): r for r in rs if r["loop"] == "closed"}
    opens = [r for r in rs if r["loop"] != "closed" and (a.loop == "all" or r["loop"] == a.loop)]
    within = {}
    for r in opens:
        c = closed[(r["config"], r["sharing"], r["n"])]
        base = json.load(open(os.path.join(OL, "spread", r["config"] + ".json")))["latencies_us"]
        arr = json.load(gzip.open(os.path.join(OL, "arrivals", "%s_n%s_%s_%s.json.gz" % (
            r["sharing"], r["n"], r["config"], r["loop"]))))["processes"]
        meas = float(r["meas_p50_ms"])
        qm, sd = med(arr, base, 1e6 / float(c["meas_thr"]), a.draws)
        qp = med(arr, base, 1e6 / float(c["pred_thr"]), a.draws)[0]
        hq = float(r["pred_p50_ms"])
        q99 = med(arr, base, 1e6 / float(c["meas_thr"]), a.draws, 0.99)[0]
        m99 = float(r["meas_p99_ms"])
        sf = s_fit(arr, base, 1e6 / float(c["meas_thr"]), meas)
        kind = "%s N=1" % r["loop"] if r["n"] == "1" else "%s N>1" % r["loop"]
        ok = [abs(x / meas - 1) <= 0.10 for x in (qm, qp, hq)]
        w = within.setdefault(kind, [0, 0, 0, 0, 0, 0])
        w[0] += 1
        for i, o in enumerate(ok):
            w[1 + i] += o
        w[4] += abs(sf - 1) <= 0.03
        w[5] += abs(q99 / m99 - 1) <= 0.20
        if a.rows:
            print("%-18s %-6s %s %-8s closed thr err %+6.1f%%  meas %7.3f  q_meas %7.3f (%+6.1f%%)  "
                  "q_pred %7.3f (%+6.1f%%)  hqsim %7.3f (%+6.1f%%)  s_fit %.3f  sd %4.1f%%  "
                  "p99 meas %7.3f q_meas %7.3f (%+6.1f%%)" % (
                      r["config"], r["sharing"], r["n"], r["loop"], float(c["err_thr_pct"]), meas, qm,
                      100 * (qm / meas - 1), qp, 100 * (qp / meas - 1), hq, 100 * (hq / meas - 1), sf, 100 * sd,
                      m99, q99, 100 * (q99 / m99 - 1)))
    print("| rows | p50 within 10%: queue, measured closed thr | queue, predicted closed thr | hqsim | "
          "s_fit within 3% | queue p99 within 20%, measured closed thr |")
    print("|---|---|---|---|---|---|")
    for k, w in sorted(within.items()):
        print("| %s (%d) | %d | %d | %d | %d | %d |" % (k, *w))


if __name__ == "__main__":
    main()
