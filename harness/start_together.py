"""start_together.py -- N processes of one harness run start their timed part
at one wall-clock instant (the probes that sample rank 0 beside busy siblings:
mps_graph_probe.py, ts_span_probe.py, span_host_loop.py).

Each rank marks itself ready in a shared folder (go.<rank>) and waits for all
n; rank 0 then publishes t0 = now + lead_s (written to a temporary name and
renamed, so a reader never sees half a number); every rank reads t0.  The
caller spins until t0 itself where it needs the instant to the microsecond."""
import os
import time


def start_together(barrier, rank, n, lead_s):
    """The shared start time t0 (time.time() seconds) of @n ranks in @barrier."""
    open(os.path.join(barrier, f"go.{rank}"), "w").close()
    while sum(1 for f in os.listdir(barrier) if f.startswith("go.")) < n:
        time.sleep(0.0002)
    t0f = os.path.join(barrier, "t0")
    if rank == 0:
        with open(t0f + ".tmp", "w") as f:
            f.write(repr(time.time() + lead_s))
        os.rename(t0f + ".tmp", t0f)
    while not os.path.exists(t0f):
        time.sleep(0.0002)
    return float(open(t0f).read())
