#!/usr/bin/env python3
"""Part L post-processing: raw output of harness/torch_pairs_campaign.sh -> hqsim's validation data.

  torch_pairs_post.py RAWDIR DATADIR     (DATADIR: traces/measured/h100)

Reads the Kineto traces (streams_trace.json.gz: solo phase, pairs, quads; <exp>_p<rank>_trace.json.gz:
one process each of the 2-process runs), the meta files and ncu.csv, and writes under DATADIR/dnn/:

  solo_kernels.csv   every kernel of every op alone: launch shape, registers, shared memory (static
                     and dynamic from ncu), median / min / max duration of the solo phase and of the
                     second solo phase at the end of the run, Nsight Compute's duration, DRAM
                     throughput, issue slots busy, and the demand hqsim uses (dram_bytes, sm_issue_pct)
  ops/<id>_ops.csv   one per concurrent experiment, in the layout `hqsim validate` replays
                     (sim/validate.c): the host's launch and synchronize calls at their recorded
                     times, every kernel with its solo duration and demand from the solo phase
                     and ncu ONLY (its measured start and end in the experiment are what the
                     replay is compared with, never an input)
  manifest.json      the experiments (included by DATADIR/manifest.json)
  kineto/, ncu.csv.gz  the raw traces and the ncu report, gzip

The few-byte memsets cuBLAS's nvjet kernels (and cuDNN's convolution, the reduction) issue before
their kernel (0.7-1 us) are left out of the one-process replays (their count is in the manifest) and
kept in the 2-process ones as rows of type `memset` with their op's median memset duration alone:
there the first memset of an idle process claims the GPU for its context (FINDINGS.md §19, addendum).

  torch_pairs_post.py --processes DATADIR

rebuilds only the 2-process runs' ops CSVs from what DATADIR/dnn keeps (the Kineto traces of each
process and of the streams run, solo_kernels.csv for the Nsight Compute inputs), checks that every
kernel row comes out as before, and writes them with their memsets.
"""
import csv
import gzip
import io
import json
import os
import re
import shutil
import statistics
import sys

NCU_PEAK_GBPS = 3350.0  # ncu's "DRAM Throughput" is a share of the HBM3 peak (as harness/post.py)
LAUNCH = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernelEx", "cuLaunchKernel",
          "cudaMemsetAsync"}
SYNC = "cudaDeviceSynchronize"
HEADER = ["experiment", "process", "pid", "iteration", "op", "type", "stream", "stream_priority", "name", "kind",
          "grid", "block", "dyn_smem", "static_smem", "regs_per_thread", "work", "work_unit", "chains", "bytes",
          "host_mem", "launch_ns", "api_ns", "start_ns", "end_ns", "duration_ns", "nsm", "solo_ns", "err",
          "dram_bytes", "sm_issue_pct", "sm_pipe_pct"]
MEMSET = "|memset"  # solo-table key suffix: an op's memset durations alone
FAMILY = {"mm_f32": "cublas", "mm_f16": "cublas", "mm_bf16s": "cublas", "gemv": "cublas", "conv": "cudnn",
          "add": "elementwise", "sum": "reduce", "softmax": "softmax", "layernorm": "layernorm"}


def ns(us):
    return int(round(us * 1000))


