#!/usr/bin/env python3
"""The serving table's errors on two GPUs, row by row (issue 10: the H200's against the H100's).

  openloop_gpu_compare.py A_PREDICTED.csv B_PREDICTED.csv [--mode graph|eager] [--rows]

Both files are harness/openloop_predict.py outputs of the same campaign on two GPUs (e.g.
traces/measured/h100/openloop/predicted.csv and traces/measured/h200/openloop/predicted.csv).
Prints per kind of row (loop, load, sharing, as openloop_table.py groups them; the fitted rows
left out) how many are within target on each (throughput and p50 10%, p99 20%), then per
sharing x N the closed-loop throughput error on each and its change, and for every column the
rank correlation of the two GPUs' errors over the rows both have (does a miss on one GPU miss
the same way on the other?).  --rows: every common row, both errors side by side.
"""
import argparse
import csv

from mps_empty_summary import spearman  # the rank correlation, ties at their mean rank
from openloop_rows import TARGETS, category, within

ap = argparse.ArgumentParser()
ap.add_argument("a")
ap.add_argument("b")
ap.add_argument("--mode", choices=["graph", "eager"], default="graph")
ap.add_argument("--rows", action="store_true")
args = ap.parse_args()


def load(path):
    return {(r["config"], r["sharing"], r["n"], r["loop"]): r for r in csv.DictReader(open(path))
            if r["config"].endswith("_" + args.mode) and r["kind"] != "fitted"}


def category_of(k):
    return category(k[1], k[3])


def main():
    a, b = load(args.a), load(args.b)
    cats = []
    for k in list(a) + list(b):
        if category_of(k) not in cats:
            cats.append(category_of(k))
    print("| rows | A: thr / p50 / p99 within | B: thr / p50 / p99 within |")
    print("|---|---|---|")
    for c in sorted(cats, key=lambda c: (not c.startswith("closed"), c)):
        ra = [r for k, r in a.items() if category_of(k) == c]
        rb = [r for k, r in b.items() if category_of(k) == c]
        print("| %s | %s of %d | %s of %d |" % (c, " / ".join(map(str, within(ra))), len(ra),
                                                " / ".join(map(str, within(rb))), len(rb)))
    print("| all | %s of %d | %s of %d |" % (" / ".join(map(str, within(list(a.values())))), len(a),
                                            " / ".join(map(str, within(list(b.values())))), len(b)))
    common = sorted(set(a) & set(b))
    print("\nclosed-loop throughput error (%), A -> B, per sharing and N (mean |error| over configurations)")
    for sh in ("nomps", "mps", "mps50", "mps25"):
        for n in ("1", "2", "4", "8"):
            ks = [k for k in common if k[1] == sh and k[2] == n and k[3] == "closed"]
            if ks:
                ea = [float(a[k]["err_thr_pct"]) for k in ks]
                eb = [float(b[k]["err_thr_pct"]) for k in ks]
                print("  %-6s N=%s (%d): %s -> %s | mean |e| %.1f -> %.1f" % (
                    sh, n, len(ks), " ".join("%+.1f" % x for x in ea), " ".join("%+.1f" % x for x in eb),
                    sum(map(abs, ea)) / len(ea), sum(map(abs, eb)) / len(eb)))
    print("\nrank correlation of the two GPUs' errors over %d common rows:" % len(common))
    for c, _ in TARGETS:
        for sel, name in ((lambda k: True, "all"), (lambda k: k[3] == "closed", "closed"),
                          (lambda k: k[1] != "nomps", "MPS rows")):
            ks = [k for k in common if sel(k)]
            if len(ks) > 2:
                print("  %s, %s (%d): Spearman %.2f" % (c, name, len(ks), spearman(
                    [float(a[k][c]) for k in ks], [float(b[k][c]) for k in ks])))
    if args.rows:
        print("\nconfig,sharing,n,loop," + ",".join("a_%s,b_%s" % (c, c) for c, _ in TARGETS))
        for k in common:
            print(",".join(k) + "," + ",".join("%s,%s" % (a[k][c], b[k][c]) for c, _ in TARGETS))


if __name__ == "__main__":
    main()
