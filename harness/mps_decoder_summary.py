#!/usr/bin/env python3
"""What slows a decoder b1 MPS client (FINDINGS §26): harness/mps_decoder_campaign.sh's tables.

    python3 harness/mps_decoder_summary.py DIR [PROBE_CSV PROBE_AGGR_CSV]
        # DIR: decoder.csv, probe.csv, aggr.csv, kernels/ (traces/measured/h100/mpspct/decoder);
        # optional: §24's probe.csv and probe_aggr.csv (traces/measured/h100/mpspct/) for table 4
Prints four tables:
1. the decoder victim (mps rows; baseline: the mean of its N = 1 rows before and after), per
   aggressor kind and N: the aggressors' average DRAM traffic (TB/s, all together), requests/s
   and the growth of the GPU span per request, unprofiled (timing events inside the graph) and
   under Kineto (events; trace span; summed kernel time; summed GEMV time; the rest), in us per
   request and, in brackets, per kernel per other client;
2. mps_probe's victims beside decoder and gemv aggressors: span growth per kernel per other
   client and kernel / alone (for `chase`, the loaded latency L: FINDINGS §25);
3. the aggressors' DRAM traffic: bytes per request, requests/s alone and at N, average TB/s, and
   the rate while their GEMVs run (bytes / summed GEMV time alone, from the kernels/ tables);
4. an empirical correlate (not a mechanism) of the compute-only `timer` victim's span growth per
   graph node (summed over the other clients): X = the other clients' blocks launched per us times
   their block-weighted mean grid (sum G^2 / sum G over their kernels; the kernels/ tables for the
   torch aggressors, fixed grids for mps_probe's). c (us per unit of X) is FITTED by least squares
   through 0 on this campaign's timer rows; with §24's files given, its timer rows (stream,
   timer, fma, chase and triad32 aggressors) are PREDICTED with that c;
5. with DIR/ncu/ncu_<what>.csv.gz (harness/mps_decoder_ncu.sh): per request (one graph replay,
   one process alone, no MPS) the kernels' time, DRAM bytes read, L2 sectors from the SMs and
   their rate, per graph and per GEMV kernel shape. ncu replays each kernel, which leaves the L2
   cold between kernels: reuse across kernels (gemvl2's) does not show here.
"""
import csv
import gzip
import os
import statistics
import sys
from collections import defaultdict

NODES = 32  # mps_probe's graph
PROBE_BYTES = {"stream": 4 * 2**20, "triad": 3 * 256 * 2**20}


def unit_bytes(kind, field):
    if field:
        return float(field)
    return PROBE_BYTES["triad"] if kind.startswith("triad") else PROBE_BYTES.get(kind, 0)


def read(d):
    dec = list(csv.DictReader(open(os.path.join(d, "decoder.csv"))))
    probe = list(csv.DictReader(open(os.path.join(d, "probe.csv"))))
    tbs, rate = defaultdict(float), defaultdict(list)
    for a in csv.DictReader(open(os.path.join(d, "aggr.csv"))):
        key = (a["mode"], a["n"], a["aggr"], a["victim"])
        r = float(a["rate_per_s"])
        tbs[key] += r * unit_bytes(a["aggr"], a["bytes_per_unit"]) / 1e12
        rate[key].append(r)
    return dec, probe, tbs, rate


def tbs_str(tbs, key):
    """gemvl2 prints 0 bytes per request: its DRAM traffic is not known (table 5)."""
    return "n/a" if key[2] == "gemvl2" else f"{tbs[key]:.2f}"


def f(r, k):
    return float(r[k]) if r.get(k) not in (None, "") else float("nan")


