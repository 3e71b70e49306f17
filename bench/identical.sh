#!/usr/bin/env bash
# bench/identical.sh OLD NEW [WORKDIR] -- do two hqsim binaries give the same
# answers, byte for byte?  A performance change must not move a number.
#
# Runs every case below with OLD and then NEW, each case writing its stdout,
# stderr, exit status and output files (JSON, CSV, Markdown) into its own
# folder, and diffs the two trees case by case.  Prints one line per case
# that differs and a count; exit 0 only if every case is identical.
#
# Cases: every bundled scenario (traces/*.json, traces/teaching/*.json) run
# and compared; the measured H100 experiments (`validate`); the H100 PyTorch
# traces (run, replay, a looped 8-process comparison); every shared trace
# in ../shared/traces (replay, run, a 4-process comparison) when that folder
# exists; synthetic workloads from `hqsim gen`; a small sweep.
#
#   bench/identical.sh /tmp/hqsim-main build/hqsim
#   QUICK=1 bench/identical.sh ...   skips the slowest cases
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 OLD_HQSIM NEW_HQSIM [WORKDIR]" >&2
    exit 2
fi
OLD=$(readlink -f "$1")
NEW=$(readlink -f "$2")
for b in "$OLD" "$NEW"; do
    [ -x "$b" ] || { echo "$0: $b is not an executable" >&2; exit 2; }
done
cd "$(dirname "$0")/.."
WORK=${3:-$(mktemp -d)}
mkdir -p "$WORK"
[ -n "${3:-}" ] || trap 'rm -rf "$WORK"' EXIT

# One case per line: NAME<TAB>ARGS.  In ARGS, @D is the case's output
# folder (the same path shape for both binaries, so paths printed in the
# outputs compare equal).
cases=()
add() { cases+=("$1"$'\t'"$2"); }

GEN=$WORK/gen
mkdir -p "$GEN"
"$NEW" gen --kernels 20000 --processes 8 --seed 3 -o "$GEN/many.json"
"$NEW" gen --kernels 4000 --processes 32 --seed 5 -o "$GEN/many32.json"
"$NEW" gen --kind big-grid --blocks 3000000 -o "$GEN/big.json"
# A 4-stream trace that overlaps: the solo-time inference must converge.
if [ -x bench/overlap_trace.sh ]; then
    bash bench/overlap_trace.sh "$NEW" 2000 "$GEN/overlap4.csv"
fi

