#!/usr/bin/env python3
"""hqsim's prediction of FINDINGS §28's victim rows (nothing fitted).

    python3 harness/mps_var_predict.py build/hqsim traces/measured/h100/mpspct/var{,/more,/fit,/wide,/window}
    python3 harness/mps_var_predict.py --n 2 --victims VT,VS build/hqsim DIR...
    python3 harness/mps_var_predict.py --decoder build/hqsim traces/measured/h100/mpspct/{var,decoder}
    python3 harness/mps_var_predict.py --n 2 --victims VT --aggr g132c0 --jitter 0.1 build/hqsim DIR

For each row of DIR/var.csv where a victim of VICTIMS runs beside N - 1 = 1 or 3 clients, writes
a scenario (h100-sxm) and runs `hqsim run --mode mps --csv`: the victim, a graph of 32 chained
kernels of its var spec, 300 iterations; each other client a graph of 32 kernels cycling through
the aggressor's var spec (harness/mps_var_campaign.sh's AGGR), as many iterations as outlast the
victim; or `decoder`: the decoder b1 graph's Kineto trace imported by `hqsim import` (its 8
requests with their copies, host gaps and synchronizations as one iteration, 20 iterations).  A var spec's kernel: G blocks x B
threads, 168 registers for x2, 160 for x5, 24 for x4, else 32; S bytes of dynamic shared memory;
blocks of t us on a wall clock (t0, a node timed by its memory work alone: 1 us); memory traffic
(l, d, w, i, o), copies (m), parameters (x3) and code size (x1) are not in the scenario.

Two predictions per row:
  rule: no configuration fields (hqsim's rule, as before smem10);
  ncu:  each kernel's `smem_config_bytes` from Nsight Compute (CONFIG_KIB below: the "Shared
        Memory Configuration Size" of the kernels in DIR/ncu_var.csv.gz, keyed by block size,
        registers, dynamic shared memory and preference) and its `carveout_pct` (the spec's c);
        the decoder's kernels the configurations of var/ncu_decoder.csv.gz (joined by launch shape).
Prints the victim's GPU span growth per node per other client against N = 1 (first node start to
last node end, median over the iterations but the first and last 20) next to the measured one
(DIR/var.csv: the victim's span p50 against the mean of its N = 1 MPS rows of the same directory),
and each row's class (`hi`: 0.3 us or more, `lo`: less) measured / rule / ncu.
With --decoder, the decoder b1 graph is the victim instead (DIR/decoder.csv, phase `plain`, no
profiler; §26's mpspct/decoder and §28's var*/decoder.csv): growth of its GPU span per request
(events inside its graph, measured; first to last kernel of a graph launch, hqsim; 20 iterations
of 8 requests) against its N = 1 MPS rows, beside the others of AGGR.
"""
import argparse
import csv
import gzip
import json
import os
import statistics
import subprocess
import tempfile
from collections import defaultdict

NODES = 32
VICTIM_ITERATIONS = 300
HI = 0.3  # us per node per other client: the measured rows are <= 0.12 or >= 0.5 (§28)
HERE = os.path.dirname(os.path.abspath(__file__))
DECODER = os.path.join(HERE, "..", "traces/measured/h100/launch/kineto/decoder_b1_graph.json.gz")
NCU_DECODER = os.path.join(HERE, "..", "traces/measured/h100/mpspct/var/ncu_decoder.csv.gz")
VICTIMS = {"VT": "g1.b32.t5000", "VT8": "g1.b32.c0.t5000", "VT25": "g1.b32.c25.t5000",
           "VT100": "g1.b32.c100.t5000", "VT1024": "g1.b1024.t5000",
           "VS": "g1.b32.s1536.c0.t5000", "VM": "g1.b128.s512.c0.t5000"}
MIX = ("g1.b128.f0.l4.t1500/g384.b128.x2.s528.d4.t3000/g1.b128.f1.t1000/"
       "g128.b128.x2.s528.d4.t2500/g256.b128.f2.s1536.d4.t3000/g1.b128.f3.l2.t1200/"
       "g2.b128.f4.t1000/g1024.b128.f5.s2560.d4.t0")


