#!/usr/bin/env python3
"""Part L predictions (issue 11): real library kernels together, predicted from each kernel alone.

  torch_pairs_predict.py [--hqsim build/hqsim] [--data traces/measured/h100] [--filter RE]
                         [--kernels] [--keep DIR]

For every experiment of DATA/dnn/manifest.json this writes an hqsim scenario built from the SOLO
data only -- each kernel's launch shape, registers, shared memory (static/dynamic), its median
duration alone (duration_us) and Nsight Compute's issue slots busy (sm_intensity) and DRAM bytes
(dram_bytes) -- plus the host's calls at their recorded times (at_us, api_us: launches, one
synchronize per stream at the recorded cudaDeviceSynchronize), runs `hqsim run --csv` on it, and
compares every kernel's predicted end with its measured end and each iteration's makespan (first
launch call to last kernel end) with the measurement.  This is the scenario `hqsim validate`
builds from the same ops CSVs (sim/validate.c), written out so it can be read, run and changed.

Prints one row per experiment (median over iterations of the makespan error; median and share
within 10% of the span of the kernel end-time errors; the makespan errors of two naive predictions
from the same inputs: "serial", every kernel after the previous one in launch order, and
"overlap", every kernel at its solo speed from its launch as if alone), --kernels one row per
kernel (median over iterations), and the summary per category.  Nothing of part L is fitted:
every row is a prediction.
"""
import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

LAUNCH_NS = 3000  # the H100 model's launch path (submit + kernel launch latency), for the naive columns


def scenario(exp, rows):
    """Native scenario of one experiment (the rows of its ops CSV) and the measured kernels as
    {(process index, op index in that process): row}."""
    origin = min(int(r["launch_ns"]) for r in rows)
    procs, measured = [], {}
    for p in sorted({int(r["process"]) for r in rows}):
        mine = [r for r in rows if int(r["process"]) == p]
        first = min(int(r["launch_ns"]) for r in mine)
        pe = next(x for x in exp["processes"] if x["index"] == p)
        streams, ops = [], []
        for r in mine:
            s = f"s{r['stream']}"
            if s not in streams:
                streams.append(s)
            op = {"stream": s, "at_us": max(0.001, (int(r["launch_ns"]) - first) / 1e3)}
            if r["type"] == "kernel":
                op.update({"op": "kernel", "name": r["name"], "grid": int(r["grid"]), "block": int(r["block"]),
                           "regs_per_thread": int(r["regs_per_thread"]),
                           "static_smem_bytes": int(r["static_smem"]), "dynamic_smem_bytes": int(r["dyn_smem"]),
                           "duration_us": int(r["solo_ns"]) / 1e3, "api_us": int(r["api_ns"]) / 1e3})
                if r["sm_issue_pct"]:
                    op["sm_intensity"] = min(float(r["sm_issue_pct"]) / 100, 1.0)
                if r.get("sm_pipe_pct"):
                    op["sm_pipe_share"] = min(float(r["sm_pipe_pct"]) / 100, 1.0)
                if r["dram_bytes"]:
                    op["dram_bytes"] = int(r["dram_bytes"])
                measured[(p, len(ops))] = r
            elif r["type"] == "memset":
                # GPU work of the context (a one-warp block for its solo time), not compared:
                # sim/validate.c replays it the same way
                op.update({"op": "kernel", "name": r["name"], "grid": 1, "block": 32, "regs_per_thread": 16,
                           "duration_us": int(r["solo_ns"]) / 1e3, "api_us": int(r["api_ns"]) / 1e3})
            elif r["type"] == "stream_synchronize":
                op["op"] = "stream_sync"
            else:
                raise SystemExit(f"{exp['id']}: op type {r['type']} not handled")
            ops.append(op)
        procs.append({"name": f"p{p}", "start_us": (first - origin) / 1e3, "mps": pe["mps_client"],
                      "streams": [{"name": s} for s in streams], "ops": ops})
    return {"hqsim_scenario": 1, "description": exp["measures"], "gpu": "h100-sxm", "processes": procs}, measured


def predict(hq, exp, rows, keep):
    sc, measured = scenario(exp, rows)
    with tempfile.TemporaryDirectory() as td:
        d = keep or td
        sp, cp = os.path.join(d, exp["id"] + ".json"), os.path.join(d, exp["id"] + "_ops.csv")
        with open(sp, "w") as f:
            json.dump(sc, f, indent=1)
        r = subprocess.run([hq, "run", sp, "--mode", "scenario", "--no-jitter", "--csv", cp],
                           capture_output=True, text=True)
        if r.returncode:
            raise SystemExit(f"{exp['id']}: hqsim run failed: {r.stderr.strip()}")
        sim = list(csv.DictReader(open(cp)))
    return sim, measured


def col(row, *names):
    for n in names:
        if n in row and row[n] != "":
            return row[n]
    raise KeyError(names[0])


