#!/usr/bin/env python3
"""Summary of harness/idle_campaign.sh's raw data (issue 10, idle10; FINDINGS §59).

  idle_summary.py RAW.tar.xz phases.csv gaps.csv [--clocks clocks.csv]

phases.csv: per run (nomps, mps, nomps_rep) x configuration x phase of the drift sequence
(closed, open0.5, open0.8, closed, open0.8, closed): requests, throughput (closed phases),
medians of the latency (end - arrival), the service time (end - start), the graph's GPU span
(g_span), the H2D / D2H copies' GPU times, the time outside the GPU's ea->e2 (service - g_h2d -
g_span - g_d2h) and the preceding idle gap (start - previous end); the service median over
the first closed phase's (svc_x), and the same for the GPU span (span_x).
gaps.csv: per run x configuration x fixed idle gap: requests, medians of the service time,
GPU span, outside time and GPU copies, the host's own calls (host_pre: event record + H2D copy
call, from the request's start; host_launch: event record + replay() + event record; host_post:
event record + synchronize after the output copy returned), and the service median over the
gap-0 median (svc_x).
--clocks: the SM clock (nvidia-smi, every 100 ms) per run x configuration x phase, from the
phases' wall times (epoch), min / median.
"""
import argparse
import csv
import io
import json
import tarfile

ap = argparse.ArgumentParser()
ap.add_argument("raw")
ap.add_argument("phases")
ap.add_argument("gaps")
ap.add_argument("--clocks", default=None)
a = ap.parse_args()


def med(v):
    v = sorted(v)
    return v[len(v) // 2] if v else float("nan")


def fields(rows, cols):
    """Per request: latency, service, span, h2d, d2h, outside, idle gap before it (us)."""
    ix = {c: i for i, c in enumerate(cols)}
    out, prev_end = [], None
    for r in rows:
        svc = r[ix["end"]] - r[ix["start"]]
        gpu = r[ix["g_h2d"]] + r[ix["g_span"]] + r[ix["g_d2h"]]
        idle = r[ix["start"]] - prev_end if prev_end is not None else -1
        out.append({"lat": r[ix["end"]] - r[ix["arr"]], "svc": svc, "span": r[ix["g_span"]],
                    "pre": r[ix["h_h2d"]] - r[ix["start"]], "launch": r[ix["h_replay"]] - r[ix["h_h2d"]],
                    "post": r[ix["end"]] - r[ix["h_d2h"]],
                    "h2d": r[ix["g_h2d"]], "d2h": r[ix["g_d2h"]], "out": svc - gpu, "idle": idle})
        prev_end = r[ix["end"]]
    return out


def load(raw):
    runs = {}
    with tarfile.open(raw) as t:
        for m in t.getmembers():
            if m.name.endswith(".json"):
                tag = m.name.split("/")[-1][:-5]
                runs[tag] = json.load(t.extractfile(m))
            elif m.name.endswith("clocks.csv"):
                runs["_clocks"] = t.extractfile(m).read().decode()
    return runs


def clock_rows(text):
    """(epoch seconds, SM MHz) from nvidia-smi's csv; the probe's epochs are UTC like it."""
    import calendar
    import time
    rows = []
    for line in text.splitlines()[1:]:
        p = [x.strip() for x in line.split(",")]
        try:
            day, frac = p[0].split(".")
            e = calendar.timegm(time.strptime(day, "%Y/%m/%d %H:%M:%S")) + float("0." + frac)
            rows.append((e, float(p[1].split()[0])))
        except (ValueError, IndexError):
            continue
    return rows


def main():
    runs = load(a.raw)
    clocks = clock_rows(runs.pop("_clocks", ""))
    order = [t for t in ("nomps", "mps", "nomps_rep") if t in runs]
    ph_rows, gap_rows, clk_rows = [], [], []
    for tag in order:
        run = runs[tag]
        cols = run["cols"]
        for c in run["configs"]:
            cfg = c["config"].replace(":", "_b") + "_graph"
            base = base_span = None
            for k, p in enumerate(c["phases"]):
                f = fields(p["rows"], cols)
                svc, span = med([x["svc"] for x in f]), med([x["span"] for x in f])
                if base is None:
                    base, base_span = svc, span
                wall = (p["rows"][-1][cols.index("end")] - p["rows"][0][cols.index("start")]) / 1e6
                ph_rows.append({
                    "run": tag, "config": cfg, "step": k + 1, "phase": p["phase"],
                    "rate_per_s": p["rate_per_s"] or "", "requests": p["count"],
                    "thr_per_s": round(p["count"] / wall, 1) if p["phase"] == "closed" else "",
                    "lat_p50_us": round(med([x["lat"] for x in f]), 1),
                    "svc_p50_us": round(svc, 1), "svc_mean_us": round(sum(x["svc"] for x in f) / len(f), 1),
                    "span_p50_us": round(span, 1), "h2d_p50_us": round(med([x["h2d"] for x in f]), 2),
                    "d2h_p50_us": round(med([x["d2h"] for x in f]), 2),
                    "out_p50_us": round(med([x["out"] for x in f]), 1),
                    "idle_p50_us": round(med([x["idle"] for x in f[1:]]), 1),
                    "svc_x": round(svc / base, 4), "span_x": round(span / base_span, 4)})
                if clocks and "epoch" in p:
                    t1 = p["epoch"]
                    t0 = t1 - wall
                    mhz = [m for e, m in clocks if t0 - 0.05 <= e <= t1 + 0.05]
                    clk_rows.append({"run": tag, "config": cfg, "step": k + 1, "phase": p["phase"],
                                     "samples": len(mhz), "sm_mhz_min": min(mhz) if mhz else "",
                                     "sm_mhz_p50": med(mhz) if mhz else ""})
            s = c["sweep"]
            f = fields(s["rows"], cols)
            by = {}
            for g, x in zip(s["gap_us"], f):
                if g >= 0:
                    by.setdefault(g, []).append(x)
            g0 = med([x["svc"] for x in by[min(by)]])
            for g in sorted(by):
                v = by[g]
                gap_rows.append({
                    "run": tag, "config": cfg, "gap_us": g, "requests": len(v),
                    "idle_p50_us": round(med([x["idle"] for x in v]), 1),
                    "svc_p50_us": round(med([x["svc"] for x in v]), 1),
                    "span_p50_us": round(med([x["span"] for x in v]), 1),
                    "h2d_p50_us": round(med([x["h2d"] for x in v]), 2),
                    "d2h_p50_us": round(med([x["d2h"] for x in v]), 2),
                    "out_p50_us": round(med([x["out"] for x in v]), 1),
                    "host_pre_p50_us": round(med([x["pre"] for x in v]), 1),
                    "host_launch_p50_us": round(med([x["launch"] for x in v]), 1),
                    "host_post_p50_us": round(med([x["post"] for x in v]), 1),
                    "svc_x": round(med([x["svc"] for x in v]) / g0, 4)})
    for path, rows in ((a.phases, ph_rows), (a.gaps, gap_rows), (a.clocks, clk_rows)):
        if path and rows:
            with open(path, "w", newline="") as fh:
                w = csv.DictWriter(fh, fieldnames=list(rows[0]))
                w.writeheader()
                w.writerows(rows)


if __name__ == "__main__":
    main()
