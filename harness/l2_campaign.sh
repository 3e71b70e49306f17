#!/bin/bash
# What an L2-residency model of MPS clients needs, in one device call (hqsim issue 10,
# FINDINGS §67, §69):
# 1. A footprint sweep of §67's chase (harness/chase.cu): K = 256 dependent loads a thread,
#    16 x 128 and 132 x 128 threads, walked the same way every launch through FOOT MiB
#    (2 / 8 / 16 / 32: served by L2 once warm; a line is reused sooner in a smaller
#    buffer) and, for the DRAM latency beside each neighbour, 1 GiB from a new place every
#    launch; the victim at 50% threads alone (twice) and beside one graphbench neighbour
#    at 50% (gl2: 8 MiB from L2; gdramt32 / gdram / gdramt512: DRAM at ~106 / 345 / 992
#    GB/s on the H200, §67): how long a line survives the neighbour's insertion rate.
#    -> OUTDIR/chase.tar.gz (one JSON line per configuration and round, chase.cu's record)
# 2. Nsight Compute metrics (no sections) of one request of each serving configuration's
#    graph, without MPS: L2 hit rate, L2 and DRAM bytes, tensor-pipe activity, issue share,
#    duration, long-scoreboard stalls; --cache-control none, so a kernel sees the L2 its
#    predecessor left (as it does when served), and the number of replay passes is in the
#    logs (a later pass of a multi-pass kernel sees its own first pass's lines).
#    -> OUTDIR/ncuraw.tar.gz (ncu_<config>.csv, .log, the metric query)
#   harness/l2_campaign.sh OUTDIR [--mock]
# Env: L2_DUR (s per footprint pass, 1), TOTAL (s: an ncu configuration that would start
# later is skipped, 420), NCU_TIMEOUT (s per configuration, 75), NCU_CFGS (";"-separated
# "model batch mode", default the six graphs in order of the serving table's misses).
# --mock: stand-ins for chase, graphbench and ncu (no GPU): the layout only.
set -u
OUTDIR=${1:?outdir}; MOCK=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/mps_lib.sh"
RAW=/tmp/l2raw.$$; rm -rf "$RAW"; mkdir -p "$RAW/chase" "$RAW/ncu" "$OUTDIR"
MPSDIR=/tmp/l2_mps.$$; MPSON=0; PIDS=()
DUR=${L2_DUR:-1}; TOTAL=${TOTAL:-420}
LEAD=3; SETTLE=2
[ -n "$MOCK" ] && { LEAD=0; SETTLE=0; }
ARGS=(--ks 256 --shapes 16x128,132x128 --iters 200)
PASSES=("--mib 2 --fresh 0" "--mib 8 --fresh 0" "--mib 16 --fresh 0" "--mib 32 --fresh 0"
  "--mib 1024 --fresh 1")
CH=$HERE/bin/chase; GB=$HERE/bin/graphbench; NCU=ncu
if [ -n "$MOCK" ]; then
  mock_chase() { # the victim's JSON lines, made up: 0.2 us a trip from L2, 0.6 from DRAM
    local tag= mib=1024 fresh=1 s; while [ $# -gt 0 ]; do
      case $1 in --tag) tag=$2;; --mib) mib=$2;; --fresh) fresh=$2;; esac; shift; done
    for s in 16x128 132x128; do
      awk -v t="$tag" -v s="$s" -v mib="$mib" -v f="$fresh" 'BEGIN { split(s, b, "x");
        m = 256 * (f ? 0.6 : 0.2); printf "{\"tag\": \"%s\", \"round\": 0, \"mib\": %d, \"fresh\": %d, \"k\": 256, \"blocks\": %d, \"threads\": %d, \"iters\": 200, \"median_us\": %.3f, \"p10_us\": %.3f, \"p90_us\": %.3f, \"ns_per_trip\": %.2f}\n", t, mib, f, b[1], b[2], m, m * 0.98, m * 1.02, m * 1000 / 256 }'
    done
  }
  NCU="echo ncu"
fi
run_chase() { # PCT ARGS...
  local p=$1; shift
  [ -n "$MOCK" ] && { mock_chase "$@"; return; }
  CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$p timeout 60 "$CH" "$@"
}
run_nb() { # PCT KIND OUT: one graphbench neighbour (or a sleeping stand-in) until killed
  [ -n "$MOCK" ] && exec sleep 30
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$1
  # shellcheck disable=SC2046
  exec timeout 90 "$GB" loop $(mps_lib_gargs "$2" 100000) --out "$3"
}
finish() {
  mps_lib_stop
  date -u >> "$RAW/info.txt"
  tar czf "$OUTDIR/chase.tar.gz" -C "$RAW/chase" . -C "$RAW" info.txt
  tar czf "$OUTDIR/ncuraw.tar.gz" -C "$RAW/ncu" . -C "$RAW" info.txt
  rm -rf "$RAW" "$MPSDIR"
}
trap finish EXIT
trap 'exit 143' TERM INT
if [ -z "$MOCK" ]; then
  mkdir -p "$HERE/bin"
  nvcc -O3 -arch=sm_90 -o "$CH" "$HERE/chase.cu" || exit 1
  nvcc -O3 -arch=sm_90 -o "$GB" "$HERE/graphbench.cu" || exit 1
  mps_lib_info 1 torch ncu > "$RAW/info.txt" 2>&1
else
  mps_lib_info 0 > "$RAW/info.txt"