class Trace:
    """One Kineto trace: annotations of the host thread, launch calls, GPU activities by correlation."""

    def __init__(self, path):
        with gzip.open(path, "rt") as f:
            ev = json.load(f)["traceEvents"]
        self.ann = sorted((e for e in ev if e.get("cat") == "user_annotation"), key=lambda e: e["ts"])
        self.calls = sorted((e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")
                             and e.get("name") in LAUNCH | {SYNC}), key=lambda e: e["ts"])
        self.gpu = {e["args"]["correlation"]: e for e in ev
                    if e.get("cat") in ("kernel", "gpu_memset") and "correlation" in e.get("args", {})}
        self.pid = next((e["pid"] for e in self.calls), 0)

    def inside(self, outer, items):
        t0, t1 = outer["ts"], outer["ts"] + outer["dur"]
        return [e for e in items if t0 <= e["ts"] <= t1 and e.get("tid", 0) == outer.get("tid", 0)]

    def annotated(self):
        """[(experiment, rep, [(op, [(call, gpu activity)])], synchronize call)] from the annotations
        'L|<experiment>|<rep>' and 'op|<name>' (traces recorded with CPU activity)."""
        out = []
        for a in self.ann:
            m = re.match(r"L\|([^|]+)\|(\d+)$", a["name"])
            if m:
                out.append((m[1], int(m[2]), self.ops_of(a), self.sync_after(a)))
        return out

    def sequenced(self, seq, nkernels):
        """The same from a trace without annotations: the launches between two device synchronizes
        are one iteration, the n-th non-empty group the n-th entry [experiment, rep, ops] of @seq;
        op j takes the next nkernels[op] kernels (and the memsets launched before them)."""
        groups, cur = [], []
        for c in self.calls:
            if c["name"] == SYNC:
                if cur:
                    groups.append((cur, c))
                cur = []
            elif c["args"].get("correlation") in self.gpu:
                cur.append((c, self.gpu[c["args"]["correlation"]]))
        if len(groups) != len(seq):
            raise SystemExit(f"{len(groups)} launch groups between synchronizes, the sequence has {len(seq)}")
        out = []
        for (launches, sync), (exp, rep, ops) in zip(groups, seq):
            per, i = [], 0
            for op in ops:
                mine, nk = [], 0
                while i < len(launches) and nk < nkernels(op):
                    mine.append(launches[i])
                    nk += launches[i][1].get("cat") == "kernel"
                    i += 1
                per.append((op, mine))
            if i != len(launches):
                raise SystemExit(f"{exp} rep {rep}: {len(launches) - i} launches not accounted for")
            out.append((exp, rep, per, sync))
        return out

    def ops_of(self, it):
        """The ops launched in iteration annotation @it: [(op name, [(call, gpu activity)])]."""
        out = []
        for a in self.inside(it, self.ann):
            if not a["name"].startswith("op|"):
                continue
            launches = [(c, self.gpu.get(c["args"].get("correlation"))) for c in self.inside(a, self.calls)
                        if c["name"] in LAUNCH]
            out.append((a["name"][3:], [(c, g) for c, g in launches if g is not None]))
        return out

    def sync_after(self, it):
        """The first device synchronize call after iteration annotation @it."""
        t1 = it["ts"] + it["dur"]
        return next((c for c in self.calls if c["name"] == SYNC and c["ts"] >= t1
                     and c.get("tid", 0) == it.get("tid", 0)), None)


def total(v):
    return v[0] * v[1] * v[2] if isinstance(v, list) else int(v)


def ncu_records(path):
    """ncu --csv --page details -> [{kernel, grid, block, metric: (value, unit)}] in ID order."""
    txt = open(path).read()
    rd = csv.DictReader(io.StringIO("\n".join(l for l in txt.splitlines() if l.startswith('"'))))
    recs = {}
    for r in rd:
        k = recs.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"], "grid": r["Grid Size"],
                                           "block": r["Block Size"]})
        k[r["Metric Name"]] = (r["Metric Value"].replace(",", ""), r["Metric Unit"])
    return [recs[i] for i in sorted(recs)]


def num(rec, name, unit_scale=None):
    v = rec.get(name)
    if not v:
        return None
    try:
        x = float(v[0])
    except ValueError:
        return None
    if unit_scale:
        x *= unit_scale.get(v[1], 1.0)
    return x


TIME = {"nsecond": 1.0, "usecond": 1e3, "msecond": 1e6, "second": 1e9}
BYTES = {"byte/block": 1.0, "Kbyte/block": 1e3, "Mbyte/block": 1e6}


# streams runs: raw file prefix -> (id prefix of its experiments, category of pairs, of quads, what)
RUNS = {
    "together": ("l_", "dnn/pairs", "dnn/quads",
                 "launched back to back, a few us apart (GPU activity recorded only)"),
    "streams": ("ls_", "dnn/staggered", "dnn/staggered",
                "launched ~100 us apart (the profiler's CPU recording between the launches)"),
}


