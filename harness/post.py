#!/usr/bin/env python3
"""Turn raw campaign results into the committed dataset traces/measured/h100/.

  python3 harness/post.py RAW_TARBALL_DIR OUT_DIR

RAW_TARBALL_DIR holds partA.tar.gz ... partE.tar.gz as written by campaign.sh (the
committed copies live in traces/measured/h100/raw/). Writes, under OUT_DIR:
  <category>/<exp>_ops.csv        one row per op per process per iteration (times relative
                                   to the experiment's first launch, ns, %globaltimer clock)
  <category>/<exp>_blocks.csv.gz  one row per block: smid, start, end
  timeslice/<exp>_gaps.csv        time-slice gaps seen by the spin kernel
  solo_durations.csv               every kernel/copy configuration measured alone
  gpc_map.csv                      physical SM -> GPC (clock64 domain) and dispatch order
  summary.json                     the numbers FINDINGS.md quotes, computed here
  manifest.json                    every experiment: command, pattern, settings, files
Pure standard library (no numpy).
"""
import csv
import gzip
import io
import json
import os
import re
import shutil
import statistics as st
import sys
import tarfile
from collections import Counter, defaultdict

MS = 1e6

# ------------------------------------------------------------------ loading


class Raw:
    def __init__(self, tardir):
        self.parts = {}
        for part in "ABCDEFGHIJKMNP":
            p = os.path.join(tardir, f"part{part}.tar.gz")
            if os.path.exists(p):
                self.parts[part] = tarfile.open(p, "r:gz")
        self.names = {part: set(t.getnames()) for part, t in self.parts.items()}

    def has(self, part, path):
        # a campaign may bring only some parts (hqsim calibrate runs A, B, E, F, H)
        n = self.names.get(part, ())
        return ("./" + path) in n or path in n

    def read(self, part, path):
        t = self.parts[part]
        for n in ("./" + path, path):
            if n in self.names[part]:
                return t.extractfile(n).read()
        raise KeyError(path)

    def text(self, part, path):
        return self.read(part, path).decode()

    def csv(self, part, path):
        return list(csv.DictReader(io.StringIO(self.text(part, path))))

    def json(self, part, path):
        return json.loads(self.text(part, path))


INT_COLS = ("rep", "op", "stream", "prio", "grid", "block", "smem", "work", "chains", "bytes", "pinned", "host_t0",
            "host_t1", "gpu_t0", "gpu_t1", "nsm", "err", "rep_host_t0", "rep_host_t1")


def load_proc(raw, part, exp, i):
    P = {"i": i}
    for k in ("ops", "blocks", "gaps"):
        f = f"{exp}/p{i}_{k}.csv"
        P[k] = raw.csv(part, f) if raw.has(part, f) else []
    for o in P["ops"]:
        for k in INT_COLS:
            o[k] = int(o[k])
    f = f"{exp}/p{i}_meta.json"
    P["meta"] = raw.json(part, f) if raw.has(part, f) else {}
    return P


def offset_fn(P):
    """host CLOCK_REALTIME ns -> %globaltimer ns, linear between the two ping-pong syncs."""
    m = P["meta"]
    s0, s1 = m.get("clock_sync_start", {}), m.get("clock_sync_end", {})
    if not s0 or s0.get("rtt_ns", 0) <= 0:
        return lambda t: t
    o0 = s0["offset_ns"]
    if not s1 or s1.get("rtt_ns", 0) <= 0:
        return lambda t: t + o0
    o1 = s1["offset_ns"]
    ta = m.get("t_ctx_done") or 0
    hs = [o["host_t1"] for o in P["ops"]]
    tb = max(hs) if hs else ta + 1
    if tb <= ta:
        return lambda t: t + o0
    return lambda t: t + o0 + (o1 - o0) * (t - ta) / (tb - ta)


def q(v, p):
    v = sorted(v)
    if not v:
        return None
    return v[min(len(v) - 1, int(p * len(v)))]


def med(v):
    return st.median(v) if v else None


def r3(x):
    return None if x is None else round(x, 3)


# ------------------------------------------------------------------ catalogue

CATS = [
    (r"^(hq_|grids256|mps_hq_)", "connections"),
    (r"^(pl_|pl2_|d_pl_)", "placement"),
    (r"^lo_", "leftover"),
    (r"^pr_", "priority"),
    (r"^ct_", "contention"),
    (r"^(cp_|copies)", "copies"),
    (r"^(latency|info)", "latency"),
    (r"^(ts_|ts2|ts3|ts4)", "timeslice"),
    (r"^tv_", "onebl_mps_vs_timeslice"),
    (r"^util_", "util"),
    (r"^mem_", "memory"),
    (r"^(mps_|d_mps_)", "mps"),
    (r"^torch_", "pytorch"),
    (r"^ncu_", "ncu"),
    (r"^(g_spread|dsp_)", "dispatch"),
    # part I (issue 11): kernels the calibration never saw, one folder generalize/<what>
    (r"^i_(bw|alone|ilp|info|ncu)$", "generalize/alone"),
    (r"^i_tri\d+_\d+$", "generalize/dram_disjoint"),
    (r"^i_ilp2_|^i_fma1_fma4$|^i_smem_fma$|^i_sgemm_fma4$|^i_tri66_fma66$", "generalize/sm_pairs"),
    (r"^i_(tri_x2|cpy_tri|red_tri|gemv_x2|gemv_tri|tri_fma|fma4_tri|sgemm_x2|sgemm_tri|smem_x2)$",
     "generalize/mem_pairs"),
    (r"^i_quad_", "generalize/quads"),
    (r"^i_older_|^i_behind$", "generalize/order"),
    (r"^i_p_", "generalize/alone"),
    (r"^i_mp\d", "generalize/processes"),
    # part J (issue 11 items 3, 4): who goes first inside an SM, uneven waves
    (r"^j_info$", "generalize/alone"),
    (r"^j_older_|^j_behind_", "generalize/order"),
    (r"^j_quad_", "generalize/quads"),
    (r"^j_", "generalize/first"),
    # part K: copies beside kernels
    (r"^k_info$", "generalize/alone"),
    # part M: warps of different ILP on one warp scheduler
    (r"^m_info$", "generalize/alone"),
    (r"^m_", "generalize/ilp_mix"),
    # part N: ranks on one warp scheduler (new ILP mixes)
    (r"^n_info$", "generalize/alone"),
    (r"^n_", "generalize/ilp_mix"),
    (r"^k_", "generalize/copies"),
    # part P: where blocks go when MPS clients' kernels wait (issue 10)
    (r"^p_info$", "mpsplace"),
    (r"^p_", "mpsplace"),
]


def category(name):
    for rx, c in CATS:
        if re.search(rx, name):
            return c
    return "other"


def describe_i(name):
    what = {"alone": "kernels alone (solo times, delivered DRAM bandwidth, FMA issue curves)",
            "dram_disjoint": "two triads on disjoint SM sets (1024-thread blocks, one per SM): shared DRAM only",
            "sm_pairs": "two compute kernels sharing SMs (FMA ILP 1/2/4, shared memory, SGEMM)",
            "mem_pairs": "two kernels on two streams, at least one memory-bound (triad, copy, reduce, GEMV)",
            "quads": "four different kernels on four streams",
            "order": "kernels started at different times on the same SMs; a kernel queued behind a full triad",
            "processes": "one kernel per process, 2 or 4 processes released together, with or without MPS",
            "first": "two kernels on two streams sharing SMs: the greedy (ILP 2/4) or the older one first",
            "copies": "a device-to-device or host-to-device copy beside a kernel of part I: copies draw on DRAM",
            "ilp_mix": "two FMA kernels of one block per SM on two streams: ILP 8 pairs, ILP 1/2/4/8 mixed on the "
                       "same warp schedulers, blocks of 6 + 2 warps (no ncu data)"}
    if name.startswith("j_"):
        what["order"] = "kernels started at different times on the same SMs; a kernel queued behind a draining wave"
        what["quads"] = "four FMA kernels (ILP 1, 2, 4; 8 and 32 warps) on four streams"
    part = {"j": "J (issue 11, items 3, 4)", "k": "K (issue 11, copies and DRAM)",
            "m": "M (issue 11, item 2: per-scheduler issue)",
            "n": "N (issue 11: ranks on one warp scheduler)"}.get(name[0], "I (issue 11)")
    return f"part {part}: " + what.get(category(name).split("/")[-1], name)


