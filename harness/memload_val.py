#!/usr/bin/env python3
"""The MPS memory-path wait on victims its fit never saw (issue 10, FINDINGS §64, val10).

    python3 harness/memload_val.py RAW OUT.csv [--hqsim build/hqsim] [--names NAMES.csv]

RAW: traces/measured/h100/mpspct/disj/fend/val/graph.tar.gz unpacked (harness/mps_disj_nb_campaign.sh
with victims encoder:1 (suffix _enc), cnn:1 (_cnn) and the decoder (none) beside §54's gdramt32 /
gdram / gdramt512 at 50% threads). Per victim and neighbour, measured from rank 0's 16 Kineto
requests: kernels and kernel time per request, node gaps per request, and the time added a kernel
as §54 / §60 / §62 measure it for the decoder (kernel time of the instances up to 3x their kernel's
alone median, over that median, plus the node gaps, each less the alone group's own, over the
kernels of a request). Beside it hqsim's prediction (harness/lat_replay.py --victim: the victim's
100% graph profile, with openloop/ncu/'s file where the serving table takes one; resnet50 also
with mpspct/ncu/'s file) with models/h100-sxm.json as shipped and with `mps_mem_load_us` 0 (the
memory part off). Nothing is fitted: the decoder's rows are §62's fit, the others predictions.
--names: per victim and kernel name (cut to 60), its instances a request, its alone time (the mean
over its graph positions of the position's median) and the time added an instance beside each
neighbour (the same means of the position's median over the alone one's): which kernels carry it.
"""
import argparse
import collections
import csv
import gzip
import json
import os
import shutil
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# victim -> (the probe's config, group suffix); neighbour -> (lat_replay's case, the group's kind)
VICTIMS = {"decoder": ("decoder_b1", ""), "encoder": ("encoder_b1", "_enc"), "cnn": ("cnn_b1", "_cnn")}
NEIGHBOURS = {"gdramt32": "p50_gdramlo", "gdram": "p50_gdram", "gdramt512": "p50_gdramhi"}
# victim -> hqsim profiles: (label, lat_replay --ncu: None = openloop/ncu/'s file or the bare trace)
PROFILES = {"decoder": [("ncu", None)], "encoder": [("ncu", None)],
            "cnn": [("bare", None), ("ncu_mpspct", os.path.join(ROOT, "traces/measured/h100/mpspct/ncu/cnn_b1_graph.csv.gz"))]}


def requests(raw, tag, cfg):
    """Rank 0's 16 Kineto requests: per request a list of ((name, blocks), us) and the node gaps."""
    p = os.path.join(raw, "kineto", tag, f"{cfg}_n1.json.gz")
    ks = sorted((e for e in json.load(gzip.open(p))["traceEvents"] if e.get("cat") == "kernel"), key=lambda e: e["ts"])
    if not ks or len(ks) % 16:
        raise SystemExit(f"{p}: {len(ks)} kernels, not 16 equal requests")
    per = len(ks) // 16
    out = []
    for r in range(16):
        q = ks[r * per:(r + 1) * per]
        g = sum(q[i]["ts"] - q[i - 1]["ts"] - q[i - 1]["dur"] for i in range(1, per))
        out.append(([((e["name"][:60], e["args"]["grid"][0] * e["args"]["grid"][1] * e["args"]["grid"][2]),
                      float(e["dur"])) for e in q], g))
    return out


def by_name(raw, victim):
    """[name, instances a request, alone us, added us beside each neighbour] by graph position's medians."""
    cfg, sfx = VICTIMS[victim]
    groups = {nb: requests(raw, f"p50{nb}{sfx}_n1", cfg) for nb in ["none", *NEIGHBOURS]}
    med = {nb: [statistics.median(r[0][i][1] for r in reqs) for i in range(len(reqs[0][0]))]
           for nb, reqs in groups.items()}
    names = collections.defaultdict(list)
    for i, (k, _) in enumerate(groups["none"][0][0]):
        names[k[0]].append(i)
    rows = []
    for n, pos in names.items():
        alone = statistics.mean(med["none"][i] for i in pos)
        rows.append([victim, n, len(pos), f"{alone:.2f}",
                     *(f"{statistics.mean(med[nb][i] - med['none'][i] for i in pos):.2f}" for nb in NEIGHBOURS)])
    return sorted(rows, key=lambda r: -r[2] * float(r[3]))