def c100(spec):
    return "/".join(s + ".c100" for s in spec.split("/"))


# mps_var_campaign.sh's aggressors (all modes); hcopy, memcpy, par, big, f8, light* are g132 /
# light shapes here (their copies, parameters, code and functions are not modelled)
AGGR = {
    "g132": "g132.b128.t3000", "g132c0": "g132.b128.s512.c0.t3000",
    "g132c100": "g132.b128.s512.c100.t3000", "r128": "g128.b128.x2.s528.t3000",
    "r384": "g384.b128.x2.s528.t3000", "r384c100": "g384.b128.x2.s528.c100.t3000",
    "r384r": "g384.b128.x5.s528.t3000", "f8": "g132.b128.t3000",
    "carvealt": "g132.b128.s512.c0.t3000/g132.b128.s512.c100.t3000",
    "par": "g132.b128.x3.t3000", "light": "g1.b128.t1000", "lightpar": "g1.b128.x3.t1000",
    "light8": "g1.b128.t1000", "big": "g132.b128.x1.t0", "memcpy": "g132.b128.t3000",
    "hcopy": "g132.b128.t3000", "mix": MIX, "adef": "g132.b128.s512.t3000",
    "a0": "g132.b128.s512.c0.t3000", "a25": "g132.b128.s512.c25.t3000",
    "a50": "g132.b128.s512.c50.t3000", "a100": "g132.b128.s512.c100.t3000",
    "mix5": MIX.replace(".x2", ".x5"), "mixc100": c100(MIX),
    "mixw": c100(MIX.replace(".x2", ".x5")), "mixw2": c100(MIX.replace(".x2", ".x5")),
    "decoder": None,
}
# Nsight Compute's "Shared Memory Configuration Size", KiB, by (threads, register flavour x,
# dynamic shared memory bytes, preference c or None): var/, var/more, var/fit, var/wide,
# var/window, var/confirm ncu_var.csv.gz (each NCUSPEC kernel of mps_var_campaign.sh).  A key not
# here gets no field (hqsim's rule).
CONFIG_KIB = {
    (32, 0, 0, None): 32, (32, 0, 0, 0): 32, (32, 0, 0, 25): 64, (32, 0, 0, 100): 228,
    (32, 0, 1536, 0): 8, (32, 0, 1536, None): 100, (1024, 0, 0, None): 8,
    (128, 0, 0, None): 32, (128, 1, 0, None): 32, (128, 3, 0, None): 32,
    (128, 0, 512, None): 64, (128, 0, 512, 0): 8, (128, 0, 512, 25): 196,
    (128, 0, 512, 50): 228, (128, 0, 512, 75): 228, (128, 0, 512, 100): 228,
    (128, 2, 528, None): 16, (128, 5, 528, None): 16, (128, 0, 49152, None): 196,
    (128, 0, 1536, None): 100, (128, 0, 2560, None): 100, (160, 4, 0, None): 32,
    (128, 0, 0, 100): 228, (128, 2, 528, 100): 228, (128, 5, 528, 100): 228,
    (128, 0, 1536, 100): 228, (128, 0, 2560, 100): 228,
}
REGS = {2: 168, 5: 160, 4: 24}


def fields(spec):
    f = {}
    for p in spec.split("."):
        f[p[0]] = int(p[1:])
    return f


def kernel(spec, name, ncu):
    f = fields(spec)
    k = {"op": "kernel", "name": name, "grid": f.get("g", 1), "block": f.get("b", 128),
         "regs_per_thread": REGS.get(f.get("x", 0), 32),
         "block_time_us": (f.get("t", 0) or 1000) / 1000.0, "wall_clock": True}
    if f.get("s", 0):
        k["dynamic_smem_bytes"] = f["s"]
    if ncu:
        key = (f.get("b", 128), f.get("x", 0) if f.get("x", 0) in (1, 2, 3, 4, 5) else 0,
               f.get("s", 0), f.get("c"))
        if key in CONFIG_KIB:
            k["smem_config_bytes"] = CONFIG_KIB[key] * 1024
        if "c" in f:
            k["carveout_pct"] = f["c"]
    return k


