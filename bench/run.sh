#!/usr/bin/env bash
# make bench: the engine benchmark, then whole-command timings (load +
# simulate + report) of the largest bundled inputs, each with the issue's
# target beside it (issue 12; not a test: nothing passes or fails).
#
#   BENCH_BASE=OLD_HQSIM|REV make bench   also a paired comparison of the
#                                         binary against OLD (or against
#                                         REV built from git: HEAD~1)
#   BENCH_TRACE_KERNELS=1000000 make bench   the size of the synthetic
#                                         overlapping trace (default 1e5)
set -eu
# Benchmarks are meant to be big: above the default limits (README "Bad
# input, limits and fuzzing").
BIG="--limit ops=100M --limit work=100M --limit events=10G --limit placements=100G"
"$BUILD/bench/bench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# "%e s wall, %U s user, %M KiB peak  LABEL  [target]"; with SAVE=F also
# "wall user KiB" into F (for the split of a trace's run below)
timed() {
    local label=$1 target=$2
    shift 2
    /usr/bin/time -f "  %e s wall, %U s user, %M KiB peak  $label  [$target]" \
        -o "$tmp/timed" "$@" >/dev/null
    cat "$tmp/timed"
    [ -z "${SAVE:-}" ] || awk '{ gsub(/,/, ""); print $1, $4, $7 }' \
        "$tmp/timed" >"$SAVE"
}
# A trace's run split into its parts, from the timed import, --as-recorded
# run (import + one simulation) and run (import + solo-time inference,
# whose best round is the result): user s of each difference, and the
# run's wall time and peak memory against the issue's target.  From 50,000
# timed ops on, the rest of the inference is its sample's windows (README
# "Solo-time inference: settled rounds and a sample"): the result is one
# whole simulation.
run_split() {
    local label=$1
    awk -v label="$label" '
    FNR == 1 { f++ } { w[f] = $1; u[f] = $2; m[f] = $3 }
    END {
        peak = m[1] > m[2] ? m[1] : m[2]; peak = peak > m[3] ? peak : m[3]
        printf "  %s: run %.2f s wall, %.2f user s, %.0f MB peak = import %.2f + one simulation %.2f + the rest of the inference %.2f user s  [< 5 s, < 1 GB at 10^6 kernels]\n",
               label, w[3], u[3], peak / 1024, u[1], u[2] - u[1], u[3] - u[2]
    }' "$tmp/t.import" "$tmp/t.asrec" "$tmp/t.run"
}
echo
echo "whole command (hqsim run ... -q):"
"$HQSIM" gen --kernels 100000 -o "$tmp/many.json"
for f in "$tmp/many.json" traces/default.json; do
    timed "run $(basename "$f")" "" "$HQSIM" run -q $BIG "$f"
done

echo
echo "traces: import + solo-time inference + simulate + summary:"
n=${BENCH_TRACE_KERNELS:-100000}
bash bench/overlap_trace.sh "$HQSIM" "$n" "$tmp/overlap4.csv"
timed "run overlap4.csv: $n nvprof kernels, 4 overlapping streams" \
    "10^6 kernels < 5 s, < 1 GB" "$HQSIM" run -q $BIG "$tmp/overlap4.csv"
timed "the same --as-recorded (no inference)" "" \
    "$HQSIM" run -q $BIG --as-recorded "$tmp/overlap4.csv"
# The same size in each format (bench/big_trace.py: 4 overlapping
# streams; nsys as CSV and as an SQLite export), import + simulate, and
# import alone (a Kineto trace is read one event at a time: memory is its
# text and the ops kept); then the run split into its parts.
for fmt in nvprof nsys sqlite kineto; do
    case $fmt in
    kineto) f=$tmp/big.json ;;
    sqlite) f=$tmp/big.sqlite ;;
    *) f=$tmp/big-$fmt.csv ;;
    esac
    python3 bench/big_trace.py "$fmt" "$n" "$f"
    SAVE=$tmp/t.run timed "run $fmt: $n kernels" "10^6 kernels < 5 s, < 1 GB" \
        "$HQSIM" run -q $BIG "$f"
    SAVE=$tmp/t.asrec timed "run $fmt --as-recorded (import + one simulation)" \
        "10^6 kernels < 5 s, < 1 GB" "$HQSIM" run -q $BIG --as-recorded "$f"
    # its grids are multiples of 33: 1 SM in 3 or 11 keeps them whole
    timed "the same --sm-sample 11 (approximate: README \"Sampled SMs\")" \
        "10^6 kernels < 5 s, < 1 GB" "$HQSIM" run -q $BIG --as-recorded \
        --sm-sample 11 "$f"
    timed "run $fmt --sm-sample 11 (solo-time inference and run sampled)" \
        "10^6 kernels < 5 s, < 1 GB" "$HQSIM" run -q $BIG --sm-sample 11 "$f"
    SAVE=$tmp/t.import timed "import $fmt: $n kernels" "" \
        "$HQSIM" import -q $BIG "$f" -o /dev/null
    run_split "$fmt, $n kernels, 4 streams"
    rm -f "$f"
