#!/usr/bin/env python3
"""Which kernel property costs an MPS client time (FINDINGS §28): harness/mps_var_campaign.sh's
tables.

    python3 harness/mps_var_summary.py traces/measured/h100/mpspct/var{,/more,/chain,/dissect,/confirm,/funcs,/wide,/fit}
    python3 harness/mps_var_summary.py --fits traces/measured/h100/mpspct/var/window
    python3 harness/mps_var_summary.py --funcs traces/measured/h100/mpspct/var/funcmem{,2}
    python3 harness/mps_var_summary.py --wp traces/measured/h100/mpspct/var/funcmem3{,b}
    python3 harness/mps_var_summary.py --narrow traces/measured/h100/mpspct/var/ncu_decoder.csv.gz

Reads DIR/var.csv (mps_probe `var` victims: L_<spec> alone, VT*, VS, VM beside others),
DIR/decoder.csv (the decoder b1 graph as victim, no profiler), DIR/aggr.csv (each aggressor's
kernels/s, requests/s for `decoder`) and DIR/ncu_*.csv.gz (LaunchStats/Occupancy). Prints:
 1. alone: each L_ spec's GPU span per request without MPS and as the only MPS client, the growth
    per node (32 nodes) and the node gap (p50, mean); the decoder's span and growth per kernel
    (151 kernels);
 2. beside N - 1 others: each victim's span growth per node per other client against the mean of
    its N = 1 rows (before and after), N = 2 / 4, and the others' rate per client;
 3. the decoder victim: growth of its span per request per other client against its N = 1 rows;
 4. from ncu: per kernel kind, the shared-memory configuration the driver chose and the limits;
 5. over all DIRs: each alone spec's growth per node pooled (means of its runs), and the
    decoder's changes of function and of shared-memory configuration between consecutive kernels
    (ncu's order of one request) next to its growth alone.
Rows carry a `rep` column (the pass; 1 where absent): sections 1 and 2 print one line per pass.
With --funcs (first argument), only section 7 over the DIRs: the alone specs named F<k><memory>
(k functions cycled; memory none, rd, wr, rdwr, chain) as a table of the growth per node without ->
with MPS, pooled over passes (each pass in brackets), and the other alone specs listed.
With --wp (first argument), only section 8 over the DIRs (`--funcmem3`): each alone spec's growth
per node pooled over passes, its excess over the spec of the same name with F1 for F8, and for the
`wp` specs (node types alternating writer / probe: even / odd) the growth of each role's kernel
and of the gap before it (medians per node type, mean over the role's 16 types, us).
With --narrow FILE (an ncu CSV of one request, e.g. var/ncu_decoder.csv.gz), only section 9: its
kernels by LRU distance d (distinct other functions since the function last ran, wrapping to the
previous request; 7 means >= 7), all and those of >= 2 blocks right after a 1-block kernel.
With --fits (first argument), only section 6 per DIR: from DIR/ncu_var.csv.gz, whether the last
kernel (the victim; `--window` puts a VT-like kernel last) fits on an SM beside each other kernel
of one client: that kernel's blocks per SM (its grid over 132 SMs, within its limits), the
registers (per warp, in units of 256), warps and shared memory (1 KB reserved per block) left, and
whether the SM's configuration lies in the victim's window [its own configuration, 228 KB].
"""
import csv
import gzip
import os
import statistics
import sys
from collections import OrderedDict, defaultdict

NODES, DEC_KERNELS = 32, 151


def read(path):
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []


