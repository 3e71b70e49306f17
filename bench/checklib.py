"""bench/checklib.py -- what the bench/*_check.py scripts share: one
`hqsim run -q ... --json` timed in CPU seconds, and relative differences
printed as percentages.  Imported by bench/reqmodel_check.py,
bench/sm_sample_check.py and bench/sm_sample_infer_check.py.
"""
import json
import os
import resource
import subprocess


def cpu():
    """CPU seconds (user + system) of the child processes waited for so far:
    machine load stretches wall time, not this much."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(hq, args, tmp, check=True):
    """`HQ run -q ARGS --json TMP/r.json`: its "run" object, with "cpu_s" the
    whole command's CPU seconds (import, solo-time inference, preparation
    and the run).  A failing command exits the script with its message, or
    gives None with check=False."""
    out = os.path.join(tmp, "r.json")
    cmd = [hq, "run", "-q"] + args + ["--json", out]
    t0 = cpu()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode:
        if check:
            raise SystemExit("%s: exit %d: %s" % (" ".join(cmd), p.returncode,
                                                  p.stderr.strip()))
        return None
    with open(out) as f:
        r = json.load(f)["run"]
    r["cpu_s"] = cpu() - t0
    return r


def rel(x, y, width=6):
    """y / x - 1 in percent, signed, right-aligned in width + 1 characters;
    '-' where x is missing or 0 or y is missing."""
    if not x or y is None:
        return "-".rjust(width + 1)
    return "%+*.2f%%" % (width, 100 * (y / x - 1))
