#!/usr/bin/env python3
"""Summarise harness/ts_idle_campaign.sh results (issue 10, FINDINGS §71).

  ts_idle_summary.py TSIDLE.tar.xz[,TSIDLE2.tar.xz] OUT.csv [--wake WAKE.csv]

OUT.csv: per call, condition (in the order run) and idle gap: request count and medians (us) of the
service (end - start), the H2D copy call (host), the replay call, the graph's GPU span (CUDA events),
the GPU wait before it (g_h2d: the copy's events, which hold the wait for the GPU where another
context holds it) and the time outside the span (service - span).  --wake: per `alone` sweep
the wake at each gap (median service at the gap less at the smallest gap), and per gap the upper
median over the sweeps (harness/idle_fit.py's rule).
"""
import argparse
import csv
import io
import json
import statistics
import tarfile


def sweeps(paths):
    for call, path in enumerate(paths, 1):
        with tarfile.open(path) as tf:
            m = [x for x in tf.getmembers() if x.name.endswith("probe.json")][0]
            d = json.load(io.TextIOWrapper(tf.extractfile(m)))
        ix = {c: i for i, c in enumerate(d["cols"])}
        for k, c in enumerate(d["conds"]):
            yield call, k, c["cond"], ix, c["rows"][1:]  # the first request's gap is not controlled


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("out")
    ap.add_argument("--wake", default=None)
    a = ap.parse_args()
    rows, wake = [], {}
    for call, k, cond, ix, rs in sweeps(a.raw.split(",")):
        gaps = sorted({r[ix["gap_us"]] for r in rs})
        svc = {}
        for g in gaps:
            sel = [r for r in rs if r[ix["gap_us"]] == g]

            def med(f):
                return statistics.median(f(r) for r in sel)
            svc[g] = med(lambda r: r[ix["end"]] - r[ix["start"]])
            rows.append([call, k, cond, g, len(sel), f"{svc[g]:.1f}", f"{med(lambda r: r[ix['h_h2d']] - r[ix['start']]):.1f}",
                         f"{med(lambda r: r[ix['h_replay']] - r[ix['h_h2d']]):.1f}", f"{med(lambda r: r[ix['g_span']]):.1f}",
                         f"{med(lambda r: r[ix['g_h2d']]):.1f}",
                         f"{med(lambda r: r[ix['end']] - r[ix['start']] - r[ix['g_span']]):.1f}"])
        if cond.startswith("alone"):
            wake[(call, k)] = {g: svc[g] - svc[gaps[0]] for g in gaps}
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["call", "sweep", "cond", "gap_us", "requests", "service_us", "h2d_call_us", "replay_call_us",
                    "g_span_us", "g_h2d_us", "outside_us"])
        w.writerows(rows)
    if a.wake:
        gaps = sorted({g for v in wake.values() for g in v})
        with open(a.wake, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["call", "sweep", *[f"wake_{g}us" for g in gaps]])
            for (call, k), v in sorted(wake.items()):
                w.writerow([call, k, *[f"{v[g]:.1f}" for g in gaps]])
            up = [sorted(v[g] for v in wake.values())[len(wake) // 2] for g in gaps]
            w.writerow(["upper_median", len(wake), *[f"{x:.1f}" for x in up]])


if __name__ == "__main__":
    main()
