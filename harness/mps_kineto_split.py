#!/usr/bin/env python3
"""Where a lone MPS client's kernels lose time, from Kineto profiles of one program inside and outside MPS.

  mps_kineto_split.py CONFIG [CONFIG ...]      (e.g. decoder_b1_graph decoder_b16_graph)

Reads traces/measured/h100/launch/kineto/CONFIG.json.gz (own context) and kineto_mps/CONFIG.json.gz
(the only MPS client): the same program, so the i-th kernel of one is the i-th of the other (names
checked).  Each kernel after the first of a request (a gap over 20 us starts one) goes into a class
by its grid and its predecessor's (1 block or more) and, for a kernel of >= 2 blocks after a 1-block
one, by whether hqsim's w(d) is 0 (d <= 3, d its function's LRU distance: distinct other kernel
names since it last ran) or not.  Printed per class: kernels, mean change of the kernel's CUPTI
duration and of the gap before it (us, MPS minus own context), and their sum.  No fit: a reading of
the traces FINDINGS §31 uses (both recorded with the profiler on, 2026-11-25).
"""
import gzip
import json
import os
import statistics
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "traces/measured/h100/launch")
W_ZERO_UP_TO = 3


def kernels(d, cfg):
    t = json.load(gzip.open(os.path.join(ROOT, d, cfg + ".json.gz")))
    ev = t["traceEvents"] if isinstance(t, dict) else t
    return sorted((e for e in ev if e.get("cat") == "kernel"), key=lambda e: e["ts"])


def blocks(e):
    g = e["args"]["grid"]
    return g[0] * g[1] * g[2]


def split(cfg):
    a, b = kernels("kineto", cfg), kernels("kineto_mps", cfg)
    if len(a) != len(b):
        sys.exit("%s: %d kernels outside MPS, %d inside" % (cfg, len(a), len(b)))
    out, lru = {}, []
    for i, (x, y) in enumerate(zip(a, b)):
        if x["name"] != y["name"]:
            sys.exit("%s: kernel %d is %s outside MPS, %s inside" % (cfg, i, x["name"], y["name"]))
        n = x["name"]
        d = lru.index(n) if n in lru else 10 ** 9  # first use: never run
        if n in lru:
            lru.remove(n)
        lru.insert(0, n)
        if i == 0:
            continue
        ga = x["ts"] - (a[i - 1]["ts"] + a[i - 1]["dur"])
        gb = y["ts"] - (b[i - 1]["ts"] + b[i - 1]["dur"])
        if ga > 20 or gb > 20:
            continue
        wide, prev_wide = blocks(x) > 1, blocks(a[i - 1]) > 1
        if not wide:
            c = "1 block after %s" % ("a wide kernel" if prev_wide else "1 block")
        elif prev_wide:
            c = ">= 2 blocks after a wide kernel"
        else:
            c = ">= 2 blocks after 1 block; w(d) %s" % ("= 0" if d <= W_ZERO_UP_TO else "> 0")
        out.setdefault(c, []).append((y["dur"] - x["dur"], gb - ga))
    return out


print("config,class,kernels,kernel_change_us,gap_change_us,sum_us")
for cfg in sys.argv[1:]:
    for c, v in sorted(split(cfg).items()):
        k = statistics.mean(p[0] for p in v)
        g = statistics.mean(p[1] for p in v)
        print("%s,%s,%d,%+.3f,%+.3f,%+.3f" % (cfg, c, len(v), k, g, k + g))
