#!/usr/bin/env python3
"""Open-loop rows predicted several ways, side by side (FINDINGS.md §56).

  bare_compare.py LABEL=PREDICTED.csv [LABEL=PREDICTED.csv ...] [--metric thr|p50|p99] [--configs A,B]

Each PREDICTED.csv is harness/openloop_predict.py's output for the same rows (e.g. the bare trace
with --ncu '' under main's binary and under this one, and with the ncu files).  Prints per row the
measured value and each file's error (%), then per configuration and sharing the mean |error| and
the rows within 10% (throughput, p50) or 20% (p99), the README's targets.  Rows missing from a file
are left blank.
"""
import argparse
import csv
import collections

ap = argparse.ArgumentParser()
ap.add_argument("files", nargs="+")
ap.add_argument("--metric", default="thr", choices=["thr", "p50", "p99"])
ap.add_argument("--configs", default=None, help="only these configurations (comma-separated)")
a = ap.parse_args()
TARGET = {"thr": 10, "p50": 10, "p99": 20}[a.metric]
labels, tables = [], []
for f in a.files:
    lab, path = f.split("=", 1)
    labels.append(lab)
    tables.append({(r["config"], r["sharing"], r["n"], r["loop"]): r for r in csv.DictReader(open(path))})
keys = [k for k in tables[0] if all(k in t for t in tables)
        and (not a.configs or k[0] in a.configs.split(","))]
col = {"thr": ("meas_thr", "err_thr_pct"), "p50": ("meas_p50_ms", "err_p50_pct"),
       "p99": ("meas_p99_ms", "err_p99_pct")}[a.metric]
print(f"{'config':18} {'sharing':7} {'n':>2} {'loop':7} {'measured':>9} " + " ".join(f"{l:>12}" for l in labels))
groups = collections.defaultdict(lambda: [[] for _ in labels])
for k in keys:
    errs = [float(t[k][col[1]]) for t in tables]
    print(f"{k[0]:18} {k[1]:7} {k[2]:>2} {k[3]:7} {float(tables[0][k][col[0]]):9.4g} "
          + " ".join(f"{e:+12.1f}" for e in errs))
    for g in ((k[0], k[1]), (k[0], "all"), ("all", k[1]), ("all", "all")):
        for i, e in enumerate(errs):
            groups[g][i].append(e)
print()
print(f"mean |error| % ({a.metric}) and rows within {TARGET}%, per configuration and sharing")
print(f"{'config':18} {'sharing':7} {'rows':>4} " + " ".join(f"{l:>16}" for l in labels))
for g in sorted(groups):
    v = groups[g]
    print(f"{g[0]:18} {g[1]:7} {len(v[0]):4} "
          + " ".join(f"{sum(abs(e) for e in x) / len(x):9.1f} {sum(abs(e) <= TARGET for e in x):3d}/{len(x):<2d}"
                     for x in v))
