#!/usr/bin/env python3
"""Launch rates of decoder b1 and of its graphbench neighbours, and their overlap (issue 10, FINDINGS §54, fend10b).

  mps_fend_rates.py OUT.csv NB RAW [DEC]

NB: the output folder of harness/mps_disj_nb_campaign.sh run with graphbench neighbours (gfast /
gslow / gl2 / gdram: nb_<tag>_1.json, and galone_p50_<kind>.json with DISJNB_GALONE=1); RAW: its
graph.tar.gz unpacked (<tag>_p0.json of mps_graph_probe.py, with slot_epoch); DEC: optionally
mps_disj_campaign.sh's graph.tar.gz unpacked with a p50_n2 group (two decoders).

Per group (a group without nb_<tag>_1.json: the decoder alone): the neighbour's nodes per second alone, over its whole run and inside the decoder's
plain phase and its 16 Kineto requests (each neighbour request [start, start + latency] counted
by its overlap with the window: nodes x overlap / latency, over the window's length), whether its
requests cover the Kineto window from end to end, its request latency p50 alone and inside that
window, and the bytes it read a second (memory nodes; 0 for spin nodes). The decoder's side: its
plain-phase requests a second and kernels a second (x the kernels per request of its Kineto
trace), and the Kineto window. For DEC, the neighbour is rank 1's decoder (its plain phase beside
rank 0's: kernels a second at rank 0's kernels per request; the Kineto overlap is
mps_graph_ranks.py's during_n). Nothing is fitted; no hqsim involved.
"""
import csv
import glob
import gzip
import json
import math
import os
import re
import statistics
import sys


def kernels_per_request(raw, tag):
    p = os.path.join(raw, "kineto", tag, "decoder_b1_n" + tag.rsplit("_n", 1)[1] + ".json.gz")
    if not os.path.exists(p):  # another victim (val10, FINDINGS §64): the one trace there
        p = glob.glob(os.path.join(raw, "kineto", tag, "*_n" + tag.rsplit("_n", 1)[1] + ".json.gz"))[0]
    return sum(e.get("cat") == "kernel" for e in json.load(gzip.open(p))["traceEvents"]) / 16


def windows(raw, tag):
    """The decoder's plain and kineto windows (epoch seconds) and its plain request count."""
    d = json.load(open(os.path.join(raw, tag + "_p0.json")))
    w = {p["phase"]: (p["slot_epoch"] + p["t_begin"], p["slot_epoch"] + p["t_end"], p["count"])
         for p in d["phases"]}
    return w["plain"], w["kineto"]


def in_window(nb, w0, w1):
    """Neighbour nodes a second inside [w0, w1], its latencies there, and whether it covers the window."""
    t0, nodes, done = nb["t_start_epoch_s"], nb["nodes"], 0.0
    lats, reqs = [], list(zip(nb["start_us"], nb["lat_us"]))
    for s, lat in reqs:
        a, b = t0 + s / 1e6, t0 + (s + lat) / 1e6
        ov = min(b, w1) - max(a, w0)
        if ov > 0:
            done += nodes * ov / (b - a)
            lats.append(lat)
    covers = bool(reqs) and t0 + reqs[0][0] / 1e6 <= w0 and t0 + (reqs[-1][0] + reqs[-1][1]) / 1e6 >= w1
    return done / (w1 - w0), (statistics.median(lats) if lats else float("nan")), covers


# Neighbour kinds, a kind before any kind it starts with (gdram last).
KINDS = ("gdramt512", "gdramt32", "gdramw", "gfast", "gslow", "gl2", "gdram")


def group_kind(tag):
    """The neighbour kind of group @tag, p<percentage><kind>[suffix]_n1 (mps_disj_nb_campaign.sh's
    graph groups): the percentage has any number of digits (p5, p50, p100)."""
    m = re.fullmatch(r"p\d+(.*)_n\d+", tag)
    kind = m and next((k for k in KINDS if m.group(1).startswith(k)), None)
    if not kind:
        sys.exit(f"mps_fend_rates.py: group '{tag}': not p<percentage><kind>..._n<N> with a kind of {', '.join(KINDS)}")
    return kind


