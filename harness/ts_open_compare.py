#!/usr/bin/env python3
"""hqsim's time-sliced open-loop requests classified as the measured ones (issue 10, FINDINGS §71).

  ts_open_compare.py REQ.csv OUT.csv --dir DIR --gpu MODEL [--hqsim build/hqsim] [--jobs 2]
                     [--groups 2,4,8] [--configs a,b]

REQ.csv: harness/ts_open_classify.py --requests (the measured requests, every one with its
class).  For each no-MPS open phase in it, hqsim replays the same arrivals
(DIR/arrivals/nomps_n<N>_<config>_<loop>.json.gz) as harness/openloop_predict.py does (same
trace, ncu file, host scale from DIR/fits.json, request spread) with --csv; a request's end
is its last op's end plus the process's mean host tail (its mean latency from --json less
the mean of last end - arrival: the synchronize's return and the host's bookkeeping, the
same for every request of a run), its start max(arrival, the previous end), and it is
classified by ts_open_classify.classify.  OUT.csv: per phase and class, the measured and
hqsim's count, median service time of the requests that found their process free
(e - s, us) and median latency (e - a), and their differences.
"""
import argparse
import concurrent.futures
import csv
import gzip
import json
import os
import statistics
import subprocess
import tempfile

import ts_open_classify as cl

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CLASSES = ("idle_same", "idle_other_lt0.5ms", "idle_other_0.5-2ms", "idle_other_ge2ms", "busy")


