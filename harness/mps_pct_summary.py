#!/usr/bin/env python3
"""Kernel by kernel, one PyTorch process without MPS and as an MPS client at 100/50/25% threads.

  mps_pct_summary.py RAW OUT.csv [SETTING,...]
RAW: the unpacked mpspct.tar.gz of harness/mps_pct_campaign.sh (RAW/<setting>/<config>.json.gz,
16 requests each; the first 2 are left out). One row per setting, config and distinct kernel
(name cut to 60 characters, grid, block): launches per request and the median duration (us); and
one row per setting and config named '(all kernels)': kernels per request and kernel time per request.
SETTING,...: the folders of RAW to read (default the five of mps_pct_campaign.sh; for the
mpscontend.tar.gz of harness/mps_contend_campaign.sh: decoder_n1,decoder_n2,decoder_n4,encoder_n2,encoder_n4).
"""
import collections
import csv
import gzip
import json
import os
import statistics as st
import sys

SETTINGS = ("nomps", "mps100", "mps50", "mps25", "nomps_again")
REQ, SKIP = 16, 2


def main(raw, out, settings=None):
    settings = settings.split(",") if settings else SETTINGS
    rows = []
    for cfg in ("encoder_b1_graph", "encoder_b8_graph", "decoder_b1_graph", "decoder_b16_graph",
                "cnn_b1_graph", "cnn_b8_graph"):
        for s in settings:
            p = os.path.join(raw, s, cfg + ".json.gz")
            if not os.path.exists(p):
                continue
            ks = sorted((e for e in json.load(gzip.open(p))["traceEvents"] if e.get("cat") == "kernel"),
                        key=lambda e: e["ts"])
            per = len(ks) // REQ
            kept = ks[per * SKIP:]
            by = collections.defaultdict(list)
            for e in kept:
                a = e["args"]
                by[(e["name"][:60], "x".join(map(str, a["grid"])), "x".join(map(str, a["block"])))].append(e["dur"])
            rows.append([cfg, s, "(all kernels)", "", "", per, round(sum(e["dur"] for e in kept) / (REQ - SKIP), 1)])
            for (name, g, b), d in sorted(by.items(), key=lambda kv: -sum(kv[1])):
                rows.append([cfg, s, name, g, b, round(len(d) / (REQ - SKIP), 2), round(st.median(d), 2)])
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["config", "setting", "kernel", "grid", "block", "per_request", "median_us_or_total_us"])
        w.writerows(rows)
    print(f"{out}: {len(rows)} rows")


if __name__ == "__main__":
    main(*sys.argv[1:4])
