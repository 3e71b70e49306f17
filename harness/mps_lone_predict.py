#!/usr/bin/env python3
"""hqsim against harness/mps_lone_campaign.sh's function-count variants (issue 10, FINDINGS §55).

  mps_lone_predict.py LONE.tar.gz HQSIM [--write DIR]

Each variant (add, f8, f16: 64 1-block PyTorch elementwise kernels over 1 / 8 / 16 distinct
functions; addw, f8w: the same on 2048 blocks; f1mix, f8mix: 1-block and 2048-block kernels
alternating, one or eight functions) becomes a scenario: one graph of its 64 nodes, each lasting
what it measured without MPS (round 2's Kineto replay), named f<i mod F> (F distinct functions in
the probe's order), 200 requests.  `hqsim compare` runs it in a context of its own and as the only
MPS client; the growth of the makespan per node is set beside the measured growth of the median
span per node (pooled over the campaign's two rounds).  --write DIR keeps the scenarios
(tests/data/mps_evict/).  Fitted on these rows: mps_func_evict_us on f16 (models/h100-sxm.json says
which); the others are predictions.
"""
import argparse
import json
import os
import statistics as st
import subprocess
import tarfile
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("tar")
ap.add_argument("hqsim")
ap.add_argument("--write", default=None)
a = ap.parse_args()
WIDE = 2048  # 2^20 floats, 128 threads x 4 each per block
SPECS = {  # variant: (functions, grid of node i)
    "add": (1, lambda i: 1), "f8": (8, lambda i: 1), "f16": (16, lambda i: 1),
    "addw": (1, lambda i: WIDE), "f8w": (8, lambda i: WIDE),
    "f1mix": (1, lambda i: WIDE if i % 2 else 1), "f8mix": (8, lambda i: WIDE if i % 2 else 1),
}
tf = tarfile.open(a.tar)
runs = {}
for m in tf.getmembers():
    n = m.name.split("/")[-1]
    if n.endswith(".json") and m.isfile():
        runs[n[:-5]] = json.load(tf.extractfile(m))
tmp = a.write or tempfile.mkdtemp(prefix="lone_predict.")
os.makedirs(tmp, exist_ok=True)
print("variant,functions,measured_growth_per_node_us,hqsim_growth_per_node_us")
for v, (nf, grid) in SPECS.items():
    ks = runs["nomps_r2"]["variants"][v]["kernels"]
    nodes = [{"op": "kernel", "name": "f%d" % (i % nf), "grid": grid(i), "block": 128,
              "duration_us": round(k[2], 3)} for i, k in enumerate(ks)]
    sc = {"hqsim_scenario": 1, "gpu": "h100-sxm",
          "description": "harness/mps_lone_predict.py: variant %s of harness/mps_lone_probe.py "
                         "(traces/measured/h100/mpspct/lone/, H100, 2026-11-27) as one graph of its %d "
                         "nodes, each lasting what it measured without MPS, 200 requests" % (v, len(nodes)),
          "processes": [{"name": v, "iterations": 200, "streams": [{"name": "s"}],
                         "ops": [{"op": "graph", "stream": "s", "nodes": nodes},
                                 {"op": "stream_sync", "stream": "s"}]}]}
    path = os.path.join(tmp, v + ".json")
    json.dump(sc, open(path, "w"), indent=1)
    p = subprocess.run([a.hqsim, "compare", path, "--json", "-", "-q"], capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"{path}: exit {p.returncode}: {p.stderr.strip()}")
    j = json.loads(p.stdout)
    own, mps = j["runs"][0]["makespan_ms"], j["runs"][1]["makespan_ms"]
    pred = (mps - own) * 1000 / (200 * len(nodes))
    g = [runs[f"mps_{r}"]["variants"][v]["median_us"] - runs[f"nomps_{r}"]["variants"][v]["median_us"]
         for r in ("r1", "r2")]
    print("%s,%d,%+.3f,%+.3f" % (v, nf, st.mean(g) / len(nodes), pred))
