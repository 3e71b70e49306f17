#!/usr/bin/env python3
"""Fit hqsim GPU-model parameters from a post-processed measurement folder.

  python3 harness/fit.py DATA_DIR --base MODEL.json [--out MODEL.json] [--name NAME]
                         [--display-name TEXT] [--md FIT.md] [--check REFERENCE.json]

DATA_DIR is what harness/post.py writes (traces/measured/h100/ layout: summary.json,
manifest.json, <category>/<exp>_ops.csv, latency/device_info.json). Every parameter
the campaign parts A, B, E and F measure is fitted by one rule of the table FITS
below; the rest of the model (architecture limits, placement policy, values no part
measures) is copied from --base with its own source. Each fitted value's "source"
names the rule, the experiment(s), the numbers, and the GPU, driver, CUDA version
and date recorded with that experiment.

--check REFERENCE.json compares every fitted value with the reference model, within
the stated tolerance of its rule (the measurement noise between two runs of the same
experiment), prints the table and exits 1 when one is outside: `make test` fits the
committed H100 data and checks it against models/h100-sxm.json.

Pure Python 3 standard library (CI has no numpy).
"""
import argparse
import csv
import json
import math
import os
import statistics
import sys


class FitError(Exception):
    pass


def med(v):
    if not v:
        raise FitError("no values")
    return statistics.median(v)


class Data:
    """The post-processed folder: summary.json, manifest.json (experiment provenance)."""

    def __init__(self, d):
        self.dir = d
        self.S = self.json("summary.json")
        man = self.json("manifest.json")
        self.exps = {e["id"]: e for e in man["experiments"]}
        self.info = self.json("latency/device_info.json")

    def json(self, rel):
        p = os.path.join(self.dir, rel)
        try:
            with open(p) as f:
                return json.load(f)
        except (OSError, ValueError) as e:
            raise FitError(f"{p}: {e}")

    def ops(self, exp):
        e = self.exps.get(exp)
        if not e or "ops" not in e.get("files", {}):
            raise FitError(f"experiment {exp} has no ops file in {self.dir}/manifest.json")
        with open(os.path.join(self.dir, e["files"]["ops"])) as f:
            return list(csv.DictReader(f))

    def sec(self, *keys):
        """summary.json[k1][k2]...; a missing key is a missing experiment."""
        x = self.S
        for k in keys:
            if not isinstance(x, dict) or k not in x:
                raise FitError(f"summary.json has no {'.'.join(map(str, keys))}")
            x = x[k]
        return x

    def prov(self, exps):
        """GPU, driver, CUDA and date of the first experiment found (all of one campaign)."""
        for x in exps:
            e = self.exps.get(x)
            if e:
                cuda = e.get("cuda_runtime", 0)
                return (f"{e.get('gpu', '?')}, driver {e.get('driver', '?')}, CUDA {cuda // 1000}.{cuda % 1000 // 10}, "
                        f"{e.get('date_utc', '?')[:10]}")
        return "provenance not recorded"


# ------------------------------------------------------------------ the rules
# Each rule returns (value, experiments, how): how states the numbers it used.

def r_round(x, step):
    return float(round(round(x / step) * step, 6))


def fit_connections_default(D):
    ms = med(D.sec("connections_simplehyperq", "df_cdef", "makespan_ms"))
    # simpleHyperQ depth-first, 32 streams of 2 dependent 10 ms kernels: (32 / C + 1) x 10 ms
    c = 32 / (ms / 10 - 1)
    return round(c), ["hq_df32_cdef"], f"makespan {ms:.1f} ms = (32 / C + 1) x 10 ms gives C = {c:.2f}"


def fit_mps_connections_default(D):
    ms = med(D.sec("connections_mps", "mps_df_cdef"))
    c = 32 / (ms / 10 - 1)
    return round(c), ["mps_hq_df32_cdef"], f"makespan {ms:.1f} ms inside an MPS client gives C = {c:.2f}"


def fit_max_resident_grids(D):
    rounds = D.sec("max_resident_grids", "c32", "start_rounds")
    n = int(rounds["0"])
    return n, ["grids256_c32", "grids256_c8"], f"256 one-block kernels on 256 streams: {n} start in the first round"


