#!/bin/bash
# Which kernels of an MPS client slow down while other clients run, and with what work (hqsim
# issue 10, FINDINGS §24); one device call, ~4 min.
#   harness/mps_probe_campaign.sh OUTDIR [--dry|--quick]   -> OUTDIR/probe.csv, aggr.csv, mpsprobe.tar.gz
# Builds harness/mps_probe.cu with nvcc, then for each victim kind (timer, fma, chase, stream: one
# CUDA graph of 32 chained kernels in a closed loop, 1 s measured) runs N - 1 aggressor processes
# of each kind (timer, fma, chase, stream: the same graph loops; triad32, triad132, triad: DRAM
# streaming on 32, 132, 528 blocks; fmaall: FMA on every SM) at N = 2 and 4, all as MPS clients at
# 100% threads (daemon with pipe/log under /tmp/mpsprobe, always quit here), N = 1 before and
# after; first, without MPS (time slicing), N = 1 and N = 2 with triad and same-kind aggressors.
# --dry prints the commands; --quick: 0.2 s each, a subset.
set -u
OUTDIR=${1:?outdir}; MODE=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/mpsprobe_raw; rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR"
MPSDIR=/tmp/mpsprobe
BIN=$RAW/mps_probe
SECS=1.0
VICTIMS="timer fma chase stream"
AGGRS="timer fma chase stream triad32 triad132 triad fmaall"
NS="2 4"
if [ "$MODE" = --quick ]; then SECS=0.2; AGGRS="triad stream"; NS=2; fi
X=
[ "$MODE" = --dry ] && X=echo
MPSON=0
PIDS=()
. "$HERE/mps_lib.sh" # mps_lib_stop, mps_lib_start, mps_lib_reap
finish() {
  mps_lib_stop
  date -u >> "$RAW/info.txt"
  cp "$RAW/probe.csv" "$RAW/aggr.csv" "$RAW/info.txt" "$OUTDIR/" 2>/dev/null
  tar czf "$OUTDIR/mpsprobe.tar.gz" -C "$RAW" --exclude mps_probe . 2>/dev/null
  ls -la "$OUTDIR"
}
trap finish EXIT
trap 'exit 143' TERM INT
mps_lib_info 1 > "$RAW/info.txt" 2>&1
cat "$RAW/info.txt"
if [ "$MODE" = --dry ]; then
  BIN="echo $BIN"
else
  nvcc -O3 -arch=sm_90 -std=c++17 -o "$BIN" "$HERE/mps_probe.cu" || exit 1
fi
echo "mode,n,aggr,$($BIN header | sed 's/^tag,//')" > "$RAW/probe.csv"
[ "$MODE" = --dry ] && echo "mode,n,aggr,victim,i,kernels_per_s" > "$RAW/probe.csv"
echo "mode,n,aggr,victim,i,kernels_per_s" > "$RAW/aggr.csv"

one() { # mode n aggr victim
  local mode=$1 n=$2 ag=$3 v=$4 i bar=$RAW/bar_$1_$2_$3_$4 t0=$SECONDS
  rm -rf "$bar"; mkdir -p "$bar"
  PIDS=()
  for ((i = 1; i < n; i++)); do
    $X timeout 90 "$BIN" aggr --kind "$ag" --barrier "$bar" 2> "$bar/aggr_$i.log" &
    PIDS+=($!)
  done
  local peers=()
  [ "$n" -gt 1 ] && peers=(--barrier "$bar" --peers $((n - 1)))
  timeout 60 $BIN victim --kind "$v" --secs $SECS --tag "$mode,$n,$ag" "${peers[@]}" \
    >> "$RAW/probe.csv" 2> "$bar/victim.log"
  local rc=$?
  touch "$bar/stop"
  mps_lib_reap "$bar" "$mode,$n,$ag,$v" "$RAW/aggr.csv" ""
  echo "$mode n=$n aggr=$ag victim=$v rc=$rc $((SECONDS - t0))s $(tail -1 "$RAW/probe.csv" | cut -d, -f5-9)"
}

# Without MPS: time slicing between the processes' contexts.
for v in $VICTIMS; do
  one nomps 1 none "$v"
  one nomps 2 triad "$v"
  one nomps 2 "$v" "$v"
done

export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
if [ "$MODE" != --dry ]; then
  mps_lib_start
fi
for v in $VICTIMS; do
  one mps 1 none "$v"
  for n in $NS; do
    for ag in $AGGRS; do one mps "$n" "$ag" "$v"; done
  done
done
for v in $VICTIMS; do one mps 1 none_again "$v"; done
grep -c . "$RAW/probe.csv"
