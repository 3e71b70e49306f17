#!/usr/bin/env python3
"""Summarise an openloop_campaign.sh result directory into one compact CSV.

  openloop_summary.py RAWDIR OUT.csv [--samples CFGLIST OUT_samples.json]

One row per group x configuration x phase: sharing (nomps, mps, mps50, mps25), N, the
configuration, the loop (closed, open<load>), the rate asked per process, the completed
requests per second per process (mean over processes: count / (last end - release)),
and p50/p90/p99 of the latencies of all N processes pooled (ms, nearest rank).
--samples writes the N = 1 closed-loop latencies (us) of a no-MPS group per configuration:
the request spread that predictions may take from one process.
--arrivals DIR writes DIR/<sharing>_n<N>_<config>_<loop>.json for every open-loop phase of
a graph configuration: {"processes": [[arrival us, ...], ...]}, the Poisson arrival times
each process drew (harness/openloop.py's seeded generator, replayed here and checked
against the request count), relative to the earliest release of the group; with
--all-arrivals the eager configurations' too (the H100's were written later from summary.csv
by openloop_arrivals.py; the H200's come from the raw files as the graph ones).
"""
import glob
import json
import os
import random
import sys


def q(v, p):
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]


def arrivals(p, ph):
    """The arrival times (ns) harness/openloop.py drew for phase @ph of process @p."""
    load = float(ph["loop"][4:])
    tag = ph["cfg"]
    rng = random.Random(1 * 1000003 + p["rank"] * 7919 + int(load * 1000) + sum(tag.encode()) % 997)
    t, out = float(ph["t_go"]), []
    while True:
        t += rng.expovariate(ph["rate_per_s"]) * 1e9
        if t >= ph["t_go"] + int(p["dur_s"] * 1e9):
            return out
        out.append(int(t))


def write_arrivals(d, g, procs, eager=False):
    os.makedirs(d, exist_ok=True)
    share, n = g.rsplit("_n", 1)
    keys = {(ph["cfg"], ph["loop"]) for p in procs for ph in p["phases"]
            if ph["loop"].startswith("open") and (eager or ph["cfg"].endswith("graph"))}
    for cfg, loop in sorted(keys):
        per = []
        for p in sorted(procs, key=lambda p: p["rank"]):
            ph = [x for x in p["phases"] if x["cfg"] == cfg and x["loop"] == loop][0]
            arr = arrivals(p, ph)
            if len(arr) != len(ph["lat_us"]):
                raise SystemExit(f"{g} {cfg} {loop}: {len(arr)} arrivals for {len(ph['lat_us'])} requests")
            per.append(arr)
        t0 = min(x[0] for x in per if x)
        with open(os.path.join(d, f"{share}_n{n}_{cfg}_{loop}.json"), "w") as f:
            json.dump({"processes": [[(t - t0) // 1000 for t in x] for x in per]}, f, separators=(",", ":"))


def main():
    raw, out = sys.argv[1], sys.argv[2]
    rows, samples = [], {}
    groups = {}
    for f in sorted(glob.glob(os.path.join(raw, "*_p*.json"))):
        g = os.path.basename(f).rsplit("_p", 1)[0]
        groups.setdefault(g, []).append(json.load(open(f)))
    for g, procs in sorted(groups.items()):
        share, n = g.rsplit("_n", 1)
        phases = {}
        for p in procs:
            for ph in p["phases"]:
                phases.setdefault((ph["cfg"], ph["loop"]), []).append(ph)
        for (cfg, loop), phs in phases.items():
            lat = sorted(x for ph in phs for x in ph["lat_us"])
            if not lat:
                continue
            thr = sum(len(ph["lat_us"]) / ((ph["t_last"] - ph["t_go"]) / 1e9) for ph in phs) / len(phs)
            rate = phs[0].get("rate_per_s", "")
            rows.append([share, int(n), cfg, loop, f"{rate:.1f}" if rate != "" else "", f"{thr:.1f}",
                         f"{q(lat, .5) / 1e3:.4f}", f"{q(lat, .9) / 1e3:.4f}", f"{q(lat, .99) / 1e3:.4f}",
                         len(lat)])
            if share == "nomps" and n == "1" and loop == "closed":
                samples[cfg] = phs[0]["lat_us"]
    rows.sort(key=lambda r: (r[2], r[0], r[1], r[3]))
    with open(out, "w") as f:
        f.write("sharing,n,config,loop,rate_per_s_per_process,throughput_per_s_per_process,"
                "lat_p50_ms,lat_p90_ms,lat_p99_ms,requests\n")
        for r in rows:
            f.write(",".join(str(x) for x in r) + "\n")
    if "--samples" in sys.argv:
        with open(sys.argv[sys.argv.index("--samples") + 1], "w") as f:
            json.dump(samples, f, separators=(",", ":"))
    if "--arrivals" in sys.argv:
        for g, procs in sorted(groups.items()):
            write_arrivals(sys.argv[sys.argv.index("--arrivals") + 1], g, procs, "--all-arrivals" in sys.argv)


if __name__ == "__main__":
    main()