def aggr_iterations(spec, victim):
    """Enough iterations of @spec's graph to outlast the victim's 300 (at up to 2.5 us more per
    node than its blocks' time; a node ~1 us more than its blocks'): the rest would only cost
    simulation time."""
    t_victim = VICTIM_ITERATIONS * NODES * (fields(victim)["t"] / 1000.0 + 2.5)
    specs = spec.split("/")
    t_iter = sum((fields(specs[i % len(specs)]).get("t", 0) or 1000) / 1000.0 + 1.0
                 for i in range(NODES))
    return int(t_victim / t_iter) + 20


def graph_proc(name, spec, iterations, ncu):
    specs = spec.split("/")
    nodes = [kernel(specs[i % len(specs)], f"{name}_{i % len(specs)}", ncu)
             for i in range(NODES)]
    return {"name": name, "iterations": iterations, "streams": [{"name": "s"}],
            "ops": [{"op": "graph", "stream": "s", "nodes": nodes}]}


def dims(v):
    if isinstance(v, int):
        return v
    return v[0] * v[1] * v[2]


def decoder_configs():
    """(grid, threads, shared memory bytes, registers) -> bytes, from ncu of one decoder request;
    the Kineto names (80 characters, other template spelling) do not match ncu's, so the import's
    name matching does not apply and the kernels are joined by launch shape (one configuration
    per shape in this file)."""
    k = {}
    lines = (x for x in gzip.open(NCU_DECODER, "rt") if not x.startswith("=="))
    for r in csv.DictReader(lines):
        d = k.setdefault(r["ID"], {"g": r["Grid Size"], "b": r["Block Size"]})
        d[r["Metric Name"]] = r["Metric Value"].replace(",", "")
    out = {}
    prod = lambda t: dims([int(x) for x in t.strip("()").split(",")])  # noqa: E731
    for d in k.values():
        key = (prod(d["g"]), prod(d["b"]), int(float(d["Static Shared Memory Per Block"])) +
               int(float(d["Dynamic Shared Memory Per Block"])), int(d["Registers Per Thread"]))
        out[key] = int(float(d["Shared Memory Configuration Size"]))
    return out


def set_configs(ops, conf):
    for o in ops:
        if o.get("op") == "graph":
            set_configs(o["nodes"], conf)
        elif o.get("op") == "kernel":
            key = (dims(o["grid"]), dims(o["block"]),
                   o.get("static_smem_bytes", 0) + o.get("dynamic_smem_bytes", 0),
                   o.get("regs_per_thread"))
            if key in conf:
                o["smem_config_bytes"] = conf[key]


def decoder_proc(hqsim, work, name, ncu):
    out = os.path.join(work, "decoder.json")
    if not os.path.exists(out):
        subprocess.run([hqsim, "import", DECODER, "-o", out, "-q"], check=True)
    p = json.load(open(out))["processes"][0]
    if ncu:
        set_configs(p["ops"], decoder_configs())
    return dict(p, name=name, iterations=20)


# Sensitivity (--jitter, --node-spacing-us): not predictions of a row, checks of what sets the
# size of a window wait (FINDINGS §28, "Checked in hqsim with the windows").
OPTS = {"jitter": 0.0, "gpu": "h100-sxm"}


def scenario(procs, description):
    sc = {"hqsim_scenario": 1, "description": description, "gpu": "h100-sxm",
          "processes": procs}
    if OPTS["jitter"] > 0:
        sc["jitter"] = {"kernel": {"dist": "lognormal", "sigma": OPTS["jitter"]}}
    return sc


