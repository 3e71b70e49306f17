#!/usr/bin/env python3
"""The decoder b1 graph as an MPS client beside other clients, with and without a profiler
(hqsim issue 10 item 2, FINDINGS §26). Used by harness/mps_decoder_campaign.sh.

  mps_decoder_probe.py victim --model decoder|gemv|gemvl2 [--secs 1] [--kineto 30]
        [--barrier DIR --peers P] [--tag T] [--kernels FILE]
      closed loop of requests of the model's b1 CUDA graph (torch_graphs.py's request: pinned
      input -> device, graph replay, output -> host, synchronize). After P aggressors left
      DIR/ready.* and a 0.3 s warm-up: phase `plain`, --secs seconds without any profiler;
      then phase `kineto`, --kineto requests under torch.profiler (CUPTI, this process only).
      Each request's GPU span is taken by two timing events recorded INSIDE the graph (first
      and last node, `external` events), so it excludes the host's launch; in the kineto phase
      also from the trace: first kernel start to last kernel end, the kernels' summed time,
      and the summed time of the cuBLAS GEMV kernels. Touches DIR/stop, prints one CSV line
      per phase (columns: HEADER). --kernels FILE: the kineto phase's kernels (name cut to 60,
      grid, per request, median us) as CSV.
  mps_decoder_probe.py aggr --model decoder|gemv|gemvl2 --barrier DIR
      the same closed loop until DIR/stop exists (at most 120 s); prints on stderr
      "aggr MODEL req_per_s bytes_per_req" (bytes_per_req: the weights its GEMVs read, plus the
      KV cache for the decoder: what a request moves from DRAM at least).

Models: `decoder` = torch_graphs.py's Decoder at batch 1; `gemv` = only its Linear layers
(per layer qkv -> first third -> proj -> fc1 -> fc2, then head), the same cuBLAS GEMVs back to
back without the one-block elementwise kernels between them: the decoder's DRAM bursts at a
higher duty cycle; `gemvl2` = the same GEMV kernels (same grids) with layer 0's weights in all 8
layers and no head: 12.6 MB, which stay in the 50 MB L2, so its kernels launch the same blocks
as `gemv` but read (almost) nothing from DRAM (its bytes_per_req is printed as 0).
"""
import argparse
import json
import os
import statistics
import sys
import time

HEADER = ("tag,victim,phase,requests,req_per_s,host_p50_us,evspan_p50_us,evspan_p10_us,"
          "evspan_p90_us,kin_kernels,kin_span_p50_us,kin_ksum_p50_us,kin_gemv_p50_us")


def pct(v, p):
    if not v:
        return -1.0
    s = sorted(v)
    return s[min(len(s) - 1, int(p * len(s)))]


def kineto_requests(trace):
    """Per request (kernels between consecutive host-to-device copies): span, summed kernel
    time, summed GEMV time (us), kernel count; and per (name, grid) the durations."""
    ev = [e for e in trace.get("traceEvents", []) if e.get("ph") == "X"]
    cps = sorted(e["ts"] for e in ev if e.get("cat") in ("gpu_memcpy", "Memcpy")
                 and "HtoD" in e.get("name", ""))
    ks = sorted((e for e in ev if e.get("cat") in ("kernel", "Kernel")), key=lambda e: e["ts"])
    reqs, per = [], {}
    for i, t0 in enumerate(cps):
        t1 = cps[i + 1] if i + 1 < len(cps) else float("inf")
        mine = [k for k in ks if t0 <= k["ts"] < t1]
        if not mine:
            continue
        span = max(k["ts"] + k["dur"] for k in mine) - mine[0]["ts"]
        ksum = sum(k["dur"] for k in mine)
        gemv = sum(k["dur"] for k in mine if "gemv" in k["name"].lower())
        reqs.append((span, ksum, gemv, len(mine)))
        for k in mine:
            g = k.get("args", {}).get("grid", "")
            key = (k["name"][:60], "x".join(str(x) for x in g) if isinstance(g, list) else str(g))
            per.setdefault(key, []).append(k["dur"])
    return reqs, per


def summarize_phase(tag, model, phase, lat, evspan, secs, reqs):
    kin = ["", "", "", ""]
    if reqs:
        kin = [f"{statistics.median(r[3] for r in reqs):.0f}",
               f"{statistics.median(r[0] for r in reqs):.1f}",
               f"{statistics.median(r[1] for r in reqs):.1f}",
               f"{statistics.median(r[2] for r in reqs):.1f}"]
    return (f"{tag},{model},{phase},{len(lat)},{len(lat) / secs:.1f},{pct(lat, 0.5):.1f},"
            f"{pct(evspan, 0.5):.1f},{pct(evspan, 0.1):.1f},{pct(evspan, 0.9):.1f}," + ",".join(kin))


