#!/usr/bin/env python3
"""The memory-path wait by kernel length, measured and hqsim (FINDINGS §65, issue 10, rt10).

    python3 harness/memtrip_bins.py RAW OUT.csv [--hqsim build/hqsim] [--gpu MODEL] [--victims encoder,cnn]

RAW: traces/measured/h100/mpspct/disj/fend/val/graph.tar.gz unpacked (§64's runs). Per victim,
neighbour (gdramt32 / gdram / gdramt512 at 50% threads) and bin of a kernel's alone time
(harness/mps_disj_nb_kernels.py's bins: < 1.5, 1.5-2, 2-3, 3-5, >= 5 us), the time added a request
to the kernels of the bin, each with the node gap before it: hqsim's memory-path wait is a start
delay, which the node gap carries, the GPU's is inside the kernel. Measured: per graph position,
the median over rank 0's 16 Kineto requests of (kernel + gap before it) beside the neighbour less
alone, summed over the bin's positions. hqsim: harness/lat_replay.py --victim --bins with MODEL
(default models/h100-sxm.json), the victim's profile as the serving table runs it (encoder b1 with
openloop/ncu/'s file, resnet50 on its bare trace). The two graphs are not node for node the same
(hqsim's profile is the 100% run's), so a bin's kernel counts are printed for each.
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
ROOT = os.path.dirname(HERE)
BINS = ((0, 1.5), (1.5, 2), (2, 3), (3, 5), (5, float("inf")))
NEIGHBOURS = {"gdramt32": "p50_gdramlo", "gdram": "p50_gdram", "gdramt512": "p50_gdramhi"}
SUFFIX = {"decoder": "", "encoder": "_enc", "cnn": "_cnn"}
PROFILE = {"decoder": [], "encoder": [], "cnn": ["--ncu", "none"]}


def positions(raw, tag, victim):
    """Per graph position of rank 0's 16 requests: the median kernel us and kernel + gap-before us."""
    p = os.path.join(raw, "kineto", tag, f"{victim}_b1_n1.json.gz")
    ks = sorted((e for e in json.load(gzip.open(p))["traceEvents"] if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    if not ks or len(ks) % 16:
        raise SystemExit(f"{p}: {len(ks)} kernels, not 16 equal requests")
    per = len(ks) // 16
    reqs = [ks[r * per:(r + 1) * per] for r in range(16)]
    kern = [statistics.median(q[i]["dur"] for q in reqs) for i in range(per)]
    full = [statistics.median(q[i]["dur"] + (q[i]["ts"] - q[i - 1]["ts"] - q[i - 1]["dur"] if i else 0) for q in reqs)
            for i in range(per)]
    return kern, full


def measured(raw, victim, nb):
    alone_k, alone_f = positions(raw, f"p50none{SUFFIX[victim]}_n1", victim)
    _, with_f = positions(raw, f"p50{nb}{SUFFIX[victim]}_n1", victim)
    out = {}
    for lo, hi in BINS:
        sel = [i for i, k in enumerate(alone_k) if lo <= k < hi]
        if sel:
            out[f"{lo}-{hi}"] = (len(sel), sum(with_f[i] - alone_f[i] for i in sel))
    return out


def hqsim_bins(hqsim, victim, gpu):
    with tempfile.NamedTemporaryFile(suffix=".csv") as f:
        cmd = ["python3", os.path.join(HERE, "lat_replay.py"), "--hqsim", hqsim, "--victim", victim, *PROFILE[victim],
               "--cases", "p50_alone," + ",".join(NEIGHBOURS.values()), "--bins", f.name]
        if gpu:
            cmd += ["--extra", f"--gpu {gpu}"]
        subprocess.run(cmd, capture_output=True, text=True, check=True)
        rows = list(csv.DictReader(open(f.name)))
    return {(r["case"], r["alone_us_bin"]): (float(r["kernels_per_request"]), float(r["hqsim_added_us_per_request"]))
            for r in rows}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("out")
    ap.add_argument("--hqsim", default=os.path.join(ROOT, "build", "hqsim"))
    ap.add_argument("--gpu", default=None, help="a model file for hqsim (default: models/h100-sxm.json)")
    ap.add_argument("--victims", default="encoder,cnn")
    a = ap.parse_args()
    head = ["victim", "neighbour", "alone_us_bin", "measured_kernels_per_request", "measured_added_us_per_request",
            "hqsim_kernels_per_request", "hqsim_added_us_per_request"]
    rows = []
    for v in a.victims.split(","):
        h = hqsim_bins(os.path.abspath(a.hqsim), v, a.gpu)
        for nb, case in NEIGHBOURS.items():
            for b, (n, added) in measured(a.raw, v, nb).items():
                hn, ha = h.get((case, b), (0.0, 0.0))
                rows.append([v, nb, b, n, f"{added:.1f}", f"{hn:.1f}", f"{ha:.1f}"])
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        w.writerows(rows)
    for r in [head] + rows:
        print(",".join(str(x) for x in r))


if __name__ == "__main__":
    main()
