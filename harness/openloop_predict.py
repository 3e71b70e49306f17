#!/usr/bin/env python3
"""Predict every row of an openloop summary (harness/openloop_summary.py) with hqsim.

  openloop_predict.py SUMMARY.csv OUT.csv [--hqsim build/hqsim] [--configs a,b]
                      [--fits FITS.json] [--refit] [--dir DIR --gpu MODEL]

Per configuration (e.g. decoder_b1_graph) the input is one profile of one process,
traces/measured/h100/launch/kineto/<config>.json.gz, and two things taken from the
one process alone without MPS (closed loop), and nothing else:
  - the request spread: spread/<config>.json, its latencies (--request-spread);
  - the host scale (--host-scale) that makes that run's throughput what was measured
    (the profiler's host overhead taken out), found by bisection and kept in FITS.json.
Where ncu/<config>.csv.gz exists (Nsight Compute of one request of the same program, alone, without
MPS, for every kernel of the trace: harness/ncu_request.py), it goes to hqsim with the trace, so each
kernel has its measured issue-slot share and DRAM throughput.
Every other row (N = 2-8, MPS, thread percentages, open loop) is predicted:
  hqsim run TRACE --loop-request --host-scale H --request-spread S --processes N
    --mode timeslice|mps [--thread-pct P] --iterations max(40, 240/N) --seed 1
an open-loop row with the arrival times its processes drew (arrivals/<sharing>_n<N>_
<config>_<loop>.json.gz, --arrival-times) instead of --iterations; --poisson draws new
arrivals at the measured rate instead (--arrival-rate R --iterations max(40, 240/N)).
Writes OUT.csv: the measured columns, the predicted ones and the errors (%).
--dir DIR takes every input from another GPU's folder of the same layout (DIR/kineto/<config>.json.gz,
DIR/spread, DIR/fits.json, DIR/arrivals, DIR/ncu; the H200's: traces/measured/h200/openloop, made by
harness/serving_campaign.sh) and --gpu MODEL runs hqsim with that GPU model (--gpu h200).

--measured-load PREDICTED.csv (a diagnosis, not a prediction: it uses the measured closed loop of
every group) runs each open-loop row at the load the measurement had.  An open row's arrival rate is
0.8 (0.5) of the group's MEASURED closed-loop throughput, so where hqsim's closed-loop throughput of
the same group is k times the measured one (k = pred_thr / meas_thr of that closed row in
PREDICTED.csv), hqsim runs the row at load 0.8 / k, and near saturation a few % of k move p50 by tens
of %.  This option divides the arrival times by k (so the simulated load is the measured one) and
multiplies the latencies by k (back into measured time): what hqsim's open loop predicts once the
closed-loop throughput error is taken out.  Closed rows are left out of OUT.csv.
"""
import argparse
import concurrent.futures
import csv
import json
import os
import gzip
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ap = argparse.ArgumentParser()
ap.add_argument("summary")
ap.add_argument("out")
ap.add_argument("--hqsim", default=os.path.join(ROOT, "build", "hqsim"))
ap.add_argument("--traces", default=os.path.join(ROOT, "traces/measured/h100/launch/kineto"))
ap.add_argument("--spread", default=os.path.join(ROOT, "traces/measured/h100/openloop/spread"))
ap.add_argument("--fits", default=os.path.join(ROOT, "traces/measured/h100/openloop/fits.json"))
ap.add_argument("--configs", default=None)
ap.add_argument("--sharing", default=None, help="only these rows' sharing, e.g. nomps,mps (the fit is still done)")
ap.add_argument("--refit", action="store_true")
ap.add_argument("--total", type=int, default=240, help="requests simulated per row, all processes")
ap.add_argument("--arrivals", default=os.path.join(ROOT, "traces/measured/h100/openloop/arrivals"))
ap.add_argument("--poisson", action="store_true")
ap.add_argument("--jobs", type=int, default=1,
                help="rows simulated at once (each row is one hqsim process; the output order is the same)")
ap.add_argument("--measured-load", default=None, metavar="PREDICTED.csv",
                help="open rows only, at the measured load: arrivals / k, latencies * k, k = that group's "
                     "closed-loop pred_thr / meas_thr in PREDICTED.csv (a diagnosis, see above)")
ap.add_argument("--ncu", default=os.path.join(ROOT, "traces/measured/h100/openloop/ncu"),
                help="folder of <config>.csv.gz (harness/ncu_request.py), given to hqsim with the trace where present, "
                     "so every kernel has its measured issue share and DRAM throughput; '' for none")
ap.add_argument("--bare-classes", action="store_true",
                help="pass --bare-classes to hqsim: kernels without ncu data take their class's issue share "
                     "(FINDINGS.md 56; with --ncu '' every kernel)")
ap.add_argument("--dir", default=None, metavar="DIR",
                help="another GPU's serving data (e.g. traces/measured/h200/openloop): traces DIR/kineto, "
                     "spread, fits.json, arrivals and ncu under DIR, where not given; default the H100's")
ap.add_argument("--gpu", default=None, help="hqsim's --gpu (e.g. h200); default none: the traces' / hqsim's default")
a = ap.parse_args()
if a.dir:
    for opt, sub in (("traces", "kineto"), ("spread", "spread"), ("fits", "fits.json"), ("arrivals", "arrivals"),
                     ("ncu", "ncu")):
        if getattr(a, opt) == ap.get_default(opt):
            setattr(a, opt, os.path.join(a.dir, sub))

MODES = {"nomps": ("timeslice", None), "mps": ("mps", None), "mps50": ("mps", 50), "mps25": ("mps", 25)}


