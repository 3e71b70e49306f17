#!/bin/bash
# Is an MPS neighbour's DRAM traffic paid per kernel or per dependent memory round trip?
# (hqsim issue 10, FINDINGS §64, §67.) The victim is harness/chase.cu: kernels whose threads
# follow K dependent pointers (K = 16, 64, 256 round trips in sequence), two shapes (16 x 128
# threads like the encoder's attention kernel; one 128-thread block per SM), each launched 200
# times between CUDA events, in two passes: through 8 MiB walked the same way every launch
# (served by L2 once warm: "l2") and through 1 GiB from a new place every launch (DRAM: "dram").
# Groups, one after another (the victim runs CHASE_DUR s, its configurations repeated):
#   nomps        the victim alone, no MPS daemon
#   then as MPS clients (daemon pipe/log under /tmp, quit here):
#   p50_alone    the victim at 50% threads alone           (and p50_alone_b, a repeat)
#   p50_<kind>   beside one graphbench neighbour at 50%: gfast (launches, no memory
#                traffic), gl2 (the same launches reading an 8 MiB buffer: L2), gdramt32 / gdram / gdramt512 (the same launches reading DRAM at
#                ~111 / ~355 / ~900 GB/s on the H100, §54)         (and p50_gdram_b)
#   p100_alone, p100_gdram   the same at 100% threads
# Before the MPS groups: Nsight Compute of the victim's K = 256 DRAM kernels alone (DRAM
# throughput, issue slots, duration: ncu.csv). The neighbours are started 3 s before the
# victim and must still be running when it ends ("alive" lines in info.txt).
#   harness/chase_campaign.sh OUTDIR [--mock]   -> OUTDIR/chase.tar.gz
# --mock: stand-ins for chase, graphbench and ncu (no GPU): the tarball has the layout, the
# victim's numbers are made up (a per-trip wait that grows with the neighbour's kind), for
# harness/chase_summary.py's self-check (tests/test_harness.sh).
set -u
OUTDIR=${1:?outdir}; MOCK=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/mps_lib.sh"
RAW=/tmp/chaseraw.$$; rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR"
MPSDIR=/tmp/chase_mps.$$; MPSON=0; PIDS=()
DUR=${CHASE_DUR:-3}
LEAD=3; SETTLE=2 # s: a neighbour's start before the victim; a killed client's server-side teardown
[ -n "$MOCK" ] && { LEAD=0; SETTLE=0; }
ARGS=(--ks 16,64,256 --shapes 16x128,132x128 --iters 200)
PASSES=("--mib 8 --fresh 0" "--mib 1024 --fresh 1") # l2, dram
CH=$HERE/bin/chase; GB=$HERE/bin/graphbench
if [ -n "$MOCK" ]; then
  mock_chase() { # the victim's JSON lines: 0.6 us a trip alone (0.3 from L2), +x a trip beside
    # a neighbour (DRAM; 2x from L2: the neighbour takes some of the victim's L2 lines)
    local tag= x=0 k s mib=1024 fresh=1; while [ $# -gt 0 ]; do
      case $1 in --tag) tag=$2;; --mib) mib=$2;; --fresh) fresh=$2;; esac; shift; done
    case $tag in *gdramt512*) x=0.5;; *gdramt32*) x=0.1;; *gdram*) x=0.25;; esac
    for k in 16 64 256; do for s in 16x128 132x128; do
      awk -v t="$tag" -v k="$k" -v s="$s" -v x="$x" -v mib="$mib" -v f="$fresh" 'BEGIN { split(s, b, "x");
        m = 2 + k * (f ? 0.6 + x : 0.3 + 2 * x); printf "{\"tag\": \"%s\", \"round\": 0, \"mib\": %d, \"fresh\": %d, \"k\": %d, \"blocks\": %d, \"threads\": %d, \"iters\": 200, \"median_us\": %.3f, \"p10_us\": %.3f, \"p90_us\": %.3f, \"ns_per_trip\": %.2f}\n", t, mib, f, k, b[1], b[2], m, m * 0.98, m * 1.02, m * 1000 / k }'
    done; done
  }
