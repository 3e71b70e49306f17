#!/usr/bin/env bash
# The measurement harness (harness/, bench/): the scripts whose outputs the
# README's measured numbers come from must at least parse, and those with a
# mock or self-test mode must run it and give the numbers it implies.
#   - every Python script compiles (python3 -m py_compile, caches in a
#     temporary directory, so nothing is left in the tree);
#   - every shell script parses (bash -n);
#   - harness/mps_fend_rates.py --self-test passes;
#   - harness/chase_summary.py --self-test (harness/chase_campaign.sh --mock:
#     stand-ins for the GPU programs) recovers the mock's per-trip waits;
#   - harness/eager_clock_campaign.sh --mock (harness/openloop.py's mock
#     requests, no GPU, no torch) runs four groups, and
#     harness/eager_clock_summary.py sums a group's processes: two processes
#     serve about twice one (a mock eager request sleeps 1.8-2.6 ms).
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
    if python3 - "$tmp/sum.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
groups = [r["group"] for r in rows]
assert sorted(set(groups)) == ["g1_nomps_n1", "g2_mps_n1", "g3_nomps_n2", "g4_hold_n1"], groups
assert len(rows) == 16, len(rows)
thr = {(r["group"], r["config"]): float(r["thr_per_s"]) for r in rows}
# A mock request sleeps 2.0 x U(0.9, 1.3) ms (eager), 0.4 x U(0.9, 1.3) ms (graph, batch 1):
# at most 556 / 2778 requests/s a process. Sleeps overshoot on a loaded machine, so the floors
# are loose; what must hold is the ceiling and that a group's processes are summed.
for (g, c), t in thr.items():
    hi = 556 if c.endswith("eager") else 2778
    k = 2 if g.endswith("n2") else 1
    assert k * hi / 4 <= t <= k * hi, (g, c, t)
one, two = thr[("g1_nomps_n1", "decoder_b1_eager")], thr[("g3_nomps_n2", "decoder_b1_eager")]
assert 1.4 <= two / one <= 2.6, (one, two)
EOF
    then ok "eager_clock_campaign.sh --mock and its summary"
    else bad "eager_clock_campaign.sh --mock and its summary" "wrong numbers in $(cat "$tmp/sum.csv")"
    fi
else
    cat "$tmp/camp.log" "$tmp/sum.err" 2>/dev/null
    bad "eager_clock_campaign.sh --mock and its summary" "failed"
fi

echo "[==========] $((passed + failed)) tests ran."
echo "[  PASSED  ] $passed test(s)."
[ "$failed" -eq 0 ] || echo "[  FAILED  ] $failed test(s), listed above."
[ "$failed" -eq 0 ]