def ncu_for(cfg):
    """ncu/<config>.csv.gz (harness/ncu_request.py), or None."""
    f = os.path.join(a.ncu, cfg + ".csv.gz") if a.ncu else ""
    return f if f and os.path.exists(f) else None


def sim(cfg, n, sharing, hs, rate=None, iters=300, times=None):
    mode, pct = MODES[sharing]
    ncu = ncu_for(cfg)
    # --limit: resnet50 b8 as 8 MPS clients with its ncu DRAM data takes 22.3 M events (FINDINGS §60)
    cmd = [a.hqsim, "run", os.path.join(a.traces, cfg + ".json.gz"), *([ncu] if ncu else []), "--loop-request",
           "--limit", "events=100M",
           "--host-scale", f"{hs:.6g}", "--request-spread", os.path.join(a.spread, cfg + ".json"),
           "--processes", str(n), "--mode", mode, "--iterations", str(iters), "--seed", "1",
           "-q", "--json", "-", *(["--bare-classes"] if a.bare_classes else []), *(["--gpu", a.gpu] if a.gpu else [])]
    if pct:
        cmd += ["--thread-pct", str(pct)]
    if times:
        cmd += ["--arrival-times", times]
    elif rate:
        cmd += ["--arrival-rate", f"{rate:.6g}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    r = json.loads(p.stdout)["run"]
    thr = sum(p["throughput_per_s"] for p in r["processes"]) / len(r["processes"])
    return thr, r["latency_p50_ms"], r["latency_p90_ms"], r["latency_p99_ms"]


def fit(cfg, meas):
    lo, hi = 0.02, 2.0
    for _ in range(9):
        mid = (lo * hi) ** 0.5
        thr = sim(cfg, 1, "nomps", mid)[0]
        lo, hi = (mid, hi) if thr > meas else (lo, mid)
    return round((lo * hi) ** 0.5, 4)


CLOSED_K = {}
TMP = tempfile.mkdtemp(prefix="openloop_load.")


def scaled_arrivals(path, k):
    """A copy of the arrival file @path with every time divided by @k (the load times @k)."""
    d = json.load(gzip.open(path))
    out = os.path.join(TMP, os.path.basename(path)[:-3])
    with open(out, "w") as f:
        json.dump({"processes": [[int(round(t / k)) for t in p] for p in d["processes"]]}, f)
    return out


def predict_row(job):
    """One row of the output: the measured row, its prediction and the errors."""
    cfg, r, base, hs = job
    n = int(r["n"])
    rate = float(r["rate_per_s_per_process"]) if r["rate_per_s_per_process"] else None
    iters = max(40, a.total // n)
    times = None
    if rate and not a.poisson:
        times = os.path.join(a.arrivals, f"{r['sharing']}_n{n}_{cfg}_{r['loop']}.json.gz")
    k = CLOSED_K.get((cfg, r["sharing"], r["n"]), 1.0) if a.measured_load else 1.0
    if times and k != 1.0:
        times = scaled_arrivals(times, k)
    k = k if times else 1.0
    thr, p50, p90, p99 = sim(cfg, n, r["sharing"], hs, rate, iters, times)
    thr, p50, p90, p99 = thr / k, p50 * k, p90 * k, p99 * k
    m = [float(r[k]) for k in ("throughput_per_s_per_process", "lat_p50_ms", "lat_p90_ms", "lat_p99_ms")]
    fitted = "fitted" if r is base else "predicted"
    e = [100 * (p / q - 1) for p, q in zip((thr, p50, p90, p99), m)]
    return [cfg, r["sharing"], n, r["loop"], r["rate_per_s_per_process"], fitted, hs,
            *(f"{x:.4g}" for x in m), f"{thr:.4g}", f"{p50:.4g}", f"{p90:.4g}", f"{p99:.4g}",
            *(f"{x:+.1f}" for x in e)]


def main():
    rows = list(csv.DictReader(open(a.summary)))
    if a.measured_load:
        for c in csv.DictReader(open(a.measured_load)):
            if c["loop"] == "closed":
                CLOSED_K[(c["config"], c["sharing"], c["n"])] = float(c["pred_thr"]) / float(c["meas_thr"])
    want = set(a.configs.split(",")) if a.configs else None
    fits = json.load(open(a.fits)) if os.path.exists(a.fits) else {}
    out, jobs = [], []
    for cfg in sorted({r["config"] for r in rows}):
        if want and cfg not in want:
            continue
        base = [r for r in rows if r["config"] == cfg and r["sharing"] == "nomps" and r["n"] == "1"
                and r["loop"] == "closed"][0]
        if a.refit or cfg not in fits:
            fits[cfg] = fit(cfg, float(base["throughput_per_s_per_process"]))
            os.makedirs(os.path.dirname(a.fits), exist_ok=True)
            with open(a.fits, "w") as f:
                json.dump(fits, f, indent=1, sort_keys=True)
        hs = fits[cfg]
        jobs += [(cfg, r, base, hs) for r in rows if r["config"] == cfg
                 and (not a.sharing or r["sharing"] in a.sharing.split(","))
                 and not (a.measured_load and r["loop"] == "closed")]
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        for o in ex.map(predict_row, jobs):
            out.append(o)
            print(",".join(str(x) for x in o), flush=True)
    with open(a.out, "w") as f:
        f.write("config,sharing,n,loop,rate_per_s,kind,host_scale,meas_thr,meas_p50_ms,meas_p90_ms,meas_p99_ms,"
                "pred_thr,pred_p50_ms,pred_p90_ms,pred_p99_ms,err_thr_pct,err_p50_pct,err_p90_pct,err_p99_pct\n")
        for o in out:
            f.write(",".join(str(x) for x in o) + "\n")


if __name__ == "__main__":
    main()
