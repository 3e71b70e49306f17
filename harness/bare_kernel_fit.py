#!/usr/bin/env python3
"""Default issue share and DRAM throughput of kernels a bare trace gives no Nsight Compute data for.

  bare_kernel_fit.py [--fit decoder_b1_graph,decoder_b16_graph,cnn_b1_graph] [--json OUT.json]

A bare trace (Kineto, nsys, nvprof) has a kernel's name, grid, block, registers, shared memory and
duration, not what ncu measures.  This script classifies each kernel by its name (CLASSES below, the
same ordered table as models/h100-sxm.json's "bare_kernel_classes": first pattern found in the
name wins) and models ncu's "Issue Slots Busy" and "DRAM Throughput" (both % of the whole GPU's
peak, so a kernel of few blocks shows little) as
    value = min(100, rate[class] * warps_avg),
    warps_avg = its warps resident per SM in its first wave, averaged over all SMs
              = per_sm * warps_per_block * min(blocks, SMs) / SMs,
    per_sm    = min(blocks per SM its occupancy allows, ceil(blocks / SMs)),
rate[class] being the median of value / warps_avg over the class's kernel launches of the FIT
configurations.  Every other configuration is predicted.  Data (H100 SXM, all measured by ncu, one
record per kernel launch of one request):
  traces/measured/h100/openloop/ncu/<config>.csv.gz   decoders, encoders (harness/ncu_request.py)
  traces/measured/h100/mpspct/ncu/cnn_b{1,8}_graph.csv.gz   resnet50 b1, b8 graph (the same)
  traces/measured/h100/dnn/ncu.csv.gz                 nine large library kernels (part L)
Prints per class: the fitted rates, and the error on the held-out launches (median and
time-weighted mean absolute error in percentage points, median ratio predicted / measured), beside
the old assumption's (every warp a dependent FMA chain, as ncu would count it; no DRAM throughput).
models/h100-sxm.json takes the issue rates (sgemm: 0, the old assumption) and leaves every DRAM
rate at 0 (FINDINGS.md 56: held out up to 3x off, and bare runs became far slower); hqsim uses them
only with --bare-classes.
"""
import argparse
import csv
import gzip
import json
import math
import os
import re
import statistics as st

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
H = os.path.join(ROOT, "traces/measured/h100")
SMS, MAX_WARPS, MAX_BLOCKS, REGS, SMEM = 132, 64, 32, 65536, 233472  # H100 SXM (models/h100-sxm.json)

# Ordered: the first class with a pattern found in the kernel's name (case-insensitive) wins.
# KEEP: classes that keep the old assumption (every warp a dependent FMA chain, no DRAM throughput):
# CUDA-core FP32 GEMMs issue an FFMA stream, and on the held-out data the old assumption is closer
# for them than any per-warp rate (see the printed "old" columns).
KEEP = {"sgemm"}
CLASSES = [
    ("gemv", ["gemv"]),
    ("sgemm", ["ffma", "simt", "sgemm", "_f32f32_f32f32_f32"]),
    ("gemm", ["gemm", "xmma", "cutlass", "nvjet", "fmha", "conv", "attention"]),
    ("norm", ["norm", "softmax", "reduce", "pool", "bn_fw"]),
    ("elementwise", ["elementwise", "copy", "index", "nchwtonhwc", "nhwctonchw", "scal_kernel", "transpose",
                     "fill"]),
    ("other", [""]),
]


def klass(name):
    n = name.lower()
    for c, pats in CLASSES:
        if any(p in n for p in pats):
            return c
    return "other"


def dims(s):
    return [int(x) for x in re.findall(r"\d+", s)][:3]


def ncu_rows(text):
    r = list(csv.reader(l for l in text.splitlines() if l.startswith('"')))
    h, ks = r[0], {}
    for x in r[1:]:
        d = dict(zip(h, x))
        k = ks.setdefault(d["ID"], {"name": d["Kernel Name"], "grid": dims(d["Grid Size"]),
                                    "block": dims(d["Block Size"])})
        try:
            k[d["Metric Name"]] = float(d["Metric Value"].replace(",", ""))
        except ValueError:
            pass
    return list(ks.values())


def kineto(cfg):
    t = json.load(gzip.open(os.path.join(H, "launch/kineto", cfg + ".json.gz")))
    ks = [e for e in t["traceEvents"] if e.get("cat") in ("kernel", "Kernel")]
    ks.sort(key=lambda e: e["ts"])
    return ks


def load():
    out = {}
    for sub, cfg in (("openloop/ncu", "decoder_b1_graph"), ("openloop/ncu", "decoder_b16_graph"),
                     ("mpspct/ncu", "cnn_b1_graph"), ("openloop/ncu", "encoder_b1_graph"),
                     ("openloop/ncu", "encoder_b8_graph"), ("mpspct/ncu", "cnn_b8_graph")):
        ks = ncu_rows(gzip.open(os.path.join(H, sub, cfg + ".csv.gz"), "rt").read())
        tk = kineto(cfg)
        assert len(ks) == len(tk), cfg
        for k, e in zip(ks, tk):  # ncu_request.py: one record per trace kernel, in order
            k["name"] = e["name"]  # the trace's full name (ncu's is cut to 80 characters)
            k["dur_us"] = e["dur"]
            k["smem"] = e["args"].get("shared memory", 0)
        out[cfg] = ks
    out["dnn_library"] = ncu_rows(gzip.open(os.path.join(H, "dnn/ncu.csv.gz"), "rt").read())
    for cfg in ("dnn_library",):
        for k in out[cfg]:
            k["dur_us"] = k.get("Duration", 0) / 1000.0  # ns
            k["smem"] = k.get("Static Shared Memory Per Block", 0) + k.get("Dynamic Shared Memory Per Block", 0)
    return out


