#!/usr/bin/env python3
"""hqsim's replay of FINDINGS §51 / §53: decoder b1 beside MPS neighbours, kernel by kernel.

  lat_replay.py [--hqsim build/hqsim] [--out DIR] [--iterations 2] [--cases p50_alone,p50_triad,...]

The decoder is its 100% graph profile with its Nsight Compute data (the open-loop sweep's inputs:
traces/measured/h100/launch/kineto/decoder_b1_graph.json.gz + openloop/ncu/decoder_b1_graph.csv.gz),
imported to a native scenario (`hqsim import`) so that synthetic neighbours can join it in one
workload file; it starts 3 ms after the neighbours and runs --iterations passes of its 8 recorded
requests at the open-loop fit's host scale (openloop/fits.json). The neighbours are §53's hqprobe
clients as hqsim kernels: one block of 1024 threads and 120 KiB of shared memory per SM of their
set (66 SMs at 50%, 32 at 25%), 200 kernels back to back, either `fma` (1775 us, no DRAM demand)
or `triad` (594 us moving 3 x 512 MiB at 50%: 2.71 TB/s; 375 us at 2.1 TB/s each at 25%);
`gslow`, `gfast`, `gl2`, `gdram`, `gdramlo`, `gdramhi`, `gdramw` are §54's graph neighbours (GRAPH_NB: 150
chained nodes of 1 / 64 blocks, 3 us each, 30 us for gdramw, reading what the measured neighbour read;
gdramlo / gdramhi are §54's gdramt32 / gdramt512; the fit of FINDINGS §60);
`decoder` is a second copy of the decoder, `decoder3` three (§51's N = 2, N = 4). Every decoder kernel instance is divided
by the median of the same graph node in the run without neighbours at the same percentage, and
summarised as harness/mps_disj_nb_kernels.py summarises the measured ones (nb/kernels.csv),
printed beside them.

  lat_replay.py --gaps NAME=RAW:TAG[,RAW:TAG...] ...   the measured node gaps of those requests

--victim encoder / cnn (val10, FINDINGS §64): encoder b1 / resnet50 b1 in the decoder's place, their
100% graph profiles (launch/kineto/<victim>_b1_graph.json.gz, 8 requests as the decoder's) with
openloop/ncu/'s file where there is one (--ncu another file, or none: the bare trace); the measured
columns stay empty (they are the decoder's): harness/memload_val.py sets the victims' beside them.
"""
import argparse
import csv
import glob
import gzip
import json
import math
import os
import re
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
H100 = os.path.join(ROOT, "traces/measured/h100")
ap = argparse.ArgumentParser()
ap.add_argument("--hqsim", default=os.path.join(ROOT, "build", "hqsim"))
ap.add_argument("--out", default=None, help="folder for the scenarios and per-case CSVs (default: a temporary one)")
ap.add_argument("--iterations", type=int, default=2, help="passes of the decoder's 8 recorded requests")
ap.add_argument("--cases", default="p50_alone,p50_fma,p50_triad,p50_gdram,p50_decoder,p25_alone,p25_fma3,p25_triad3,p25_decoder3,"
                "p100_alone,p100_decoder,p100_decoder3,p100_decoder7",
                help="p<pct>_<alone|fma|triad|decoder|a GRAPH_NB kind><neighbours, default 1>; §53's / §54's groups are measured ones")
ap.add_argument("--victim", default="decoder", choices=["decoder", "encoder", "cnn"],
                help="the b1 graph in the decoder's place (its measured columns are left empty)")
ap.add_argument("--ncu", default=None, help="the victim's Nsight Compute CSV (none: the bare trace)")
ap.add_argument("--extra", default="", help="more hqsim options for every run (e.g. a model file)")
ap.add_argument("--bins", default=None, help="also write, per case and bin of a kernel's alone time (harness/"
                "mps_disj_nb_kernels.py's bins), its kernels and added kernel us a request here (CSV)")
ap.add_argument("--gaps", nargs="+", metavar="NAME=RAW:TAG[,RAW:TAG]",
                help="instead: the measured node gaps of §53's Kineto requests (RAW an untarred nb/*.tar.gz, TAG "
                     "as harness/mps_disj_nb_kernels.py takes them): gap and kernel time per request per group")