def describe(name):
    if name.startswith(("i_", "j_", "k_", "m_", "n_")):
        return describe_i(name)
    if name.startswith("p_"):
        return "part P (issue 10): " + (
            "head of line across MPS clients: a kernel of 132 small blocks launched 0.4 ms after another "
            "client's (or stream's) 396 blocks of 100 KiB, 132 of which wait 1 ms for room"
            if name.startswith("p_hol") else
            "a one-block-per-SM GEMM-like kernel (52 x 256 threads, 120 KiB) launched 100 times beside clients "
            "streaming 512-block elementwise-like kernels" if name.startswith("p_gw") else
            "device properties and kernel attributes")
    d = {
        "info": "device properties, %globaltimer resolution, SM clock under a 1-thread spin, kernel register/smem use",
        "latency": "host API times (cudaLaunchKernel, cudaMemcpyAsync, syncs, event record, stream create), launch call -> kernel start, kernel end -> sync return, back-to-back kernel gaps in one stream",
        "latency_nomps": "same as 'latency' (second run, part E) for comparison with latency_mps",
        "latency_mps": "same as 'latency' inside an MPS client (default active thread percentage)",
        "copies": "pinned/pageable H2D, D2H and D2D copies of 4 KiB..256 MiB alone: event time, API time, host wall time",
        "util_pattern": "nvidia-smi / NVML GPU-Util while one process runs: idle 1 s, a 1-thread spin of 3 s, idle 1 s, 50% duty (20 ms kernel / 20 ms idle) for 3 s, 10% duty (5 ms / 45 ms) for 3 s, idle 1 s",
        "mps_maxclients": "64 MPS clients started at once: how many get a context (cudaFree(0))",
        "mps_maxclients_c4": "64 MPS clients with CUDA_DEVICE_MAX_CONNECTIONS=4 started at once: how many get a context",
        "mps_maxclients_c8": "64 MPS clients with CUDA_DEVICE_MAX_CONNECTIONS=8 started at once: how many get a context",
        "torch_profile": "one PyTorch process, resnet18 batch 8 fp32 eval, 30 requests recorded with torch.profiler (Kineto trace)",
        "torch_multistream": "PyTorch program on 3 streams (matmuls | conv2d | pinned copies) recorded with torch.profiler",
        "ncu_harness": "Nsight Compute LaunchStats + Occupancy of the harness kernels (--clock-control none)",
        "ncu_torch": "Nsight Compute LaunchStats + Occupancy of the first 60 kernels of one resnet18 batch-8 request",
        "ts_idle": "time-slicing idle yield: p0 spins 1.5 s (own time); p1 launches 40 short kernels (200 us), each followed by cudaStreamSynchronize and 10 ms host sleep",
        "ts_vs_fma": "p0 spin kernel recording gaps (1 s own time) vs p1 ten 1-block FMA kernels (fixed work) without MPS: how much useful work a compute kernel does per slice",
        "ts_vs_fma_mps": "as ts_vs_fma under MPS (no time slicing expected)",
        "ts_mps_vs_nomps": "one MPS client and one ordinary process (no MPS) each spinning 1 s: time-sliced against each other",
        "ts2_small_mps": "two MPS clients each spinning 1 s: no time slicing expected",
        "ts_solo": "one process, spin kernel 300 ms own time: reference (no gaps)",
    }
    if name in d:
        return d[name]
    m = re.match(r"^hq_(df|bf)32_c(\w+)$", name)
    if m:
        return (f"simpleHyperQ: 32 streams x (kA, kB) <<<1,1>>> 10 ms each, {'depth' if m[1] == 'df' else 'breadth'}-first issue, "
                f"CUDA_DEVICE_MAX_CONNECTIONS={m[2] if m[2] != 'def' else 'unset (default)'}")
    m = re.match(r"^mps_hq_(df|bf)32_c(\w+)$", name)
    if m:
        return (f"simpleHyperQ inside one MPS client, {'depth' if m[1] == 'df' else 'breadth'}-first, "
                f"CUDA_DEVICE_MAX_CONNECTIONS={m[2] if m[2] != 'def' else 'unset (MPS default)'}")
    if name == "mps_hq_2clients_cdef":
        return "two MPS clients at once, each the depth-first simpleHyperQ pattern, default connections"
    m = re.match(r"^hq_df(\d+)_c(\d+)$", name)
    if m:
        return f"stream->connection mapping: {m[1]} streams x (kA,kB) depth-first with {m[2]} connections"
    if name == "hq_interleave8_c4":
        return "mapping rule: 8 streams created 0..7, first used in order 0,2,4,6,1,3,5,7 (depth-first), 4 connections"
    if name == "hq_random16_c4":
        return "mapping rule: 16 streams, depth-first issue in a random stream order, 4 connections"
    if name == "hq_unused8_c4":
        return "mapping rule: 8 streams created, only streams 1,3,5,7 used (depth-first), 4 connections"
    if name == "hq_prio8_c4":
        return "mapping rule with priorities: 8 streams, priorities alternating 0/-5, depth-first, 4 connections"
    m = re.match(r"^grids256_c(\d+)$", name)
    if m:
        return f"max resident grids: 256 streams x one <<<1,1>>> 20 ms kernel, {m[1]} connections"
    if name.startswith("pl_") or name.startswith("d_pl_"):
        return "block placement order: one kernel, blocks record %smid (spin 2 ms)"
    if name.startswith("pl2_"):
        return "placement of two concurrent kernels (K1 4 ms then K2 2 ms on another stream)"
    if name.startswith("lo_carve"):
        return "shared-memory carveout compatibility: K1 occupies all SMs, K2 with another block size on another stream"
    if name.startswith("lo_hol"):
        return "head-of-line blocking: K0 runs, K1 (head) fits nowhere, K2 (later, other stream) would fit (ctrl: K2 issued before K1)"
    if name.startswith("lo_"):
        return "leftover policy: a second kernel on another stream while the first kernel fills or half-fills the GPU"
    if name.startswith("pr_"):
        return "stream priorities: Kfirst 528 exclusive blocks (4 waves of 1 ms) on stream 0, Ksecond 132 exclusive blocks on stream 1 launched ~0.3 ms later"
    if name.startswith("ct_"):
        return "SM issue contention: two (or four) FMA kernels of 132 blocks (1 per SM) co-resident; per-block time vs solo"
    if name.startswith("cp_") and "x2proc" in name:
        return "copies of 256 MiB in the same direction from two processes at once"
    if name.startswith("cp_"):
        return "copy/compute overlap and copy-engine concurrency within one process"
    m = re.match(r"^ts(\d)_(small|full)$", name)
    if m:
        return f"time slicing: {m[1]} processes (no MPS) each spinning ({'1 block x 32 threads' if m[2] == 'small' else '264 blocks x 1024 threads + 100 KiB smem each'}); gaps give slice length and switch cost"
    m = re.match(r"^tv_(nomps|mps)_n(\d)$", name)
    if m:
        return f"one-block FMA kernel (10 x ~56 ms, 256 threads) in {m[2]} processes at once, {'no MPS' if m[1] == 'nomps' else 'MPS'} (Titan V comparison)"
    m = re.match(r"^mem_(nomps|mps)_n(\d)$", name)
    if m:
        return f"device memory per context: {m[2]} processes holding a context, {'no MPS' if m[1] == 'nomps' else 'MPS'}"
    m = re.match(r"^(d_)?mps_pct(\d+)$", name)
    if m:
        return f"MPS active thread percentage {int(m[2])}%: SMs seen (attribute) and SMs used by a 4224-block kernel"
    if name.startswith("mps_pair_solo"):
        return "one MPS client alone at this percentage running the mps_pair kernel (4224 x 128 threads, 200 us) 5 times"
    if name.startswith("mps_pair"):
        return "two MPS clients with thread-percentage limits running a 4224-block kernel 5 times"
    if name.startswith("mps_excl"):
        return "MPS SM sets: clients with limits each run 132 exclusive blocks (200 KiB smem, 20 ms); waits show shared physical SMs; clock64 domains show GPCs"
    m = re.match(r"^g_(spread|spreadfma|spread32)_(nomps|mps)$", name)
    if m:
        shape = {"spread": "4224 x 128 threads, 100 us timer blocks (the mps_pct kernel)",
                 "spreadfma": "4224 x 128 threads, fixed work (FMA, 44600 iterations: ~100 us for a lone warp)",
                 "spread32": "4224 x 32 threads, 2 ms timer blocks (pl_4224x32)"}[m[1]]
        return f"one kernel of {shape}, {'no MPS' if m[2] == 'nomps' else 'inside an MPS client (100%)'}, 3 times"
    m = re.match(r"^dsp_b(\d+)_k(\d+)(x2)?$", name)
    if m:
        two = " on each of two streams at once" if m[3] else ""
        return (f"dispatch of one wave: {int(m[2]) * 132} blocks of {m[1]} threads ({m[2]} per SM), 100 us timer blocks{two}, "
                "5 times: which blocks start late, and by how much")
    if name in ("torch_profile_nomps", "torch_profile_mps"):
        return ("one PyTorch process, resnet18 batch 8, 30 requests recorded with torch.profiler, "
                + ("no MPS (control for torch_profile_mps, same session)" if name.endswith("nomps") else "inside an MPS client"))
    m = re.match(r"^torch_(nomps|mps)_n(\d)(.*)$", name)
    if m:
        return f"PyTorch resnet18 batch 8 inference, {m[2]} processes closed loop (300 requests after 50 warm-up), {'no MPS' if m[1] == 'nomps' else 'MPS'}{m[3].replace('_', ' ')}"
    return name


# ------------------------------------------------------------------ main conversion