def ilp1_solo(D):
    """solo block time (us) of ILP-1 dependent-FMA blocks, by warps per SM (one block per SM)."""
    out = {}
    for k, v in D.sec("contention").items():
        if k.startswith("ct_i1_w") and "_x" not in k:
            out[int(k[len("ct_i1_w"):])] = list(v["solo_block_us"].values())[0]
    if 1 not in out or len(out) < 5:
        raise FitError("contention ct_i1_w1..w32 solo times missing")
    return out


def fit_sm_full_speed_warps(D):
    t = ilp1_solo(D)
    # the most warps per SM that still run at a lone warp's speed (within 2%)
    w = max(k for k, v in t.items() if v <= 1.02 * t[1])
    return float(w), [f"ct_i1_w{k}" for k in sorted(t)], \
        "solo times " + ", ".join(f"{k}: {t[k]:.0f}" for k in sorted(t)) + f" us; within 2% of 1 warp up to {w} warps"


def fit_sm_saturation_warps(D):
    t = ilp1_solo(D)
    # the saturated issue rate in lone-warp speeds, W x T(1) / T(W), over the saturated points W >= 12
    rates = [k * t[1] / v for k, v in t.items() if k >= 12]
    s = med(rates)
    return r_round(s, 0.1), [f"ct_i1_w{k}" for k in sorted(t)], \
        "W x T(1) / T(W) for W >= 12: " + ", ".join(f"{x:.2f}" for x in rates)


def latency_runs(D):
    runs = [D.sec("latency", r) for r in ("latency", "latency_nomps") if r in D.sec("latency")]
    if not runs:
        raise FitError("summary.json has no latency runs")
    return runs


LAT_EXPS = ["latency", "latency_nomps"]


def fit_kernel_launch_latency_us(D):
    g = [r[t]["gap_us_median"] for r in latency_runs(D) for t in ("b2b_gt5us", "b2b_full132x1024_gt20us")]
    return r_round(med(g), 0.1), LAT_EXPS, \
        "end -> next start of back-to-back dependent kernels in one stream, run medians " + \
        ", ".join(f"{x:.2f}" for x in g) + " us; their median"


def mean_over_runs(D, test, key, step):
    v = [r[test][key] for r in latency_runs(D)]
    return r_round(statistics.mean(v), step), v


def fit_launch_api_us(D):
    x, v = mean_over_runs(D, "launch_api_empty", "api_us_median", 0.1)
    return x, LAT_EXPS, "cudaLaunchKernel API time, run medians " + ", ".join(f"{a:.2f}" for a in v) + " us; their mean"


def fit_submit_latency_us(D):
    v = [r["launch_to_start"]["call_to_start_us_median"] - r["launch_to_start"]["api_us_median"]
         for r in latency_runs(D)]
    lat = fit_kernel_launch_latency_us(D)[0]
    x = max(0.0, statistics.mean(v) - lat)
    return r_round(x, 0.1), LAT_EXPS, \
        "API return -> kernel start on an idle GPU " + ", ".join(f"{a:.2f}" for a in v) + \
        f" us (mean) less the launch latency {lat} us"


def fit_copy_api_us(D):
    v = [r[t]["api_us_median"] for r in latency_runs(D)
         for t in ("memcpyasync_api_h2d_pinned", "memcpyasync_api_d2h_pinned")]
    return r_round(statistics.mean(v), 0.1), LAT_EXPS, \
        "cudaMemcpyAsync from pinned memory, H2D/D2H run medians " + ", ".join(f"{a:.2f}" for a in v) + " us; mean"


def fit_sync_api_us(D):
    x, v = mean_over_runs(D, "launch_to_start", "end_to_sync_return_us_median", 0.1)
    return x, LAT_EXPS, "kernel end -> cudaStreamSynchronize returns, run medians " + \
        ", ".join(f"{a:.2f}" for a in v) + " us; mean"


def fit_event_api_us(D):
    x, v = mean_over_runs(D, "event_record_api", "api_us_median", 0.1)
    return x, LAT_EXPS, "cudaEventRecord, run medians " + ", ".join(f"{a:.2f}" for a in v) + " us; mean"


