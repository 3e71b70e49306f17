"""What the serving tables share (harness/openloop_table.py, openloop_gpu_compare.py): how a row of
an openloop_predict.py output is grouped, and the targets it is counted against (issue 10:
throughput and p50 within 10%, p99 within 20%). Imported, not run."""

# Thread percentages are one group: the campaign runs them at N = 1 and 4 only.
SHARING = {"nomps": "no MPS", "mps": "MPS", "mps50": "MPS 50% / 25% threads", "mps25": "MPS 50% / 25% threads"}
# (error column, target in %)
TARGETS = (("err_thr_pct", 10), ("err_p50_pct", 10), ("err_p99_pct", 20))


def category(sharing, loop):
    """The README's row group of a (sharing, loop) pair, e.g. "open loop, 0.5 load, MPS"."""
    sh = SHARING[sharing]
    return "closed loop, " + sh if loop == "closed" else "open loop, %s load, %s" % (loop[4:], sh)


def within(rs):
    """How many rows of rs are within target: (throughput, p50, p99)."""
    return tuple(sum(abs(float(r[c])) <= lim for r in rs) for c, lim in TARGETS)
