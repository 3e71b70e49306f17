#!/usr/bin/env python3
"""Every rank's requests, per configuration and phase, from mps_graph_probe.py's PREFIX.json files
(issue 10, disj10b).  mps_graph_ranks.py RAW [OUT.csv] [--groups p50_n1,p50_n2,...]

RAW holds <group>_p<rank>.json (mps_disj_campaign.sh's layout).  Per group, rank, configuration and
phase: the requests served; the GPU span e0->e1 (p10/p50/p90, min, max, us); the host's graph launch
time (h_replay - h_h2d, p50) and the request's host time (h_sync, p50); and 'near_alone' = requests
whose span is below the group's N = 1 p50 at the same percentage (same configuration) x 1.05.
Where rank 0's kineto phase has t_end (mps_graph_probe.py since disj10b), a neighbour's kineto
row also gives its requests that started before rank 0's last profiled request ended (their start
from the slot's start = the summed h_sync of the rows before: loop overhead left out) and their
span p50, and the span p50 of the rest ('during', 'after').

Why: in the 'kineto' slot rank 0 profiles 16 requests while the other ranks go on with plain,
timed requests.  If rank 0's profiled requests ran while a neighbour served, that neighbour's spans
show rank 0's presence (its plain-phase level) for about 16 requests; if every neighbour request
of the slot is near its alone value, rank 0 did not serve during the neighbours' window and its
Kineto kernels were measured without neighbours."""
import argparse
import csv
import glob
import json
import os
import sys


def q(v, p):
    v = sorted(v)
    return v[int(p * (len(v) - 1))]


ap = argparse.ArgumentParser()
ap.add_argument("raw")
ap.add_argument("out", nargs="?")
ap.add_argument("--groups", default=None, help="comma-separated groups, in output order (default all)")
a = ap.parse_args()
raw = a.raw
out = open(a.out, "w") if a.out else sys.stdout
groups = a.groups.split(",") if a.groups else None
files = sorted(glob.glob(os.path.join(raw, "*_p*.json")))
data = {}
meta = {}
for f in files:
    g, r = os.path.basename(f)[:-5].rsplit("_p", 1)
    if groups and g not in groups:
        continue
    for ph in json.load(open(f))["phases"]:
        data[(g, int(r), ph["config"], ph["phase"])] = ph["rows"]
        meta[(g, int(r), ph["config"], ph["phase"])] = ph


def alone(g, cfg):
    """p50 span of rank 0's plain phase in the N = 1 group at g's percentage."""
    rows = data.get((g.split("_n")[0] + "_n1", 0, cfg, "plain"))
    return q([x[5] for x in rows], 0.5) if rows else None


w = csv.writer(out)
w.writerow(["group", "rank", "config", "phase", "requests", "span_p10", "span_p50", "span_p90", "span_min",
            "span_max", "launch_p50", "h_sync_p50", "alone_p50", "near_alone", "during_n", "during_p50", "after_p50"])


def during(k, rows):
    """Split a neighbour's kineto-slot rows at rank 0's profiled end: (n, p50 during, p50 after)."""
    t_end = meta.get((k[0], 0, k[2], "kineto"), {}).get("t_end")
    if k[3] != "kineto" or k[1] == 0 or t_end is None:
        return ["", "", ""]
    t, d, f = 0.0, [], []
    for x in rows:
        (d if t / 1e6 < t_end else f).append(x[5])
        t += x[3]
    return [len(d), f"{q(d, .5):.1f}" if d else "", f"{q(f, .5):.1f}" if f else ""]



order = {g: i for i, g in enumerate(groups or [])}
for k in sorted(data, key=lambda k: (order.get(k[0], 99), k[0], k[2], k[3] != "plain", k[1])):
    rows = data[k]
    a = alone(k[0], k[2])
    if not rows:
        w.writerow(list(k) + [0] + [""] * 12)
        continue
    s = [x[5] for x in rows]
    w.writerow(list(k) + [len(rows)] + [f"{v:.1f}" for v in (q(s, .1), q(s, .5), q(s, .9), min(s), max(s))] +
               [f"{q([x[1] - x[0] for x in rows], .5):.1f}", f"{q([x[3] for x in rows], .5):.1f}",
                f"{a:.1f}" if a else "", sum(v < a * 1.05 for v in s) if a else ""] + during(k, rows))
