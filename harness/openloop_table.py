#!/usr/bin/env python3
"""The README's open-loop tables from predicted.csv (harness/openloop_predict.py).

  openloop_table.py PREDICTED.csv rows|summary [--mode graph|eager]

rows: one markdown row per closed-loop row and per open-loop row of N = 1, 4 without MPS or
  with MPS (thread percentages: closed loop only), the fitted row marked; errors beyond the
  targets (throughput and p50 10%, p99 20%) in bold.
summary: per kind of row (loop, load, sharing), how many predicted rows (the fitted left out)
  are within each target, then all of them.
--mode: the CUDA-graph configurations (default) or the eager ones (reported apart: the
  targets are the graph workloads').
"""
import argparse
import csv

from openloop_rows import SHARING, category, within

ap = argparse.ArgumentParser()
ap.add_argument("predicted")
ap.add_argument("what", choices=["rows", "summary"])
ap.add_argument("--mode", choices=["graph", "eager"], default="graph")
a = ap.parse_args()
LOOPS = ("closed", "open0.5", "open0.8")


def err(x, lim=10):
    v = float(x)
    s = ("−" if x.startswith("-") else "+") + "%.1f%%" % abs(v)
    return "**%s**" % s if abs(v) > lim else s


def f3(x):
    return "%.3f" % float(x)


def rows(rs):
    for r in rs:
        if r["loop"] != "closed" and (r["n"] not in ("1", "4") or r["sharing"] not in ("mps", "nomps")):
            continue
        loop = r["loop"] + (" (fitted)" if r["kind"] == "fitted" else "")
        print("| `%s` | %s | %s | %s | %.0f | %.0f | %s | %s / %s | %s / %s | %s | %s |" % (
            r["config"], r["sharing"], r["n"], loop, float(r["meas_thr"]), float(r["pred_thr"]),
            err(r["err_thr_pct"]), f3(r["meas_p50_ms"]), f3(r["meas_p99_ms"]), f3(r["pred_p50_ms"]),
            f3(r["pred_p99_ms"]), err(r["err_p50_pct"]), err(r["err_p99_pct"], 20)))


def category_of(r):
    return category(r["sharing"], r["loop"])


def summary(rs):
    rs = [r for r in rs if r["kind"] != "fitted"]
    order = []
    for lp in LOOPS:
        for sh in dict.fromkeys(SHARING.values()):
            order.append("closed loop, " + sh if lp == "closed" else "open loop, %s load, %s" % (lp[4:], sh))
    for c in order:
        sel = [r for r in rs if category_of(r) == c]
        if sel:
            print("| %s (%d) | %d | %d | %d |" % ((c, len(sel)) + within(sel)))
    print("| all (%d) | %d | %d | %d |" % ((len(rs),) + within(rs)))


def main():
    rs = [r for r in csv.DictReader(open(a.predicted)) if r["config"].endswith("_" + a.mode)]
    (rows if a.what == "rows" else summary)(rs)


if __name__ == "__main__":
    main()
