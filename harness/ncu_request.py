#!/usr/bin/env python3
"""Nsight Compute per-kernel data of one request, for every kernel of a Kineto trace.

  ncu_request.py NCU.csv TRACE.json.gz OUT.csv.gz [--config]
NCU.csv: `ncu --csv --page details` of one request of the program the Kineto trace recorded
(torch_graphs.py --ncu-one; harness/mps_pct_campaign.sh). Checks that the request's kernels are
the trace's, kernel by kernel (identifier and grid), then writes an ncu CSV (gzip) with one record
per kernel of the trace -- the request's records in turn, named as the trace names its kernels --
keeping what hqsim's ncu import uses: registers, issue slots busy, SM throughput (the pipe share,
FINDINGS.md section 20; files made before 2026-11-26 18:00 UTC lack it), DRAM throughput.
With --config also ncu's "Shared Memory Configuration Size" (hqsim reads it as the kernel's
smem_config_bytes, its join window: FINDINGS.md sections 28 and 40); without it the output is as before.
`hqsim run TRACE OUT.csv.gz` then gives every kernel its measured issue share and DRAM throughput
(hqsim matches a trace's kernels to ncu records by name and launch order).
"""
import csv
import gzip
import io
import json
import re
import sys

KEEP = ("Registers Per Thread", "Issue Slots Busy", "Compute (SM) Throughput", "DRAM Throughput")
# --config: also the driver's shared-memory configuration, which hqsim's ncu import turns into the
# kernel's smem_config_bytes (its join window, FINDINGS §28); off by default, as the committed files
CONFIG = ("Shared Memory Configuration Size",)
# ncu's own column order (hqsim recognises an ncu CSV by its first two columns)
HEAD = ["ID", "Process ID", "Process Name", "Kernel Name", "Block Size", "Grid Size", "Metric Name", "Metric Unit",
        "Metric Value"]


def trace_kernels(path):
    t = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    ks = [e for e in t["traceEvents"] if e.get("cat") in ("kernel", "Kernel")]
    ks.sort(key=lambda e: e["ts"])
    return ks


def ident(name):
    """The kernel's own identifier: demanglers spell its namespaces and template
    arguments differently (ncu 'at::<unnamed>::', Kineto 'at::native::(anonymous
    namespace)::')."""
    return re.split(r"[<(]", name.replace("void ", "").replace("(anonymous namespace)", ""))[0].split("::")[-1]


def dims(v):
    return "(" + ", ".join(str(x) for x in v) + ")"


def main(ncu, trace, out, config=False):
    txt = open(ncu).read()
    rows = list(csv.DictReader(io.StringIO(txt[txt.index('"ID"'):])))
    ks = {}
    for r in rows:
        k = ks.setdefault(r["ID"], {"name": r["Kernel Name"], "block": r["Block Size"], "grid": r["Grid Size"],
                                    "pid": r["Process ID"], "proc": r["Process Name"], "m": {}})
        if r["Metric Name"] in KEEP + CONFIG:
            k["m"][r["Metric Name"]] = (r["Metric Unit"], r["Metric Value"].replace(",", ""))
    ks = list(ks.values())
    tk = trace_kernels(trace)
    if len(tk) % len(ks):
        sys.exit(f"{trace}: {len(tk)} kernels is not a whole number of requests of {len(ks)}")
    for i, e in enumerate(tk):  # every request must be the ncu'd one, kernel by kernel
        k = ks[i % len(ks)]
        a, b = ident(k["name"]), ident(e["name"])  # Kineto's names cut to 80 characters
        if not (a.startswith(b) or b.startswith(a)) or \
                dims(e["args"]["grid"]).replace(" ", "") != k["grid"].replace(" ", ""):
            sys.exit(f"{ncu}: kernel {i % len(ks)} is {k['name'][:60]} {k['grid']}, the trace's kernel {i} "
                     f"{e['name'][:60]} {e['args']['grid']}")
    with gzip.open(out, "wt", newline="", compresslevel=9) as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(HEAD)
        for i, e in enumerate(tk):
            k = ks[i % len(ks)]
            for name in KEEP + (CONFIG if config else ()):
                if name in k["m"]:
                    w.writerow([i, k["pid"], k["proc"], e["name"], k["block"], k["grid"], name, *k["m"][name]])
    print(f"{out}: {len(tk)} kernels, {len(tk) // len(ks)} requests of {len(ks)}")


if __name__ == "__main__":
    args = [x for x in sys.argv[1:] if x != "--config"]
    if len(args) != 3:
        sys.exit("usage: ncu_request.py NCU.csv TRACE.json.gz OUT.csv.gz [--config]")
    main(*args, config="--config" in sys.argv[1:])
