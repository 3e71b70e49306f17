#!/usr/bin/env python3
"""Three candidate mechanisms for N MPS graph clients' slow-down, tested on the committed data (issue 10).

  mps_graph_mechanisms.py [--configs decoder_b1,...] [--frontend-us S]
  mps_graph_mechanisms.py --selfn DIR [DIR...]   # harness/mps_var_campaign.sh --selfn's var.csv
  mps_graph_mechanisms.py --funcn DIR            # harness/mps_var_campaign.sh --funcn's var.csv

Data: harness/mps_graph_campaign.sh's call (traces/measured/h100/openloop/mpsgraph/: summary.csv of
unprofiled requests, kineto/mps_n<N>/<config>_n<N>.json.gz, 16 Kineto requests of rank 0 while the
N - 1 others serve the same graph) and the configurations' Nsight Compute files (openloop/ncu/,
mpspct/ncu/sm/ for the resnet50 graphs).  Kineto inside MPS books part of a launch as duration
(FINDINGS §26), so a kernel's growth is d + g: its duration plus the gap before it.  Nothing is fitted.

(a) DRAM bandwidth sharing.  Per kernel its ncu DRAM throughput r (share of the peak, alone); per
    client U1 = sum over a request's kernels of r x duration (N = 1, Kineto) / the request period at
    N (summary.csv); the others' mean load U = (N - 1) U1, their peak Upk = (N - 1) x the
    configuration's largest r.  Any fluid sharing of the bandwidth slows a kernel only where r + U
    exceeds 1; the table gives the largest r + U and r + Upk of the request's kernels, and the
    loaded-latency term hqsim already charges per launch (dram_launch_latency_us x (L(U) - 1),
    L(P) = (1 + P^n)^(1/n), the H100 model's n), against the measured growth per kernel.
(b) One front end for all clients, FCFS, S us per kernel.  A client's graph nodes are a chain, so
    only the others' launches queue ahead of its own: at the others' kernel rate lo (kernels per
    request x (N - 1) / period) an M/D/1 wait rho S / (2 (1 - rho)), rho = lo S.  S: the largest
    that FINDINGS §27's row allows (1-block empty kernels at 949 k/s in one other client cost the
    timer victim +0.10 / +0.13 us per node at N = 2), solved here; --frontend-us overrides.
(c) Outside the span: summary.csv's outside time (request wall - GPU span) and its parts over N,
    and in Kineto the last kernel's end -> the output copy's start, the copy's duration and its
    end -> cudaMemcpyAsync's return (medians of rank 0's requests).
--selfn: per victim spec of DIR/var.csv (a 32-node chain beside N - 1 copies of itself, MPS), the
    growth of its GPU span p50 per node per other client against the mean of its N = 1 rows.
--funcn: the same per row (victim, its neighbours' spec, N; MPS and time-sliced rows each against
    their own N = 1 rows), and the growth of the median kernel duration and of the median gap before
    a kernel (kern_p50_us, gap_p50_us) per other client.
"""
import argparse
import collections
import csv
import gzip
import json
import os
import statistics as st

HERE = os.path.dirname(os.path.abspath(__file__))
H = os.path.join(os.path.dirname(HERE), "traces/measured/h100")
RAW = os.path.join(H, "openloop/mpsgraph")
NCU = {"cnn_b1": "mpspct/ncu/sm/cnn_b1_graph.csv.gz", "cnn_b8": "mpspct/ncu/sm/cnn_b8_graph.csv.gz"}
ap = argparse.ArgumentParser()
ap.add_argument("--configs", default="decoder_b1,decoder_b16,encoder_b1,cnn_b8,encoder_b8,cnn_b1")
ap.add_argument("--frontend-us", type=float, default=None)
ap.add_argument("--selfn", nargs="+", default=None, metavar="DIR")
ap.add_argument("--funcn", default=None, metavar="DIR")
a = ap.parse_args()
NS = (1, 2, 4, 8)
MODEL = json.load(open(os.path.join(os.path.dirname(HERE), "models/h100-sxm.json")))
LAT_US, EXP = MODEL["dram_launch_latency_us"], MODEL["dram_curve_exponent"]
# FINDINGS §27, timer victim beside one client of 1-block empty kernels (949 k kernels/s): growth
# per node +0.13 and +0.10 us (the row run twice); the larger bounds S from above.
EMPTY_RATE_PER_US, EMPTY_COST_US = 0.949, 0.13


