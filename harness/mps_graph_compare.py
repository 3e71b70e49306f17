#!/usr/bin/env python3
"""hqsim against harness/mps_graph_campaign.sh: where a graph request's time goes (issue 10).

  mps_graph_compare.py HQSIM [--configs a,b] [--groups nomps_n1,mps_n2,...] [--jobs J]
  mps_graph_compare.py HQSIM --kernels CONFIG --n N      # per kernel, from the Kineto traces

Table mode: per configuration and group, hqsim run as harness/openloop_predict.py runs the
closed loop (the Kineto profile of one process alone, its ncu file where one exists, the
host scale of openloop/fits.json, the request spread, seed 1; --mode timeslice for nomps_n1,
mps for mps_nN), --csv read back for its first process: requests/s per process (mean over
processes), the graph's GPU span (end of the request's H2D copy to the end of its last
graph op: the campaign's e0 -> e1) and the time outside it (period - span), each against
openloop/mpsgraph/summary.csv.
Kernel mode: growth over N = 1 of each kernel's duration (d) and of the gap before it (g),
mean per launch, in the campaign's Kineto trace of rank 0 (openloop/mpsgraph/kineto/) and in
hqsim (MPS, N processes), and per request the miss (measured - hqsim) x launches, largest
first.  Kineto inside MPS moves part of a kernel's launch into its duration (FINDINGS
§26), so compare d + g.
"""
import argparse
import collections
import csv
import gzip
import json
import os
import shutil
import statistics as st
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H = os.path.join(ROOT, "traces/measured/h100")
ap = argparse.ArgumentParser()
ap.add_argument("hqsim")
ap.add_argument("--summary", default=os.path.join(H, "openloop/mpsgraph/summary.csv"))
ap.add_argument("--configs", default="decoder_b1_graph,decoder_b16_graph,encoder_b1_graph,"
                "encoder_b8_graph,cnn_b1_graph,cnn_b8_graph")
ap.add_argument("--groups", default="nomps_n1,mps_n1,mps_n2,mps_n4,mps_n8")
ap.add_argument("--jobs", type=int, default=1)
ap.add_argument("--kernels", default=None, metavar="CONFIG")
ap.add_argument("--n", type=int, default=4)
a = ap.parse_args()
FITS = json.load(open(os.path.join(H, "openloop/fits.json")))
TMP = tempfile.mkdtemp(prefix="mpsgraph_cmp.")


