#!/usr/bin/env bash
# bench/adversarial.sh -- inputs under 1 MB built to ask for unbounded work
# (huge counts, nested repeats, a gzip bomb, absurd timestamps, deep
# nesting, endless time-slicing), then every file under 1 MB of the
# project's bad-input corpora (tests/data/malformed, tests/data/fuzz,
# tests/data/import), and the proof that hqsim answers each one within
# 1 GB, with its result or an error that names a limit -- never a hang, an
# abort or a crash -- and within 10 CPU s unless it says why: a run past
# 10 s of wall time prints "hqsim: still running after ..." on stderr
# (where it stands, what bounds it) and must still end (killed at 900 s).
#
#   bench/adversarial.sh [HQSIM]        (default build/hqsim)
#
# Prints one row per built input (exit status, wall and CPU seconds, peak
# RSS, the first line of its error), then the corpora's count and their slowest and
# largest cases; exits non-zero if any input breaks the rule.
set -u
H=$(realpath "${1:-build/hqsim}")
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/hqsim-adv-XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"

kernel='{"op":"kernel","name":"k","stream":"s","grid":1,"block":32,"duration_us":1}'
proc() { # name extra-process-fields ops
    printf '{"name":"%s",%s"streams":[{"name":"s"}],"ops":[%s]}' "$1" "$2" "$3"
}
scn() { printf '{"hqsim_scenario":1,"processes":[%s]}\n' "$1"; }

scn "$(proc a '"iterations":1000000000,' "$kernel")" > iterations.json
scn "$(proc a '' "{\"op\":\"repeat\",\"count\":100000000,\"ops\":[{\"op\":\"repeat\",\"count\":100000000,\"ops\":[$kernel]}]}")" > nested-repeat.json
scn "$(proc a '' '{"op":"repeat","count":100000000,"ops":[]}')" > empty-repeat.json
scn "$(proc a '"replicas":4096,"iterations":1000000,' "$kernel")" > replicas.json
scn "$(proc a '"arrivals":{"rate_per_s":1000000000,"count":100000000},' "$kernel")" > arrivals.json
scn "$(proc a '' '{"op":"kernel","name":"k","stream":"s","grid":[2147483647,65535,65535],"block":1024,"duration_us":1000000000000}')" > grid.json
scn "$(proc a '' '{"op":"kernel","name":"k","stream":"s","grid":[2147483647,65535,65535],"block":1024,"block_time_us":1000000000000}')" > grid-block-time.json
# two contexts time-slicing one endless kernel each: events grow with time
long='{"op":"kernel","name":"k","stream":"s","grid":100000,"block":1024,"duration_us":1000000000000}'
scn "$(proc a '' "$long"),$(proc b '' "$long")" > timeslice.json
scn "$(proc a '"iterations":2,' '{"op":"host_gap","duration_us":1000000000000}')" > sim-time.json
python3 - <<'PY'
import gzip, json
# a gzip bomb: 1 GB of spaces after a valid scenario, ~1 MB compressed
s = open('iterations.json').read()
with gzip.open('bomb.json.gz', 'wb', 9) as f:
    f.write(s.encode())
    for _ in range(1024):
        f.write(b' ' * (1 << 20))
open('values.json', 'w').write('[' + '0,' * 450000 + '0]')
# 50 million JSON values (a parsed value takes ~64 bytes), ~100 KB gzipped
with gzip.open('values.json.gz', 'wb', 9) as f:
    f.write(b'{"traceEvents":[' + b'0,' * 50000000 + b'0]}')
open('deep.json', 'w').write('[' * 500000 + ']' * 500000)
streams = ','.join('{"name":"s%d","count":100000}' % i for i in range(30000))
open('streams.json', 'w').write('{"hqsim_scenario":1,"processes":[{"name":"a","streams":[%s],"ops":[]}]}' % streams)
# traces with one absurd timestamp or duration
k = lambda ts, dur: ('{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":%s,"dur":%s,'
                     '"args":{"device":0,"stream":7,"correlation":1,"grid":[1,1,1],"block":[32,1,1]}}' % (ts, dur))
open('kineto-ts.json', 'w').write('{"traceEvents":[%s,%s]}' % (k(0, 1), k('1e17', 1)))
open('kineto-dur.json', 'w').write('{"traceEvents":[%s]}' % k(0, '1e17'))
head = ('"Start","Duration","Grid X","Grid Y","Grid Z","Block X","Block Y","Block Z",'
        '"Registers Per Thread","Static SMem","Dynamic SMem","Size","Throughput",'
        '"SrcMemType","DstMemType","Device","Context","Stream","Name","Correlation_ID"\n'
        'us,us,,,,,,,,KB,KB,KB,GB/s,,,,,,,\n')