class Post:
    def __init__(self, tardir, out):
        self.raw = Raw(tardir)
        self.out = out
        self.manifest = []
        self.solo_rows = []
        self.summary = {}
        self.funcattrs = {}
        self.env = {}
        for part in self.raw.parts:
            f = f"env_{part}.json"
            if self.raw.has(part, f):
                self.env[part] = self.raw.json(part, f)
        fa = self.raw.csv("A", "info/p0_funcattrs.csv")
        for r in fa:
            self.funcattrs[r["kernel"]] = r
        self.info = self.raw.json("A", "info/p0_meta.json")
        self.timer = self.raw.json("A", "info/p0_timer.json")

    def w(self, rel):
        p = os.path.join(self.out, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        return p

    def attrs(self, kind, chains):
        key = {"fma": f"fma{chains}"}.get(kind, kind)
        a = self.funcattrs.get(key)
        return (int(a["num_regs"]), int(a["static_smem"])) if a else ("", "")

    def common(self, part):
        e = self.env.get(part, {})
        drv = re.search(r"Driver Version\s*:\s*([\d.]+)", e.get("nvidia_smi_q", "") + " ".join(e.get("nvidia_smi_q_excerpt", [])))
        return {"gpu": self.info["device"], "sm_count": 132, "driver": drv[1] if drv else "580.159.04",
                "cuda_driver_api": self.info["driver_version"], "cuda_runtime": self.info["runtime_version"],
                "date_utc": e.get("date", "").strip(), "host_kernel": e.get("uname", "").strip().split(" ")[2]
                if e.get("uname") else ""}

    # ---------------------------------------------------------- spec-run experiments
    def spec_of(self, cmd):
        if "--spec" in cmd:
            return os.path.basename(cmd[cmd.index("--spec") + 1])[:-5]
        return None

    def pattern(self, spec):
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "specs", spec + ".spec")
        streams, ops = [], []
        for line in open(path):
            line = line.split("#")[0].split()
            if not line:
                continue
            if line[0] == "streams":
                n = int(line[1])
                pr = [int(x) for x in line[2].split(",")] if len(line) > 2 else [0]
                streams = [{"index": i, "priority": pr[min(i, len(pr) - 1)]} for i in range(n)]
            elif line[0] == "kernel":
                kind = line[3]
                ops.append({"op": len(ops), "type": "kernel", "stream": int(line[1]), "name": line[2], "kind": kind,
                            "grid": int(line[4]), "block": int(line[5]), "dyn_smem": int(line[6]),
                            "work": int(line[7]), "work_unit": {"gt": "ns", "tslice": "ns", "clk": "cycles"}.get(kind, "iterations"),
                            "chains": int(line[8]) if len(line) > 8 else 1})
            elif line[0] in ("h2d", "d2h", "d2d"):
                ops.append({"op": len(ops), "type": line[0], "stream": int(line[1]), "bytes": int(line[2]),
                            "host_mem": line[3]})
            elif line[0] == "sleep":
                ops.append({"op": len(ops), "type": "host_sleep", "us": int(line[1])})
            elif line[0] == "sync":
                ops.append({"op": len(ops), "type": "device_synchronize"})
            elif line[0] == "ssync":
                ops.append({"op": len(ops), "type": "stream_synchronize", "stream": int(line[1])})
        # priorities are clamped to the device range [0,-5]
        for s in streams:
            s["priority"] = max(-5, min(0, s["priority"]))
        return {"spec_file": f"harness/specs/{spec}.spec", "streams": streams, "ops": ops}

    def run_exp(self, part, name, e):
        cat = category(name)
        procs = [load_proc(self.raw, part, name, i) for i in range(e["nproc"])]
        offs = [offset_fn(P) for P in procs]
        firsts = []
        for P, f in zip(procs, offs):
            m = [o for o in P["ops"] if o["phase"] == "main" and o["rep"] == 0]
            if m:
                firsts.append(f(min(o["host_t0"] for o in m)))
        tref = int(round(min(firsts))) if firsts else 0
        # solo table
        solo = {}
        for P in procs:
            by = defaultdict(list)
            for o in P["ops"]:
                if o["phase"] == "solo" and o["gpu_t1"] > o["gpu_t0"]:
                    key = (o["type"], o["kind"], o["grid"], o["block"], o["smem"], o["work"], o["chains"], o["bytes"],
                           o["pinned"])
                    by[key].append((o["gpu_t1"] - o["gpu_t0"], o["nsm"]))
            for key, v in by.items():
                d = [x[0] for x in v]
                solo[key] = med(d)
                self.solo_rows.append([name, *key, len(d), int(med(d)), min(d), max(d), v[0][1]])
        rows = []
        for P, f in zip(procs, offs):
            for o in P["ops"]:
                if o["phase"] != "main":
                    continue
                key = (o["type"], o["kind"], o["grid"], o["block"], o["smem"], o["work"], o["chains"], o["bytes"],
                       o["pinned"])
                is_gpu = o["type"] in ("kernel", "h2d", "d2h", "d2d")
                regs, ssm = self.attrs(o["kind"], o["chains"]) if o["type"] == "kernel" else ("", "")
                st_ = o["gpu_t0"] - tref if is_gpu and o["gpu_t0"] else ""
                en_ = o["gpu_t1"] - tref if is_gpu and o["gpu_t1"] else ""
                rows.append([name, P["i"], P["meta"].get("pid", ""), o["rep"], o["op"], o["type"],
                             o["stream"], o["prio"] if o["stream"] >= 0 else "", o["name"], o["kind"],
                             o["grid"] if o["type"] == "kernel" else "", o["block"] if o["type"] == "kernel" else "",
                             o["smem"] if o["type"] == "kernel" else "", ssm, regs,
                             o["work"] if o["type"] == "kernel" else "",
                             {"gt": "ns", "tslice": "ns", "clk": "cycles"}.get(o["kind"], "iterations") if o["type"] == "kernel" else "",
                             o["chains"] if o["type"] == "kernel" else "", o["bytes"] if o["bytes"] else "",
                             ("pinned" if o["pinned"] else "pageable") if o["type"] in ("h2d", "d2h") else "",
                             round(f(o["host_t0"]) - tref), o["host_t1"] - o["host_t0"], st_, en_,
                             (en_ - st_) if st_ != "" and en_ != "" else "", o["nsm"] if o["type"] == "kernel" else "",
                             int(solo[key]) if key in solo else "", o["err"]])
        hdr = ["experiment", "process", "pid", "iteration", "op", "type", "stream", "stream_priority", "name", "kind",
               "grid", "block", "dyn_smem", "static_smem", "regs_per_thread", "work", "work_unit", "chains", "bytes",
               "host_mem", "launch_ns", "api_ns", "start_ns", "end_ns", "duration_ns", "nsm", "solo_ns", "err"]
        if name.startswith(("i_", "j_", "k_")):
            hdr, rows = hdr + ["dram_bytes", "sm_issue_pct", "sm_pipe_pct"], [r + self.demand(r) for r in rows]
        rows.sort(key=lambda r: (r[1], r[3], r[4]))
        files = {}
        fn = f"{cat}/{name}_ops.csv"
        with open(self.w(fn), "w", newline="") as fo:
            wr = csv.writer(fo)
            wr.writerow(hdr)
            wr.writerows(rows)
        files["ops"] = fn
        blk = []
        for P in procs:
            for b in P["blocks"]:
                blk.append([P["i"], b["rep"], b["op"], b["block"], b["smid"], int(b["t0"]) - tref, int(b["t1"]) - tref,
                            b["ngaps"]])
        blk.sort(key=lambda r: (r[0], int(r[1]), int(r[2]), int(r[3])))
        if blk:
            fn = f"{cat}/{name}_blocks.csv.gz"
            with gzip.open(self.w(fn), "wt", newline="", compresslevel=9) as fo:
                wr = csv.writer(fo)
                wr.writerow(["process", "iteration", "op", "block", "smid", "start_ns", "end_ns", "ngaps"])
                wr.writerows(blk)
            files["blocks"] = fn
        gaps = []
        for P in procs:
            for g in P["gaps"]:
                gaps.append([P["i"], g["rep"], g["op"], g["block"], int(g["gap_t0"]) - tref, int(g["gap_t1"]) - tref])
        if gaps:
            fn = f"{cat}/{name}_gaps.csv"
            with open(self.w(fn), "w", newline="") as fo:
                wr = csv.writer(fo)
                wr.writerow(["process", "iteration", "op", "block", "gap_start_ns", "gap_end_ns"])
                wr.writerows(gaps)
            files["gaps"] = fn
        return files, procs, tref

    # ---------------------------------------------------------- entry
    def run(self):
        for part in sorted(self.raw.parts):
            idx = self.raw.json(part, f"index_{part}.json")
            for e in idx:
                self.one(part, e)
        self.write_solo()
        self.gpc_map()
        self.analyze()
        # compact ops/streams: one line per op in the pretty-printed manifest
        stash = []

        def compact(o):
            stash.append(json.dumps(o, separators=(", ", ": ")))
            return f"@@{len(stash) - 1}@@"
        for ex in self.manifest:
            for pat in ex.get("patterns", {}).values():
                pat["ops"] = [compact(o) for o in pat["ops"]]
                pat["streams"] = compact(pat["streams"])
        with open(self.w("manifest.json"), "w") as f:
            txt = json.dumps({"dataset": f"hqsim ground truth, {self.info['device']} ({self.info['sm_count_attr']} SMs)",
                       "clock": "all *_ns times are %globaltimer nanoseconds relative to the experiment's first launch "
                                "(host launch-call time of its first op, mapped to %globaltimer through a ping-pong "
                                "over mapped host memory, +-1.5 us)",
                       "common": self.common("A"),
                       "harness": "harness/ (hqprobe.cu, mp.py, campaign.sh, gen_specs.py, post.py)",
                       "spec_grammar": "harness/gen_specs.py docstring; 'work' is ns for gt/tslice kinds, SM cycles for clk, "
                                       "loop iterations for fma/fmaheavy/fmas32 (one FMA per chain per iteration)",
                       "experiments": self.manifest}, indent=1)
            txt = re.sub(r'"@@(\d+)@@"', lambda m_: stash[int(m_[1])], txt)
            f.write(txt + "\n")
        with open(self.w("summary.json"), "w") as f:
            json.dump(self.summary, f, indent=1)

    def one(self, part, e):
        name = e["name"]
        if part == "C" and name.startswith("ncu"):
            return  # part C lost its ncu logs (--log-file path bug); part D re-ran them
        if any(m["id"] == name for m in self.manifest):
            raise ValueError(f"duplicate experiment {name}")
        cmd0 = e["procs"][0]["cmd"]
        cat = category(name)
        entry = {"id": name, "part": part, "category": cat, "measures": describe(name), **self.common(part),
                 "campaign_command": f"harness/campaign.sh {part} OUTDIR --only '^{re.escape(name)}$'",
                 "nproc": e["nproc"], "barrier": e["barrier"],
                 "mps_daemon": e.get("mps", False), "wall_s": round(e["wall_s"], 3), "return_codes": e["rcs"]}
        procs_m = []
        for p in e["procs"]:
            cmd = [re.sub(r"^.*/\.carry/", "", a) for a in p["cmd"]]
            cmd = [re.sub(r"^/tmp/hqraw/\w+/", "RAW/", a) for a in cmd]
            cmd = [re.sub(r"^/tmp/hqbar/", "BARRIERDIR/", a) for a in cmd]
            cmd = [re.sub(r"^/\S*/python3[.\d]*$", "python3", a) for a in cmd]
            env = dict(p.get("env", {}))
            if e.get("mps"):
                env.setdefault("CUDA_MPS_PIPE_DIRECTORY", "/tmp/hqmps/pipe")
            conn = env.get("CUDA_DEVICE_MAX_CONNECTIONS")
            mps_client = bool(e.get("mps")) and env.get("CUDA_MPS_PIPE_DIRECTORY") == "/tmp/hqmps/pipe"
            pm = {"index": p["i"], "command": " ".join(cmd), "env": env, "mps_client": mps_client,
                  "connections": int(conn) if conn else ("default: 2 under MPS" if mps_client else "default: 8"),
                  "active_thread_percentage": int(env["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"])
                  if "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE" in env else (100 if mps_client else None)}
            spec = self.spec_of(cmd)
            if spec:
                pm["spec"] = spec
                reps = int(cmd[cmd.index("--reps") + 1]) if "--reps" in cmd else 3
                pm["iterations"] = reps
            procs_m.append(pm)
        entry["processes"] = procs_m
        specs = sorted({p["spec"] for p in procs_m if "spec" in p})
        if specs:
            entry["patterns"] = {s: self.pattern(s) for s in specs}
            entry["iteration_rule"] = ("each process issues the pattern's ops in order once per iteration, then "
                                       "cudaDeviceSynchronize, then sleeps 20 ms before the next iteration; "
                                       "multi-process runs release all processes together after warm-up (file barrier) "
                                       "before iteration 0")
            solo = "--nosolo" not in cmd0 and e["nproc"] == 1
            entry["solo_durations"] = ("measured in the same process before the experiment: each distinct kernel/copy "
                                       "configuration alone 3 times on stream 0 (solo_durations.csv, solo_ns column)"
                                       if solo else "see solo_reference")
        files = {}
        try:
            if name == "i_ncu":
                files = self.ncu(part, name)
            elif "run" in cmd0 and "--spec" in cmd0 and not name.startswith("ncu"):
                files, procs, tref = self.run_exp(part, name, e)
            elif name.startswith("latency"):
                files = self.latency(part, name)
            elif name == "copies":
                files = self.copies(part, name)
            elif name == "info":
                files = self.info_exp(part)
            elif name.startswith("mem_") or name.startswith("mps_maxclients"):
                files = self.memory(part, name, e)
            elif name.startswith("torch"):
                files = self.torch(part, name, e)
            elif name.startswith("ncu"):
                files = self.ncu(part, name)
        except Exception as ex:  # noqa
            print(f"WARN {name}: {ex!r}", file=sys.stderr)
            raise
        entry["files"] = files
        ref = self.solo_reference(name)
        if ref:
            entry["solo_reference"] = ref
        self.manifest.append(entry)

    def solo_reference(self, name):
        m = re.match(r"^tv_(nomps|mps)_n\d$", name)
        if m:
            return f"tv_{m[1]}_n1 (one process alone); also solo_ns of the kernel = 55.89 ms"
        if name.startswith("ts") and name != "ts_solo":
            return "ts_solo (spin kernels measure their own running time; a spin of W ns alone takes W ns)"
        m = re.match(r"^torch_(nomps|mps)_n\d", name)
        if m:
            return f"torch_{m[1]}_n1 and torch_{m[1]}_n1_rep2"
        if name.startswith("mps_excl_") and "solo" not in name:
            return "mps_excl_solo25/50/60/100 (one client alone at that percentage)"
        if name.startswith("mps_pair") and "solo" not in name:
            return "mps_pair_solo<NN>: the same kernel in one client alone at each percentage"
        if name.startswith("mps_pct"):
            return None
        if name.startswith("mps_hq") or name.startswith("cp_") and "x2proc" in name:
            return "the same configuration alone: gt 1x1 10 ms = 10.000 ms (hq_* solo rows); copies: 'copies' experiment"
        return None

    # ---------------------------------------------------------- other modes
    def latency(self, part, name):
        rows = self.raw.csv(part, f"{name}/p0_latency.csv")
        meta = self.raw.json(part, f"{name}/p0_meta.json")
        o0, o1 = meta["clock_sync_start"]["offset_ns"], meta["clock_sync_end"]["offset_ns"]
        ta, tb = int(rows[0]["host_call"]), int(rows[-1]["host_ret"])

        def off(t):
            return t + o0 + (o1 - o0) * (t - ta) / (tb - ta)
        out = []
        prev = None
        for r in rows:
            api = int(r["host_ret"]) - int(r["host_call"])
            c2s = d = e2s = gap = ""
            if r["gpu_t0"]:
                g0, g1 = int(r["gpu_t0"]), int(r["gpu_t1"])
                d = g1 - g0
                if r["test"] == "launch_to_start":
                    c2s = round(g0 - off(int(r["host_call"])))
                    e2s = round(off(int(r["host_done"])) - g1)
                if prev is not None and prev["test"] == r["test"] and prev["gpu_t1"]:
                    gap = g0 - int(prev["gpu_t1"])
            out.append([r["test"], r["i"], api, c2s, d, e2s, gap, r["bytes"],
                        (int(r["host_done"]) - int(r["host_call"])) if r["host_done"] else ""])
            prev = r
        fn = f"latency/{name}.csv"
        with open(self.w(fn), "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(["test", "i", "api_ns", "call_to_start_ns", "gpu_duration_ns", "end_to_sync_return_ns",
                         "gap_from_previous_kernel_end_ns", "bytes", "call_to_host_done_ns"])
            wr.writerows(out)
        return {"latency": fn}

    def copies(self, part, name):
        rows = self.raw.csv(part, f"{name}/p0_copies.csv")
        fn = "copies/copies_sweep.csv"
        with open(self.w(fn), "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(["dir", "host_mem", "bytes", "rep", "api_ns", "event_ns", "call_to_host_done_ns"])
            for r in rows:
                wr.writerow([r["dir"], r["mem"], r["bytes"], r["rep"], int(r["host_ret"]) - int(r["host_call"]),
                             round(float(r["event_ms"]) * 1e6), int(r["host_done"]) - int(r["host_call"])])
        return {"copies": fn}

    def info_exp(self, part):
        fn = "latency/device_info.json"
        m = dict(self.info)
        for k in ("argv", "pid", "t_proc_start", "t_ctx_start", "t_ctx_done", "t_barrier_release", "clock_sync_start",
                  "clock_sync_end", "pci"):
            m.pop(k, None)
        m["timer"] = self.timer
        m["kernel_attributes"] = list(self.funcattrs.values())
        with open(self.w(fn), "w") as f:
            json.dump(m, f, indent=1)
        return {"info": fn}

    def memory(self, part, name, e):
        holds = []
        for i in range(e["nproc"]):
            f = f"{name}/p{i}_hold.json"
            if self.raw.has(part, f):
                holds.append(self.raw.json(part, f))
        snap = e.get("mem_at_ready") or {}
        rec = {"experiment": name, "nproc": e["nproc"], "mps": e.get("mps", False),
               "smi_memory_used_total_reserved_mib": snap.get("smi_gpu"),
               "smi_compute_apps": [x.strip() for x in (snap.get("smi_apps") or "").splitlines()
                                    if x.strip()][:8],
               "nvml_v2_used_bytes": snap.get("nvml_v2_used"), "nvml_v2_reserved_bytes": snap.get("nvml_v2_reserved"),
               "ctx_errors": dict(Counter(h["ctx_err"] for h in holds)),
               "memgetinfo_free_mib": [round(h["mem_free"] / 2 ** 20, 1) for h in holds][:8],
               "context_create_ms": [round((h["t_ctx_done"] - h["t_ctx_start"]) / 1e6, 1) for h in holds]}
        rec["smi_compute_apps"] = [re.sub(r"\S*/hqprobe", "hqprobe", x) for x in rec["smi_compute_apps"]]
        self.summary.setdefault("memory_runs", []).append(rec)
        return {"summary": "summary.json:memory_runs"}

    def torch(self, part, name, e):
        files = {}
        reqs = []
        for i in range(e["nproc"]):
            f = f"{name}/p{i}_requests.csv"
            if self.raw.has(part, f):
                for r in self.raw.csv(part, f):
                    reqs.append([i, int(r["pid"]), int(r["i"]), int(r["t0_ns"]), int(r["t1_ns"])])
        if reqs:
            t0 = min(r[3] for r in reqs)
            fn = f"pytorch/{name}_requests.csv"
            with open(self.w(fn), "w", newline="") as f:
                wr = csv.writer(f)
                wr.writerow(["process", "pid", "request", "start_ns", "end_ns", "latency_ns"])
                for r in reqs:
                    wr.writerow([r[0], r[1], r[2], r[3] - t0, r[4] - t0, r[4] - r[3]])
            files["requests"] = fn
            files["clock"] = "host CLOCK_REALTIME relative to the first request start"
        if self.raw.has(part, f"{name}/p0_trace.json.gz"):
            fn = f"pytorch/{name}_trace.json.gz"
            with open(self.w(fn), "wb") as f:
                f.write(self.raw.read(part, f"{name}/p0_trace.json.gz"))
            files["kineto_trace"] = fn
        if self.raw.has(part, f"{name}/p0_kernels.txt"):
            fn = f"pytorch/{name}_kernels.txt"
            with open(self.w(fn), "wb") as f:
                f.write(self.raw.read(part, f"{name}/p0_kernels.txt"))
            files["profiler_table"] = fn
        if self.raw.has(part, f"{name}/p0_meta.json"):
            m = self.raw.json(part, f"{name}/p0_meta.json")
            files["software"] = {k: m.get(k) for k in ("torch", "torchvision", "cuda", "cudnn", "model", "batch",
                                                       "max_memory_reserved")}
        return files

    def ncu(self, part, name):
        txt = self.raw.text(part, f"{name}/p0_ncu.csv")
        lines = [l for l in txt.splitlines() if l.startswith('"')]
        fn = f"ncu/{name}.csv"
        with open(self.w(fn), "w") as f:
            f.write("\n".join(lines) + "\n")
        return {"ncu_csv": fn}

    def write_solo(self):
        fn = "solo_durations.csv"
        with open(self.w(fn), "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(["experiment", "type", "kind", "grid", "block", "dyn_smem", "work", "chains", "bytes",
                         "pinned", "n", "median_ns", "min_ns", "max_ns", "nsm"])
            wr.writerows(self.solo_rows)

    # ---------------------------------------------------------- GPC map
    def gpc_map(self):
        # part D's one-wave 132 x 32 run, else part A's (same pattern; calibrate runs no part D)
        src = ("D", "d_pl_132x32") if self.raw.has("D", "d_pl_132x32/exp.json") else ("A", "pl_132x32")
        procs = [load_proc(self.raw, src[0], src[1], 0)]
        b = [x for x in procs[0]["blocks"] if x["rep"] == "0"]
        T = min(int(x["t0"]) for x in b)
        f = med([(int(x["clk1"]) - int(x["clk0"])) / (int(x["t1"]) - int(x["t0"])) for x in b])
        fp = {int(x["smid"]): int(x["clk0"]) - f * (int(x["t0"]) - T) for x in b}
        vals = sorted(set(round(v / 1e4) for v in fp.values()))
        # cluster
        srt = sorted(fp.items(), key=lambda kv: kv[1])
        gid, cur, last = {}, -1, None
        for s, v in srt:
            if last is None or v - last > 5000:
                cur += 1
            gid[s] = cur
            last = v
        # order gpcs by smallest smid
        remap = {}
        for s in sorted(gid):
            if gid[s] not in remap:
                remap[gid[s]] = len(remap)
        order = [int(x["smid"]) for x in sorted(b, key=lambda x: int(x["block"]))]
        pos = {s: i for i, s in enumerate(order)}
        fn = "placement/gpc_map.csv"
        with open(self.w(fn), "w", newline="") as fo:
            wr = csv.writer(fo)
            wr.writerow(["smid", "tpc_guess", "gpc", "dispatch_position_132x32"])
            for s in sorted(gid):
                wr.writerow([s, s // 2, remap[gid[s]], pos.get(s, "")])
        self.summary["gpc_sizes"] = dict(Counter(remap[g] for g in gid.values()))
        self.summary["dispatch_order_132x32"] = order

    # ---------------------------------------------------------- numbers for FINDINGS
    def analyze(self):
        S = self.summary
        raw = self.raw

        def span(part, name, rep=None):
            e = raw.json(part, f"{name}/exp.json")
            res = defaultdict(list)
            for i in range(e["nproc"]):
                P = load_proc(raw, part, name, i)
                for o in P["ops"]:
                    if o["phase"] == "main" and o["gpu_t0"]:
                        res[o["rep"]].append((o["gpu_t0"], o["gpu_t1"]))
            return {r: (max(b for a, b in v) - min(a for a, b in v)) / MS for r, v in res.items()}

        # connections
        T = 10.0
        tab = {}
        for order in ("df", "bf"):
            for C in ["1", "2", "4", "8", "16", "32", "def"]:
                sp = span("A", f"hq_{order}32_c{C}")
                Cn = 8 if C == "def" else int(C)
                pred = (32 / Cn + 1) * T if order == "df" else 2 * T
                tab[f"{order}_c{C}"] = {"makespan_ms": [r3(v) for v in sp.values()], "predicted_ms": pred,
                                        "ratio": r3(med(list(sp.values())) / pred)}
        S["connections_simplehyperq"] = tab
        mp = {}
        for C in ["def", "1", "2", "4", "8", "32"]:
            sp = span("B", f"mps_hq_df32_c{C}")
            mp[f"mps_df_c{C}"] = [r3(v) for v in sp.values()]
        mp["mps_bf_cdef"] = [r3(v) for v in span("B", "mps_hq_bf32_cdef").values()]
        mp["mps_2clients_df_cdef"] = [r3(v) for v in span("B", "mps_hq_2clients_cdef").values()]
        S["connections_mps"] = mp
        # mapping: A start slot per stream
        mapping = {}
        for nm in ["hq_df5_c4", "hq_df9_c8", "hq_df17_c8", "hq_df17_c16", "hq_df33_c32", "hq_df64_c32",
                   "hq_interleave8_c4", "hq_random16_c4", "hq_unused8_c4", "hq_prio8_c4"]:
            P = load_proc(raw, "A", nm, 0)
            m = [o for o in P["ops"] if o["phase"] == "main" and o["rep"] == 0]
            t0 = min(o["gpu_t0"] for o in m)
            issue = []
            slot = {}
            for o in m:
                if o["name"].startswith("kA"):
                    issue.append(o["stream"])
                    slot[o["stream"]] = round((o["gpu_t0"] - t0) / 10e6)
            C = int(nm.split("_c")[-1])
            pred_first_use = {s: i // C for i, s in enumerate(issue)}
            mapping[nm] = {"issue_order": issue, "kA_start_slot_by_stream": {str(s): slot[s] for s in sorted(slot)},
                           "first_use_round_robin_predicts_all": all(pred_first_use[s] == slot[s] for s in slot),
                           "makespan_ms": r3(max(o["gpu_t1"] for o in m) / MS - t0 / MS)}
        S["connection_mapping"] = mapping
        g = {}
        for C in ("32", "8"):
            P = load_proc(raw, "A", f"grids256_c{C}", 0)
            m = [o for o in P["ops"] if o["phase"] == "main" and o["rep"] == 0]
            t0 = min(o["gpu_t0"] for o in m)
            g[f"c{C}"] = {"start_rounds": dict(Counter(round((o["gpu_t0"] - t0) / 20e6) for o in m)),
                          "makespan_ms": r3((max(o["gpu_t1"] for o in m) - t0) / MS)}
        S["max_resident_grids"] = g

        # timeslice
        ts = {}
        for part, nm in [("B", "ts2_small"), ("B", "ts3_small"), ("B", "ts4_small"), ("B", "ts2_full"),
                         ("B", "ts_mps_vs_nomps"), ("B", "ts2_small_mps")]:
            e = raw.json(part, f"{nm}/exp.json")
            runs, gaps, segs_all = [], [], []
            for i in range(e["nproc"]):
                P = load_proc(raw, part, nm, i)
                o = [x for x in P["ops"] if x["phase"] == "main" and x["kind"] == "tslice"][0]
                b = [x for x in P["blocks"] if int(x["op"]) == o["op"] and x["block"] == "0"][0]
                gs = sorted((int(x["gap_t0"]), int(x["gap_t1"])) for x in P["gaps"] if x["block"] == "0")
                cur = int(b["t0"])
                segs = []
                for a, c in gs:
                    segs.append((cur, a))
                    cur = c
                segs.append((cur, int(b["t1"])))
                runs += [(c - a) / 1e3 for a, c in segs[1:-1]]
                gaps += [(c - a) / 1e3 for a, c in gs]
                segs_all += [(a, c, i) for a, c in segs]
            segs_all.sort()
            sw = [(a2 - b1) / 1e3 for (a1, b1, p1), (a2, b2, p2) in zip(segs_all, segs_all[1:]) if p1 != p2 and a2 >= b1]
            ts[nm] = {"run_us": {"median": r3(med(runs)), "p10": r3(q(runs, .1)), "p90": r3(q(runs, .9)), "n": len(runs)},
                      "gap_us": {"median": r3(med(gaps)), "n": len(gaps)},
                      "switch_us": {"median": r3(med(sw)), "p10": r3(q(sw, .1)), "p90": r3(q(sw, .9)), "n": len(sw)}}
        S["timeslice"] = ts
        # idle yield
        P0, P1 = load_proc(raw, "B", "ts_idle", 0), load_proc(raw, "B", "ts_idle", 1)
        gs = sorted((int(x["gap_t0"]), int(x["gap_t1"])) for x in P0["gaps"] if x["block"] == "0")
        f1 = offset_fn(P1)
        lat, kept, yl = [], [], []
        for k in [o for o in P1["ops"] if o["phase"] == "main" and o["type"] == "kernel"]:
            launch = f1(k["host_t0"])
            lat.append((k["gpu_t0"] - launch) / 1e3)
            gg = [x for x in gs if x[0] <= k["gpu_t0"] <= x[1]]
            if gg:
                kept.append((gg[0][0] - launch) / 1e3)
                yl.append((gg[0][1] - k["gpu_t1"]) / 1e3)
        S["idle_yield"] = {"p1_launch_to_start_us": {"median": r3(med(lat)), "max": r3(max(lat)), "first": r3(lat[0])},
                           "p0_kept_running_after_p1_launch_us": {"median": r3(med(kept)), "max": r3(max(kept))},
                           "p1_kernel_end_to_p0_resume_us": {"median": r3(med(yl)), "min": r3(min(yl)),
                                                             "max": r3(max(yl))}}
        # ts vs fma
        P0, P1 = load_proc(raw, "E", "ts_vs_fma", 0), load_proc(raw, "E", "ts_vs_fma", 1)
        gs = sorted((int(x["gap_t0"]), int(x["gap_t1"])) for x in P0["gaps"] if x["block"] == "0")
        k = [o for o in P1["ops"] if o["phase"] == "main"]
        tf, tl = min(o["gpu_t0"] for o in k), max(o["gpu_t1"] for o in k)
        inside = [(max(a, tf), min(c, tl)) for a, c in gs if c > tf and a < tl]
        gapsum = sum(c - a for a, c in inside)
        # the FMA kernel alone: tv_nomps_n1 runs the same 10 kernels in one process (55.89 ms each on the
        # H100); each gap of p0 holds two context switches of ts2_small's length
        solo = span("B", "tv_nomps_n1")[0] / 10
        sw_ns = ts["ts2_small"]["switch_us"]["median"] * 1e3
        S["timeslice_fma_efficiency"] = {
            "fma_kernel_median_ms": r3(med([(o["gpu_t1"] - o["gpu_t0"]) / MS for o in k])),
            "fma_solo_ms": r3(solo), "p1_span_ms": r3((tl - tf) / MS), "p0_gaps_in_span_ms": r3(gapsum / MS),
            "p0_gaps_in_span": len(inside), "switch_us_assumed": r3(sw_ns / 1e3),
            "useful_fraction_of_p1_windows": r3(solo * 10 / ((gapsum - len(inside) * 2 * sw_ns) / MS))}
        # titan V
        tv = {}
        for mode in ("nomps", "mps"):
            for n in (1, 2, 4):
                sp = span("B", f"tv_{mode}_n{n}")
                tv[f"{mode}_n{n}"] = r3(sp[0])
        S["one_block_kernel_makespan_ms"] = tv
        # mps pct
        pct = {}
        for p in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 25, 30, 33, 40, 45, 50, 55, 60, 66, 70, 75, 80, 90, 95, 99, 100):
            P = load_proc(raw, "B", f"mps_pct{p:03d}", 0)
            sets = [sorted({int(b["smid"]) for b in P["blocks"] if b["rep"] == str(r)}) for r in range(3)]
            dur = [(o["gpu_t1"] - o["gpu_t0"]) / MS for o in P["ops"] if o["phase"] == "main"]
            pct[p] = {"sm_attr": P["meta"]["sm_count_attr"], "sms_used": [len(s) for s in sets],
                      "rule_2xmax(4,floor(pct*66/100))": 2 * max(4, int(p * 66 // 100)),
                      "same_set_all_iterations": sets[0] == sets[1] == sets[2], "smid_range": [sets[0][0], sets[0][-1]],
                      "kernel_ms": [r3(d) for d in dur]}
        S["mps_active_thread_percentage"] = pct
        # mps exclusive sets
        ex = {}
        for nm in [] if "D" not in raw.parts else ["mps_excl_solo25", "mps_excl_solo50", "mps_excl_solo60", "mps_excl_solo100", "mps_excl_25_25",
                   "mps_excl_25_25_again", "mps_excl_50_50", "mps_excl_60_60", "mps_excl_100_100", "mps_excl_10_90",
                   "mps_excl_30_30_30"]:
            e = raw.json("D", f"{nm}/exp.json")
            procs = [load_proc(raw, "D", nm, i) for i in range(e["nproc"])]
            allb = [(P["i"], x) for P in procs for x in P["blocks"] if x["rep"] == "0"]
            T0 = min(int(x["t0"]) for _, x in allb)
            res = []
            for P in procs:
                b = [x for i, x in allb if i == P["i"]]
                res.append({"pct": int(P["meta"]["env"]["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"]),
                            "sm_attr": P["meta"]["sm_count_attr"],
                            "blocks_started_in_first_ms": sum(1 for x in b if int(x["t0"]) - T0 < 1e6),
                            "kernel_ms": r3((max(int(x["t1"]) for x in b) - min(int(x["t0"]) for x in b)) / MS)})
            ex[nm] = res
        S["mps_exclusive_sets_iteration0"] = ex
        # contention
        ct = {}
        for nm in ["ct_i1_w1", "ct_i1_w2", "ct_i1_w4", "ct_i1_w8", "ct_i1_w12", "ct_i1_w16", "ct_i1_w24", "ct_i1_w32",
                   "ct_i4_w1", "ct_i4_w2", "ct_i4_w4", "ct_i4_w8", "ct_i4_w16", "ct_mix_w1_w32", "ct_mix_w4_w32",
                   "ct_i1_w8_x4"]:
            P = load_proc(raw, "A", nm, 0)
            so = defaultdict(list)
            for o in P["ops"]:
                if o["phase"] == "solo":
                    so[o["name"]].append((o["gpu_t1"] - o["gpu_t0"]) / 1e3)
            names = {o["op"]: o["name"] for o in P["ops"] if o["phase"] == "main"}
            bl = defaultdict(list)
            for b in P["blocks"]:
                bl[names[int(b["op"])]].append((int(b["t1"]) - int(b["t0"])) / 1e3)
            mk = [v for v in span("A", nm).values()]
            ct[nm] = {"solo_block_us": {k: r3(med(v)) for k, v in so.items()},
                      "corun_block_us": {k: r3(med(v)) for k, v in bl.items()}, "corun_makespan_ms": r3(med(mk))}
        S["contention"] = ct
        # copies fit
        rows = raw.csv("A", "copies/p0_copies.csv")
        d = defaultdict(list)
        for r in rows:
            if r["rep"] != "0":
                d[(r["dir"], r["mem"], int(r["bytes"]))].append(float(r["event_ms"]) * 1e3)
        cp = {}
        for dirmem in sorted({(k[0], k[1]) for k in d}):
            pts = sorted((k[2], med(v)) for k, v in d.items() if (k[0], k[1]) == dirmem)
            tb = dict(pts)
            bw = max(tb) / (tb[max(tb)] * 1e-6) / 1e9  # GB/s at the largest size (256 MiB)
            bw16 = (16 << 20) / (tb[16 << 20] * 1e-6) / 1e9
            t0 = tb[min(tb)] - min(tb) / (bw * 1e3)  # us: time of the smallest copy minus its transfer time
            cp["_".join(dirmem)] = {"latency_us_4KiB_minus_transfer": r3(t0), "bw_GBps_256MiB": r3(bw),
                                    "bw_GBps_16MiB": r3(bw16),
                                    "event_time_us_by_bytes_median": {str(b): r3(t) for b, t in pts}}
        S["copies"] = cp
        # latency
        lat = {}
        for part, nm in [("A", "latency"), ("E", "latency_nomps"), ("E", "latency_mps")]:
            fn = os.path.join(self.out, f"latency/{nm}.csv")
            rr = list(csv.DictReader(open(fn)))
            by = defaultdict(list)
            for r in rr:
                by[r["test"]].append(r)
            res = {}
            for t, v in by.items():
                api = [int(r["api_ns"]) / 1e3 for r in v]
                x = {"api_us_median": r3(med(api)), "api_us_p10": r3(q(api, .1)), "api_us_p90": r3(q(api, .9))}
                gp = [int(r["gap_from_previous_kernel_end_ns"]) / 1e3 for r in v if r["gap_from_previous_kernel_end_ns"]]
                if gp and t.startswith("b2b"):
                    x["gap_us_median"] = r3(med(gp))
                    x["gap_us_p90"] = r3(q(gp, .9))
                if t == "launch_to_start":
                    c = [int(r["call_to_start_ns"]) / 1e3 for r in v]
                    s2 = [int(r["end_to_sync_return_ns"]) / 1e3 for r in v]
                    x.update({"call_to_start_us_median": r3(med(c)), "call_to_start_us_p10": r3(q(c, .1)),
                              "end_to_sync_return_us_median": r3(med(s2))})
                if v[0]["bytes"]:
                    for b in sorted({r["bytes"] for r in v}, key=int):
                        a = [int(r["api_ns"]) / 1e3 for r in v if r["bytes"] == b]
                        w = [int(r["call_to_host_done_ns"]) / 1e3 for r in v if r["bytes"] == b and r["call_to_host_done_ns"]]
                        x[f"bytes_{b}"] = {"api_us_median": r3(med(a)), "done_us_median": r3(med(w))}
                res[t] = x
            lat[nm] = res
        S["latency"] = lat
        # torch
        tt = {}
        for part in ("C", "D"):
            for nm in sorted(n[:-len("/exp.json")] for n in (x.lstrip("./") for x in raw.names.get(part, ()))
                             if re.match(r"^torch_(no)?mps_n\d.*/exp.json$", n)):
                e = raw.json(part, f"{nm}/exp.json")
                rows, starts, ends = [], [], []
                for i in range(e["nproc"]):
                    rr = [(int(r["t0_ns"]), int(r["t1_ns"])) for r in raw.csv(part, f"{nm}/p{i}_requests.csv")]
                    rows += rr
                    starts.append(rr[0][0])
                    ends.append(rr[-1][1])
                l = [(b - a) / MS for a, b in rows]
                tt[nm] = {"nproc": e["nproc"], "requests": len(rows),
                          "throughput_req_s": r3(len(rows) / ((max(ends) - min(starts)) / 1e9)),
                          "latency_ms_p50": r3(q(l, .5)), "latency_ms_p90": r3(q(l, .9)), "latency_ms_p99": r3(q(l, .99)),
                          "latency_ms_mean": r3(st.mean(l))}
        S["pytorch_resnet18_b8"] = tt
        # NVML sampling
        ss = raw.csv("B", "nvml_samples_B.csv")
        ts_ = [int(r["nvml_ts_us"]) for r in ss]
        dts = [(b - a) / 1e3 for a, b in zip(ts_, ts_[1:])]
        S["nvml_sample_period_ms"] = {"median": r3(med(dts)), "p10": r3(q(dts, .1)), "p90": r3(q(dts, .9))}
        P = load_proc(raw, "B", "util_pattern", 0)
        m = [o for o in P["ops"] if o["phase"] == "main"]
        t0 = min(o["host_t0"] for o in m)
        phases = [("idle0", 0, 1), ("spin_1thread", 1.2, 3.9), ("idle1", 4.3, 4.9), ("duty50", 5.3, 7.9),
                  ("duty10", 8.4, 10.9), ("idle2", 11.2, 12.0)]
        smp = [((int(r["nvml_ts_us"]) * 1000 - t0) / 1e9, int(r["gpu_util_sample"])) for r in ss]
        smi = raw.text("B", "smi_B.csv").splitlines()[1:]
        # nvidia-smi timestamps are local wall time; align by the host realtime date of the first op
        import datetime
        smi_rows = []
        for l in smi:
            p = [x.strip() for x in l.split(",")]
            try:
                tt_ = datetime.datetime.strptime(p[0], "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc)
                smi_rows.append(((tt_.timestamp() * 1e9 - t0) / 1e9, int(p[1]), int(p[3])))
            except Exception:
                pass
        util = {}
        for nmp, a, b in phases:
            v = [x for t, x in smp if a <= t <= b]
            w = [x for t, x, c in smi_rows if a <= t <= b]
            util[nmp] = {"nvml_samples_mean": r3(st.mean(v)) if v else None, "n": len(v),
                         "nvidia_smi_mean": r3(st.mean(w)) if w else None, "n_smi": len(w)}
        S["gpu_util_pattern"] = util
        fn = self.w("util/util_pattern_samples.csv")
        with open(fn, "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(["source", "t_s_rel_pattern_start", "gpu_util", "sm_clock_mhz"])
            for t, v in smp:
                if -2 < t < 14:
                    wr.writerow(["nvml_raw_sample", round(t, 4), v, ""])
            for t, v, c in smi_rows:
                if -2 < t < 14:
                    wr.writerow(["nvidia_smi_lms100", round(t, 4), v, c])
        # util during the torch runs and tv runs: NVML raw samples whose 200 ms window lies inside the
        # experiment's active window (first request start .. last request end, or first..last kernel)
        uw = {}
        for part in ("B", "C", "D"):
            if not raw.has(part, f"nvml_samples_{part}.csv"):
                continue
            ss = [(int(r["nvml_ts_us"]) * 1000, int(r["gpu_util_sample"])) for r in raw.csv(part, f"nvml_samples_{part}.csv")]
            for x in raw.json(part, f"index_{part}.json"):
                nm = x["name"]
                win = None
                if nm.startswith("torch_") and x["nproc"] >= 1 and raw.has(part, f"{nm}/p0_requests.csv"):
                    a, b = [], []
                    for i in range(x["nproc"]):
                        rr = raw.csv(part, f"{nm}/p{i}_requests.csv")
                        a.append(int(rr[0]["t0_ns"]))
                        b.append(int(rr[-1]["t1_ns"]))
                    win = (min(a), max(b))
                elif nm.startswith("tv_"):
                    a, b = [], []
                    for i in range(x["nproc"]):
                        P = load_proc(raw, part, nm, i)
                        m = [o for o in P["ops"] if o["phase"] == "main"]
                        a.append(min(o["host_t0"] for o in m))
                        b.append(max(o["rep_host_t1"] for o in m))
                    win = (min(a), max(b))
                if win:
                    v = [u for t, u in ss if win[0] + 0.2e9 <= t <= win[1]]
                    uw[nm] = {"gpu_util_mean": r3(st.mean(v)) if v else None, "n_samples": len(v),
                              "window_s": r3((win[1] - win[0]) / 1e9)}
        S["gpu_util_by_experiment"] = uw
        self.analyze_dispatch()

    def analyze_dispatch(self):
        """Parts G and H: how one wave is dispatched (which blocks start late, and when), and a
        PyTorch profile inside an MPS client against one without."""
        S = self.summary
        raw = self.raw
        TICK = 2 ** 15 / 1.98e3  # us: 32768 SM cycles at 1980 MHz, the period of the late starts
        out = {}
        for part in ("G", "H"):
            if part not in raw.parts:
                continue
            for x in raw.json(part, f"index_{part}.json"):
                nm = x["name"]
                if not (nm.startswith("dsp_") or nm.startswith("g_spread")):
                    continue
                P = load_proc(raw, part, nm, 0)
                per = defaultdict(list)
                for b in P["blocks"]:
                    per[b["rep"]].append(b)
                spans, late_frac, first_late, imm_warps, late_ticks = [], [], [], [], []
                threads = int(P["ops"][0]["block"]) if P["ops"] else 0
                for rep, bl in per.items():
                    t0 = min(int(b["t0"]) for b in bl)
                    spans.append((max(int(b["t1"]) for b in bl) - t0) / 1e3)
                    # the first wave: blocks that started before any block ended
                    first_end = min(int(b["t1"]) for b in bl)
                    wave = [b for b in bl if int(b["t0"]) < first_end]
                    late = [int(b["t0"]) - t0 for b in wave if int(b["t0"]) - t0 > 2000]
                    late_frac.append(len(late) / len(wave))
                    if late:
                        first_late.append(min(late) / 1e3)
                        late_ticks += [round(v / 1e3 / TICK, 2) for v in late]
                    by_sm = Counter(b["smid"] for b in wave if int(b["t0"]) - t0 <= 2000)
                    imm_warps.append(med(list(by_sm.values())) * ((threads + 31) // 32))
                out[nm] = {"span_us": r3(med(spans)), "first_wave_late_fraction": r3(med(late_frac)),
                           "first_late_start_us": r3(med(first_late)) if first_late else None,
                           "immediate_warps_per_sm": r3(med(imm_warps)),
                           "late_starts_in_ticks_p10_p50_p90": [q(late_ticks, 0.1), q(late_ticks, 0.5),
                                                               q(late_ticks, 0.9)] if late_ticks else None}
        if out:
            S["dispatch_first_wave"] = {"tick_us": r3(TICK), "experiments": out}
        prof = {}
        for nm in ("torch_profile_nomps", "torch_profile_mps"):
            if "G" not in raw.parts or not raw.has("G", f"{nm}/p0_trace.json.gz"):
                continue
            tr = json.loads(gzip.decompress(raw.read("G", f"{nm}/p0_trace.json.gz")))
            ks = [e for e in tr["traceEvents"] if e.get("cat") == "kernel"]
            launches = [e["dur"] for e in tr["traceEvents"]
                        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "LaunchKernel" in e.get("name", "")]
            rq = raw.csv("G", f"{nm}/p0_requests.csv")
            prof[nm] = {"kernels": len(ks), "kernel_time_ms": r3(sum(k["dur"] for k in ks) / 1e3),
                        "kernels_under_5us_time_ms": r3(sum(k["dur"] for k in ks if k["dur"] < 5) / 1e3),
                        "launch_api_median_us": r3(med(launches)),
                        "request_latency_median_ms": r3(med([(int(r["t1_ns"]) - int(r["t0_ns"])) / 1e6 for r in rq]))}
        if prof:
            S["torch_profile_mps_vs_nomps"] = prof

# ------------------------------------------------------------------ part I: append to a data set

# DRAM bytes a streaming kernel moves, by construction (every element touched once, no reuse):
# per thread and unit of work (triad: two float4 loads and one store...); gemv: 16 KiB per row.
STREAM_BYTES = {"triad": lambda g, b, w: g * b * w * 48, "copy": lambda g, b, w: g * b * w * 32,
                "reduce": lambda g, b, w: g * b * w * 16, "gemv": lambda g, b, w: g * (b // 32) * w * 16384}
NCU_PEAK_GBPS = 3350.0  # ncu's "DRAM Throughput" is a share of the HBM3 peak (datasheet figure)


def ncu_metrics(txt):
    """ncu --csv --page details -> {ID: {"kernel", "grid", "block", metric: value}} (values as float)."""
    out = {}
    for r in csv.DictReader(io.StringIO("\n".join(l for l in txt.splitlines() if l.startswith('"')))):
        k = out.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"].split("(")[0].split("<")[0],
                                          "grid": int(r["Grid Size"].strip("()").split(",")[0]),
                                          "block": int(r["Block Size"].strip("()").split(",")[0])})
        v = r["Metric Value"].replace(",", "")
        try:
            val = float(v)
        except ValueError:
            continue
        unit = r.get("Metric Unit", "")
        scale = {"usecond": 1e3, "msecond": 1e6, "nsecond": 1.0, "second": 1e9}.get(unit)
        if scale:
            val *= scale  # durations in ns
        k[r["Metric Name"]] = val
    return out


class PostAppend(Post):
    """Adds one part's experiments to an existing data set: the other parts' files, manifest entries
    and solo rows stay as they are (only this part's raw tarball and part A's info are read).  The
    part's entries go to their own manifest, generalize/manifest.json, which manifest.json includes
    (each manifest file stays under 1 MB)."""

    def __init__(self, tardir, out, part):
        super().__init__(tardir, out)
        self.part = part
        pre = part.lower() + "_"
        # part I's manifest keeps its name; later parts get their own
        self.SUB = "generalize/manifest.json" if part == "I" else f"generalize/manifest_{part.lower()}.json"
        self.head = {"dataset": f"hqsim ground truth, part {part} (included by manifest.json)",
                     "experiments": []}
        self.manifest = []
        with open(os.path.join(out, "solo_durations.csv")) as f:
            rd = csv.reader(f)
            next(rd)
            self.solo_rows = [r for r in rd if not r[0].startswith(pre)]
        if self.raw.has(part, f"{pre}info/p0_funcattrs.csv"):
            for r in self.raw.csv(part, f"{pre}info/p0_funcattrs.csv"):
                self.funcattrs.setdefault(r["kernel"], r)
        self.ncu_by = {}
        if self.raw.has(part, "i_ncu/p0_ncu.csv"):
            spec = self.pattern("i_ncu")["ops"]
            for i, m in sorted(ncu_metrics(self.raw.text(part, "i_ncu/p0_ncu.csv")).items()):
                if i < len(spec):
                    o = spec[i]
                    m["work"] = o["work"]
                    self.ncu_by[(o["kind"], o["grid"], o["block"], o["chains"])] = m
        elif os.path.exists(os.path.join(out, "generalize/alone/i_ncu_metrics.csv")):
            # a later part reuses part I's ncu of the same kernel shapes (the compact CSV it wrote)
            spec = self.pattern("i_ncu")["ops"]
            with open(os.path.join(out, "generalize/alone/i_ncu_metrics.csv")) as f:
                for r in csv.DictReader(f):
                    i = int(r["id"])
                    if i < len(spec):
                        o = spec[i]
                        m = {k: float(v) for k, v in r.items() if k not in ("id", "name", "kernel") and v != ""}
                        m["work"] = o["work"]
                        self.ncu_by[(o["kind"], o["grid"], o["block"], o["chains"])] = m

    def demand(self, r):
        """[dram_bytes, sm_issue_pct, sm_pipe_pct] of an ops row (r: the row list of run_exp) or blanks.
        sm_pipe_pct is Nsight Compute's Compute (SM) Throughput: above the issue share, the kernel is
        bound on another SM pipe (sim/engine_issue.c)."""
        if r[5] != "kernel":
            return ["", "", ""]
        kind, g, b, w, ch = r[9], int(r[10]), int(r[11]), int(r[15]), int(r[17])
        m = self.ncu_by.get((kind, g, b, ch))
        if kind in STREAM_BYTES:
            byt = STREAM_BYTES[kind](g, b, w)
        elif m and "DRAM Throughput" in m and "Duration" in m:
            byt = int(m["DRAM Throughput"] / 100 * NCU_PEAK_GBPS * m["Duration"] * w / m["work"])
        else:
            byt = ""
        return [byt, m["Issue Slots Busy"] if m and "Issue Slots Busy" in m else "",
                m["Compute (SM) Throughput"] if m and "Compute (SM) Throughput" in m else ""]

    def run(self):
        for e in self.raw.json(self.part, f"index_{self.part}.json"):
            self.one(self.part, e)
        self.write_solo()
        self.head["experiments"] = self.manifest
        main = os.path.join(self.out, "manifest.json")
        txt = open(main).read()
        if f'"{self.SUB}"' not in txt:  # one line, the rest untouched
            if '"include": [' in txt:
                txt = txt.replace('"include": [', '"include": ["%s", ' % self.SUB, 1)
            else:
                txt = txt.replace('{\n "dataset"', '{\n "include": ["%s"],\n "dataset"' % self.SUB, 1)
            with open(main, "w") as f:
                f.write(txt)
        stash = []

        def compact(o):
            stash.append(json.dumps(o, separators=(", ", ": ")))
            return f"@@{len(stash) - 1}@@"
        for ex in self.manifest:
            for pat in ex.get("patterns", {}).values():
                pat["ops"] = [compact(o) for o in pat["ops"]]
                pat["streams"] = compact(pat["streams"])
        txt = json.dumps(self.head, indent=1)
        txt = re.sub(r'"@@(\d+)@@"', lambda m_: stash[int(m_[1])], txt)
        with open(self.w(self.SUB), "w") as f:
            f.write(txt + "\n")

    def ncu(self, part, name):
        """ncu of part I: one compact row per kernel (the metrics hqsim's importer and model use)."""
        if part != self.part or name != "i_ncu":
            return super().ncu(part, name)
        keep = ["Duration", "DRAM Throughput", "Compute (SM) Throughput", "Memory Throughput", "Issue Slots Busy",
                "Executed Ipc Active", "Achieved Occupancy", "Registers Per Thread", "No Eligible",
                "Issued Warp Per Scheduler", "Active Warps Per Scheduler"]
        fn = "generalize/alone/i_ncu_metrics.csv"
        spec = self.pattern("i_ncu")["ops"]
        with open(self.w(fn), "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(["id", "name", "kernel", "grid", "block", "chains", "work"] + keep)
            for i, m in sorted(ncu_metrics(self.raw.text(part, f"{name}/p0_ncu.csv")).items()):
                o = spec[i] if i < len(spec) else {}
                wr.writerow([i, o.get("name", ""), m["kernel"], m["grid"], m["block"], o.get("chains", ""),
                             o.get("work", "")] + [m.get(k, "") for k in keep])
        return {"ncu_metrics": fn}


def sanitize_tarballs(src, dst):
    """Copy raw tarballs, dropping `nvidia-smi -q` output (serial numbers, UUIDs) from env_*.json."""
    os.makedirs(dst, exist_ok=True)
    for part in "ABCDEFGHIJK":
        p = os.path.join(src, f"part{part}.tar.gz")
        if not os.path.exists(p):
            continue
        tin = tarfile.open(p, "r:gz")
        outp = os.path.join(dst, f"part{part}.tar.gz")
        with tarfile.open(outp, "w:gz", compresslevel=9) as tout:
            for m in tin.getmembers():
                if m.isfile():
                    data = tin.extractfile(m).read()
                    if re.search(r"env_\w+\.json$", m.name):
                        e = json.loads(data)
                        qq = e.pop("nvidia_smi_q", "")
                        keep = []
                        for key in ("Driver Version", "CUDA Version", "Product Name", "Product Architecture",
                                    "VBIOS Version", "Persistence Mode", "Compute Mode", "Addressing Mode"):
                            mm = re.search(r"(%s\s*:[^\n]*)" % key, qq)
                            if mm:
                                keep.append(re.sub(r"\s+", " ", mm[1]))
                        mm = re.search(r"Max Clocks.*?SM\s*:\s*(\d+ MHz)", qq, re.S)
                        if mm:
                            keep.append("Max SM clock : " + mm[1])
                        mm = re.search(r"PCIe Generation.*?Current\s*:\s*(\d+)", qq, re.S)
                        if mm:
                            keep.append("PCIe Generation Current : " + mm[1])
                        mm = re.search(r"Link Width.*?Current\s*:\s*(\w+)", qq, re.S)
                        if mm:
                            keep.append("PCIe Link Width Current : " + mm[1])
                        e["nvidia_smi_q_excerpt"] = keep
                        data = json.dumps(e, indent=1).encode()
                    ti = tarfile.TarInfo(m.name)
                    ti.size = len(data)
                    ti.mtime = m.mtime
                    tout.addfile(ti, io.BytesIO(data))
                elif m.isdir():
                    tout.addfile(m)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--sanitize":
        sanitize_tarballs(sys.argv[2], sys.argv[3])
        sys.exit(0)
    if len(sys.argv) == 5 and sys.argv[1] == "--append":
        PostAppend(sys.argv[3], sys.argv[4], sys.argv[2]).run()
        sys.exit(0)
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(1)
    Post(sys.argv[1], sys.argv[2]).run()
