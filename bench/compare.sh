#!/usr/bin/env bash
# bench/compare.sh OLD NEW [RUNS] -- paired speed comparison of two hqsim
# binaries on the same workloads, so a regression shows in one run.
#
# OLD and NEW are hqsim binaries, or git revisions (HEAD~1, main, a hash),
# which are exported with `git archive` into a temporary folder and built
# there (the checkout is not touched).  Each workload runs OLD, NEW, OLD,
# NEW, ... RUNS times each (default 5), after one warm-up of each; per pair
# the ratio NEW/OLD of CPU time (user + sys: on a shared machine it moves
# less than wall time) is taken, and the median, min and max of the ratios
# are printed with each binary's median CPU seconds and peak memory.
# Ratios below 1: NEW is faster.  With hyperfine installed
# (HYPERFINE=1), hyperfine's own comparison is printed as well.
#
#   bench/compare.sh HEAD~1 build/hqsim
#   bench/compare.sh /tmp/hqsim-main build/hqsim 9
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 OLD NEW [RUNS]   (OLD/NEW: hqsim binary or git revision)" >&2
    exit 2
fi
cd "$(dirname "$0")/.."
runs=${3:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A binary, or a revision to build.
resolve() { # SPEC TAG
    if [ -x "$1" ] && [ -f "$1" ]; then
        readlink -f "$1"
        return
    fi
    local src=$tmp/src-$2
    mkdir -p "$src"
    git rev-parse --verify -q "$1^{commit}" >/dev/null ||
        { echo "$0: $1 is neither an executable nor a git revision" >&2; exit 2; }
    git archive "$1" | tar -x -C "$src"
    echo "building $1 in $src ..." >&2
    make -C "$src" -s -j"$(nproc)" all >&2
    echo "$src/build/hqsim"
}
OLD=$(resolve "$1" old)
NEW=$(resolve "$2" new)

"$NEW" gen --kernels 20000 --processes 8 --seed 3 -o "$tmp/many.json"
"$NEW" gen --kernels 4000 --processes 32 --seed 5 -o "$tmp/many32.json"
bash bench/overlap_trace.sh "$NEW" 5000 "$tmp/overlap4.csv"
own=traces/measured/h100/pytorch/torch_profile_trace.json.gz
workloads=(
    "run -q --mode timeslice $tmp/many.json"
    "run -q --mode mps $tmp/many.json"
    "run -q --mode mps $tmp/many32.json"
    "run -q $tmp/overlap4.csv"
    "compare -q $own --loop-request --iterations 30 --processes 8"
    "compare -q traces/default.json"
)

# One timed run: prints "CPU_SECONDS PEAK_KIB".
one() {
    # shellcheck disable=SC2086
    /usr/bin/time -f "%U %S %M" -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" ||
        { echo "$0: failed: $* ($(head -c 300 "$tmp/err"))" >&2; exit 1; }
    awk '{ printf "%.3f %d\n", $1 + $2, $3 }' "$tmp/t"
}

echo "paired comparison, $runs runs each (CPU s = user + sys; ratio = new / old):"
echo "  old: $OLD"
echo "  new: $NEW"
printf '  %-62s %9s %9s %7s %7s %7s %9s %9s\n' workload "old_cpu_s" "new_cpu_s" \
    ratio min max "old_KiB" "new_KiB"
for w in "${workloads[@]}"; do
    # shellcheck disable=SC2086
    { one "$OLD" $w; one "$NEW" $w; } >/dev/null # warm-up
    : >"$tmp/pairs"
    for ((i = 0; i < runs; i++)); do
        # shellcheck disable=SC2086
        echo "$(one "$OLD" $w) $(one "$NEW" $w)" >>"$tmp/pairs"
    done
    # columns: old_cpu old_kib new_cpu new_kib
    sort -n -k1,1 "$tmp/pairs" | awk '{ print $1 }' >"$tmp/oc"
    sort -n -k3,3 "$tmp/pairs" | awk '{ print $3 }' >"$tmp/nc"
    awk '{ print ($1 > 0 ? $3 / $1 : 0) }' "$tmp/pairs" | sort -g >"$tmp/r"
    med() { awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }' "$1"; }
    label=${w//$tmp\//}
    printf '  %-62.62s %9s %9s %7.3f %7.3f %7.3f %9s %9s\n' "$label" \
        "$(med "$tmp/oc")" "$(med "$tmp/nc")" "$(med "$tmp/r")" \
        "$(head -1 "$tmp/r")" "$(tail -1 "$tmp/r")" \
        "$(awk '{ print $2 }' "$tmp/pairs" | sort -n | tail -1)" \
        "$(awk '{ print $4 }' "$tmp/pairs" | sort -n | tail -1)"
    if [ -n "${HYPERFINE:-}" ] && command -v hyperfine >/dev/null; then
        hyperfine -N --runs "$runs" "$OLD $w" "$NEW $w" | sed 's/^/    /'
    fi
done