fi
echo "command: harness/l2_campaign.sh OUTDIR $MOCK (L2_DUR=$DUR TOTAL=$TOTAL) victim: ${ARGS[*]}; passes: ${PASSES[*]}" >> "$RAW/info.txt"
victim() { # TAG PCT: the victim's passes, DUR s each; its JSON lines in RAW/chase/TAG.jsonl
  local tag=$1 p=$2 pass
  : > "$RAW/chase/$tag.jsonl"
  for pass in "${PASSES[@]}"; do
    # shellcheck disable=SC2086
    run_chase "$p" "${ARGS[@]}" $pass --dur-s "$DUR" --tag "$tag" >> "$RAW/chase/$tag.jsonl" 2>> "$RAW/chase/$tag.err"
    echo "victim $tag ($pass) rc $? lines $(wc -l < "$RAW/chase/$tag.jsonl")" >> "$RAW/info.txt"
  done
}
group() { # PCT KIND [SUFFIX]
  local p=$1 k=$2 tag=p$1_$2${3:-} t0=$SECONDS alive=0 i
  PIDS=()
  if [ "$k" != alone ]; then
    run_nb "$p" "$k" "$RAW/chase/nb_$tag.json" > "$RAW/chase/nb_$tag.log" 2>&1 &
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
# 1. the chase, as MPS clients (daemon pipe/log under /tmp, quit at the end)
if [ -z "$MOCK" ]; then
  export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
  mps_lib_start
fi
for g in "50 alone" "50 gdram" "50 gdramt512" "50 gdramt32" "50 gl2" "50 alone _b" "50 gdram _b"; do
  # shellcheck disable=SC2086
  group $g
done
mps_lib_stop; MPSON=0 # the EXIT trap must not quit it again
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
echo "chase done at $SECONDS s" >> "$RAW/info.txt"
# 2. ncu, metrics present on this chip only (a metric ncu does not know fails the whole run)
WANT="gpu__time_duration.sum lts__t_sector_hit_rate.pct lts__t_sector_op_read_hit_rate.pct
lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
lts__t_bytes.sum dram__bytes_read.sum dram__bytes_write.sum
dram__throughput.avg.pct_of_peak_sustained_elapsed sm__inst_issued.avg.pct_of_peak_sustained_active
sm__throughput.avg.pct_of_peak_sustained_elapsed
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active
sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active
smsp__warps_issue_stalled_long_scoreboard_per_warp_active.pct
smsp__warps_issue_stalled_barrier_per_warp_active.pct
launch__grid_size launch__block_size launch__registers_per_thread"
# the safe set: what ncu_request.py's files and §67's chase already had from this ncu
SAFE=gpu__time_duration.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_issued.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size
if [ -z "$MOCK" ]; then
  { timeout 60 ncu --query-metrics; timeout 60 ncu --query-metrics --query-metrics-mode suffix; } \
    > "$RAW/ncu/query.txt" 2>&1
  echo "ncu query rc $?" >> "$RAW/info.txt"
fi
MET=
for m in $WANT; do
  base=${m%%.*}
  if [ -n "$MOCK" ] || grep -q "^$base " "$RAW/ncu/query.txt" || grep -qF "$m" "$RAW/ncu/query.txt"; then
    MET="$MET,$m"; else echo "metric $m not listed by ncu: left out" >> "$RAW/info.txt"; fi
done
MET=${MET#,}
grep -q "^gpu__time_duration " "$RAW/ncu/query.txt" 2>/dev/null || [ -n "$MOCK" ] || MET=$SAFE
echo "ncu metrics: $MET" >> "$RAW/info.txt"
IFS=';' read -r -a NCFG <<< "${NCU_CFGS-encoder 8 graph;cnn 8 graph;cnn 1 graph;encoder 1 graph;decoder 16 graph;decoder 1 graph}"
for cfg in "${NCFG[@]}"; do
  # shellcheck disable=SC2086
  set -- $cfg; tag=${1}_b${2}_$3; t0=$SECONDS
  [ $((SECONDS + ${NCU_TIMEOUT:-75})) -gt "$TOTAL" ] && { echo "ncu $tag skipped (time, $SECONDS s)" >> "$RAW/info.txt"; continue; }
  timeout "${NCU_TIMEOUT:-75}" $NCU --csv --page details --metrics "$MET" --cache-control none \
    --clock-control none --profile-from-start off --log-file "$RAW/ncu/ncu_$tag.csv" \
    python3 "$HERE/torch_graphs.py" --ncu-one --model "$1" --batch "$2" --mode "$3" --warmup 5 \
    > "$RAW/ncu/ncu_$tag.log" 2>&1
  echo "ncu $tag rc=$? $((SECONDS - t0)) s (at $SECONDS s)" >> "$RAW/info.txt"
  # a metric list ncu refuses fails at once: the safe set from then on
  if [ -z "$MOCK" ] && [ "$MET" != "$SAFE" ] && ! grep -q '"ID"' "$RAW/ncu/ncu_$tag.csv" 2>/dev/null \
    && [ $((SECONDS - t0)) -lt 30 ]; then
    echo "ncu $tag: no records with the full list, retried with the safe set" >> "$RAW/info.txt"
    MET=$SAFE; t0=$SECONDS
    timeout "${NCU_TIMEOUT:-75}" ncu --csv --page details --metrics "$MET" --cache-control none \
      --clock-control none --profile-from-start off --log-file "$RAW/ncu/ncu_$tag.csv" \
      python3 "$HERE/torch_graphs.py" --ncu-one --model "$1" --batch "$2" --mode "$3" --warmup 5 \
      > "$RAW/ncu/ncu_$tag.log" 2>&1
    echo "ncu $tag rc=$? $((SECONDS - t0)) s (at $SECONDS s)" >> "$RAW/info.txt"
  fi
done
