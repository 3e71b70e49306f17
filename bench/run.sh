#!/usr/bin/env bash
# make bench: the engine benchmark, then whole-command timings (load +
# simulate + report) of the largest bundled inputs.
set -eu
"$BUILD/bench/bench"
echo
echo "whole command, wall seconds (hqsim run ... -q):"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$HQSIM" gen --kernels 100000 -o "$tmp/many.json"
for f in "$tmp/many.json" traces/default.json; do
    /usr/bin/time -f "  %e s, %M KiB peak  $(basename "$f")" "$HQSIM" run -q "$f"
done
