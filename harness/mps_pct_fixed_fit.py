#!/usr/bin/env python3
"""How a lone MPS client's kernels grow with fewer SMs, measured against hqsim, per kernel_fixed_us.

  mps_pct_fixed_fit.py HQSIM KERNELS.csv CONFIG[,CONFIG...] [--fixed 0,1,2,...]

KERNELS.csv: harness/mps_pct_summary.py's output (one row per setting, configuration and distinct
kernel: name cut to 60, grid, block, launches per request, median duration in us), with the settings
mps100, mps50 and mps25 (traces/measured/h100/mpspct/kernels.csv: encoders and decoders;
mpspct/cnn/kernels.csv: resnet50).  For each configuration hqsim runs its one Kineto profile
(traces/measured/h100/launch/kineto/<config>.json.gz, recorded without MPS, all SMs; --kineto), with
its ncu file where one exists (openloop/ncu/, else mpspct/ncu/; --ncu), as one MPS client at 100, 50
and 25% (the
open-loop prediction's host scale, no spread, 3 requests: the third one's kernels) with the model's
kernel_fixed_us set to each value of --fixed (a copy of models/ in a temporary folder).

Kept: kernels whose (name, grid, block) runs as often per request at 100, 50 and 25% as in the
profile (the libraries choose other kernels for fewer SMs: those are left out and counted).
Printed per setting: measured and hqsim kernel time per request of the kept kernels, and the growth
over 100% (hqsim's over its own 100%, the measurement's over mps100: the lone client's own cost at
100% is not this parameter's); and the mean |growth error| over the kernels, weighted by their
measured time at 100%.  FINDINGS.md §36 fits kernel_fixed_us on resnet50 b1 alone.
"""
import argparse
import collections
import csv
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
H = os.path.join(ROOT, "traces/measured/h100")
ap = argparse.ArgumentParser()
ap.add_argument("hqsim")
ap.add_argument("kernels")
ap.add_argument("configs")
ap.add_argument("--fixed", default=None, help="kernel_fixed_us values (default: the model's)")
ap.add_argument("--per-kernel", default=None, metavar="FILE",
                help="also write each kept kernel's growth, measured and hqsim, to FILE (CSV)")
ap.add_argument("--kineto", default=os.path.join(H, "launch/kineto"),
                help="folder of the <config>.json.gz profiles (default the H100's; the H200's: "
                     "traces/measured/h200/openloop/kineto)")
ap.add_argument("--fits", default=os.path.join(H, "openloop/fits.json"), help="host scales (fits.json)")
ap.add_argument("--gpu", default=None, help="hqsim's --gpu (e.g. h200; default the profile's / hqsim's)")
ap.add_argument("--ncu", default=",".join(os.path.join(H, d) for d in ("openloop/ncu", "mpspct/ncu")),
                help="comma-separated folders searched for <config>.csv.gz, first found wins; '' for none "
                     "(the bare trace, as the serving table runs resnet50)")
ap.add_argument("--hqsim-arg", action="append", default=[], metavar="ARG",
                help="one more argument for every hqsim run (repeatable; e.g. --hqsim-arg=--bare-classes)")
a = ap.parse_args()
FITS = json.load(open(a.fits))
TMP = tempfile.mkdtemp(prefix="fixedfit.")


def models_with(fixed):
    """A copy of models/ with h100-sxm's kernel_fixed_us = @fixed (None: models/ itself)."""
    if fixed is None:
        return os.path.join(ROOT, "models")
    d = os.path.join(TMP, "models_" + fixed)
    if not os.path.exists(d):
        shutil.copytree(os.path.join(ROOT, "models"), d)
        p = os.path.join(d, "h100-sxm.json")
        s, n = re.subn(r'"kernel_fixed_us": [0-9.eE+-]+,', f'"kernel_fixed_us": {fixed},', open(p).read(), count=1)
        if n != 1:
            raise SystemExit(f"{p}: no kernel_fixed_us value")
        open(p, "w").write(s)
    return d


def ncu_for(cfg):
    for d in filter(None, a.ncu.split(",")):
        f = os.path.join(d, cfg + ".csv.gz")
        if os.path.exists(f):
            return f
    return None


