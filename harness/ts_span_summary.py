#!/usr/bin/env python3
"""Summary of harness/ts_span_campaign.sh (issue 10, FINDINGS §33).

  ts_span_summary.py TS_SPAN.tar.gz SWITCH.csv

Per configuration the median CUDA-event span (us) of one graph replay in every phase, in
the order the phases ran, and rank 0's median request wall time (n1a: one process; n2: two, rank 0's role first; n4: four;
n1b: one process again), then the drop of the span per kernel transition between the
queued graph alone (n1a, n1b) and the queued graph while the other process takes turns
(n2 'queued,req'), with the kernels per request from SWITCH.csv (switch_probe's Kineto
count).  The last line: the median drop over the configurations, and
graph_node_spacing_us (0.416, CUPTI) less it.
"""
import csv
import io
import json
import statistics as st
import sys
import tarfile

tar = tarfile.open(sys.argv[1])
kernels = {}
for r in csv.DictReader(open(sys.argv[2])):
    if r["n"] == "1":
        kernels[r["config"]] = int(r["kernels_per_request"])
runs = {}
for m in tar.getmembers():
    if m.name.endswith(".json"):
        tag = m.name.split("/")[-1][:-5]
        runs[tag] = json.load(io.TextIOWrapper(tar.extractfile(m)))


def med(tag, cfg, roles):
    for p in runs[tag]["phases"]:
        if p["config"] == cfg and ",".join(p["roles"]) == roles and p["count"]:
            return st.median(p["span_us"])
    return float("nan")


cfgs = []
for p in runs["n1a_p0"]["phases"]:
    if p["config"] not in cfgs:
        cfgs.append(p["config"])
drops = []
print("config,kernels,phase,span_us_p50,request_wall_us_p50")
for c in cfgs:
    key = "%s_%s_graph" % tuple(c.split(":"))
    k = kernels[key]
    rows = []
    for tag in ("n1a_p0", "n2_p0", "n4_p0", "n1b_p0"):
        for p in runs[tag]["phases"]:
            if p["config"] == c and p["count"]:
                rows.append((tag[:-3] + ":" + "+".join(p["roles"]), st.median(p["span_us"]),
                             st.median(p["wall_us"])))
    for name, s, w in rows:
        print("%s,%d,%s,%.1f,%.1f" % (key, k, name, s, w))
    alone = st.mean([med("n1a_p0", c, "queued"), med("n1b_p0", c, "queued")])
    sliced = med("n2_p0", c, "queued,req")
    d = (alone - sliced) / (k - 1)
    drops.append(d)
    print("# %s: queued alone %.1f, queued while the other takes turns %.1f: %.3f us per transition"
          % (key, alone, sliced, d))
m = st.median(drops)
print("# median drop %.3f us per transition; graph_node_spacing_us 0.416 - drop = %.3f us" % (m, 0.416 - m))