def main():
    out, nbdir, raw = sys.argv[1:4]
    rows = []
    for f in sorted(glob.glob(os.path.join(raw, "*_p0.json"))):
        tag = os.path.basename(f)[:-8]
        (p0, p1, pn), (k0, k1, _) = windows(raw, tag)
        kpr = kernels_per_request(raw, tag)
        dec = [f"{pn / (p1 - p0):.0f}", f"{pn * kpr / (p1 - p0):.0f}", f"{kpr:.0f}", f"{(k1 - k0) * 1e3:.1f}"]
        nbf = os.path.join(nbdir, f"nb_{tag}_1.json")
        if not os.path.exists(nbf):  # the decoder alone
            rows.append([tag, "none"] + [""] * 8 + dec)
            continue
        nb = json.load(open(nbf))
        kind = group_kind(tag)
        af = os.path.join(nbdir, f"galone_p50_{kind}.json")  # absent without DISJNB_GALONE=1 (val10)
        alone = json.load(open(af)) if os.path.exists(af) else {"nodes_per_s": math.nan, "lat_us_p50": math.nan}
        rp, _, _ = in_window(nb, p0, p1)
        rk, lk, cov = in_window(nb, k0, k1)
        rows.append([tag, kind, f"{alone['nodes_per_s']:.0f}", f"{nb['nodes_per_s']:.0f}", f"{rp:.0f}", f"{rk:.0f}",
                     cov, f"{alone['lat_us_p50']:.1f}", f"{lk:.1f}", f"{nb['read_gb_per_s']:.1f}"] + dec)
    if len(sys.argv) > 4:  # two decoders: rank 1 is the neighbour
        dec = sys.argv[4]
        kpr = kernels_per_request(dec, "p50_n2")
        ph = {(r, p["phase"]): p for r in (0, 1)
              for p in json.load(open(os.path.join(dec, f"p50_n2_p{r}.json")))["phases"]}
        n1, k0, p0 = ph[(1, "plain")], ph[(0, "kineto")], ph[(0, "plain")]
        rate1 = n1["count"] / (n1["t_end"] - n1["t_begin"])  # rank 1 beside rank 0's plain phase
        rows.append(["p50_n2", "decoder", "", "", f"{rate1 * kpr:.0f}", "", "", "", "", "",
                     f"{p0['count'] / (p0['t_end'] - p0['t_begin']):.0f}",
                     f"{p0['count'] * kpr / (p0['t_end'] - p0['t_begin']):.0f}", f"{kpr:.0f}",
                     f"{(k0['t_end'] - k0['t_begin']) * 1e3:.1f}"])
    head = ["group", "neighbour", "nb_nodes_per_s_alone", "nb_nodes_per_s_run", "nb_nodes_per_s_dec_plain",
            "nb_nodes_per_s_dec_kineto", "nb_covers_kineto", "nb_lat_p50_alone_us", "nb_lat_p50_kineto_us",
            "nb_read_gb_per_s", "dec_plain_requests_per_s", "dec_plain_kernels_per_s", "dec_kernels_per_request",
            "dec_kineto_window_ms"]
    with open(out, "w", newline="") as fo:
        w = csv.writer(fo)
        w.writerow(head)
        w.writerows(rows)
    for r in [head] + rows:
        print(",".join(str(x) for x in r))


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:  # group tags of every percentage width
        assert [group_kind(t) for t in ("p50gdram_n1", "p5gdramt32_n1", "p100gdramwx_n1", "p25gl2_n1")] == \
            ["gdram", "gdramt32", "gdramw", "gl2"]
        print("mps_fend_rates.py: self-test passed")
    else:
        main()