def fit_timeslice_us(D):
    r = D.sec("timeslice", "ts2_small", "run_us")
    return r_round(r["median"], 1), ["ts2_small"], \
        f"run windows of two spinning processes, median {r['median']:.1f} us (p10-p90 {r['p10']:.1f}-{r['p90']:.1f})"


def fit_context_switch_us(D):
    r = D.sec("timeslice", "ts2_small", "switch_us")
    return r_round(r["median"], 1), ["ts2_small"], \
        f"last read of one process -> first of the next, median {r['median']:.1f} us with one small block resident"


# idle_yield_us is not measured by the campaign (the base model's value, 5 us in
# every model); the idle handover below is measured with it included.
IDLE_YIELD_US = 5.0


def fit_context_switch_idle_us(D):
    r = D.sec("idle_yield", "p1_kernel_end_to_p0_resume_us")
    return r_round(r["median"] - IDLE_YIELD_US, 1), ["ts_idle"], \
        (f"an idle context's last kernel end -> the waiting one's first read, median {r['median']:.1f} us "
         f"(min {r['min']:.1f}, max {r['max']:.1f}), less idle_yield_us ({IDLE_YIELD_US:g} us): the switch "
         f"out of a context with nothing resident (no preemption)")


def ts_full_state_bytes(D):
    """Registers (allocated per warp in units of 256) + shared memory (+1 KiB reserved) of ts2_full's grid."""
    k = [o for o in D.ops("ts2_full") if o["type"] == "kernel"][0]
    grid, block = int(k["grid"]), int(k["block"])
    regs = int(k["regs_per_thread"])
    warp_regs = math.ceil(regs * 32 / 256) * 256
    smem = int(k["dyn_smem"]) + int(k["static_smem"]) + 1024
    return grid * (math.ceil(block / 32) * warp_regs * 4 + smem), (grid, block, regs, smem)


def fit_context_state_gbps(D):
    full = D.sec("timeslice", "ts2_full", "switch_us", "median")
    small = D.sec("timeslice", "ts2_small", "switch_us", "median")
    b, (g, bl, regs, smem) = ts_full_state_bytes(D)
    gbps = 2 * b / ((full - small) * 1e3)
    return r_round(gbps, 10), ["ts2_full", "ts2_small"], \
        f"{g} x {bl}-thread blocks ({regs} registers, {smem} B shared memory) resident = {b / 1e6:.1f} MB per " \
        f"context; the switch took {full:.1f} us instead of {small:.1f}: 2 x {b / 1e6:.1f} MB in {full - small:.1f} us"


def fit_context_resume_us(D):
    u = D.sec("timeslice_fma_efficiency", "useful_fraction_of_p1_windows")
    ts = fit_timeslice_us(D)[0]
    return r_round((1 - u) * ts, 10), ["ts_vs_fma", "tv_nomps_n1"], \
        f"a one-block FMA kernel progressed {u:.3f} of each {ts:.0f} us run window against a spinning process: " \
        f"{(1 - u) * ts:.0f} us lost per resume"


def memory_run(D, name):
    for m in D.sec("memory_runs"):
        if m["experiment"] == name:
            return m
    raise FitError(f"summary.json memory_runs has no {name}")


def smi_used(m):
    return float(m["smi_memory_used_total_reserved_mib"].split(",")[0])


def fit_context_mem_mib(D):
    u = {n: smi_used(memory_run(D, f"mem_nomps_n{n}")) for n in (1, 2, 4)}
    slope = (u[4] - u[1]) / 3
    return r_round(slope, 1), ["mem_nomps_n1", "mem_nomps_n2", "mem_nomps_n4"], \
        "nvidia-smi memory used with 1/2/4 processes: " + "/".join(f"{u[n]:.0f}" for n in (1, 2, 4)) + \
        " MiB; slope per process"


def app_mem(D, name, proc):
    for a in memory_run(D, name)["smi_compute_apps"]:
        p = [x.strip() for x in a.split(",")]
        if len(p) == 3 and proc in p[1]:
            return float(p[2])
    raise FitError(f"{name}: no {proc} in nvidia-smi --query-compute-apps")


def fit_mps_server_mem_mib(D):
    v = app_mem(D, "mem_mps_n1", "mps-server")
    return v, ["mem_mps_n1"], f"MPS server {v:.0f} MiB in nvidia-smi --query-compute-apps"


