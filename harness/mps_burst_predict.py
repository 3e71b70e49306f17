#!/usr/bin/env python3
"""hqsim's prediction of the `--burst` rows (FINDINGS §31 addendum A2): VT beside N - 1 clients
streaming fresh DRAM in bursts (and `mixwD` again).

    python3 harness/mps_burst_predict.py build/hqsim traces/measured/h100/mpspct/var/burst \
        [--ns 2,4] [--work DIR] [TAG...]

Each aggressor's spec comes from DIR/info.txt (`spec NAME=...`); its node types take their grids,
blocks and registers from the spec, their durations from its alone row without MPS in DIR/var.csv
(L_NAME, per node type kern_p50), and a streaming node (`d` loads of a --fresh aggressor) carries
`dram_bytes` = g x b x d x 16; every other node is `wall_clock`. VT as in
mps_mixparts_predict.py. Prints, per aggressor and N, VT's GPU span growth per node per other
client, hqsim against measured (each pass), and the aggressor's kernels per second per client
(hqsim against measured, pass 1). Shared memory is left out (every node inside VT's window).
"""
import csv
import os
import statistics
import sys
import tempfile
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mps_mixparts_predict import NODES, func_name, graph_proc, read_var, victim_span  # noqa: E402


def node(name, typ, dur, fresh):
    f = {p[0]: int(p[1:]) for p in typ.split(".")}
    k = {"op": "kernel", "name": func_name(name, f), "grid": f["g"], "block": f["b"],
         "regs_per_thread": 160 if f.get("x") == 5 else 32, "duration_us": dur}
    if fresh and f.get("d"):
        k["dram_bytes"] = f["g"] * f["b"] * f["d"] * 16
    else:
        k["wall_clock"] = True
    return k


def proc(name, spec, durations, fresh):
    types = spec.split("/")
    if len(durations) != len(types):
        sys.exit(f"{name}: {len(types)} node types in its spec, {len(durations)} alone durations")
    nodes = [node(name, types[i % len(types)], durations[i % len(types)],
                  fresh) for i in range(NODES)]
    return {"name": name, "iterations": 3000, "streams": [{"name": "s"}],
            "ops": [{"op": "graph", "stream": "s", "nodes": nodes}]}


def main(hqsim, d, tags, ns, work):
    specs, fresh = {}, set()
    for line in open(os.path.join(d, "info.txt")):
        if line.startswith("spec "):
            k, v = line[5:].strip().split("=", 1)
            specs[k] = v
        elif line.startswith("fresh "):
            fresh = set(line.split(":", 1)[1].split())
    _, dur, base_m, meas = read_var(d)
    rate = defaultdict(list)
    for r in csv.DictReader(open(os.path.join(d, "aggr.csv"))):
        if r["rep"] == "1":
            rate[(r["aggr"], int(r["n"]))].append(float(r["rate_per_s"]))
    vt = graph_proc("victim", "g1.b32.t5000", 300)
    base = victim_span(hqsim, work, [vt], "alone")
    print(f"VT alone: span p50 {base:.2f} us (measured {base_m:.2f})")
    print("aggr,n,hqsim_per_node_per_client_us,measured_us (passes),"
          "hqsim_aggr_kernels_per_s,measured_aggr_kernels_per_s")
    for tag in tags or [t for t in specs if t in dur and t != "VT"]:
        for n in ns:
            if (tag, n) not in meas:
                continue
            others = [proc(f"aggr{i}", specs[tag], dur[tag], tag in fresh) for i in range(n - 1)]
            csvp = os.path.join(work, f"{tag}_n{n}.csv")
            s = victim_span(hqsim, work, [vt] + others, f"{tag}_n{n}")
            ks = aggr_rate(csvp)
            mr = statistics.mean(rate[(tag, n)]) if rate[(tag, n)] else float("nan")
            print(f"{tag},{n},{(s - base) / NODES / (n - 1):+.2f}," +
                  " ".join(f"{x:+.2f}" for x in meas[(tag, n)]) + f",{ks:.0f},{mr:.0f}")


def aggr_rate(path):
    """Kernels per second of one aggressor client (aggr0) in hqsim's CSV while the victim runs."""
    ends, vic = [], []
    for r in csv.DictReader(open(path)):
        if r["process"] == "aggr0" and r["kind"] == "kernel":
            ends.append(float(r["end_us"]))
        elif r["process"] == "victim":
            vic.append(float(r["end_us"]))
    lo, hi = min(vic), max(vic)
    n = sum(lo <= e <= hi for e in ends)
    return n / (hi - lo) * 1e6 if hi > lo else float("nan")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    args, ns, work = sys.argv[3:], (2, 4), None
    while args[:1] in (["--ns"], ["--work"]):
        if args[0] == "--ns":
            ns = tuple(int(x) for x in args[1].split(","))
        else:
            work = args[1]  # keep the scenarios (TAG_nN.json, alone.json) there
            os.makedirs(work, exist_ok=True)
        args = args[2:]
    main(sys.argv[1], sys.argv[2], args, ns, work or tempfile.mkdtemp(prefix="mpsburst-"))
