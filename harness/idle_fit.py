#!/usr/bin/env python3
"""The host wake cost after an idle gap, fitted on idle_campaign.sh's gap sweeps, and what it
explains of the open phases (issue 10, idle10; FINDINGS §59).

  idle_fit.py RAW.tar.xz [--fit-on nomps:decoder:1,nomps:decoder:16,...] [--json OUT.json]
              [--lindley OUT.csv]

Fit: per sweep (run x configuration) the service time's (end - arrival, arrival = the previous
end + the gap) median at each fixed gap minus its median
over the gaps <= 200 us (the baseline: no effect there in any sweep), then per gap the median of
those excesses over the --fit-on sweeps: a table (gap_us, wake_us), linear between points, 0 at
the baseline gaps, held beyond the last.  Every other sweep is predicted: its excess per gap
beside the table's.
--lindley: per open phase of the drift sequence, the measured p50 / p99 of the latency against a
single-server FIFO queue (start = max(arrival, previous end)) fed the phase's own arrivals and
  own      the phase's own service times in order (end - max(arrival, previous end); a check:
           equals the measured),
  closed   service times drawn from the configuration's first closed phase (its cycle times, end
           to end; seeded, --draws 100 draws, median of the percentiles),
  wake     the same plus the fitted wake cost at each request's idle gap,
and s_fit, the factor on the closed draws that meets the measured p50 (bisection): what §22 fitted.
"""
import argparse
import bisect
import csv
import json
import random
import tarfile

ap = argparse.ArgumentParser()
ap.add_argument("raw")
ap.add_argument("--fit-on", default="nomps:decoder:1,nomps:decoder:16,nomps_rep:decoder:1,nomps_rep:decoder:16")
ap.add_argument("--base-max-us", type=int, default=200)
ap.add_argument("--json", default=None)
ap.add_argument("--lindley", default=None)
ap.add_argument("--draws", type=int, default=100)
a = ap.parse_args()