for f in traces/*.json traces/teaching/*.json; do
    n=$(basename "$f" .json)
    add "run-$n" "run $f --json @D/out.json --csv @D/out.csv"
    add "compare-$n" "compare $f --json @D/out.json --csv @D/out.csv"
    add "mps8-$n" "run $f --mode mps --processes 8 --json @D/out.json"
done
for f in "$GEN"/many.json "$GEN"/many32.json "$GEN"/big.json; do
    n=$(basename "$f" .json)
    add "gen-compare-$n" "compare $f --json @D/out.json --csv @D/out.csv"
done
add "gen-thread-pct-many32" \
    "run $GEN/many32.json --mode mps --thread-pct 30 --json @D/out.json --csv @D/out.csv"
# The other placement policies and other GPUs (pre-Volta MPS on k40).
for pl in fill-first round-robin; do
    sed "s/\"placement\": *\"most-free\"/\"placement\": \"$pl\"/" \
        models/h100-sxm.json >"$GEN/h100-$pl.json"
    add "gen-$pl" "compare $GEN/many32.json --gpu $GEN/h100-$pl.json --json @D/out.json --csv @D/out.csv"
done
for g in a100 v100 k40 t4; do
    add "gen-$g" "compare $GEN/many.json --gpu $g --json @D/out.json"
done
[ -f "$GEN/overlap4.csv" ] &&
    add "overlap4-replay" "replay $GEN/overlap4.csv" &&
    add "overlap4-run" "run $GEN/overlap4.csv --json @D/out.json --csv @D/out.csv"
add "validate-h100" "validate traces/measured/h100 --markdown @D/acc.md"
add "sweep-default" \
    "sweep traces/default.json --processes 1-6 --modes timeslice,mps --threads 1 --csv @D/sweep.csv --json @D/sweep.json"
own=traces/measured/h100/pytorch
for t in "$own"/torch_profile_trace.json.gz "$own"/torch_multistream_trace.json.gz \
         "$own"/torch_profile_mps_trace.json.gz; do
    [ -f "$t" ] || continue
    n=$(basename "$t" .json.gz)
    add "replay-$n" "replay $t"
    add "replay-rec-$n" "replay --as-recorded $t"
    add "run-$n" "run $t --json @D/out.json --csv @D/out.csv"
done
# Kernels with DRAM demand (Nsight Compute's DRAM Throughput) under MPS:
# every pressure change moves the context's DRAM clock (engine_dram.c).
h=traces/measured/h100
add "ncu-cnn_b1_graph-mps2" \
    "run $h/launch/kineto/cnn_b1_graph.json.gz $h/mpspct/ncu/cnn_b1_graph.csv.gz --loop-request --host-scale 0.0517 --request-spread $h/openloop/spread/cnn_b1_graph.json --processes 2 --mode mps --iterations 10 --seed 1 --json @D/out.json"
if [ -z "${QUICK:-}" ]; then
    add "loop8-torch_profile" \
        "compare $own/torch_profile_trace.json.gz --loop-request --iterations 30 --processes 8 --json @D/out.json"
fi
shared=${HQSIM_SHARED_TRACES:-../shared/traces}
if [ -d "$shared" ]; then
    for d in "$shared"/*/; do
        n=$(basename "$d")
        files=$(find "$d" -maxdepth 1 -type f ! -name '*.md' | sort | tr '\n' ' ')
        [ -n "$files" ] || continue
        add "shared-replay-$n" "replay $files"
        add "shared-run-$n" "run $files --json @D/out.json --csv @D/out.csv"
        [ -z "${QUICK:-}" ] &&
            add "shared-compare4-$n" "compare $files --processes 4 --json @D/out.json"
    done
else
    echo "($shared not found: shared traces skipped)" >&2
fi

# Both binaries run from the project root with the same arguments; @D is
# a scratch folder whose files are then moved into the case's folder.
ROOT=$PWD
run_all_in_root() { # BIN TAG
    local bin=$1 tag=$2
    for c in "${cases[@]}"; do
        local name=${c%%$'\t'*} args=${c#*$'\t'}
        local d=$WORK/$tag/$name
        mkdir -p "$d" "$WORK/out"
        # shellcheck disable=SC2086
        HQSIM_PROGRESS=0 "$bin" ${args//@D/$WORK/out} \
            >"$d/stdout.txt" 2>"$d/stderr.txt"
        echo $? >"$d/status.txt"
        mv "$WORK"/out/* "$d"/ 2>/dev/null
        rmdir "$WORK/out"
    done
}

echo "identical.sh: ${#cases[@]} cases, old $OLD, new $NEW" >&2
for tag in old new; do
    bin=$OLD
    [ $tag = new ] && bin=$NEW
    rm -rf "${WORK:?}/$tag"
    mkdir -p "$WORK/$tag"
    (cd "$ROOT" && run_all_in_root "$bin" $tag)
done

same=0
differ=0
for c in "${cases[@]}"; do
    name=${c%%$'\t'*}
    # stderr may hold timings (none today) or the binary's own path: diff
    # everything but say which file differs.
    if diff -r -q "$WORK/old/$name" "$WORK/new/$name" >/dev/null; then
        same=$((same + 1))
    else
        differ=$((differ + 1))
        echo "DIFFERS: $name ($(diff -r -q "$WORK/old/$name" "$WORK/new/$name" |
            sed 's|.*/\([^/ ]*\) differ$|\1|' | tr '\n' ' '))"
    fi
done
files=$(find "$WORK/new" -type f | wc -l)
failed=$(grep -Lx 0 "$WORK"/new/*/status.txt | wc -l)
echo "identical.sh: $same of ${#cases[@]} cases identical ($files files compared), $differ differ; $failed cases exit non-zero (with both binaries if identical)"
[ $differ -eq 0 ]