def build_graph(model_name):
    """The model's b1 graph with timing events recorded inside it; returns request(), bytes."""
    import torch
    import torch.nn as nn
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch_graphs as tg

    dec = tg.Decoder(1)
    lin = [m for m in dec.modules() if isinstance(m, nn.Linear)]
    nbytes = sum(m.weight.numel() * 4 for m in lin)
    if model_name == "decoder":
        model = dec
        nbytes += (dec.k.numel() + dec.v.numel()) * 4  # attention reads the whole cache
    else:
        l2 = model_name == "gemvl2"
        if l2:  # layer 0's weights (12.6 MB) in every layer, no head: they stay in the L2
            nbytes = 0

        class Gemv(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.d = d

            def forward(self, tok):
                d, x = self.d, self.d.emb(tok)
                for i in range(len(d.qkv)):
                    j = 0 if l2 else i
                    h = d.qkv[j](x)[:, :512]
                    x = d.fc2[j](d.fc1[j](d.proj[j](h)))
                return x if l2 else d.head(x)

        model = Gemv(dec)
    dev = torch.device("cuda")
    model = model.to(dev).eval()
    xh = torch.randint(0, 8192, (1,)).pin_memory()
    xd = torch.empty_like(xh, device=dev)
    try:
        e0 = torch.cuda.Event(enable_timing=True, external=True)
        e1 = torch.cuda.Event(enable_timing=True, external=True)
    except TypeError:
        sys.exit("this torch has no external CUDA events (needed inside the graph)")
    with torch.inference_mode():
        for _ in range(3):
            xd.copy_(xh, non_blocking=True)
            model(xd)
        torch.cuda.synchronize()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                model(xd)
        torch.cuda.current_stream().wait_stream(s)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            e0.record()
            yd = model(xd)
            e1.record()
        torch.cuda.synchronize()

    def request():
        with torch.inference_mode():
            xd.copy_(xh, non_blocking=True)
            g.replay()
            yd.to("cpu")
            torch.cuda.synchronize()
        return e0.elapsed_time(e1) * 1e3  # us

    return request, nbytes


def wait_peers(barrier, peers):
    t0 = time.time()
    while barrier and peers > 0:
        k = sum(1 for f in os.listdir(barrier) if f.startswith("ready"))
        if k >= peers:
            return
        if time.time() - t0 > 60:
            print(f"victim: only {k} of {peers} aggressors ready", file=sys.stderr)
            return
        time.sleep(0.02)


def victim(a):
    import torch
    request, _ = build_graph(a.model)
    for _ in range(20):
        request()
    wait_peers(a.barrier, a.peers)
    t0 = time.time()
    while time.time() - t0 < 0.3:
        request()
    lat, ev = [], []
    t_start = time.perf_counter()
    while time.perf_counter() - t_start < a.secs:
        h0 = time.perf_counter()
        ev.append(request())
        lat.append((time.perf_counter() - h0) * 1e6)
    secs = time.perf_counter() - t_start
    print(summarize_phase(a.tag, a.model, "plain", lat, ev, secs, []), flush=True)
    if a.kineto > 0:
        from torch.profiler import ProfilerActivity, profile
        lat, ev = [], []
        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
        prof.__enter__()
        for _ in range(5):  # CUPTI's first requests
            request()
        t_start = time.perf_counter()
        for _ in range(a.kineto):
            h0 = time.perf_counter()
            ev.append(request())
            lat.append((time.perf_counter() - h0) * 1e6)
        secs = time.perf_counter() - t_start
        prof.__exit__(None, None, None)
    if a.barrier:
        open(os.path.join(a.barrier, "stop"), "w").close()
    if a.kineto > 0:
        tmp = f"/tmp/mdp_{os.getpid()}.json"
        prof.export_chrome_trace(tmp)
        with open(tmp) as f:
            reqs, per = kineto_requests(json.load(f))
        os.remove(tmp)
        reqs = reqs[-a.kineto:]
        print(summarize_phase(a.tag, a.model, "kineto", lat, ev, secs, reqs), flush=True)
        if a.kernels:
            n = max(1, len(reqs) + 5)
            with open(a.kernels, "w") as f:
                f.write("kernel,grid,per_request,median_us\n")
                for (name, grid), d in sorted(per.items(), key=lambda kv: -sum(kv[1])):
                    f.write(f"\"{name}\",{grid},{len(d) / n:.1f},{statistics.median(d):.2f}\n")
    del torch


def aggr(a):
    request, nbytes = build_graph(a.model)
    for _ in range(20):
        request()
    t0 = time.time()
    while time.time() - t0 < 0.3:
        request()
    open(os.path.join(a.barrier, f"ready.{os.getpid()}"), "w").close()
    stop = os.path.join(a.barrier, "stop")
    n, t_start = 0, time.perf_counter()
    t_check = t_start
    while True:
        request()
        n += 1
        t = time.perf_counter()
        if t - t_check > 0.01:
            t_check = t
            if os.path.exists(stop) or t - t_start > 120:
                break
    print(f"aggr {a.model} {n / (t - t_start):.1f} {nbytes}", file=sys.stderr, flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["victim", "aggr", "header"])
    ap.add_argument("--model", default="decoder", choices=["decoder", "gemv", "gemvl2"])
    ap.add_argument("--secs", type=float, default=1.0)
    ap.add_argument("--kineto", type=int, default=30)
    ap.add_argument("--barrier", default=None)
    ap.add_argument("--peers", type=int, default=0)
    ap.add_argument("--tag", default="-")
    ap.add_argument("--kernels", default=None)
    a = ap.parse_args(argv)
    if a.mode == "header":
        print(HEADER)
    elif a.mode == "victim":
        victim(a)
    else:
        if not a.barrier:
            sys.exit("aggr needs --barrier")
        aggr(a)


if __name__ == "__main__":
    main()
