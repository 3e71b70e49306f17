#!/usr/bin/env python3
"""Part P's committed data set (traces/measured/h100/mpsplace/, FINDINGS.md §41) from post.py's output.

  python3 harness/post.py --append P RAWDIR POSTED      # POSTED: a copy of traces/measured/h100
  python3 harness/mps_place_data.py POSTED OUT           # OUT: traces/measured/h100/mpsplace

A data set of its own (`hqsim validate traces/measured/h100/mpsplace`), not included by the H100's
manifest.json: its rows are diagnoses of the MPS dispatch, not part of the accuracy table.  What it
changes from post.py's files:
  - manifest.json: part P's entries, file paths relative to OUT, the carry folder left out of commands;
  - solo_durations.csv: part P's rows (the wall-clock kernels' solo time is their nominal time);
  - the FMA GEMM-like kernel's solo_ns (the MPS groups ran without solos): its median duration alone
    in p_gw_fma_n1 (the same client, no other client), stated in each entry's solo_durations;
  - blocks: every block of p_hol_* and of the one-process control p_gw_gt_c_1p (physical SM ids);
    of the MPS p_gw_* groups only client 0's (the GEMM-like kernel; the streaming clients' 200 k
    blocks each stay in the raw tarball, and their SM ids are virtual per client, FINDINGS.md §9);
  - occupancy.csv (from all blocks before trimming): per experiment and client, the blocks, mean
    kernel duration, block time p50 / p99, wall-clock blocks that ended more than 7 us beyond
    their time (a late start's extra tick is 16.5 us, FINDINGS.md §29), and the mean warps running on the GPU per SM.
Standard library only.
"""
import csv
import gzip
import json
import os
import re
import statistics as st
import sys


def load_ops(path):
    with open(path) as f:
        return list(csv.reader(f))


def occupancy(name, ops_rows, blk_path):
    """Rows of occupancy.csv for one experiment (all clients)."""
    h = ops_rows[0]
    ix = {k: i for i, k in enumerate(h)}
    warps, kdur, nominal = {}, {}, {}
    for r in ops_rows[1:]:
        if r[ix["type"]] != "kernel":
            continue
        key = (r[ix["process"]], r[ix["op"]])
        warps[key] = int(r[ix["block"]]) // 32
        nominal[key] = int(r[ix["work"]]) if r[ix["kind"]] == "gt" else None
        kdur.setdefault(r[ix["process"]], []).append(int(r[ix["duration_ns"]]))
    bt, late, busy, t0, t1 = {}, {}, {}, None, None
    with gzip.open(blk_path, "rt") as f:
        for r in csv.DictReader(f):
            p, s, e = r["process"], int(r["start_ns"]), int(r["end_ns"])
            bt.setdefault(p, []).append(e - s)
            nom = nominal[(p, r["op"])]
            if nom is not None:  # a wall-clock block that ran a late start's tick (7 us) beyond its time
                late[p] = late.get(p, 0) + (e - s > nom + 7000)
            busy[p] = busy.get(p, 0) + (e - s) * warps[(p, r["op"])]
            t0 = s if t0 is None else min(t0, s)
            t1 = e if t1 is None else max(t1, e)
    out = []
    for p in sorted(bt):
        v = sorted(bt[p])
        out.append([name, p, len(v), round(st.mean(kdur[p]) / 1e3, 2), round(v[len(v) // 2] / 1e3, 2),
                    round(v[int(0.99 * len(v))] / 1e3, 2), late.get(p, ""), round(busy[p] / (t1 - t0) / 132, 1)])
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(1)
    src, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    man = json.load(open(os.path.join(src, "generalize", "manifest_p.json")))
    fma_solo = None
    ops_n1 = load_ops(os.path.join(src, "mpsplace", "p_gw_fma_n1_ops.csv"))
    ix = {k: i for i, k in enumerate(ops_n1[0])}
    fma_solo = int(st.median(int(r[ix["duration_ns"]]) for r in ops_n1[1:] if r[ix["type"]] == "kernel"))
    occ = []
    for e in man["experiments"]:
        files = {k: v.replace("mpsplace/", "", 1) for k, v in e.get("files", {}).items()}
        for p in e.get("processes", []):
            p["command"] = re.sub(r"/\S*/\.carry-\w+/", "", p["command"])
        e["campaign_command"] = e["campaign_command"]
        if "ops" in files:
            rows = load_ops(os.path.join(src, "mpsplace", files["ops"]))
            h = {k: i for i, k in enumerate(rows[0])}
            if e["id"].startswith("p_gw_fma"):
                for r in rows[1:]:
                    if r[h["kind"]] == "fma" and r[h["grid"]] == "52":
                        r[h["solo_ns"]] = str(fma_solo)
                e["solo_durations"] = (f"the GEMM-like FMA kernel: {fma_solo} ns, its median duration alone in "
                                       "p_gw_fma_n1 (client 0 without other clients); wall-clock kernels: their time")
            with open(os.path.join(out, files["ops"]), "w", newline="") as f:
                csv.writer(f).writerows(rows)
        if "blocks" in files:
            src_blk = os.path.join(src, "mpsplace", files["blocks"])
            if "ops" in files:
                occ += occupancy(e["id"], rows, src_blk)
            keep_all = e["id"].startswith("p_hol") or e["nproc"] == 1
            with gzip.open(src_blk, "rt") as fi, gzip.open(os.path.join(out, files["blocks"]), "wt",
                                                            newline="", compresslevel=9) as fo:
                rd, wr = csv.reader(fi), csv.writer(fo)
                wr.writerow(next(rd))
                for r in rd:
                    if keep_all or r[0] == "0":
                        wr.writerow(r)
            if not keep_all:
                e["blocks_kept"] = "client 0 only (the GEMM-like kernel); all clients' in the raw tarball"
        e["files"] = files
    man["dataset"] = "hqsim ground truth, part P: where blocks go when MPS clients wait (FINDINGS.md §41)"
    stash = []  # one line per op, as post.py writes its manifests

    def compact(o):
        stash.append(json.dumps(o, separators=(",", ":")))
        return f"@@{len(stash) - 1}@@"
    for e in man["experiments"]:
        for pat in e.get("patterns", {}).values():
            pat["ops"] = [compact(o) for o in pat["ops"]]
            pat["streams"] = compact(pat["streams"])
    txt = re.sub(r'"@@(\d+)@@"', lambda m: stash[int(m[1])], json.dumps(man, indent=1))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        f.write(txt + "\n")
    with open(os.path.join(src, "solo_durations.csv")) as fi, \
            open(os.path.join(out, "solo_durations.csv"), "w", newline="") as fo:
        rd, wr = csv.reader(fi), csv.writer(fo)
        wr.writerow(next(rd))
        wr.writerows(r for r in rd if r[0].startswith("p_"))
    with open(os.path.join(out, "occupancy.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["experiment", "client", "blocks", "kernel_us_mean", "block_us_p50", "block_us_p99",
                     "gt_blocks_over_7us_late", "warps_per_sm_mean"])
        wr.writerows(occ)


if __name__ == "__main__":
    main()