def run(hqsim, sc, out):
    subprocess.run([hqsim, "run", sc, "--gpu", OPTS["gpu"], "--mode", "mps", "--csv", out, "-q"],
                   check=True)


def victim_span(hqsim, work, procs, tag):
    sc = os.path.join(work, f"{tag}.json")
    out = os.path.join(work, f"{tag}.csv")
    json.dump(scenario(procs, "FINDINGS §28: a victim beside N - 1 clients"), open(sc, "w"))
    run(hqsim, sc, out)
    return median_victim_span(out)


def median_victim_span(out):
    """Median span (first start to last end, us) of the victim's iterations in
    hqsim's per-op CSV @out, leaving out the first and last 20 (warm-up, drain).
    Also used by mps_mixparts_predict.py."""
    it = defaultdict(list)
    for r in csv.DictReader(open(out)):
        if r["process"] == "victim":
            it[int(r["iteration"])].append((float(r["start_us"]), float(r["end_us"])))
    spans = []
    for k in sorted(it)[20:-20]:
        ks = sorted(it[k])
        spans.append(ks[-1][1] - ks[0][0])
    return statistics.median(spans)


def decoder_span(hqsim, work, procs, tag):
    """The decoder victim's median GPU span per request (graph op: first kernel start to last
    kernel end), over its iterations but the first and last 2."""
    sc = os.path.join(work, f"{tag}.json")
    out = os.path.join(work, f"{tag}.csv")
    json.dump(scenario(procs, "FINDINGS §26/§28: the decoder beside others"), open(sc, "w"))
    run(hqsim, sc, out)
    req = defaultdict(lambda: [1e300, -1e300])
    for r in csv.DictReader(open(out)):
        if r["process"] == "victim" and r["kind"] == "kernel":
            x = req[(int(r["iteration"]), int(r["op"]))]
            x[0] = min(x[0], float(r["start_us"]))
            x[1] = max(x[1], float(r["end_us"]))
    its = sorted({k[0] for k in req})[2:-2]
    return statistics.median(e - s for (i, _), (s, e) in req.items() if i in its)


def decoder_rows(hqsim, work, dirs, ns):
    """The decoder as victim (DIR/decoder.csv, phase plain, no profiler): growth of its span per
    request against its N = 1 MPS rows, beside aggressors of AGGR."""
    print("dir,aggr,victim,n,measured_us_per_request,rule_us,ncu_us")
    base = {}
    for d in dirs:
        f = os.path.join(d, "decoder.csv")
        if not os.path.exists(f):
            continue
        rows = [r for r in csv.DictReader(open(f))
                if r["victim"] == "decoder" and r["phase"] == "plain" and r["mode"] == "mps"]
        b = statistics.mean(float(r["evspan_p50_us"]) for r in rows if r["n"] == "1")
        tag_d = os.path.basename(os.path.normpath(d))
        for r in rows:
            n, ag = int(r["n"]), r["aggr"]
            if n == 1 or n not in ns or ag not in AGGR:
                continue
            pred = {}
            for mode in ("rule", "ncu"):
                ncu = mode == "ncu"
                vic = dict(decoder_proc(hqsim, work, "victim", ncu), iterations=20)
                if mode not in base:
                    base[mode] = decoder_span(hqsim, work, [vic], f"dec_{mode}_alone")
                # the victim's 20 iterations take ~140 ms alone: outlast them
                others = [dict(decoder_proc(hqsim, work, f"aggr{i}", ncu), iterations=40)
                          if AGGR[ag] is None else graph_proc(f"aggr{i}", AGGR[ag], 2000, ncu)
                          for i in range(n - 1)]
                pred[mode] = decoder_span(hqsim, work, [vic] + others,
                                          f"dec_{tag_d}_{ag}_n{n}_{mode}") - base[mode]
            print(f"{tag_d},{ag},decoder,{n},{float(r['evspan_p50_us']) - b:+.1f},"
                  f"{pred['rule']:+.1f},{pred['ncu']:+.1f}", flush=True)


