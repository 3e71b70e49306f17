#!/usr/bin/env python3
"""Which process a time-sliced (no MPS) GPU serves first after an idle gap (FINDINGS.md §19,
addendum): every iteration of the multi-process no-MPS runs, read from their ops CSVs.

  python3 harness/ts_first_served.py [DATADIR]      (default traces/measured/h100)

Per iteration: the previous iteration's last holder (the process whose op ended last), each
process's first GPU op's launch-call return (memset rows included: a memset is work of its
context), who started first and how long after its call returned (a switch: ~140 us; a free
resume: a few us).  Then how many iterations each candidate rule gets right:
  first      the process whose work is visible first (ties within 1 us: the holder if tied)
  rr         the next process after the holder in index order (round robin), any arrival
  not_holder the first arrival other than the holder
(rr and not_holder need a holder: the first iteration of a run has none and is left out.)
"""
import csv
import glob
import os
import sys

TIE_US = 1.0


def decisions(path):
    rows = [r for r in csv.DictReader(open(path)) if r["type"] in ("kernel", "memset")]
    procs = sorted({int(r["process"]) for r in rows})
    holder, out = None, []
    for it in sorted({int(r["iteration"]) for r in rows}):
        rs = [r for r in rows if int(r["iteration"]) == it]
        ret = {}
        for r in sorted(rs, key=lambda r: int(r["launch_ns"])):
            ret.setdefault(int(r["process"]), (int(r["launch_ns"]) + int(r["api_ns"])) / 1e3)
        s = min(rs, key=lambda r: int(r["start_ns"]))
        served = int(s["process"])
        out.append({"it": it, "holder": holder, "ret": ret, "served": served,
                    "wait": int(s["start_ns"]) / 1e3 - ret[served], "procs": procs})
        holder = int(max(rs, key=lambda r: int(r["end_ns"]))["process"])
    return out


def rule_first(d):
    t0 = min(d["ret"].values())
    tied = [p for p, t in d["ret"].items() if t - t0 < TIE_US]
    return tied if d["holder"] not in tied else [d["holder"]]


def rule_rr(d):
    if d["holder"] is None:
        return None
    ps = d["procs"]
    i = ps.index(d["holder"])
    return [next(p for p in ps[i + 1:] + ps[:i + 1] if p in d["ret"])]


def rule_not_holder(d):
    if d["holder"] is None:
        return None
    others = {p: t for p, t in d["ret"].items() if p != d["holder"]}
    return [min(others, key=others.get)] if others else [d["holder"]]


RULES = {"first": rule_first, "rr": rule_rr, "not_holder": rule_not_holder}


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else "traces/measured/h100"
    files = sorted(glob.glob(os.path.join(data, "dnn", "ops", "l_mp*_nomps_ops.csv")) +
                   glob.glob(os.path.join(data, "generalize", "processes", "i_mp*_nomps_ops.csv")))
    if not files:
        raise SystemExit(f"{data}: no multi-process no-MPS ops CSVs")
    score = {k: [0, 0] for k in RULES}
    for f in files:
        exp = os.path.basename(f)[:-len("_ops.csv")]
        for d in decisions(f):
            t0 = min(d["ret"].values())
            arr = " ".join(f"p{p}@{t - t0:+.1f}" for p, t in sorted(d["ret"].items(), key=lambda x: x[1]))
            marks = []
            for k, fn in RULES.items():
                want = fn(d)
                if want is None:
                    continue
                score[k][1] += 1
                ok = d["served"] in want
                score[k][0] += ok
                marks.append(f"{k}:{'ok' if ok else 'NO'}")
            holder = "-" if d["holder"] is None else f"p{d['holder']}"
            print(f"{exp:24s} it{d['it']} holder {holder:2s} returns {arr:40s} served p{d['served']} "
                  f"{d['wait']:+7.1f} us after its return  {' '.join(marks)}")
    print()
    for k, (ok, n) in score.items():
        print(f"{k:10s} {ok} of {n} iterations")


if __name__ == "__main__":
    main()
