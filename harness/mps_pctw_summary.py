#!/usr/bin/env python3
"""Summarise harness/mps_pctw_campaign.sh (FINDINGS §46): per setting and kernel of the pctw spec,
the SMs its blocks used, the blocks per SM at once, its waves, and medians over the repetitions of
  span_us    first block start -> last block end (%globaltimer)
  block_us   a block's own time (start -> end), median over all blocks and repetitions
  first_us   the median block time of the blocks that started within 0.5 us of the first
  rest_us    the median block time of the others (later waves), empty for one wave
  first_mean_us, rest_mean_us, block_max_us   means of the two and the longest block (all reps)
  gap_us     the previous kernel's last block end -> this kernel's first block start
  ramp_us    first block start -> last block of the first wave started
usage: mps_pctw_summary.py RAWDIR OUT.csv [--settings nomps,mps100,mps50,mps25,nomps_again]
       mps_pctw_summary.py --compact RAWDIR DSTDIR   (the committed form of the block records: clock64
       columns dropped, %globaltimer rebased to each repetition's first block start, as t0_ns/t1_ns;
       ops.csv, meta and info copied; the summary reads either form)"""
import csv
import statistics as st
import sys
from collections import defaultdict


def med(v):
    return st.median(v) if v else float("nan")


def load(raw, s):
    ops = {}
    with open(f"{raw}/{s}_ops.csv") as f:
        for r in csv.DictReader(f):
            if r["phase"] == "main" and r["type"] == "kernel":
                ops[(int(r["rep"]), int(r["op"]))] = r
    blocks = defaultdict(list)
    with open(f"{raw}/{s}_blocks.csv") as f:
        for r in csv.DictReader(f):
            t0, t1 = (r["t0"], r["t1"]) if "t0" in r else (r["t0_ns"], r["t1_ns"])
            blocks[(int(r["rep"]), int(r["op"]))].append((int(r["smid"]), int(t0), int(t1)))
    return ops, blocks


def summarise(raw, s):
    ops, blocks = load(raw, s)
    reps = sorted({k[0] for k in ops})
    nops = sorted({k[1] for k in ops})
    rows = []
    for i in nops:
        meta = ops[(reps[0], i)]
        span, blk, first, rest, gap, ramp, nsm, per_sm, waves = [], [], [], [], [], [], [], [], []
        for r in reps:
            b = blocks[(r, i)]
            t0 = min(x[1] for x in b)
            t1 = max(x[2] for x in b)
            span.append((t1 - t0) / 1e3)
            blk += [(x[2] - x[1]) / 1e3 for x in b]
            fw = [x for x in b if x[1] - t0 <= 500]
            first += [(x[2] - x[1]) / 1e3 for x in fw]
            rest += [(x[2] - x[1]) / 1e3 for x in b if x[1] - t0 > 500]
            ramp.append((max(x[1] for x in fw) - t0) / 1e3)
            sms = {x[0] for x in b}
            nsm.append(len(sms))
            per_sm.append(len(fw) / max(1, len({x[0] for x in fw})))
            waves.append(len(b) / max(1, len(fw)))
            if i > 0 and (r, i - 1) in blocks:
                gap.append((t0 - max(x[2] for x in blocks[(r, i - 1)])) / 1e3)
        rows.append({"setting": s, "name": meta["name"], "kind": meta["kind"], "grid": meta["grid"],
                     "threads": meta["block"], "smem": meta["smem"], "work": meta["work"],
                     "sms": int(med(nsm)), "first_wave_blocks_per_sm": round(med(per_sm), 2),
                     "waves": round(med(waves), 2), "reps": len(reps),
                     "span_us": round(med(span), 3), "block_us": round(med(blk), 3),
                     "first_us": round(med(first), 3), "rest_us": round(med(rest), 3) if rest else "",
                     "first_mean_us": round(st.mean(first), 3),
                     "rest_mean_us": round(st.mean(rest), 3) if rest else "", "block_max_us": round(max(blk), 3),
                     "gap_us": round(med(gap), 3) if gap else "", "ramp_us": round(med(ramp), 3)})
    return rows


def compact(raw, dst):
    import glob
    import os
    import shutil
    os.makedirs(dst, exist_ok=True)
    for src in glob.glob(f"{raw}/*_blocks.csv"):
        rows = list(csv.DictReader(open(src)))
        base = {}
        for r in rows:
            base[r["rep"]] = min(base.get(r["rep"], int(r["t0"])), int(r["t0"]))
        with open(os.path.join(dst, os.path.basename(src)), "w") as f:
            f.write("rep,op,block,smid,t0_ns,t1_ns\n")
            for r in rows:
                b = base[r["rep"]]
                f.write(f'{r["rep"]},{r["op"]},{r["block"]},{r["smid"]},{int(r["t0"]) - b},{int(r["t1"]) - b}\n')
    for src in glob.glob(f"{raw}/*_ops.csv") + glob.glob(f"{raw}/*_meta.json") + [f"{raw}/info.txt"]:
        shutil.copy(src, dst)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--compact":
        return compact(sys.argv[2], sys.argv[3])
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    raw, out = sys.argv[1], sys.argv[2]
    sets = "nomps,mps100,mps50,mps25,nomps_again"
    if "--settings" in sys.argv:
        sets = sys.argv[sys.argv.index("--settings") + 1]
    rows = []
    for s in sets.split(","):
        rows += summarise(raw, s)
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