def decoder_table(dec, tbs):
    rows = [r for r in dec if r["mode"] == "mps" and r["victim"] == "decoder"]
    base = {ph: [r for r in rows if r["n"] == "1" and r["phase"] == ph] for ph in ("plain", "kineto")}
    kin0 = base["kineto"]
    nk = statistics.mean(f(r, "kin_kernels") for r in kin0) if kin0 else 151
    print(f"1. decoder b1 victim (MPS), growth from N = 1 per request, (per kernel per other client,"
          f" {nk:.0f} kernels)")
    print("aggr,n,aggr_tbs,plain_req_s,plain_evspan_us,d_plain_evspan,kin_req_s,d_kin_evspan,"
          "d_kin_span,d_kin_ksum,d_kin_gemv,d_kin_rest")
    for r in dec:
        if r["victim"] != "decoder" or r["mode"] != "nomps" or r["phase"] != "plain":
            continue
        print(f"(nomps alone),1,0,{r['req_per_s']},{r['evspan_p50_us']},,,,,,,")
    for r in base["plain"]:
        print(f"({r['aggr']}),1,0,{r['req_per_s']},{r['evspan_p50_us']},,,,,,,")

    def mean0(ph, k):
        return statistics.mean(f(x, k) for x in base[ph])

    pl = {(r["n"], r["aggr"]): r for r in rows if r["phase"] == "plain" and r["n"] != "1"}
    kn = {(r["n"], r["aggr"]): r for r in rows if r["phase"] == "kineto" and r["n"] != "1"}
    for key in pl:
        n, ag = int(key[0]), key[1]
        p, k = pl[key], kn.get(key, {})

        def g(row, ph, col):
            if not row or not base[ph]:
                return ""
            d = f(row, col) - mean0(ph, col)
            return f"{d:+.1f} ({d / nk / (n - 1):+.2f})"
        rest = ""
        if k and kin0:
            d = (f(k, "kin_ksum_p50_us") - f(k, "kin_gemv_p50_us")) - statistics.mean(
                f(x, "kin_ksum_p50_us") - f(x, "kin_gemv_p50_us") for x in kin0)
            rest = f"{d:+.1f} ({d / nk / (n - 1):+.2f})"
        print(f"{ag},{n},{tbs_str(tbs, ('mps', key[0], ag, 'decoder'))},{p['req_per_s']},"
              f"{p['evspan_p50_us']},{g(p, 'plain', 'evspan_p50_us')},{k.get('req_per_s', '')},"
              f"{g(k, 'kineto', 'evspan_p50_us')},{g(k, 'kineto', 'kin_span_p50_us')},"
              f"{g(k, 'kineto', 'kin_ksum_p50_us')},{g(k, 'kineto', 'kin_gemv_p50_us')},{rest}")


def probe_table(probe, tbs):
    rows = [r for r in probe if r["mode"] == "mps"]
    base = defaultdict(list)
    for r in rows:
        if r["n"] == "1":
            base[r["victim"]].append(r)
    print("\n2. mps_probe victims (MPS): span growth per kernel per other client (us), kernel / alone")
    print("victim,aggr,n,aggr_tbs,span_p50_us,d_span_per_kernel_client,kern_p50_us,kern_over_alone,"
          "gap_p50_us")
    for v, b in base.items():
        print(f"{v},(alone),1,0,{statistics.mean(f(x, 'span_p50_us') for x in b):.1f},,"
              f"{statistics.mean(f(x, 'kern_p50_us') for x in b):.3f},1.000,"
              f"{statistics.mean(f(x, 'gap_p50_us') for x in b):.3f}")
    for r in rows:
        n = int(r["n"])
        if n == 1:
            continue
        b = base[r["victim"]]
        s0 = statistics.mean(f(x, "span_p50_us") for x in b)
        k0 = statistics.mean(f(x, "kern_p50_us") for x in b)
        ds = (f(r, "span_p50_us") - s0) / NODES / (n - 1)
        print(f"{r['victim']},{r['aggr']},{n},{tbs_str(tbs, ('mps', r['n'], r['aggr'], r['victim']))},"
              f"{r['span_p50_us']},{ds:+.2f},{r['kern_p50_us']},{f(r, 'kern_p50_us') / k0:.3f},"
              f"{r['gap_p50_us']}")


def gemv_time(path):
    """Summed median time of the GEMV kernels per request, and of all kernels (us)."""
    g = t = 0.0
    for r in csv.DictReader(open(path)):
        x = float(r["per_request"]) * float(r["median_us"])
        t += x
        if "gemv" in r["kernel"].lower():
            g += x
    return g, t


def aggr_table(d, dec, tbs, rate):
    print("\n3. aggressors' DRAM traffic: average, and while their GEMVs run (alone)")
    print("aggr,bytes_per_req_MB,req_s_alone,avg_tbs_alone,gemv_us_per_req,ksum_us_per_req,"
          "tbs_during_gemv,req_s_per_client_n2,req_s_per_client_n4")
    nbytes = {}
    for a in csv.DictReader(open(os.path.join(d, "aggr.csv"))):
        if a["aggr"] in ("decoder", "gemv") and a["bytes_per_unit"]:
            nbytes[a["aggr"]] = float(a["bytes_per_unit"])
    for m, b in sorted(nbytes.items()):
        alone = [r for r in dec if r["mode"] == "mps" and r["n"] == "1" and r["victim"] == m
                 and r["phase"] == "plain"]
        rs = statistics.mean(f(r, "req_per_s") for r in alone) if alone else float("nan")
        kf = os.path.join(d, "kernels", f"mps_1_none_{m}.csv")
        gt, kt = gemv_time(kf) if os.path.exists(kf) else (float("nan"), float("nan"))
        per = {n: statistics.mean(x for (md, nn, ag, v), xs in rate.items() for x in xs
                                  if md == "mps" and nn == n and ag == m) if any(
            md == "mps" and nn == n and ag == m for (md, nn, ag, v) in rate) else float("nan")
            for n in ("2", "4")}
        print(f"{m},{b / 1e6:.1f},{rs:.0f},{rs * b / 1e12:.3f},{gt:.1f},{kt:.1f},"
              f"{b / gt / 1e6:.2f},{per['2']:.0f},{per['4']:.0f}")


