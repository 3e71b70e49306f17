#!/bin/bash
# Does an MPS client's launch path pay for the other clients' grid size, block rate, kernel rate
# or block duration? (hqsim issue 10 item 2, FINDINGS §27); one device call, ~3 min. No card
# setting is changed.
#   harness/mps_empty_campaign.sh OUTDIR [--mock|--quick|--mem|--mem-mock]
#       -> OUTDIR/empty.csv, aggr.csv, info.txt, logs.tar.gz
# Builds harness/mps_probe.cu (its `empty` aggressor). Victims: the compute-only
# `timer` graph (32 chained 1-block kernels spinning 5 us) and the `chase` graph (12 dependent DRAM
# loads per node), closed loops, 1 s measured after 0.3 s once the aggressors are ready. Aggressors
# (N - 1 = 1, 3 processes): graph loops of 32 chained `empty` kernels, G blocks x B threads, thread
# 0 of each block spinning T us on %globaltimer (T = 0: empty kernels), no memory access, the host
# optionally pausing P us after each graph; config name gG_tT_bB[_pP]. All processes are clients of
# one MPS daemon at 100% threads (pipe/log under /tmp/mpsempty, quit here); N = 1 before, in the
# middle and after; four N = 2 rows again at the end; first, without MPS (time slicing), N = 1 and N = 2 beside two configs.
# --mock runs the whole flow with a stand-in for the GPU program (no GPU); --quick a short subset.
# --mem (a second call): only the timer victim beside aggressors whose blocks hold dynamic shared
# memory (S KB, as GEMV blocks do: the SMs' shared/L1 split) or read L float4 per thread from an
# 8 MiB buffer that stays in the L2, config G:T:B:P:S:L, name ..._sS_lL; N = 1 before and after.
set -u
OUTDIR=${1:?outdir}; MODE=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/mpsempty_raw; rm -rf "$RAW"; mkdir -p "$RAW/logs" "$OUTDIR"
MPSDIR=/tmp/mpsempty
BIN=$RAW/mps_probe
SECS=1.0
# G:T_us:B:P_us. tpb 32 by default: 3 x 1024 one-warp blocks fit beside the victim (8448 warps,
# 4224 blocks on 132 SMs), so no row waits for room except those marked N2ONLY at N = 4.
CONFIGS="1:5:32:0 64:5:32:0 256:5:32:0 1024:5:32:0 1:0:32:0 4:0:32:0 16:0:32:0 64:0:32:0
 132:0:32:0 256:0:32:0 512:0:32:0 1024:0:32:0 1024:1:32:0 1024:20:32:0 1024:80:32:0 256:20:32:0
 64:20:32:0 1024:5:32:600 1024:0:32:200 1024:0:32:1000 64:0:32:50 64:5:1024:0 1024:5:128:0
 256:5:1024:0 1024:0:128:0"
N2ONLY=" 1024:5:128:0 256:5:1024:0 1024:0:128:0 "
CHASE="1:5:32:0 64:0:32:0 256:0:32:0 1024:5:32:0 1024:0:32:0 1024:80:32:0"
REPEAT="1:0:32:0 64:0:32:0 1024:0:32:0 1024:5:32:0"
NOMPS="1024:5:32:0 1024:0:32:0"
NS="2 4"
MEM="256:5:128:0:0:0 256:5:128:0:16:0 256:5:128:0:48:0 256:5:128:0:100:0 128:5:256:0:100:0
 256:5:128:0:0:8 1024:5:128:0:0:8 1024:0:128:0:0:8 256:5:128:0:48:8"
if [ "$MODE" = --quick ]; then
  SECS=0.3; CONFIGS="1:5:32:0 1024:0:32:0"; CHASE=1024:0:32:0; NOMPS=1024:0:32:0; NS=2
  REPEAT=1:0:32:0
fi
MPSON=0
PIDS=()

. "$HERE/mps_lib.sh" # mps_lib_stop, mps_lib_start, mps_lib_reap, mock_probe (--mock: a stand-in for mps_probe)
if [ "$MODE" = --mock ] || [ "$MODE" = --mem-mock ]; then PROBE=mock_probe; TO=
else PROBE=$BIN; TO="timeout 60"; fi