def compare(exp, sim, measured, origin):
    """Per iteration makespan errors, per kernel end errors (relative to the iteration's span).
    @origin: the scenario's time zero, the first launch call of any row (a memset's may come
    before the first kernel's)."""
    ends = {}
    for s in sim:
        if col(s, "kind", "type") != "kernel":
            continue
        p = int(re.sub(r"\D", "", col(s, "process", "proc")) or 0)
        ends[(p, int(col(s, "op_index", "op")))] = float(col(s, "end_us")) * 1e3
    its = {}
    for key, r in measured.items():
        its.setdefault(int(r["iteration"]), []).append((key, r))
    span_err, kern, naive = [], {}, {"serial": [], "overlap": []}
    for it, lst in sorted(its.items()):
        first = min(int(r["launch_ns"]) - origin for _, r in lst)
        mend = max(int(r["end_ns"]) - origin for _, r in lst)
        pend = max(ends[k] for k, _ in lst)
        span = mend - first
        span_err.append((pend - mend) / span)
        # two naive predictions from the same inputs, to say how much the experiment tells apart:
        # every kernel one after another in launch order, or every kernel at full speed from its
        # launch (LAUNCH_NS after the call), as if alone on the GPU
        t, ov = 0, 0
        for _, r in sorted(lst, key=lambda kr: int(kr[1]["launch_ns"])):
            ready = int(r["launch_ns"]) - origin + LAUNCH_NS
            t = max(t, ready) + int(r["solo_ns"])
            ov = max(ov, ready + int(r["solo_ns"]))
        naive["serial"].append((t - mend) / span)
        naive["overlap"].append((ov - mend) / span)
        for k, r in lst:
            e = (ends[k] - (int(r["end_ns"]) - origin)) / span
            kern.setdefault(f"p{r['process']}:{r['name']}", []).append(e)
    return span_err, kern, {k: statistics.median(v) for k, v in naive.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--hqsim", default="build/hqsim")
    ap.add_argument("--data", default="traces/measured/h100")
    ap.add_argument("--filter", default="")
    ap.add_argument("--kernels", action="store_true")
    ap.add_argument("--keep", help="write the scenarios and hqsim's per-op CSVs here")
    ap.add_argument("--entries", action="store_true",
                    help="print tests/test_dnn.c's table instead: each experiment's |makespan error| and "
                         "median |end error| from `hqsim validate` today, x1.25 + 2 points")
    a = ap.parse_args()
    if a.entries:
        out = subprocess.run([a.hqsim, "validate", a.data, "--filter", "^ls?_"], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            m = re.match(r"(ls?_\w+)\s+\S+\s+valid\s+\d+\s+[\d.]+\s+[\d.]+\s+([-+\d.]+)%\s+([\d.]+)%", line)
            if m:
                e, ee = abs(float(m[2])) / 100, float(m[3]) / 100
                print(f'    {{"{m[1]}", {1.25 * e + 0.02:.3f}, {1.25 * ee + 0.02:.3f}}},')
        return 0
    man = json.load(open(os.path.join(a.data, "dnn", "manifest.json")))
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
    print(f"{'experiment':<22} {'category':<14} {'measured_ms':>11} {'predicted_ms':>12} {'error':>7} "
          f"{'end_err':>7} {'ends<=10%':>9} {'serial':>7} {'overlap':>7}")
    cats = {}
    for exp in man["experiments"]:
        if not re.search(a.filter, exp["id"]):
            continue
        rows = list(csv.DictReader(open(os.path.join(a.data, exp["files"]["ops"]))))
        sim, measured = predict(a.hqsim, exp, rows, a.keep)
        span_err, kern, nv = compare(exp, sim, measured, min(int(r["launch_ns"]) for r in rows))
        allk = [abs(e) for v in kern.values() for e in v]
        # measured and predicted makespans of the median iteration
        origin = min(int(r["launch_ns"]) for r in measured.values())
        spans = {}
        for r in measured.values():
            it = spans.setdefault(int(r["iteration"]), [1e30, 0])
            it[0] = min(it[0], int(r["launch_ns"]) - origin)
            it[1] = max(it[1], int(r["end_ns"]) - origin)
        mspan = statistics.median(b - f for f, b in spans.values()) / 1e6
        err = statistics.median(span_err)
        within = sum(1 for e in allk if e <= 0.10) / len(allk)
        print(f"{exp['id']:<22} {exp['category']:<14} {mspan:>11.3f} {mspan * (1 + err):>12.3f} "
              f"{100 * err:>+6.1f}% {100 * statistics.median(allk):>6.2f}% {100 * within:>8.0f}% "
              f"{100 * nv['serial']:>+6.1f}% {100 * nv['overlap']:>+6.1f}%")
        if a.kernels:
            for k, v in kern.items():
                print(f"    {k:<30} end error {100 * statistics.median(v):+6.1f}% of the span")
        c = cats.setdefault(exp["category"], {"err": [], "ends": [], "serial": [], "overlap": []})
        c["err"].append(abs(err))
        c["serial"].append(abs(nv["serial"]))
        c["overlap"].append(abs(nv["overlap"]))
        c["ends"] += allk
    print("\nrole       category        n  median  largest  makespans<=10%  ends<=10%  "
          "naive serial / overlap: median, within 10%")
    tot = {"err": [], "ends": [], "serial": [], "overlap": []}
    for name, c in sorted(cats.items()) + [("all", tot)]:
        if name != "all":
            for k in tot:
                tot[k] += c[k]
        if not c["err"]:
            continue
        w = sum(1 for e in c["err"] if e <= 0.10)
        print(f"predicted  {name:<14} {len(c['err']):>2} {100 * statistics.median(c['err']):>6.1f}% "
              f"{100 * max(c['err']):>7.1f}% {w:>6}/{len(c['err'])} ({100 * w / len(c['err']):.0f}%) "
              f"{100 * sum(1 for e in c['ends'] if e <= 0.10) / len(c['ends']):>8.0f}%   "
              + " / ".join(f"{100 * statistics.median(c[k]):.1f}%, {sum(1 for e in c[k] if e <= 0.10)}"
                           for k in ("serial", "overlap")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