def mdl_wait(rate, s):
    rho = rate * s
    return float("inf") if rho >= 1 else rho * s / (2 * (1 - rho))


def frontend_bound():
    lo, hi = 0.0, 1.0 / EMPTY_RATE_PER_US
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mdl_wait(EMPTY_RATE_PER_US, mid) < EMPTY_COST_US else (lo, mid)
    return lo


def key(name, blocks):
    return name[:40], blocks


def kineto(cfg, n):
    """Rank 0's trace: (per-kernel-key lists of d + g growth material, events)."""
    ev = json.load(gzip.open(os.path.join(RAW, "kineto", f"mps_n{n}", f"{cfg}_n{n}.json.gz")))["traceEvents"]
    ks = sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    return ev, ks


def per_kernel(ks):
    """Mean d + g (duration plus the gap before it within the request) per kernel key, and launches."""
    reqs = 16
    per = len(ks) // reqs
    acc = collections.defaultdict(list)
    for i in range(reqs):
        r = ks[i * per:(i + 1) * per]
        for j, e in enumerate(r):
            g = e["args"]["grid"]
            gap = e["ts"] - r[j - 1]["ts"] - r[j - 1]["dur"] if j else 0.0
            acc[key(e["name"], g[0] * g[1] * g[2])].append((e["dur"], gap))
    return acc, per


def ncu_dram(cfg):
    """Mean ncu DRAM throughput (share of peak) per kernel key."""
    p = os.path.join(H, NCU.get(cfg, f"openloop/ncu/{cfg}_graph.csv.gz"))
    if not os.path.exists(p):
        return None
    rows = collections.defaultdict(dict)
    with gzip.open(p, "rt") as f:
        for r in csv.DictReader(f):
            rows[r["ID"]].update(name=r["Kernel Name"], grid=r["Grid Size"])
            rows[r["ID"]][r["Metric Name"]] = float(r["Metric Value"].replace(",", "") or 0)
    out = collections.defaultdict(list)
    for r in rows.values():
        g = [int(x) for x in r["grid"].strip("()").split(",")]
        out[key(r["name"], g[0] * g[1] * g[2])].append(r.get("DRAM Throughput", 0.0) / 100)
    return {k: st.mean(v) for k, v in out.items()}


def summary():
    s = {}
    for r in csv.DictReader(open(os.path.join(RAW, "summary.csv"))):
        s[(r["config"].replace("_graph", ""), r["group"])] = r
    return s