def sim_requests(a, cfg, n, loop, tmp):
    """hqsim's requests of one phase: dicts rank, i, a, s, e (us)."""
    d = a.dir
    arr_f = os.path.join(d, "arrivals", f"nomps_n{n}_{cfg}_{loop}.json.gz")
    ncu = os.path.join(d, "ncu", cfg + ".csv.gz")
    hs = json.load(open(os.path.join(d, "fits.json")))[cfg]
    base = os.path.join(tmp, f"{cfg}_{n}_{loop}")
    cmd = [a.hqsim, "run", os.path.join(d, "kineto", cfg + ".json.gz"), *([ncu] if os.path.exists(ncu) else []),
           "--loop-request", "--limit", "events=100M", "--host-scale", f"{hs:.6g}",
           "--request-spread", os.path.join(d, "spread", cfg + ".json"), "--processes", str(n),
           "--mode", "timeslice", "--iterations", str(max(40, 240 // n)), "--seed", "1", "-q",
           "--json", base + ".json", "--csv", base + ".csv", "--gpu", a.gpu, "--arrival-times", arr_f]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    arr = json.load(gzip.open(arr_f))["processes"]
    procs = json.load(open(base + ".json"))["run"]["processes"]
    names = [x["name"] for x in procs]
    last = {}
    with open(base + ".csv") as f:
        for r in csv.DictReader(f):
            k = (names.index(r["process"]), int(r["iteration"]))
            last[k] = max(last.get(k, 0.0), float(r["end_us"]))
    os.remove(base + ".csv")
    out = []
    for rank, pr in enumerate(procs):
        m = pr["iterations"]
        raw = [last[(rank, i)] - arr[rank][i] for i in range(m)]
        tail = pr["latency_mean_ms"] * 1000 - statistics.mean(raw)
        prev = None
        for i in range(m):
            e = last[(rank, i)] + tail
            s = arr[rank][i] if prev is None else max(arr[rank][i], prev)
            out.append({"rank": rank, "i": i, "a": float(arr[rank][i]), "s": s, "e": e})
            prev = e
    return out


def summary(reqs):
    """{class: (count, median fresh service, median latency)}."""
    res = {}
    for c in CLASSES:
        sel = [r for r in reqs if r["cls"] == c]
        fresh = [r["e"] - r["s"] for r in sel if r["s"] == r["a"]]
        res[c] = (len(sel), cl.med(fresh), cl.med([r["e"] - r["a"] for r in sel]))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("requests")
    ap.add_argument("out")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--gpu", required=True)
    ap.add_argument("--hqsim", default=os.path.join(ROOT, "build", "hqsim"))
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--groups", default="2,4,8")
    ap.add_argument("--configs", default=None)
    ap.add_argument("--sim-requests", default=None, help="write hqsim's requests as REQ.csv's rows")
    ap.add_argument("--by-gap", default=None, metavar="GAP.csv",
                    help="per N, class (idle_same / idle_other) and the process's own idle gap before the request: "
                         "the median over configurations of measured - hqsim median service (configurations with "
                         ">= 3 measured requests in the cell)")
    a = ap.parse_args()
    meas = {}
    with open(a.requests) as f:
        for r in csv.DictReader(f):
            n = int(r["group"].split("_n")[1])
            if str(n) not in a.groups.split(",") or (a.configs and r["config"] not in a.configs.split(",")):
                continue
            meas.setdefault((r["config"], n, r["loop"]), []).append(
                {"rank": int(r["rank"]), "cls": r["class"], "a": float(r["arrival_us"]), "s": float(r["start_us"]),
                 "e": float(r["end_us"])})
    keys = sorted(meas)
    tmp = tempfile.mkdtemp(prefix="ts_open.")

    def one(k):
        reqs = sim_requests(a, *k, tmp)
        cl.classify(reqs)
        return reqs

    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        sims = list(ex.map(one, keys))
    if a.sim_requests:
        write_requests(a.sim_requests, keys, sims)
    if a.by_gap:
        write_by_gap(a.by_gap, keys, meas, sims)
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["config", "n", "loop", "class", "meas_count", "sim_count", "meas_service_us", "sim_service_us",
                    "diff_service_us", "meas_latency_us", "sim_latency_us", "meas_phase_p50_us", "sim_phase_p50_us"])
        for k, sreqs in zip(keys, sims):
            m, s = summary(meas[k]), summary(sreqs)
            mp = cl.med([r["e"] - r["a"] for r in meas[k]])
            sp = cl.med([r["e"] - r["a"] for r in sreqs])
            for c in CLASSES:
                w.writerow([*k, c, m[c][0], s[c][0], f"{m[c][1]:.1f}", f"{s[c][1]:.1f}", f"{s[c][1] - m[c][1]:+.1f}",
                            f"{m[c][2]:.1f}", f"{s[c][2]:.1f}", f"{mp:.1f}", f"{sp:.1f}"])


OWN_GAPS = ((500, "<0.5ms"), (2000, "0.5-2ms"), (5000, "2-5ms"), (10000, "5-10ms"), (20000, "10-20ms"),
            (50000, "20-50ms"), (float("inf"), ">=50ms"))


def by_own_gap(reqs, n, cfg, out):
    """Adds each idle request's service (e - s; its process free at arrival) to @out[(n, class, gap bin, cfg)],
    the gap being the time since its process's previous request ended."""
    prev = {}
    for r in sorted(reqs, key=lambda r: (r["rank"], r["a"])):
        if r["rank"] in prev and r["s"] == r["a"] and r["cls"] != "busy":
            g = r["s"] - prev[r["rank"]]
            b = next(name for lim, name in OWN_GAPS if g < lim)
            out.setdefault((n, "idle_same" if r["cls"] == "idle_same" else "idle_other", b, cfg), []).append(
                r["e"] - r["s"])
        prev[r["rank"]] = r["e"]


def write_by_gap(path, keys, meas, sims):
    m, s = {}, {}
    for k, sreqs in zip(keys, sims):
        by_own_gap(meas[k], k[1], k[0], m)
        by_own_gap(sreqs, k[1], k[0], s)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["n", "class", "own_gap", "configs", "meas_requests", "meas_minus_sim_us"])
        for n in sorted({k[1] for k in keys}):
            for cls in ("idle_same", "idle_other"):
                for _, b in OWN_GAPS:
                    d, cnt = [], 0
                    for cfg in sorted({k[0] for k in keys}):
                        a, c = m.get((n, cls, b, cfg), []), s.get((n, cls, b, cfg), [])
                        if len(a) >= 3 and c:
                            d.append(statistics.median(a) - statistics.median(c))
                            cnt += len(a)
                    w.writerow([n, cls, b, len(d), cnt, f"{statistics.median(d):+.1f}" if d else ""])


def write_requests(path, keys, sims):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["group", "config", "loop", "rank", "i", "arrival_us", "start_us", "end_us", "class", "gap_us"])
        for (cfg, n, loop), reqs in zip(keys, sims):
            for r in reqs:
                w.writerow([f"nomps_n{n}", cfg, loop, r["rank"], r["i"], f"{r['a']:.1f}", f"{r['s']:.1f}",
                            f"{r['e']:.1f}", r["cls"], "" if r["gap"] is None else f"{r['gap']:.1f}"])


if __name__ == "__main__":
    main()
