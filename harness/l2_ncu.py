#!/usr/bin/env python3
"""The L2-served share of each serving kernel's loads, from harness/l2_campaign.sh's Nsight Compute
metrics (hqsim issue 10, FINDINGS §69).

  l2_ncu.py table NCURAW.tar.gz TRACEDIR OUT.csv
      one row per kernel of one request of every configuration in the tarball (ncu_<config>.csv):
      its duration, L2 read bytes from the SMs (lts__t_sectors_srcunit_tex_op_read x 32 B), DRAM
      read bytes, the L2-served share 1 - DRAM / L2 read bytes (clipped to [0, 1]; ncu's own hit
      rate is printed beside it: above 100% on the GH100, so not used), issue share, tensor-pipe
      share; checked kernel by kernel (identifier, grid) against TRACEDIR/<config>.json.gz; and
      per configuration the duration-weighted mean share on stdout.
  l2_ncu.py merge NCU.csv.gz NCURAW.tar.gz CONFIG TRACE.json.gz OUT.csv.gz
      NCU.csv.gz (an ncu_request.py file: one record per kernel of TRACE) with the two byte
      metrics of CONFIG's request appended to every record (same ID): what hqsim's ncu import reads
      as the kernel's l2_served. OUT may be NCU.
"""
import csv
import gzip
import io
import os
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ncu_request  # noqa: E402

L2RD = "lts__t_sectors_srcunit_tex_op_read.sum"
DRAMRD = "dram__bytes_read.sum"
HIT = "lts__t_sector_hit_rate.pct"
ISSUE = "sm__inst_issued.avg.pct_of_peak_sustained_active"
TENSOR = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
DUR = "gpu__time_duration.sum"


def raw_request(tarpath, config):
    """The ncu records of CONFIG's request, in launch order: [{name, grid, block, m: {metric: (unit,
    value)}}]."""
    with tarfile.open(tarpath) as tar:
        name = next((m for m in tar.getnames() if os.path.basename(m) == f"ncu_{config}.csv"), None)
        if name is None:
            sys.exit(f"{tarpath}: no ncu_{config}.csv")
        txt = tar.extractfile(name).read().decode()
    if '"ID"' not in txt:
        sys.exit(f"{tarpath}: ncu_{config}.csv has no records")
    ks = {}
    for r in csv.DictReader(io.StringIO(txt[txt.index('"ID"'):])):
        k = ks.setdefault(r["ID"], {"name": r["Kernel Name"], "grid": r["Grid Size"], "block": r["Block Size"],
                                    "m": {}})
        k["m"][r["Metric Name"]] = (r["Metric Unit"], r["Metric Value"].replace(",", ""))
    return list(ks.values())


def num(k, metric):
    try:
        return float(k["m"][metric][1])
    except (KeyError, ValueError):
        return None


def matched(ks, trace):
    """The trace's kernels, each with its record of the request (checked as ncu_request.py does)."""
    tk = ncu_request.trace_kernels(trace)
    if len(tk) % len(ks):
        sys.exit(f"{trace}: {len(tk)} kernels is not a whole number of requests of {len(ks)}")
    for i, e in enumerate(tk):
        k = ks[i % len(ks)]
        a, b = ncu_request.ident(k["name"]), ncu_request.ident(e["name"])
        if not (a.startswith(b) or b.startswith(a)) or \
                ncu_request.dims(e["args"]["grid"]).replace(" ", "") != k["grid"].replace(" ", ""):
            sys.exit(f"{trace}: kernel {i} is {e['name'][:60]}, the request's {i % len(ks)} {k['name'][:60]}")
    return [(e, ks[i % len(ks)]) for i, e in enumerate(tk)]


def served(k):
    l2, dram = num(k, L2RD), num(k, DRAMRD)
    if not l2 or dram is None:
        return None
    return min(1.0, max(0.0, 1.0 - dram / (32.0 * l2)))


def table(tarpath, tracedir, out):
    with tarfile.open(tarpath) as tar:
        configs = sorted(os.path.basename(n)[4:-4] for n in tar.getnames()
                         if os.path.basename(n).startswith("ncu_") and n.endswith(".csv"))
    head = ["config", "kernel", "name", "grid", "block", "duration_us", "l2_read_mb", "dram_read_mb",
            "l2_served", "ncu_hit_rate_pct", "issue_pct", "tensor_pct"]
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        for cfg in configs:
            ks = raw_request(tarpath, cfg)
            matched(ks, os.path.join(tracedir, cfg + ".json.gz"))
            tw = ts = 0.0
            for i, k in enumerate(ks):
                h, d = served(k), num(k, DUR) or 0.0
                w.writerow([cfg, i, k["name"][:120], k["grid"], k["block"], round(d / 1000, 3),
                            round(32 * (num(k, L2RD) or 0) / 1e6, 4), round((num(k, DRAMRD) or 0) / 1e6, 4),
                            "" if h is None else round(h, 4), num(k, HIT), num(k, ISSUE), num(k, TENSOR)])
                if h is not None:
                    tw += d
                    ts += d * h
            print(f"{cfg}: {len(ks)} kernels, duration-weighted L2-served share {ts / tw:.3f}")


def merge(ncu_in, tarpath, config, trace, out):
    ks = raw_request(tarpath, config)
    pairs = matched(ks, trace)
    with gzip.open(ncu_in, "rt", newline="") as f:
        rows = list(csv.reader(f))
    head, body = rows[0], rows[1:]
    ix = {c: head.index(c) for c in ("ID", "Metric Name", "Metric Unit", "Metric Value")}
    body = [r for r in body if r[ix["Metric Name"]] not in (L2RD, DRAMRD)]  # merging twice changes nothing
    first = {}
    for r in body:
        first.setdefault(int(r[ix["ID"]]), r)
    if sorted(first) != list(range(len(pairs))):
        sys.exit(f"{ncu_in}: ids 0..{len(pairs) - 1} expected (one record per kernel of {trace})")
    extra = []
    for i, (e, k) in enumerate(pairs):
        for m in (L2RD, DRAMRD):
            if m in k["m"]:
                r = list(first[i])
                r[ix["Metric Name"]], (r[ix["Metric Unit"]], r[ix["Metric Value"]]) = m, k["m"][m]
                extra.append(r)
    out_rows = sorted(body + extra, key=lambda r: int(r[ix["ID"]]))  # stable: each record's rows together
    with gzip.open(out, "wt", newline="", compresslevel=9) as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(head)
        w.writerows(out_rows)
    print(f"{out}: {len(pairs)} kernels, {len(extra)} rows added")


def main():
    a = sys.argv[1:]
    if a[:1] == ["table"] and len(a) == 4:
        table(*a[1:])
    elif a[:1] == ["merge"] and len(a) == 6:
        merge(*a[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