def fit_mps_client_mem_mib(D):
    v = app_mem(D, "mem_mps_n2", "hqprobe")
    return v, ["mem_mps_n2"], f"each MPS client {v:.0f} MiB in nvidia-smi --query-compute-apps"


def fit_device_mem_mib(D):
    used, total, reserved = [float(x) for x in memory_run(D, "mem_nomps_n1")["smi_memory_used_total_reserved_mib"]
                             .split(",")]
    return int(total - reserved), ["mem_nomps_n1"], \
        f"nvidia-smi total {total:.0f} MiB less {reserved:.0f} MiB the driver reserves"


def clients_ok(D, name):
    return int(memory_run(D, name)["ctx_errors"].get("cudaSuccess", 0))


def fit_mps_max_clients(D):
    n = clients_ok(D, "mps_maxclients")
    return n, ["mps_maxclients"], f"64 clients started at 2 connections, {n} got a context"


def fit_mps_connection_budget(D):
    pts = [(2, clients_ok(D, "mps_maxclients"))]
    for c in (4, 8):
        try:
            pts.append((c, clients_ok(D, f"mps_maxclients_c{c}")))
        except FitError:
            pass
    # clients = floor(budget / connections) - 1 at 4 and 8 connections (at 2 the client limit binds)
    b = [(n + 1) * c for c, n in pts if c > 2] or [(pts[0][1] + 1) * 2]
    return int(min(b)), [f"mps_maxclients_c{c}" if c > 2 else "mps_maxclients" for c, _ in pts], \
        "clients with a context at " + ", ".join(f"{c} connections: {n}" for c, n in pts) + \
        "; budget = (clients + 1) x connections"


def mps_pct_table(D):
    return {int(p): v["sms_used"][0] for p, v in D.sec("mps_active_thread_percentage").items()}


def fit_mps_min_tpcs(D):
    t = mps_pct_table(D)
    spt = 2  # SMs per TPC: 2 on every GPU with Volta MPS (Volta .. Hopper)
    return t[min(t)] // spt, [f"mps_pct{p:03d}" for p in sorted(t)], \
        f"{min(t)}% gives {t[min(t)]} SMs ({t[min(t)] // spt} TPCs)"


def fit_mps_pct_rounding(D):
    t = mps_pct_table(D)
    tpcs = int(D.info["sm_count_attr"]) // 2
    mn = fit_mps_min_tpcs(D)[0]
    rules = {"down": lambda p: 2 * max(mn, math.floor(p * tpcs / 100)),
             "up": lambda p: 2 * max(mn, math.ceil(p * tpcs / 100)),
             "nearest": lambda p: 2 * max(mn, math.floor(p * tpcs / 100 + 0.5))}
    hits = {k: sum(f(p) == n for p, n in t.items()) for k, f in rules.items()}
    best = max(hits, key=hits.get)
    return best, [f"mps_pct{p:03d}" for p in sorted(t)], \
        f"SMs = 2 x max({mn}, {best}(pct x {tpcs} / 100)) holds for {hits[best]} of {len(t)} settings " \
        f"(down {hits['down']}, up {hits['up']}, nearest {hits['nearest']})"


def copy_bw(D, key):
    return D.sec("copies", key, "bw_GBps_256MiB")


def fit_h2d(D):
    v = copy_bw(D, "h2d_pinned")
    return r_round(v, 0.1), ["copies"], f"pinned 256 MiB H2D {v:.2f} GB/s"


def fit_d2h(D):
    v = copy_bw(D, "d2h_pinned")
    return r_round(v, 0.1), ["copies"], f"pinned 256 MiB D2H {v:.2f} GB/s"


def fit_d2d(D):
    v = copy_bw(D, "d2d_device")
    return r_round(v, 10), ["copies"], f"device-to-device 256 MiB, {v:.1f} GB/s copied"


def fit_pageable(D):
    r = [D.sec("copies", f"{d}_pageable", k) / D.sec("copies", f"{d}_pinned", k)
         for d in ("h2d", "d2h") for k in ("bw_GBps_16MiB", "bw_GBps_256MiB")]
    return r_round(statistics.mean(r), 0.01), ["copies"], \
        "pageable / pinned bandwidth, H2D 16/256 MiB, D2H 16/256 MiB: " + ", ".join(f"{x:.2f}" for x in r) + "; mean"


