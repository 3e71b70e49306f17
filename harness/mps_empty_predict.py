#!/usr/bin/env python3
"""hqsim's prediction of FINDINGS §27's shared-memory and wide-grid rows (nothing fitted).

    python3 harness/mps_empty_predict.py build/hqsim [WORKDIR]

For each aggressor config of harness/mps_empty_campaign.sh listed in ROWS and N = 1, 2, 4, writes
a scenario (h100-sxm): the victim, a graph of 32 chained 1-block 32-thread kernels of 5 us
(`wall_clock`: a spin on %globaltimer), 300 iterations, and N - 1 clients each running a graph of
32 kernels of G blocks x B threads, S KB of dynamic shared memory, blocks of T us (`wall_clock`),
3000 iterations; runs `hqsim run --mode mps --csv` and prints the victim's GPU span per request
(first node start to last node end, median over the iterations but the first and last 20), its
growth per node per other client against N = 1, and its node gap (p50, mean), next to the
measured growth (traces/measured/h100/mpspct/empty, the summary's span_per_node_per_client_us).
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
# name in the campaign: (G, B, T us, S KB), measured growth per node per other client N = 2, 4
ROWS = {
    "g256_t5_b128_s16_l0": (256, 128, 5.0, 16, "-0.01", "-0.00"),
    "g256_t5_b128_s48_l0": (256, 128, 5.0, 48, "-0.02", "+0.47"),
    "g256_t5_b128_s100_l0": (256, 128, 5.0, 100, "-0.01", "+2.92"),
    "g128_t5_b256_s100_l0": (128, 256, 5.0, 100, "+0.01", "+0.49"),
    "g1024_t5_b32": (1024, 32, 5.0, 0, "+0.01", "+0.27"),
    "g1024_t80_b32": (1024, 32, 80.0, 0, "-0.00", "+0.32"),
}


def graph(name, grid, block, us, smem_kb):
    k = {"op": "kernel", "name": name, "grid": grid, "block": block, "regs_per_thread": 16,
         "block_time_us": us, "wall_clock": True}
    if smem_kb:
        k["dynamic_smem_bytes"] = smem_kb * 1024
    return {"op": "graph", "stream": "s", "nodes": [dict(k) for _ in range(NODES)]}


def scenario(n, cfg):
    procs = [{"name": "victim", "iterations": 300, "streams": [{"name": "s"}],
              "ops": [graph("timer", 1, 32, 5.0, 0)]}]
    for i in range(n - 1):
        g, b, t, s = cfg[:4]
        procs.append({"name": f"aggr{i}", "iterations": 3000, "streams": [{"name": "s"}],
                      "ops": [graph("spin", g, b, t, s)]})
    return {"hqsim_scenario": 1, "description": "FINDINGS §27: timer victim beside N - 1 clients",
            "gpu": "h100-sxm", "processes": procs}


def victim(hqsim, work, n, cfg, tag):
    sc = os.path.join(work, f"{tag}_n{n}.json")
    out = os.path.join(work, f"{tag}_n{n}.csv")
    json.dump(scenario(n, cfg), open(sc, "w"))
    subprocess.run([hqsim, "run", sc, "--mode", "mps", "--csv", out, "-q"], check=True)
    it = defaultdict(list)
    for r in csv.DictReader(open(out)):
        if r["process"] == "victim":
            it[int(r["iteration"])].append((float(r["start_us"]), float(r["end_us"])))
    spans, gaps = [], []
    for k in sorted(it)[20:-20]:
        ks = sorted(it[k])
        spans.append(ks[-1][1] - ks[0][0])
        gaps += [b[0] - a[1] for a, b in zip(ks, ks[1:])]
    return statistics.median(spans), statistics.median(gaps), statistics.mean(gaps)


def main(hqsim, work):
    os.makedirs(work, exist_ok=True)
    base, _, _ = victim(hqsim, work, 1, (1, 32, 5.0, 0), "alone")
    print(f"victim alone: span p50 {base:.2f} us")
    print("aggr,n,span_p50_us,per_node_per_client_us,measured_us,gap_p50_us,gap_mean_us")
    for tag, cfg in ROWS.items():
        for n, meas in ((2, cfg[4]), (4, cfg[5])):
            s, gp, gm = victim(hqsim, work, n, cfg, tag)
            print(f"{tag},{n},{s:.2f},{(s - base) / NODES / (n - 1):+.2f},{meas},{gp:.3f},{gm:.3f}")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else tempfile.mkdtemp(prefix="mpsempty-"))
