#!/usr/bin/env python3
"""Per graph node: how one MPS client's kernels grow beside N - 1 others, measured and in hqsim.

  mps_kernel_growth.py RAW OUT.csv [--hqsim build/hqsim] [--configs cnn_b1,...] [--ns 2,4,8] [--ncu DIR]

RAW: harness/mps_graph_campaign.sh's Kineto folder (traces/measured/h100/openloop/mpsgraph:
RAW/kineto/mps_n<N>/<config>_n<N>.json.gz, 16 requests of rank 0 beside N - 1 clients serving the
same graph, 100% threads).  A graph replays the same nodes in the same order, so node i of a
request is the same kernel at every N: per node, d1 = its mean Kineto duration at N = 1 and dN at
N (requests 2..16), and its attributes from Kineto (blocks, blocks per SM = blocks / 132, warps
per block, registers and shared memory per block) and from the first ncu file found for the
configuration (issue slots busy %, DRAM throughput %; by position when the ncu file holds whole
requests in the same order, else by name and grid).

Per configuration and N it prints:
  * the least-squares line dN = a + b d1 over the nodes (a in us, b), and the time-weighted
    growth K = sum dN / sum d1: multiplicative growth gives a ~ 0 and b ~ K; additive growth
    (+x us per node whatever its length) gives b ~ 1 and a ~ x; "additive" = a x nodes over
    the growth sum (dN - d1), the part of the growth the intercept carries;
  * u = the client's kernel time per request over its request period (measured: the unprofiled
    req/s per client of RAW/summary.csv; hqsim: process 0's iteration period), i.e. the fraction
    of time each other client has a kernel on the GPU, and c = (K - 1) / ((N - 1) u): K's growth
    per other client's busy kernel (a processor-sharing reading: c = 1 when each busy other kernel
    halves my kernel's speed, 0 when others cost nothing);
  * the Spearman rank correlation of each node's growth ratio dN / d1 with each attribute;
  * the same K for the nodes split by class: 1 block; 2..131 blocks (one partial wave);
    132..263; >= 264 blocks (several waves), and by d1 (< 5 us, 5..20, >= 20).
With --hqsim the same for hqsim's process 0 (run as harness/openloop_predict.py runs a closed MPS
row, iterations >= 2), side by side.  OUT.csv: one row per configuration, N, class, source.
Nothing is fitted to rows: the regressions describe the data.
"""
import argparse
import csv
import gzip
import json
import os
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
H100 = os.path.join(os.path.dirname(HERE), "traces/measured/h100")
NCU_DIRS = ["mpspct/ncu/sm", "mpspct/ncu/dec", "openloop/ncu", "mpspct/ncu"]
REQ, SMS = 16, 132
ap = argparse.ArgumentParser()
ap.add_argument("raw")
ap.add_argument("out")
ap.add_argument("--hqsim", default=None)
ap.add_argument("--configs", default="cnn_b1,cnn_b8,encoder_b1,encoder_b8,decoder_b1,decoder_b16")
ap.add_argument("--ns", default="2,4,8")
ap.add_argument("--ncu", default=os.path.join(H100, "openloop/ncu"),
                help="folder of <config>_graph.csv.gz given to hqsim with the trace where present (default "
                     "openloop/ncu, as harness/openloop_predict.py; e.g. a copy with mpspct/ncu's resnet50 files)")
a = ap.parse_args()


def kineto(cfg, n):
    """Rank 0's requests at @n: per request the list of kernel events in start order."""
    p = os.path.join(a.raw, "kineto", f"mps_n{n}", f"{cfg}_n{n}.json.gz")
    ks = sorted((e for e in json.load(gzip.open(p))["traceEvents"] if e.get("cat") == "kernel"),
                key=lambda e: e["ts"])
    if not ks or len(ks) % REQ:
        raise SystemExit(f"{p}: {len(ks)} kernels, not {REQ} equal requests")
    per = len(ks) // REQ
    return [ks[i * per:(i + 1) * per] for i in range(REQ)]


def prod(v):
    return v[0] * v[1] * v[2]


def attrs(req, ncu):
    """Per node: name, blocks, blocks per SM, warps per block, regs per block, smem, issue, dram."""
    out = []
    for i, e in enumerate(req):
        g, b, ar = e["args"]["grid"], e["args"]["block"], e["args"]
        blocks, threads = prod(g), prod(b)
        nc = ncu[i] if isinstance(ncu, list) else ncu.get((e["name"][:40], blocks), {})
        out.append(dict(name=e["name"], blocks=blocks, bpsm=blocks / SMS, warps=(threads + 31) // 32,
                        regs=ar.get("registers per thread", 0) * threads, smem=ar.get("shared memory", 0),
                        issue=nc.get("Issue Slots Busy"), dram=nc.get("DRAM Throughput")))
    return out