done
# One stream: each kernel alone on the GPU (3 events a kernel, against
# about 85 beside the other streams' kernels), so the cost is per kernel
# and per SM it spreads over, not per block.
f=$tmp/one.csv
python3 bench/big_trace.py nvprof "$n" "$f" 1
SAVE=$tmp/t.run timed "run nvprof: $n kernels, 1 stream" \
    "10^6 kernels < 5 s, < 1 GB" "$HQSIM" run -q $BIG "$f"
SAVE=$tmp/t.asrec timed "the same --as-recorded" "" \
    "$HQSIM" run -q $BIG --as-recorded "$f"
SAVE=$tmp/t.import timed "import of the same" "" \
    "$HQSIM" import -q $BIG "$f" -o /dev/null
run_split "nvprof, $n kernels, 1 stream"
rm -f "$f"

# Simulated seconds per CPU second (user + system of the command) of the
# README's PyTorch case: resnet18 x 8 processes under MPS, 300 iterations,
# --host-scale 0.372 (makespan from the JSON summary).  M = 1: every SM
# (exact); M > 1: the approximate sampled-SM model (--sm-sample M, README
# "Sampled SMs"; its error against M = 1 in bench/sm_sample_check.py);
# M = 132, one SM of the H100, stands for the floor of any approximate
# SM-level model that keeps the engine's host and launch events, and
# --iterations 1 for the command's fixed part (import, solo-time
# inference): README Performance, "How far can an approximate model go?".
# W > 0: the approximate model of whole requests (--request-model W, README
# "Whole requests"; its error against the exact run in
# bench/reqmodel_check.py).
own=traces/measured/h100/pytorch/torch_profile_trace.json.gz
for run in "300 1 0" "300 12 0" "300 132 0" "1 1 0" "300 1 8" "300 1 32"; do
    set -- $run
    rm=()
    [ "$3" -gt 0 ] && rm=(--request-model "$3")
    s0=$(date +%s.%N)
    /usr/bin/time -f "%U %S" -o "$tmp/cpu" "$HQSIM" run -q $BIG "$own" \
        --loop-request --host-scale 0.372 --processes 8 --mode mps \
        --iterations "$1" --sm-sample "$2" "${rm[@]}" --json "$tmp/mps8.json"
    s1=$(date +%s.%N)
    cpu=$(awk 'END { print $1 + $2 }' "$tmp/cpu")
    awk -v t0="$s0" -v t1="$s1" -v c="$cpu" -v M="$2" -v I="$1" -v W="$3" '
    /"makespan_ms"/ && ms == "" { gsub(/[^0-9.]/, "", $2); ms = $2 }
    /"events"/ && ev == "" { gsub(/[^0-9]/, "", $2); ev = $2 }
    END {
        how = W > 0 ? sprintf("--request-model %d", W) : sprintf("--sm-sample %d", M)
        printf "  resnet18 x 8 MPS --host-scale 0.372, %d iterations, %s: %.3f s simulated, %d events, %.2f CPU s (%.2f wall): %.2f simulated s per CPU s  [>= 10]\n",
               I, how, ms / 1000, ev, c, t1 - t0, (ms / 1000) / c
    }' "$tmp/mps8.json"
done
timed "compare $(basename $own) --loop-request --iterations 300 --processes 8" \
    "" "$HQSIM" compare -q $BIG "$own" --loop-request --iterations 300 --processes 8
# Kernels with DRAM demand under MPS (resnet50 b1 graph with its Nsight
# Compute DRAM throughputs, 2 clients; harness/openloop_predict.py's
# closed-loop command): every DRAM pressure change moves the context's DRAM
# clock (engine_dram.c); it retimed every SM holding a DRAM group before.
h=traces/measured/h100
timed "run cnn_b1_graph + ncu --processes 2 --mode mps --iterations 30" "" \
    "$HQSIM" run -q $BIG $h/launch/kineto/cnn_b1_graph.json.gz \
    $h/mpspct/ncu/cnn_b1_graph.csv.gz --loop-request --host-scale 0.0517 \
    --request-spread $h/openloop/spread/cnn_b1_graph.json --processes 2 \
    --mode mps --iterations 30 --seed 1

# Real traces.  The shared ones are read where they lie (two of them may
# not be copied into the project).
echo
echo "real traces (import + simulate + summary):"
shared=${HQSIM_SHARED_TRACES:-../shared/traces}
if [ -d "$shared" ]; then
    for f in "$shared"/nvprof-titanxp-um/print-gpu-trace.csv \
             "$shared"/kineto-v100-resnet50-2021/*.json.gz \
             "$shared"/nsys-sqlite-a100-cloverleaf/*.sqlite; do
        [ -f "$f" ] || continue
        timed "run $(basename "$f")" "" "$HQSIM" run -q $BIG "$f"
        timed "compare $(basename "$f") --processes 4" "" \
            "$HQSIM" compare -q $BIG "$f" --processes 4
    done
else
    echo "  ($shared not found: shared traces skipped)"
fi

if [ -n "${BENCH_BASE:-}" ]; then
    echo
    bash bench/compare.sh "$BENCH_BASE" "$HQSIM"
fi