def lone(rows, dec):
    print("## 1. alone: without MPS -> the only MPS client (span per request, us)")
    print("spec,nomps_span,mps_span,growth_per_node,gap_p50_nomps,gap_p50_mps,gap_mean_nomps,"
          "gap_mean_mps")
    by = defaultdict(dict)
    for r in rows:
        if r["victim"].startswith("L_"):
            by[(r["victim"][2:], r.get("rep", "1"))][r["mode"]] = r
    for (v, rp), d in by.items():
        if "nomps" not in d or "mps" not in d:
            continue
        a, b = d["nomps"], d["mps"]
        sa, sb = float(a["span_p50_us"]), float(b["span_p50_us"])
        name = v if rp == "1" else f"{v} (pass {rp})"
        print(f"{name},{sa:.2f},{sb:.2f},{(sb - sa) / NODES:+.3f},{a['gap_p50_us']},"
              f"{b['gap_p50_us']},{a['gap_mean_us']},{b['gap_mean_us']}")
    nomps = [float(r["evspan_p50_us"]) for r in dec if r["mode"] == "nomps"]
    mps1 = [float(r["evspan_p50_us"]) for r in dec if r["mode"] == "mps" and r["n"] == "1"]
    if nomps and mps1:
        a, b = statistics.mean(nomps), statistics.mean(mps1)
        rn = statistics.mean(float(r["req_per_s"]) for r in dec if r["mode"] == "nomps")
        rm = statistics.mean(float(r["req_per_s"]) for r in dec
                             if r["mode"] == "mps" and r["n"] == "1")
        print(f"decoder,{a:.2f},{b:.2f},{(b - a) / DEC_KERNELS:+.3f} per kernel "
              f"({(b / a - 1) * 100:+.1f}% span; requests/s {rn:.0f} -> {rm:.0f}, "
              f"{(rm / rn - 1) * 100:+.1f}%)")
    return by


def beside(rows, aggr):
    rate = defaultdict(list)
    for a in aggr:
        rate[(a.get("rep", "1"), a["n"], a["aggr"], a["victim"])].append(float(a["rate_per_s"]))
    base = defaultdict(list)
    for r in rows:
        if (r["n"] == "1" and r["mode"] == "mps" and
                (r["victim"].startswith("VT") or r["victim"] in ("VS", "VM"))):
            base[r["victim"]].append(float(r["span_p50_us"]))
    if not base:
        return
    base = {k: statistics.mean(v) for k, v in base.items()}
    victims = sorted(base, key=lambda v: (len(v), v))
    print("\n## 2. beside N - 1 others: span growth per node per other client, us, N = 2 / 4")
    print("baselines (N = 1, mean of before/after): " +
          ", ".join(f"{v} {base[v]:.2f}" for v in victims))
    g = OrderedDict()
    for r in rows:
        if r["victim"] in base and r["n"] != "1":
            n, rp = int(r["n"]), r.get("rep", "1")
            key = r["aggr"] if rp == "1" else f"{r['aggr']} (pass {rp})"
            g.setdefault(key, {})[(r["victim"], n)] = (
                (float(r["span_p50_us"]) - base[r["victim"]]) / NODES / (n - 1),
                r["gap_p50_us"], r["gap_mean_us"])
            g[key].setdefault(("rate", n), statistics.mean(
                rate.get((rp, r["n"], r["aggr"], r["victim"]), [0])))
    print("aggr,rate_per_client_n2," + ",".join(f"{v}_n2,{v}_n4" for v in victims) +
          ",VT_gap_p50/mean_n2,VT_gap_p50/mean_n4")
    for a, d in g.items():
        cells = []
        for v in victims:
            for n in (2, 4):
                cells.append(f"{d[(v, n)][0]:+.2f}" if (v, n) in d else "")
        gaps = [f"{d[('VT', n)][1]}/{d[('VT', n)][2]}" if ("VT", n) in d else "" for n in (2, 4)]
        print(f"{a},{d.get(('rate', 2), 0):.0f}," + ",".join(cells) + "," + ",".join(gaps))


def decoder_victim(dec):
    b = [float(r["evspan_p50_us"]) for r in dec if r["mode"] == "mps" and r["n"] == "1"]
    rest = [r for r in dec if r["mode"] == "mps" and r["n"] != "1"]
    if not b or not rest:
        return
    b = statistics.mean(b)
    print(f"\n## 3. decoder victim (no profiler): span growth from N = 1 ({b:.1f} us)")
    print("aggr,n,span_p50_us,growth_us,per_kernel_per_other_client_us,req_per_s")
    for r in rest:
        n, s = int(r["n"]), float(r["evspan_p50_us"])
        print(f"{r['aggr']},{n},{s:.1f},{s - b:+.1f},{(s - b) / DEC_KERNELS / (n - 1):+.3f},"
              f"{r['req_per_s']}")


NCU_KEYS = ["Grid Size", "Block Size", "Registers Per Thread", "Static Shared Memory Per Block",
            "Dynamic Shared Memory Per Block", "Shared Memory Configuration Size",
            "Block Limit Registers", "Block Limit Shared Mem", "Block Limit Warps",
            "Waves Per SM"]


