#!/usr/bin/env python3
"""Kernel by kernel: one CUDA-graph MPS client among N, measured (Kineto) against hqsim.

  mps_graph_kernels.py RAW OUT.csv                      # the measured table only
  mps_graph_kernels.py RAW OUT.csv --hqsim build/hqsim [--configs cnn_b1,encoder_b8]
                       [--ns 1,2,4,8] [--ncu DIR] [--models-dir DIR] [--kernels 8]

RAW: a folder holding harness/mps_graph_campaign.sh's Kineto traces, e.g. traces/measured/h100/openloop/
mpsgraph (RAW/kineto/<tag>/<config>_n<N>.json.gz:
16 Kineto requests of rank 0 while the N - 1 other MPS clients serve the same graph; <tag> mps_n1,
mps_n2, mps_n4, mps_n8, and nomps_n1 without MPS).  Per configuration and N, of rank 0's requests:
kernels per request, kernel time per request (summed durations / requests), the request's GPU span
(first kernel start to last kernel end, median) and its gaps (span less kernel time, median), each
also over the same at mps N = 1.  With --hqsim the same figures of hqsim's process 0 (iterations from
the third on), run as harness/openloop_predict.py runs a closed MPS row (the bare Kineto profile of
launch/kineto/, the host scale of openloop/fits.json, the request spread of openloop/spread/, the
ncu file of --ncu where there is one), and with --kernels K the K distinct kernels (name cut to 60,
blocks) of most measured time at each N >= 2: launches per request, mean, median and p90 (us),
measured and hqsim.  Nothing is fitted here.
"""
import argparse
import collections
import csv
import gzip
import json
import os
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
H100 = os.path.join(ROOT, "traces/measured/h100")
ap = argparse.ArgumentParser()
ap.add_argument("raw")
ap.add_argument("out")
ap.add_argument("--hqsim", default=None)
ap.add_argument("--configs", default="cnn_b1,cnn_b8,encoder_b1,encoder_b8,decoder_b1,decoder_b16")
ap.add_argument("--ns", default="1,2,4,8")
ap.add_argument("--ncu", default=os.path.join(H100, "openloop/ncu"))
ap.add_argument("--models-dir", default=None)
ap.add_argument("--kernels", type=int, default=0)
ap.add_argument("--tag-prefix", default="mps")  # mps_disj_campaign.sh: p50 (N = 1, 2), p25 (N = 1, 4)
a = ap.parse_args()
REQ = 16


def key(name, blocks):
    return name[:60], blocks


def measured(cfg, tag, n):
    """Rank 0's kernels of @cfg at @tag as [(start, end, key)] per request, or None."""
    p = os.path.join(a.raw, "kineto", tag, f"{cfg}_n{n}.json.gz")
    if not os.path.exists(p):
        return None
    ks = sorted((e for e in json.load(gzip.open(p))["traceEvents"] if e.get("cat") == "kernel"),
                key=lambda e: e["ts"])
    if not ks or len(ks) % REQ:
        raise SystemExit(f"{p}: {len(ks)} kernels, not {REQ} equal requests")
    per = len(ks) // REQ

    def blocks(e):
        g = e["args"]["grid"]
        return g[0] * g[1] * g[2]
    return [[(e["ts"], e["ts"] + e["dur"], key(e["name"], blocks(e))) for e in ks[i * per:(i + 1) * per]]
            for i in range(REQ)]


