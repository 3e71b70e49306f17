#!/usr/bin/env python3
"""Decoder b1 beside MPS neighbours on their own SMs, kernel by kernel (issue 10, FINDINGS §53, disj10c).

  mps_disj_nb_kernels.py OUT.csv BASE=RAW:TAG[,RAW:TAG...] NAME=RAW:TAG[,RAW:TAG...] ...
  mps_disj_nb_kernels.py alone DIR      # the neighbours alone (DIR: untarred alone.tar.gz)
  mps_disj_nb_kernels.py bins OUT.csv BASE=... NAME=...   # the same groups by alone duration

RAW: an untarred graph.tar.gz of harness/mps_disj_nb_campaign.sh or mps_disj_campaign.sh
(RAW/kineto/<tag>_n<N>/decoder_b1_n<N>.json.gz: rank 0's 16 Kineto requests; TAG is <tag>_n<N>; another
victim's trace, <model>_b<batch>_n<N>.json.gz, when the campaign ran one (val10, FINDINGS §64)).
The first group is the reference (the decoder alone at the same thread percentage). Per group,
over its runs' kernel instances: kernels per request, kernel time per request and its ratio to the
reference, then each instance's duration over its kernel's reference median (kernel = name cut to
60 + blocks): the median and p90 of that ratio, the share of instances above 1.5x and 3x, and the
part of the added kernel time carried by the instances above 3x (long waits: a one-wave kernel whose
blocks wait for an SM another client holds) against the rest (a slowdown of every kernel), and the added time and median ratio of the
1-block kernels (one SM each) and of the others.
With `alone`: per neighbour kind and thread percentage (hqprobe's alone_p<P>_<kind> files) the
kernel time (median, min, max), the distinct SMs its blocks ran on (%smid) and, for triad, the
DRAM traffic rate (48 B per float4 per thread).
With `bins` (fend10b, FINDINGS §54): per group and bin of the kernel's alone median (< 1.5, 1.5-2,
2-3, 3-5, >= 5 us), the bin's kernels per request, the median added time of an instance (us), the
median ratio, and the added time per request: is the growth a multiple of the kernel's length or
a per-kernel addition? Nothing is fitted; no hqsim involved.
"""
import collections
import csv
import gzip
import json
import os
import statistics
import sys


def victim_trace(raw, tag):
    """RAW/kineto/TAG/'s one Kineto trace of rank 0 (decoder_b1_n<N>.json.gz, or another victim's)."""
    n = tag.rsplit("_n", 1)[1]
    d = os.path.join(raw, "kineto", tag)
    if os.path.exists(os.path.join(d, f"decoder_b1_n{n}.json.gz")):  # the campaigns before val10
        return os.path.join(d, f"decoder_b1_n{n}.json.gz")
    fs = sorted(f for f in os.listdir(d) if f.endswith(f"_n{n}.json.gz")) if os.path.isdir(d) else []
    if len(fs) != 1:
        raise SystemExit(f"{d}: {len(fs)} traces *_n{n}.json.gz, want one")
    return os.path.join(d, fs[0])


def instances(raw, tag):
    n = tag.rsplit("_n", 1)[1]
    p = victim_trace(raw, tag)
    ks = sorted((e for e in json.load(gzip.open(p))["traceEvents"] if e.get("cat") == "kernel"),
                key=lambda e: e["ts"])
    if not ks or len(ks) % 16:
        raise SystemExit(f"{p}: {len(ks)} kernels, not 16 equal requests")
    g = lambda e: e["args"]["grid"][0] * e["args"]["grid"][1] * e["args"]["grid"][2]
    return [((e["name"][:60], g(e)), float(e["dur"])) for e in ks], len(ks) // 16


def group(spec):
    inst, per, runs = [], None, 0
    for rt in spec.split(","):
        raw, tag = rt.rsplit(":", 1)
        i, per = instances(raw, tag)
        inst += i
        runs += 1
    return inst, per, runs


