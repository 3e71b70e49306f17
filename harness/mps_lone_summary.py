#!/usr/bin/env python3
"""Table of harness/mps_lone_campaign.sh: what being the only MPS client costs each graph variant.

  mps_lone_summary.py lone.tar.gz [--kernels VARIANT]

Per variant of harness/mps_lone_probe.py: the median span per replay without MPS and as the only
MPS client, each round (r1, r2: the campaign alternates no MPS, MPS, no MPS, MPS), the growth of
the median span per request and per nominal node (MPS minus no MPS, pooled: mean of the two
rounds' growths), and the rounds' spread.  --kernels VARIANT: the Kineto replay's kernels of
round 2 without and with MPS side by side (duration change per kernel).  Nothing is fitted.
"""
import argparse
import json
import statistics as st
import tarfile

ap = argparse.ArgumentParser()
ap.add_argument("tar")
ap.add_argument("--kernels", default=None)
a = ap.parse_args()
tf = tarfile.open(a.tar)
runs = {}
for m in tf.getmembers():
    name = m.name.split("/")[-1]
    if name.endswith(".json") and m.isfile():
        runs[name[:-5]] = json.load(tf.extractfile(m))
rounds = sorted({k.split("_")[1] for k in runs})
if a.kernels:
    k0 = runs["nomps_r2"]["variants"][a.kernels].get("kernels", [])
    k1 = runs["mps_r2"]["variants"][a.kernels].get("kernels", [])
    print("i,name,nomps_us,mps_us,change_us")
    for i, (x, y) in enumerate(zip(k0, k1)):
        print(f"{i},\"{x[0][:60]}\",{x[2]:.2f},{y[2]:.2f},{y[2] - x[2]:+.2f}")
    raise SystemExit
names = list(runs["nomps_r1"]["variants"])
print("variant,nodes," + ",".join(f"nomps_{r}_us,mps_{r}_us" for r in rounds)
      + ",growth_per_request_us,growth_per_node_us,rounds_growth_per_node")
for v in names:
    row, g = [v, runs["nomps_r1"]["variants"][v]["nodes"]], []
    for r in rounds:
        x = runs.get(f"nomps_{r}", {}).get("variants", {}).get(v)
        y = runs.get(f"mps_{r}", {}).get("variants", {}).get(v)
        row += ["%.2f" % x["median_us"] if x else "", "%.2f" % y["median_us"] if y else ""]
        if x and y:
            g.append(y["median_us"] - x["median_us"])
    n = row[1]
    row += ["%+.2f" % st.mean(g) if g else "", "%+.3f" % (st.mean(g) / n) if g else "",
            " / ".join("%+.3f" % (x / n) for x in g)]
    print(",".join(map(str, row)))
