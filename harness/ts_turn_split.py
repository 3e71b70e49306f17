#!/usr/bin/env python3
"""Where a time-sliced graph request's time goes, hqsim against the H100 (issue 10, FINDINGS §61).

  ts_turn_split.py HQSIM [--configs a,b] [--n 1,2] [--fits FITS.json]

Per configuration and N, hqsim runs the closed loop as harness/openloop_predict.py does (the
Kineto profile, its ncu file where one exists, the host scale of openloop/fits.json, the
request spread, --iterations max(40, 240/N), seed 1, --mode timeslice) with --csv, and this
prints, for all processes' requests (graph nodes only; the request's H2D / D2H copies left
out): the turn (mean time from one request's first node to the next request's first node,
middle half of the run), the GPU span (first node start to last node end: mean and median),
the kernel time in it, and the gap at each change of hands (one context's last node end to the
other's first node start). Measured: the turn is 1 / (N x the process's closed-loop
throughput) of summary.csv; the unprofiled span is the median CUDA-event span of the graph
queued behind a kernel in openloop/tsspan/ts_span.tar.gz (alone: the mean of phases n1a, n1b;
N = 2: the 'queued,req' phase), less graph_wait_latency_us (2.5 us: the event is written as
the kernel ahead ends, the graph's first node starts that much later); measured gap = turn -
that span. Configurations tsspan did not record print nan.
"""
import argparse
import csv
import io
import json
import os
import statistics as st
import subprocess
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
H = os.path.join(ROOT, "traces/measured/h100")
ap = argparse.ArgumentParser()
ap.add_argument("hqsim")
ap.add_argument("--configs", default="decoder_b1_graph,decoder_b16_graph,encoder_b1_graph,"
                "encoder_b8_graph,cnn_b1_graph,cnn_b8_graph")
ap.add_argument("--n", default="1,2")
ap.add_argument("--fits", default=os.path.join(H, "openloop/fits.json"))
a = ap.parse_args()
FITS = json.load(open(a.fits))
WAIT_US = 2.5  # graph_wait_latency_us (models/h100-sxm.json)


def tsspan():
    """(config, n) -> median queued span (us) of tsspan, n = 1 or 2."""
    runs = {}
    tar = tarfile.open(os.path.join(H, "openloop/tsspan/ts_span.tar.gz"))
    for m in tar.getmembers():
        if m.name.endswith(".json"):
            runs[m.name.split("/")[-1][:-5]] = json.load(io.TextIOWrapper(tar.extractfile(m)))
    out = {}
    for tag, roles, n in (("n1a_p0", "queued", 1), ("n1b_p0", "queued", 1), ("n2_p0", "queued,req", 2)):
        for p in runs[tag]["phases"]:
            if ",".join(p["roles"]) == roles and p["count"]:
                key = ("%s_b%s_graph" % tuple(p["config"].split(":")), n)
                out.setdefault(key, []).append(st.median(p["span_us"]))
    return {k: st.mean(v) for k, v in out.items()}


def measured_thr():
    out = {}
    for r in csv.DictReader(open(os.path.join(H, "openloop/summary.csv"))):
        if r["sharing"] == "nomps" and r["loop"] == "closed":
            out[(r["config"], int(r["n"]))] = float(r["throughput_per_s_per_process"])
    return out


def run(cfg, n, tmp):
    ncu = os.path.join(H, "openloop/ncu", cfg + ".csv.gz")
    out_csv, out_json = os.path.join(tmp, "t.csv"), os.path.join(tmp, "t.json")
    cmd = [a.hqsim, "run", os.path.join(H, "launch/kineto", cfg + ".json.gz"),
           *([ncu] if os.path.exists(ncu) else []), "--loop-request", "--host-scale", str(FITS[cfg]),
           "--request-spread", os.path.join(H, "openloop/spread", cfg + ".json"), "--processes", str(n),
           "--mode", "timeslice", "--iterations", str(max(40, 240 // n)), "--seed", "1", "-q",
           "--csv", out_csv, "--json", out_json]
    subprocess.run(cmd, check=True)
    thr = st.mean(p["throughput_per_s"] for p in json.load(open(out_json))["run"]["processes"])
    req = {}
    for r in csv.DictReader(open(out_csv)):
        if r["kind"] == "kernel" or (r["kind"] == "copy" and r["name"] not in ("h2d", "d2h")):
            req.setdefault((r["process"], int(r["iteration"])), []).append(r)
    seq = []
    for k, rows in req.items():
        s = min(float(r["start_us"]) for r in rows)
        e = max(float(r["end_us"]) for r in rows)
        busy = sum(float(r["duration_us"]) for r in rows if r["kind"] == "kernel")
        seq.append((s, e, busy, k[0]))
    seq.sort()
    gaps = [y[0] - x[1] for x, y in zip(seq, seq[1:]) if x[3] != y[3]]
    mid = seq[len(seq) // 4: 3 * len(seq) // 4]
    return dict(thr=thr, turn=(mid[-1][0] - mid[0][0]) / (len(mid) - 1),
                span_mean=st.mean(e - s for s, e, _, _ in seq), span_p50=st.median(e - s for s, e, _, _ in seq),
                busy=st.mean(b for _, _, b, _ in seq), gap=st.mean(gaps) if gaps else float("nan"))


def main():
    spans, thr = tsspan(), measured_thr()
    nan = float("nan")
    print("config,n,hq_thr,meas_thr,err_pct,hq_turn_us,meas_turn_us,excess_us,hq_span_mean_us,hq_span_p50_us,"
          "meas_span_us,span_excess_p50_us,hq_kernel_us,hq_gap_us,meas_gap_us")
    with tempfile.TemporaryDirectory() as tmp:
        for cfg in a.configs.split(","):
            for n in (int(x) for x in a.n.split(",")):
                d = run(cfg, n, tmp)
                m = thr[(cfg, n)]
                mturn = 1e6 / m / n
                ms = spans.get((cfg, n), nan + WAIT_US) - WAIT_US
                print("%s,%d,%.1f,%.1f,%+.1f,%.1f,%.1f,%+.1f,%.1f,%.1f,%.1f,%+.1f,%.1f,%.1f,%.1f" % (
                    cfg, n, d["thr"], m, 100 * (d["thr"] / m - 1), d["turn"], mturn, 1e6 / d["thr"] / n - mturn,
                    d["span_mean"], d["span_p50"], ms, d["span_p50"] - ms, d["busy"], d["gap"],
                    mturn - ms if n > 1 else nan))


if __name__ == "__main__":
    main()
