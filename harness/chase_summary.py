#!/usr/bin/env python3
"""chase_summary.py CHASE.tar.gz OUT.csv [--fit FIT.csv] [--self-test]

harness/chase_campaign.sh's victim (harness/chase.cu: kernels of K dependent DRAM round trips a
thread, from L2 or from DRAM) alone and beside MPS neighbours: per group, pass, shape and K, the kernel time (median over the
campaign's rounds of each round's median of 200 launches) and the time added against the victim
alone at the same thread percentage (p50_alone / p50_alone_b averaged for the 50% groups,
p100_alone for the 100% ones; nomps is listed against itself). OUT.csv: group, pass, blocks, threads,
k, median_us, alone_us, added_us, added_ns_per_trip.

--fit FIT.csv: per group, pass and shape, the least-squares line added_us = a + b * K over the K's: a is
what the neighbour adds once a kernel (µs), b what it adds per dependent round trip (ns), with the
victim's alone latency per trip (ns, K = 256) beside it. A per-kernel wait shows as a with b ~ 0; a
per-round-trip wait as b > 0.

--self-test: runs the campaign's --mock and checks that the fit recovers the mock's made-up
per-trip waits (0.1 / 0.25 / 0.5 µs beside gdramt32 / gdram / gdramt512, none beside gfast; twice
that from L2).
"""
import csv
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    """{group: {(pass, blocks, threads, k): [median_us of each round]}}; pass: l2 or dram (the first
    call's records, without --fresh: 1 GiB walked the same way every launch, "mixed")"""
    out = {}
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            name = os.path.basename(m.name)
            if not name.endswith(".jsonl"):
                continue
            group = name[:-len(".jsonl")]
            f = tar.extractfile(m)
            for lineno, line in enumerate(io.TextIOWrapper(f, "utf-8"), 1):
                if not line.strip():
                    continue
                try:
                    r = json.loads(line)
                    pas = {None: "mixed", 0: "l2", 1: "dram"}[r.get("fresh")]
                    key = (pas, int(r["blocks"]), int(r["threads"]), int(r["k"]))
                    out.setdefault(group, {}).setdefault(key, []).append(float(r["median_us"]))
                except (ValueError, KeyError, TypeError) as e:
                    sys.exit(f"{path}: {m.name}:{lineno}: bad record ({e})")
    return out


def alone_of(group, data):
    """The victim alone at the group's thread percentage: a dict key -> us."""
    if group == "nomps":
        refs = ["nomps"]
    else:
        pct = group.split("_")[0]
        refs = [g for g in (pct + "_alone", pct + "_alone_b") if g in data]
    if not refs:
        return None
    keys = data[refs[0]].keys()
    return {k: statistics.mean(statistics.median(data[g][k]) for g in refs if k in data[g])
            for k in keys}


def rows(data):
    for group in sorted(data):
        alone = alone_of(group, data)
        for key in sorted(data[group]):
            med = statistics.median(data[group][key])
            a = alone.get(key) if alone else None
            added = med - a if a is not None else None
            yield {"group": group, "pass": key[0], "blocks": key[1], "threads": key[2], "k": key[3],
                   "median_us": round(med, 3), "alone_us": "" if a is None else round(a, 3),
                   "added_us": "" if added is None else round(added, 3),
                   "added_ns_per_trip": "" if added is None else round(added * 1000 / key[3], 2)}


def fit(table):
    by = {}
    for r in table:
        if r["added_us"] != "":
            by.setdefault((r["group"], r["pass"], r["blocks"], r["threads"]), []).append(r)
    for (group, pas, b, t), rs in sorted(by.items()):
        ks = [r["k"] for r in rs]
        ys = [r["added_us"] for r in rs]
        mk, my = statistics.mean(ks), statistics.mean(ys)
        sxx = sum((k - mk) ** 2 for k in ks)
        slope = sum((k - mk) * (y - my) for k, y in zip(ks, ys)) / sxx if sxx else 0.0
        big = max(rs, key=lambda r: r["k"])
        yield {"group": group, "pass": pas, "blocks": b, "threads": t,
               "per_kernel_us": round(my - slope * mk, 3), "per_trip_ns": round(slope * 1000, 2),
               "alone_ns_per_trip": round(big["alone_us"] * 1000 / big["k"], 1)
               if big["alone_us"] != "" else ""}


def write(path, recs):
    recs = list(recs)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(recs[0].keys()))
        w.writeheader()
        w.writerows(recs)
    return recs


def self_test():
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["bash", os.path.join(HERE, "chase_campaign.sh"), d, "--mock"], check=True,
                       stdout=subprocess.DEVNULL, env=dict(os.environ, CHASE_DUR="0"))
        fits = {(f["group"], f["pass"], f["blocks"]): f
                for f in fit(list(rows(load(os.path.join(d, "chase.tar.gz")))))}
    want = {"p50_gfast": 0, "p50_gdramt32": 100, "p50_gdram": 250, "p50_gdramt512": 500,
            "p50_gdram_b": 250, "p100_gdram": 250, "p50_alone": 0, "nomps": 0}
    for g, ns in want.items():
        for pas, scale, alone in (("dram", 1, 607.8), ("l2", 2, 307.8)):  # (2 + 256 x) / 256 us
            f = fits[(g, pas, 16)]
            assert abs(f["per_trip_ns"] - scale * ns) < 1 and abs(f["per_kernel_us"]) < 0.01, (g, f)
            assert abs(f["alone_ns_per_trip"] - alone) < 0.1, f
    print("chase_summary self-test ok")


def main():
    args = sys.argv[1:]
    if args == ["--self-test"]:
        return self_test()
    if len(args) not in (2, 4) or (len(args) == 4 and args[2] != "--fit"):
        sys.exit(__doc__.split("\n")[0])
    data = load(args[0])
    if not data:
        sys.exit(f"{args[0]}: no victim records (*.jsonl) in the tarball")
    table = write(args[1], rows(data))
    if len(args) == 4:
        for f in write(args[3], fit(table)):
            print(f"{f['group']:>14} {f['pass']:>4} {f['blocks']:>4}x{f['threads']:<4} per kernel "
                  f"{f['per_kernel_us']:7.3f} us, per trip {f['per_trip_ns']:7.2f} ns "
                  f"(alone {f['alone_ns_per_trip']} ns a trip)")


if __name__ == "__main__":
    main()
