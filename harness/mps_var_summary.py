#!/usr/bin/env python3
"""Which kernel property costs an MPS client time (FINDINGS §28): harness/mps_var_campaign.sh's
tables.

    python3 harness/mps_var_summary.py traces/measured/h100/mpspct/var{,/more,/chain,/dissect}

Reads DIR/var.csv (mps_probe `var` victims: L_<spec> alone, VT/VT8/VT25/VT100 beside others),
DIR/decoder.csv (the decoder b1 graph as victim, no profiler), DIR/aggr.csv (each aggressor's
kernels/s, requests/s for `decoder`) and DIR/ncu_*.csv.gz (LaunchStats/Occupancy). Prints:
 1. alone: each L_ spec's GPU span per request without MPS and as the only MPS client, the growth
    per node (32 nodes) and the node gap (p50, mean); the decoder's span and growth per kernel
    (151 kernels);
 2. beside N - 1 others: each victim's span growth per node per other client against the mean of
    its N = 1 rows (before and after), N = 2 / 4, and the others' rate per client;
 3. the decoder victim: growth of its span per request per other client against its N = 1 rows;
 4. from ncu: per kernel kind, the shared-memory configuration the driver chose and the limits;
 5. over all DIRs: a lone client's cost per change of shared-memory configuration between
    consecutive kernels that move memory, FITTED on the `mixchain` rows (less the `base` rows'
    cost per node), and the decoder alone PREDICTED from its changes per request (ncu's
    configurations of one request, in order) against its measured growth.
"""
import csv
import gzip
import os
import statistics
import sys
from collections import OrderedDict, defaultdict

NODES, DEC_KERNELS = 32, 151


def read(path):
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []


def lone(rows, dec):
    print("## 1. alone: without MPS -> the only MPS client (span per request, us)")
    print("spec,nomps_span,mps_span,growth_per_node,gap_p50_nomps,gap_p50_mps,gap_mean_nomps,"
          "gap_mean_mps")
    by = defaultdict(dict)
    for r in rows:
        if r["victim"].startswith("L_"):
            by[r["victim"][2:]][r["mode"]] = r
    for v, d in by.items():
        if "nomps" not in d or "mps" not in d:
            continue
        a, b = d["nomps"], d["mps"]
        sa, sb = float(a["span_p50_us"]), float(b["span_p50_us"])
        print(f"{v},{sa:.2f},{sb:.2f},{(sb - sa) / NODES:+.3f},{a['gap_p50_us']},"
              f"{b['gap_p50_us']},{a['gap_mean_us']},{b['gap_mean_us']}")
    nomps = [float(r["evspan_p50_us"]) for r in dec if r["mode"] == "nomps"]
    mps1 = [float(r["evspan_p50_us"]) for r in dec if r["mode"] == "mps" and r["n"] == "1"]
    if nomps and mps1:
        a, b = statistics.mean(nomps), statistics.mean(mps1)
        rn = statistics.mean(float(r["req_per_s"]) for r in dec if r["mode"] == "nomps")
        rm = statistics.mean(float(r["req_per_s"]) for r in dec
                             if r["mode"] == "mps" and r["n"] == "1")
        print(f"decoder,{a:.2f},{b:.2f},{(b - a) / DEC_KERNELS:+.3f} per kernel "
              f"({(b / a - 1) * 100:+.1f}% span; requests/s {rn:.0f} -> {rm:.0f}, "
              f"{(rm / rn - 1) * 100:+.1f}%)")
    return by


def beside(rows, aggr):
    rate = defaultdict(list)
    for a in aggr:
        rate[(a["n"], a["aggr"], a["victim"])].append(float(a["rate_per_s"]))
    base = defaultdict(list)
    for r in rows:
        if r["n"] == "1" and r["mode"] == "mps" and r["victim"].startswith("VT"):
            base[r["victim"]].append(float(r["span_p50_us"]))
    if not base:
        return
    base = {k: statistics.mean(v) for k, v in base.items()}
    victims = sorted(base, key=lambda v: (len(v), v))
    print("\n## 2. beside N - 1 others: span growth per node per other client, us, N = 2 / 4")
    print("baselines (N = 1, mean of before/after): " +
          ", ".join(f"{v} {base[v]:.2f}" for v in victims))
    g = OrderedDict()
    for r in rows:
        if r["victim"] in base and r["n"] != "1":
            n = int(r["n"])
            g.setdefault(r["aggr"], {})[(r["victim"], n)] = (
                (float(r["span_p50_us"]) - base[r["victim"]]) / NODES / (n - 1),
                r["gap_p50_us"], r["gap_mean_us"])
            g[r["aggr"]].setdefault(("rate", n), statistics.mean(
                rate.get((r["n"], r["aggr"], r["victim"]), [0])))
    print("aggr,rate_per_client_n2," + ",".join(f"{v}_n2,{v}_n4" for v in victims) +
          ",VT_gap_p50/mean_n2,VT_gap_p50/mean_n4")
    for a, d in g.items():
        cells = []
        for v in victims:
            for n in (2, 4):
                cells.append(f"{d[(v, n)][0]:+.2f}" if (v, n) in d else "")
        gaps = [f"{d[('VT', n)][1]}/{d[('VT', n)][2]}" if ("VT", n) in d else "" for n in (2, 4)]
        print(f"{a},{d.get(('rate', 2), 0):.0f}," + ",".join(cells) + "," + ",".join(gaps))


