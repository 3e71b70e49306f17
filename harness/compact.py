#!/usr/bin/env python3
"""Copy a post-processed measurement folder, leaving out what makes it large.

  python3 harness/compact.py SRC DST [--max-blocks-kib 16]

post.py writes every block of every kernel (`*_blocks.csv.gz`) and every timed API call
(`latency/latency*.csv`); a calibrated GPU's folder needs neither: `hqsim validate` replays
ops (`*_ops.csv`) and uses blocks only with --measured-block-times, and harness/fit.py reads
summary.json, manifest.json and the ops of a few experiments. Blocks files up to
--max-blocks-kib are kept; the manifest drops the files it no longer has and says so in
"dataset". The raw tarballs stay where they are (outside the repository).
"""
import argparse
import json
import os
import re
import shutil
import sys

DROP = [re.compile(r"^latency/latency\w*\.csv$")]


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--max-blocks-kib", type=float, default=4)
    a = ap.parse_args(argv)
    dropped = []
    for root, _, files in os.walk(a.src):
        for fn in files:
            p = os.path.join(root, fn)
            rel = os.path.relpath(p, a.src)
            big_blocks = rel.endswith("_blocks.csv.gz") and os.path.getsize(p) > a.max_blocks_kib * 1024
            if big_blocks or any(r.match(rel) for r in DROP) or rel == "manifest.json":
                if rel != "manifest.json":
                    dropped.append(rel)
                continue
            os.makedirs(os.path.dirname(os.path.join(a.dst, rel)), exist_ok=True)
            shutil.copy2(p, os.path.join(a.dst, rel))
    with open(os.path.join(a.src, "manifest.json")) as f:
        text = f.read()
    man = json.loads(text)
    gone = set(dropped)
    for e in man["experiments"]:
        fl = e.get("files", {})
        for k in [k for k, v in fl.items() if isinstance(v, str) and v in gone]:
            del fl[k]
    man["dataset"] = (man.get("dataset", "") + f" Compacted by harness/compact.py: left out {len(dropped)} files "
                      f"(blocks files over {a.max_blocks_kib:g} KiB, per-call latency rows; the numbers are in "
                      f"summary.json); rerun harness/post.py on the raw tarballs for them.").strip()
    # post.py's layout: one line per op and per stream list
    stash = []

    def one_line(o):
        stash.append(json.dumps(o, separators=(", ", ": "), ensure_ascii=False))
        return f"@@{len(stash) - 1}@@"
    for e in man["experiments"]:
        for pat in e.get("patterns", {}).values():
            pat["ops"] = [one_line(o) for o in pat["ops"]]
            pat["streams"] = one_line(pat["streams"])
    txt = re.sub(r'"@@(\d+)@@"', lambda m: stash[int(m[1])], json.dumps(man, indent=1, ensure_ascii=False))
    with open(os.path.join(a.dst, "manifest.json"), "w") as f:
        f.write(txt + "\n")
    print(f"compact.py: {a.dst}: left out {len(dropped)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
