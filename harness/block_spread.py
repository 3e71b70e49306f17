#!/usr/bin/env python3
"""Fit sm_block_end_spread from one kernel's block records (issue 11).

Blocks of one kernel placed together on an SM (the first wave: started
within --window ns of the kernel's first block) end at different times.
For every SM holding the most common number c >= 2 of such blocks, their
ends (from the kernel's start) over the last one's give a profile
phi_0 <= ... <= phi_{c-1} = 1; the script prints the mean profile over SMs
and iterations and the least-squares s of hqsim's profile (sim/engine_sm.c,
early_left): block j ends at (1 - s + 2 s j / (c - 1)) of a block's time,
so over the last one's phi_j = (1 - s + 2 s j / (c - 1)) / (1 + s).

usage: block_spread.py BLOCKS.csv.gz OP [--window NS]
  e.g. block_spread.py traces/measured/h100/generalize/alone/\
i_p_sgemm_blocks.csv.gz 0
"""
import argparse
import collections
import csv
import gzip


def profiles(path, op, window):
    """Per (process, iteration, SM): the first wave's sorted end fractions."""
    runs = collections.defaultdict(list)
    with gzip.open(path, 'rt') as f:
        for r in csv.DictReader(f):
            if int(r['op']) == op:
                runs[(r['process'], r['iteration'])].append(
                    (int(r['smid']), int(r['start_ns']), int(r['end_ns'])))
    out = []
    for blocks in runs.values():
        t0 = min(b[1] for b in blocks)
        per_sm = collections.defaultdict(list)
        for sm, start, end in blocks:
            if start - t0 <= window:
                per_sm[sm].append(end - t0)
        for ends in per_sm.values():
            if len(ends) >= 2:
                ends.sort()
                out.append([e / ends[-1] for e in ends])
    return out


def fit(profs):
    """The most common c, the mean profile at c, and the least-squares s."""
    c = collections.Counter(len(p) for p in profs).most_common(1)[0][0]
    at = [p for p in profs if len(p) == c]
    mean = [sum(p[j] for p in at) / len(at) for j in range(c)]
    def err(s):
        return sum(((1 - s + 2 * s * j / (c - 1)) / (1 + s) - m) ** 2
                   for j, m in enumerate(mean))
    s = min((i / 1000 for i in range(1000)), key=err)  # 0.001 steps
    return c, len(at), mean, s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('blocks')
    ap.add_argument('op', type=int)
    ap.add_argument('--window', type=int, default=2000,
                    help='ns after the first block that count as placed '
                    'together (default 2000)')
    a = ap.parse_args()
    c, n, mean, s = fit(profiles(a.blocks, a.op, a.window))
    print('blocks per SM %d (%d SMs x iterations); mean end profile %s; '
          'sm_block_end_spread %.2f'
          % (c, n, ' '.join('%.2f' % m for m in mean), s))


if __name__ == '__main__':
    main()