def fit_copy_latency_us(D):
    v = [D.sec("copies", k, "latency_us_4KiB_minus_transfer") for k in ("h2d_pinned", "d2h_pinned")]
    return r_round(statistics.mean(v), 0.1), ["copies"], \
        "a 4 KiB pinned copy less its transfer time, H2D/D2H " + ", ".join(f"{x:.2f}" for x in v) + " us; mean"


def fit_copy_duplex_factor(D):
    o = [x for x in D.ops("cp_bidir") if x["type"] in ("h2d", "d2h") and x["duration_ns"] and x["solo_ns"]]
    r = [int(x["solo_ns"]) / int(x["duration_ns"]) for x in o]
    return r_round(med(r), 0.01), ["cp_bidir"], \
        f"a 256 MiB H2D and a 256 MiB D2H at once: each at {min(r):.2f}-{max(r):.2f} of its solo speed " \
        f"({len(r)} copies); median"


def copy_engines(D, exp):
    o = [x for x in D.ops(exp) if x["type"] in ("h2d", "d2h") and x["start_ns"] and x["solo_ns"]]
    its = sorted({x["iteration"] for x in o})
    # two same-direction copies on two streams: the span of both over one alone is ~2 with one engine,
    # ~1 with two (ends only: the start event of a queued copy can fire early)
    r = med([(max(int(x["end_ns"]) for x in o if x["iteration"] == i) -
              min(int(x["start_ns"]) for x in o if x["iteration"] == i)) /
             med([int(x["solo_ns"]) for x in o if x["iteration"] == i]) for i in its])
    return (1 if r > 1.5 else 2), r


def fit_copy_engines_h2d(D):
    n, ov = copy_engines(D, "cp_h2d_x2")
    return n, ["cp_h2d_x2"], f"two 256 MiB H2D copies on two streams took {ov:.2f} x one alone"


def fit_copy_engines_d2h(D):
    n, ov = copy_engines(D, "cp_d2h_x2")
    return n, ["cp_d2h_x2"], f"two 256 MiB D2H copies on two streams took {ov:.2f} x one alone"


def fit_nvml(D):
    r = D.sec("nvml_sample_period_ms")
    return r_round(r["median"], 1), ["util_pattern"], \
        f"NVML raw utilization sample spacing, median {r['median']:.1f} ms (p10-p90 {r['p10']:.1f}-{r['p90']:.1f})"


