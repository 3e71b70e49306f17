#!/usr/bin/env python3
"""bench/closed_loop_repeat.py CSV [K] -- does a closed loop repeat itself?

CSV is `hqsim run ... --csv FILE` of a closed loop (--loop-request
--iterations N).  If the whole system's schedule came back shifted in time
after k iterations, every op of every process in iteration i + k would
start and end exactly D ns after the same op in iteration i, and an exact
skip of whole periods would be possible (bench/HISTORY.md, "Does a
closed loop repeat itself?").  The first third of the iterations is left
out as warm-up; for each period k = 1..K (default 30, at most a third of
the iterations) the script takes the shifts of every process's iteration
starts (first op's start) from iteration i to i + k and prints the first k
whose shifts are one value, with the number of ops not shifted alike by
it, or else the nearest miss: the k with the smallest spread (max - min)
of those shifts.  Times are the CSV's (us, exact to the ns).  Not a test.
"""
import collections
import csv
import sys


def load(path):
    ops = collections.defaultdict(dict)  # process -> (iteration, op) -> times
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (int(r["iteration"]), int(r["op"]))
            ops[r["process"]][key] = (round(float(r["start_us"]) * 1000),
                                      round(float(r["end_us"]) * 1000))
    return ops


def iteration_starts(ops):
    starts = {}
    for p, d in ops.items():
        s = {}
        for (i, _), (t, _) in d.items():
            s[i] = min(t, s.get(i, t))
        starts[p] = [s[i] for i in sorted(s)]
    return starts


def unshifted(ops, k, w, shift):
    """Ops of iterations >= w whose start or end is not that of the same op
    k iterations earlier plus shift (ns)."""
    bad = 0
    for d in ops.values():
        for (i, o), (s, e) in d.items():
            later = d.get((i + k, o))
            if i >= w and later and (later[0] - s != shift or
                                     later[1] - e != shift):
                bad += 1
    return bad


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    ops = load(sys.argv[1])
    starts = iteration_starts(ops)
    n = min(len(s) for s in starts.values())
    w = n // 3
    kmax = min(int(sys.argv[2]) if len(sys.argv) > 2 else 30, (n - w) // 2)
    print("%d processes, %d iterations each; warm-up %d iterations left out"
          % (len(starts), n, w))
    best = None
    for k in range(1, kmax + 1):
        shifts = [s[i + k] - s[i] for s in starts.values()
                  for i in range(w, n - k)]
        spread = max(shifts) - min(shifts)
        if spread == 0:
            print("period %d iterations: every iteration start shifts by "
                  "%d ns; ops not shifted alike: %d"
                  % (k, shifts[0], unshifted(ops, k, w, shifts[0])))
            return
        if best is None or spread < best[0]:
            best = (spread, k)
    print("no period of 1-%d iterations: the nearest miss is k = %d, whose "
          "iteration-start shifts spread over %d ns" % (kmax, best[1],
                                                         best[0]))
    first = sorted(starts)[0]
    s = starts[first]
    print("%s: iterations take %s ... ns" % (
        first, ", ".join(str(s[i + 1] - s[i]) for i in range(w, min(n - 1,
                                                                    w + 6)))))


if __name__ == "__main__":
    main()
