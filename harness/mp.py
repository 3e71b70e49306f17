#!/usr/bin/env python3
"""Campaign orchestrator: runs hqprobe (and the PyTorch scripts) as one or several
processes, with or without an MPS daemon, and writes raw results under RAW/<experiment>/.

  python3 mp.py --part A|B|C|check --raw DIR [--only REGEX] [--mock]

Every experiment directory gets exp.json: the exact argv/env of each process, the
barrier release time (host CLOCK_REALTIME ns), return codes, MPS settings, and
memory snapshots where relevant. Processes of one experiment are started together:
each initialises CUDA, warms up, then touches BAR/ready.<pid> and spins until
BAR/go exists; the orchestrator creates BAR/go once all are ready.
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.join(HERE, "bin", "hqprobe")
SPECS = os.path.join(HERE, "specs")
MOCK = False


def now_ns():
    return time.time_ns()


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def sh(cmd, env=None, timeout=30, input=None):
    try:
        r = subprocess.run(cmd, shell=isinstance(cmd, str), env=env, timeout=timeout, input=input,
                           capture_output=True, text=True)
        return r.returncode, r.stdout + r.stderr
    except Exception as e:  # noqa
        return -1, repr(e)


# ------------------------------------------------------------------ samplers
class Samplers:
    """nvidia-smi -lms 100 (GPU-Util, SM clock, memory) plus NVML raw utilization samples."""

    def __init__(self, raw, tag):
        self.raw, self.tag = raw, tag
        self.stop_ev = threading.Event()
        self.smi = None
        self.th = None

    def start(self):
        if MOCK:
            return self
        f = open(os.path.join(self.raw, f"smi_{self.tag}.csv"), "w")
        self.smi_file = f
        self.smi = subprocess.Popen(
            ["nvidia-smi", "--query-gpu=timestamp,utilization.gpu,utilization.memory,clocks.sm,memory.used,power.draw",
             "--format=csv,nounits", "-lms", "100"], stdout=f, stderr=subprocess.STDOUT)
        self.th = threading.Thread(target=self._nvml, daemon=True)
        self.th.start()
        return self

    def _nvml(self):
        try:
            import pynvml as N
            N.nvmlInit()
            h = N.nvmlDeviceGetHandleByIndex(0)
        except Exception as e:  # noqa
            with open(os.path.join(self.raw, f"nvml_{self.tag}_error.txt"), "w") as f:
                f.write(repr(e))
            return
        samples, rates = {}, []
        last = 0
        while not self.stop_ev.is_set():
            t = now_ns()
            try:
                r = N.nvmlDeviceGetUtilizationRates(h)
                rates.append((t, r.gpu, r.memory))
            except Exception:
                pass
            try:
                typ, ss = N.nvmlDeviceGetSamples(h, N.NVML_GPU_UTILIZATION_SAMPLES, last)
                for s in ss:
                    v = s.sampleValue
                    val = getattr(v, "uiVal", None)
                    if val is None:
                        val = getattr(v, "ulVal", 0)
                    samples[s.timeStamp] = val
                    last = max(last, s.timeStamp)
            except Exception:
                pass
            time.sleep(0.02)
        with open(os.path.join(self.raw, f"nvml_rates_{self.tag}.csv"), "w") as f:
            f.write("host_ns,gpu_util,mem_util\n")
            for t, g, m in rates:
                f.write(f"{t},{g},{m}\n")
        with open(os.path.join(self.raw, f"nvml_samples_{self.tag}.csv"), "w") as f:
            f.write("nvml_ts_us,gpu_util_sample\n")
            for k in sorted(samples):
                f.write(f"{k},{samples[k]}\n")
        try:
            N.nvmlShutdown()
        except Exception:
            pass

    def stop(self):
        if MOCK:
            return
        self.stop_ev.set()
        if self.th:
            self.th.join(timeout=10)
        if self.smi:
            self.smi.send_signal(signal.SIGINT)
            try:
                self.smi.wait(timeout=5)
            except Exception:
                self.smi.kill()
            self.smi_file.close()


def mem_snapshot():
    out = {"t": now_ns()}
    if MOCK:
        return out
    rc, o = sh("nvidia-smi --query-gpu=memory.used,memory.total,memory.reserved --format=csv,noheader,nounits")
    out["smi_gpu"] = o.strip()
    rc, o = sh("nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader,nounits")
    out["smi_apps"] = o.strip()
    try:
        import pynvml as N
        N.nvmlInit()
        h = N.nvmlDeviceGetHandleByIndex(0)
        mi = N.nvmlDeviceGetMemoryInfo(h)
        out["nvml_used"], out["nvml_total"] = mi.used, mi.total
        try:
            mi2 = N.nvmlDeviceGetMemoryInfo(h, version=N.nvmlMemory_v2)
            out["nvml_v2_used"], out["nvml_v2_reserved"] = mi2.used, mi2.reserved
        except Exception as e:  # noqa
            out["nvml_v2_err"] = repr(e)
        procs = []
        for fn in ("nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetMPSComputeRunningProcesses"):
            try:
                for p in getattr(N, fn)(h):
                    procs.append({"api": fn, "pid": p.pid, "used": p.usedGpuMemory})
            except Exception as e:  # noqa
                procs.append({"api": fn, "err": repr(e)})
        out["nvml_procs"] = procs
        N.nvmlShutdown()
    except Exception as e:  # noqa
        out["nvml_err"] = repr(e)
    return out


# ------------------------------------------------------------------ MPS
class MPS:
    def __init__(self, raw, base="/tmp/hqmps"):
        self.raw, self.base = raw, base
        self.env = {"CUDA_MPS_PIPE_DIRECTORY": base + "/pipe", "CUDA_MPS_LOG_DIRECTORY": base + "/log"}
        self.on = False

    def full_env(self):
        e = dict(os.environ)
        e.update(self.env)
        return e

    def start(self):
        shutil.rmtree(self.base, ignore_errors=True)
        os.makedirs(self.env["CUDA_MPS_PIPE_DIRECTORY"])
        os.makedirs(self.env["CUDA_MPS_LOG_DIRECTORY"])
        if MOCK:
            self.on = True
            return True
        rc, o = sh(["nvidia-cuda-mps-control", "-d"], env=self.full_env())
        log(f"MPS daemon start rc={rc} {o.strip()}")
        time.sleep(1.0)
        self.on = rc == 0
        return self.on

    def control(self, cmd):
        if MOCK:
            return 0, ""
        return sh(["nvidia-cuda-mps-control"], env=self.full_env(), input=cmd + "\n", timeout=20)

    def stop(self, tag="mps"):
        if not self.on:
            return
        rc, o = self.control("quit")
        log(f"MPS quit rc={rc} {o.strip()}")
        for _ in range(100):
            rc2, ps = sh("ps -eo pid,comm")
            if "nvidia-cuda-mps" not in ps:
                break
            time.sleep(0.1)
        d = os.path.join(self.raw, f"{tag}_logs")
        shutil.copytree(self.env["CUDA_MPS_LOG_DIRECTORY"], d, dirs_exist_ok=True)
        self.on = False


# ------------------------------------------------------------------ groups
class Campaign:
    def __init__(self, raw):
        self.raw = raw
        os.makedirs(raw, exist_ok=True)
        self.index = []
        self.mps = None

    def group(self, name, procs, barrier=None, timeout=120, ready_timeout=90, on_ready=None, note="",
              mps_info=None):
        """procs: list of {"args": [...], "env": {...}}; '{out}' in args -> output prefix of that process."""
        d = os.path.join(self.raw, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        n = len(procs)
        if barrier is None:
            barrier = n > 1
        bar = f"/tmp/hqbar/{name}"
        shutil.rmtree(bar, ignore_errors=True)
        os.makedirs(bar)
        base_env = dict(os.environ)
        if self.mps is not None and self.mps.on:
            base_env.update(self.mps.env)
        else:
            for k in ("CUDA_MPS_PIPE_DIRECTORY", "CUDA_MPS_LOG_DIRECTORY"):
                base_env.pop(k, None)
        ps, recs = [], []
        t_launch = now_ns()
        for i, p in enumerate(procs):
            prefix = os.path.join(d, f"p{i}")
            args = [a.replace("{out}", prefix) for a in p["args"]]
            exe = [a.replace("{out}", prefix) for a in p.get("exe", [BIN])]
            cmd = exe + args + (["--barrier", bar] if barrier else [])
            env = dict(base_env)
            env.update(p.get("env", {}))
            recs.append({"i": i, "cmd": cmd, "env": p.get("env", {}), "prefix": f"p{i}"})
            if MOCK:
                ps.append(None)
                continue
            lf = open(prefix + ".log", "w")
            ps.append(subprocess.Popen(cmd, env=env, stdout=lf, stderr=subprocess.STDOUT, cwd=HERE,
                                       start_new_session=False))
        t_go = None
        snap = None
        if barrier and not MOCK:
            lim = time.time() + ready_timeout
            while time.time() < lim:
                nready = len(glob.glob(bar + "/ready.*"))
                nexited = sum(1 for p in ps if p.poll() is not None)
                if nready + nexited >= n:
                    break
                time.sleep(0.005)
            if on_ready:
                snap = on_ready()
            t_go = now_ns()
            open(bar + "/go", "w").close()
        rcs = []
        deadline = time.time() + timeout
        for p in ps:
            if p is None:
                rcs.append(0)
                continue
            try:
                rcs.append(p.wait(timeout=max(1, deadline - time.time())))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                rcs.append("timeout")
        t_end = now_ns()
        info = {"name": name, "nproc": n, "barrier": barrier, "t_launch": t_launch, "t_go": t_go, "t_end": t_end,
                "wall_s": (t_end - t_launch) / 1e9, "rcs": rcs, "procs": recs, "note": note,
                "mps": bool(self.mps is not None and self.mps.on), "mps_info": mps_info, "mem_at_ready": snap}
        with open(os.path.join(d, "exp.json"), "w") as f:
            json.dump(info, f, indent=1)
        bad = [r for r in rcs if r != 0]
        log(f"{name}: n={n} wall={info['wall_s']:.2f}s rcs={rcs}" + (" <-- FAIL" if bad else ""))
        if bad and not MOCK:
            for i in range(n):
                lf = os.path.join(d, f"p{i}.log")
                if os.path.exists(lf):
                    tail = open(lf).read()[-600:]
                    if tail.strip():
                        log(f"  p{i}.log: {tail}")
        self.index.append(info)
        return info

    def run1(self, name, spec, reps=3, env=None, extra=None, **kw):
        args = ["run", "--spec", os.path.join(SPECS, spec + ".spec"), "--out", "{out}", "--reps", str(reps),
                "--tag", name] + (extra or [])
        return self.group(name, [{"args": args, "env": env or {}}], **kw)

    def runN(self, name, specs_envs, reps=1, extra=None, **kw):
        procs = []
        for spec, env in specs_envs:
            args = ["run", "--spec", os.path.join(SPECS, spec + ".spec"), "--out", "{out}", "--reps", str(reps),
                    "--tag", name] + (extra or [])
            procs.append({"args": args, "env": env or {}})
        return self.group(name, procs, barrier=True, **kw)

    def save_index(self, tag):
        with open(os.path.join(self.raw, f"index_{tag}.json"), "w") as f:
            json.dump(self.index, f, indent=1)


# ------------------------------------------------------------------ parts
def sel(only, name):
    return only is None or re.search(only, name)


def part_check(c, only):
    c.group("info", [{"args": ["info", "--out", "{out}"]}])
    c.run1("chk_hq_df32_c8", "hq_df32", reps=1, env={"CUDA_DEVICE_MAX_CONNECTIONS": "8"})
    c.run1("chk_ct_i1_w1", "ct_i1_w1", reps=1)
    c.run1("chk_cp_overlap_pinned", "cp_overlap_pinned", reps=1)
    c.runN("chk_ts2", [("ts_small_solo", {}), ("ts_small_solo", {})])
    c.mps = MPS(c.raw)
    try:
        if c.mps.start():
            c.run1("chk_mps_pct25", "mps_pct", reps=1, env={"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE": "25"},
                   extra=["--nosolo"])
            c.group("chk_mps_hold", [{"args": ["hold", "--out", "{out}"]}] * 2, on_ready=mem_snapshot)
    finally:
        c.mps.stop("chk_mps")
        c.mps = None


def part_A(c, only):
    single = [("info", ["info", "--out", "{out}"]), ("latency", ["latency", "--out", "{out}"]),
              ("copies", ["copies", "--out", "{out}"])]
    for nm, args in single:
        if sel(only, nm):
            c.group(nm, [{"args": args}])
    # connections table
    for C in ["1", "2", "4", "8", "16", "32", None]:
        for order in ("df", "bf"):
            nm = f"hq_{order}32_c{C or 'def'}"
            if sel(only, nm):
                c.run1(nm, f"hq_{order}32", reps=2, env={"CUDA_DEVICE_MAX_CONNECTIONS": C} if C else {})
    for spec, C in [("hq_df5", 4), ("hq_df9", 8), ("hq_df17", 16), ("hq_df33", 32), ("hq_df64", 32),
                    ("hq_df17", 8), ("hq_interleave8", 4), ("hq_random16", 4), ("hq_unused8", 4), ("hq_prio8", 4)]:
        nm = f"{spec}_c{C}"
        if sel(only, nm):
            c.run1(nm, spec, reps=2, env={"CUDA_DEVICE_MAX_CONNECTIONS": str(C)})
    for C in ("32", "8"):
        nm = f"grids256_c{C}"
        if sel(only, nm):
            c.run1(nm, "grids256", reps=2, env={"CUDA_DEVICE_MAX_CONNECTIONS": C})
    for f in sorted(glob.glob(os.path.join(SPECS, "*.spec"))):
        spec = os.path.basename(f)[:-5]
        if spec.split("_")[0] in ("pl", "pl2", "lo", "pr", "ct", "cp") and sel(only, spec):
            c.run1(spec, spec, reps=3)


def part_B(c, only):
    S = Samplers(c.raw, "B").start()
    try:
        if sel(only, "ts_solo"):
            c.run1("ts_solo", "ts_small_solo", reps=1)
        if sel(only, "ts2_small"):
            c.runN("ts2_small", [("ts_small", {})] * 2)
        if sel(only, "ts4_small"):
            c.runN("ts4_small", [("ts_small1s", {})] * 4)
        if sel(only, "ts3_small"):
            c.runN("ts3_small", [("ts_small1s", {})] * 3)
        if sel(only, "ts2_full"):
            c.runN("ts2_full", [("ts_full", {})] * 2)
        if sel(only, "ts_idle"):
            c.runN("ts_idle", [("ts_small", {}), ("ts_idle_short", {})])
        for n in (1, 2, 4):
            if sel(only, f"tv_nomps_n{n}"):
                c.runN(f"tv_nomps_n{n}", [("tv_1blk", {})] * n)
        if sel(only, "util_pattern"):
            c.run1("util_pattern", "util_pattern", reps=1, extra=["--nosolo"])
        for n in (1, 2, 4):
            if sel(only, f"mem_nomps_n{n}"):
                c.group(f"mem_nomps_n{n}", [{"args": ["hold", "--out", "{out}"]}] * n, barrier=True,
                        on_ready=mem_snapshot)
        if sel(only, "mem_idle"):
            snap = mem_snapshot()
            with open(os.path.join(c.raw, "mem_idle.json"), "w") as f:
                json.dump(snap, f, indent=1)
        c.mps = MPS(c.raw)
        if not c.mps.start():
            log("MPS daemon did not start; skipping MPS experiments")
            return
        try:
            if sel(only, "mem_mps_daemon"):
                snap = mem_snapshot()
                with open(os.path.join(c.raw, "mem_mps_daemon_only.json"), "w") as f:
                    json.dump(snap, f, indent=1)
            for n in (1, 2, 4):
                if sel(only, f"mem_mps_n{n}"):
                    c.group(f"mem_mps_n{n}", [{"args": ["hold", "--out", "{out}"]}] * n, barrier=True,
                            on_ready=mem_snapshot)
            if sel(only, "ts2_small_mps"):
                c.runN("ts2_small_mps", [("ts_small1s", {})] * 2)
            if sel(only, "ts_mps_vs_nomps"):
                # one MPS client and one ordinary process (pointed at a pipe directory with no daemon)
                c.runN("ts_mps_vs_nomps", [("ts_small1s", {}),
                                           ("ts_small1s", {"CUDA_MPS_PIPE_DIRECTORY": "/tmp/hq_no_mps_here"})])
            for n in (1, 2, 4):
                if sel(only, f"tv_mps_n{n}"):
                    c.runN(f"tv_mps_n{n}", [("tv_1blk", {})] * n)
            for C in [None, "1", "2", "4", "8", "32"]:
                nm = f"mps_hq_df32_c{C or 'def'}"
                if sel(only, nm):
                    c.run1(nm, "hq_df32", reps=2, env={"CUDA_DEVICE_MAX_CONNECTIONS": C} if C else {},
                           extra=["--nosolo"])
            if sel(only, "mps_hq_bf32_cdef"):
                c.run1("mps_hq_bf32_cdef", "hq_bf32", reps=2, extra=["--nosolo"])
            if sel(only, "mps_hq_2clients"):
                c.runN("mps_hq_2clients_cdef", [("hq_df32", {})] * 2, reps=2)
            for p in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 25, 30, 33, 40, 45, 50, 55, 60, 66, 70, 75, 80, 90,
                      95, 99, 100):
                nm = f"mps_pct{p:03d}"
                if sel(only, nm):
                    c.run1(nm, "mps_pct", reps=3, env={"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE": str(p)},
                           extra=["--nosolo"])
            for a, b in [(25, 25), (50, 50), (60, 60), (100, 100), (10, 90), (25, 25)]:
                nm = f"mps_pair_{a}_{b}"
                if any(x["name"] == nm for x in c.index):
                    nm += "_again"
                if sel(only, nm):
                    c.runN(nm, [("mps_pair", {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE": str(a)}),
                                ("mps_pair", {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE": str(b)})], reps=5)
            if sel(only, "mps_maxclients"):
                c.group("mps_maxclients", [{"args": ["hold", "--out", "{out}"]}] * 64, barrier=True,
                        on_ready=mem_snapshot, ready_timeout=45, timeout=70)
            rc, o = c.mps.control("get_server_list")
            with open(os.path.join(c.raw, "mps_server_list.txt"), "w") as f:
                f.write(o)
        finally:
            c.mps.stop("B_mps")
            c.mps = None
    finally:
        S.stop()


def part_C(c, only):
    py = [sys.executable]
    ti = os.path.join(HERE, "torch_infer.py")
    tm = os.path.join(HERE, "torch_multistream.py")
    S = Samplers(c.raw, "C").start()
    cfg = ["--model", "resnet18", "--batch", "8"]
    try:
        if sel(only, "torch_profile"):
            c.group("torch_profile", [{"exe": py, "args": [ti, "--out", "{out}", "--profile", "--nreq", "30",
                                                           "--warmup", "20"] + cfg}], barrier=False, timeout=240)
        if sel(only, "torch_multistream"):
            c.group("torch_multistream", [{"exe": py, "args": [tm, "--out", "{out}"]}], barrier=False, timeout=240)
        for n in (1, 2, 4, 8):
            nm = f"torch_nomps_n{n}"
            if sel(only, nm):
                c.group(nm, [{"exe": py, "args": [ti, "--out", "{out}", "--nreq", "300", "--warmup", "50"] + cfg}] * n,
                        barrier=True, timeout=300, ready_timeout=180)
        c.mps = MPS(c.raw)
        if c.mps.start():
            try:
                for n in (1, 2, 4, 8):
                    nm = f"torch_mps_n{n}"
                    if sel(only, nm):
                        c.group(nm, [{"exe": py, "args": [ti, "--out", "{out}", "--nreq", "300", "--warmup", "50"]
                                      + cfg}] * n, barrier=True, timeout=300, ready_timeout=180)
            finally:
                c.mps.stop("C_mps")
                c.mps = None
        part_ncu(c, only)
    finally:
        S.stop()


def part_D(c, only):
    """Follow-up: carveout compatibility, MPS physical SM sets (exclusive blocks + clock64 fingerprints),
    ncu reports, PyTorch repeats and MPS thread-percentage limits for PyTorch."""
    for f in sorted(glob.glob(os.path.join(SPECS, "lo_carve_*.spec"))) + \
            [os.path.join(SPECS, x + ".spec") for x in ("lo_hol_smem2", "lo_hol_smem2_ctrl", "pl_132x32")]:
        spec = os.path.basename(f)[:-5]
        nm = "d_" + spec if spec == "pl_132x32" else spec
        if sel(only, nm):
            c.run1(nm, spec, reps=3)
    S = Samplers(c.raw, "D").start()
    try:
        c.mps = MPS(c.raw)
        if c.mps.start():
            try:
                for p in (25, 50, 60, 100):
                    nm = f"mps_excl_solo{p}"
                    if sel(only, nm):
                        c.run1(nm, "mps_excl", reps=3, env={"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE": str(p)},
                               extra=["--nosolo"])
                for pcts in [(25, 25), (50, 50), (60, 60), (100, 100), (10, 90), (30, 30, 30), (25, 25)]:
                    nm = "mps_excl_" + "_".join(map(str, pcts))
                    if any(x["name"] == nm for x in c.index):
                        nm += "_again"
                    if sel(only, nm):
                        c.runN(nm, [("mps_excl", {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE": str(p)}) for p in pcts],
                               reps=3)
                for pct in (50, 100):
                    nm = f"d_mps_pct{pct:03d}"
                    if sel(only, nm):
                        c.run1(nm, "mps_pct", reps=3, env={"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE": str(pct)},
                               extra=["--nosolo"])
                py = [sys.executable]
                ti = os.path.join(HERE, "torch_infer.py")
                cfg = ["--model", "resnet18", "--batch", "8"]
                for n, pct in [(1, None), (2, None), (4, 25), (4, 50)]:
                    nm = f"torch_mps_n{n}" + (f"_pct{pct}" if pct else "") + "_rep2"
                    if sel(only, nm):
                        c.group(nm, [{"exe": py, "env": {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE": str(pct)} if pct else {},
                                      "args": [ti, "--out", "{out}", "--nreq", "300", "--warmup", "50"] + cfg}] * n,
                                barrier=True, timeout=300, ready_timeout=180)
            finally:
                c.mps.stop("D_mps")
                c.mps = None
        py = [sys.executable]
        ti = os.path.join(HERE, "torch_infer.py")
        cfg = ["--model", "resnet18", "--batch", "8"]
        for n in (1, 2):
            nm = f"torch_nomps_n{n}_rep2"
            if sel(only, nm):
                c.group(nm, [{"exe": py, "args": [ti, "--out", "{out}", "--nreq", "300", "--warmup", "50"] + cfg}] * n,
                        barrier=True, timeout=300, ready_timeout=180)
    finally:
        S.stop()
    part_ncu(c, only)


def part_E(c, only):
    """Follow-up 2: launch latency inside an MPS client, a time-sliced FMA kernel against a gap recorder,
    copies from two processes at once (with and without MPS)."""
    if sel(only, "latency_nomps"):
        c.group("latency_nomps", [{"args": ["latency", "--out", "{out}"]}])
    if sel(only, "ts_vs_fma"):
        c.runN("ts_vs_fma", [("ts_small1s", {}), ("tv_1blk", {})])
    for spec in ("cp_h2d_256m", "cp_d2h_256m"):
        if sel(only, f"{spec}_x2proc_nomps"):
            c.runN(f"{spec}_x2proc_nomps", [(spec, {})] * 2, reps=3)
    c.mps = MPS(c.raw)
    if c.mps.start():
        try:
            if sel(only, "latency_mps"):
                c.group("latency_mps", [{"args": ["latency", "--out", "{out}"]}])
            for spec in ("cp_h2d_256m", "cp_d2h_256m"):
                if sel(only, f"{spec}_x2proc_mps"):
                    c.runN(f"{spec}_x2proc_mps", [(spec, {})] * 2, reps=3)
            if sel(only, "ts_vs_fma_mps"):
                c.runN("ts_vs_fma_mps", [("ts_small1s", {}), ("tv_1blk", {})])
        finally:
            c.mps.stop("E_mps")
            c.mps = None


def part_F(c, only):
    """Follow-up 3: solo references for mps_pair, MPS client limit with more connections per client."""
    c.mps = MPS(c.raw)
    if c.mps.start():
        try:
            for p in (10, 25, 50, 60, 90, 100):
                nm = f"mps_pair_solo{p}"
                if sel(only, nm):
                    c.run1(nm, "mps_pair", reps=5, env={"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE": str(p)},
                           extra=["--nosolo"])
            for C in ("4", "8"):
                nm = f"mps_maxclients_c{C}"
                if sel(only, nm):
                    c.group(nm, [{"args": ["hold", "--out", "{out}"], "env": {"CUDA_DEVICE_MAX_CONNECTIONS": C}}] * 64,
                            barrier=True, on_ready=mem_snapshot, ready_timeout=45, timeout=70)
        finally:
            c.mps.stop("F_mps")
            c.mps = None


def part_G(c, only):
    """Follow-up 4: mps_pct* kernels (4224 x 128 threads, 100 us timer blocks) inside an MPS client
    dispatched their first wave over ~30 us and ran half their blocks 16 us long. Is that MPS? The
    same kernel, a fixed-work (FMA) variant and 1-warp blocks, without and inside an MPS client; and a
    PyTorch profile inside an MPS client against one without (an MPS client served fewer requests)."""
    py = [sys.executable]
    ti = os.path.join(HERE, "torch_infer.py")
    cfg = ["--model", "resnet18", "--batch", "8"]
    runs = (("g_spread", "mps_pct"), ("g_spreadfma", "g_spreadfma"), ("g_spread32", "pl_4224x32"))
    for nm, spec in runs:
        if sel(only, nm + "_nomps"):
            c.run1(nm + "_nomps", spec, reps=3, extra=["--nosolo"])
    if sel(only, "torch_profile_nomps"):
        c.group("torch_profile_nomps", [{"exe": py, "args": [ti, "--out", "{out}", "--profile", "--nreq", "30",
                                                             "--warmup", "20"] + cfg}], barrier=False, timeout=240)
    c.mps = MPS(c.raw)
    if c.mps.start():
        try:
            for nm, spec in runs:
                if sel(only, nm + "_mps"):
                    c.run1(nm + "_mps", spec, reps=3, extra=["--nosolo"])
            if sel(only, "torch_profile_mps"):
                c.group("torch_profile_mps", [{"exe": py, "args": [ti, "--out", "{out}", "--profile", "--nreq",
                                                                   "30", "--warmup", "20"] + cfg}],
                        barrier=False, timeout=240)
        finally:
            c.mps.stop("G_mps")
            c.mps = None


def part_H(c, only):
    """Follow-up 5 (after G): on which shapes does the first wave take ~10 us more to dispatch?
    One 100 us timer wave per block size and blocks per SM (dsp_b{threads}_k{blocks per SM}), and
    two 8 x 128-thread-per-SM kernels at once on two streams."""
    for f in sorted(glob.glob(os.path.join(SPECS, "dsp_*.spec"))):
        nm = os.path.basename(f)[:-5]
        if sel(only, nm):
            c.run1(nm, nm, reps=5, extra=["--nosolo"])


def part_ncu(c, only):
    py = [sys.executable]
    ti = os.path.join(HERE, "torch_infer.py")
    cfg = ["--model", "resnet18", "--batch", "8"]
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    ncu_args = ["--csv", "--page", "details", "--section", "LaunchStats", "--section", "Occupancy",
                "--clock-control", "none"]
    if sel(only, "ncu_harness"):
        c.group("ncu_harness", [{"exe": [ncu] + ncu_args + ["-k", "regex:^k_(gt|fma|fmaheavy|fmas32)",
                                                              "--log-file", "{out}_ncu.csv", BIN],
                                 "args": ["run", "--spec", os.path.join(SPECS, "ncu_kernels.spec"), "--out",
                                          "{out}", "--reps", "1", "--nosolo", "--nosync", "--nowarmup"]}],
                barrier=False, timeout=240)
    if sel(only, "ncu_torch"):
        c.group("ncu_torch", [{"exe": [ncu] + ncu_args + ["-c", "60", "--log-file", "{out}_ncu.csv"] + py,
                               "args": [ti, "--out", "{out}", "--nreq", "1", "--warmup", "0"] + cfg}],
                barrier=False, timeout=300)


def part_I(c, only):
    """Kernels the calibration never saw (issue 11): memory-bound triad/copy/reduce/GEMV, shared memory,
    a tiled SGEMM, FMA with ILP 1/2/4 -- alone, in pairs and quads on streams, in 2 and 4 processes with
    and without MPS; kernels started at different times on the same SMs; ncu metrics of every kernel."""
    if sel(only, "i_info"):
        c.group("i_info", [{"args": ["info", "--out", "{out}"]}])
    single = ["i_bw", "i_alone", "i_ilp"] + sorted(
        os.path.basename(f)[:-5] for f in glob.glob(os.path.join(SPECS, "i_*.spec"))
        if not re.search(r"/i_(bw|alone|ilp|ncu|p_\w+)\.spec$", f))
    for spec in single + ["i_p_tri528", "i_p_gemv132", "i_p_sgemm", "i_p_fma4"]:
        if sel(only, spec):
            c.run1(spec, spec, reps=3)
    mp = {"i_mp2_tri": ["i_p_tri528"] * 2, "i_mp2_tri_fma4": ["i_p_tri528", "i_p_fma4"],
          "i_mp2_sgemm_tri": ["i_p_sgemm", "i_p_tri528"],
          "i_mp4_mix": ["i_p_tri528", "i_p_gemv132", "i_p_sgemm", "i_p_fma4"]}
    for nm, sp in mp.items():
        if sel(only, nm + "_nomps"):
            c.runN(nm + "_nomps", [(x, {}) for x in sp], reps=3, extra=["--nosolo"])
    c.mps = MPS(c.raw)
    if c.mps.start():
        try:
            for nm, sp in mp.items():
                if sel(only, nm + "_mps"):
                    c.runN(nm + "_mps", [(x, {}) for x in sp], reps=3, extra=["--nosolo"])
        finally:
            c.mps.stop("I_mps")
            c.mps = None
    if sel(only, "i_ncu"):
        ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
        args = ["--csv", "--page", "details", "--section", "SpeedOfLight", "--section", "LaunchStats",
                "--section", "Occupancy", "--section", "SchedulerStats", "--section", "ComputeWorkloadAnalysis",
                "--clock-control", "none", "-k", "regex:^k_(triad|copy|reduce|gemv|smem|sgemm|fma)"]
        c.group("i_ncu", [{"exe": [ncu] + args + ["--log-file", "{out}_ncu.csv", BIN],
                           "args": ["run", "--spec", os.path.join(SPECS, "i_ncu.spec"), "--out", "{out}",
                                    "--reps", "1", "--nosolo", "--nosync", "--nowarmup"]}],
                barrier=False, timeout=200)


def part_J(c, only):
    """Who goes first inside an SM and uneven waves (issue 11 items 3, 4): pairs of part I's kernels
    (shapes ncu measured in part I) with the greedy or the older kernel first, a quad, kernels queued
    behind a draining wave."""
    if sel(only, "j_info"):
        c.group("j_info", [{"args": ["info", "--out", "{out}"]}])
    for f in sorted(glob.glob(os.path.join(SPECS, "j_*.spec"))):
        spec = os.path.basename(f)[:-5]
        if sel(only, spec):
            c.run1(spec, spec, reps=3)


def part_K(c, only):
    """Copies drawing on DRAM (issue 11): a 1 GiB device-to-device or 256 MiB host-to-device copy beside a
    triad, a GEMV or an FMA kernel of part I, and two device-to-device copies."""
    if sel(only, "k_info"):
        c.group("k_info", [{"args": ["info", "--out", "{out}"]}])
    for f in sorted(glob.glob(os.path.join(SPECS, "k_*.spec"))):
        spec = os.path.basename(f)[:-5]
        if sel(only, spec):
            c.run1(spec, spec, reps=3)


def part_M(c, only):
    """Warps of different ILP on one warp scheduler (issue 11 item 2, FINDINGS.md §34): FMA pairs of ILP 8,
    ILP 1/2/4/8 mixed on the same SMs, blocks of 6 + 2 warps; no ncu (predicted from the families alone)."""
    if sel(only, "m_info"):
        c.group("m_info", [{"args": ["info", "--out", "{out}"]}])
    for f in sorted(glob.glob(os.path.join(SPECS, "m_*.spec"))):
        spec = os.path.basename(f)[:-5]
        if sel(only, spec):
            c.run1(spec, spec, reps=3)


def part_N(c, only):
    """Ranks on one warp scheduler (issue 11, FINDINGS.md §34 addendum): new FMA ILP mixes, ILP 2 beside
    ILP 1 in both orders at 1 + 1 and 2 + 2 warps per scheduler, ILP 8 beside ILP 1 and ILP 4, ILP 1 + 2 + 4;
    no ncu (predicted from the families alone)."""
    if sel(only, "n_info"):
        c.group("n_info", [{"args": ["info", "--out", "{out}"]}])
    for f in sorted(glob.glob(os.path.join(SPECS, "n_*.spec"))):
        spec = os.path.basename(f)[:-5]
        if sel(only, spec):
            c.run1(spec, spec, reps=3)


def part_P(c, only):
    """Where blocks go when several MPS clients' kernels wait (issue 10, FINDINGS.md §41): head of line
    across clients (p_hol_*), and a one-block-per-SM GEMM-like kernel beside clients streaming
    elementwise-like kernels whose SM configuration it cannot (b) or can (c) join (p_gw_*), 1, 2, 4
    clients at 100% threads; controls in one process on two streams."""
    if sel(only, "p_info"):
        c.group("p_info", [{"args": ["info", "--out", "{out}"]}])
    for rep in range(3):
        if sel(only, f"p_hol_1p_r{rep}"):
            c.run1(f"p_hol_1p_r{rep}", "p_hol_1p", reps=1)
    if sel(only, "p_gw_gt_c_1p"):
        c.run1("p_gw_gt_c_1p", "p_gw_gt_c_1p", reps=1)
    c.mps = MPS(c.raw)
    if not c.mps.start():
        return
    try:
        for rep in range(3):
            nm = f"p_hol_mps_r{rep}"
            if sel(only, nm):
                c.runN(nm, [("p_hol_a", {}), ("p_hol_b", {})], reps=1)
        for a in ("gt", "fma"):
            for other in ("b", "c"):
                for n in (1, 2, 4):
                    if n == 1 and other == "c":
                        continue
                    nm = f"p_gw_{a}_n1" if n == 1 else f"p_gw_{a}_{other}_n{n}"
                    if sel(only, nm):
                        c.runN(nm, [(f"p_gw_a_{a}", {})] + [(f"p_gw_{other}", {})] * (n - 1), reps=1)
    finally:
        c.mps.stop("P_mps")
        c.mps = None


def main():
    global MOCK
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", required=True)
    ap.add_argument("--raw", required=True)
    ap.add_argument("--only", default=None)
    ap.add_argument("--mock", action="store_true")
    a = ap.parse_args()
    MOCK = a.mock
    c = Campaign(a.raw)
    env_info = {}
    if not MOCK:
        for k, cmd in [("nvidia_smi", "nvidia-smi"), ("nvidia_smi_q", "nvidia-smi -q"),
                       ("nvcc", "nvcc --version"), ("uname", "uname -a"), ("date", "date -u +%FT%TZ"),
                       ("mps_bin", "which nvidia-cuda-mps-control nvidia-cuda-mps-server"),
                       ("compute_policy", "nvidia-smi compute-policy -l")]:
            env_info[k] = sh(cmd)[1]
        with open(os.path.join(a.raw, f"env_{a.part}.json"), "w") as f:
            json.dump(env_info, f, indent=1)
    t0 = time.time()
    try:
        {"check": part_check, "A": part_A, "B": part_B, "C": part_C, "D": part_D, "E": part_E, "F": part_F,
         "G": part_G, "H": part_H, "I": part_I, "J": part_J, "K": part_K,
         "M": part_M, "N": part_N, "P": part_P}[a.part](c, a.only)
    finally:
        if c.mps is not None:
            c.mps.stop("emergency")
        c.save_index(a.part)
        log(f"part {a.part} done in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