def measured_dir(d, victims):
    rows = list(csv.DictReader(open(os.path.join(d, "var.csv"))))
    base = defaultdict(list)
    for r in rows:
        if r["victim"] in victims and r["n"] == "1" and r["mode"] == "mps":
            base[r["victim"]].append(float(r["span_p50_us"]))
    m = {}
    for r in rows:
        v = r["victim"]
        if v in victims and r["n"] != "1" and r["mode"] == "mps" and base[v]:
            n = int(r["n"])
            m[(r["aggr"], v, n)] = ((float(r["span_p50_us"]) - statistics.mean(base[v])) /
                                    NODES / (n - 1))
    return m


def cls(x):
    return "hi" if x >= HI else "lo"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, nargs="*", default=[2, 4])
    ap.add_argument("--victims", default=",".join(VICTIMS))
    ap.add_argument("--aggr", default="", help="comma-separated aggressors (default: all)")
    ap.add_argument("--decoder", action="store_true",
                    help="the decoder as victim (DIR/decoder.csv) instead of the var victims")
    ap.add_argument("--jitter", type=float, default=0.0,
                    help="sensitivity: every kernel's time drawn lognormal with this sigma")
    ap.add_argument("--node-spacing-us", type=float, default=None,
                    help="sensitivity: the H100 model with this graph_node_spacing_us")
    ap.add_argument("hqsim")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    victims = a.victims.split(",")
    work = tempfile.mkdtemp(prefix="mpsvar-")
    OPTS["jitter"] = a.jitter
    if a.node_spacing_us is not None:
        model = json.load(open(os.path.join(HERE, "..", "models", "h100-sxm.json")))
        model["graph_node_spacing_us"] = a.node_spacing_us
        OPTS["gpu"] = os.path.join(work, "h100-spacing.json")
        json.dump(model, open(OPTS["gpu"], "w"))
    if a.decoder:
        decoder_rows(a.hqsim, work, a.dirs, a.n)
        return
    base = {}
    print("dir,aggr,victim,n,measured_us,rule_us,ncu_us,class_measured/rule/ncu")
    right = {"rule": 0, "ncu": 0}
    total = 0
    for d in a.dirs:
        meas = measured_dir(d, victims)
        tag_d = os.path.basename(os.path.normpath(d))
        for (ag, v, n), mv in meas.items():
            if n not in a.n or ag not in AGGR or (a.aggr and ag not in a.aggr.split(",")):
                continue
            pred = {}
            for mode in ("rule", "ncu"):
                ncu = mode == "ncu"
                vic = graph_proc("victim", VICTIMS[v], VICTIM_ITERATIONS, ncu)
                if (v, mode) not in base:
                    base[(v, mode)] = victim_span(
                        hqsim=a.hqsim, work=work, tag=f"{v}_{mode}_alone", procs=[vic])
                others = [decoder_proc(a.hqsim, work, f"aggr{i}", ncu) if AGGR[ag] is None
                          else graph_proc(f"aggr{i}", AGGR[ag],
                                          aggr_iterations(AGGR[ag], VICTIMS[v]), ncu)
                          for i in range(n - 1)]
                s = victim_span(a.hqsim, work, [vic] + others,
                                f"{tag_d}_{ag}_{v}_n{n}_{mode}")
                pred[mode] = (s - base[(v, mode)]) / NODES / (n - 1)
            c = (cls(mv), cls(pred["rule"]), cls(pred["ncu"]))
            if n == 2 and AGGR[ag] is not None:
                total += 1
                right["rule"] += c[1] == c[0]
                right["ncu"] += c[2] == c[0]
            print(f"{tag_d},{ag},{v},{n},{mv:+.2f},{pred['rule']:+.2f},{pred['ncu']:+.2f},"
                  f"{'/'.join(c)}", flush=True)
    print(f"# N = 2 synthetic rows classified as measured (threshold {HI} us): "
          f"rule {right['rule']} / {total}, ncu {right['ncu']} / {total}")


if __name__ == "__main__":
    main()
