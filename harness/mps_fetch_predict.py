#!/usr/bin/env python3
"""hqsim's lone-MPS-client cost on the `wp` specs of mpspct/var/funcmem3{,b} (FINDINGS §31 addendum).

  mps_fetch_predict.py HQSIM DIR [DIR ...] [--gpu MODEL] [--write-scenarios OUTDIR]

Each `wp…` spec of DIR/info.txt (32 graph nodes alternating a writer W and a probe P, function i mod
F) becomes a scenario: one graph of its 32 nodes, chained, each node a kernel with the spec's grid and
block, named by its function (`f<i>`, so hqsim's LRU distance is the probe's), lasting what the same
node measured without MPS (the median per node position of DIR/var.csv's `types_kern_gap_p50`,
mean of the passes), then a stream synchronize; 200 requests.  DRAM bytes (for L(P)): `d` (fresh
reads) and `i` (reads of the previous node's output, beyond the L2 in these specs) count, as does
`w` (fresh writes); `l` (L2-resident reads) and `o` (writes to the node's own region, which stays in
the 50 MB L2) do not: an assumption, no DRAM counter was read.  hqsim runs it in its own context and
as the only MPS client; the growth per node is the span difference over 200 x 32 nodes.  `_str`
specs (launched one by one from the stream) become stream kernels; `_gate` specs (a 150 µs kernel
first, its time not in var.csv) are left out.  Printed per
spec: measured and predicted growth per node (µs), and F8 - F1 where the spec has both.
Measured: the pooled growth of `python3 harness/mps_var_summary.py --wp DIR` (the same rows).
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("hqsim")
ap.add_argument("dirs", nargs="+")
ap.add_argument("--gpu", default="h100-sxm")
ap.add_argument("--write-scenarios", default=None, metavar="OUTDIR")
a = ap.parse_args()

ITERS = 200
TOKEN = re.compile(r"([a-z])(\d+)")


def node(tok, us):
    """A spec node (g1.b128.o512.t0.f0) as a scenario kernel of @us µs."""
    f = dict((k, int(v)) for k, v in TOKEN.findall(tok.replace(".", " ")))
    g, b = f["g"], f["b"]
    per_thread = sum(f.get(k, 0) for k in "diw") * 16  # float4s beyond the L2
    k = {"op": "kernel", "name": "f%d" % f.get("f", 0), "grid": g, "block": b,
         "duration_us": round(us, 4)}
    if per_thread:
        k["dram_bytes"] = g * b * per_thread
    return k


def scenario(name, where, spec, durs):
    nodes = [node(t, d) for t, d in zip(spec.split("/"), durs)]
    if name.endswith("_str"):  # launched one by one from the stream
        ops = [dict(k, stream="s") for k in nodes]
    else:
        ops = [{"op": "graph", "stream": "s", "nodes": nodes}]
    return {"hqsim_scenario": 1, "gpu": a.gpu,
            "description": "harness/mps_fetch_predict.py: spec %s of %s (H100, 2026-11-27) as one graph "
                           "of its 32 nodes, each lasting what it measured without MPS, %d requests"
                           % (name, where, ITERS),
            "processes": [{"name": "wp", "iterations": ITERS, "streams": [{"name": "s"}],
                           "ops": ops + [{"op": "stream_sync", "stream": "s"}]}]}


def makespan(path, mode):
    p = subprocess.run([a.hqsim, "run", path, "--mode", mode, "--gpu", a.gpu, "-q", "--json", "-"],
                       capture_output=True, text=True)
    if p.returncode:
        sys.exit("%s: %s" % (path, p.stderr.strip()))
    return json.loads(p.stdout)["run"]["makespan_ms"] * 1000.0


rows = {}
for d in a.dirs:
    specs = {}
    for line in open(os.path.join(d, "info.txt")):
        if line.startswith("spec wp") and "_gate=" not in line:
            name, spec = line[5:].strip().split("=", 1)
            specs[name] = spec
    kern, growth = {}, {}
    with open(os.path.join(d, "var.csv")) as fh:
        for r in csv.DictReader(fh):
            v = r["victim"][2:]
            if r["n"] != "1" or r["aggr"] != "none" or v not in specs:
                continue
            growth.setdefault(v, {}).setdefault(r["mode"], []).append(float(r["span_p50_us"]))
            if r["mode"] == "nomps":
                ks = [float(x.split(":")[0]) for x in r["types_kern_gap_p50"].split("|")]
                kern.setdefault(v, []).append(ks)
    for v, spec in specs.items():
        if v not in kern or "mps" not in growth.get(v, {}):
            continue
        durs = [statistics.mean(c) for c in zip(*kern[v])]
        meas = (statistics.mean(growth[v]["mps"]) - statistics.mean(growth[v]["nomps"])) / 32
        sc = scenario(v, os.path.relpath(d), spec, durs)
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
            json.dump(sc, fh)
            path = fh.name
        try:
            pred = (makespan(path, "mps") - makespan(path, "timeslice")) / (ITERS * 32)
        finally:
            os.unlink(path)
        if a.write_scenarios:
            os.makedirs(a.write_scenarios, exist_ok=True)
            with open(os.path.join(a.write_scenarios, v + ".json"), "w") as fh:
                json.dump(sc, fh, indent=1)
                fh.write("\n")
        rows.setdefault(v, (meas, pred, os.path.basename(d.rstrip("/"))))

print("spec,dir,measured_growth_per_node,predicted,F8_minus_F1_measured,F8_minus_F1_predicted")
for v in sorted(rows):
    meas, pred, d = rows[v]
    f1 = re.sub(r"F8", "F1", v)
    diff = ""
    if "F8" in v and f1 in rows:
        diff = "%+.3f,%+.3f" % (meas - rows[f1][0], pred - rows[f1][1])
    else:
        diff = ","
    print("%s,%s,%+.3f,%+.3f,%s" % (v, d, meas, pred, diff))
