#!/usr/bin/env python3
"""Part P's tables (FINDINGS.md §41): where blocks go when MPS clients' kernels wait.

  python3 harness/mps_place_summary.py [DIR] [--hqsim BUILD/hqsim] [--models-dir DIR]

DIR: traces/measured/h100/mpsplace (harness/mps_place_data.py).  Prints
  1. head of line: the later kernel's launch, its first block's start and the earlier kernel's last
     block start (µs from the first block), one process with two streams and two MPS clients;
  2. the GEMM-like client 0 beside 0, 1, 3 streaming clients: its kernels' duration (mean, p90), its
     blocks' time (p50; thread 0's start to end), the streaming clients' kernel duration and every
     client's span; with --hqsim, the same read from hqsim's --csv of each experiment written as a
     scenario (each process's pattern, MPS clients at 100%, host gaps as the spec's sleeps: the
     barrier's start skew, ~20-50 µs, is not replayed);
  3. one process (physical SM ids): how many streaming blocks share the SM a GEMM-like block starts on.
Kernels 10..89 of client 0 (the first and last ten see the others start and stop).  Standard library only.
"""
import argparse
import bisect
import csv
import gzip
import json
import os
import statistics as st
import subprocess
import tempfile
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ap = argparse.ArgumentParser()
ap.add_argument("dir", nargs="?", default=os.path.join(ROOT, "traces/measured/h100/mpsplace"))
ap.add_argument("--hqsim", default=None)
ap.add_argument("--models-dir", default=None)
a = ap.parse_args()
man = {e["id"]: e for e in json.load(open(os.path.join(a.dir, "manifest.json")))["experiments"]}


def ops(name):
    with open(os.path.join(a.dir, man[name]["files"]["ops"])) as f:
        return [r for r in csv.DictReader(f)]


def blocks(name):
    with gzip.open(os.path.join(a.dir, man[name]["files"]["blocks"]), "rt") as f:
        return [r for r in csv.DictReader(f)]


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]


def hol():
    print("1. Head of line (µs from the first block): B = 132 small blocks launched while 132 of A's 396 "
          "100-KiB blocks wait for room")
    print("| run | B launched | B's first block | A's last block start | B's last block end |")
    print("|---|---|---|---|---|")
    for name in sorted(n for n in man if n.startswith("p_hol")):
        o, b = ops(name), blocks(name)
        t0 = min(int(r["start_ns"]) for r in b)
        kern = [r for r in o if r["type"] == "kernel"]
        ka, kb = kern[0], kern[1]
        bb = [r for r in b if (r["process"], r["op"]) == (kb["process"], kb["op"])]
        ba = [r for r in b if (r["process"], r["op"]) == (ka["process"], ka["op"])]
        print(f"| {name} | {(int(kb['launch_ns']) - t0) / 1e3:.1f} | "
              f"{(min(int(r['start_ns']) for r in bb) - t0) / 1e3:.1f} | "
              f"{(max(int(r['start_ns']) for r in ba) - t0) / 1e3:.1f} | "
              f"{(max(int(r['end_ns']) for r in bb) - t0) / 1e3:.1f} |")


def scenario(name):
    """The experiment as an hqsim scenario: each process's spec pattern in an MPS client (or the
    one process's streams), wall-clock kernels by their time, the FMA kernel by its solo time."""
    e = man[name]
    solo = {}
    for r in ops(name):
        if r["type"] == "kernel" and r["solo_ns"]:
            solo[(r["kind"], r["grid"])] = int(r["solo_ns"]) / 1e3
    procs = []
    for p in e["processes"]:
        pat = e["patterns"][p["spec"]]
        streams = [{"name": f"s{s['index']}", "priority": s["priority"]} for s in pat["streams"]]
        ol = []
        for o in pat["ops"]:
            if o["type"] == "host_sleep":
                ol.append({"op": "host_gap", "duration_us": o["us"]})
            elif o["type"] == "kernel":
                k = {"op": "kernel", "name": o["name"], "stream": f"s{o['stream']}", "grid": o["grid"],
                     "block": o["block"], "regs_per_thread": 16, "dynamic_smem_bytes": o["dyn_smem"]}
                if o["kind"] == "gt":
                    k.update(block_time_us=o["work"] / 1e3, wall_clock=True)
                else:
                    k.update(duration_us=solo[(o["kind"], str(o["grid"]))], ilp=o["chains"])
                ol.append(k)
        ol.append({"op": "device_sync"})
        procs.append({"name": f"p{p['index']}", "mps": bool(p["mps_client"]), "streams": streams, "ops": ol})
    return {"hqsim_scenario": 1, "gpu": "h100-sxm", "processes": procs}