a = ap.parse_args()

TRACE = os.path.join(H100, f"launch/kineto/{a.victim}_b1_graph.json.gz")
NCU = a.ncu or os.path.join(H100, f"openloop/ncu/{a.victim}_b1_graph.csv.gz")
NCU = None if NCU == "none" or (a.ncu is None and not os.path.exists(NCU)) else NCU
HOST_SCALE = json.load(open(os.path.join(H100, "openloop/fits.json")))[f"{a.victim}_b1_graph"]
# a bound on one request's span in the replay (us), so that a graph neighbour covers the victim's passes
REQUEST_US = {"decoder": 1000, "encoder": 2000, "cnn": 2500}[a.victim]
MEASURED = os.path.join(H100, "mpspct/disj/nb/kernels.csv")
# neighbour kind -> (kernel us at 50%, DRAM bytes at 50%, kernel us at 25%, DRAM bytes at 25%) (§53)
NEIGHBOURS = {"fma": (1775.0, 0, 1775.0, 0),
              "triad": (594.0, 3 * 512 * 2**20, 375.0, round(2100e9 * 375e-6))}
SMS = {50: 66, 25: 32}
# §51 (mpspct/disj/overlap/): kernel time per request over alone beside N - 1 decoders
MEASURED51 = {"p100_decoder": 1.206, "p50_decoder": 1.267, "p25_decoder3": 1.194}
# Measured time added per kernel, kernel time + node gaps per request over alone, less the instances
# above 3x (waits on shared SMs), over the kernels of a request (167 at 50%, 151 at 25% / 100%):
# §53's groups from nb/kernels.csv (added_us_rest) and the Kineto gaps of nb/*.tar.gz (FINDINGS §58:
# 45.8 us of gaps a request alone at 50%, +1.6 fma, +105.3 triad, +33.5 decoder; 42.3 at 25%, +0.5 fma3,
# +88.0 triad3), §51's from overlap/kernels_p*.csv ((kernel + gaps_p50) at N over N = 1).
MEASURED_ADDED = {"p50_fma": (12.8 + 1.6) / 167, "p50_triad": (379.4 + 105.3) / 167,
                  "p50_decoder": (132.9 + 33.5) / 167, "p25_fma3": (7.4 + 0.5) / 151,
                  "p25_triad3": (415.8 + 88.0) / 151,
                  "p25_decoder3": (1047.0 + 78.0 - 877.0 - 42.0) / 151,
                  "p100_decoder": (542.3 + 79.2 - 449.7 - 69.9) / 151,
                  # §54 (fend/kernels.csv added_us_rest; its Kineto gaps by --gaps: 46.0 alone, 57.3 gdram)
                  "p50_gdram": (125.9 + 57.3 - 46.0) / 167,
                  # the rest of §54 (fend/kernels.csv, dose_kernels.csv added_us_rest; Kineto gaps by --gaps on
                  # fend/graph.tar.gz: 46.0 alone, 45.8 gslow, 33.0 gfast, 33.6 gl2; on dose_graph.tar.gz: 46.1
                  # alone, 53.7 gdramt32, 56.8 gdramt512, 52.7 gdramw)
                  "p50_gslow": (2.3 + 45.8 - 46.0) / 167, "p50_gfast": (36.3 + 33.0 - 46.0) / 167,
                  "p50_gl2": (47.6 + 33.6 - 46.0) / 167, "p50_gdramlo": (103.5 + 53.7 - 46.1) / 167,
                  "p50_gdramhi": (191.6 + 56.8 - 46.1) / 167, "p50_gdramw": (83.3 + 52.7 - 46.1) / 167,
                  # §45 (mpspct/graphn/growth.csv, N = 4 / 8 at 100%): (K - 1) x the mean kernel alone
                  # (449.7 / 151 us), kernel time only (the node gaps hardly grow there, §40)
                  "p100_decoder3": 0.53 * 449.7 / 151, "p100_decoder7": 0.86 * 449.7 / 151}


