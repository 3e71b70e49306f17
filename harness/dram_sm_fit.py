#!/usr/bin/env python3
"""The per-SM DRAM ceiling T(W) = Tmax W / (W + W0) fitted on the pctw probes (FINDINGS.md §46, §68).

  dram_sm_fit.py PCTW.csv [--fit NAME,...] [--max-sms N]

PCTW.csv: harness/mps_pctw_summary.py's output.  For every triad row (dram bytes as
mps_pctw_predict.py gives them: 48 B per float4 of work) on at most --max-sms SMs (default 32: a
quarter of the GPU or fewer, where one SM's throughput and not the GPU's bounds the kernel), the
bytes per µs per SM it moved (span, the SMs its blocks used) against its resident warps per SM in
the first wave.  Tmax and W0 by least squares over the rows of the kernels named in --fit (default
triad_6272, triad1_128, triad1_32, triad_1: the triads of one float4 a thread); the other rows are printed
as predicted.  Prints the rows and the fit (GB/s per SM, warps).
"""
import argparse
import csv

ap = argparse.ArgumentParser()
ap.add_argument("pctw")
ap.add_argument("--fit", default="triad_6272,triad1_128,triad1_32,triad_1")
ap.add_argument("--max-sms", type=int, default=32)
a = ap.parse_args()
FIT = set(a.fit.split(","))


def model(tm, w0, w):
    return tm * w / (w + w0)


def fit(pts):
    """(Tmax, W0) minimising the squared error; Tmax in closed form per W0 on a grid."""
    best = None
    for i in range(1, 4001):
        w0 = i * 0.05
        f = [w / (w + w0) for w, _ in pts]
        tm = sum(fi * t for fi, (_, t) in zip(f, pts)) / sum(fi * fi for fi in f)
        e = sum((tm * fi - t) ** 2 for fi, (_, t) in zip(f, pts))
        if best is None or e < best[0]:
            best = (e, tm, w0)
    return best


rows = []
for r in csv.DictReader(open(a.pctw)):
    if r["kind"] != "triad" or int(r["sms"]) > a.max_sms:
        continue
    g, t, w = int(r["grid"]), int(r["threads"]), int(r["work"])
    warps = float(r["first_wave_blocks_per_sm"]) * (t // 32)
    gbps = g * t * w * 48 / float(r["span_us"]) / 1e3 / int(r["sms"])
    rows.append((r["setting"], r["name"], int(r["sms"]), warps, gbps))
pts = [(w, t) for s, n, _, w, t in rows if n in FIT]
e, tm, w0 = fit(pts)
print("setting,kernel,sms,warps_per_sm,meas_gbps_per_sm,model_gbps_per_sm,role")
for s, n, sms, w, t in rows:
    print(f"{s},{n},{sms},{w:.1f},{t:.1f},{model(tm, w0, w):.1f},{'fitted' if n in FIT else 'predicted'}")
print(f"# fit on {len(pts)} rows: dram_sm_gbps_max {tm:.1f} GB/s, dram_sm_half_warps {w0:.2f}, "
      f"rms {(e / len(pts)) ** 0.5:.2f} GB/s")