class Post:
    def __init__(self, raw, data):
        self.raw, self.data = raw, data
        self.out = os.path.join(data, "dnn")
        self.dropped_memsets = 0

    def load_run(self, name):
        """(meta, trace, iterations) of a streams run; iterations as Trace.annotated()."""
        meta = json.load(open(os.path.join(self.raw, f"{name}_meta.json")))
        tr = Trace(os.path.join(self.raw, f"{name}_trace.json.gz"))
        if meta.get("cpu_activity", True):
            return meta, tr, tr.annotated()
        seq = meta["sequence"]
        # each op's kernel count from its solo iterations (one op each, so all their kernels are
        # that op's), then the split of the iterations of several ops
        counts = {}
        for exp, rep, ops, _ in tr.sequenced(seq, lambda op: 10 ** 6):
            if len(ops) == 1:
                counts[ops[0][0]] = sum(1 for _, g in ops[0][1] if g.get("cat") == "kernel")
        return meta, tr, tr.sequenced(seq, lambda op: counts[op])

    # -- solo phase -------------------------------------------------------------------------------
    @staticmethod
    def solo_table(its):
        """op -> [kernel dict] (launch order) with the solo-phase durations; the memsets' durations
        of the solo phase go to solo[op + MEMSET]."""
        solo = {}
        for exp, rep, ops, _ in its:
            phase = exp.split("_", 1)[0]
            if phase not in ("solo", "solo2"):
                continue
            for op, launches in ops:
                if phase == "solo":
                    solo.setdefault(op + MEMSET, []).extend(g["dur"] for _, g in launches
                                                            if g.get("cat") == "gpu_memset")
                ks = [g for _, g in launches if g.get("cat") == "kernel"]
                lst = solo.setdefault(op, [])
                for i, g in enumerate(ks):
                    if i == len(lst):
                        a = g["args"]
                        lst.append({"op": op, "k": i, "kernel": g["name"], "grid": total(a["grid"]),
                                    "block": total(a["block"]), "grid3": a["grid"], "block3": a["block"],
                                    "regs": a.get("registers per thread", 32),
                                    "smem": a.get("shared memory", 0), "solo": [], "solo2": []})
                    if lst[i]["kernel"] != g["name"]:
                        raise SystemExit(f"{op}: kernel {i} differs between reps ({g['name']})")
                    lst[i][phase].append(g["dur"])
        return solo

    def attach_ncu(self, solo):
        """ncu ran every op once, in the order of ncu_meta.json: its kernel records follow that order."""
        order = json.load(open(os.path.join(self.raw, "ncu_meta.json")))["order"]
        recs = ncu_records(os.path.join(self.raw, "ncu.csv"))
        i = 0
        for op in order:
            for k in solo.get(op, []):
                if i >= len(recs):
                    raise SystemExit(f"ncu.csv: no record for {op} kernel {k['k']}")
                r = recs[i]
                i += 1
                base = re.sub(r"[<(].*", "", k["kernel"]).split()[-1].split("::")[-1]
                if base not in r["kernel"] or total([int(x) for x in r["grid"].strip("()").split(",")]) != k["grid"]:
                    raise SystemExit(f"ncu record {i - 1} ({r['kernel'][:60]}, {r['grid']}) is not {op} "
                                     f"kernel {k['k']} ({base}, {k['grid']})")
                dur = num(r, "Duration", TIME)
                dram = num(r, "DRAM Throughput")
                k.update({"ncu_duration_ns": dur, "ncu_dram_pct": dram,
                          "ncu_sm_pct": num(r, "Compute (SM) Throughput"),
                          "ncu_issue_pct": num(r, "Issue Slots Busy"),
                          "ncu_occupancy_pct": num(r, "Achieved Occupancy"),
                          "static_smem": int(num(r, "Static Shared Memory Per Block", BYTES) or 0),
                          "dyn_smem": int(num(r, "Dynamic Shared Memory Per Block", BYTES) or 0)})
                if k["static_smem"] + k["dyn_smem"] != k["smem"]:  # Kineto's total is the check
                    k["static_smem"], k["dyn_smem"] = 0, k["smem"]
                k["dram_bytes"] = int(dram / 100 * NCU_PEAK_GBPS * dur) if dram is not None and dur else ""
                k["sm_issue_pct"] = k["ncu_issue_pct"] if k["ncu_issue_pct"] is not None else ""
        if i != len(recs):
            raise SystemExit(f"ncu.csv: {len(recs) - i} records left over")

    def write_solo(self, solos):
        cols = ["run", "op", "family", "k", "kernel", "grid", "block", "grid_xyz", "block_xyz", "regs_per_thread",
                "static_smem", "dyn_smem", "solo_median_ns", "solo_min_ns", "solo_max_ns", "solo2_median_ns",
                "ncu_duration_ns", "ncu_dram_pct", "ncu_sm_pct", "ncu_issue_pct", "ncu_occupancy_pct",
                "dram_bytes", "sm_issue_pct"]
        with open(os.path.join(self.out, "solo_kernels.csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(cols)
            for run, solo in solos.items():
                for op in sorted(o for o in solo if not o.endswith(MEMSET)):
                    for k in solo[op]:
                        k["solo_ns"] = ns(statistics.median(k["solo"]))
                        w.writerow([run, op, FAMILY[op], k["k"], re.sub(r"[^\w<>:, ]", "", k["kernel"])[:100],
                                    k["grid"], k["block"], "x".join(map(str, k["grid3"])),
                                    "x".join(map(str, k["block3"])), k["regs"], k.get("static_smem", 0),
                                    k.get("dyn_smem", k["smem"]), k["solo_ns"], ns(min(k["solo"])),
                                    ns(max(k["solo"])), ns(statistics.median(k["solo2"])) if k["solo2"] else "",
                                    k.get("ncu_duration_ns", ""), k.get("ncu_dram_pct", ""),
                                    k.get("ncu_sm_pct", ""), k.get("ncu_issue_pct", ""),
                                    k.get("ncu_occupancy_pct", ""), k.get("dram_bytes", ""),
                                    k.get("sm_issue_pct", "")])

    # -- concurrent experiments -------------------------------------------------------------------
    def rows_of(self, exp, proc, tr, its, origin, solo, memsets=False):
        """ops-CSV rows of one process: per iteration its kernels (solo inputs), with @memsets also
        its memsets (the op's median memset alone), and a synchronize of every stream it used at the
        recorded cudaDeviceSynchronize.  @its: [(rep, ops, sync)]."""
        rows, streams = [], {}
        for rep, ops, sync in its:
            opi, used = 0, []
            for j, (op, launches) in enumerate(ops):
                ks = solo[op]
                kk = 0
                for call, g in launches:
                    if g.get("cat") != "kernel" and memsets:
                        sid = streams.setdefault(g["args"]["stream"], len(streams))
                        if sid not in used:
                            used.append(sid)
                        rows.append([exp, proc, tr.pid, rep, opi, "memset", sid, 0, f"{chr(65 + j)}_{op}.memset",
                                     "memset", "", "", "", "", "", "", "", "", g["args"].get("bytes", ""), "",
                                     ns(call["ts"]) - origin, ns(call["dur"]), ns(g["ts"]) - origin,
                                     ns(g["ts"] + g["dur"]) - origin, ns(g["dur"]), "",
                                     ns(statistics.median(solo[op + MEMSET])), 0, "", "", ""])
                        opi += 1
                        continue
                    if g.get("cat") != "kernel":
                        self.dropped_memsets += 1
                        continue
                    k = ks[kk]
                    if k["kernel"] != g["name"]:
                        raise SystemExit(f"{exp}: {op} kernel {kk} is {g['name'][:60]}, alone {k['kernel'][:60]}")
                    kk += 1
                    sid = streams.setdefault(g["args"]["stream"], len(streams))
                    if sid not in used:
                        used.append(sid)
                    rows.append([exp, proc, tr.pid, rep, opi, "kernel", sid, 0, f"{chr(65 + j)}_{op}.k{k['k']}",
                                 FAMILY[op], k["grid"], k["block"], k["dyn_smem"], k["static_smem"],
                                 k["regs"], "", "", 1, "", "", ns(call["ts"]) - origin, ns(call["dur"]),
                                 ns(g["ts"]) - origin, ns(g["ts"] + g["dur"]) - origin, ns(g["dur"]), "",
                                 k["solo_ns"], 0, k["dram_bytes"], k["sm_issue_pct"],
                                 k.get("ncu_sm_pct") if k.get("ncu_sm_pct") is not None else ""])
                    opi += 1
            if sync is not None:
                for sid in used:
                    rows.append([exp, proc, tr.pid, rep, opi, "stream_synchronize", sid, 0, "sync", "", "", "", "",
                                 "", "", "", "", "", "", "", ns(sync["ts"]) - origin, ns(sync["dur"]),
                                 "", "", "", "", "", 0, "", "", ""])
                    opi += 1
        return rows

    def write_ops(self, exp, rows):
        rel = os.path.join("dnn", "ops", f"{exp}_ops.csv")
        with open(os.path.join(self.data, rel), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(HEADER)
            w.writerows(rows)
        return rel

    def entry(self, exp, cat, what, procs, rel, prov, run):
        return {"id": exp, "part": "L", "category": cat, "measures": what,
                "gpu": prov.get("gpu"), "sm_count": prov.get("sm_count"), "nvidia_smi": prov.get("nvidia_smi"),
                "torch": prov.get("torch"), "cuda_runtime": prov.get("cuda_runtime"), "cudnn": prov.get("cudnn"),
                "date_utc": prov.get("date_utc"), "campaign_command": "harness/torch_pairs_campaign.sh OUTDIR",
                "nproc": len(procs), "mps_daemon": any(p["mps_client"] for p in procs), "processes": procs,
                "solo_durations": f"every kernel's median duration alone, solo phase of run '{run}' "
                                  "(dnn/solo_kernels.csv), demand from Nsight Compute (dnn/ncu.csv.gz)",
                "files": {"ops": rel}}

    def run(self):
        os.makedirs(os.path.join(self.out, "ops"), exist_ok=True)
        os.makedirs(os.path.join(self.out, "kineto"), exist_ok=True)
        exps, solos, prov = [], {}, None
        for run, (prefix, cat_pairs, cat_quads, how) in RUNS.items():
            if not os.path.exists(os.path.join(self.raw, f"{run}_meta.json")):
                continue
            meta, tr, its = self.load_run(run)
            prov = prov or meta["provenance"]
            solo = solos[run] = self.solo_table(its)
            self.attach_ncu(solo)
            for k in (k for o, v in solo.items() if not o.endswith(MEMSET) for k in v):
                k["solo_ns"] = ns(statistics.median(k["solo"]))
            by = {}
            for exp, rep, ops, sync in its:
                if exp.startswith("l_"):
                    by.setdefault(exp, []).append((rep, ops, sync))
            for exp, mine in by.items():
                names = meta["experiments"][exp]
                eid = prefix + exp[2:]
                origin = min(ns(c["ts"]) for _, ops, _ in mine[:1] for _, ls in ops for c, _ in ls)
                rows = self.rows_of(eid, 0, tr, mine, origin, solo)
                what = (f"part L (issue 11): {' + '.join(names)} on {len(names)} streams of one process, "
                        f"{how} (torch, {len(mine)} reps); predicted from each kernel alone")
                cmd = f"python3 harness/torch_pairs.py streams --out RAW/{run}" + \
                    (" --together" if run == "together" else "")
                exps.append(self.entry(eid, cat_quads if len(names) == 4 else cat_pairs, what,
                                       [{"index": 0, "command": cmd, "env": {}, "mps_client": False,
                                         "connections": "default: 8", "active_thread_percentage": None}],
                                       self.write_ops(eid, rows), meta["provenance"], run))
            shutil.copy(os.path.join(self.raw, f"{run}_trace.json.gz"), os.path.join(self.out, "kineto"))
        self.write_solo(solos)
        solo = solos["streams"]  # the 2-process runs' solo inputs: the first run's solo phase
        for mp in sorted({re.sub(r"_p\d+_meta\.json$", "", f) for f in os.listdir(self.raw)
                          if re.match(r"l_mp\d.*_p\d+_meta\.json$", f)}):
            ranks = sorted(f for f in os.listdir(self.raw) if re.match(re.escape(mp) + r"_p\d+_meta\.json$", f))
            trs, metas = [], []
            for f in ranks:
                metas.append(json.load(open(os.path.join(self.raw, f))))
                tp = os.path.join(self.raw, f.replace("_meta.json", "_trace.json.gz"))
                trs.append(Trace(tp))
                shutil.copy(tp, os.path.join(self.out, "kineto"))
            itss = [[(rep, ops, sync) for _, rep, ops, sync in t.annotated()] for t in trs]
            origin = min(ns(c["ts"]) for its in itss for _, ops, _ in its[:1] for _, ls in ops for c, _ in ls)
            rows, procs = [], []
            for p, (t, its, m) in enumerate(zip(trs, itss, metas)):
                rows += self.rows_of(mp, p, t, its, origin, solo, memsets=True)
                procs.append({"index": p, "command": f"python3 harness/torch_pairs.py proc --op {m['op']} "
                              f"--n {m['n']} --rank {p} --barrier DIR --out RAW/{mp}_p{p}",
                              "env": {"CUDA_MPS_PIPE_DIRECTORY": "/tmp/dnnmps/pipe"} if m["mps"] else {},
                              "mps_client": m["mps"], "connections": "default: 8",
                              "active_thread_percentage": None, "op": m["op"]})
            ops = [m["op"] for m in metas]
            what = (f"part L (issue 11): {len(ops)} processes ({', '.join(ops)}), "
                    f"{'MPS clients' if metas[0]['mps'] else 'no MPS (time-sliced)'}; each iteration a file "
                    f"barrier, then {metas[0]['launches']} launches on one stream and a synchronize")
            exps.append(self.entry(mp, "dnn/processes", what, procs, self.write_ops(mp, rows),
                                   metas[0]["provenance"], "streams"))
        with open(os.path.join(self.raw, "ncu.csv"), "rb") as fi, \
                gzip.open(os.path.join(self.out, "ncu.csv.gz"), "wb", compresslevel=9) as fo:
            shutil.copyfileobj(fi, fo)
        head = {"dataset": "hqsim ground truth, part L: real library kernels through PyTorch "
                           "(included by manifest.json)",
                "provenance": prov, "info": open(os.path.join(self.raw, "info.txt")).read().splitlines(),
                "memsets_left_out": self.dropped_memsets, "experiments": exps}
        with open(os.path.join(self.out, "manifest.json"), "w") as f:
            json.dump(head, f, indent=1)
            f.write("\n")
        main = os.path.join(self.data, "manifest.json")
        txt = open(main).read()
        m = re.search(r'"include": \[([^\]]*)\]', txt)
        if m and '"dnn/manifest.json"' not in m[1]:
            txt = txt[:m.end(1)] + ', "dnn/manifest.json"' + txt[m.end(1):]
            with open(main, "w") as f:
                f.write(txt)
        print(f"{len(exps)} experiments, {sum(len(v) for o, v in solo.items() if not o.endswith(MEMSET))} "
              "kernels alone, "
              f"{self.dropped_memsets} memsets left out")


def rebuild_processes(data):
    """--processes: the 2-process runs' ops CSVs again, from DATA/dnn alone, with their memsets."""
    dnn = os.path.join(data, "dnn")
    post = Post(None, data)
    solo = post.solo_table(Trace(os.path.join(dnn, "kineto", "streams_trace.json.gz")).annotated())
    # the Nsight Compute inputs as post.attach_ncu gave them (the raw ncu.csv is not kept)
    for r in csv.DictReader(open(os.path.join(dnn, "solo_kernels.csv"))):
        if r["run"] == "streams":
            k = solo[r["op"]][int(r["k"])]
            k.update({"static_smem": int(r["static_smem"]), "dyn_smem": int(r["dyn_smem"]),
                      "dram_bytes": r["dram_bytes"], "sm_issue_pct": r["sm_issue_pct"],
                      "ncu_sm_pct": r["ncu_sm_pct"] or None, "solo_ns": int(r["solo_median_ns"])})
    man_path = os.path.join(dnn, "manifest.json")
    man = json.load(open(man_path))
    kept = 0
    for e in man["experiments"]:
        if not re.match(r"l_mp\d", e["id"]):
            continue
        mp = e["id"]
        trs = [Trace(os.path.join(dnn, "kineto", f"{mp}_p{p}_trace.json.gz")) for p in range(e["nproc"])]
        itss = [[(rep, ops, sync) for _, rep, ops, sync in t.annotated()] for t in trs]
        origin = min(ns(c["ts"]) for its in itss for _, ops, _ in its[:1] for _, ls in ops for c, _ in ls)
        rows = [r for p, (t, its) in enumerate(zip(trs, itss))
                for r in post.rows_of(mp, p, t, its, origin, solo, memsets=True)]
        old = list(csv.reader(open(os.path.join(data, e["files"]["ops"]))))[1:]
        strip = [[str(x) for i, x in enumerate(r) if i != 4] for r in rows if r[5] != "memset"]
        if strip != [[x for i, x in enumerate(r) if i != 4] for r in old if r[5] != "memset"]:
            raise SystemExit(f"{mp}: the kernel rows rebuilt differ from {e['files']['ops']}")
        kept += sum(r[5] == "memset" for r in rows) - sum(r[5] == "memset" for r in old)
        post.write_ops(mp, rows)
        print(f"{mp}: {sum(r[5] == 'memset' for r in rows)} memsets kept, kernel rows unchanged")
    if kept:
        man["memsets_left_out"] -= kept
        with open(man_path, "w") as f:
            json.dump(man, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--processes":
        rebuild_processes(sys.argv[2])
    elif len(sys.argv) == 3:
        Post(sys.argv[1], sys.argv[2]).run()
    else:
        print(__doc__)
        sys.exit(1)