def trace_kernels(cfg):
    """(name[:60], grid, block) of the profile's kernels in time order."""
    ev = json.load(gzip.open(os.path.join(a.kineto, cfg + ".json.gz")))["traceEvents"]
    ks = sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    return [(e["name"][:60], "x".join(map(str, e["args"]["grid"])), "x".join(map(str, e["args"]["block"])))
            for e in ks]


def simulate(cfg, pct, fixed):
    """{key: (launches per request, median us)} of hqsim's third request."""
    out = os.path.join(TMP, f"{cfg}_{pct}_{fixed}.csv")
    ncu = ncu_for(cfg)
    cmd = [a.hqsim, "run", "--models-dir", models_with(fixed), os.path.join(a.kineto, cfg + ".json.gz"),
           *([ncu] if ncu else []), "--loop-request", "--host-scale", str(FITS[cfg]), "--processes", "1",
           "--mode", "mps", "--iterations", "3", "--no-jitter", "-q", "--csv", out]
    if pct != 100:
        cmd += ["--thread-pct", str(pct)]
    if a.gpu:
        cmd += ["--gpu", a.gpu]
    cmd += a.hqsim_arg
    subprocess.run(cmd, check=True)
    rows = [r for r in csv.DictReader(open(out)) if r["kind"] == "kernel" and r["iteration"] == "2"]
    d = collections.defaultdict(list)
    for k, r in zip(trace_kernels(cfg), rows):  # the request's kernels in the profile's order
        d[k].append(float(r["duration_us"]))
    return {k: (len(v), statistics.median(v)) for k, v in d.items()}


def measured(cfg):
    m = collections.defaultdict(dict)
    for r in csv.DictReader(open(a.kernels)):
        if r["config"] == cfg and r["kernel"] != "(all kernels)":
            m[r["setting"]][(r["kernel"], r["grid"], r["block"])] = (float(r["per_request"]),
                                                                     float(r["median_us_or_total_us"]))
    return m


def main():
    fixed_values = a.fixed.split(",") if a.fixed else [None]
    per = open(a.per_kernel, "w", newline="") if a.per_kernel else None
    if per:
        pw = csv.writer(per)
        pw.writerow(["config", "kernel_fixed_us", "kernel", "grid", "block", "per_request", "meas_us_100",
                     "hqsim_us_100", "meas_growth_50", "hqsim_growth_50", "meas_growth_25", "hqsim_growth_25"])
    print("config,kernel_fixed_us,kept,of,setting,meas_us,hqsim_us,meas_growth,hqsim_growth,growth_err_pct")
    for cfg in a.configs.split(","):
        M = measured(cfg)
        for fx in fixed_values:
            S = {p: simulate(cfg, p, fx) for p in (100, 50, 25)}
            keys = [k for k in S[100] if all(k in M[s] and abs(M[s][k][0] - S[100][k][0]) < 0.01
                                              for s in ("mps100", "mps50", "mps25"))]
            base_m = sum(S[100][k][0] * M["mps100"][k][1] for k in keys)
            base_s = sum(S[100][k][0] * S[100][k][1] for k in keys)
            for pct, s in ((100, "mps100"), (50, "mps50"), (25, "mps25")):
                m = sum(S[100][k][0] * M[s][k][1] for k in keys)
                p = sum(S[100][k][0] * S[pct][k][1] for k in keys)
                err = sum(S[100][k][0] * M["mps100"][k][1] *
                          abs(S[pct][k][1] / S[100][k][1] - M[s][k][1] / M["mps100"][k][1]) for k in keys)
                print(f"{cfg},{fx if fx is not None else 'model'},{len(keys)},{len(S[100])},{s},{m:.1f},{p:.1f},"
                      f"{m / base_m:.3f},{p / base_s:.3f},{100 * err / base_m:.1f}", flush=True)
            for k in keys if per else []:
                g = [(M[s][k][1] / M["mps100"][k][1], S[p][k][1] / S[100][k][1]) for p, s in ((50, "mps50"), (25, "mps25"))]
                pw.writerow([cfg, fx if fx is not None else "model", *k, S[100][k][0], M["mps100"][k][1],
                             round(S[100][k][1], 3), *(f"{x:.3f}" for gg in g for x in gg)])
    if per:
        per.close()
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main()
