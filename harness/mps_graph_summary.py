#!/usr/bin/env python3
"""Tables of harness/mps_graph_campaign.sh (issue 10, fast10).

  mps_graph_summary.py RAW [OUT.csv]

RAW: the campaign's request files (its tarball unpacked, or openloop/mpsgraph/requests.tar.gz).  Per group (nomps_n1, mps_n1..8) and configuration,
the plain phase pooled over all processes: requests/s per process, and medians (us) of the
request wall time, the host time to the H2D call's return, to replay()'s return (the
cudaGraphLaunch call), to the blocking output copy's return, to synchronize's return, and the
GPU side from CUDA events: H2D copy (ea->e0), graph span (e0->e1), D2H copy (e1->e2); 'out' =
wall - span, the request's time outside its graph's GPU span.
"""
import csv
import glob
import json
import os
import statistics as st
import sys

raw = sys.argv[1]
if raw.endswith(".tar.gz"):
    import tarfile
    import tempfile
    tmp = tempfile.mkdtemp(prefix="mpsgraph.")
    with tarfile.open(raw) as t:
        t.extractall(tmp, filter="data")
    raw = tmp
# MPSG_GROUPS: other group tags (mps_disj_campaign.sh: p50_n1,p50_n2,p25_n1,p25_n4)
groups = os.environ.get("MPSG_GROUPS", "nomps_n1,mps_n1,mps_n2,mps_n4,mps_n8").split(",")
COLS = ["h_h2d", "h_replay", "h_d2h", "h_sync", "g_h2d", "g_span", "g_d2h"]
out = []
for g in groups:
    files = sorted(glob.glob(os.path.join(raw, f"{g}_p*.json")))
    per = {}
    for f in files:
        d = json.load(open(f))
        for ph in d["phases"]:
            if ph["phase"] != "plain":
                continue
            per.setdefault(ph["config"], []).append(ph["rows"])
    for cfg, procs in per.items():
        rows = [r for p in procs for r in p]
        if not rows:  # a phase that served no request (mps_disj_campaign.sh's decoder b16)
            continue
        rate = st.mean(len(p) / (sum(r[3] for r in p) / 1e6) for p in procs if p)
        med = {c: st.median(r[i] for r in rows) for i, c in enumerate(COLS)}
        outside = st.median(r[3] - r[5] for r in rows)
        out.append({"group": g, "config": cfg.replace(":", "_b") + "_graph", "n": len(procs), "req_per_s": round(rate, 1),
                    "requests": len(rows), **{c: round(v, 2) for c, v in med.items()}, "outside": round(outside, 1)})
w = csv.DictWriter(open(sys.argv[2], "w") if len(sys.argv) > 2 else sys.stdout, fieldnames=list(out[0]))
w.writeheader()
w.writerows(out)
