#!/usr/bin/env python3
"""bench/sm_sample_check.py [HQSIM] [M,M,...] -- the sampled-SM model's
speed and error against the exact engine (README "Sampled SMs").

For each case it runs `hqsim run ... --json` on every SM and with
--sm-sample M, and prints per M the engine events, the CPU seconds of the
command (children's user + system time, so machine load stretches wall time
but not this much), and the relative differences of makespan, throughput
and p50 / p99 latency from the exact run.  Then `hqsim validate` exact and
sampled: the distribution over experiments of |predicted makespan sampled /
exact - 1|.  Default HQSIM build/hqsim, M 2,3,4,12.  CHECK_ITER (default
30) sets the PyTorch cases' --iterations; CHECK_ONLY=TEXT runs only the
cases whose name contains TEXT, and no validate.  Not a test: nothing
passes or fails; the numbers go to README "Sampled SMs".
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile

from checklib import rel, run as hqsim_run

HQ = sys.argv[1] if len(sys.argv) > 1 else "build/hqsim"
MS = [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "2,3,4,12")
      .split(",")]
IT = os.environ.get("CHECK_ITER", "30")
H = "traces/measured/h100"
TORCH = H + "/pytorch/torch_profile_trace.json.gz"
BIG = ["--limit", "ops=100M", "--limit", "work=100M", "--limit",
       "events=10G", "--limit", "placements=100G"]


def run(args, m, tmp):
    return hqsim_run(HQ, BIG + args + ["--sm-sample", str(m)], tmp)


ONLY = os.environ.get("CHECK_ONLY")


def case(name, args, tmp):
    if ONLY and ONLY not in name:
        return
    print("\n%s\n  `hqsim run %s`" % (name, " ".join(args)))
    print("  %-5s %11s %8s %9s %10s %8s %8s" %
          ("M", "events", "CPU s", "makespan", "throughput", "p50", "p99"))
    base = run(args, 1, tmp)
    print("  %-5s %11d %8.2f %9.3f %10.2f %8.3f %8.3f" %
          ("exact", base["events"], base["cpu_s"], base["makespan_ms"],
           base.get("throughput_per_s") or 0, base.get("latency_p50_ms") or 0,
           base.get("latency_p99_ms") or 0))
    for m in MS:
        r = run(args, m, tmp)
        print("  %-5d %11d %8.2f %9s %10s %8s %8s" %
              ((m, r["events"], r["cpu_s"]) +
               tuple(rel(base.get(k), r.get(k)) for k in
                     ("makespan_ms", "throughput_per_s", "latency_p50_ms",
                      "latency_p99_ms"))))


ROW = re.compile(r"^(\S+)\s+\S+\s+\S+\s+\d+\s+([\d.]+)\s+([\d.]+)\s")


def validate(m):
    p = subprocess.run([HQ, "validate", "--sm-sample", str(m)], check=True,
                       capture_output=True, text=True)
    rows = {}
    for line in p.stdout.splitlines():
        g = ROW.match(line)
        if g:
            rows[g.group(1)] = float(g.group(3))
    return rows


def main():
    with tempfile.TemporaryDirectory() as tmp:
        gen = os.path.join(tmp, "gen.json")
        subprocess.run([HQ, "gen", "--kernels", "20000", "-o", gen],
                       check=True)
        big = os.path.join(tmp, "big.csv")
        subprocess.run([sys.executable, "bench/big_trace.py", "nvprof",
                        "20000", big], check=True, stdout=subprocess.DEVNULL)
        torch = [TORCH, "--loop-request", "--iterations", IT,
                 "--host-scale", "0.372", "--processes", "8"]
        case("resnet18 x 8, MPS", torch + ["--mode", "mps"], tmp)
        case("resnet18 x 8, time-sliced", torch + ["--mode", "timeslice"],
             tmp)
        case("resnet50 b1 graph + ncu DRAM, 2 MPS clients",
             [H + "/launch/kineto/cnn_b1_graph.json.gz",
              H + "/mpspct/ncu/cnn_b1_graph.csv.gz", "--loop-request",
              "--host-scale", "0.0517", "--request-spread",
              H + "/openloop/spread/cnn_b1_graph.json", "--processes", "2",
              "--mode", "mps", "--iterations", IT, "--seed", "1"], tmp)
        case("hqsim gen --kernels 20000 (8 processes), MPS",
             [gen, "--mode", "mps"], tmp)
        case("bench/big_trace.py nvprof 20000 (grids multiples of 33), "
             "--as-recorded", [big, "--as-recorded"], tmp)
    if ONLY:
        return
    print("\nvalidate: |predicted makespan sampled / exact - 1| over the "
          "experiments replayed")
    base = validate(1)
    for m in MS:
        s = validate(m)
        d = sorted(abs(s[k] / base[k] - 1) for k in base
                   if k in s and base[k] > 0)
        print("  M = %-3d n %d, median %.3f%%, 90th %.2f%%, largest %.1f%%, "
              "above 1%%: %d, above 5%%: %d" %
              (m, len(d), 100 * statistics.median(d),
               100 * d[int(0.9 * len(d))], 100 * d[-1],
               sum(x > 0.01 for x in d), sum(x > 0.05 for x in d)))


if __name__ == "__main__":
    main()
