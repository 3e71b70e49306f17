#!/usr/bin/env python3
"""Where a lone MPS client's kernel time at 25% threads is too long in hqsim, by kernel class (FINDINGS.md §68).

  mps_pct_class_split.py GROWTH.csv [GROWTH.csv ...]

GROWTH.csv: harness/mps_pct_fixed_fit.py --per-kernel output (each kept kernel's time per launch at
100% and growth at 50 / 25%, measured and hqsim).  Per file and configuration: the kept kernels'
time per request at 100% (measured), their growth at 25% measured and hqsim's (time-weighted), and
hqsim's excess kernel time per request, µs; then the same per group: 'multi' (hqsim grows the
kernel by more than 1.3 at 25%: more than one wave, or saturated issue) or '1wave', and the class
of its name (bare_kernel_fit.py's, as hqsim's --bare-classes), largest excess first.
"""
import collections
import csv
import sys

from bare_kernel_fit import klass


def main(paths):
    if not paths:
        sys.exit(__doc__)
    print("file,config,group,kernels,meas_us_100,meas_growth_25,hqsim_growth_25,excess_us")
    for path in paths:
        rows = list(csv.DictReader(open(path)))
        for cfg in sorted({r["config"] for r in rows}):
            agg = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0])
            for r in rows:
                if r["config"] != cfg:
                    continue
                t = float(r["per_request"]) * float(r["meas_us_100"])
                mg, hg = float(r["meas_growth_25"]), float(r["hqsim_growth_25"])
                group = ("multi" if hg > 1.3 else "1wave") + "/" + klass(r["kernel"])
                for g in ("(all)", group):
                    a = agg[g]
                    a[0] += 1
                    a[1] += t
                    a[2] += t * mg
                    a[3] += t * hg
            for g, (n, t, m, h) in sorted(agg.items(), key=lambda x: (x[0] != "(all)", -(x[1][3] - x[1][2]))):
                print(f"{path},{cfg},{g},{n},{t:.0f},{m / t:.3f},{h / t:.3f},{h - m:+.0f}")


if __name__ == "__main__":
    main(sys.argv[1:])