def neighbour(kind, pct):
    us50, b50, us25, b25 = NEIGHBOURS[kind]
    us, dram = (us50, b50) if pct == 50 else (us25, b25)
    k = {"op": "kernel", "name": kind, "stream": "s", "grid": SMS[pct], "block": 1024,
         "dynamic_smem_bytes": 120 * 1024, "duration_us": us}
    if dram:
        k["dram_bytes"] = dram
    return {"hqsim_scenario": 1, "gpu": "h100-sxm", "processes": [
        {"name": "nb", "iterations": 1, "streams": [{"name": "s"}],
         "ops": [{"op": "repeat", "count": 200, "ops": [k]}, {"op": "device_sync"}]}]}


# §54's graph neighbours (fend/rates.csv, dose_rates.csv): kind -> (nodes, node us, threads a block,
# DRAM bytes a node, host gap us after each replay); the bytes are its measured reads over its
# measured nodes/s in the decoder's Kineto window (gl2's reads stay in L2: none here)
GRAPH_NB = {"gslow": (2, 3.0, 32, 0, 3700.0), "gfast": (150, 3.0, 32, 0, 0.0), "gl2": (150, 3.0, 128, 0, 0.0),
            "gdram": (150, 3.0, 128, 354.8e9 / 216256, 0.0), "gdramlo": (150, 3.0, 32, 111.1e9 / 217309, 0.0),
            "gdramhi": (150, 3.0, 512, 910.9e9 / 207640, 0.0), "gdramw": (150, 30.0, 128, 502.9e9 / 31503, 0.0)}


def graph_nb(kind):
    """§54's neighbour graph: chained nodes alternating 1 / 64 blocks, replayed back to back (gdramlo /
    gdramhi are its gdramt32 / gdramt512, gdramw its 30 us nodes; gslow two nodes every ~3.7 ms)."""
    n, us, threads, dram, gap = GRAPH_NB[kind]
    nodes = []
    for j in range(n):
        k = {"op": "kernel", "name": f"{kind}{j % 2}", "grid": 1 if j % 2 == 0 else 64, "block": threads,
             "duration_us": us}
        if dram:
            k["dram_bytes"] = round(dram)
        nodes.append(k)
    ops = [{"op": "graph", "stream": "s", "nodes": nodes}, {"op": "stream_sync", "stream": "s"}]
    if gap:
        ops.append({"op": "host_gap", "duration_us": gap / HOST_SCALE})  # --host-scale scales host gaps
    # long enough to cover the decoder's passes (~1 ms a request at most), not much longer
    span_us = 3000 + 8 * a.iterations * REQUEST_US
    return {"hqsim_scenario": 1, "gpu": "h100-sxm", "processes": [
        {"name": "nb", "iterations": math.ceil(span_us / (n * (us + 1.5) + gap)),
         "streams": [{"name": "s"}], "ops": ops}]}