fi
run_chase() { # PCT ARGS...: the victim (or its stand-in) at PCT% threads ('' : not set)
  local p=$1; shift
  [ -n "$MOCK" ] && { mock_chase "$@"; return; }
  if [ -n "$p" ]; then CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$p timeout 90 "$CH" "$@"; else timeout 90 "$CH" "$@"; fi
}
run_nb() { # PCT KIND OUT: one graphbench neighbour (or a sleeping stand-in) until killed
  # exec: the background job's pid is the neighbour's own, so the kill below reaches it
  [ -n "$MOCK" ] && exec sleep 30
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$1
  # shellcheck disable=SC2046
  exec timeout 120 "$GB" loop $(mps_lib_gargs "$2" 100000) --out "$3"
}
finish() {
  mps_lib_stop
  date -u >> "$RAW/info.txt"
  tar czf "$OUTDIR/chase.tar.gz" -C "$RAW" .
  rm -rf "$RAW" "$MPSDIR"
}
trap finish EXIT
trap 'exit 143' TERM INT
if [ -z "$MOCK" ]; then
  mkdir -p "$HERE/bin"
  nvcc -O3 -arch=sm_90 -o "$CH" "$HERE/chase.cu" || exit 1
  nvcc -O3 -arch=sm_90 -o "$GB" "$HERE/graphbench.cu" || exit 1
  mps_lib_info 1 ncu > "$RAW/info.txt" 2>&1
else
  mps_lib_info 0 > "$RAW/info.txt"
fi
echo "command: harness/chase_campaign.sh OUTDIR $MOCK (CHASE_DUR=$DUR) victim: ${ARGS[*]}" >> "$RAW/info.txt"
victim() { # TAG [PCT]: the victim's two passes, DUR s each; its JSON lines in RAW/TAG.jsonl
  local tag=$1 p=${2:-} pass
  : > "$RAW/$tag.jsonl"
  for pass in "${PASSES[@]}"; do
    # shellcheck disable=SC2086
    run_chase "$p" "${ARGS[@]}" $pass --dur-s "$DUR" --tag "$tag" >> "$RAW/$tag.jsonl" 2>> "$RAW/$tag.err"
    echo "victim $tag ($pass) rc $? lines $(wc -l < "$RAW/$tag.jsonl")" >> "$RAW/info.txt"
  done
}
group() { # PCT KIND [SUFFIX]: the victim at PCT beside one KIND neighbour (none: alone)
  local p=$1 k=$2 tag=p$1_$2${3:-} t0=$SECONDS alive=0 i
  [ "$k" = alone ] && tag=p$1_alone${3:-}
  PIDS=()
  if [ "$k" != alone ]; then
    run_nb "$p" "$k" "$RAW/nb_$tag.json" > "$RAW/nb_$tag.log" 2>&1 &
    PIDS+=($!)
    sleep $LEAD
  fi
  victim "$tag" "$p"
  for i in "${PIDS[@]}"; do kill -0 "$i" 2>/dev/null && alive=$((alive + 1)); done
  echo "group $tag neighbour $k alive at its end: $alive of ${#PIDS[@]}" >> "$RAW/info.txt"
  for i in "${PIDS[@]}"; do kill "$i" 2>/dev/null; wait "$i" 2>/dev/null; done; PIDS=()
  sleep $SETTLE
  echo "group $tag $((SECONDS - t0)) s" >> "$RAW/info.txt"
}
victim nomps
if [ -z "$MOCK" ]; then
  timeout 120 ncu --csv --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,sm__inst_issued.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active \
    -k kchase "$CH" --ks 256 --shapes 16x128,132x128 --mib 1024 --fresh 1 --iters 1 --warm 0 --tag ncu > "$RAW/ncu.csv" 2> "$RAW/ncu.err"
  echo "ncu rc $?" >> "$RAW/info.txt"
  export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
  mps_lib_start
fi
for g in "50 alone" "50 gfast" "50 gl2" "50 gdramt32" "50 gdram" "50 gdramt512" "50 alone _b" \
  "50 gdram _b" "100 alone" "100 gdram"; do
  # shellcheck disable=SC2086
  group $g
done
