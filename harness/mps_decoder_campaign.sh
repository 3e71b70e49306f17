#!/bin/bash
# What slows a decoder b1 MPS client beside other clients (hqsim issue 10 item 2, FINDINGS §26);
# one device call, ~5 min. No card setting is changed.
#   harness/mps_decoder_campaign.sh OUTDIR [--mock|--quick]
#       -> OUTDIR/decoder.csv, probe.csv, aggr.csv, info.txt, kernels.tar.gz
# Victims (closed loops, medians; 1 s measured after a 0.3 s warm-up once the aggressors are
# ready), all clients of one MPS daemon at 100% threads (pipe/log under /tmp/mpsdec, quit here):
#  - the decoder b1 graph (harness/mps_decoder_probe.py victim): 1 s WITHOUT any profiler (GPU
#    span per request by timing events inside the graph), then 30 requests under Kineto (this
#    process only), beside N - 1 = 1, 3 aggressors: `decoder` (the same graph, unprofiled),
#    `gemv` (only its GEMVs, back to back), `gemvl2` (the same GEMV kernels on weights that stay
#    in the L2: the same blocks, ~no DRAM traffic), `timer` (harness/mps_probe.cu's compute-only
#    graph loop of 1-block kernels) and `triad32` (DRAM streaming at a steady ~0.7 TB/s);
#  - harness/mps_probe.cu's timer, chase and stream victims beside decoder, gemv and gemvl2.
# N = 1 rows before and after; the decoder without MPS (time slicing) at N = 1 first; the gemv
# and gemvl2 graphs alone once (their kernels' durations give the bursts' DRAM rate).
# --mock: runs the whole flow here with stand-ins for the GPU programs (checks the script and
# harness/mps_decoder_summary.py, no GPU); --quick: a short subset (0.3 s each).
set -u
OUTDIR=${1:?outdir}; MODE=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/mpsdec_raw; rm -rf "$RAW"; mkdir -p "$RAW/kernels" "$OUTDIR"
MPSDIR=/tmp/mpsdec
BIN=$RAW/mps_probe
SECS=1.0; KIN=30
DAGGR="decoder gemv gemvl2 timer triad32"; PAGGR="decoder gemv gemvl2"; PVICT="timer chase stream"; NS="2 4"
if [ "$MODE" = --quick ]; then SECS=0.3; KIN=10; DAGGR=decoder; PAGGR=gemv; PVICT=timer; NS=2; fi
MPSON=0
PIDS=()

# Stand-ins for --mock: same command lines, barrier files and output lines as the real programs
# (mock_probe, mock_dec; mps_lib_stop, mps_lib_start and mps_lib_reap: mps_lib.sh).
. "$HERE/mps_lib.sh"
if [ "$MODE" = --mock ]; then
  PROBE=mock_probe; DEC=mock_dec; TO=
else
  PROBE=$BIN; DEC="python3 $HERE/mps_decoder_probe.py"; TO="timeout 150"
fi

finish() {
  mps_lib_stop
  date -u >> "$RAW/info.txt"
  cp "$RAW/decoder.csv" "$RAW/probe.csv" "$RAW/aggr.csv" "$RAW/info.txt" "$OUTDIR/" 2>/dev/null
  tar czf "$OUTDIR/kernels.tar.gz" -C "$RAW" kernels logs 2>/dev/null
  ls -la "$OUTDIR"
}
trap finish EXIT
trap 'exit 143' TERM INT
real=1; [ "$MODE" = --mock ] && real=0
mps_lib_info $real torch > "$RAW/info.txt" 2>&1
cat "$RAW/info.txt"
if [ "$MODE" != --mock ]; then
  nvcc -O3 -arch=sm_90 -std=c++17 -o "$BIN" "$HERE/mps_probe.cu" || exit 1
fi
mkdir -p "$RAW/logs"
echo "mode,n,aggr,$($DEC header | sed 's/^tag,//')" > "$RAW/decoder.csv"
echo "mode,n,aggr,$($PROBE header | sed 's/^tag,//')" > "$RAW/probe.csv"
echo "mode,n,aggr,victim,i,rate_per_s,bytes_per_unit" > "$RAW/aggr.csv"

# one MODE N AGGR VICTIM: N - 1 aggressors of kind AGGR (decoder/gemv: torch graphs; the others
# mps_probe's), then the victim (decoder/gemv: mps_decoder_probe.py; else mps_probe) in the
# foreground; the victim touches the barrier's stop file, the aggressors report and leave.
one() {
  local mode=$1 n=$2 ag=$3 v=$4 i bar=$RAW/bar_$1_$2_$3_$4 t0=$SECONDS rc
  rm -rf "$bar"; mkdir -p "$bar"
  PIDS=()
  for ((i = 1; i < n; i++)); do
    case $ag in
      decoder|gemv*) $TO $DEC aggr --model "$ag" --barrier "$bar" 2> "$bar/aggr_$i.log" & ;;
      *) $TO $PROBE aggr --kind "$ag" --barrier "$bar" 2> "$bar/aggr_$i.log" & ;;
    esac
    PIDS+=($!)
  done
  local peers=()
  [ "$n" -gt 1 ] && peers=(--barrier "$bar" --peers $((n - 1)))
  case $v in
    decoder|gemv*)
      $TO $DEC victim --model "$v" --secs $SECS --kineto $KIN --tag "$mode,$n,$ag" \
        --kernels "$RAW/kernels/${mode}_${n}_${ag}_$v.csv" "${peers[@]}" \
        >> "$RAW/decoder.csv" 2> "$RAW/logs/${mode}_${n}_${ag}_$v.log"
      rc=$?; local last=$RAW/decoder.csv;;
    *)
      $TO $PROBE victim --kind "$v" --secs $SECS --tag "$mode,$n,$ag" "${peers[@]}" \
        >> "$RAW/probe.csv" 2> "$RAW/logs/${mode}_${n}_${ag}_$v.log"
      rc=$?; local last=$RAW/probe.csv;;
  esac
  touch "$bar/stop"
  mps_lib_reap "$bar" "$mode,$n,$ag,$v" "$RAW/aggr.csv" "$RAW/logs/${mode}_${n}_${ag}_${v}_aggr" 1
  echo "$mode n=$n aggr=$ag victim=$v rc=$rc $((SECONDS - t0))s | $(tail -1 "$last" | cut -d, -f4-11)"
}

# Without MPS (time slicing): the decoder alone, the reference of the open-loop rows.
one nomps 1 none decoder

export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
if [ "$MODE" != --mock ]; then
  mps_lib_start
fi
one mps 1 none decoder
[ "$MODE" = --quick ] || { one mps 1 none gemv; one mps 1 none gemvl2; }
for v in $PVICT; do one mps 1 none "$v"; done
for n in $NS; do
  for ag in $DAGGR; do one mps "$n" "$ag" decoder; done
  for ag in $PAGGR; do
    for v in $PVICT; do one mps "$n" "$ag" "$v"; done
  done
done
one mps 1 none_again decoder
for v in $PVICT; do one mps 1 none_again "$v"; done
wc -l "$RAW/decoder.csv" "$RAW/probe.csv" "$RAW/aggr.csv"
