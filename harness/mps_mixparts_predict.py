#!/usr/bin/env python3
"""hqsim's prediction of FINDINGS §31's `--mixparts` rows: VT beside `mixw` and its variants
(nothing fitted).

    python3 harness/mps_mixparts_predict.py build/hqsim traces/measured/h100/mpspct/var/mixparts [--ns 2]

For N = 2, 4 writes a scenario (h100-sxm): the victim VT, a graph of 32 chained 1-block 32-thread
kernels of 5 us (`wall_clock`), 300 iterations; N - 1 clients each running `mixw` or a variant as
a graph of 32 kernels whose node types take their grids, blocks and registers from the spec and
their durations (`duration_us`) from the variant's alone row without MPS in DIR/var.csv (L_<name>,
per node type kern_p50; `mixwD` uses `mixw`'s), 3000 iterations. `mixwD`'s GEMV nodes carry
`dram_bytes` (g x b x d x 16: what they stream), every other variant none (their reads stay in the
L2). Shared memory and carveouts are left out (every node 228 KB on the H100, inside VT's window).
Runs `hqsim run --mode mps --csv` and prints VT's GPU span growth per node per other client
against VT alone (first node start to last node end, median over the iterations but the first and
last 20) next to the measured one (VT's rows against the mean of its N = 1 rows; each pass).
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mps_var_predict import median_victim_span  # noqa: E402

NODES = 32


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


def victim_span(hqsim, work, procs, tag):
    sc = os.path.join(work, f"{tag}.json")
    out = os.path.join(work, f"{tag}.csv")
    json.dump({"hqsim_scenario": 1, "description": "FINDINGS §31: VT beside N - 1 clients",
               "gpu": "h100-sxm", "processes": procs}, open(sc, "w"))
    subprocess.run([hqsim, "run", sc, "--mode", "mps", "--csv", out, "-q"], check=True)
    return median_victim_span(out)


MIXW = ("g1.b128.f0.l4/g384.b128.x5.d4/g1.b128.f1/g128.b128.x5.d4/g256.b128.f2.d4/g1.b128.f3.l2/"
        "g2.b128.f4/g1024.b128.f5.d4")
MIXPARTS = {"mixw": ("mixw", False), "mixwD": ("mixw", True), "mixwN": ("mixwN", False),
            "mixwT": ("mixwT", False), "mixwW": ("mixwW", False)}


def func_name(proc, f):
    """The probe's function of a node type's fields (mps_probe.cu var_fn): x = 2-5 one function
    each whatever f, x = 1 the big code's f-th, else kvar<f>; named per client, so hqsim's LRU
    distance is the probe's."""
    x = f.get("x", 0)
    return f"{proc}_x{x}" if x >= 2 else f"{proc}_x{x}_f{f.get('f', 0)}"


def mix_proc(name, durations, dram):
    nodes = []
    for i in range(NODES):
        f = {p[0]: int(p[1:]) for p in MIXW.split("/")[i % 8].split(".")}
        k = {"op": "kernel", "name": func_name(name, f), "grid": f["g"], "block": f["b"],
             "regs_per_thread": 160 if f.get("x") == 5 else 32, "duration_us": durations[i % 8]}
        if dram and f.get("d"):
            k["dram_bytes"] = f["g"] * f["b"] * f["d"] * 16
        else:
            k["wall_clock"] = True
        nodes.append(k)
    return {"name": name, "iterations": 3000, "streams": [{"name": "s"}],
            "ops": [{"op": "graph", "stream": "s", "nodes": nodes}]}


def read_var(d):
    """A campaign directory's var.csv: (its rows, each aggressor's kernel durations alone without
    MPS, VT's measured span p50 alone, VT's growth per node per other client by (aggr, N), one
    value per pass)."""
    rows = list(csv.DictReader(open(os.path.join(d, "var.csv"))))
    dur = {r["victim"][2:]: [float(x.split(":")[0]) for x in r["types_kern_gap_p50"].split("|")]
           for r in rows if r["victim"].startswith("L_") and r["mode"] == "nomps"}
    base_m = statistics.mean(float(r["span_p50_us"]) for r in rows
                             if r["victim"] == "VT" and r["n"] == "1")
    meas = defaultdict(list)
    for r in rows:
        if r["victim"] == "VT" and r["n"] != "1":
            n = int(r["n"])
            meas[(r["aggr"], n)].append((float(r["span_p50_us"]) - base_m) / NODES / (n - 1))
    return rows, dur, base_m, meas


def main(hqsim, d, work, ns=(2, 4)):
    _, dur, base_m, meas = read_var(d)
    vt = graph_proc("victim", "g1.b32.t5000", 300)
    base = victim_span(hqsim, work, [vt], "alone")
    print(f"VT alone: span p50 {base:.2f} us")
    print("aggr,n,hqsim_span_p50_us,hqsim_per_node_per_client_us,measured_us (passes)")
    for tag, (src, dram) in MIXPARTS.items():
        for n in ns:
            if (tag, n) not in meas or src not in dur:
                continue
            others = [mix_proc(f"aggr{i}", dur[src], dram) for i in range(n - 1)]
            s = victim_span(hqsim, work, [vt] + others, f"{tag}_n{n}")
            print(f"{tag},{n},{s:.2f},{(s - base) / NODES / (n - 1):+.2f}," +
                  " ".join(f"{x:+.2f}" for x in meas[(tag, n)]))


if __name__ == "__main__":
    if len(sys.argv) not in (3, 5) or (len(sys.argv) == 5 and sys.argv[3] != "--ns"):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], tempfile.mkdtemp(prefix="mpsmix-"),
         tuple(int(x) for x in sys.argv[4].split(",")) if len(sys.argv) == 5 else (2, 4))
