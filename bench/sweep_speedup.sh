#!/usr/bin/env bash
# The sweep speed-up table of the README: one sweep run serially, on the
# default thread pool, and as 2 MPI ranks, RUNS times each (default 3);
# prints the wall times and checks that the three CSVs are identical.
#   bash bench/sweep_speedup.sh [RUNS]
set -eu
HQSIM=${HQSIM:-build/hqsim}
runs=${1:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(traces/default.json --processes 1-9 --thread-pct equal,100
      --slo-p99-ms 20 --slo-throughput 2000 -q)
for r in $(seq 1 "$runs"); do
    for v in threads1 default mpi2; do
        s=$(date +%s.%N)
        case $v in
        threads1) "$HQSIM" sweep "${args[@]}" --csv "$tmp/$v.csv" --threads 1 ;;
        default) "$HQSIM" sweep "${args[@]}" --csv "$tmp/$v.csv" ;;
        mpi2)
            command -v mpirun >/dev/null || { echo "mpi2: mpirun not installed"; continue; }
            mpirun --allow-run-as-root --oversubscribe -np 2 \
                "$HQSIM" sweep "${args[@]}" --csv "$tmp/$v.csv" ;;
        esac
        e=$(date +%s.%N)
        awk -v v="$v" -v r="$r" -v s="$s" -v e="$e" 'BEGIN { printf "%-9s run %d: %6.1f s\n", v, r, e - s }'
    done
done
for v in default mpi2; do
    [ -f "$tmp/$v.csv" ] || continue
    cmp -s "$tmp/threads1.csv" "$tmp/$v.csv" && echo "$v: CSV identical to --threads 1" \
        || { echo "$v: CSV DIFFERS from --threads 1"; exit 1; }
done
