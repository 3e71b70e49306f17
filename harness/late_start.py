#!/usr/bin/env python3
"""Fit the late starts of blocks beyond ~36 resident warps per SM (issue 11,
FINDINGS.md §14, §29) from one-wave dispatch block records.

    python3 harness/late_start.py traces/measured/h100/dispatch \
        dsp_b128_k12 dsp_b128_k16 [--show dsp_b256_k8 ...]

For each experiment (5 reps of one wave of 100 us timer blocks), each SM's
first-wave blocks are taken in start order; block i finds w_i = i x (warps
per block) warps resident before it (all are placed at the kernel's start).
Per w_i: the share of blocks that start late (> 0.12 tick after the
kernel's first block), and the quantiles of the start and of the end's
excess over 100 us, in ticks of 2^15 SM cycles at 1980 MHz.

Fitted on the experiments named first (the rest only shown with --show):
  sm_late_start_warps      the least w whose blocks start late in most cases
  sm_late_start_phase_min  a of a uniform [a, 1] phase: from the p10 of the
                           late blocks' starts, a = (p10 - 0.1) / 0.9
Standard library only.
"""
import collections
import csv
import gzip
import os
import sys

TICK_US = 2 ** 15 / 1980.0  # 16.549 us
LATE = 0.12                 # ticks: a start later than this is late


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))]


def by_warps(d, name):
    """{warps resident before: [(start, end excess) in ticks]}, warps/block"""
    ops = list(csv.DictReader(open(os.path.join(d, name + '_ops.csv'))))
    w = (int(ops[0]['block']) + 31) // 32
    reps = collections.defaultdict(list)
    with gzip.open(os.path.join(d, name + '_blocks.csv.gz'), 'rt') as f:
        for b in csv.DictReader(f):
            reps[(b['process'], b['iteration'])].append(b)
    out = collections.defaultdict(list)
    for bl in reps.values():
        t0 = min(int(b['start_ns']) for b in bl)
        first_end = min(int(b['end_ns']) for b in bl)
        sms = collections.defaultdict(list)
        for b in bl:
            if int(b['start_ns']) < first_end:  # the first wave
                sms[b['smid']].append((int(b['start_ns']) - t0,
                                       int(b['end_ns']) - t0))
        for v in sms.values():
            for i, (s, e) in enumerate(sorted(v)):
                out[i * w].append((s / 1e3 / TICK_US,
                                   (e / 1e3 - 100) / TICK_US))
    return out, w


def show(d, name):
    rows, w = by_warps(d, name)
    print('%s (%d warps per block)' % (name, w))
    print('  before  blocks  late   start p10/p50/p90    end excess p10/p50/p90')
    for wb in sorted(rows):
        v = rows[wb]
        s = [a for a, _ in v]
        e = [b for _, b in v]
        late = sum(1 for a in s if a > LATE) / len(v)
        print('  %6d  %6d  %4.2f   %4.2f %4.2f %4.2f       %4.2f %4.2f %4.2f' % (
            wb, len(v), late, q(s, .1), q(s, .5), q(s, .9),
            q(e, .1), q(e, .5), q(e, .9)))
    return rows


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    d = argv[1]
    names = argv[2:]
    extra = []
    if '--show' in names:
        i = names.index('--show')
        names, extra = names[:i], names[i + 1:]
    thresholds, p10s = [], []
    for n in names:
        rows = show(d, n)
        late_at = [wb for wb in sorted(rows)
                   if sum(1 for a, _ in rows[wb] if a > LATE) > len(rows[wb]) / 2]
        thresholds.append(late_at[0])
        # the blocks well beyond: every one of them late
        starts = [a for wb in late_at[1:] for a, _ in rows[wb]]
        p10s.append(q(starts, 0.1))
    for n in extra:
        show(d, n)
    p10 = sorted(p10s)[len(p10s) // 2]
    print('fitted on %s:' % ', '.join(names))
    print('  sm_late_start_warps %d (per experiment: %s)' % (
        min(thresholds), ', '.join(str(t) for t in thresholds)))
    print('  sm_late_start_phase_min %.2f (late starts p10 %s tick)' % (
        (p10 - 0.1) / 0.9, ', '.join('%.2f' % p for p in p10s)))
    print('  sm_late_start_tick_us %.3f (2^15 cycles at 1980 MHz)' % TICK_US)


if __name__ == '__main__':
    main(sys.argv)
