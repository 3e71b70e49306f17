#!/usr/bin/env python3
"""hqsim against harness/mps_pctw_campaign.sh (FINDINGS §46): every kernel of the pctw spec as a
scenario kernel given its measured time alone without MPS (the summary's `nomps` span), its grid,
threads and dynamic shared memory; timer kernels `wall_clock`, memory kernels their DRAM bytes
(`dram_bytes`: triad 48 B per float4, GEMV 16 KiB per row), FMA and SGEMM kernels nothing more
(every warp an ILP-1 chain: what hqsim assumes of a bare trace). Run one at a time (a stream sync
after each) as the only MPS client at 100, 50 and 25% threads; prints and writes per kernel and
setting the measured span and hqsim's duration, and their ratio to the 100% client.
usage: mps_pctw_predict.py HQSIM pctw.csv OUT.csv [HQSIM OPTION...]
(every further argument goes to hqsim: e.g. --models-dir DIR, or --gpu h200 for the H200's
traces/measured/h200/pctw/pctw.csv, FINDINGS §68)"""
import csv
import json
import os
import subprocess
import sys
import tempfile

PCTS = [("mps100", 100), ("mps50", 50), ("mps25", 25)]


def dram_bytes(r):
    g, t, w = int(r["grid"]), int(r["threads"]), int(r["work"])
    if r["kind"] == "triad":
        return g * t * w * 48
    if r["kind"] == "gemv":
        return g * (t // 32) * w * 4096 * 4
    return 0


def kernel(r):
    k = {"op": "kernel", "stream": "s", "name": r["name"], "grid": int(r["grid"]),
         "block": int(r["threads"]), "dynamic_smem_bytes": int(r["smem"]),
         "duration_us": float(r["span_us"])}
    if r["kind"] == "gt":
        k["wall_clock"] = True
    b = dram_bytes(r)
    if b:
        k["dram_bytes"] = b
    return k


def scenario(rows):
    ops = []
    for r in rows:
        ops.append(kernel(r))
        ops.append({"op": "stream_sync", "stream": "s"})
    return {"hqsim_scenario": 1, "description": "pctw kernels one at a time (FINDINGS §46)",
            "gpu": "h100-sxm", "processes": [{"name": "p", "iterations": 1,
                                              "streams": [{"name": "s"}], "ops": ops}]}


def run(hqsim, path, pct, extra):
    out = subprocess.run([hqsim, "run", "-q", "--mode", "mps", "--thread-pct", str(pct), "--csv", "-",
                          path] + extra, check=True, capture_output=True, text=True).stdout
    return {r["name"]: float(r["duration_us"]) for r in csv.DictReader(out.splitlines())
            if r["kind"] == "kernel"}


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    hqsim, summ, out = sys.argv[1:4]
    extra = sys.argv[4:]
    meas = {}
    with open(summ) as f:
        for r in csv.DictReader(f):
            meas[(r["setting"], r["name"])] = r
    base = [r for (s, _), r in meas.items() if s == "nomps"]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "pctw.json")
        with open(path, "w") as f:
            json.dump(scenario(base), f)
        pred = {s: run(hqsim, path, p, extra) for s, p in PCTS}
    rows = []
    for r in base:
        n = r["name"]
        row = {"name": n, "kind": r["kind"], "grid": r["grid"]}
        for s, _ in PCTS:
            m = float(meas[(s, n)]["span_us"])
            row[f"meas_{s}"] = m
            row[f"hqsim_{s}"] = round(pred[s][n], 3)
        for s in ("mps50", "mps25"):
            row[f"meas_x_{s}"] = round(row[f"meas_{s}"] / row["meas_mps100"], 3)
            row[f"hqsim_x_{s}"] = round(row[f"hqsim_{s}"] / row["hqsim_mps100"], 3)
        rows.append(row)
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    for row in rows:
        print(f"{row['name']:12s} x50 meas {row['meas_x_mps50']:6.3f} hqsim {row['hqsim_x_mps50']:6.3f}"
              f"   x25 meas {row['meas_x_mps25']:6.3f} hqsim {row['hqsim_x_mps25']:6.3f}")


if __name__ == "__main__":
    main()
