#!/usr/bin/env python3
"""Where a queued kernel's blocks go when it follows a draining wave (issue 11).

Reads one experiment's block records (BLOCKS.csv.gz: process, iteration, op,
block, smid, start_ns, end_ns) for a kernel WAITER queued behind a kernel
AHEAD on the same SMs, and prints per iteration:

  - the frees AHEAD's own pending blocks took last (free time, start, SM):
    its blocks go to the SMs in the order they free;
  - the frees nobody of AHEAD took before WAITER's first block started
    (time, SM): the SMs with more room than their neighbours;
  - WAITER's blocks in block-index order (the dispatcher's order) as
    block:SM(blocks that SM got in all); F marks an SM holding fewer AHEAD
    blocks when WAITER started than the others (a freed slot);
  - how many blocks each SM got, against how many AHEAD blocks it held.

FINDINGS.md §30 reads j_sgemm_fma1 and j_behind_sgemm with it.

usage: fit_first.py BLOCKS.csv.gz WAITER_OP AHEAD_OP [--show N]
  e.g. fit_first.py traces/measured/h100/generalize/first/\
j_sgemm_fma1_blocks.csv.gz 1 0
"""
import argparse
import collections
import csv
import gzip


def load(path):
    runs = collections.defaultdict(list)
    with gzip.open(path, 'rt') as f:
        for r in csv.DictReader(f):
            runs[(r['process'], r['iteration'])].append(
                (int(r['op']), int(r['block']), int(r['smid']),
                 int(r['start_ns']), int(r['end_ns'])))
    return runs


def one(rows, waiter, ahead, show):
    t0 = min(r[3] for r in rows)
    us = lambda t: (t - t0) / 1e3  # noqa: E731
    w = sorted((b, sm, us(s)) for op, b, sm, s, e in rows if op == waiter)
    a = [(sm, us(s), us(e)) for op, b, sm, s, e in rows if op == ahead]
    first = min(x[2] for x in w)
    # AHEAD blocks started after the waiter's arrival window: which free
    # each took (the latest end on its SM before its start)
    late = []
    for sm, s, e in a:
        if first - 30 < s < first + 30:
            prev = max((e2 for sm2, s2, e2 in a if sm2 == sm and e2 <= s + 0.05),
                       default=None)
            if prev is not None:
                late.append((prev, s, sm))
    late.sort()
    resident = collections.Counter(sm for sm, s, e in a if s <= first < e)
    usual = collections.Counter(resident.values()).most_common(1)[0][0]
    ends = collections.defaultdict(int)
    starts = collections.defaultdict(int)
    last_end = {}
    for sm, s, e in a:
        if first - 30 < e <= first + 1:
            ends[sm] += 1
            last_end[sm] = max(last_end.get(sm, 0), e)
        if first - 30 < s <= first + 1:
            starts[sm] += 1
    unrep = sorted((last_end[sm], sm) for sm in ends if ends[sm] > starts[sm])
    got = collections.Counter(sm for b, sm, t in w)
    print('  %s took its last frees (free us, start us, SM):' % 'AHEAD',
          ', '.join('(%.2f, %.2f, %d)' % x for x in late[-4:]))
    print('  frees not taken before the waiter started at %.2f us: %s' %
          (first, ', '.join('(%.2f, %d)' % x for x in unrep[:8]) or 'none'))
    print('  waiter in block order: ' + ' '.join(
        '%d:%d(%d%s)' % (b, sm, got[sm], 'F' if resident[sm] < usual else '')
        for b, sm, t in w[:show]))
    tab = collections.Counter((resident[sm], got[sm])
                              for sm in set(resident) | set(got))
    print('  SMs by (AHEAD blocks resident, waiter blocks got): ' + ', '.join(
        '(%d, %d): %d' % (k[0], k[1], n) for k, n in sorted(tab.items())))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('blocks')
    ap.add_argument('waiter', type=int)
    ap.add_argument('ahead', type=int)
    ap.add_argument('--show', type=int, default=30)
    a = ap.parse_args()
    for (p, it), rows in sorted(load(a.blocks).items()):
        print('process %s iteration %s' % (p, it))
        one(rows, a.waiter, a.ahead, a.show)


if __name__ == '__main__':
    main()
