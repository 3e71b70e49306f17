#!/usr/bin/env python3
"""When blocks beyond ~36 resident warps start: at the SM's tick, or when
blocks leave the SM (issue 10, FINDINGS.md §42).  Reads block records already
committed; standard library only.

    python3 harness/late_release.py [traces/measured/h100]

A wall-clock block of time T records its first warp's start s and its last
warp's end e, so its last warp started at e - T, and e - s - T (its excess) is
how long after its first warp its last warp started.  Per SM (physical SM ids:
one process only), blocks in start order; w = warps of the blocks that started
before it and had not ended (those running, a lower bound on the resident).

1. p_gw_gt_c_1p (mpsplace/: 5 us blocks of 8 warps and 10 us blocks of 8 warps
   refilling SMs as others leave): per w, the excess p50 / p90 / p99 / max, and
   for blocks whose last warp started > 3 us after its first, how long before
   that start a block had left the same SM (nearest end at or before it).
2. g_spread_nomps (dispatch/: 100 us blocks of 4 warps, two waves of 16 per
   SM; the second wave is placed as the first wave's blocks leave, 8 at one
   instant): the second wave's blocks that start > 2 us after the first free
   slot, and how their starts fall against the SM's ticks (2^15 SM cycles,
   16.549 us, phase read from the SM's first-wave late starts).
"""
import bisect
import collections
import csv
import gzip
import heapq
import os
import sys

TICK_NS = 2 ** 15 / 1980.0 * 1e3


def load(d, name):
    ops = {(o['process'], o['iteration'], o['op']): o
           for o in csv.DictReader(open(os.path.join(d, name + '_ops.csv')))}
    sms = collections.defaultdict(list)
    with gzip.open(os.path.join(d, name + '_blocks.csv.gz'), 'rt') as f:
        for b in csv.DictReader(f):
            o = ops[(b['process'], b['iteration'], b['op'])]
            sms[(b['process'], b['iteration'], b['smid'])].append(
                (int(b['start_ns']), int(b['end_ns']),
                 (int(o['block']) + 31) // 32, int(o['work']), o['name']))
    return sms


def q(v, p):
    return v[min(len(v) - 1, int(p * len(v)))]


def refill(d):
    sms = collections.defaultdict(list)
    for (_, _, sm), v in load(d, 'p_gw_gt_c_1p').items():
        sms[sm] += v
    ex = collections.defaultdict(list)
    gap = collections.defaultdict(collections.Counter)
    for v in sms.values():
        v.sort()
        ends = sorted(e for _, e, _, _, _ in v)
        h, run = [], 0
        for s, e, w, nom, _ in v:
            while h and h[0][0] <= s:
                run -= heapq.heappop(h)[1]
            x = e - s - nom
            ex[run].append(x / 1e3)
            if x > 3000:
                t = e - nom
                i = bisect.bisect_right(ends, t) - 1
                g = (t - ends[i]) / 1e3 if i >= 0 else float('inf')
                gap[run]['<0.5' if g < 0.5 else '0.5-3' if g < 3 else '>=3'] += 1
            heapq.heappush(h, (e, w))
            run += w
    print('1. p_gw_gt_c_1p: excess (us) of each block by warps running before it')
    print('| warps running | blocks | excess p50 / p90 / p99 / max | > 7 us | '
          'excess > 3 us: a block left the SM < 0.5 / 0.5-3 / >= 3 us before its last warp |')
    print('|---|---|---|---|---|')
    for w in sorted(ex):
        v = sorted(ex[w])
        g = gap[w]
        print('| %d | %d | %.2f / %.2f / %.2f / %.2f | %d | %d / %d / %d |' % (
            w, len(v), q(v, .5), q(v, .9), q(v, .99), v[-1],
            sum(x > 7 for x in v), g['<0.5'], g['0.5-3'], g['>=3']))


def burst(d):
    name = 'g_spread_nomps'
    late = collections.Counter()
    n2 = 0
    for v in load(d, name).values():
        v.sort()
        first_end = min(e for _, e, _, _, _ in v)
        wave1 = [b for b in v if b[0] < first_end]
        wave2 = [b for b in v if b[0] >= first_end]
        t0 = min(b[0] for b in wave1)
        # the SM's tick phase: its first late first-wave start (> 2 us)
        lates = [b[0] for b in wave1 if b[0] - t0 > 2000]
        if not lates:
            continue
        ph = lates[0]
        ends = sorted(e for _, e, _, _, _ in v)
        for s, e, w, nom, _ in wave2:
            n2 += 1
            i = bisect.bisect_right(ends, s) - 1
            since_free = s - ends[i]
            if since_free <= 2000:
                late['at once (< 2 us after a block left)'] += 1
                continue
            k = (s - ph) / TICK_NS
            off = abs(k - round(k)) * TICK_NS / 1e3
            late['late, within 1 us of a tick' if off < 1 else
                 'late, elsewhere'] += 1
    print('\n2. %s second wave (%d blocks): where each block starts' % (name, n2))
    for k in sorted(late):
        print('  %s: %d (%.1f%%)' % (k, late[k], 100.0 * late[k] / n2))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else 'traces/measured/h100'
    refill(os.path.join(root, 'mpsplace'))
    burst(os.path.join(root, 'dispatch'))


if __name__ == '__main__':
    main()