def run(case, d):
    pct, kind = re.fullmatch(r"p(\d+)_([a-z0-9]+)", case).groups()
    count = ""
    if kind not in GRAPH_NB:  # a trailing count of neighbours (gl2's 2 is its name)
        kind, count = re.fullmatch(r"([a-z]+)(\d*)", kind).groups()
    if kind not in GRAPH_NB and kind not in NEIGHBOURS and kind not in ("alone", "decoder"):
        raise SystemExit(f"case {case}: no neighbour kind {kind!r}")
    pct, count = int(pct), int(count or 1)
    parts = [{"file": "dec.json", "name": "dec"}]
    if kind == "decoder":
        parts = [{"file": "dec.json", "name": "dec", "count": count + 1}]
    elif kind != "alone":
        nb = graph_nb(kind) if kind in GRAPH_NB else neighbour(kind, pct)
        json.dump(nb, open(os.path.join(d, f"nb_{case}.json"), "w"))
        parts.insert(0, {"file": f"nb_{case}.json", "name": "nb", "count": count})
    w = os.path.join(d, f"w_{case}.json")
    json.dump({"hqsim_workload": 1, "parts": parts}, open(w, "w"))
    out = os.path.join(d, f"{case}.csv")
    cmd = [a.hqsim, "run", w, "--mode", "mps", "--thread-pct", str(pct), "--host-scale", str(HOST_SCALE),
           "-q", "--csv", out, *a.extra.split()]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    # the decoder (rank 0 when there are two): each graph op's kernels in order
    allrows = [r for r in csv.DictReader(open(out)) if r["kind"] == "kernel"]
    rows = [r for r in allrows if r["process"] in ("dec", "dec#0")]
    t0, t1 = float(rows[0]["start_us"]), float(rows[-1]["end_us"])
    nb_rate = sum(1 for r in allrows if r["process"].startswith("nb") and t0 <= float(r["start_us"]) < t1) / (t1 - t0) * 1e6
    nb_end = max((float(r["end_us"]) for r in allrows if r["process"].startswith("nb")), default=t1)
    if nb_end < t1:
        raise SystemExit(f"case {case}: the neighbour ends at {nb_end:.0f} us, before the victim ({t1:.0f} us)")
    inst, gaps, pos, last, gap, end = [], [], 0, None, 0.0, 0.0
    for r in rows:
        key = (r["iteration"], r["op"])
        pos = pos + 1 if key == last else 0
        # the gap between two nodes of one graph, before this one (0 before a graph's first)
        gaps.append(float(r["start_us"]) - end if key == last else 0.0)
        gap += gaps[-1]
        last, end = key, float(r["end_us"])
        inst.append((pos, float(r["duration_us"]), int(r["blocks"])))
    return pct, inst, gap, nb_rate, gaps


def summary(inst, gap, ref, ref_gap, requests):
    ratios = [(d / ref[p], d - ref[p], b) for p, d, b in inst]
    r = [x[0] for x in ratios]
    one = [x for x in ratios if x[2] == 1]
    multi = [x for x in ratios if x[2] > 1]
    q = statistics.quantiles(r, n=10)
    return {"kernel_us_per_request": sum(d for _, d, _ in inst) / requests,
            "added_us_per_kernel": (sum(x[1] for x in ratios) + gap - ref_gap) / len(inst),
            "node_gap_us_per_request": gap / requests,
            "over_alone": sum(d for _, d, _ in inst) / sum(ref[p] for p, _, _ in inst),
            "ratio_p50": statistics.median(r), "ratio_p90": q[8],
            "added_us_1block": sum(x[1] for x in one) / requests,
            "ratio_p50_1block": statistics.median([x[0] for x in one]) if one else math.nan,  # encoder, cnn: none
            "added_us_multiblock": sum(x[1] for x in multi) / requests,
            "ratio_p50_multiblock": statistics.median([x[0] for x in multi])}


BINS = ((0, 1.5), (1.5, 2), (2, 3), (3, 5), (5, float("inf")))  # harness/mps_disj_nb_kernels.py's


def bin_rows(case, inst, gaps, ref, ref_gap, requests):
    """Per bin of the node's alone median: kernels a request, added kernel us a request, and added kernel
    + preceding node gap us a request (the gap holds what is a start delay: §62's memory-path wait was
    one; since §65 it is paid inside the kernel)."""
    rows = []
    for lo, hi in BINS:
        sel = [(p, d, g) for (p, d, _), g in zip(inst, gaps) if lo <= ref[p] < hi]
        if sel:
            rows.append([case, f"{lo}-{hi}", f"{len(sel) / requests:.1f}",
                         f"{sum(d - ref[p] for p, d, _ in sel) / requests:.1f}",
                         f"{sum(d + g - ref[p] - ref_gap[p] for p, d, g in sel) / requests:.1f}"])
    return rows


