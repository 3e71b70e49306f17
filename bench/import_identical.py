#!/usr/bin/env python3
"""bench/import_identical.py OLD NEW [--mutants N] [--seed S] [ROOT...]

Does a change of the importers leave every answer byte for byte the same?
Runs `hqsim import -q F -o OUT` with both binaries on every file under the
ROOTs (default: traces/, tests/ and ../shared/traces when it exists) and
on N random mutants (1-3 byte edits or a cut, or 1-3 members given
another value) of each JSON trace of at most
2 MB found there and of every file given by --mutate-from; compares stdout,
stderr, exit status and the written scenario.  Paths in the messages are
the same for both (the same input path, the output written to one name).
Prints each file that differs and a count; exit 0 only if none differs.

  python3 bench/import_identical.py /work/rc/hqsim-main build/hqsim
  python3 bench/import_identical.py OLD NEW --mutants 300
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile


def run(binary, path, out):
    if os.path.exists(out):
        os.remove(out)
    p = subprocess.run([binary, "import", "-q", path, "-o", out],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=600)
    data = b""
    if os.path.exists(out):
        with open(out, "rb") as f:
            data = f.read()
    return (p.returncode, p.stdout, p.stderr, data)


VALUES = [b"0", b"-1", b"1.5", b"1e3", b"null", b'"x"', b'"stream 3"',
          b"[1, 2]", b"[0, 1, 1]", b"{}", b"true", b"4294967296"]


def mutate(data, rng):
    b = bytearray(data)
    if rng.random() < 0.5:
        # a value of a random member replaced (errors the parser accepts)
        for _ in range(rng.randint(1, 3)):
            keys = [i for i in range(len(b) - 1) if b[i:i + 2] == b'":']
            if not keys:
                break
            i = rng.choice(keys) + 2
            j = i
            while j < len(b) and b[j] in b" \t":
                j += 1
            k = j
            depth = 0
            while k < len(b) and (depth or b[k] not in b",}]\n"):
                depth += (b[k] in b"[{") - (b[k] in b"]}")
                k += 1
            b[j:k] = rng.choice(VALUES)
        return bytes(b)
    if rng.random() < 0.2:
        return bytes(b[:rng.randrange(len(b))])
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(b))
        op = rng.random()
        if op < 0.4:
            b[i] = rng.choice(b'{}[],:"0123456789.-eE \n\\xa')
        elif op < 0.7:
            del b[i]
        else:
            b.insert(i, rng.choice(b'{}[],:"0123456789.-eE \n\\xa'))
    return bytes(b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("roots", nargs="*")
    ap.add_argument("--mutants", type=int, default=0,
                    help="random mutants per small JSON trace")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    roots = a.roots or [r for r in ("traces", "tests", "../shared/traces")
                        if os.path.isdir(r)]
    files = sorted(os.path.join(d, f) for r in roots
                   for d, _, fs in os.walk(r) for f in fs)
    rng = random.Random(a.seed)
    tmp = tempfile.mkdtemp(prefix="import-identical-")
    out = os.path.join(tmp, "out.json")
    differ = n = imported = 0
    jobs = [(f, None) for f in files]
    if a.mutants:
        for f in files:
            if (f.endswith(".json") and "traceEvents" in
                    open(f, "rb").read(4096).decode("latin-1")
                    and os.path.getsize(f) <= 2 << 20):
                jobs += [(f, k) for k in range(a.mutants)]
    for f, k in jobs:
        path = f
        if k is not None:
            with open(f, "rb") as fh:
                data = mutate(fh.read(), rng)
            path = os.path.join(tmp, "mutant.json")
            with open(path, "wb") as fh:
                fh.write(data)
        o = run(a.old, path, out)
        nw = run(a.new, path, out)
        n += 1
        imported += o[0] == 0
        if o != nw:
            differ += 1
            what = [w for w, x, y in zip(("status", "stdout", "stderr",
                                          "scenario"), o, nw) if x != y]
            print(f"DIFFERS: {f}{'' if k is None else f' mutant {k}'}: "
                  f"{', '.join(what)}")
    print(f"{n} inputs ({len(files)} files, {n - len(files)} mutants), "
          f"{imported} imported by OLD; {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
