#!/usr/bin/env python3
"""bench/sm_sample_infer_check.py [HQSIM] [M,M,...] -- the solo-time
inference with sampled SMs against the exact one (README "Sampled SMs").

`hqsim run TRACE` infers each op's time alone in rounds of simulation and
reuses the best round as the run.  With --sm-sample M every round, and so
the run, simulates 1 SM in M.  For each trace below (ours, the shared ones
in ../shared/traces or /work/shared/traces when present, and two
synthetic bench/big_trace.py traces of 4 overlapping streams) this runs
`hqsim run -q TRACE --json` exact and with each M, and prints the engine
events of the run, the CPU seconds of the whole command (children's user +
system time, import and inference included), and the relative difference
from the exact command of the makespan and of the mean stream-busy time
per op.  Not a
test: nothing passes or fails; the numbers go to README "Sampled SMs".
Default HQSIM build/hqsim, M 2,4,11; BIG_N (default 20000) kernels in the
synthetic traces.
"""
import glob
import os
import subprocess
import sys
import tempfile

from checklib import rel, run as hqsim_run

HQ = sys.argv[1] if len(sys.argv) > 1 else "build/hqsim"
MS = [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "2,4,11")
      .split(",")]
BIG_N = os.environ.get("BIG_N", "20000")
LIMITS = ["--limit", "ops=100M", "--limit", "work=100M", "--limit",
          "events=10G", "--limit", "placements=100G"]


def run(trace, m, tmp):
    """None where the command fails (a trace hqsim refuses)."""
    args = LIMITS + [trace] + (["--sm-sample", str(m)] if m > 1 else [])
    return hqsim_run(HQ, args, tmp, check=False)


def mean_op(r):
    """Mean duration of the run's GPU ops, from the per-process summary."""
    tot = n = 0
    for p in r.get("processes", []):
        for s in p.get("streams", []):
            tot += s.get("busy_ms", 0)
            n += s.get("ops", 0)
    return tot / n if n else None


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    tmp = tempfile.mkdtemp(prefix="smsample-infer-")
    shared = next((d for d in ("../shared/traces", "/work/shared/traces")
                   if os.path.isdir(d)), None)
    traces = sorted(glob.glob("traces/measured/h100/pytorch/*.json.gz"))
    if shared:
        traces += sorted(f for f in glob.glob(shared + "/*/*")
                         if not f.endswith((".md", ".log")))
    for fmt in ("nvprof", "kineto"):
        f = os.path.join(tmp, "big-%s-%s" % (fmt, BIG_N))
        subprocess.run([sys.executable, "bench/big_trace.py", fmt, BIG_N, f],
                       check=True)
        traces.append(f)
    print("%-60s %4s %10s %8s %9s %9s" %
          ("trace", "M", "events", "CPU s", "makespan", "mean busy"))
    for t in traces:
        base = run(t, 1, tmp)
        if base is None:
            print("%-60s  (does not run)" % t[-60:])
            continue
        print("%-60s %4s %10d %8.2f %9.3f %9s" %
              (t[-60:], "exact", base.get("events", 0), base["cpu_s"],
               base.get("makespan_ms", 0), ""))
        for m in MS:
            r = run(t, m, tmp)
            if r is None:
                print("%-60s %4d  (fails)" % ("", m))
                continue
            print("%-60s %4d %10d %8.2f %9s %9s" %
                  ("", m, r.get("events", 0), r["cpu_s"],
                   rel(base.get("makespan_ms"), r.get("makespan_ms"), 7),
                   rel(mean_op(base), mean_op(r), 7)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