def main():
    S = a.frontend_us if a.frontend_us is not None else frontend_bound()
    summ = summary()
    print("config,n,period_us,growth_per_kernel_meas_us,"
          "a_U_others,a_max_r_plus_U,a_max_r_plus_Upeak,a_latency_term_us,b_S_us,b_fcfs_wait_us,"
          "c_outside_us,c_g_d2h_us,c_sync_after_copy_us,c_kin_last_to_d2h_us,c_kin_d2h_us,c_kin_d2h_to_return_us")
    for cfg in a.configs.split(","):
        dram = ncu_dram(cfg)
        ev1, ks1 = kineto(cfg, 1)
        base, per = per_kernel(ks1)
        for n in NS:
            r = summ[(cfg, f"mps_n{n}")]
            period = 1e6 / float(r["req_per_s"])
            ev, ks = kineto(cfg, n)
            cur, _ = per_kernel(ks)
            grow = sum(sum(d + g for d, g in cur[k]) / len(cur[k]) * len(cur[k]) / 16
                       - sum(d + g for d, g in base[k]) / len(base[k]) * len(base[k]) / 16
                       for k in base if k in cur) / per
            if dram:
                busy = sum(dram.get(k, 0.0) * d for k, v in base.items() for d, _ in v) / 16
                u = (n - 1) * busy / period
                rmax = max(dram.values())
                r_u = max(dram.get(k, 0.0) for k in base) + u
                r_pk = rmax + (n - 1) * rmax
                lat = LAT_US * ((1 + u ** EXP) ** (1 / EXP) - 1)
                da = f"{u:.3f},{r_u:.2f},{r_pk:.2f},{lat:.3f}"
            else:
                da = ",,,"
            lo = (n - 1) * per / period
            fe = mdl_wait(lo, S)
            c = outside(ev, ks)
            print(f"{cfg},{n},{period:.1f},{grow:+.3f},{da},{S:.3f},{fe:.3f},{r['outside']},{r['g_d2h']},"
                  f"{float(r['h_sync']) - float(r['h_d2h']):.1f},{c}")


def outside(ev, ks):
    d2h = sorted((e for e in ev if e.get("cat") == "gpu_memcpy" and "DtoH" in e["name"]), key=lambda e: e["ts"])
    mc = [e for e in ev if e.get("cat") == "cuda_runtime" and e["name"] == "cudaMemcpyAsync"]
    ends = sorted(k["ts"] + k["dur"] for k in ks)
    a_, b_, c_ = [], [], []
    for d in d2h:
        prev = [t for t in ends if t <= d["ts"]]
        if not prev:
            continue
        a_.append(d["ts"] - prev[-1])
        b_.append(d["dur"])
        m = [x for x in mc if x["ts"] <= d["ts"] <= x["ts"] + x["dur"]]
        if m:
            c_.append(m[-1]["ts"] + m[-1]["dur"] - d["ts"] - d["dur"])
    return ",".join(f"{st.median(v):.1f}" if v else "" for v in (a_, b_, c_))


def selfn(dirs):
    print("dir,victim,n,span_p50_us,n1_span_us,growth_per_node_per_other_us")
    for d in dirs:
        rows = list(csv.DictReader(open(os.path.join(d, "var.csv"))))
        for v in dict.fromkeys(r["victim"] for r in rows):
            mine = [r for r in rows if r["victim"] == v]
            base = st.mean(float(r["span_p50_us"]) for r in mine if r["n"] == "1")
            for r in mine:
                n = int(r["n"])
                if n > 1:
                    g = (float(r["span_p50_us"]) - base) / 32 / (n - 1)
                    print(f"{os.path.relpath(d, H)},{v},{n},{r['span_p50_us']},{base:.2f},{g:+.2f}")


def funcn(d):
    rows = list(csv.DictReader(open(os.path.join(d, "var.csv"))))
    print("mode,victim,aggr,n,span_p50_us,n1_span_us,growth_per_node_per_other_us,"
          "kern_growth_per_other_us,gap_growth_per_other_us")
    for r in rows:
        n = int(r["n"])
        if n == 1:
            continue
        alone = [x for x in rows if x["n"] == "1" and x["mode"] == r["mode"] and x["victim"] == r["victim"]]

        def base(col):
            return st.mean(float(x[col]) for x in alone)
        g = (float(r["span_p50_us"]) - base("span_p50_us")) / 32 / (n - 1)
        k = (float(r["kern_p50_us"]) - base("kern_p50_us")) / (n - 1)
        gp = (float(r["gap_p50_us"]) - base("gap_p50_us")) / (n - 1)
        print(f"{r['mode']},{r['victim']},{r['aggr']},{n},{r['span_p50_us']},{base('span_p50_us'):.2f},"
              f"{g:+.2f},{k:+.2f},{gp:+.2f}")


if __name__ == "__main__":
    if a.funcn:
        funcn(a.funcn)
    else:
        selfn(a.selfn) if a.selfn else main()