def ncu(d):
    for f in sorted(os.listdir(d)):
        if not (f.startswith("ncu_") and f.endswith(".csv.gz")):
            continue
        lines = [x for x in gzip.open(os.path.join(d, f), "rt") if not x.startswith("==")]
        k = OrderedDict()
        for r in csv.DictReader(lines):
            k.setdefault(r["ID"], {"name": r["Kernel Name"][:48]})[r["Metric Name"]] = (
                r["Metric Value"].replace(",", ""))
        count = OrderedDict()
        for v in k.values():
            key = (v["name"],) + tuple(v.get(m, "") for m in NCU_KEYS)
            count[key] = count.get(key, 0) + 1
        print(f"\n## 4. {f}: {len(k)} kernels; per kind (bytes; blocks per SM limits)")
        print("count,kernel,grid,block,regs,static_smem,dynamic_smem,smem_config,"
              "limit_regs,limit_smem,limit_warps,waves")
        for key, c in count.items():
            print(f'{c},"{key[0]}",' + ",".join(key[1:]))


def changes(dirs):
    """Section 5: the alone rows pooled over DIRs, and the decoder's request in ncu's order."""
    lone_rows = defaultdict(lambda: defaultdict(list))
    dec = defaultdict(list)
    seq = None
    for d in dirs:
        for r in read(os.path.join(d, "var.csv")):
            if r["victim"].startswith("L_"):
                lone_rows[r["victim"][2:]][r["mode"]].append(float(r["span_p50_us"]))
        for r in read(os.path.join(d, "decoder.csv")):
            if r["n"] == "1":
                dec[r["mode"]].append(float(r["evspan_p50_us"]))
        f = os.path.join(d, "ncu_decoder.csv.gz")
        if os.path.exists(f):
            lines = [x for x in gzip.open(f, "rt") if not x.startswith("==")]
            k = {}
            for r in csv.DictReader(lines):
                if r["Metric Name"] == "Shared Memory Configuration Size":
                    k[int(r["ID"])] = (r["Kernel Name"], r["Metric Value"])
            seq = [k[i] for i in sorted(k)]
    print("\n## 5. alone, pooled over the directories: growth per node without -> with MPS, us")
    print("spec,runs,growth_per_node")
    for v, m in sorted(lone_rows.items()):
        if m.get("nomps") and m.get("mps"):
            g = (statistics.mean(m["mps"]) - statistics.mean(m["nomps"])) / NODES
            print(f"{v},{min(len(m['mps']), len(m['nomps']))},{g:+.3f}")
    if seq and dec["nomps"] and dec["mps"]:
        fn = sum(1 for a, b in zip(seq, seq[1:]) if a[0] != b[0])
        cf = sum(1 for a, b in zip(seq, seq[1:]) if a[1] != b[1])
        g = statistics.mean(dec["mps"]) - statistics.mean(dec["nomps"])
        print(f"decoder: {len(seq)} kernels, {fn} changes of function and {cf} of shared-memory "
              f"configuration between consecutive kernels (ncu); alone {g:+.1f} us per request "
              f"({g / DEC_KERNELS:+.3f} per kernel; {len(dec['mps'])} MPS / "
              f"{len(dec['nomps'])} no-MPS rows)")


SMS, SM_REGS, SM_WARPS, SM_MAX_CONFIG = 132, 65536, 64, 233472