def sim(cfg, group):
    """Runs hqsim for @cfg in @group; returns its --csv path and mean requests/s per process."""
    n = int(group.split("_n")[1])
    mode = "timeslice" if group.startswith("nomps") else "mps"
    ncu = os.path.join(H, "openloop/ncu", cfg + ".csv.gz")
    out = os.path.join(TMP, f"{cfg}_{group}")
    cmd = [a.hqsim, "run", os.path.join(H, "launch/kineto", cfg + ".json.gz"),
           *([ncu] if os.path.exists(ncu) else []), "--loop-request", "--host-scale", str(FITS[cfg]),
           "--request-spread", os.path.join(H, "openloop/spread", cfg + ".json"), "--processes", str(n),
           "--mode", mode, "--iterations", str(40 if n >= 8 else 60 if n >= 4 else 100), "--seed", "1",
           "-q", "--csv", out + ".csv", "--json", out + ".json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    procs = json.load(open(out + ".json"))["run"]["processes"]
    return out + ".csv", st.mean(q["throughput_per_s"] for q in procs)


def first_process(path, kinds=None):
    """Iteration -> ops of the first process in hqsim's --csv @path (steady iterations only)."""
    rows = list(csv.DictReader(open(path)))
    it = collections.defaultdict(list)
    for r in rows:
        if r["process"] == rows[0]["process"] and (kinds is None or r["kind"] in kinds):
            it[int(r["iteration"])].append(r)
    keep = sorted(it)[3:-2]
    return it, keep


def span_period(path):
    it, keep = first_process(path)
    sp, per = [], []
    for i in keep:
        h2d = [r for r in it[i] if r["name"] == "h2d"][0]
        graph = [float(r["end_us"]) for r in it[i] if r["name"] not in ("h2d", "d2h")]
        nxt = [r for r in it[i + 1] if r["name"] == "h2d"][0]
        sp.append(max(graph) - float(h2d["end_us"]))
        per.append(float(nxt["start_us"]) - float(h2d["start_us"]))
    return st.median(per), st.median(sp)


def table():
    meas = {(r["config"], r["group"]): r for r in csv.DictReader(open(a.summary))}
    jobs = [(c, g) for c in a.configs.split(",") for g in a.groups.split(",")]
    with ThreadPoolExecutor(a.jobs) as ex:
        res = list(ex.map(lambda j: sim(*j), jobs))
    print("config,group,meas_req_s,hqsim_req_s,err_pct,meas_span_us,hqsim_span_us,span_err_pct,"
          "meas_outside_us,hqsim_outside_us")
    for (cfg, g), (path, thr) in zip(jobs, res):
        per, sp = span_period(path)
        m = meas[(cfg, g)]
        mt, ms, mo = float(m["req_per_s"]), float(m["g_span"]), float(m["outside"])
        print(f"{cfg},{g},{mt:.1f},{thr:.1f},{100 * (thr / mt - 1):+.1f},{ms:.1f},{sp:.1f},"
              f"{100 * (sp / ms - 1):+.1f},{mo:.1f},{per - sp:.1f}")


def kineto_kernels(path):
    ev = json.load(gzip.open(path))["traceEvents"]
    ks = sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    launches = sorted(e["ts"] for e in ev if e.get("cat") == "cuda_runtime" and e["name"] == "cudaGraphLaunch")
    per, nreq = collections.defaultdict(lambda: ([], [])), 0
    for t0, t1 in zip(launches[1:-1], launches[2:]):
        k = [e for e in ks if t0 <= e["ts"] < t1]
        nreq += bool(k)
        for j, e in enumerate(k):
            g = e["args"]["grid"]
            key = (e["name"][:40], g[0] * g[1] * g[2])
            per[key][0].append(e["dur"])
            if j:
                per[key][1].append(e["ts"] - k[j - 1]["ts"] - k[j - 1]["dur"])
    return per, nreq


def hqsim_kernels(path):
    it, keep = first_process(path, ("kernel",))
    per = collections.defaultdict(lambda: ([], []))
    for i in keep:
        k = sorted(it[i], key=lambda r: float(r["start_us"]))
        for j, e in enumerate(k):
            key = (e["name"][:40], int(e["blocks"]))
            per[key][0].append(float(e["duration_us"]))
            if j:
                per[key][1].append(float(e["start_us"]) - float(k[j - 1]["end_us"]))
    return per


def kernels():
    cfg, n = a.kernels, a.n
    short = cfg.replace("_graph", "")
    kin = os.path.join(H, "openloop/mpsgraph/kineto")
    m1, r1 = kineto_kernels(os.path.join(kin, "mps_n1", f"{short}_n1.json.gz"))
    mn, _ = kineto_kernels(os.path.join(kin, f"mps_n{n}", f"{short}_n{n}.json.gz"))
    s1, sn = hqsim_kernels(sim(cfg, "mps_n1")[0]), hqsim_kernels(sim(cfg, f"mps_n{n}")[0])

    def mean(v):
        return st.mean(v) if v else 0.0
    rows, tot = [], [0.0] * 4
    for key in m1:
        if key not in s1 or key not in mn or key not in sn:
            continue
        c = len(m1[key][0]) / r1
        g = [mean(x[key][i]) - mean(y[key][i]) for x, y in ((mn, m1), (sn, s1)) for i in (0, 1)]
        tot = [t + c * x for t, x in zip(tot, g)]
        rows.append((c * (g[0] + g[1] - g[2] - g[3]), key, c, mean(m1[key][0]), mean(s1[key][0]), g))
    rows.sort(key=lambda r: -abs(r[0]))
    print(f"# {cfg}, MPS N = {n} over N = 1: per launch growth of duration d and gap before g (us), "
          f"measured (Kineto, rank 0) and hqsim; miss = (measured - hqsim) x launches per request")
    print("kernel,blocks,per_request,alone_meas_us,alone_hqsim_us,meas_d,meas_g,hqsim_d,hqsim_g,miss_us_per_request")
    for miss, key, c, am, ah, g in rows:
        print(f"\"{key[0]}\",{key[1]},{c:.0f},{am:.2f},{ah:.2f},{g[0]:+.2f},{g[1]:+.2f},{g[2]:+.2f},{g[3]:+.2f},{miss:+.1f}")
    print(f"# per request: measured d {tot[0]:+.1f} g {tot[1]:+.1f}, hqsim d {tot[2]:+.1f} g {tot[3]:+.1f} us")


try:
    kernels() if a.kernels else table()
finally:
    shutil.rmtree(TMP, ignore_errors=True)