def measured_gaps():
    """Per group: the gaps between consecutive kernels of each of rank 0's 16 requests, summed."""
    for spec in a.gaps:
        name, runs = spec.split("=", 1)
        rows = []
        for rt in runs.split(","):
            raw, tag = rt.rsplit(":", 1)
            n = tag.rsplit("_n", 1)[1]
            p = os.path.join(raw, "kineto", tag, f"decoder_b1_n{n}.json.gz")
            if not os.path.exists(p):  # another victim (val10): the one trace there
                p = glob.glob(os.path.join(raw, "kineto", tag, f"*_n{n}.json.gz"))[0]
            ks = sorted((e for e in json.load(gzip.open(p))["traceEvents"] if e.get("cat") == "kernel"),
                        key=lambda e: e["ts"])
            per = len(ks) // 16
            for r in range(16):
                q = ks[r * per:(r + 1) * per]
                rows.append((sum(q[i]["ts"] - q[i - 1]["ts"] - q[i - 1]["dur"] for i in range(1, len(q))),
                             sum(e["dur"] for e in q)))
        print(f"{name}: node gaps {sum(g for g, _ in rows) / len(rows):.1f} us a request, "
              f"kernels {sum(k for _, k in rows) / len(rows):.1f} us a request ({len(rows)} requests)")


def main():
    if a.gaps:
        return measured_gaps()
    d = a.out or tempfile.mkdtemp(prefix="lat_replay.")
    os.makedirs(d, exist_ok=True)
    dec = os.path.join(d, "dec.json")
    subprocess.run([a.hqsim, "import", TRACE, *([NCU] if NCU else []), "-q", "-o", dec], check=True)
    sc = json.load(open(dec))
    sc["processes"][0].update(start_us=3000, iterations=a.iterations)
    json.dump(sc, open(dec, "w"))
    requests = 8 * a.iterations
    meas = {r["group"]: r for r in csv.DictReader(open(MEASURED))}
    fend = os.path.join(H100, "mpspct/disj/fend")
    meas.update({r["group"]: r for r in csv.DictReader(open(os.path.join(fend, "kernels.csv")))
                 if r["group"] != "p50_decoder"})
    names = {"p50_gdramt32": "p50_gdramlo", "p50_gdramt512": "p50_gdramhi", "p50_gdramw": "p50_gdramw"}
    meas.update({names[r["group"]]: r for r in csv.DictReader(open(os.path.join(fend, "dose_kernels.csv")))
                 if r["group"] in names})
    if a.victim != "decoder":  # the measured rows are the decoder's
        meas = {}
        MEASURED51.clear()
        MEASURED_ADDED.clear()
    cases = a.cases.split(",")
    res = {c: run(c, d) for c in cases}
    refs, ref_gaps = {}, {}
    pos_gaps = {}
    for c, (pct, inst, gap, _, gaps) in res.items():
        if c.endswith("_alone"):
            ref_gaps[pct] = gap
            by, byg = {}, {}
            for (p, dur, _), g in zip(inst, gaps):
                by.setdefault(p, []).append(dur)
                byg.setdefault(p, []).append(g)
            refs[pct] = {p: statistics.median(v) for p, v in by.items()}
            pos_gaps[pct] = {p: statistics.mean(v) for p, v in byg.items()}
    cols = ["added_us_per_kernel", "kernel_us_per_request", "node_gap_us_per_request", "over_alone", "ratio_p50", "ratio_p90", "added_us_1block", "ratio_p50_1block",
            "added_us_multiblock", "ratio_p50_multiblock"]
    print("case," + ",".join(f"hqsim_{c},measured_{c}" for c in cols) + ",hqsim_nb_kernels_per_s")
    binned = []
    for c in cases:
        pct, inst, gap, nb_rate, gaps = res[c]
        binned += bin_rows(c, inst, gaps, refs[pct], pos_gaps[pct], requests)
        s = summary(inst, gap, refs[pct], ref_gaps[pct], requests)
        m = dict(meas.get(c, {}))
        if c in MEASURED51:
            m["over_alone"] = MEASURED51[c]
        if c in MEASURED_ADDED:
            m["added_us_per_kernel"] = f"{MEASURED_ADDED[c]:.3f}"
        print(c + "," + ",".join(f"{s[k]:.3f},{m.get(k, '')}" for k in cols) + f",{nb_rate:.0f}")
    if a.bins:
        with open(a.bins, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["case", "alone_us_bin", "kernels_per_request", "hqsim_added_kernel_us_per_request",
                        "hqsim_added_us_per_request"])
            w.writerows(binned)


if __name__ == "__main__":
    main()