def warps_avg(k):
    blocks = math.prod(k["grid"])
    threads = math.prod(k["block"])
    wpb = (threads + 31) // 32
    regs = int(k.get("Registers Per Thread", 32)) or 32
    o = min(MAX_BLOCKS, MAX_WARPS // wpb, REGS // (wpb * 32 * ((regs + 7) // 8 * 8)))
    if k.get("smem"):
        o = min(o, SMEM // int(k["smem"]))
    per_sm = min(max(o, 1), (blocks + SMS - 1) // SMS)
    return per_sm * wpb * min(blocks, SMS) / SMS, per_sm * wpb, min(blocks, SMS) / SMS


# The old assumption (the default without --bare-classes), as Nsight Compute would count it: every warp a dependent FMA
# chain, so an SM holding W of them issues the curve's rate(W) lone-warp speeds, full speed up to
# 4 warps, saturating at 7.9 = 57.9% issue slots (models/h100-sxm.json, FINDINGS.md 5 and 16),
# on min(blocks, SMs) of the SMs.  It gives no DRAM throughput.
L0, TS, SAT_PCT = 4.0, 7.9, 57.9


def old_issue_pct(w_sm, cover):
    rate = w_sm if w_sm <= L0 else TS - (TS - L0) * math.exp(-(w_sm - L0) / (TS - L0))
    return SAT_PCT * rate / TS * cover


METRICS = (("issue", "Issue Slots Busy"), ("dram", "DRAM Throughput"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fit", default="decoder_b1_graph,decoder_b16_graph,cnn_b1_graph")
    ap.add_argument("--json", default=None, help="write the fitted rates here")
    a = ap.parse_args()
    data = load()
    fit = a.fit.split(",")
    for ks in data.values():
        for k in ks:
            k["class"] = klass(k["name"])
            k["w"], w_sm, cover = warps_avg(k)
            k["old_issue"] = old_issue_pct(w_sm, cover)
    rates = {}
    print(f"fit on: {', '.join(fit)}; predicted: {', '.join(c for c in data if c not in fit)}")
    print("class        fit launches  issue %/warp  DRAM %/warp")
    for c, _ in CLASSES:
        ks = [k for f in fit for k in data[f] if k["class"] == c]
        rates[c] = {m: (st.median(k[col] / k["w"] for k in ks) if ks else None) for m, col in METRICS}
        if not ks:  # no launch of the class in the fit set: the whole fit set's median
            for m, col in METRICS:
                rates[c][m] = st.median(k[col] / k["w"] for f in fit for k in data[f])
        print(f"{c:12} {len(ks):12}  {rates[c]['issue']:12.4f}  {rates[c]['dram']:11.4f}"
              + ("  (fitted, not used: the class keeps the old assumption)" if c in KEEP else ""))
    print()
    print("held-out error, per class (absolute error in percentage points of the GPU's peak; ratio predicted/measured)")
    print("(old: every warp a dependent FMA chain, the default without --bare-classes; its DRAM throughput is none, so its DRAM error is "
          "the measured value)")
    print("config             class        n  | issue: meas med  pred med  |err| med  |err| time-wtd  ratio med  "
          "old |err| med  old |err| t-wtd "
          "| DRAM: meas med  pred med  |err| med  |err| time-wtd  ratio med")
    for cfg in [c for c in data if c not in fit]:
        for c, _ in CLASSES:
            ks = [k for k in data[cfg] if k["class"] == c]
            if not ks:
                continue
            row = f"{cfg:18} {c:12} {len(ks):4} "
            wsum = sum(k["dur_us"] for k in ks) or 1
            for m, col in METRICS:
                pred = [min(100.0, rates[c][m] * k["w"]) for k in ks]
                if c in KEEP:
                    pred = [k["old_issue"] if m == "issue" else 0.0 for k in ks]
                meas = [k[col] for k in ks]
                err = [abs(p - q) for p, q in zip(pred, meas)]
                werr = sum(e * k["dur_us"] for e, k in zip(err, ks)) / wsum
                ratio = st.median(p / q for p, q in zip(pred, meas) if q > 0) if any(q > 0 for q in meas) else float("nan")
                row += f"|  {st.median(meas):14.2f} {st.median(pred):9.2f} {st.median(err):9.2f} {werr:14.2f} {ratio:10.2f} "
                if m == "issue":
                    oerr = [abs(k["old_issue"] - k[col]) for k in ks]
                    owerr = sum(e * k["dur_us"] for e, k in zip(oerr, ks)) / wsum
                    row += f"{st.median(oerr):14.2f} {owerr:15.2f} "
            print(row)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"fit": fit, "rates": rates, "keep": sorted(KEEP)}, f, indent=1)


if __name__ == "__main__":
    main()