PROBE_GRID = {"timer": 1, "fma": 1, "chase": 1, "stream": 64, "triad32": 32, "triad132": 132,
              "triad": 528, "fmaall": 528}


def grids(d, model):
    """(blocks per request, block-weighted mean grid) of a torch aggressor, from its table alone."""
    b = b2 = 0.0
    for r in csv.DictReader(open(os.path.join(d, "kernels", f"mps_1_none_{model}.csv"))):
        x, y, z = (int(v) for v in r["grid"].split("x"))
        g, n = x * y * z, float(r["per_request"])
        b += n * g
        b2 += n * g * g
    return b, b2 / b


def load_x(aggr_rows, d):
    """X per (mode, n, aggr, victim): sum over the other clients of blocks/us x mean grid."""
    x = defaultdict(float)
    for a in aggr_rows:
        key = (a["mode"], a["n"], a["aggr"], a["victim"])
        rate = float(a.get("rate_per_s") or a.get("kernels_per_s"))
        if a["aggr"] in PROBE_GRID:
            g = PROBE_GRID[a["aggr"]]
            x[key] += rate * g / 1e6 * g
        else:
            b, g = grids(d, a["aggr"])
            x[key] += rate * b / 1e6 * g
    return x


def timer_rows(probe_rows, x):
    rows = [r for r in probe_rows if r["mode"] == "mps" and r["victim"] == "timer"]
    b = [f(r, "span_p50_us") for r in rows if r["n"] == "1"]
    s0 = statistics.mean(b)
    for r in rows:
        if r["n"] == "1" or r["aggr"] in ("fmaall", "triad132", "triad"):
            continue  # issue slots / DRAM near saturation: other mechanisms (§24, §25)
        yield r["aggr"], r["n"], x[("mps", r["n"], r["aggr"], "timer")], (f(r, "span_p50_us") - s0) / NODES


def correlate_table(d, probe, extra):
    print("\n4. timer victim: span growth per node (all other clients) against X = others' "
          "blocks/us x block-weighted mean grid")
    fit = list(timer_rows(probe, load_x(csv.DictReader(open(os.path.join(d, "aggr.csv"))), d)))
    c = sum(x * y for _, _, x, y in fit) / sum(x * x for _, _, x, y in fit)
    print(f"c = {c:.2e} us per unit of X (FITTED on the {len(fit)} rows marked fitted)")
    print("rows,aggr,n,X,measured_us,c_X_us")
    for ag, n, x, y in fit:
        print(f"fitted,{ag},{n},{x:.0f},{y:+.2f},{c * x:+.2f}")
    if extra:
        p24 = list(csv.DictReader(open(extra[0])))
        for ag, n, x, y in timer_rows(p24, load_x(csv.DictReader(open(extra[1])), d)):
            print(f"predicted (§24),{ag},{n},{x:.0f},{y:+.2f},{c * x:+.2f}")


def ncu_table(d):
    nd = os.path.join(d, "ncu")
    if not os.path.isdir(nd):
        return
    print("\n5. ncu, one request alone: time, DRAM read, L2 sectors (32 B) from the SMs")
    print("graph,kernel,grid,count,us_each,dram_MB,l2_MB,dram_tbs,l2_tbs")
    for what in ("decoder", "gemv", "gemvl2", "stream", "chase"):
        path = os.path.join(nd, f"ncu_{what}.csv.gz")
        if not os.path.exists(path):
            continue
        k = defaultdict(dict)
        for r in csv.DictReader(gzip.open(path, "rt")):
            k[r["ID"]]["name"] = r["Kernel Name"]
            k[r["ID"]]["grid"] = r["Grid Size"].strip("()").replace(", ", "x")
            k[r["ID"]][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        groups = defaultdict(list)
        for m in k.values():
            groups[("(all)", "")].append(m)
            if "gemv" in m["name"].lower():
                groups[(m["name"].split("<")[0].split("::")[-1][:20], m["grid"])].append(m)
        for (name, grid), ms in groups.items():
            t = sum(m["gpu__time_duration.sum"] for m in ms) / 1e3  # us
            dr = sum(m["dram__bytes_read.sum"] for m in ms) / 1e6
            l2 = sum(m["lts__t_sectors_srcunit_tex.sum"] for m in ms) * 32 / 1e6
            print(f"{what},{name},{grid},{len(ms)},{t / len(ms):.2f},{dr:.1f},{l2:.1f},"
                  f"{dr / t:.2f},{l2 / t:.2f}")


def main(d, extra):
    dec, probe, tbs, rate = read(d)
    decoder_table(dec, tbs)
    probe_table(probe, tbs)
    aggr_table(d, dec, tbs, rate)
    correlate_table(d, probe, extra)
    ncu_table(d)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 4):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
