#!/usr/bin/env python3
"""bench/reqmodel_check.py [HQSIM] [W,W,...] -- the request model's speed
and error against the exact engine (README "Whole requests").

For each closed-loop case it runs `hqsim run ... --json` exactly and with
--request-model W, and prints per W the engine events, the CPU seconds of
the command (children's user + system time: import, solo-time inference,
preparation and the run), simulated seconds per CPU second, and the
relative differences of makespan, throughput and p50 / p99 latency (all
processes' requests pooled) from the exact run.  Default HQSIM
build/hqsim, W 4,8; CHECK_ITER (default 300) sets --iterations,
CHECK_CASES a comma-separated subset of the case names, CHECK_SEEDS a
comma-separated list of seeds to run each case with (`--seed S`, exact and
modelled alike: the error of a W differs from seed to seed).  Not a test:
nothing passes or fails; the numbers go to the README.
"""
import os
import sys
import tempfile

from checklib import rel, run as hqsim_run

HQ = sys.argv[1] if len(sys.argv) > 1 else "build/hqsim"
WS = [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "4,8").split(",")]
IT = os.environ.get("CHECK_ITER", "300")
H = "traces/measured/h100"
TORCH = [H + "/pytorch/torch_profile_trace.json.gz", "--loop-request",
         "--host-scale", "0.372"]


def graph(cfg, host_scale):
    """An open-loop campaign configuration as harness/openloop_predict.py
    runs its closed-loop rows (the trace, its ncu file where there is one,
    spread, fitted host scale)."""
    ncu = H + "/openloop/ncu/%s.csv.gz" % cfg
    return [H + "/launch/kineto/%s.json.gz" % cfg] + \
        ([ncu] if os.path.exists(ncu) else []) + ["--loop-request",
            "--host-scale", host_scale, "--request-spread",
            H + "/openloop/spread/%s.json" % cfg, "--seed", "1"]


CASES = [("resnet18 %s N=%d" % (m, n),
          TORCH + ["--processes", str(n), "--mode", m])
         for m in ("mps", "timeslice") for n in (1, 2, 4, 8)]
CASES += [("cnn_b1_graph mps N=4", graph("cnn_b1_graph", "0.0517") +
           ["--processes", "4", "--mode", "mps"]),
          ("decoder_b1_graph mps N=4", graph("decoder_b1_graph", "0.0695") +
           ["--processes", "4", "--mode", "mps"]),
          ("encoder_b8_graph timeslice N=2",
           graph("encoder_b8_graph", "0.6645") +
           ["--processes", "2", "--mode", "timeslice"])]


def run(args, w, tmp):
    extra = ["--request-model", str(w)] if w else []
    return hqsim_run(HQ, ["--iterations", IT] + args + extra, tmp)


def line(label, r, cols):
    print("  %-6s %10d %7.2f %8.2f %9s %10s %8s %8s" %
          ((label, r["events"], r["cpu_s"],
            r["makespan_ms"] / 1e3 / max(r["cpu_s"], 1e-9)) + cols))


def case(name, args, tmp):
    print("\n%s\n  `hqsim run --iterations %s %s`" % (name, IT, " ".join(args)))
    print("  %-6s %10s %7s %8s %9s %10s %8s %8s" %
          ("W", "events", "CPU s", "sim/CPU", "makespan", "throughput",
           "p50", "p99"))
    base = run(args, 0, tmp)
    line("exact", base, ("%.3f" % base["makespan_ms"],
                         "%.2f" % base["throughput_per_s"],
                         "%.3f" % base["latency_p50_ms"],
                         "%.3f" % base["latency_p99_ms"]))
    for w in WS:
        r = run(args, w, tmp)
        fell = any(n.startswith("--request-model") for n in r.get("notes", []))
        line(str(w) + ("*" if fell else ""), r,
             tuple(rel(base.get(k), r.get(k)) for k in
                   ("makespan_ms", "throughput_per_s", "latency_p50_ms",
                    "latency_p99_ms")))


def main():
    want = os.environ.get("CHECK_CASES")
    want = set(want.split(",")) if want else None
    seeds = os.environ.get("CHECK_SEEDS")
    seeds = seeds.split(",") if seeds else [None]
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in CASES:
            if want and name not in want:
                continue
            for seed in seeds:
                if seed is None:
                    case(name, args, tmp)
                else:
                    case("%s, seed %s" % (name, seed),
                         args + ["--seed", seed], tmp)
    print("\n(* the request model fell back to the exact run)")


if __name__ == "__main__":
    main()