def alone(d):
    for f in sorted(x[:-8] for x in os.listdir(d) if x.startswith("alone_") and x.endswith("_ops.csv")):
        ops = [r for r in csv.DictReader(open(os.path.join(d, f + "_ops.csv"))) if r["type"] == "kernel"]
        us = [(int(r["gpu_t1"]) - int(r["gpu_t0"])) / 1e3 for r in ops]
        sms = {r["smid"] for r in csv.DictReader(open(os.path.join(d, f + "_blocks.csv")))}
        g, w, m = int(ops[0]["grid"]), int(ops[0]["work"]), statistics.median(us)
        gbs = f"{g * int(ops[0]['block']) * w * 48 / (m * 1e3):.0f}" if ops[0]["kind"] == "triad" else "-"
        print(f"{f}: {len(us)} kernels of {g} blocks, median {m:.1f} us (min {min(us):.1f}, max {max(us):.1f}), "
              f"{len(sms)} distinct SMs, DRAM GB/s {gbs}")


BINS = ((0, 1.5), (1.5, 2), (2, 3), (3, 5), (5, float("inf")))


def bins(out, groups, med, base_inst, base_runs):
    rows = []
    for name, spec in groups:
        inst, _, runs = group(spec)
        for lo, hi in BINS:
            sel = [(k, d) for k, d in inst if k in med and lo <= med[k] < hi]
            n = sum(lo <= med[k] < hi for k, _ in base_inst) / (16 * base_runs)
            if not sel:
                continue
            rows.append([name, f"{lo}-{hi}", f"{n:.1f}", f"{statistics.median(d - med[k] for k, d in sel):.2f}",
                         f"{statistics.median(d / med[k] for k, d in sel):.3f}",
                         f"{sum(d - med[k] for k, d in sel) / (16 * runs):.1f}"])
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["group", "alone_us_bin", "kernels_per_request", "added_us_p50", "ratio_p50",
                    "added_us_per_request"])
        w.writerows(rows)
    for r in rows:
        print(",".join(str(x) for x in r))


def main():
    if sys.argv[1] == "alone":
        return alone(sys.argv[2])
    binned = sys.argv[1] == "bins"
    args = sys.argv[2:] if binned else sys.argv[1:]
    out, groups = args[0], [g.split("=", 1) for g in args[1:]]
    base_inst, base_per, base_runs = group(groups[0][1])
    ref = collections.defaultdict(list)
    for k, d in base_inst:
        ref[k].append(d)
    med = {k: statistics.median(v) for k, v in ref.items()}
    if binned:
        return bins(out, groups, med, base_inst, base_runs)
    base_kt = sum(d for _, d in base_inst) / (16 * base_runs)
    rows = []
    for name, spec in groups:
        inst, per, runs = group(spec)
        kt = sum(d for _, d in inst) / (16 * runs)
        r = [d / med[k] for k, d in inst if k in med]
        add_long = sum(d - med[k] for k, d in inst if k in med and d > 3 * med[k]) / (16 * runs)
        add_rest = sum(d - med[k] for k, d in inst if k in med and d <= 3 * med[k]) / (16 * runs)
        q = statistics.quantiles(r, n=10)
        split = []
        for one in (True, False):  # 1-block kernels (one SM) and the rest
            sel = [(k, d) for k, d in inst if k in med and (k[1] == 1) == one]
            split += [f"{sum(d - med[k] for k, d in sel) / (16 * runs):.1f}",
                      f"{statistics.median([d / med[k] for k, d in sel]):.3f}" if sel else ""]  # encoder, resnet50: no 1-block kernel
        rows.append([name, runs, per, f"{kt:.1f}", f"{kt / base_kt:.3f}", f"{statistics.median(r):.3f}",
                     f"{q[-1]:.3f}", f"{sum(x > 1.5 for x in r) / len(r):.3f}", f"{sum(x > 3 for x in r) / len(r):.3f}",
                     f"{add_long:.1f}", f"{add_rest:.1f}", *split, len(inst) - len(r)])
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["group", "runs", "kernels_per_request", "kernel_us_per_request", "over_alone", "ratio_p50",
                    "ratio_p90", "share_over_1.5x", "share_over_3x", "added_us_by_over_3x", "added_us_rest",
                    "added_us_1block", "ratio_p50_1block", "added_us_multiblock", "ratio_p50_multiblock",
                    "instances_without_reference"])
        w.writerows(rows)
    for r in rows:
        print(",".join(str(x) for x in r))


main()
