#!/usr/bin/env python3
"""Which shared-memory configuration does the driver choose for a kernel?

Reads every Nsight Compute export of the project that prints "Shared Memory
Configuration Size" next to the launch shape (registers per thread, block
size, static / dynamic / driver shared memory per block, grid), keeps one row
per distinct launch shape, and compares the measured configuration with
candidate rules.  Every rule picks the smallest carveout of the model's list
(models/h100-sxm.json smem_carveouts_kib, optionally minus
smem_carveouts_rule_skips_kib) holding `b` blocks of (shared memory +
per-block reservation); the rules differ in how `b` (blocks per SM) is
computed and in the reservation.

Split: the distinct shapes sorted by (file, kernel name, shape); even
positions form the fit half, odd positions the prediction half.  The rule
with the most agreements on the fit half is "chosen"; its agreement on the
other half is the prediction.

R8 was written after reading every row (it matches the smem-light kernels'
pattern: 2 / 4 / 8 / 16 / 32 blocks per SM -> 8 / 16 / 32 / 32 / 32 KiB), so
its count on the "predicted" half is not a prediction.

Held-out check (issue 11, 2026-11-27): `harness/specs/smem_cfg.spec` (kernels of the
validated experiments that no export showed: the GEMV, lo_carve's K1 / K2 shapes, part I's
kernels, and 256-thread kernels without shared memory limited by registers to 1-6 blocks
per SM) was profiled in one Nsight Compute call into traces/measured/h100/ncu/
ncu_smem_cfg.csv.gz.  Before that export existed, this script printed every rule's
configuration for those shapes (NEW_CFG, registers from ptxas) and named the rule
expected to match them: PREDICTED_RULE.  That file is kept out of the fit / predicted
halves above; its rows score each rule on shapes no rule was written from.

Usage: python3 harness/smem_rule_check.py [--table] [--model models/h100-sxm.json]
       [FILES...]   (default: every export under traces/ that has the metric,
                     the held-out export apart)
"""
import argparse
import csv
import gzip
import io
import json
import os
import sys

METRICS = {
    "Registers Per Thread": "regs",
    "Static Shared Memory Per Block": "static",
    "Dynamic Shared Memory Per Block": "dynamic",
    "Driver Shared Memory Per Block": "driver",
    "Shared Memory Configuration Size": "config",
    "Threads": "threads_total",
    "Function Cache Configuration": "cache_pref",
    "Block Limit Registers": "lim_regs",
    "Block Limit Warps": "lim_warps",
    "Block Limit SM": "lim_sm",
}


def num(s):
    s = s.replace(",", "").strip()
    try:
        return float(s)
    except ValueError:
        return None


def to_bytes(v, unit):
    mult = {"byte": 1, "byte/block": 1, "Kbyte": 1000, "Kbyte/block": 1000,
            "KB": 1000, "Mbyte": 1e6, "Kibyte": 1024, "Kibyte/block": 1024}
    return v * mult.get(unit, 1)


def dims(s):
    p = [int(x) for x in s.strip("() ").split(",")]
    r = 1
    for x in p:
        r *= x
    return r


HELD_OUT = "traces/measured/h100/ncu/ncu_smem_cfg.csv.gz"


def find_files(root):
    """Every .csv / .csv.gz under @root that prints the configuration, but the
    held-out export."""
    hits = []
    for d, _, names in os.walk(root):
        for n in names:
            f = os.path.join(d, n)
            if os.path.abspath(f) == os.path.abspath(HELD_OUT):
                continue
            if (n.endswith(".csv") or n.endswith(".csv.gz")) and \
                    "Shared Memory Configuration Size" in read_text(f):
                hits.append(f)
    return sorted(hits)