def measured(raw, victim):
    cfg, sfx = VICTIMS[victim]
    groups = {"none": requests(raw, f"p50none{sfx}_n1", cfg)}
    for nb in NEIGHBOURS:
        if os.path.isdir(os.path.join(raw, "kineto", f"p50{nb}{sfx}_n1")):
            groups[nb] = requests(raw, f"p50{nb}{sfx}_n1", cfg)
    ref = collections.defaultdict(list)
    for inst, _ in groups["none"]:
        for k, d in inst:
            ref[k].append(d)
    med = {k: statistics.median(v) for k, v in ref.items()}
    res = {}
    for name, reqs in groups.items():
        inst = [x for r, _ in reqs for x in r]
        res[name] = {"kernels": len(reqs[0][0]), "kernel_us": sum(d for _, d in inst) / 16,
                     "gap_us": sum(g for _, g in reqs) / 16,
                     "rest_us": sum(d - med[k] for k, d in inst if k in med and d <= 3 * med[k]) / 16,
                     "ratio_p50": statistics.median(d / med[k] for k, d in inst if k in med)}
    base = res["none"]
    for r in res.values():
        r["added_us_per_kernel"] = (r["rest_us"] - base["rest_us"] + r["gap_us"] - base["gap_us"]) / r["kernels"]
    return res


def ncu_dram_mean(path):
    """The mean over an ncu file's kernels of its DRAM Throughput (% of peak)."""
    v = [float(r["Metric Value"].replace(",", "")) for r in csv.DictReader(gzip.open(path, "rt"))
         if r["Metric Name"] == "DRAM Throughput"]
    return sum(v) / len(v), len(v)


def model(d, **values):
    p = os.path.join(d, "h100-sxm.json")
    m = json.load(open(os.path.join(ROOT, "models", "h100-sxm.json")))
    m.update(values)
    json.dump(m, open(p, "w"), indent=2)
    return p


def predicted(hqsim, victim, ncu, gpu):
    cmd = ["python3", os.path.join(HERE, "lat_replay.py"), "--hqsim", hqsim, "--victim", victim,
           "--cases", "p50_alone," + ",".join(NEIGHBOURS.values())]
    if ncu:
        cmd += ["--ncu", ncu]
    if gpu:
        cmd += ["--extra", f"--gpu {gpu}"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
    cols = out[0].split(",")
    return {r["case"]: float(r["hqsim_added_us_per_kernel"]) for r in (dict(zip(cols, x.split(","))) for x in out[1:])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("out")
    ap.add_argument("--hqsim", default=os.path.join(ROOT, "build", "hqsim"))
    ap.add_argument("--names", default=None, help="also write the added time by kernel name here")
    a = ap.parse_args()
    if a.names:
        with open(a.names, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["victim", "kernel", "instances_per_request", "alone_us",
                        *(f"added_us_{nb}" for nb in NEIGHBOURS)])
            for v in ("encoder", "cnn", "decoder"):
                if v == "decoder":  # its control ran gdram only
                    continue
                w.writerows(by_name(a.raw, v))
    hqsim = os.path.abspath(a.hqsim)
    d = tempfile.mkdtemp(prefix="memload_val.")
    off = model(d, mps_mem_load_us=0.0)
    shipped = json.load(open(os.path.join(ROOT, "models", "h100-sxm.json")))
    head = ["victim", "role", "neighbour", "kernels_per_request", "kernel_us_per_request", "node_gap_us_per_request",
            "ratio_p50", "measured_added_us_per_kernel", "hqsim_profile", "hqsim_added_us_per_kernel",
            "hqsim_memory_part_off", "hqsim_minus_measured"]
    rows = []
    for victim in VICTIMS:
        m = measured(a.raw, victim)
        r = m["none"]
        rows.append([victim, "reference", "none", r["kernels"], f"{r['kernel_us']:.1f}", f"{r['gap_us']:.1f}",
                     f"{r['ratio_p50']:.3f}", "0", "", "", "", ""])
        for label, ncu in PROFILES[victim]:
            on, zero = predicted(hqsim, victim, ncu, None), predicted(hqsim, victim, ncu, off)
            for nb, case in NEIGHBOURS.items():
                if nb not in m:
                    continue
                r = m[nb]
                role = "control (§62 fitted it on §54's runs; rerun)" if victim == "decoder" else "predicted"
                rows.append([victim, role, nb, r["kernels"], f"{r['kernel_us']:.1f}", f"{r['gap_us']:.1f}",
                             f"{r['ratio_p50']:.3f}", f"{r['added_us_per_kernel']:.3f}", label, f"{on[case]:.3f}",
                             f"{zero[case]:.3f}", f"{on[case] - r['added_us_per_kernel']:+.3f}"])
    shutil.rmtree(d)
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        w.writerows(rows)
    print(f"# models/h100-sxm.json: mps_mem_load_us {shipped['mps_mem_load_us']}, "
          f"mps_mem_load_half {shipped['mps_mem_load_half']}; off: mps_mem_load_us 0")
    for r in [head] + rows:
        print(",".join(str(x) for x in r))
    h = os.path.join(ROOT, "traces/measured/h100")
    for f in ("openloop/ncu/decoder_b1_graph.csv.gz", "openloop/ncu/encoder_b1_graph.csv.gz",
              "mpspct/ncu/cnn_b1_graph.csv.gz"):
        m, n = ncu_dram_mean(os.path.join(h, f))
        print(f"# {f}: DRAM Throughput mean {m:.1f}% of peak over {n} kernels")


if __name__ == "__main__":
    main()
