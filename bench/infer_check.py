#!/usr/bin/env python3
"""bench/infer_check.py OLD NEW [--quick] -- two binaries' solo-time
inference compared on every trace we have (bench/HISTORY.md, "Solo-time inference:
settled rounds and a sample").

For every file under traces/ (our bundled and measured traces, the H100
Kineto launch traces among them), every shared trace (../shared/traces or
/work/shared/traces, read in place) and the synthetic bench/big_trace.py
traces of 4 overlapping streams (nvprof at 10^4 kernels; nvprof, nsys,
sqlite and kineto at BIG_N, default 10^5), this runs `HQ run -q FILE --json`
with OLD and NEW and prints, where the JSON outputs differ, the CPU seconds
of each command, the relative difference of the makespan, of the mean
stream-busy time per op, and the largest relative difference of one
stream's busy time.  Files both binaries refuse (ncu reports alone,
model files) are skipped; files whose outputs are byte-identical are only
counted.  --quick: the synthetic traces only.  Not a test: nothing passes
or fails; the numbers go to the README.
"""
import filecmp
import glob
import os
import shutil
import subprocess
import sys
import tempfile

from checklib import rel, run as hqsim_run

LIMITS = ["--limit", "ops=100M", "--limit", "work=100M", "--limit",
          "events=10G", "--limit", "placements=100G"]
SKIP = (".md", ".txt", ".patch", ".log", ".py")


def files(quick, tmp):
    out = []
    if not quick:
        out += sorted(f for f in glob.glob("traces/**/*", recursive=True)
                      if os.path.isfile(f) and not f.endswith(SKIP))
        shared = next((d for d in ("../shared/traces", "/work/shared/traces")
                       if os.path.isdir(d)), None)
        if shared:
            out += sorted(f for f in glob.glob(shared + "/**/*",
                                               recursive=True)
                          if os.path.isfile(f) and not f.endswith(SKIP))
    n = os.environ.get("BIG_N", "100000")
    for fmt, k in [("nvprof", "10000"), ("nvprof", n), ("nsys", n),
                   ("sqlite", n), ("kineto", n)]:
        f = os.path.join(tmp, "big-%s-%s" % (fmt, k))
        subprocess.run([sys.executable, "bench/big_trace.py", fmt, k, f],
                       check=True)
        out.append(f)
    return out


def busy(r):
    """Per stream, its busy ms; and the mean busy ms per op."""
    per, tot, n = {}, 0, 0
    for p in r.get("processes", []):
        for s in p.get("streams", []):
            per[(p.get("name"), s.get("name"))] = s.get("busy_ms", 0)
            tot += s.get("busy_ms", 0)
            n += s.get("ops", 0)
    return per, (tot / n if n else None)


def worst_stream(a, b):
    w = 0
    for k, x in a.items():
        y = b.get(k)
        if x and y is not None:
            w = max(w, abs(y / x - 1))
    return "%.3f%%" % (100 * w)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    old, new = (os.path.abspath(x) for x in sys.argv[1:3])
    quick = "--quick" in sys.argv[3:]
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    tmp = tempfile.mkdtemp(prefix="infer-check-")
    same = skipped = 0
    print("%-58s %7s %7s %9s %9s %8s" % ("trace", "old s", "new s",
                                          "makespan", "mean busy",
                                          "stream"))
    oj, nj = os.path.join(tmp, "old.json"), os.path.join(tmp, "r.json")
    for f in files(quick, tmp):
        for x in (oj, nj):
            if os.path.exists(x):
                os.remove(x)
        ro = hqsim_run(old, LIMITS + [f], tmp, check=False)
        if ro is not None:
            shutil.move(nj, oj)
        rn = hqsim_run(new, LIMITS + [f], tmp, check=False)
        if ro is None and rn is None:
            skipped += 1
            continue
        if ro is None or rn is None:
            print("%-58s only %s runs it" % (f[-58:], "new" if ro is None
                                              else "old"))
            continue
        if filecmp.cmp(oj, nj, shallow=False):
            same += 1
            continue
        bo, mo = busy(ro)
        bn, mn = busy(rn)
        print("%-58s %7.2f %7.2f %9s %9s %8s" %
              (f[-58:], ro["cpu_s"], rn["cpu_s"],
               rel(ro.get("makespan_ms"), rn.get("makespan_ms"), 7),
               rel(mo, mn, 7), worst_stream(bo, bn)))
        sys.stdout.flush()
    print("identical: %d; not run by either (not a trace): %d" %
          (same, skipped))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