def hqsim_kernels(name):
    """{process index: [(start_us, end_us, grid)]} from hqsim's --csv of the experiment."""
    with tempfile.TemporaryDirectory() as d:
        sc, out = os.path.join(d, "s.json"), os.path.join(d, "o.csv")
        json.dump(scenario(name), open(sc, "w"))
        cmd = [a.hqsim, "run", "-q", sc, "--csv", out] + (["--models-dir", a.models_dir] if a.models_dir else [])
        subprocess.run(cmd, check=True, capture_output=True)
        res = defaultdict(list)
        for r in csv.DictReader(open(out)):
            if r["kind"] == "kernel":
                res[int(r["process"][1:])].append((float(r["start_us"]), float(r["end_us"]), int(r["blocks"])))
        return res


def stats(ks):
    """kernels of client 0 (the GEMM-like ones, 52 blocks) and the others: mean / p90 µs, spans ms."""
    a0 = [e - s for s, e, g in ks.get("a", [])][10:90]
    oth = [e - s for c, v in ks.items() if c != "a" for s, e, g in v]
    span = {c: (max(e for s, e, g in v) - min(s for s, e, g in v)) / 1e3 for c, v in ks.items()}
    return a0, oth, span


def measured_kernels(name):
    ks = defaultdict(list)
    for r in ops(name):
        if r["type"] == "kernel":
            c = "a" if r["grid"] == "52" else r["process"]
            ks[c].append((int(r["start_ns"]) / 1e3, int(r["end_ns"]) / 1e3, int(r["grid"])))
    return ks


def gw():
    print("\n2. The GEMM-like client (52 blocks x 256 threads, 120 KiB; kernels 10..89) beside streaming clients "
          "(b: 512 x 128 threads, no shared memory; c: 512 x 256, 24 KiB; 5 µs wall-clock blocks)")
    hdr = "| experiment | GEMM-like kernel µs mean / p90 | its blocks µs p50 | others' kernel µs mean | spans ms (A; others) |"
    if a.hqsim:
        hdr += " hqsim: GEMM-like mean / p90 | others' mean | spans |"
    print(hdr)
    print("|---" * (hdr.count("|") - 1) + "|")
    for name in [n for n in man if n.startswith("p_gw") and not n.endswith("_1p")]:
        mk = measured_kernels(name)
        a0, oth, span = stats(mk)
        bl = [int(r["end_ns"]) - int(r["start_ns"]) for r in blocks(name) if r["process"] == "0"]
        row = (f"| {name} | {st.mean(a0):.2f} / {q(a0, .9):.2f} | {q(bl, .5) / 1e3:.2f} | "
               f"{st.mean(oth):.2f} | " if oth else f"| {name} | {st.mean(a0):.2f} / {q(a0, .9):.2f} | "
               f"{q(bl, .5) / 1e3:.2f} | – | ")
        row += f"{span['a']:.3f}; " + " ".join(f"{span[c]:.3f}" for c in sorted(span) if c != "a") + " |"
        if a.hqsim:
            hk = hqsim_kernels(name)
            hk = {("a" if c == 0 else str(c)): v for c, v in hk.items()}
            h0, ho, hs = stats(hk)
            row += (f" {st.mean(h0):.2f} / {q(h0, .9):.2f} | " + (f"{st.mean(ho):.2f}" if ho else "–") + " | "
                    + f"{hs['a']:.3f}; " + " ".join(f"{hs[c]:.3f}" for c in sorted(hs) if c != "a") + " |")
        print(row)


def coresidence():
    name = "p_gw_gt_c_1p"
    if name not in man:
        return
    o = {r["op"]: r for r in ops(name) if r["type"] == "kernel"}
    b = blocks(name)
    by = defaultdict(list)
    for r in b:
        if o[r["op"]]["grid"] == "512":
            by[int(r["smid"])].append((int(r["start_ns"]), int(r["end_ns"])))
    starts = {sm: sorted(s for s, e in v) for sm, v in by.items()}
    ends = {sm: sorted(e for s, e in v) for sm, v in by.items()}

    def running(sm, t):  # blocks started at or before t that end after t
        return bisect.bisect_right(starts[sm], t) - bisect.bisect_right(ends[sm], t)
    cnt, least = Counter(), []
    for r in b:
        if o[r["op"]]["grid"] != "52":
            continue
        t = int(r["start_ns"])
        cnt[running(int(r["smid"]), t)] += 1
        least.append(min(running(sm, t) for sm in starts))
    n = sum(cnt.values())
    print(f"\n3. One process, physical SMs ({name}): streaming blocks (24 KiB, 8 warps) running on the SM where a "
          f"GEMM-like block (120 KiB) starts, share of its {n} blocks: "
          + ", ".join(f"{k}: {v / n:.1%}" for k, v in sorted(cnt.items()))
          + f"; the least-loaded SM at that instant held {st.mean(least):.2f} on average")


hol()
gw()
coresidence()