row = lambda s, d: '%s,%s,80,2,1,256,1,1,32,0,0,,,,,"Tesla V100 (0)","1","13","k",1\n' % (s, d)
open('nvprof-ts.csv', 'w').write('==1== Profiling result:\n' + head + row(0, 1) + row('1e13', 1))
open('nvprof-many.csv', 'w').write('==1== Profiling result:\n' + head + ''.join(row(i * 10, 5) for i in range(12000)))
# 100 kernels of 1000 blocks x 40,000 iterations on the H100 (132 SMs):
# 4 M ops, under 'work', but 528 M kernel-to-SM placements
ks = ','.join('{"op":"kernel","name":"k","stream":"s","grid":1000,"block":128,"duration_us":10}' for _ in range(100))
open('placements.json', 'w').write('{"hqsim_scenario":1,"gpu":"h100-sxm","processes":[{"name":"a","iterations":40000,"streams":[{"name":"s"}],"ops":[%s]}]}' % ks)
PY
printf 'x' > fifo.json && rm fifo.json && mkfifo fifo.json

fail=0
# check NAME RC WALL RSS_KB ERRFILE CPU: the rule above, for one input.
# "10 s" is CPU seconds (user + system), so that a loaded machine does not
# fail an input for others' work; a wait (no CPU) past 60 s of wall time
# counts too, and a hang is killed at 900 s (exit 137: generous, since
# under a load of 12 on 2 cores a niced 24 CPU s run took over 300 s).
check() {
    local bad=""
    [ "$2" -ge 3 ] && bad="exit $2 (crash, abort or kill)"
    if awk -v w="$3" -v c="$6" 'BEGIN{exit !(c > 10 || w > 60)}' &&
        ! grep -q '^hqsim: still running after' "$5"; then
        bad="$bad over 10 s without saying why"
    fi
    [ "$(( ${4:-0} / 1024 ))" -gt 1024 ] && bad="$bad over 1 GB"
    [ -z "$bad" ] && return 0
    echo "  FAIL $1: $bad"
    fail=1
}
# hq ERRFILE ARGS...: run hqsim (stdout discarded, not -q: a long run's
# status lines are what it says); sets rc, wall, rss, cpu.
hq() {
    local err=$1
    shift
    /usr/bin/time -f '%e %M %U %S' -o time.txt timeout -s KILL 900 \
        "$H" "$@" > /dev/null 2> "$err"
    rc=$?
    read -r wall rss user sys < <(tail -1 time.txt)
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u + s}')
}

printf '%-22s %5s %6s %6s %8s  %s\n' input exit wall_s cpu_s rss_mb "error (first line)"
for f in *.json *.json.gz *.csv; do
    size=$(stat -c %s "$f")
    [ -p "$f" ] || [ "$size" -lt 1048576 ] || { echo "$f is not under 1 MB"; fail=1; }
    extra=""
    case $f in nvprof-many.csv) extra="--iterations 50" ;; esac
    hq err.txt run "$f" $extra
    msg=$(grep -m1 '^hqsim' err.txt | cut -c1-110)
    printf '%-22s %5s %6s %6s %8s  %s\n' "$f" "$rc" "$wall" "$cpu" \
        "$((${rss:-0} / 1024))" "$msg"
    check "$f" "$rc" "$wall" "$rss" err.txt "$cpu"
done

# The corpora: every file under 1 MB, run as `hqsim run FILE` (a MANIFEST
# or README is an input like any other).
n=0
: > corpora.txt
while IFS= read -r f; do
    [ "$(stat -c %s "$f")" -lt 1048576 ] || continue
    hq err.txt run "$f"
    n=$((n + 1))
    printf '%s %s %s %s %s\n' "$cpu" "$wall" "$rss" "$rc" "${f#"$SRC"/}" >> corpora.txt
    check "${f#"$SRC"/}" "$rc" "$wall" "$rss" err.txt "$cpu"
done < <(find "$SRC/tests/data/malformed" "$SRC/tests/data/fuzz" \
    "$SRC/tests/data/import" -type f | sort)
echo "corpora: $n files under 1 MB; most CPU (cpu_s wall_s rss_kb exit file):"
sort -rn corpora.txt | head -3 | sed 's/^/  /'
echo "largest peak RSS:"
sort -k3,3rn corpora.txt | head -3 | sed 's/^/  /'
[ $fail = 0 ] && echo "all inputs answered within 1 GB, and within 10 CPU s or saying why"
exit $fail
