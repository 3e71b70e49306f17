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

# Real traces: import + simulate + report.  The shared ones are read where
# they lie (two of them may not be copied into the project).
echo
echo "real traces, wall seconds (import + simulate + summary):"
own=traces/measured/h100/pytorch/torch_profile_trace.json.gz
bench_cmd() {
    local label=$1
    shift
    /usr/bin/time -f "  %e s, %M KiB peak  $label" "$@" >/dev/null
}
bench_cmd "run $(basename $own)" "$HQSIM" run -q "$own"
bench_cmd "compare $(basename $own) --loop-request --iterations 300 --processes 8" \
    "$HQSIM" compare -q "$own" --loop-request --iterations 300 --processes 8
shared=../shared/traces
if [ -d "$shared" ]; then
    for f in "$shared"/nvprof-titanxp-um/print-gpu-trace.csv \
             "$shared"/kineto-v100-resnet50-2021/*.json.gz \
             "$shared"/nsys-sqlite-a100-cloverleaf/*.sqlite; do
        [ -f "$f" ] || continue
        bench_cmd "run $(basename "$f")" "$HQSIM" run -q "$f"
        bench_cmd "compare $(basename "$f") --processes 4" \
            "$HQSIM" compare -q "$f" --processes 4
    done
else
    echo "  ($shared not found: shared traces skipped)"
fi
