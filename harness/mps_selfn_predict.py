#!/usr/bin/env python3
"""hqsim's prediction of FINDINGS §40's `--selfn` and §43's `--funcn` rows: a 32-node chain beside
N - 1 clients (copies of itself, or of another chain).

    python3 harness/mps_selfn_predict.py HQSIM DIR [--ns 2,4,8]

DIR/info.txt gives each chain (`spec NAME=...`, node types cycled over 32 chained graph nodes);
each client is a graph of 32 nodes: node type i keeps its grid, block, registers (x2: 168) and
dynamic shared memory, lasts its kern p50 in the chain's first MPS N = 1 row (DIR/var.csv,
`types_kern_gap_p50`; work kernels, or SELFN_KIND=wall_clock / self_timed), and is named by its
function as the probe (mps_probe.cu var_fn) builds it: x >= 2 one function whatever f, else
x<x>_f<f> (no f: f0), so gridchain is 1 function, gridchainF 8, mixchain 7.  No DRAM bytes (the
chains' data stay in the L2).  Rows: --selfn's chains beside copies at --ns; with --funcn's rows
(DIR/var.csv has an `aggr` other than the victim's name) every MPS graph row of var.csv with its
own neighbours (`idle` neighbours and stream / gated launches are not predicted).  Prints the
victim's (client 0) GPU span growth per node per other client against hqsim's N = 1 (median over
iterations but the first and last 20), next to the measured one (DIR/var.csv, against the mean of
the victim's MPS N = 1 rows).
SELFN_OFFSET_US=X starts neighbour i i x X us after the victim (default 0: all at once).
"""
import csv
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mps_mixparts_predict import NODES, victim_span  # noqa: E402

ITERS = 200
# the nodes as work kernels (default; real loads and stores), or wall_clock / self_timed
KIND = os.environ.get("SELFN_KIND", "work")
# neighbour i starts i x SELFN_OFFSET_US later (default 0: all at once, so identical chains run in
# lockstep, which the H100's clients, started by a file barrier, do not)
OFFSET_US = float(os.environ.get("SELFN_OFFSET_US", "0"))


def func(f):
    x = f.get("x", 0)
    return f"x{x}" if x >= 2 else f"x{x}_f{f.get('f', 0)}"


def proc(name, spec, durs, iters, start_us=0.0):
    types = spec.split("/")
    nodes = []
    for i in range(NODES):
        f = {p[0]: int(p[1:]) for p in types[i % len(types)].split(".")}
        k = {"op": "kernel", "name": func(f), "grid": f["g"], "block": f["b"],
             "regs_per_thread": 168 if f.get("x") == 2 else 32,
             "duration_us": durs[i % len(durs)]}
        if KIND != "work":
            k[KIND] = True
        if f.get("s"):
            k["dynamic_smem_bytes"] = f["s"]
        nodes.append(k)
    p = {"name": name, "iterations": iters, "streams": [{"name": "s"}],
         "ops": [{"op": "graph", "stream": "s", "nodes": nodes}]}
    if start_us:
        p["start_us"] = start_us
    return p


def main(hqsim, d, ns):
    specs = {}
    for line in open(os.path.join(d, "info.txt")):
        if line.startswith("spec "):
            k, v = line[5:].strip().split("=", 1)
            specs.setdefault(k, v)
    rows = [r for r in csv.DictReader(open(os.path.join(d, "var.csv"))) if r["mode"] == "mps"]
    durs, n1 = {}, {}
    for r in rows:
        v = r["victim"]
        if r["n"] == "1":
            if v not in durs:
                durs[v] = [float(x.split(":")[0]) for x in r["types_kern_gap_p50"].split("|")]
            n1.setdefault(v, []).append(float(r["span_p50_us"]))
    cases = [(r["victim"], r["aggr"], int(r["n"]), float(r["span_p50_us"])) for r in rows
             if r["n"] != "1" and r["victim"] in specs and r["aggr"] in durs]
    if not any(a != v for v, a, _, _ in cases):  # --selfn: copies of itself at --ns
        cases = [c for c in cases if c[2] in ns]
    work = tempfile.mkdtemp(prefix="selfn-")
    print("chain,aggr,n,hqsim_n1_span_us,hqsim_span_us,hqsim_growth,measured_growth")
    base = {}
    for v, a, n, span in cases:
        if v not in base:
            base[v] = victim_span(hqsim, work, [proc("victim", specs[v], durs[v], ITERS)], f"{v}_1")
        procs = [proc("victim", specs[v], durs[v], ITERS)] + \
            [proc(f"copy{i}", specs[a], durs[a], ITERS + 40, i * OFFSET_US) for i in range(1, n)]
        s = victim_span(hqsim, work, procs, f"{v}_{a}_{n}")
        m = (span - statistics.mean(n1[v])) / NODES / (n - 1)
        print(f"{v},{a},{n},{base[v]:.1f},{s:.1f},{(s - base[v]) / NODES / (n - 1):+.2f},{m:+.2f}")


if __name__ == "__main__":
    ns = (2, 4, 8)
    if len(sys.argv) == 5 and sys.argv[3] == "--ns":
        ns = tuple(int(x) for x in sys.argv[4].split(","))
    elif len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], ns)
