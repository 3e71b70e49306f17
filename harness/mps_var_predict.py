#!/usr/bin/env python3
"""hqsim's prediction of FINDINGS §28's rows that a scenario can express (nothing fitted).

    python3 harness/mps_var_predict.py build/hqsim traces/measured/h100/mpspct/var{,/more}

For each aggressor of harness/mps_var_campaign.sh in ROWS and N = 2, 4, writes a scenario
(h100-sxm): the victim VT, a graph of 32 chained 1-block 32-thread kernels of 5 us (`wall_clock`),
300 iterations; N - 1 clients each running the aggressor: a var spec as a graph of 32 kernels (G
blocks x B threads, 168 registers for flavour x2 else 32, S bytes of dynamic shared memory,
`wall_clock` blocks of t us), 3000 iterations; or `decoder`: the decoder b1 graph's Kineto trace
imported by `hqsim import` (its 8 requests with their copies, host gaps and synchronizations as
one iteration, 60 iterations). Runs `hqsim run --mode mps --csv` and prints the victim's GPU span
growth per node per other client against N = 1 (first node start to last node end, median over the
iterations but the first and last 20) next to the measured one (DIR/var.csv: VT's rows against the
mean of its N = 1 rows of the same directory). Specs with a preferred carveout (c), memory traffic (l, d, w), copies (m)
or t0 are not expressible in a scenario and are not in ROWS.
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

NODES = 32
HERE = os.path.dirname(os.path.abspath(__file__))
DECODER = os.path.join(HERE, "..", "traces/measured/h100/launch/kineto/decoder_b1_graph.json.gz")
# campaign name: var spec (mps_var_campaign.sh's AGGR); f8 and par are g132 in a scenario (one
# kernel body: distinct functions and parameter size are not modelled)
ROWS = {
    "g132": "g132.b128.t3000",
    "adef": "g132.b128.s512.t3000",
    "r128": "g128.b128.x2.s528.t3000",
    "r384": "g384.b128.x2.s528.t3000",
    "f8": "g132.b128.t3000",
    "par": "g132.b128.t3000",
    "light": "g1.b128.t1000",
    "decoder": None,
}


def kernel(spec, name):
    f = {p[0]: int(p[1:]) for p in spec.split(".")}
    k = {"op": "kernel", "name": name, "grid": f.get("g", 1), "block": f.get("b", 128),
         "regs_per_thread": 168 if f.get("x", 0) == 2 else 32,
         "block_time_us": f.get("t", 2000) / 1000.0, "wall_clock": True}
    if f.get("s", 0):
        k["dynamic_smem_bytes"] = f["s"]
    return k


def graph_proc(name, spec, iterations):
    nodes = [kernel(spec, name) for _ in range(NODES)]
    return {"name": name, "iterations": iterations, "streams": [{"name": "s"}],
            "ops": [{"op": "graph", "stream": "s", "nodes": nodes}]}


def decoder_proc(hqsim, work, name):
    out = os.path.join(work, "decoder.json")
    if not os.path.exists(out):
        subprocess.run([hqsim, "import", DECODER, "-o", out, "-q"], check=True)
    p = json.load(open(out))["processes"][0]
    return dict(p, name=name, iterations=60)


def victim_span(hqsim, work, procs, tag):
    sc = os.path.join(work, f"{tag}.json")
    out = os.path.join(work, f"{tag}.csv")
    json.dump({"hqsim_scenario": 1, "description": "FINDINGS §28: VT beside N - 1 clients",
               "gpu": "h100-sxm", "processes": procs}, open(sc, "w"))
    subprocess.run([hqsim, "run", sc, "--mode", "mps", "--csv", out, "-q"], check=True)
    it = defaultdict(list)
    for r in csv.DictReader(open(out)):
        if r["process"] == "victim":
            it[int(r["iteration"])].append((float(r["start_us"]), float(r["end_us"])))
    spans = []
    for k in sorted(it)[20:-20]:
        ks = sorted(it[k])
        spans.append(ks[-1][1] - ks[0][0])
    return statistics.median(spans)


def measured(dirs):
    m = {}
    for d in dirs:
        m.update(measured_dir(d))
    return m


def measured_dir(d):
    rows = list(csv.DictReader(open(os.path.join(d, "var.csv"))))
    base = statistics.mean(float(r["span_p50_us"]) for r in rows
                           if r["victim"] == "VT" and r["n"] == "1" and r["mode"] == "mps")
    m = {}
    for r in rows:
        if r["victim"] == "VT" and r["n"] != "1":
            n = int(r["n"])
            m[(r["aggr"], n)] = (float(r["span_p50_us"]) - base) / NODES / (n - 1)
    return m


def main(hqsim, dirs, work):
    meas = measured(dirs)
    vt = graph_proc("victim", "g1.b32.t5000", 300)
    base = victim_span(hqsim, work, [vt], "alone")
    print(f"VT alone: span p50 {base:.2f} us")
    print("aggr,n,hqsim_span_p50_us,hqsim_per_node_per_client_us,measured_us")
    for tag, spec in ROWS.items():
        for n in (2, 4):
            if (tag, n) not in meas:
                continue
            others = [decoder_proc(hqsim, work, f"aggr{i}") if spec is None
                      else graph_proc(f"aggr{i}", spec, 3000) for i in range(n - 1)]
            s = victim_span(hqsim, work, [vt] + others, f"{tag}_n{n}")
            print(f"{tag},{n},{s:.2f},{(s - base) / NODES / (n - 1):+.2f},{meas[(tag, n)]:+.2f}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:], tempfile.mkdtemp(prefix="mpsvar-"))
