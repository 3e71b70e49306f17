#!/usr/bin/env python3
"""Fit the H100 model's sm_ilp_room_exponent on the ILP families alone.

Reads generalize/alone/i_ilp_ops.csv (the same FMA work at 1-32 warps per SM,
ILP 1, 2 and 4; FINDINGS.md §16, §34).  For each ILP family k the saturated
issue rate Ts_k (lone-warp speeds per SM) is the warps over the slowdown
against one warp per scheduler (4 warps per SM), averaged over the
saturated points (16 and 32 warps).  hqsim's curve takes a warp scheduler's
room for a second warp, Ts_k - L0 (L0 = sm_full_speed_warps, one warp per
scheduler), to shrink as ILP^-a from the ILP-1 curve's Ts - L0; a is fitted
by least squares of log((Ts_k - L0) / (Ts - L0)) on log k over ILP 2 and 4
(ILP 1 is the model's calibrated curve, ct_i1_*).

usage: python3 harness/fit_ilp_room.py [OPS_CSV] [MODEL_JSON]
"""
import csv
import json
import math
import sys

ops = sys.argv[1] if len(sys.argv) > 1 else \
    'traces/measured/h100/generalize/alone/i_ilp_ops.csv'
model = sys.argv[2] if len(sys.argv) > 2 else 'models/h100-sxm.json'
m = json.load(open(model))
L0, Ts = m['sm_full_speed_warps'], m['sm_saturation_warps']
solo = {}
for r in csv.DictReader(open(ops)):
    if r['type'] != 'kernel':
        continue
    warps = int(r['block']) // 32
    solo[(int(r['chains']), warps)] = float(r['solo_ns'])
print('ilp warps/SM slowdown(vs 4 warps)')
for (k, w), t in sorted(solo.items()):
    print(f'{k} {w:2d} {t / solo[(k, 4)]:.3f}')
xs, ys = [], []
for k in (2, 4):
    tk = [w / (solo[(k, w)] / solo[(k, 4)]) for w in (16, 32)]
    tsk = sum(tk) / len(tk)
    print(f'ILP {k}: saturated rate {tsk:.3f} lone-warp speeds per SM '
          f'(room {tsk - L0:.3f} of the ILP-1 curve\'s {Ts - L0:.3f})')
    xs.append(math.log(k))
    ys.append(math.log((tsk - L0) / (Ts - L0)))
a = -sum(x * y for x, y in zip(xs, ys)) / sum(x * x for x in xs)
print(f'sm_ilp_room_exponent a = {a:.3f}')
for k in (1, 2, 3, 4, 8):
    tsk = L0 + (Ts - L0) * k ** -a
    print(f'  ILP {k}: Ts_k {tsk:.3f}, a warp counts as {Ts / tsk:.3f} ILP-1 '
          f'warps')