def fit_dispatch_order(D):
    o = D.sec("dispatch_order_132x32")
    exp = "d_pl_132x32" if "d_pl_132x32" in D.exps else "pl_132x32"
    # the model's list: the measured GPC-by-GPC order, first SM of every TPC first, then the second ones
    # (grids smaller than the TPC count take one SM per TPC; FINDINGS.md section 2)
    seen, first, second = set(), [], []
    for s in o:
        (second if s // 2 in seen else first).append(s)
        seen.add(s // 2)
    return first + second, [exp], \
        f"the SM of each block of a one-wave {len(o)}-block kernel in block order ({', '.join(map(str, o[:6]))}, " \
        f"...), first SM of every TPC first"


def fit_sm_count(D):
    n = int(D.info["sm_count_attr"])
    return n, ["info"], f"cudaDevAttrMultiProcessorCount {n}"


def fit_sm_clock(D):
    c = D.info["clock_rate_khz"] / 1000
    m = D.info["timer"]["sm_clock_mhz_1thread"]
    return int(round(c)), ["info"], f"cudaDevAttrClockRate {c:.0f} MHz; clock64 / %globaltimer under a 1-thread " \
        f"spin {m:.0f} MHz (clocks as found, never locked)"


# (field, rule, tolerance vs a reference: ("abs", x) | ("rel", x) | ("exact",))
# The tolerance is the noise between two runs of the same experiment on one GPU
# (FINDINGS.md: latency runs differ by up to 1.2 us for the API time, timeslice
# windows by < 1 us, switch times by ~1 us, copy bandwidth by ~1%).
FITS = [
    ("sm_count", fit_sm_count, ("exact",)),
    ("max_resident_grids", fit_max_resident_grids, ("exact",)),
    ("connections_default", fit_connections_default, ("exact",)),
    ("sm_saturation_warps", fit_sm_saturation_warps, ("rel", 0.03)),
    ("sm_full_speed_warps", fit_sm_full_speed_warps, ("exact",)),
    ("kernel_launch_latency_us", fit_kernel_launch_latency_us, ("abs", 0.3)),
    ("launch_api_us", fit_launch_api_us, ("abs", 0.6)),
    ("submit_latency_us", fit_submit_latency_us, ("abs", 0.5)),
    ("copy_api_us", fit_copy_api_us, ("abs", 0.5)),
    ("sync_api_us", fit_sync_api_us, ("abs", 0.3)),
    ("event_api_us", fit_event_api_us, ("abs", 0.1)),
    ("timeslice_us", fit_timeslice_us, ("abs", 2.0)),
    ("context_switch_us", fit_context_switch_us, ("abs", 2.0)),
    ("context_switch_idle_us", fit_context_switch_idle_us, ("abs", 2.0)),
    ("context_state_gbps", fit_context_state_gbps, ("rel", 0.05)),
    ("context_resume_us", fit_context_resume_us, ("abs", 20.0)),
    ("context_mem_mib", fit_context_mem_mib, ("abs", 4.0)),
    ("mps_max_clients", fit_mps_max_clients, ("exact",)),
    ("mps_connections_default", fit_mps_connections_default, ("exact",)),
    ("mps_connection_budget", fit_mps_connection_budget, ("exact",)),
    ("mps_min_tpcs", fit_mps_min_tpcs, ("exact",)),
    ("mps_pct_rounding", fit_mps_pct_rounding, ("exact",)),
    ("mps_server_mem_mib", fit_mps_server_mem_mib, ("abs", 2.0)),
    ("mps_client_mem_mib", fit_mps_client_mem_mib, ("abs", 4.0)),
    ("device_mem_mib", fit_device_mem_mib, ("abs", 16)),
    ("copy_engines_h2d", fit_copy_engines_h2d, ("exact",)),
    ("copy_engines_d2h", fit_copy_engines_d2h, ("exact",)),
    ("h2d_bandwidth_gbps", fit_h2d, ("rel", 0.02)),
    ("d2h_bandwidth_gbps", fit_d2h, ("rel", 0.02)),
    ("d2d_bandwidth_gbps", fit_d2d, ("rel", 0.02)),
    ("pageable_bandwidth_factor", fit_pageable, ("abs", 0.05)),
    ("copy_duplex_factor", fit_copy_duplex_factor, ("abs", 0.03)),
    ("copy_latency_us", fit_copy_latency_us, ("abs", 0.5)),
    ("nvml_sample_period_ms", fit_nvml, ("abs", 2.0)),
    ("sm_clock_mhz", fit_sm_clock, ("abs", 20)),
    ("dispatch_order", fit_dispatch_order, ("exact",)),
]


def within(new, old, tol):
    if old is None:
        return False
    if tol[0] == "exact":
        return new == old
    if tol[0] == "abs":
        return abs(new - old) <= tol[1] + 1e-9
    return abs(new - old) <= tol[1] * abs(old) + 1e-9


def tol_text(tol):
    return {"exact": "exact", "abs": f"±{tol[1]:g}" if tol[0] == "abs" else "",
            "rel": f"±{tol[1] * 100:g}%" if tol[0] == "rel" else ""}[tol[0]]


def show(v):
    if isinstance(v, list):
        return f"[{len(v)} values]"
    return str(v)


def fit(D):
    """[(field, value, experiments, how, tolerance)] for every rule whose data is present; the missing ones
    are returned apart with the reason."""
    got, missing = [], []
    for field, rule, tol in FITS:
        try:
            v, exps, how = rule(D)
            got.append((field, v, exps, how, tol))
        except (FitError, KeyError, IndexError, ValueError, ZeroDivisionError) as e:
            missing.append((field, f"{type(e).__name__}: {e}"))
    return got, missing


def build_model(D, base, got, name, display):
    m = json.loads(json.dumps(base))
    src = m.setdefault("source", {})
    for field, v, exps, how, _ in got:
        m[field] = v
        src[field] = f"fitted by harness/fit.py from {', '.join(exps[:3])}{' ...' if len(exps) > 3 else ''} " \
                     f"({D.prov(exps)}): {how}"
    if name:
        m["name"] = name
    if display:
        m["display_name"] = display
    m["calibrated"] = True
    src["calibrated"] = f"calibrated on {D.prov(['info'])} by harness/fit.py from {D.dir}; fields whose source " \
                        f"does not start with 'fitted' are not measured by the campaign and come from the base model"
    return m


def md_table(D, got, missing, ref):
    L = [f"# Fitted model parameters: {D.prov(['info'])}", "",
         f"`python3 harness/fit.py {D.dir} ...`. Rules, experiments and numbers: each field's `source` "
         f"in the model file.", ""]
    hdr = "| parameter | fitted | experiments |" + (" reference | tolerance | within |" if ref else "")
    L += [hdr, "|" + "---|" * (hdr.count("|") - 1)]
    for field, v, exps, how, tol in got:
        row = f"| `{field}` | {show(v)} | {', '.join(exps[:2])}{' ...' if len(exps) > 2 else ''} |"
        if ref:
            old = ref.get(field)
            row += f" {show(old)} | {tol_text(tol)} | {'yes' if within(v, old, tol) else '**no**'} |"
        L.append(row)
    if missing:
        L += ["", "Not fitted (experiment missing from the data):", ""]
        L += [f"- `{f}`: {why}" for f, why in missing]
    return "\n".join(L) + "\n"


# experiments that set values but are not replayed by `hqsim validate`, with the reason
NOT_REPLAYED = {
    "ts2_full": "calibration of the switch cost only: its self-timed spin blocks share SMs two by two and then "
                "under-count their own running time, so its makespan measures the harness, not the GPU",
}


def calibration_txt(got):
    """calibration.txt for `hqsim validate`: every experiment a fitted value came from is 'calibration', every
    other one a prediction."""
    L = ["# Experiments whose measurements set fitted values of the model (written by harness/fit.py;",
         "# each value's \"source\" names its experiments). `hqsim validate` marks these", "# \"calibration\"; "
         "every other experiment is a prediction."]
    seen = set()
    for field, _, exps, _, _ in got:
        for e in exps:
            if e not in seen:
                seen.add(e)
                L.append(f"{e:<20} # {field}")
    L += ["", "# Not replayed, with the reason (a line \"!ID reason\"):"]
    L += [f"!{k} {v}" for k, v in NOT_REPLAYED.items() if k in seen]
    return "\n".join(L) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data")
    ap.add_argument("--base", required=True, help="model file that gives every field the campaign does not measure")
    ap.add_argument("--out", help="model file to write")
    ap.add_argument("--name")
    ap.add_argument("--display-name")
    ap.add_argument("--md", help="write the fit table (markdown) here")
    ap.add_argument("--calibration", help="write calibration.txt (the fitted experiments) here")
    ap.add_argument("--check", help="reference model: exit 1 when a fitted value is outside its tolerance")
    a = ap.parse_args(argv)
    try:
        D = Data(a.data)
        with open(a.base) as f:
            base = json.load(f)
        ref = None
        if a.check:
            with open(a.check) as f:
                ref = json.load(f)
    except (FitError, OSError, ValueError) as e:
        print(f"fit.py: {e}", file=sys.stderr)
        return 2
    got, missing = fit(D)
    if not got:
        print(f"fit.py: {a.data}: nothing to fit", file=sys.stderr)
        return 2
    table = md_table(D, got, missing, ref)
    if a.md:
        with open(a.md, "w") as f:
            f.write(table)
    if a.calibration:
        with open(a.calibration, "w") as f:
            f.write(calibration_txt(got))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(build_model(D, base, got, a.name, a.display_name), f, indent=2, ensure_ascii=False)
            f.write("\n")
    if ref is not None:
        print(table, end="")
        bad = [f for f, v, _, _, tol in got if not within(v, ref.get(f), tol)]
        if bad or missing:
            print(f"fit.py: outside tolerance: {', '.join(bad) or '-'}; not fitted: "
                  f"{', '.join(f for f, _ in missing) or '-'}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