def decoder_victim(dec):
    b = [float(r["evspan_p50_us"]) for r in dec if r["mode"] == "mps" and r["n"] == "1"]
    rest = [r for r in dec if r["mode"] == "mps" and r["n"] != "1"]
    if not b or not rest:
        return
    b = statistics.mean(b)
    print(f"\n## 3. decoder victim (no profiler): span growth from N = 1 ({b:.1f} us)")
    print("aggr,n,span_p50_us,growth_us,per_kernel_per_other_client_us,req_per_s")
    for r in rest:
        n, s = int(r["n"]), float(r["evspan_p50_us"])
        print(f"{r['aggr']},{n},{s:.1f},{s - b:+.1f},{(s - b) / DEC_KERNELS / (n - 1):+.3f},"
              f"{r['req_per_s']}")


NCU_KEYS = ["Grid Size", "Block Size", "Registers Per Thread", "Static Shared Memory Per Block",
            "Dynamic Shared Memory Per Block", "Shared Memory Configuration Size",
            "Block Limit Registers", "Block Limit Shared Mem", "Block Limit Warps",
            "Waves Per SM"]


def ncu(d):
    for f in sorted(os.listdir(d)):
        if not (f.startswith("ncu_") and f.endswith(".csv.gz")):
            continue
        lines = [x for x in gzip.open(os.path.join(d, f), "rt") if not x.startswith("==")]
        k = OrderedDict()
        for r in csv.DictReader(lines):
            k.setdefault(r["ID"], {"name": r["Kernel Name"][:48]})[r["Metric Name"]] = (
                r["Metric Value"].replace(",", ""))
        count = OrderedDict()
        for v in k.values():
            key = (v["name"],) + tuple(v.get(m, "") for m in NCU_KEYS)
            count[key] = count.get(key, 0) + 1
        print(f"\n## 4. {f}: {len(k)} kernels; per kind (bytes; blocks per SM limits)")
        print("count,kernel,grid,block,regs,static_smem,dynamic_smem,smem_config,"
              "limit_regs,limit_smem,limit_warps,waves")
        for key, c in count.items():
            print(f'{c},"{key[0]}",' + ",".join(key[1:]))


MIX_CHANGES = 7  # of 8 transitions in `mixchain`: 32 16 32 16 100 32 32 100 KB (ncu)


def changes_fit(dirs):
    lone_rows = defaultdict(lambda: defaultdict(list))
    dec = defaultdict(list)
    seq = None
    for d in dirs:
        for r in read(os.path.join(d, "var.csv")):
            if r["victim"].startswith("L_"):
                lone_rows[r["victim"][2:]][r["mode"]].append(float(r["span_p50_us"]))
        for r in read(os.path.join(d, "decoder.csv")):
            if r["n"] == "1":
                dec[r["mode"]].append(float(r["evspan_p50_us"]))
        f = os.path.join(d, "ncu_decoder.csv.gz")
        if os.path.exists(f):
            lines = [x for x in gzip.open(f, "rt") if not x.startswith("==")]
            k = {}
            for r in csv.DictReader(lines):
                if r["Metric Name"] == "Shared Memory Configuration Size":
                    k[int(r["ID"])] = r["Metric Value"]
            seq = [k[i] for i in sorted(k)]

    def per_node(name):
        m = lone_rows.get(name, {})
        if not m.get("nomps") or not m.get("mps"):
            return None
        return (statistics.mean(m["mps"]) - statistics.mean(m["nomps"])) / NODES
    mix, base = per_node("mixchain"), per_node("base")
    if mix is None or base is None or seq is None or not dec["nomps"] or not dec["mps"]:
        return
    c = (mix - base) * 8 / MIX_CHANGES
    ch = sum(1 for a, b in zip(seq, seq[1:]) if a != b)
    pred = DEC_KERNELS * base + ch * c
    meas = statistics.mean(dec["mps"]) - statistics.mean(dec["nomps"])
    print("\n## 5. lone client: configuration changes between kernels that move memory")
    print(f"base {base:+.3f} us per node, mixchain {mix:+.3f} ({len(lone_rows['mixchain']['mps'])}"
          f" runs): {c:.3f} us per change (FITTED)")
    print(f"decoder: {ch} changes in {len(seq)} kernels -> {DEC_KERNELS} x {base:.3f} + {ch} x "
          f"{c:.3f} = {pred:.1f} us PREDICTED, measured {meas:.1f} us "
          f"({len(dec['mps'])} MPS / {len(dec['nomps'])} no-MPS rows)")


def main(d):
    rows = read(os.path.join(d, "var.csv"))
    dec = read(os.path.join(d, "decoder.csv"))
    lone(rows, dec)
    beside(rows, read(os.path.join(d, "aggr.csv")))
    decoder_victim(dec)
    ncu(d)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for d in sys.argv[1:]:
        print(f"# {d}")
        main(d)
    changes_fit(sys.argv[1:])
