#!/usr/bin/env python3
"""Split a graph request's time outside its GPU span into host-side pieces (FINDINGS §44, issue 10).

usage: span_host_split.py KINETO_DIR OUT_CSV [--drop 1]
       span_host_split.py --loops DRAM.tar.xz OUT_CSV   (span_host_loop.py's rank 0 blocks:
       quartiles of µs per iteration per group, from span_campaign.sh dram's archive)

KINETO_DIR is openloop/mpsgraph/kineto/ (rank 0's 16 profiled requests per group/config, written
by mps_graph_probe.py; compact() kept the CUDA runtime calls, kernels and copies, not the aten
ops).  One request is Runner.request(): cudaMemcpyAsync H2D, cudaGraphLaunch, cudaMemcpyAsync D2H
(pageable, blocking), cudaStreamSynchronize, cudaDeviceSynchronize (torch.cuda.synchronize()).
Pieces (µs, per request; "py" = host time between two runtime calls, i.e. Python + aten + the
profiler's own CPU-op bookkeeping):
  h2d_call   the H2D cudaMemcpyAsync call's CPU duration
  py_pre     H2D call end -> cudaGraphLaunch start
  launch     cudaGraphLaunch's CPU duration
  py_mid     launch end -> D2H call start (normally inside the GPU span)
  pre_gpu    request start (first runtime call) -> the graph's first kernel start (outside, before)
  handoff    the graph's last kernel end -> the D2H copy's GPU start
  copy       the D2H copy's GPU duration
  ret        the D2H copy's GPU end -> the D2H call's return
  py_s1      D2H call return -> cudaStreamSynchronize start
  ssync      cudaStreamSynchronize's CPU duration
  py_s2      cudaStreamSynchronize end -> cudaDeviceSynchronize start
  dsync      cudaDeviceSynchronize's CPU duration
  post_gpu   the graph's last kernel end -> cudaDeviceSynchronize's return (outside, after)
  py_next    cudaDeviceSynchronize's return -> the next request's first runtime call (loop)
  span       first kernel start -> last kernel end
  outside    pre_gpu + post_gpu + py_next (wall period - span)
The first --drop requests of each file are skipped (the first replay's launch is slow).
Medians over requests; one row per group (nomps_n1, mps_n1 .. mps_n8) and config.
"""
import csv
import gzip
import json
import os
import io
import statistics
import sys
import tarfile

PIECES = ["h2d_call", "py_pre", "launch", "py_mid", "pre_gpu", "handoff", "copy", "ret", "py_s1",
          "ssync", "py_s2", "dsync", "post_gpu", "py_next", "span", "outside"]


def end(e):
    return e["ts"] + e["dur"]


def requests(path):
    ev = [e for e in json.load(gzip.open(path))["traceEvents"] if e.get("ph") == "X"]
    rt = sorted((e for e in ev if e.get("cat") == "cuda_runtime"), key=lambda e: e["ts"])
    bycorr = {}
    for e in ev:
        if e.get("cat") in ("kernel", "gpu_memcpy"):
            bycorr.setdefault(e["args"].get("correlation"), []).append(e)
    # a request starts at the cudaStreamIsCapturing before its H2D copy and ends at its
    # cudaDeviceSynchronize; find each by its cudaGraphLaunch
    reqs = []
    for i, e in enumerate(rt):
        if e["name"] != "cudaGraphLaunch":
            continue
        prev = [x for x in rt[max(0, i - 4):i] if x["name"] == "cudaMemcpyAsync"]
        nxt = rt[i + 1:i + 8]
        d2h = next((x for x in nxt if x["name"] == "cudaMemcpyAsync"), None)
        ss = next((x for x in nxt if x["name"] == "cudaStreamSynchronize"), None)
        ds = next((x for x in nxt if x["name"] == "cudaDeviceSynchronize"), None)
        if not prev or not (d2h and ss and ds):
            continue
        h2d = prev[-1]
        j = rt.index(h2d)
        start = rt[j - 1] if j > 0 and rt[j - 1]["name"] == "cudaStreamIsCapturing" else h2d
        ks = [k for k in bycorr.get(e["args"]["correlation"], []) if k.get("cat") == "kernel"]
        cp = [c for c in bycorr.get(d2h["args"]["correlation"], []) if c.get("cat") == "gpu_memcpy"]
        if not ks or not cp:
            continue
        k0 = min(k["ts"] for k in ks)
        k1 = max(end(k) for k in ks)
        c = cp[0]
        reqs.append({"start": start["ts"], "h2d_call": h2d["dur"], "py_pre": e["ts"] - end(h2d),
                     "launch": e["dur"], "py_mid": d2h["ts"] - end(e), "pre_gpu": k0 - start["ts"],
                     "handoff": c["ts"] - k1, "copy": c["dur"], "ret": end(d2h) - end(c),
                     "py_s1": ss["ts"] - end(d2h), "ssync": ss["dur"], "py_s2": ds["ts"] - end(ss),
                     "dsync": ds["dur"], "post_gpu": end(ds) - k1, "span": k1 - k0, "_end": end(ds)})
    for a, b in zip(reqs, reqs[1:]):
        a["py_next"] = b["start"] - a["_end"]
        a["outside"] = a["pre_gpu"] + a["post_gpu"] + a["py_next"]
    return [r for r in reqs if "py_next" in r]


def loops(tar, out):
    rows = []
    with tarfile.open(tar) as t:
        for m in sorted(t.getmembers(), key=lambda m: m.name):
            name = m.name.lstrip("./")
            if not name.endswith("_host.csv"):
                continue
            v = [float(r["us_per_iter"])
                 for r in csv.DictReader(io.TextIOWrapper(t.extractfile(m)))]
            if len(v) < 4:
                sys.exit(f"{tar}: {name}: {len(v)} blocks, need 4")
            q = statistics.quantiles(v, n=4)
            rows.append({"group": name[:-len("_host.csv")], "blocks": len(v), "q1": round(q[0], 2),
                         "median": round(statistics.median(v), 2), "q3": round(q[2], 2)})
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, ["group", "blocks", "q1", "median", "q3"])
        w.writeheader()
        w.writerows(rows)
    for r in rows:
        print(r)


def main():
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "--loops":
        return loops(args[1], args[2])
    drop = 1
    if "--drop" in args:
        k = args.index("--drop")
        drop = int(args[k + 1])
        del args[k:k + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    root, out = args
    rows = []
    for group in sorted(os.listdir(root)):
        for f in sorted(os.listdir(os.path.join(root, group))):
            if not f.endswith(".json.gz"):
                continue
            rq = requests(os.path.join(root, group, f))[drop:]
            if not rq:
                sys.exit(f"{root}/{group}/{f}: no complete request found")
            row = {"group": group, "config": f.rsplit("_n", 1)[0], "requests": len(rq)}
            for p in PIECES:
                row[p] = round(statistics.median(r[p] for r in rq), 2)
            rows.append(row)
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, ["group", "config", "requests"] + PIECES)
        w.writeheader()
        w.writerows(rows)
    for r in rows:
        print(r["group"], r["config"], " ".join(f"{p}={r[p]}" for p in PIECES))


if __name__ == "__main__":
    main()
