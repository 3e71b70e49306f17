#!/usr/bin/env bash
# The measurement harness (harness/, bench/): the scripts whose outputs the
# README's measured numbers come from must at least parse, and those with a
# mock or self-test mode must run it and give the numbers it implies.
#   - every Python script compiles (python3 -m py_compile, caches in a
#     temporary directory, so nothing is left in the tree);
#   - every shell script parses (bash -n);
#   - harness/mps_fend_rates.py --self-test passes;
#   - harness/l2_summary.py --self-test (the survival fit recovers a made-up
#     curve);
#   - harness/chase_summary.py --self-test (harness/chase_campaign.sh --mock:
#     stand-ins for the GPU programs) recovers the mock's per-trip waits;
#   - harness/eager_clock_campaign.sh --mock (harness/openloop.py's mock
#     requests, no GPU, no torch) runs four groups, and
#     harness/eager_clock_summary.py sums a group's processes (each group's
#     throughput recomputed from the raw records: independent of timing, which
#     a loaded machine stretches);
#   - harness/serving_campaign.sh --mock (two groups, no profiles, ncu --dry) and
#     harness/openloop_summary.py --all-arrivals: the rows, the mock's
#     ceilings, the lone process's spread and every open phase's arrivals.
# Prints cmocka's summary lines, which tests/run_all.sh counts.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "[       OK ] $1"; }
bad() { failed=$((failed + 1)); echo "[  FAILED  ] $1: $2"; }

