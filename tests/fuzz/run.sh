#!/usr/bin/env bash
# Run the libFuzzer targets (tests/fuzz/fuzz_target.c).
#
#   tests/fuzz/run.sh DIR SECONDS [TARGET...]
#
# DIR holds the fuzz binaries (fuzz_<target>), their working corpora
# (DIR/corpus/<target>, kept between runs) and seeds gathered here from
# tests/data, traces/, models/ and ../shared/traces where they lie (copied
# into DIR only, never into the repository; SHARED_TRACES overrides where
# the shared traces are).  Each target first replays its
# regression inputs (tests/data/fuzz/<target>/: every past finding), then
# fuzzes for SECONDS under nice.  Exit status non-zero on any finding; the
# crashing input is left in DIR/findings/<target>/.  FUZZ_SEED (default 0:
# libFuzzer picks one) fixes the mutation sequence: `make fuzz-ci` uses 1,
# so CI explores, from its fresh corpus, a prefix of what a longer local
# run with the same seed and a fresh DIR already explored.
set -u
seed=${FUZZ_SEED:-0}
dir=$1; secs=$2; shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
targets=${*:-scenario run model detect nvprof nsys_csv nsys_sqlite ncu kineto}
shared=${SHARED_TRACES:-$src/../shared/traces}
seeds() { # target -> seed files, one per line
    case $1 in
    scenario|run) ls "$src"/traces/*.json "$src"/traces/teaching/*.json
                  ls "$src"/tests/data/malformed/scn-* ;;
    model) ls "$src"/models/*.json "$src"/tests/data/malformed/model-* ;;
    nvprof) ls "$src"/tests/data/import/nvprof* "$src"/tests/data/import/bad/nvprof*
            ls "$shared"/nvprof-*/*.csv ;;
    nsys_csv) ls "$src"/tests/data/import/nsys* "$src"/tests/data/import/bad/nsys*
              ls "$shared"/nsys-csv-*/* ;;
    nsys_sqlite) ls "$shared"/nsys-sqlite-*/*.sqlite ;;
    ncu) ls "$src"/tests/data/import/ncu* "$src"/tests/data/import/bad/ncu*
         ls "$shared"/ncu-*/* ;;
    kineto) ls "$src"/tests/data/import/kineto* "$src"/tests/data/import/bad/kineto*
            ls "$shared"/kineto-*/* ;;
    detect) for t in scenario nvprof nsys_csv ncu kineto; do seeds $t; done ;;
    esac 2>/dev/null | grep -v '/SOURCES.md$\|\.md$'
}
# Leaks in GLib/fontconfig caches are not findings (tests/lsan.supp).
export LSAN_OPTIONS="suppressions=$src/tests/lsan.supp"
export HQSIM_MODELS="$src/models"
failed=""
# Seconds of wall clock one input may take: a hang never ends, while a
# slow input on the shared 2-core machine under a load of 10 took 13 s
# of wall clock for 2.5 s of CPU, and one of 0.9 CPU s 34 s (niced).
timeout=60
for t in $targets; do
    bin=$dir/fuzz_$t
    mkdir -p "$dir/corpus/$t" "$dir/seeds/$t" "$dir/findings/$t"
    seeds $t | while read -r f; do
        # large seeds (> 1 MB) slow every mutation: leave them out
        [ "$(stat -c %s "$f")" -le 1048576 ] && cp -f "$f" "$dir/seeds/$t/"
    done
    dict=$src/tests/fuzz/$t.dict
    [ -f "$dict" ] || dict=$src/tests/fuzz/json.dict
    reg=$src/tests/data/fuzz/$t
    if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
        if ! "$bin" -timeout=$timeout -rss_limit_mb=2048 "$reg"/* >"$dir/$t.regress.log" 2>&1; then
            echo "FAIL: fuzz_$t on a regression input (see $dir/$t.regress.log)"
            failed="$failed $t"; continue
        fi
    fi
    if nice "$bin" -seed="$seed" -max_total_time="$secs" -timeout=$timeout -rss_limit_mb=2048 \
        -max_len=65536 -dict="$dict" -artifact_prefix="$dir/findings/$t/" \
        -print_final_stats=1 "$dir/corpus/$t" "$dir/seeds/$t" \
        >"$dir/$t.log" 2>&1; then
        printf 'fuzz_%-12s ok  %s\n' "$t" \
            "$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/$t.log" | grep -o '[0-9]*$') runs"
    else
        echo "FAIL: fuzz_$t found something (see $dir/$t.log, $dir/findings/$t/)"
        grep -m3 -E 'ERROR|runtime error|SUMMARY' "$dir/$t.log"
        failed="$failed $t"
    fi
done
[ -z "$failed" ]
