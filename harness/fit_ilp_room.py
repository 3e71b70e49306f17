#!/usr/bin/env python3
"""Fit the H100 model's ILP fields on the ILP families alone.

Reads generalize/alone/i_ilp_ops.csv (the same FMA work at 1-32 warps per SM,
ILP 1, 2 and 4; FINDINGS.md §16, §34) and the ILP-8 solo times of part M
(generalize/ilp_mix/m_i8_w*_ops.csv, solo_ns: 2 and 8 warps per SM alone;
§34 addendum).  For each ILP family k the saturated issue rate Ts_k
(lone-warp speeds per SM) is the warps over the slowdown against one warp
per scheduler (4 warps per SM; 2 for ILP 8, one block of 2 warps on two
schedulers), averaged over the saturated points (16 and 32 warps; 8 for
ILP 8, which saturates at two warps per scheduler: 8 + 8 warps ran at the
rate of 4 + 4).  These are sm_ilp_saturation_warps (ILP 2, 4, 8).

The older rule, sm_ilp_room_exponent a (used by models without the table):
the room beyond one warp per scheduler, Ts_k - L0, shrinks as ILP^-a from the
ILP-1 curve's Ts - L0; a by least squares over ILP 2 and 4.

usage: python3 harness/fit_ilp_room.py [OPS_CSV] [MODEL_JSON] [ILP8_OPS_CSV]
"""
import csv
import json
import math
import sys

ops = sys.argv[1] if len(sys.argv) > 1 else \
    'traces/measured/h100/generalize/alone/i_ilp_ops.csv'
model = sys.argv[2] if len(sys.argv) > 2 else 'models/h100-sxm.json'
ops8 = sys.argv[3] if len(sys.argv) > 3 else \
    'traces/measured/h100/generalize/ilp_mix/m_i8_w8_ops.csv'
ops8b = ops8.replace('m_i8_w8', 'm_i8_w2')
m = json.load(open(model))
L0, Ts = m['sm_full_speed_warps'], m['sm_saturation_warps']
solo = {}
for path in (ops, ops8, ops8b):
    for r in csv.DictReader(open(path)):
        if r['type'] != 'kernel':
            continue
        warps = int(r['block']) // 32
        solo[(int(r['chains']), warps)] = float(r['solo_ns'])
print('ilp warps/SM slowdown(vs one warp per scheduler)')
for (k, w), t in sorted(solo.items()):
    print(f'{k} {w:2d} {t / solo[(k, 4 if k < 8 else 2)]:.3f}')
table = []
xs, ys = [], []
for k, ref, sat in ((2, 4, (16, 32)), (4, 4, (16, 32)), (8, 2, (8,))):
    tk = [w / (solo[(k, w)] / solo[(k, ref)])
          for w in sat]
    tsk = sum(tk) / len(tk)
    table.append(round(tsk, 3))
    print(f'ILP {k}: saturated rate {tsk:.3f} lone-warp speeds per SM '
          f'(a warp counts as {Ts / tsk:.3f} ILP-1 warps)')
    if k in (2, 4):
        xs.append(math.log(k))
        ys.append(math.log((tsk - L0) / (Ts - L0)))
print(f'sm_ilp_saturation_warps = {table}')
a = -sum(x * y for x, y in zip(xs, ys)) / sum(x * x for x in xs)
print(f'sm_ilp_room_exponent a = {a:.3f} (ILP 8 by it: a warp counts as '
      f'{Ts / (L0 + (Ts - L0) * 8 ** -a):.3f} ILP-1 warps)')

# What parts M's and N's pairs did while both ran (nothing here is fitted on them):
# the kernel that ends first ran at its solo time over its duration; the
# other did its solo time less the time it ran alone after that, over the
# overlap (medians of the repetitions).  Pairs that overlapped for less
# than half the first one's time (the second waited for room) are left out.
import glob
import os
import statistics
mix_dir = os.path.dirname(ops8)
print('parts M, N: rate of each kernel (its speed alone = 1) while both ran')
for path in sorted(glob.glob(os.path.join(mix_dir, 'm_*_ops.csv')) +
                   glob.glob(os.path.join(mix_dir, 'n_*_ops.csv'))):
    reps = {}
    for r in csv.DictReader(open(path)):
        if r['type'] == 'kernel':
            reps.setdefault(r['iteration'], []).append(r)
    first_rates, other_rates, names = [], [], None
    for rs in reps.values():
        if len(rs) != 2:
            continue
        a, b = sorted(rs, key=lambda r: int(r['end_ns']))
        s0 = max(int(a['start_ns']), int(b['start_ns']))
        overlap = int(a['end_ns']) - s0
        after = int(b['end_ns']) - int(a['end_ns'])
        if overlap < 0.5 * int(a['duration_ns']):
            continue
        first_rates.append(float(a['solo_ns']) / int(a['duration_ns']))
        other_rates.append((float(b['solo_ns']) - after) / overlap)
        names = (f"{a['name']}", f"{b['name']}")
    if names:
        print(f'  {os.path.basename(path)[:-8]:14s} first {names[0]:8s} '
              f'{statistics.median(first_rates):.3f}, other {names[1]:8s} '
              f'{statistics.median(other_rates):.3f}')
