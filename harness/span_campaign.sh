#!/bin/bash
# Time outside a graph request's GPU span with N processes (hqsim issue 10, span10); one device
# call.   harness/span_campaign.sh OUTDIR   -> OUTDIR/span.tar.gz (summary: harness/span_summary.py)
# Builds harness/span_probe.cu, then runs groups of N = 1, 2, 4, 8 span_probe processes started
# together: without MPS; as MPS clients at 100% threads (one daemon, pipe/log under /tmp/spmps);
# MPS N = 8 with each process pinned to its own core (taskset -c 1..8) and with all eight on
# cores 0-3; then the daemon restarted under taskset -c 15 (the MPS server on one core) for
# N = 2 and 8.  With "heavy" instead: the graph's inner nodes hold SMs (264 blocks of 128 threads,
# --blocks 264), variants pg, pin, none and pinev (CUDA events around the copy), without MPS at
# N = 1 and as MPS clients at N = 1, 2, 4, 8; then one-block nodes again, pin and pinev, MPS
# N = 1, 2 and 8.  With "dram" (span10b): rank 0 serves pg, pinev and none beside neighbours
# that serve the same, sit idle, or stream DRAM (--others dram: a graph of one copy kernel over
# 2 x DRAM_MB MiB, default 1024, back to back), MPS N = 1, 2, 4, 8 with 264-block inner nodes and
# N = 2, 8 with 1-block ones; then harness/span_host_loop.py (a fixed Python + torch host loop,
# no GPU wait, rank 0 timed) with N - 1 busy siblings: mode cuda as MPS clients N = 1, 2, 4, 8,
# mode cpu without MPS N = 1, 2, 4, 8, 16.  Every daemon is quit here (EXIT trap).
set -u
OUTDIR=${1:?outdir}; PART=${2:-main}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/spraw; rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR"
MPSDIR=/tmp/spmps; MPSON=0; PIDS=()
BIN=$RAW/span_probe
. "$HERE/mps_lib.sh"
finish() {
  mps_lib_stop
  date -u >> "$RAW/info.txt"
  rm -f "$BIN"
  tar czf "$OUTDIR/span.tar.gz" -C "$RAW" .
  ls -la "$OUTDIR"
}
trap finish EXIT
trap 'exit 143' TERM INT
mps_lib_info 1 > "$RAW/info.txt" 2>&1; cat "$RAW/info.txt"
nvcc -O3 -arch=sm_90 -std=c++17 -o "$BIN" "$HERE/span_probe.cu" || exit 1
group() { # TAG N AFFINITY(none|own|c4) [span_probe options]
  local tag=$1 n=$2 aff=$3 B=$RAW/bar_$1 i t0=$SECONDS pre; shift 3
  mkdir -p "$B"; PIDS=()
  for i in $(seq 0 $((n - 1))); do
    pre=()
    case $aff in own) pre=(taskset -c $((i + 1)));; c4) pre=(taskset -c 0-3);; esac
    timeout 60 "${pre[@]}" "$BIN" --rank $i --n $n --barrier "$B" --out "$RAW/${tag}_p$i.csv" \
      "$@" > "$RAW/${tag}_p$i.log" 2>&1 & PIDS+=($!)
  done
  for i in "${PIDS[@]}"; do wait $i; done; PIDS=(); rm -rf "$B"
  echo "$tag done $((SECONDS - t0)) s"
}
hgroup() { # TAG N MODE: span_host_loop.py, N processes together
  local tag=$1 n=$2 mode=$3 B=$RAW/bar_$1 i t0=$SECONDS; PIDS=()
  mkdir -p "$B"
  for i in $(seq 0 $((n - 1))); do
    timeout 60 python3 "$HERE/span_host_loop.py" --rank $i --n $n --barrier "$B" --mode "$mode" \
      --out "$RAW/${tag}_host.csv" > "$RAW/${tag}_h$i.log" 2>&1 & PIDS+=($!)
  done
  for i in "${PIDS[@]}"; do wait $i; done; PIDS=(); rm -rf "$B"
  echo "$tag done $((SECONDS - t0)) s: $(cat "$RAW/${tag}_h0.log" | tail -1)"
}
if [ "$PART" = dram ]; then
  mps_lib_info 1 torch >> "$RAW/info.txt" 2>&1
  D=(--variants pg,pinev,none --others same,dram,idle --dram-mb "${DRAM_MB:-1024}")
  export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
  mps_lib_start
  for n in 1 2 4 8; do group mps_n${n}_b264_dram $n none --blocks 264 "${D[@]}"; done
  for n in 2 8; do group mps_n${n}_dram $n none "${D[@]}"; done
  grep -h '^dram' "$RAW"/*_p[1-9].log | awk '{ s += $4; k++ } END { if (k) print "dram neighbours: mean", s / k, "GiB/s per slot over", k, "slots" }'
  for n in 1 2 4 8; do hgroup mps_host_cuda_n$n $n cuda; done
  mps_lib_stop; MPSON=0
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  for n in 1 2 4 8 16; do hgroup host_cpu_n$n $n cpu; done
  exit 0
fi
if [ "$PART" = heavy ]; then
  H=(--blocks 264 --variants pg,pin,none,pinev)
  group nomps_n1_b264 1 none "${H[@]}"
  export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
  mps_lib_start
  for n in 1 2 4 8; do group mps_n${n}_b264 $n none "${H[@]}"; done
  for n in 1 2 8; do group mps_n${n}_ev $n none --variants pin,pinev; done
  exit 0
fi
for n in 1 2 4 8; do group nomps_n$n $n none; done
export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
mps_lib_start
for n in 1 2 4 8; do group mps_n$n $n none; done
group mps_n8_own 8 own
group mps_n8_c4 8 c4
echo quit | nvidia-cuda-mps-control >/dev/null 2>&1; sleep 1; MPSON=0
rm -rf "$MPSDIR"; mkdir -p "$MPSDIR/pipe" "$MPSDIR/log"
taskset -c 15 nvidia-cuda-mps-control -d && sleep 1 && MPSON=1
[ "$MPSON" = 1 ] || { echo "MPS daemon (taskset) did not start"; exit 1; }
for n in 2 8; do group mps_n${n}_srv1 $n none; done