def load_ncu(cfg, per):
    """The first ncu file of @cfg: a per-position list if it holds whole requests, else a dict."""
    for d in NCU_DIRS:
        p = os.path.join(H100, d, cfg + "_graph.csv.gz")
        if not os.path.exists(p):
            continue
        by = {}
        for r in csv.DictReader(gzip.open(p, "rt")):
            k = int(r["ID"])
            if k not in by:
                gx = [int(x) for x in r["Grid Size"].strip("()").split(",")]
                by[k] = {"name": r["Kernel Name"], "blocks": prod(gx)}
            try:
                by[k][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
            except ValueError:
                pass
        rows = [by[k] for k in sorted(by)]
        if len(rows) % per == 0:
            return rows[:per], d
        keyed = {}
        for r in rows:
            keyed.setdefault((r["name"][:40], r["blocks"]), r)
        return keyed, d
    return {}, None


def simulated(cfg, n):
    """hqsim's process 0 of @cfg among @n MPS clients: per iteration >= 2 the kernel durations."""
    c = cfg + "_graph"
    fits = json.load(open(os.path.join(H100, "openloop/fits.json")))
    ncu = os.path.join(a.ncu, c + ".csv.gz")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "ops.csv")
        cmd = [a.hqsim, "run", os.path.join(H100, "launch/kineto", c + ".json.gz"),
               *([ncu] if os.path.exists(ncu) else []), "--loop-request",
               "--host-scale", f"{fits[c]:.6g}", "--request-spread", os.path.join(H100, "openloop/spread", c + ".json"),
               "--processes", str(n), "--mode", "mps", "--iterations", str(max(40, 240 // n)), "--seed", "1",
               "--limit", "events=100M",
               "-q", "--csv", out]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
        by, first = {}, {}
        for r in csv.DictReader(open(out)):
            if r["kind"] != "kernel" or int(r["iteration"]) < 2:
                continue
            if "#" in r["process"] and not r["process"].endswith("#0"):
                continue
            by.setdefault(int(r["iteration"]), []).append((float(r["start_us"]), float(r["end_us"]),
                                                           int(r["blocks"])))
    it = sorted(by)
    period = (min(by[it[-1]])[0] - min(by[it[0]])[0]) / (len(it) - 1)
    blocks = [b for _, _, b in sorted(by[it[0]])]
    return [[e - s for s, e, _ in sorted(v)] for _, v in sorted(by.items())], period, blocks


def node_means(reqs):
    """Mean duration per node position over requests 2.. (lists of durations)."""
    use = reqs[1:] if len(reqs) > 2 else reqs
    per = len(use[0])
    if any(len(r) != per for r in use):
        raise SystemExit("requests differ in kernel count")
    return [statistics.mean(r[i] for r in use) for i in range(per)]


def line(x, y):
    """Least-squares y = a + b x."""
    mx, my = statistics.mean(x), statistics.mean(y)
    sxx = sum((u - mx) ** 2 for u in x)
    b = sum((u - mx) * (v - my) for u, v in zip(x, y)) / sxx
    return my - b * mx, b


def ranks(v):
    o = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(o):
        j = i
        while j + 1 < len(o) and v[o[j + 1]] == v[o[i]]:
            j += 1
        for k in range(i, j + 1):
            r[o[k]] = (i + j) / 2
        i = j + 1
    return r


def spearman(x, y):
    pts = [(u, v) for u, v in zip(x, y) if u is not None]
    if len(pts) < 5 or len({u for u, _ in pts}) < 2:
        return None
    rx, ry = ranks([u for u, _ in pts]), ranks([v for _, v in pts])
    mx, my = statistics.mean(rx), statistics.mean(ry)
    num = sum((u - mx) * (v - my) for u, v in zip(rx, ry))
    den = (sum((u - mx) ** 2 for u in rx) * sum((v - my) ** 2 for v in ry)) ** 0.5
    return num / den if den else None


CLASSES = [("all", lambda t, d: True),
           ("1blk", lambda t, d: t["blocks"] == 1), ("<1wave", lambda t, d: 1 < t["blocks"] < SMS),
           ("1-2waves", lambda t, d: SMS <= t["blocks"] < 2 * SMS), (">=2waves", lambda t, d: t["blocks"] >= 2 * SMS),
           ("d<5", lambda t, d: d < 5), ("d5-20", lambda t, d: 5 <= d < 20), ("d>=20", lambda t, d: d >= 20)]
ATTRS = ["d1", "blocks", "bpsm", "warps", "regs", "smem", "issue", "dram"]


def describe(cfg, n, src, at, d1, dn, rows, period):
    """@period: one client's request period at @n (us): u = its kernel time / period."""
    A, B = line(d1, dn)
    K, u = sum(dn) / sum(d1), sum(dn) / period
    c = (K - 1) / ((n - 1) * u)
    share = A * len(d1) / (sum(dn) - sum(d1))
    print(f"{cfg:12s} N={n} {src:8s} dN = {A:+7.2f} us + {B:5.3f} d1 (additive {share:4.0%})   K = {K:5.3f}"
          f"   mean +{statistics.mean(v - u for u, v in zip(d1, dn)) / (n - 1):5.2f} us/node/other"
          f"   u = {u:4.2f}  c = (K-1)/((N-1)u) = {c:4.2f}")
    g = [v / u for u, v in zip(d1, dn)]
    cor = {}
    for k in ATTRS:
        x = d1 if k == "d1" else [t[k] for t in at]
        cor[k] = spearman(x, g)
    print("    rho(ratio, attr): " + "  ".join(f"{k} {'-' if cor[k] is None else f'{cor[k]:+.2f}'}" for k in ATTRS))
    parts = []
    for cname, f in CLASSES:
        idx = [i for i, t in enumerate(at) if f(t, d1[i])]
        if not idx:
            continue
        s1, sn = sum(d1[i] for i in idx), sum(dn[i] for i in idx)
        add = (sn - s1) / len(idx) / (n - 1)
        parts.append(f"{cname} {len(idx)}:{sn / s1:.2f}/+{add:.2f}")
        rows.append([cfg, n, src, cname, len(idx), f"{u:.3f}" if cname == "all" else "",
                     f"{c:.3f}" if cname == "all" else "", f"{s1:.1f}", f"{sn:.1f}", f"{sn / s1:.3f}", f"{add:.3f}",
                     f"{A:.3f}" if cname == "all" else "", f"{B:.4f}" if cname == "all" else "",
                     f"{share:.3f}" if cname == "all" else "",
                     *([f"{cor[k]:.3f}" if cor[k] is not None else "" for k in ATTRS] if cname == "all"
                       else [""] * len(ATTRS))])
    print("    class n:K/+us per node per other: " + "  ".join(parts))


def main():
    global RATE
    RATE = {(r["config"][:-len("_graph")], int(r["n"])): float(r["req_per_s"])
            for r in csv.DictReader(open(os.path.join(a.raw, "summary.csv"))) if r["group"].startswith("mps_n")}
    rows = []
    for cfg in a.configs.split(","):
        m1 = kineto(cfg, 1)
        ncu, nd = load_ncu(cfg, len(m1[0]))
        at = attrs(m1[0], ncu)
        print(f"# {cfg}: {len(at)} nodes per request, ncu {nd}")
        d1 = node_means([[e["dur"] for e in r] for r in m1])
        cov = sum(d * min(1.0, t["bpsm"]) for d, t in zip(d1, at)) / sum(d1)
        print(f"#   SM coverage (time-weighted min(1, blocks / {SMS})) {cov:.2f}")
        if a.hqsim:
            sim1, _, sb = simulated(cfg, 1)
            s1 = node_means(sim1)
            # hqsim runs launch/kineto's profile: where its nodes are not these, blocks only
            at_s = at if [t["blocks"] for t in at] == sb else \
                [dict(blocks=b, bpsm=b / SMS, warps=None, regs=None, smem=None, issue=None, dram=None) for b in sb]
        for n in [int(x) for x in a.ns.split(",")]:
            mn = kineto(cfg, n)
            if any(e["name"] != f["name"] for e, f in zip(mn[0], m1[0])):
                raise SystemExit(f"{cfg}: N={n}'s nodes differ from N=1's")
            describe(cfg, n, "measured", at, d1, node_means([[e["dur"] for e in r] for r in mn]), rows,
                     1e6 / RATE[(cfg, n)])
            if a.hqsim:
                sim, period, _ = simulated(cfg, n)
                sn = node_means(sim)
                if len(sn) != len(s1):
                    raise SystemExit(f"{cfg}: hqsim's node count differs at N={n}")
                describe(cfg, n, "hqsim", at_s, s1, sn, rows, period)
    with open(a.out, "w") as f:
        f.write("config,n,source,class,nodes,busy_u,c_per_other_busy,sum_d1_us,sum_dn_us,growth,add_us_per_node_per_other,"
                "line_a_us,line_b,additive_share," + ",".join("rho_" + k for k in ATTRS) + "\n")
        for r in rows:
            f.write(",".join(str(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