def read_text(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", errors="replace") as fh:
        return fh.read()


def read_ncu(path):
    """One dict per profiled launch (ncu 'ID')."""
    lines = [l for l in read_text(path).splitlines() if l.startswith('"')]
    rows = {}
    for r in csv.DictReader(io.StringIO("\n".join(lines))):
        k = rows.setdefault(r["ID"], {"name": r["Kernel Name"],
                                       "block": dims(r["Block Size"]),
                                       "grid": dims(r["Grid Size"])})
        key = METRICS.get(r["Metric Name"])
        if not key:
            continue
        if key == "cache_pref":
            k[key] = r["Metric Value"]
            continue
        v = num(r["Metric Value"])
        if v is None:
            continue
        if key in ("static", "dynamic", "driver", "config"):
            v = to_bytes(v, r["Metric Unit"])
        k[key] = v
    return [k for k in rows.values() if "config" in k and "regs" in k]


def round_up(x, u):
    return (x + u - 1) // u * u


class Gpu:
    def __init__(self, path):
        m = json.load(open(path))
        self.m = m
        self.carve = [c * 1024 for c in m["smem_carveouts_kib"]]
        # the "skip 16" rules: hqsim's R0 passed over 16 KiB (models/h100-sxm.json until
        # 2026-11-27), written here so that the rules stay as defined
        self.skips = {16 * 1024}
        self.smem_sm = m["smem_per_sm_kib"] * 1024

    def limits(self, k, resv):
        m = self.m
        warps = -(-int(k["block"]) // 32)
        rpw = round_up(int(k["regs"]) * 32, m["reg_alloc_unit_regs"])
        sub = m["reg_subpartitions"]
        per_sub = (m["regs_per_sm"] // sub) // rpw
        lim_regs = per_sub * sub // warps
        smem = round_up(int(k["static"] + k["dynamic"]) + resv,
                        m["smem_alloc_granularity_bytes"])
        lim_warps = m["max_warps_per_sm"] // warps
        lim_sm = m["max_blocks_per_sm"]
        lim_smem = self.smem_sm // smem if smem else lim_sm
        return dict(regs=lim_regs, warps=lim_warps, sm=lim_sm, smem=lim_smem,
                    smem_block=smem)

    def pick(self, want, skip):
        for c in self.carve:
            if skip and c in self.skips:
                continue
            if c >= want:
                return c
        return self.smem_sm


def rule(bmode, resv, skip, grid_cap=False):
    """A candidate: b from `bmode` limits, reservation `resv` bytes."""
    def f(g, k):
        L = g.limits(k, resv)
        keys = {"all": ("regs", "warps", "sm", "smem"),
                "noregs": ("warps", "sm", "smem")}[bmode]
        b = min(L[x] for x in keys)
        if grid_cap:
            b = min(b, max(1, -(-int(k["grid"]) // g.m["sm_count"])))
        return g.pick(b * L["smem_block"], skip)
    return f


def rule_floor(per_block, cap):
    """b from all limits; the carveout must also hold min(b * per_block, cap)
    (formed after reading every row: not a prediction, see the docstring)."""
    def f(g, k):
        L = g.limits(k, 1024)
        b = min(L[x] for x in ("regs", "warps", "sm", "smem"))
        return g.pick(max(b * L["smem_block"], min(b * per_block, cap)), False)
    return f


RULES = [
    ("current: all limits, 1 KiB resv, skip 16", rule("all", 1024, True)),
    ("all limits, 1 KiB resv, 16 allowed", rule("all", 1024, False)),
    ("all limits, no resv, skip 16", rule("all", 0, True)),
    ("all limits, no resv, 16 allowed", rule("all", 0, False)),
    ("no regs, 1 KiB resv, skip 16", rule("noregs", 1024, True)),
    ("no regs, 1 KiB resv, 16 allowed", rule("noregs", 1024, False)),
    ("no regs, no resv, 16 allowed", rule("noregs", 0, False)),
    ("all limits, grid-capped, 1 KiB resv, skip 16",
     rule("all", 1024, True, True)),
    ("POST HOC: all limits, 16 allowed, >= min(b x 4 KiB, 32 KiB)",
     rule_floor(4096, 32768)),
]


# Kernels of hqsim's validated experiments with no ncu configuration, the
# shapes from their _ops.csv (regs, threads, static, dynamic): what each rule
# gives them.  generalize/mem_pairs i_gemv_tri (FINDINGS §30: the triad's
# blocks joined the GEMV's SMs) and leftover lo_carve_k1b1024_k2b512 (§3: the
# 512-thread K2 co-runs beside 1024-thread K1 blocks).
NO_NCU = [
    ("i_gemv_tri A_gemv132", 36, 256, 16, 0),
    ("i_gemv_tri B_tri528", 32, 256, 16, 0),
    ("lo_carve K1_b1024", 16, 1024, 16, 0),
    ("lo_carve K2_b512", 16, 512, 16, 0),
]


# harness/specs/smem_cfg.spec as launched (spec name, regs from ptxas of harness/bin/hqprobe
# built with CUDA 13.0 for sm_90, threads, grid, static, dynamic shared memory per block).
NEW_CFG = [
    ("gemv132", 36, 256, 132, 16, 0), ("tri528", 32, 256, 528, 16, 0),
    ("cpy528", 30, 256, 528, 16, 0), ("red528", 32, 256, 528, 144, 0),
    ("sgemm", 48, 256, 1024, 8208, 0), ("smem264", 18, 256, 264, 32784, 0),
    ("fma1", 16, 256, 132, 16, 0), ("fma4", 22, 256, 132, 16, 0),
    ("gt_b64", 16, 64, 132, 16, 0), ("gt_b128", 16, 128, 132, 16, 0),
    ("gt_b256", 16, 256, 132, 16, 0), ("gt_b512", 16, 512, 132, 16, 0),
    ("gt_b1024", 16, 1024, 132, 16, 0), ("gt_b1024_s40k", 16, 1024, 132, 16, 40960),
    ("heavy_lb1", 244, 256, 132, 16, 0), ("heavy_lb2", 128, 256, 132, 16, 0),
    ("heavy_lb3", 80, 256, 132, 16, 0), ("heavy_lb4", 64, 256, 132, 16, 0),
    ("heavy_lb5", 48, 256, 132, 16, 0), ("heavy_lb6", 40, 256, 132, 16, 0),
    ("heavy_lb4_g528", 64, 256, 528, 16, 0),
]
# Named before the held-out export existed (2026-11-27 07:40 UTC): R8, the rule that matched
# the smem-light kernels of every earlier export (b = 1, 2, 3, 4, 6, 8+ blocks -> 8, 8, 16,
# 16, 32, 32 KiB); hqsim shipped R0.
PREDICTED_RULE = 8


def held_out(g):
    """Every rule's configuration for NEW_CFG, the predicted rule's marked, then
    (when the export exists) the measured one and each rule's agreement."""
    meas = {}
    if os.path.exists(HELD_OUT):
        for k in read_ncu(HELD_OUT):
            meas[(int(k["regs"]), int(k["block"]), int(k["grid"]), int(k.get("static", 0)),
                  int(k.get("dynamic", 0)))] = int(k["config"])
    print(f"## held-out shapes (harness/specs/smem_cfg.spec), KiB; predicted rule: "
          f"R{PREDICTED_RULE}; measured: {HELD_OUT if meas else 'not yet'}")
    print("\t".join(["kernel", "regs", "block", "grid", "static", "dyn", "b_all", "b_noregs"]
                    + [f"R{i}" for i in range(len(RULES))] + ["measured"]))
    agree = [0] * len(RULES)
    n = 0
    for name, regs, block, grid, st, dy in NEW_CFG:
        k = {"regs": regs, "block": block, "static": st, "dynamic": dy, "grid": grid}
        L = g.limits(k, 1024)
        got = [r(g, k) for _, r in RULES]
        m = meas.get((regs, block, grid, st, dy))
        row = [name, regs, block, grid, st, dy, min(L[x] for x in ("regs", "warps", "sm", "smem")),
               min(L[x] for x in ("warps", "sm", "smem"))]
        row += [f"{c // 1024}*" if i == PREDICTED_RULE else c // 1024 for i, c in enumerate(got)]
        row.append(m // 1024 if m is not None else "-")
        print("\t".join(str(x) for x in row))
        if m is not None:
            n += 1
            for i, c in enumerate(got):
                agree[i] += c == m
    if n:
        print("held-out agreement: " + " ".join(f"R{i} {a}/{n}" for i, a in enumerate(agree)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*")
    ap.add_argument("--model", default="models/h100-sxm.json")
    ap.add_argument("--table", action="store_true",
                    help="print one line per distinct launch shape")
    a = ap.parse_args()
    files = a.files or find_files("traces")
    g = Gpu(a.model)
    shapes = {}
    for f in files:
        for k in read_ncu(f):
            key = (k["name"][:60], int(k["regs"]), int(k["block"]),
                   int(k.get("static", 0)), int(k.get("dynamic", 0)),
                   int(k["config"]))
            if key not in shapes:
                shapes[key] = dict(k, file=f)
    order = sorted(shapes, key=lambda s: (shapes[s]["file"], s))
    fit = set(order[0::2])
    print(f"# {len(files)} files, {len(shapes)} distinct launch shapes "
          f"(kernel, regs, block, static, dynamic, measured config); fit half "
          f"= even positions in (file, shape) order, predicted half = odd")
    for f in files:
        print(f"#   {f}: {sum(1 for s in shapes.values() if s['file'] == f)} shapes")
    if a.table:
        hdr = ["half", "kernel", "regs", "block", "grid", "static", "dyn",
               "lim_r", "lim_w", "config_KiB"] + [f"R{i}" for i in range(len(RULES))]
        print("\t".join(hdr))
        for s in order:
            k = shapes[s]
            L = g.limits(k, 1024)
            row = ["fit" if s in fit else "pred", s[0][:40], s[1], s[2], k["grid"],
                   s[3], s[4], L["regs"], L["warps"], s[5] // 1024]
            row += [r(g, k) // 1024 for _, r in RULES]
            print("\t".join(str(x) for x in row))
    score(g, shapes, order, "all files")
    nopref = [s for s in order if not shapes[s]["file"].endswith("ncu_var.csv.gz")]
    score(g, shapes, nopref, "without mps_probe's ncu_var.csv.gz (kernels that may carry "
          "a preferred carveout ncu does not export)")
    # The same launch shape (registers, threads, shared memory) with more than one
    # measured configuration: no rule of the shape alone can match every row.
    by = {}
    for s in order:
        by.setdefault(s[1:5], set()).add(s[5] // 1024)
    multi = {k: v for k, v in by.items() if len(v) > 1}
    print(f"launch shapes (regs, threads, static, dynamic) with more than one measured "
          f"configuration: {len(multi)} of {len(by)}")
    for k, v in sorted(multi.items()):
        print(f"  regs {k[0]} threads {k[1]} static {k[2]} dynamic {k[3]}: "
              f"{sorted(v)} KiB")
    held_out(g)
    print("## kernels without ncu data (configuration KiB by rule R0..R%d)" % (len(RULES) - 1))
    for name, regs, block, st, dy in NO_NCU:
        k = {"regs": regs, "block": block, "static": st, "dynamic": dy, "grid": 132}
        print(f"  {name}: " + " ".join(f"R{i}={r(g, k) // 1024}"
                                       for i, (_, r) in enumerate(RULES)))
    return 0


def score(g, shapes, order, what):
    """Fit = even positions of @order, prediction = odd; print agreements."""
    fit, pred = order[0::2], order[1::2]
    print(f"## {what}: {len(order)} shapes, fit half {len(fit)}, predicted half {len(pred)}")
    print("rule\tfit_agree\tpred_agree\tall_agree")
    best = None
    for i, (name, r) in enumerate(RULES):
        fa = sum(r(g, shapes[s]) == s[5] for s in fit)
        pa = sum(r(g, shapes[s]) == s[5] for s in pred)
        print(f"R{i} {name}\t{fa}/{len(fit)}\t{pa}/{len(pred)}\t"
              f"{fa + pa}/{len(order)}")
        if best is None or fa > best[1]:
            best = (i, fa, pa)
    print(f"chosen on the fit half: R{best[0]} ({best[1]}/{len(fit)}); "
          f"predicts {best[2]}/{len(pred)} of the other half")


if __name__ == "__main__":
    sys.exit(main())