# one interpreter for all (a start-up per script costs more than the compile)
if PYTHONPYCACHEPREFIX=$tmp/pyc python3 - "$src"/harness/*.py "$src"/bench/*.py \
        "$src"/tests/*.py >"$tmp/err" 2>&1 <<'PY'
import py_compile, sys
bad = []
for f in sys.argv[1:]:
    try:
        py_compile.compile(f, doraise=True)
    except py_compile.PyCompileError as e:
        bad.append(f)
        print(e.msg)
print(len(sys.argv) - 1, "scripts; broken:", *bad)
sys.exit(1 if bad else 0)
PY
then ok "python scripts compile ($(tail -1 "$tmp/err" | cut -d' ' -f1))"
else cat "$tmp/err"; bad "python scripts compile" "$(tail -1 "$tmp/err")"
fi

n=0 broken=
for f in "$src"/harness/*.sh "$src"/bench/*.sh "$src"/.ci/run "$src"/.ci/deps; do
    n=$((n + 1))
    bash -n "$f" 2>"$tmp/err" || broken="$broken ${f#"$src"/}"
done
[ -z "$broken" ] && ok "shell scripts parse ($n)" || { cat "$tmp/err"; bad "shell scripts parse" "$broken"; }

if python3 "$src/harness/mps_fend_rates.py" --self-test >"$tmp/fend.log" 2>&1; then
    ok "mps_fend_rates.py --self-test"
else
    cat "$tmp/fend.log"; bad "mps_fend_rates.py --self-test" "failed"
fi

if python3 "$src/harness/l2_summary.py" --self-test >"$tmp/l2.log" 2>&1; then
    ok "l2_summary.py --self-test"
else
    cat "$tmp/l2.log"; bad "l2_summary.py --self-test" "failed"
fi

if python3 "$src/harness/chase_summary.py" --self-test >"$tmp/chase.log" 2>&1; then
    ok "chase_summary.py --self-test"
else
    cat "$tmp/chase.log"; bad "chase_summary.py --self-test" "failed"
fi

# eager_clock_campaign.sh in mock mode, then its summary
if (cd "$tmp" && RAW=$tmp/raw DUR=0.2 SEQ="nomps:1 mps:1 nomps:2 hold:1" \
        bash "$src/harness/eager_clock_campaign.sh" "$tmp/out" --mock) >"$tmp/camp.log" 2>&1 &&
   mkdir -p "$tmp/x" && tar xzf "$tmp/out/eagerclock.tar.gz" -C "$tmp/x" &&
   python3 "$src/harness/eager_clock_summary.py" "$tmp/x" "$tmp/sum.csv" >/dev/null 2>"$tmp/sum.err"; then
    if python3 - "$tmp/sum.csv" "$tmp/x" <<'EOF'
import csv, glob, json, os, sys
rows = list(csv.DictReader(open(sys.argv[1])))
groups = [r["group"] for r in rows]
assert sorted(set(groups)) == ["g1_nomps_n1", "g2_mps_n1", "g3_nomps_n2", "g4_hold_n1"], groups
assert len(rows) == 16, len(rows)
thr = {(r["group"], r["config"]): float(r["thr_per_s"]) for r in rows}
# A group's throughput is the sum of its processes' own rates (requests over the span each timed),
# recomputed here from the raw records: timing-independent, so it holds on a loaded machine.
for (g, c), t in thr.items():
    want = 0.0
    for f in sorted(glob.glob(os.path.join(sys.argv[2], g + "_p*.json"))):
        ph = [q for q in json.load(open(f))["phases"] if q["cfg"] == c][0]
        want += len(ph["lat_us"]) / ((ph["t_last"] - ph["t_go"]) / 1e9)
    assert abs(t - want) <= 0.051, (g, c, t, want)
    # A mock request sleeps 2.0 x U(0.9, 1.3) ms (eager), 0.4 x U(0.9, 1.3) ms (graph, batch 1):
    # at most 556 / 2778 requests/s a process (sleeps only overshoot, so no floor but > 0).
    hi = 556 if c.endswith("eager") else 2778
    k = 2 if g.endswith("n2") else 1
    assert 0 < t <= k * hi, (g, c, t)
assert len(glob.glob(os.path.join(sys.argv[2], "g3_nomps_n2_p*.json"))) == 2
EOF
    then ok "eager_clock_campaign.sh --mock and its summary"
    else bad "eager_clock_campaign.sh --mock and its summary" "wrong numbers in $(cat "$tmp/sum.csv")"
    fi
else
    cat "$tmp/camp.log" "$tmp/sum.err" 2>/dev/null
    bad "eager_clock_campaign.sh --mock and its summary" "failed"
fi

# serving_campaign.sh in mock mode (no profiles, ncu --dry: the steps' tarballs hold their logs; the
# campaign exits 0 only when every step did), then openloop_summary.py with every
# phase's arrivals: two groups of one graph and one eager configuration
if (cd "$tmp" && WORK=$tmp/serve DUR=0.1 GROUPS_RUN="nomps:1 mps:2" \
        CONFIGS=decoder:1:graph,decoder:1:eager NCU_CFGS="decoder 1 graph" \
        bash "$src/harness/serving_campaign.sh" "$tmp/sout" --mock) >"$tmp/serve.log" 2>&1 &&
   tar tzf "$tmp/sout/kineto.tar.gz" | grep -q 'profile.log$' &&
   tar tzf "$tmp/sout/ncu.tar.gz" | grep -q 'ncuraw.tar.gz$' &&
   mkdir -p "$tmp/sx" && tar xzf "$tmp/sout/openloop.tar.gz" -C "$tmp/sx" &&
   python3 "$src/harness/openloop_summary.py" "$tmp/sx" "$tmp/ssum.csv" --samples "$tmp/ss.json" \
       --arrivals "$tmp/sarr" --all-arrivals >/dev/null 2>"$tmp/ssum.err"; then
    if python3 - "$tmp/ssum.csv" "$tmp/ss.json" "$tmp/sarr" <<'EOF2'
import csv, json, os, sys
rows = list(csv.DictReader(open(sys.argv[1])))
keys = sorted((r["sharing"], r["n"], r["config"], r["loop"]) for r in rows)
want = sorted((s, n, c + "_" + m, l) for s, n in (("nomps", "1"), ("mps", "2")) for c in ("decoder_b1",)
              for m, loops in (("graph", ("closed", "open0.5", "open0.8")), ("eager", ("closed", "open0.8")))
              for l in loops)
assert keys == want, keys
# mock requests sleep 0.4 (graph, batch 1) or 2.0 (eager) ms x U(0.9, 1.3): the closed ceilings
# (no floor: sleeps overshoot on a loaded machine)
for r in rows:
    if r["loop"] == "closed":
        hi = 2778 if r["config"].endswith("graph") else 556
        assert 0 < float(r["throughput_per_s_per_process"]) <= hi, r
assert sorted(json.load(open(sys.argv[2]))) == ["decoder_b1_eager", "decoder_b1_graph"]
arr = sorted(os.listdir(sys.argv[3]))
assert len(arr) == 6 and "mps_n2_decoder_b1_eager_open0.8.json" in arr, arr
two = json.load(open(os.path.join(sys.argv[3], "mps_n2_decoder_b1_graph_open0.5.json")))["processes"]
assert len(two) == 2 and all(len(p) > 0 for p in two), [len(p) for p in two]
EOF2
    then ok "serving_campaign.sh --mock and openloop_summary.py --all-arrivals"
    else bad "serving_campaign.sh --mock and openloop_summary.py --all-arrivals" "wrong rows in $(cat "$tmp/ssum.csv")"
    fi
else
    cat "$tmp/serve.log" "$tmp/ssum.err" 2>/dev/null
    bad "serving_campaign.sh --mock and openloop_summary.py --all-arrivals" "failed"
fi

echo "[==========] $((passed + failed)) tests ran."
echo "[  PASSED  ] $passed test(s)."
[ "$failed" -eq 0 ] || echo "[  FAILED  ] $failed test(s), listed above."
[ "$failed" -eq 0 ]