finish() {
  mps_lib_stop
  date -u >> "$RAW/info.txt"
  cp "$RAW/empty.csv" "$RAW/aggr.csv" "$RAW/info.txt" "$OUTDIR/" 2>/dev/null
  tar czf "$OUTDIR/logs.tar.gz" -C "$RAW" logs 2>/dev/null
  ls -la "$OUTDIR"
}
trap finish EXIT
trap 'exit 143' TERM INT
real=0; [ "$PROBE" = "$BIN" ] && real=1
mps_lib_info $real > "$RAW/info.txt" 2>&1
cat "$RAW/info.txt"
if [ "$PROBE" = "$BIN" ]; then
  nvcc -O3 -arch=sm_90 -std=c++17 -o "$BIN" "$HERE/mps_probe.cu" || exit 1
fi
echo "mode,n,aggr,$($PROBE header | sed 's/^tag,//')" > "$RAW/empty.csv"
echo "mode,n,aggr,victim,i,kernels_per_s" > "$RAW/aggr.csv"

name() { # G:T:B:P[:S:L] -> gG_tT_bB[_pP][_sS_lL]
  local g t b p s l; IFS=: read -r g t b p s l <<< "$1"
  echo "g${g}_t${t}_b${b}$([ "$p" = 0 ] || echo "_p$p")$([ -z "$s" ] || echo "_s${s}_l$l")"
}

# one MODE N CONFIG VICTIM: N - 1 `empty` aggressors of CONFIG (or none), the victim in the
# foreground; the victim touches the barrier's stop file, the aggressors report and leave.
one() {
  local mode=$1 n=$2 cfg=$3 v=$4 i t0=$SECONDS rc ag g t b p s l
  if [ "$cfg" = none ] || [ "$cfg" = none_mid ] || [ "$cfg" = none_again ]; then ag=$cfg
  else ag=$(name "$cfg"); IFS=: read -r g t b p s l <<< "$cfg"; fi
  local bar=$RAW/bar_${mode}_${n}_${ag}_$v
  rm -rf "$bar"; mkdir -p "$bar"
  PIDS=()
  for ((i = 1; i < n; i++)); do
    $TO $PROBE aggr --kind empty --grid "$g" --tpb "$b" --work $((t * 1000)) --pause "$p" \
      --smem $((${s:-0} * 1024)) --loads "${l:-0}" \
      --barrier "$bar" 2> "$bar/aggr_$i.log" &
    PIDS+=($!)
  done
  local peers=()
  [ "$n" -gt 1 ] && peers=(--barrier "$bar" --peers $((n - 1)))
  $TO $PROBE victim --kind "$v" --secs $SECS --tag "$mode,$n,$ag" "${peers[@]}" \
    >> "$RAW/empty.csv" 2> "$RAW/logs/${mode}_${n}_${ag}_$v.log"
  rc=$?
  touch "$bar/stop"
  mps_lib_reap "$bar" "$mode,$n,$ag,$v" "$RAW/aggr.csv" "$RAW/logs/${mode}_${n}_${ag}_${v}_aggr"
  echo "$mode n=$n aggr=$ag victim=$v rc=$rc $((SECONDS - t0))s | $(tail -1 "$RAW/empty.csv" | cut -d, -f5-9,13)"
}

MPSUP() {
  export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
  if [ "$PROBE" = "$BIN" ]; then
    mps_lib_start
  fi
}
if [ "$MODE" = --mem ] || [ "$MODE" = --mem-mock ]; then
  MPSUP
  one mps 1 none timer
  for n in $NS; do for c in $MEM; do one mps "$n" "$c" timer; done; done
  one mps 1 none_again timer
  wc -l "$RAW/empty.csv" "$RAW/aggr.csv"
  exit 0
fi

# Without MPS (time slicing): contexts never overlap.
one nomps 1 none timer
for c in $NOMPS; do one nomps 2 "$c" timer; done

MPSUP
one mps 1 none timer
one mps 1 none chase
for n in $NS; do
  for c in $CONFIGS; do
    [ "$n" -gt 2 ] && [[ "$N2ONLY" == *" $c "* ]] && continue
    one mps "$n" "$c" timer
  done
  [ "$n" = 2 ] && one mps 1 none_mid timer
done
for n in $NS; do for c in $CHASE; do one mps "$n" "$c" chase; done; done
for c in $REPEAT; do one mps 2 "$c" timer; done  # repeats: the noise between passes
one mps 1 none_again timer
one mps 1 none_again chase
wc -l "$RAW/empty.csv" "$RAW/aggr.csv"