def fits(d):
    """Section 6: does the last ncu kernel (the victim) fit beside each other one?"""
    f = os.path.join(d, "ncu_var.csv.gz")
    if not os.path.exists(f):
        return
    k = OrderedDict()
    for r in csv.DictReader(x for x in gzip.open(f, "rt") if not x.startswith("==")):
        k.setdefault(r["ID"], {"name": r["Kernel Name"][:32]})[r["Metric Name"]] = (
            r["Metric Value"].replace(",", ""))
    num = lambda v, m: int(float(v[m]))  # noqa: E731
    warp_regs = lambda v: -(-num(v, "Registers Per Thread") * 32 // 256) * 256  # noqa: E731
    warps = lambda v: -(-num(v, "Block Size") // 32)  # noqa: E731
    smem = lambda v: (num(v, "Static Shared Memory Per Block") +  # noqa: E731
                      num(v, "Dynamic Shared Memory Per Block") + 1024)
    *aggr, vic = k.values()
    vc = num(vic, "Shared Memory Configuration Size")
    vr, vw, vs = warp_regs(vic) * warps(vic), warps(vic), smem(vic)
    print(f"\n## 6. {d}: victim {vic['name']} ({vr} registers, {vw} warps, {vs} B shared, "
          f"window [{vc}, {SM_MAX_CONFIG}] B) beside one client's blocks per SM")
    print("kernel,grid,config,blocks_per_sm,regs_left,warps_left,smem_left,in_window,fits")
    for v in aggr:
        lim = min(num(v, m) for m in ("Block Limit Registers", "Block Limit Shared Mem",
                                      "Block Limit Warps"))
        b = min(lim, -(-num(v, "Grid Size") // SMS))
        c = num(v, "Shared Memory Configuration Size")
        left = (SM_REGS - b * warp_regs(v) * warps(v), SM_WARPS - b * warps(v), c - b * smem(v))
        win = vc <= c <= SM_MAX_CONFIG
        ok = win and left[0] >= vr and left[1] >= vw and left[2] >= vs
        print(f'"{v["name"]}",{num(v, "Grid Size")},{c},{b},{left[0]},{left[1]},{left[2]},'
              f"{'yes' if win else 'no'},{'yes' if ok else 'no'}")


MEMS = ("none", "rd", "wr", "rdwr", "chain")


def funcs(dirs):
    """Section 7: the alone specs' growth per node pooled over passes and DIRs."""
    runs = defaultdict(lambda: defaultdict(dict))
    for d in dirs:
        for r in read(os.path.join(d, "var.csv")):
            if r["victim"].startswith("L_"):
                runs[r["victim"][2:]][(d, r.get("rep", "1"))][r["mode"]] = float(r["span_p50_us"])
    growth = {}
    for v, passes in runs.items():
        g = [(m["mps"] - m["nomps"]) / NODES for m in passes.values() if "mps" in m and "nomps" in m]
        if g:
            growth[v] = g
    cell = lambda g: f"{statistics.mean(g):+.3f} [" + " ".join(f"{x:+.3f}" for x in g) + "]"  # noqa: E731
    fs = sorted({int(v[1:].rstrip("abcdefghijklmnopqrstuvwxyz")) for v in growth
                 if v[0] == "F" and v[1:].rstrip("abcdefghijklmnopqrstuvwxyz").isdigit()})
    print("## 7. alone: growth per node without -> with MPS (us), pooled over passes [each]")
    print("memory," + ",".join(f"F{f}" for f in fs))
    shown = set()
    for m in MEMS:
        cells = []
        for f in fs:
            v = f"F{f}{m}"
            cells.append(cell(growth[v]) if v in growth else "")
            shown.add(v)
        if any(cells):
            print(f"{m}," + ",".join(cells))
    print("other specs: spec,growth_per_node")
    for v in sorted(growth):
        if v not in shown:
            print(f"{v},{cell(growth[v])}")


def role_deltas(a, b):
    """Per role (even node types: writer, odd: probe) the mean over its types of the change of
    kern_p50 and of the gap_p50 before it, from run a (no MPS) to run b (MPS)."""
    ta = [x.split(":") for x in a["types_kern_gap_p50"].split("|")]
    tb = [x.split(":") for x in b["types_kern_gap_p50"].split("|")]
    if len(ta) != NODES or len(tb) != NODES:
        return None
    out = []
    for first in (0, 1):
        idx = [i for i in range(first, NODES, 2) if i > 0]  # node 0 has no gap before it
        dk = statistics.mean(float(tb[i][0]) - float(ta[i][0]) for i in idx)
        dg = statistics.mean(float(tb[i][1]) - float(ta[i][1]) for i in idx)
        out.append((dk, dg, statistics.mean(float(ta[i][0]) for i in idx)))
    return out  # [(writer kern, writer gap, writer kern without MPS), (the probe's)]


def wp(dirs):
    """Section 8: the --funcmem3 rows: growth per node, F8 over F1, and per role."""
    runs = defaultdict(dict)
    for d in dirs:
        for r in read(os.path.join(d, "var.csv")):
            if r["victim"].startswith("L_"):
                runs[r["victim"][2:]].setdefault((d, r.get("rep", "1")), {})[r["mode"]] = r
    stats = OrderedDict()
    for v, passes in runs.items():
        g, roles = [], []
        for m in passes.values():
            if "mps" not in m or "nomps" not in m:
                continue
            g.append((float(m["mps"]["span_p50_us"]) - float(m["nomps"]["span_p50_us"])) / NODES)
            if v.startswith("wp"):
                roles.append(role_deltas(m["nomps"], m["mps"]))
        if g:
            stats[v] = (g, [x for x in roles if x], {d for d, _ in passes})
    print("## 8. alone: growth per node without -> with MPS (us), pooled over passes [each]; "
          "F8 - F1: over the same spec with one function; per role (wp specs): change of the "
          "kernel and of the gap before it (gap medians move in 0.256 us steps), writer W / probe P, "
          "mean over passes; each role's kernel without MPS")
    print("spec,growth_per_node,F8_minus_F1,W_kern,W_gap,P_kern,P_gap,P_kern+gap,"
          "W_kern_nomps,P_kern_nomps")
    for v, (g, roles, dirs) in sorted(stats.items()):
        f1 = v.replace("F8", "F1") if "F8" in v else None
        ex = (f"{statistics.mean(g) - statistics.mean(stats[f1][0]):+.3f}" +
              ("" if stats[f1][2] == dirs else " (F1 from another DIR)")
              if f1 in stats and f1 != v else "")
        cells = [""] * 7
        if roles:
            m = lambda k, j: statistics.mean(r[k][j] for r in roles)  # noqa: E731
            cells = [f"{m(0, 0):+.3f}", f"{m(0, 1):+.3f}", f"{m(1, 0):+.3f}", f"{m(1, 1):+.3f}",
                     f"{m(1, 0) + m(1, 1):+.3f}", f"{m(0, 2):.3f}", f"{m(1, 2):.3f}"]
        print(f"{v},{statistics.mean(g):+.3f} [" + " ".join(f"{x:+.3f}" for x in g) + f"],{ex}," +
              ",".join(cells))


def narrow(f):
    """Section 9: one request's kernels (ncu's order) by LRU distance; narrow -> wide ones."""
    k = {}
    for r in csv.DictReader(x for x in gzip.open(f, "rt") if not x.startswith("==")):
        v = k.setdefault(int(r["ID"]), {"name": r["Kernel Name"]})
        if r["Metric Name"] == "Grid Size":
            v["grid"] = int(float(r["Metric Value"].replace(",", "")))
    seq = [k[i] for i in sorted(k)]
    n, two = len(seq), seq + seq
    every, nw = defaultdict(int), defaultdict(int)
    for i in range(n, 2 * n):  # the second copy: distances wrap to the previous request
        j, seen = i - 1, set()
        while two[j]["name"] != two[i]["name"]:
            seen.add(two[j]["name"])
            j -= 1
        d = min(len(seen), 7)
        every[d] += 1
        if two[i]["grid"] >= 2 and two[i - 1]["grid"] == 1:
            nw[d] += 1
    print(f"## 9. {f}: {n} kernels by LRU distance d (7: >= 7)")
    print("d,kernels,narrow_to_wide")
    for d in sorted(every):
        print(f"{d},{every[d]},{nw[d]}")
    print(f"all,{n},{sum(nw.values())}")


def main(d):
    rows = read(os.path.join(d, "var.csv"))
    dec = read(os.path.join(d, "decoder.csv"))
    lone(rows, dec)
    beside(rows, read(os.path.join(d, "aggr.csv")))
    decoder_victim(dec)
    ncu(d)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--funcs":
        funcs(sys.argv[2:])
        sys.exit(0)
    if sys.argv[1] == "--narrow":
        narrow(sys.argv[2])
        sys.exit(0)
    if sys.argv[1] == "--wp":
        wp(sys.argv[2:])
        sys.exit(0)
    if sys.argv[1] == "--fits":
        for d in sys.argv[2:]:
            fits(d)
        sys.exit(0)
    for d in sys.argv[1:]:
        print(f"# {d}")
        main(d)
    changes(sys.argv[1:])
