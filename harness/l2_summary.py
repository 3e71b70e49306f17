#!/usr/bin/env python3
"""l2_summary.py CHASE.tar.xz SUMMARY.csv SURVIVAL.csv [--self-test]

harness/l2_campaign.sh's footprint sweep (hqsim issue 10, FINDINGS §69): the chase victim
(harness/chase.cu, K = 256 dependent loads a thread, 16 x 128 or 132 x 128 threads) walking 2 / 8 /
16 / 32 MiB the same way every launch (from L2 once warm) and 1 GiB from a new place every launch
(DRAM), at 50% threads alone (p50_alone, p50_alone_b) and beside one neighbour at 50% (gl2, gdramt32,
gdram, gdram_b, gdramt512; their read GB/s from nb_<group>.json).

SUMMARY.csv: per group, MiB, shape: the median over rounds of the launches' median, ns a trip, the
alone ns a trip (the mean of the two alone groups), the ns added a trip.

SURVIVAL.csv: per DRAM neighbour, shape and L2 footprint of 2 / 8 / 16 MiB (32 MiB is left out: alone
it is already partly served by DRAM): the share of the victim's L2 hits lost,
loss = (added - added beside gl2 at 2 MiB) / (the DRAM trip beside the same neighbour - the L2 trip
alone), against X = the neighbour's read bytes per second x the interval between two uses of a line
(the launch's alone time / the loads a line gets a launch: 256 x threads / (MiB / 128 B)); and the
least-squares fit loss = 1 - exp(-(X / C)^s) over a grid (C 1.0-9.95 MB by 0.05, s 0.5-3 by 0.05),
printed with the alone miss ratio (DRAM / L2 ns a trip, 16 x 128): engine_share.c's l2_evict_mb,
l2_evict_shape and l2_miss_ratio.

--self-test: a made-up sweep whose loss follows the form exactly (C 3 MB, s 1.5) is fitted back.
"""
import csv
import io
import json
import math
import os
import statistics
import sys
import tarfile

DRAM_NB = ("p50_gdramt32", "p50_gdram", "p50_gdram_b", "p50_gdramt512")
FOOTPRINTS = (2, 8, 16)


def load(path):
    """{group: {(mib, blocks): [median_us per round]}}, {group: read GB/s}"""
    recs, rates = {}, {}
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            name = os.path.basename(m.name)
            if name.endswith(".jsonl"):
                g = name[:-len(".jsonl")]
                for i, line in enumerate(io.TextIOWrapper(tar.extractfile(m), "utf-8"), 1):
                    if line.strip():
                        try:
                            r = json.loads(line)
                            recs.setdefault(g, {}).setdefault((int(r["mib"]), int(r["blocks"])), []).append(
                                float(r["median_us"]))
                        except (ValueError, KeyError) as e:
                            sys.exit(f"{path}: {m.name}:{i}: bad record ({e})")
            elif name.startswith("nb_") and name.endswith(".json"):
                rates[name[3:-5]] = float(json.load(tar.extractfile(m))["read_gb_per_s"])
    return recs, rates


def summary(recs):
    med = {g: {k: statistics.median(v) for k, v in d.items()} for g, d in recs.items()}
    alone = {k: statistics.mean(med[g][k] for g in ("p50_alone", "p50_alone_b")) for k in med["p50_alone"]}
    rows = []
    for g in sorted(med):
        for (mib, b) in sorted(med[g]):
            ns = med[g][(mib, b)] * 1000 / 256
            a = alone[(mib, b)] * 1000 / 256
            rows.append({"group": g, "mib": mib, "blocks": b, "threads": 128, "median_us": round(med[g][(mib, b)], 3),
                         "ns_per_trip": round(ns, 2), "alone_ns_per_trip": round(a, 2),
                         "added_ns_per_trip": round(ns - a, 2)})
    return med, alone, rows


def survival(med, alone, rates):
    pts = []
    for g in DRAM_NB:
        if g not in med:
            continue
        for b in (16, 132):
            tm = med[g][(1024, b)] * 1000 / 256
            base = (med["p50_gl2"][(2, b)] - alone[(2, b)]) * 1000 / 256
            for mib in FOOTPRINTS:
                th = alone[(mib, b)] * 1000 / 256
                added = med[g][(mib, b)] * 1000 / 256 - th
                uses = b * 128 * 256 / (mib * 2 ** 20 / 128)  # loads a line gets a launch
                dt = alone[(mib, b)] * 1e-6 / uses  # s between two uses
                pts.append({"group": g, "blocks": b, "mib": mib, "read_gb_per_s": rates[g],
                            "reuse_us": round(dt * 1e6, 3), "x_mb": round(rates[g] * 1e9 * dt / 1e6, 4),
                            "added_ns_per_trip": round(added, 2), "loss": round((added - base) / (tm - th), 4)})
    return pts


def fit(pts):
    best = None
    for ci in range(20, 200):
        c = ci * 0.05e6
        for si in range(10, 61):
            s = si / 20
            e = sum((1 - math.exp(-(p["x_mb"] * 1e6 / c) ** s) - p["loss"]) ** 2 for p in pts)
            if best is None or e < best[0] - 1e-12:
                best = (e, c, s)
    return best


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def self_test():
    pts = [{"x_mb": x, "loss": 1 - math.exp(-(x / 3.0) ** 1.5)} for x in (0.2, 0.6, 1.5, 2.2, 4.4, 6.3, 12.7)]
    e, c, s = fit(pts)
    assert abs(c - 3.0e6) < 1 and abs(s - 1.5) < 1e-9 and e < 1e-12, (e, c, s)
    print("l2_summary self-test ok")


def main():
    a = sys.argv[1:]
    if a == ["--self-test"]:
        return self_test()
    if len(a) != 3:
        sys.exit(__doc__.split("\n")[0])
    recs, rates = load(a[0])
    med, alone, rows = summary(recs)
    write(a[1], rows)
    pts = survival(med, alone, rates)
    e, c, s = fit(pts)
    for p in pts:
        p["fit_loss"] = round(1 - math.exp(-(p["x_mb"] * 1e6 / c) ** s), 4)
    write(a[2], pts)
    ratio = alone[(1024, 16)] / alone[(8, 16)]
    print(f"survival fit over {len(pts)} points: C {c / 1e6:.2f} MB, s {s:.2f}, summed squared error {e:.4f}; "
          f"alone miss ratio (16 x 128, 1 GiB / 8 MiB) {ratio:.2f}")


if __name__ == "__main__":
    main()
