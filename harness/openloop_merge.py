#!/usr/bin/env python3
"""openloop_merge.py PREDICTED.csv NEW.csv [OUT.csv]

Replace the rows of PREDICTED.csv (harness/openloop_predict.py's output) that NEW.csv (the same
command over a subset, e.g. --sharing mps,mps25,mps50) predicted again, keyed by config, sharing, n
and loop; every other row and the order are kept. Writes OUT.csv (default: PREDICTED.csv in place)
and prints how many rows were replaced and how many of those changed.
"""
import csv
import sys

KEY = ("config", "sharing", "n", "loop")


def main():
    a = sys.argv[1:]
    if len(a) not in (2, 3):
        sys.exit(__doc__.split("\n")[0])
    old = list(csv.DictReader(open(a[0])))
    new = {tuple(r[k] for k in KEY): r for r in csv.DictReader(open(a[1]))}
    head = list(old[0])
    replaced = changed = 0
    out = []
    for r in old:
        n = new.pop(tuple(r[k] for k in KEY), None)
        if n is not None:
            replaced += 1
            n = {k: n[k] for k in head}
            changed += n != r
            r = n
        out.append(r)
    if new:
        sys.exit(f"{a[1]}: {len(new)} rows not in {a[0]} (e.g. {next(iter(new))})")
    with open(a[2] if len(a) == 3 else a[0], "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=head, lineterminator="\n")
        w.writeheader()
        w.writerows(out)
    print(f"{replaced} rows replaced, {changed} changed")


if __name__ == "__main__":
    main()
