#!/usr/bin/env python3
"""Time-sliced open-loop requests classified by what the GPU did before each one (issue 10, FINDINGS §71).

  ts_open_classify.py RAW.tar.gz[,RAW2.tar.gz] OUT.csv [--requests REQ.csv] [--configs a,b]

RAW: harness/openloop_campaign.sh's openloop.tar.gz (per process <group>_p<R>.json,
harness/openloop.py).  Every process stamps with time.time_ns() on one host, so the N
processes' times share one clock.  For each no-MPS open-loop phase of a graph
configuration, each request's arrival a (the seeded generator, as openloop_summary.py
replays it), end e = a + latency, and service start s = max(a, the process's previous e)
(one request at a time).  Each request falls in one class, by the other processes'
requests at s:
  busy        another process's request is in service at s (s' <= s < e')
  idle_same   none is; the request that ended last before s is this process's own (or none)
  idle_other  none is; the request that ended last before s is another process's
and idle_other by the gap since that end (< 0.5 ms, 0.5-2 ms, >= 2 ms).  OUT.csv: per group x
configuration x phase x class: count, the median service time e - s (us) and the median
latency, beside the lone process's (N = 1, same phase) idle_same median service.
--requests writes every request (group, config, loop, rank, i, arrival, start, end, class,
gap) for a comparison with hqsim (harness/ts_open_compare.py).
"""
import argparse
import csv
import json
import random
import statistics
import tarfile

GAPS = ((500, "lt0.5ms"), (2000, "0.5-2ms"), (float("inf"), "ge2ms"))


def arrivals(p, ph):
    """The arrival times (ns) harness/openloop.py drew (openloop_summary.py's replay)."""
    load = float(ph["loop"][4:])
    tag = ph["cfg"]
    rng = random.Random(1 * 1000003 + p["rank"] * 7919 + int(load * 1000) + sum(tag.encode()) % 997)
    t, out = float(ph["t_go"]), []
    while True:
        t += rng.expovariate(ph["rate_per_s"]) * 1e9
        if t >= ph["t_go"] + int(p["dur_s"] * 1e9):
            return out
        out.append(int(t))


def load(paths):
    """{group: [process record, ...]} of the no-MPS groups; a later archive's group replaces an earlier's."""
    groups = {}
    for path in paths:
        with tarfile.open(path) as tf:
            got = {}
            for m in tf.getmembers():
                name = m.name.rsplit("/", 1)[-1]
                if not (name.startswith("nomps_n") and name.endswith(".json")):
                    continue
                rec = json.load(tf.extractfile(m))
                got.setdefault(name.rsplit("_p", 1)[0], []).append(rec)
            groups.update(got)
    return groups


def requests(procs, cfg, loop):
    """Every request of one phase: dicts with rank, i, a, s, e (us, from the earliest arrival)."""
    out = []
    for p in procs:
        ph = [x for x in p["phases"] if x["cfg"] == cfg and x["loop"] == loop]
        if not ph:
            return []
        ph = ph[0]
        arr = arrivals(p, ph)
        if len(arr) != len(ph["lat_us"]):
            raise SystemExit(f"rank {p['rank']} {cfg} {loop}: {len(arr)} arrivals for {len(ph['lat_us'])} requests")
        prev = None
        for i, (a, lat) in enumerate(zip(arr, ph["lat_us"])):
            a_us = a / 1000.0
            e = a_us + lat
            s = a_us if prev is None else max(a_us, prev)
            out.append({"rank": p["rank"], "i": i, "a": a_us, "s": s, "e": e})
            prev = e
    t0 = min(r["a"] for r in out)
    for r in out:
        for k in ("a", "s", "e"):
            r[k] -= t0
    return out


def classify(reqs):
    """Sets r['cls'] and r['gap'] (us since the last other end; None when busy or idle_same)."""
    ends = sorted((r["e"], r["rank"]) for r in reqs)
    for r in reqs:
        busy = any(q["rank"] != r["rank"] and q["s"] <= r["s"] < q["e"] for q in reqs)
        last = None
        for e, rank in ends:
            if e > r["s"]:
                break
            last = (e, rank)
        r["gap"] = None
        if busy:
            r["cls"] = "busy"
        elif last is None or last[1] == r["rank"]:
            r["cls"] = "idle_same"
        else:
            r["gap"] = r["s"] - last[0]
            r["cls"] = "idle_other_" + next(n for lim, n in GAPS if r["gap"] < lim)


