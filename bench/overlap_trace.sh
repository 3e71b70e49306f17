#!/usr/bin/env bash
# bench/overlap_trace.sh HQSIM N OUT.csv -- a synthetic nvprof GPU trace of
# N kernels on 4 streams of one process that overlap all the time: the hard
# case for solo-time inference (README "Performance", bench/HISTORY.md).
#
# The "recording" is made by hqsim itself: a scenario of N kernels (33 to
# 264 blocks of 256 threads, 20 to 199 us alone, from a fixed linear
# congruential generator) issued round-robin on 4 streams is simulated, and
# its per-op CSV is written out as an nvprof --print-gpu-trace CSV.  Every
# recorded duration is then longer than the kernel's time alone (its
# co-runners slowed it), and the times alone that reproduce the recording
# exist: the generated ones.
set -eu
if [ $# -ne 3 ]; then
    echo "usage: $0 HQSIM N OUT.csv" >&2
    exit 2
fi
hqsim=$1 n=$2 out=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v n="$n" 'BEGIN {
    print "{\"hqsim_scenario\": 1, \"gpu\": \"h100-sxm\", \"processes\": [{"
    print "\"name\": \"overlap4\", \"streams\": [{\"name\": \"s{i}\", \"count\": 4}],"
    print "\"ops\": ["
    seed = 12345
    for (i = 0; i < n; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648
        grid = 33 + (seed % 8) * 33
        seed = (seed * 1103515245 + 12345) % 2147483648
        dur = 20 + (seed % 180)
        printf "%s{\"op\": \"kernel\", \"name\": \"kern%d\", \"stream\": \"s%d\", \"grid\": %d, \"block\": 256, \"regs_per_thread\": 32, \"duration_us\": %d}\n",
               i ? "," : "", i % 4, i % 4, grid, dur
    }
    print "]}]}"
}' >"$tmp/overlap4.json"
"$hqsim" run -q "$tmp/overlap4.json" --csv "$tmp/run.csv"
# CSV columns: process,stream,op,iteration,kind,name,context,queue,
# issue_us,start_us,end_us,duration_us,blocks,...
awk -F, 'NR == 1 {
    print "==1== NVPROF is profiling process 1, command: ./overlap4"
    print "==1== Profiling application: ./overlap4"
    print "==1== Profiling result:"
    print "\"Start\",\"Duration\",\"Grid X\",\"Grid Y\",\"Grid Z\",\"Block X\",\"Block Y\",\"Block Z\",\"Registers Per Thread\",\"Static SMem\",\"Dynamic SMem\",\"Size\",\"Throughput\",\"Device\",\"Context\",\"Stream\",\"Name\""
    print "us,us,,,,,,,,B,B,MB,GB/s,,,,"
    next
}
$5 == "kernel" {
    printf "%s,%s,%s,1,1,256,1,1,32,0,0,,,\"NVIDIA H100 80GB HBM3 (0)\",\"1\",\"%d\",\"%s\"\n",
           $10, $12, $13, 13 + substr($2, 2), $6
}' "$tmp/run.csv" >"$out"