def med(v):
    v = sorted(v)
    return v[len(v) // 2]


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def load(raw):
    runs = {}
    with tarfile.open(raw) as t:
        for m in t.getmembers():
            if m.name.endswith(".json"):
                runs[m.name.split("/")[-1][:-5]] = json.load(t.extractfile(m))
    return runs


def sweep_excess(run, c):
    ix = {k: i for i, k in enumerate(run["cols"])}
    by = {}
    for g, r in zip(c["sweep"]["gap_us"], c["sweep"]["rows"]):
        if g >= 0:
            by.setdefault(g, []).append(r[ix["end"]] - r[ix["arr"]])
    base = med([s for g, v in by.items() if g <= a.base_max_us for s in v])
    return base, {g: med(v) - base for g, v in sorted(by.items())}


def wake(table, g):
    """Linear between the table's points, 0 below the first, held beyond the last."""
    xs = [p[0] for p in table]
    if g <= xs[0]:
        return 0.0
    if g >= xs[-1]:
        return table[-1][1]
    i = bisect.bisect_right(xs, g)
    (x0, y0), (x1, y1) = table[i - 1], table[i]
    return y0 + (y1 - y0) * (g - x0) / (x1 - x0)


def service(rows, ix):
    """Each request's service: end - max(arrival, previous end), so that the loop's own time between
    requests counts as in the closed loop's cycle (end to end) and the queue below replays the
    phase exactly."""
    out, prev = [], None
    for r in rows:
        t0 = r[ix["arr"]] if prev is None else max(r[ix["arr"]], prev)
        out.append(r[ix["end"]] - t0)
        prev = r[ix["end"]]
    return out


def lindley(arr, svc, extra=None):
    lat, end = [], -1e18
    for i, (t, s) in enumerate(zip(arr, svc)):
        start = max(t, end)
        if extra is not None and end > -1e17 and t > end:
            s += extra(t - end)
        end = start + s
        lat.append(end - t)
    return lat


POS = {}


def main():
    runs = load(a.raw)
    fit_on = {tuple(x.split(":", 1)) for x in a.fit_on.split(",")}
    ex = {}
    for tag, run in runs.items():
        for c in run["configs"]:
            ex[(tag, c["config"])] = sweep_excess(run, c)
    gaps = sorted({g for _, e in ex.values() for g in e if g > a.base_max_us})
    table = [[a.base_max_us, 0.0]] + [[g, round(max(0.0, med([ex[k][1][g] for k in ex if k in fit_on])), 1)]
                                     for g in gaps]
    print("fitted on", sorted(fit_on), "table (gap_us, wake_us):", table)
    print(f"{'run':10s} {'config':12s} {'base_us':>8s} " + " ".join(f"{g:>8d}" for g in gaps))
    for (tag, cfg), (base, e) in sorted(ex.items()):
        kind = "fit" if (tag, cfg) in fit_on else "pred"
        print(f"{tag:10s} {cfg:12s} {base:8.1f} " + " ".join(f"{e[g]:+8.1f}" for g in gaps), kind)
    print(f"{'table':10s} {'':12s} {'':8s} " + " ".join(f"{wake(table, g):+8.1f}" for g in gaps))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"fit_on": sorted(":".join(k) for k in fit_on), "table": table}, f, indent=1)
    if not a.lindley:
        return
    rows = []
    for tag, run in runs.items():
        ix = {k: i for i, k in enumerate(run["cols"])}
        for c in run["configs"]:
            rng = random.Random(1)
            ph = c["phases"]
            c_rows = ph[0]["rows"]
            closed = [b[ix["end"]] - a_[ix["end"]] for a_, b in zip(c_rows, c_rows[1:])]
            cmed = med(closed)
            for k, p in enumerate(ph):
                if p["phase"] == "closed":
                    if k:  # the closed phase again, after open ones: drift
                        cy = [b[ix["end"]] - a_[ix["end"]] for a_, b in zip(p["rows"], p["rows"][1:])]
                        rows.append({"run": tag, "config": c["config"].replace(":", "_b") + "_graph", "step": k + 1,
                                     "phase": "closed", "requests": len(p["rows"]),
                                     "queued_x": round(med(cy) / cmed, 4)})
                    continue
                arr = [r[ix["arr"]] for r in p["rows"]]
                svc = service(p["rows"], ix)
                meas = [r[ix["end"]] - r[ix["arr"]] for r in p["rows"]]
                own = lindley(arr, svc)
                draws = [[rng.choice(closed) for _ in arr] for _ in range(a.draws)]

                def pcts(scale, extra=None):
                    ls = [lindley(arr, [s * scale for s in d], extra) for d in draws]
                    return med([pct(x, 0.5) for x in ls]), med([pct(x, 0.99) for x in ls])
                c50, c99 = pcts(1.0)
                w50, w99 = pcts(1.0, lambda g: wake(table, g))
                lo, hi, m50 = 0.8, 1.25, pct(meas, 0.5)
                for _ in range(14):
                    mid = (lo + hi) / 2
                    lo, hi = (mid, hi) if pcts(mid)[0] < m50 else (lo, mid)
                idle = [t - e for t, e in zip(arr[1:], [r[ix["end"]] for r in p["rows"][:-1]]) if t > e]
                # requests that queued behind the previous one (no idle gap) and those after an idle
                # gap; pos: requests since the last idle gap (0: the first after it)
                qd, ad, pos = [], [], 0
                for i in range(1, len(arr)):
                    waited = arr[i] > p["rows"][i - 1][ix["end"]]
                    pos = 0 if waited else pos + 1
                    (ad if waited else qd).append(svc[i])
                    POS.setdefault(min(pos, 5), []).append(svc[i] / cmed)
                rows.append({"run": tag, "config": c["config"].replace(":", "_b") + "_graph", "step": k + 1,
                             "phase": p["phase"], "requests": len(arr),
                             "idle_frac": round(len(idle) / max(1, len(arr) - 1), 3),
                             "idle_p50_us": round(med(idle), 1) if idle else "",
                             "wake_mean_us": round(sum(wake(table, g) for g in idle) / len(arr), 2),
                             "svc_x": round(sum(svc) / len(svc) / (sum(closed) / len(closed)), 4),
                             "queued_x": round(med(qd) / cmed, 4) if qd else "",
                             "after_idle_x": round(med(ad) / cmed, 4) if ad else "",
                             "meas_p50_us": round(m50, 1), "meas_p99_us": round(pct(meas, 0.99), 1),
                             "own_p50_us": round(pct(own, 0.5), 1),
                             "closed_p50_us": round(c50, 1), "closed_p99_us": round(c99, 1),
                             "wake_p50_us": round(w50, 1), "wake_p99_us": round(w99, 1),
                             "err_closed_p50_pct": round(100 * (c50 / m50 - 1), 1),
                             "err_wake_p50_pct": round(100 * (w50 / m50 - 1), 1),
                             "s_fit": round((lo + hi) / 2, 4)})
    cl = [r["queued_x"] for r in rows if r["phase"] == "closed"]
    op = [r["queued_x"] for r in rows if r["phase"] != "closed" and r["queued_x"] != ""]
    print(f"median service over the first closed phase's: closed again {med(cl):.4f} ({min(cl):.3f}-{max(cl):.3f}, "
          f"{len(cl)} phases); open, requests that queued {med(op):.4f} ({min(op):.3f}-{max(op):.3f}, {len(op)}); "
          f"open, after an idle gap {med([r['after_idle_x'] for r in rows if r.get('after_idle_x')]):.4f}")
    print("open phases pooled, service over the closed median by requests since the last idle gap (5: 5 or more): " +
          ", ".join(f"{k}: {med(v):.4f} (n {len(v)})" for k, v in sorted(POS.items())))
    for loop in ("open0.5", "open0.8"):
        sel = [r for r in rows if r["phase"] == loop]
        print(f"{loop}: {len(sel)} phases; service over the closed phase's, median {med([r['svc_x'] for r in sel]):.4f} "
              f"({min(r['svc_x'] for r in sel):.3f}-{max(r['svc_x'] for r in sel):.3f}); p50 error of the queue fed the "
              f"closed service, median |.| {med([abs(r['err_closed_p50_pct']) for r in sel]):.1f}%, with the wake "
              f"{med([abs(r['err_wake_p50_pct']) for r in sel]):.1f}%; within 10%: "
              f"{sum(abs(r['err_closed_p50_pct']) <= 10 for r in sel)} -> {sum(abs(r['err_wake_p50_pct']) <= 10 for r in sel)}; "
              f"own == measured in {sum(r['own_p50_us'] == r['meas_p50_us'] for r in sel)}")
    with open(a.lindley, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(next(r for r in rows if r["phase"] != "closed")), restval="")
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