def med(v):
    return statistics.median(v) if v else float("nan")


def write_distance(path, every, lone_base):
    """The idle_other requests of @every (rows as --requests writes them) at N >= 4, by the number of
    ranks between the process that ended last and the request's own (round-robin in rank order)."""
    phases = {}
    for r in every:
        phases.setdefault((r[0], r[1], r[2]), []).append(r)
    cells = {}
    for (g, cfg, loop), rs in phases.items():
        n = int(g.split("_n")[1])
        if n < 4:
            continue
        ends = sorted((float(r[7]), r[3]) for r in rs)
        for r in rs:
            s = float(r[6])
            if not r[8].startswith("idle_other") or s != float(r[5]):
                continue
            last = [k for e, k in ends if e <= s][-1]
            d = (r[3] - last) % n - 1
            cells.setdefault((cfg, n, d), []).append(float(r[7]) - s - med(lone_base[cfg]))
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["config", "n", "ranks_between", "count", "service_minus_lone_p50_us"])
        for k in sorted(cells):
            w.writerow([*k, len(cells[k]), f"{med(cells[k]):.1f}"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("out")
    ap.add_argument("--requests", default=None)
    ap.add_argument("--configs", default=None)
    ap.add_argument("--distance", default=None, metavar="DIST.csv",
                    help="idle_other requests at N >= 4 by how many ranks lie between the last holder and the "
                         "request's process in round-robin (rank) order: count and median service less the lone "
                         "process's")
    a = ap.parse_args()
    groups = load(a.raw.split(","))
    lone = groups.get("nomps_n1")
    rows, every, lone_base = [], [], {}
    for g in sorted(groups, key=lambda g: int(g.split("_n")[1])):
        procs = groups[g]
        n = int(g.split("_n")[1])
        phases = sorted({(ph["cfg"], ph["loop"]) for ph in procs[0]["phases"]
                         if ph["loop"].startswith("open") and ph["cfg"].endswith("graph")})
        for cfg, loop in phases:
            if a.configs and cfg not in a.configs.split(","):
                continue
            reqs = requests(procs, cfg, loop)
            classify(reqs)
            base = float("nan")
            if lone:
                lr = requests(lone, cfg, loop)
                classify(lr)
                base = med([r["e"] - r["s"] for r in lr if r["cls"] == "idle_same" and r["s"] == r["a"]])
                lone_base.setdefault(cfg, []).extend(r["e"] - r["s"] for r in lr if r["s"] == r["a"])
            allp = med([r["e"] - r["a"] for r in reqs])
            for cls in ("idle_same", "idle_other_lt0.5ms", "idle_other_0.5-2ms", "idle_other_ge2ms", "busy"):
                sel = [r for r in reqs if r["cls"] == cls]
                fresh = [r for r in sel if r["s"] == r["a"]]
                rows.append([g, n, cfg, loop, cls, len(sel), len(reqs),
                             f"{med([r['e'] - r['s'] for r in fresh]):.1f}",
                             f"{med([r['e'] - r['a'] for r in sel]):.1f}", f"{base:.1f}", f"{allp:.1f}"])
            for r in reqs:
                every.append([g, cfg, loop, r["rank"], r["i"], f"{r['a']:.1f}", f"{r['s']:.1f}", f"{r['e']:.1f}",
                              r["cls"], "" if r["gap"] is None else f"{r['gap']:.1f}"])
    if a.distance:
        write_distance(a.distance, every, lone_base)
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["group", "n", "config", "loop", "class", "count", "phase_count", "service_fresh_p50_us",
                    "latency_p50_us", "lone_idle_service_p50_us", "phase_latency_p50_us"])
        w.writerows(rows)
    if a.requests:
        with open(a.requests, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["group", "config", "loop", "rank", "i", "arrival_us", "start_us", "end_us", "class", "gap_us"])
            w.writerows(every)


if __name__ == "__main__":
    main()
