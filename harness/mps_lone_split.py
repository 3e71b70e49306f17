#!/usr/bin/env python3
"""Where a lone MPS client's graph request loses time, by class of kernel: measured and hqsim (issue 10).

  mps_lone_split.py [--hqsim build/hqsim] [--configs decoder_b1,...] [--kernels CONFIG]

Measured: harness/mps_graph_campaign.sh's one call (openloop/mpsgraph/, 2026-11-27): the
unprofiled requests of one process without MPS (nomps_n1) and of one process as the only MPS
client (mps_n1), CUDA events (summary.csv: the GPU span e0 -> e1 and the time outside it), and
16 Kineto requests of each in the same call (kineto/{nomps_n1,mps_n1}/<config>_n1.json.gz).
The same graph both times, so the i-th kernel of a request is the same node in both; per node
the mean change (MPS minus no MPS) of its CUPTI duration and of the gap before it, summed per
request over a class: the node's grid (1 block or more) and its predecessor's ("1<-1": a
1-block kernel after a 1-block one, "W<-1": >= 2 blocks after 1 block, "1<-W", "W<-W").
hqsim (with --hqsim): the same per node of its own profile (launch/kineto/, recorded 2026-11-25:
decoder b1 143 kernels per request against the campaign's 151) from its --csv, run as harness/openloop_predict.py runs
the closed loop (the bare profile launch/kineto/<config>_graph.json.gz, its ncu file in
openloop/ncu/ where there is one, openloop/fits.json's host scale, the request spread, seed 1),
--mode timeslice and --mode mps, one process.  --kernels CONFIG prints the per-node table.
Nothing is fitted here.
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H = os.path.join(ROOT, "traces/measured/h100")
MG = os.path.join(H, "openloop/mpsgraph")
ap = argparse.ArgumentParser()
ap.add_argument("--hqsim", default=None)
ap.add_argument("--configs", default="decoder_b1,decoder_b16,encoder_b1,encoder_b8,cnn_b1,cnn_b8")
ap.add_argument("--kernels", default=None, metavar="CONFIG")
a = ap.parse_args()
CLASSES = ("1<-1", "W<-1", "1<-W", "W<-W")


def cls(blocks, prev_blocks):
    return ("1" if blocks == 1 else "W") + "<-" + ("1" if prev_blocks == 1 else "W")


def kineto_requests(tag, cfg):
    """Requests (lists of (name, blocks, start, dur)) of the Kineto trace, the first dropped."""
    ev = json.load(gzip.open(os.path.join(MG, "kineto", tag, f"{cfg}_n1.json.gz")))["traceEvents"]
    ks = sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    reqs, cur = [], []
    for e in ks:
        g = e["args"]["grid"]
        k = (e["name"], g[0] * g[1] * g[2], e["ts"], e["dur"])
        if cur and k[2] - (cur[-1][2] + cur[-1][3]) > 20:  # a request's nodes are < 20 us apart
            reqs.append(cur)
            cur = []
        cur.append(k)
    reqs.append(cur)
    n = st.mode(len(r) for r in reqs)
    return [r for r in reqs[1:] if len(r) == n]


def per_node(reqs):
    """Per node: (name, blocks, mean duration, mean gap before it)."""
    out = []
    for i in range(len(reqs[0])):
        d = st.mean(r[i][3] for r in reqs)
        g = st.mean(r[i][2] - r[i - 1][2] - r[i - 1][3] for r in reqs) if i else 0.0
        out.append((reqs[0][i][0], reqs[0][i][1], d, g))
    return out


def hqsim_nodes(cfg, mode, tmp):
    gcfg = cfg + "_graph"
    fits = json.load(open(os.path.join(H, "openloop/fits.json")))
    ncu = os.path.join(H, "openloop/ncu", gcfg + ".csv.gz")
    out = os.path.join(tmp, f"{cfg}_{mode}.csv")
    cmd = [a.hqsim, "run", os.path.join(H, "launch/kineto", gcfg + ".json.gz"),
           *([ncu] if os.path.exists(ncu) else []), "--loop-request", "--host-scale", str(fits[gcfg]),
           "--request-spread", os.path.join(H, "openloop/spread", gcfg + ".json"), "--processes", "1",
           "--mode", mode, "--iterations", "40", "--seed", "1", "-q", "--csv", out]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    it = collections.defaultdict(list)
    for r in csv.DictReader(open(out)):
        if r["kind"] == "kernel":
            it[int(r["iteration"])].append(r)
    reqs = []
    for i in sorted(it)[3:-2]:
        k = sorted(it[i], key=lambda r: float(r["start_us"]))
        reqs.append([(r["name"], int(r["blocks"]), float(r["start_us"]), float(r["duration_us"])) for r in k])
    n = st.mode(len(r) for r in reqs)
    return per_node([r for r in reqs if len(r) == n])


def growth(a_nodes, b_nodes):
    """Per class: [nodes, duration change, gap change] per request, b minus a."""
    c = {k: [0, 0.0, 0.0] for k in CLASSES}
    for i, (x, y) in enumerate(zip(a_nodes, b_nodes)):
        if i == 0:
            continue
        k = cls(x[1], a_nodes[i - 1][1])
        c[k][0] += 1
        c[k][1] += y[2] - x[2]
        c[k][2] += y[3] - x[3]
    return c


def main(tmp):
    summ = {(r["group"], r["config"]): r for r in csv.DictReader(open(os.path.join(MG, "summary.csv")))}
    if a.kernels:
        cfg = a.kernels
        m0, m1 = per_node(kineto_requests("nomps_n1", cfg)), per_node(kineto_requests("mps_n1", cfg))
        h0 = h1 = None
        if a.hqsim:
            h0, h1 = hqsim_nodes(cfg, "timeslice", tmp), hqsim_nodes(cfg, "mps", tmp)
        print("node,class,blocks,name,nomps_dur_us,meas_d,meas_g" + (",hqsim_d,hqsim_g" if h0 else ""))
        for i in range(1, len(m0)):
            row = [i, cls(m0[i][1], m0[i - 1][1]), m0[i][1], '"%s"' % m0[i][0][:60], "%.2f" % m0[i][2],
                   "%+.2f" % (m1[i][2] - m0[i][2]), "%+.2f" % (m1[i][3] - m0[i][3])]
            if h0 and len(h0) == len(m0):
                row += ["%+.2f" % (h1[i][2] - h0[i][2]), "%+.2f" % (h1[i][3] - h0[i][3])]
            print(",".join(map(str, row)))
        return
    print("config,unprof_span_growth_us,unprof_outside_growth_us,kineto_mean_span_growth_us,"
          + ",".join(f"{k}_n,{k}_meas_us,{k}_hqsim_n,{k}_hqsim_us" for k in CLASSES) + ",all_meas_us,all_hqsim_us")
    for cfg in a.configs.split(","):
        u0, u1 = summ[("nomps_n1", cfg + "_graph")], summ[("mps_n1", cfg + "_graph")]
        r0, r1 = kineto_requests("nomps_n1", cfg), kineto_requests("mps_n1", cfg)
        span = [st.mean(r[-1][2] + r[-1][3] - r[0][2] for r in rr) for rr in (r0, r1)]
        m = growth(per_node(r0), per_node(r1))
        h = None
        if a.hqsim:
            h0, h1 = hqsim_nodes(cfg, "timeslice", tmp), hqsim_nodes(cfg, "mps", tmp)
            h = growth(h0, h1)  # hqsim's profile (launch/kineto/) may differ in a few nodes
        row = [cfg, "%+.1f" % (float(u1["g_span"]) - float(u0["g_span"])),
               "%+.1f" % (float(u1["outside"]) - float(u0["outside"])), "%+.1f" % (span[1] - span[0])]
        tm = th = 0.0
        for k in CLASSES:
            mk = m[k][1] + m[k][2]
            hk = (h[k][1] + h[k][2]) if h else float("nan")
            tm += mk
            th += hk
            row += [m[k][0], "%+.1f" % mk, h[k][0] if h else "", "%+.1f" % hk]
        row += ["%+.1f" % tm, "%+.1f" % th]
        print(",".join(map(str, row)))


tmp = tempfile.mkdtemp(prefix="lone_split.")
try:
    main(tmp)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
