#!/usr/bin/env python3
"""Host cores as a shared resource (issue 10, item 3): N closed-loop PyTorch processes
(torch_infer.py, resnet18 batch 8) restricted with `taskset` to 1, 2, 4 and 8 CPU cores,
without MPS; each process's requests logged as in traces/measured/h100/pytorch/.

  python3 hostcores.py --raw DIR [--nproc 8] [--cores 1,2,4,8] [--nreq 200] [--mock]

Writes DIR/hostcores_n{N}_c{C}_requests.csv (process,pid,request,start_ns,end_ns,
latency_ns; times relative to the first request of the run) and DIR/meta.json (GPU,
driver, torch, date, the machine's CPUs, per-run wall time and return codes).
--mock writes nothing to the GPU: it checks the commands and file handling only.
"""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mp  # noqa: E402  (the campaign's process groups, barrier and logs)


def compact(raw_dir, nproc, out_csv):
    """p{i}_requests.csv of one group -> one CSV in the committed format."""
    rows = []
    for i in range(nproc):
        f = os.path.join(raw_dir, f"p{i}_requests.csv")
        if not os.path.exists(f):
            continue
        for r in csv.DictReader(open(f)):
            rows.append((i, int(r["pid"]), int(r["i"]), int(r["t0_ns"]), int(r["t1_ns"])))
    if not rows:
        return 0
    t0 = min(r[3] for r in rows)
    with open(out_csv, "w") as f:
        f.write("process,pid,request,start_ns,end_ns,latency_ns\n")
        for p, pid, i, a, b in sorted(rows):
            f.write(f"{p},{pid},{i},{a - t0},{b - t0},{b - a}\n")
    return len(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--nproc", type=int, default=8)
    ap.add_argument("--cores", default="1,2,4,8")
    ap.add_argument("--nreq", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--timeout", type=int, default=150)
    ap.add_argument("--mock", action="store_true")
    a = ap.parse_args()
    mp.MOCK = a.mock
    c = mp.Campaign(os.path.join(a.raw, "groups"))
    meta = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cpus": os.cpu_count(),
            "affinity": sorted(os.sched_getaffinity(0)), "nproc": a.nproc, "nreq": a.nreq,
            "warmup": a.warmup, "model": "resnet18", "batch": 8, "mps": False, "runs": []}
    if not a.mock:
        meta["gpu_driver"] = mp.sh("nvidia-smi --query-gpu=name,driver_version --format=csv,noheader")[1].strip()
    ti = os.path.join(HERE, "torch_infer.py")
    cpus = sorted(os.sched_getaffinity(0))
    for ncore in [int(x) for x in a.cores.split(",")]:
        name = f"hostcores_n{a.nproc}_c{ncore}"
        cores = ",".join(str(x) for x in cpus[:ncore])
        exe = ["taskset", "-c", cores, sys.executable]
        args = [ti, "--out", "{out}", "--nreq", str(a.nreq), "--warmup", str(a.warmup),
                "--model", "resnet18", "--batch", "8"]
        info = c.group(name, [{"exe": exe, "args": args}] * a.nproc, barrier=True,
                       timeout=a.timeout, ready_timeout=a.timeout)
        n = compact(os.path.join(c.raw, name), a.nproc, os.path.join(a.raw, name + "_requests.csv"))
        meta["runs"].append({"name": name, "cores": cores, "wall_s": info["wall_s"], "rcs": info["rcs"],
                             "requests": n})
    m0 = sorted(glob.glob(os.path.join(c.raw, "*", "p0_meta.json")))
    if m0:
        pm = json.load(open(m0[0]))
        meta.update({k: pm.get(k) for k in ("torch", "torchvision", "cuda", "cudnn", "device")})
    with open(os.path.join(a.raw, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(json.dumps(meta["runs"]))


if __name__ == "__main__":
    main()