def simulated(cfg, n):
    """hqsim's process 0 of @cfg in @n MPS clients: [(start, end, key)] per iteration >= 2."""
    c = cfg + "_graph"
    fits = json.load(open(os.path.join(H100, "openloop/fits.json")))
    ncu = os.path.join(a.ncu, c + ".csv.gz") if a.ncu else ""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "ops.csv")
        cmd = [a.hqsim, "run", os.path.join(H100, "launch/kineto", c + ".json.gz"),
               *([ncu] if ncu and os.path.exists(ncu) else []), "--loop-request",
               "--host-scale", f"{fits[c]:.6g}", "--request-spread", os.path.join(H100, "openloop/spread", c + ".json"),
               "--processes", str(n), "--mode", "mps", "--iterations", str(max(40, 240 // n)), "--seed", "1",
               "-q", "--csv", out, *(["--models-dir", a.models_dir] if a.models_dir else [])]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
        by = collections.defaultdict(list)
        for r in csv.DictReader(open(out)):
            if r["kind"] != "kernel" or int(r["iteration"]) < 2:
                continue
            if "#" in r["process"] and not r["process"].endswith("#0"):
                continue
            by[int(r["iteration"])].append((float(r["start_us"]), float(r["end_us"]),
                                            key(r["name"], int(r["blocks"]))))
    return [sorted(v) for _, v in sorted(by.items())]


def figures(reqs):
    """kernels per request, kernel time per request, span p50, gaps p50 (us)."""
    kt = [sum(e - s for s, e, _ in r) for r in reqs]
    sp = [max(e for _, e, _ in r) - r[0][0] for r in reqs]
    return (len(reqs[0]), sum(kt) / len(kt), statistics.median(sp),
            statistics.median([s - k for s, k in zip(sp, kt)]))


def per_kernel(reqs):
    d = collections.defaultdict(list)
    for r in reqs:
        for s, e, k in r:
            d[k].append(e - s)
    return d, len(reqs)


def stats(v):
    q = statistics.quantiles(v, n=10) if len(v) > 1 else [v[0]] * 9
    return statistics.mean(v), statistics.median(v), q[-1]


def main():
    rows, ns = [], [int(x) for x in a.ns.split(",")]
    for cfg in a.configs.split(","):
        base = {}
        for n in ns:
            m = measured(cfg, f"{a.tag_prefix}_n{n}", n)
            if m is None:
                continue
            fm = figures(m)
            base.setdefault("m", fm)
            row = [cfg, n, fm[0], *(f"{x:.1f}" for x in fm[1:]), f"{fm[1] / base['m'][1]:.3f}",
                   f"{fm[2] / base['m'][2]:.3f}"]
            s = simulated(cfg, n) if a.hqsim else None
            if s:
                fs = figures(s)
                base.setdefault("s", fs)
                row += [*(f"{x:.1f}" for x in fs[1:]), f"{fs[1] / base['s'][1]:.3f}", f"{fs[2] / base['s'][2]:.3f}"]
            rows.append(row)
            print(",".join(str(x) for x in row), flush=True)
            if s and a.kernels and n >= 2:
                dm, nm = per_kernel(m)
                ds, nsim = per_kernel(s)
                for k in sorted(dm, key=lambda k: -sum(dm[k]))[:a.kernels]:
                    mm = stats(dm[k])
                    ss = stats(ds[k]) if k in ds else (float("nan"),) * 3
                    print(f"  {k[0][:44]:44s} {k[1]:6d} x{len(dm[k]) / nm:4.1f}/{len(ds.get(k, [])) / nsim:4.1f}"
                          f" mean {mm[0]:7.1f}/{ss[0]:7.1f} med {mm[1]:7.1f}/{ss[1]:7.1f}"
                          f" p90 {mm[2]:7.1f}/{ss[2]:7.1f}")
    with open(a.out, "w") as f:
        f.write("config,n,kernels_per_request,kernel_us_per_request,span_p50_us,gaps_p50_us,kernel_over_n1,"
                "span_over_n1" + (",hq_kernel_us_per_request,hq_span_p50_us,hq_gaps_p50_us,hq_kernel_over_n1,"
                                   "hq_span_over_n1" if a.hqsim else "") + "\n")
        for r in rows:
            f.write(",".join(str(x) for x in r) + "\n")


if __name__ == "__main__":
    main()
