#!/usr/bin/env python3
"""The MPS memory-path wait paid per dependent memory round trip (FINDINGS §65, issue 10, rt10).

    python3 harness/memtrip_fit.py [--hqsim build/hqsim] [--loads 0.5:1.0:0.1]
        [--trips 0:0.2:0.02] [--halves 0.005,0.01,0.02] [--fit decoder,cnn] [--grid OUT.csv]
        [--l2 C,S,RATIO,DEFAULT --reuses 0.25,0.5,1]

For every point of the grid (`mps_mem_load_us` x `mps_mem_trip_share` x `mps_mem_load_half` on a
copy of models/h100-sxm.json, `mps_fend_hold_us` 0) harness/lat_replay.py replays three b1 graph
victims beside FINDINGS §54's DRAM-reading neighbour graphs at 50% threads (gdramlo / gdram /
gdramhi: §54's gdramt32 / gdram / gdramt512, 111 / 355 / 911 GB/s): decoder b1 with its ncu file,
resnet50 b1 on its bare trace and encoder b1 with its ncu file, as the serving table runs them.
The measured time added a kernel (kernel time + node gaps, §62's measure): the decoder's from §54
(lat_replay.py's own column), resnet50's and the encoder's from §64 (mpspct/disj/fend/val/
summary.csv). Objective: the summed squared error over the --fit victims' nine or six rows; the
others are printed as predictions of the best point, apart. --fit encoder gives the reverse test.
--l2 turns on the L2 form of the per-trip wait (FINDINGS §69: `l2_evict_mb`, `l2_evict_shape`,
`l2_miss_ratio`, `l2_served_default` from the H200 chase and ncu, fixed) and adds `l2_reuse_share`
(--reuses) to the grid; without it every point has `l2_evict_mb` 0 (§65's form).
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import tempfile

from memload_fit import frange  # LO:HI:STEP or a list -> the grid values

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CASES = {"p50_gdramlo": "gdramt32", "p50_gdram": "gdram", "p50_gdramhi": "gdramt512"}
VAL = os.path.join(ROOT, "traces/measured/h100/mpspct/disj/fend/val/summary.csv")
# victim -> lat_replay options (the serving table's profiles: resnet50 has no ncu file there)
VICTIMS = {"decoder": [], "cnn": ["--ncu", "none"], "encoder": []}


def measured_val():
    """victim -> neighbour -> measured added us a kernel (§64's summary; the decoder's come from §54)."""
    out = {}
    for r in csv.DictReader(open(VAL)):
        if r["role"] == "predicted" and r["hqsim_profile"] in ("ncu", "bare"):
            out.setdefault(r["victim"], {})[r["neighbour"]] = float(r["measured_added_us_per_kernel"])
    return out


def replay(hqsim, victim, model):
    cmd = ["python3", os.path.join(HERE, "lat_replay.py"), "--hqsim", hqsim, "--victim", victim,
           *VICTIMS[victim], "--cases", "p50_alone," + ",".join(CASES), "--extra", f"--gpu {model}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:  # e.g. a victim so slowed that the neighbour ends first: the point is out
        print(f"# {victim} at {model}: {p.stderr.strip().splitlines()[-1]}", flush=True)
        return {nb: (float("inf"), "") for nb in CASES.values()}
    out = p.stdout.splitlines()
    cols = out[0].split(",")
    rows = {}
    for line in out[1:]:
        r = dict(zip(cols, line.split(",")))
        if r["case"] in CASES:
            rows[CASES[r["case"]]] = (float(r["hqsim_added_us_per_kernel"]), r["measured_added_us_per_kernel"])
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hqsim", default=os.path.join(ROOT, "build", "hqsim"))
    ap.add_argument("--loads", default="0.5:1.0:0.1", help="mps_mem_load_us values, LO:HI:STEP or a list")
    ap.add_argument("--trips", default="0:0.2:0.02", help="mps_mem_trip_share values")
    ap.add_argument("--halves", default="0.005,0.01,0.02", help="mps_mem_load_half values")
    ap.add_argument("--fit", default="decoder,cnn", help="the victims fitted; the others are predicted")
    ap.add_argument("--grid", default=None, help="write every grid point's rows here (CSV)")
    ap.add_argument("--l2", default=None, help="l2_evict_mb,l2_evict_shape,l2_miss_ratio,l2_served_default")
    ap.add_argument("--reuses", default="0.5", help="l2_reuse_share values (with --l2)")
    a = ap.parse_args()
    hqsim = os.path.abspath(a.hqsim)
    fit = a.fit.split(",")
    meas = measured_val()
    d = tempfile.mkdtemp(prefix="memtrip_fit.")
    model = os.path.join(d, "h100-sxm.json")
    base = json.load(open(os.path.join(ROOT, "models", "h100-sxm.json")))
    l2 = dict(zip(("l2_evict_mb", "l2_evict_shape", "l2_miss_ratio", "l2_served_default"),
                  map(float, a.l2.split(",")))) if a.l2 else {"l2_evict_mb": 0.0}
    reuses = frange(a.reuses) if a.l2 else [base["l2_reuse_share"]]
    head = ["mps_mem_load_us", "mps_mem_trip_share", "mps_mem_load_half", "sse_fit", "sse_predicted"] + \
        ["l2_reuse_share"] + \
        [f"{v}_{nb}_{w}" for v in VICTIMS for nb in CASES.values() for w in ("hqsim", "measured")]
    grid = []
    for half in frange(a.halves):
        for load in frange(a.loads):
            for trip, reuse in ((t, r) for t in frange(a.trips) for r in reuses):
                m = dict(base, mps_fend_hold_us=0.0, mps_mem_load_us=load, mps_mem_trip_share=trip,
                         mps_mem_load_half=half, l2_reuse_share=reuse, **l2)
                json.dump(m, open(model, "w"), indent=2)
                res = {}
                for v in VICTIMS:
                    rows = replay(hqsim, v, model)
                    res[v] = {nb: (h, float(mm) if mm else meas[v][nb]) for nb, (h, mm) in rows.items()}
                sse = {v: sum((h - mm) ** 2 for h, mm in res[v].values()) for v in VICTIMS}
                row = [load, trip, half, sum(sse[v] for v in fit), sum(sse[v] for v in VICTIMS if v not in fit)]
                row += [reuse]
                row += [x for v in VICTIMS for nb in CASES.values() for x in res[v][nb]]
                grid.append(row)
                print(",".join(f"{x:.4f}" if isinstance(x, float) else str(x) for x in row), flush=True)
    shutil.rmtree(d)
    if a.grid:
        with open(a.grid, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(head)
            w.writerows([[f"{x:.4g}" for x in r] for r in grid])
    best = min(grid, key=lambda r: r[3])
    print(f"# fit on {a.fit}: mps_mem_load_us {best[0]:g}, mps_mem_trip_share {best[1]:g}, mps_mem_load_half "
          f"{best[2]:g}, l2_reuse_share {best[5]:g} ({'the L2 form' if a.l2 else 'off'}); summed squared error "
          f"{best[3]:.4f} fitted, {best[4]:.4f} predicted")
    for i, v in enumerate(VICTIMS):
        cells = best[6 + 6 * i: 12 + 6 * i]
        print(f"#   {v} ({'fitted' if v in fit else 'predicted'}): " + ", ".join(
            f"{nb} {cells[2 * j]:.3f} (measured {cells[2 * j + 1]:.3f})" for j, nb in enumerate(CASES.values())))


if __name__ == "__main__":
    main()
