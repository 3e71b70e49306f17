#!/usr/bin/env python3
"""Time outside a graph request's GPU span, by part (harness/span_campaign.sh, hqsim issue 10).

  span_summary.py SPAN.tar.xz[,MORE.tar.xz] [OUT.csv]

Per group (sharing_nN[_affinity]), request variant and what the other processes did, rank 0's
medians (us) over the slot's requests (the first 20 of each slot left out):
  launch    cudaGraphLaunch's host time
  start     request start -> first node's start (gs)
  span      gs -> ge (the last node's end)
  copy_ret  ge -> the output copy call's return (pg, pg512: the copy's data in host memory)
  ssync     the stream synchronize after it (pin: ge -> its return)
  dsync     the device synchronize after that
  ev        pinev: the CUDA events' elapsed time around the copy (hand-off + copy on the GPU)
  outside   request time - span
  total     request time
n = requests.  With OUT.csv, the same table as CSV.
"""
import csv
import io
import statistics
import sys
import tarfile

COLS = ("launch", "start", "span", "copy_ret", "ssync", "dsync", "outside", "total", "ev")


def rows_of(tar):
    with tarfile.open(tar) as t:
        for m in t.getmembers():
            name = m.name.lstrip("./")
            if not (name.endswith("_p0.csv")):
                continue
            group = name[:-len("_p0.csv")]
            for r in csv.DictReader(io.TextIOWrapper(t.extractfile(m))):
                yield group, r


def parts(r):
    g = {k: int(v) for k, v in r.items() if k not in ("variant", "others")}
    v = r["variant"]
    copy_end = g["h_copy"] if v.startswith("pg") else g["h_ssync"]
    return {
        "launch": g["h_launch"] - g["h_h2d"],
        "start": g["gs"],
        "span": g["ge"] - g["gs"],
        "copy_ret": copy_end - g["ge"],
        "ssync": g["h_ssync"] - copy_end if v.startswith("pg") else g["h_ssync"] - g["ge"],
        "dsync": g["h_dsync"] - g["h_ssync"],
        "outside": g["h_dsync"] - (g["ge"] - g["gs"]),
        "total": g["h_dsync"],
        "ev": g.get("ev", 0),
    }


def main():
    acc = {}
    for group, r in (x for f in sys.argv[1].split(",") for x in rows_of(f)):
        if int(r["i"]) < 20:
            continue
        key = (group, r["variant"], r["others"])
        acc.setdefault(key, []).append(parts(r))
    out = []
    for key in sorted(acc):
        v = acc[key]
        med = {c: statistics.median(x[c] for x in v) / 1e3 for c in COLS}
        out.append(dict(group=key[0], variant=key[1], others=key[2], n=len(v),
                        **{c: round(med[c], 2) for c in COLS}))
    w = csv.DictWriter(sys.stdout if len(sys.argv) < 3 else open(sys.argv[2], "w", newline=""),
                       fieldnames=["group", "variant", "others", "n", *COLS], lineterminator="\n")
    w.writeheader()
    w.writerows(out)


main()
