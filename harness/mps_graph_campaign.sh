#!/bin/bash
# Where a CUDA-graph request's time goes in N MPS clients (hqsim issue 10, fast10); one device
# call.   harness/mps_graph_campaign.sh OUTDIR   -> OUTDIR/mpsgraph.tar.gz
# harness/mps_graph_probe.py in 1 process without MPS, then in N = 1, 2, 4, 8 MPS clients at
# 100% threads (one daemon, pipe/log under /tmp/mgmps, quit here): per configuration 0.6 s of
# closed-loop requests in every process with host marks and CUDA events, then 16 Kineto
# requests in rank 0 while the others serve. Summary: harness/mps_graph_summary.py.
set -u
OUTDIR=${1:?outdir}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/mgraw; rm -rf "$RAW"; mkdir -p "$RAW/kineto" "$OUTDIR"
MPSDIR=/tmp/mgmps; MPSON=0; PIDS=()
. "$HERE/mps_lib.sh"
finish() {
  mps_lib_stop
  date -u >> "$RAW/info.txt"
  tar czf "$OUTDIR/mpsgraph.tar.gz" -C "$RAW" .
  ls -la "$OUTDIR"
}
trap finish EXIT
trap 'exit 143' TERM INT
mps_lib_info 1 torch > "$RAW/info.txt" 2>&1; cat "$RAW/info.txt"
group() { # TAG N
  local tag=$1 n=$2 B=$RAW/bar_$1 i t0=$SECONDS
  mkdir -p "$B" "$RAW/kineto/$tag"; PIDS=()
  for i in $(seq 0 $((n - 1))); do
    timeout 90 python3 "$HERE/mps_graph_probe.py" --rank $i --n $n --barrier "$B" \
      --out "$RAW/${tag}_p$i" --kineto "$RAW/kineto/$tag" > "$RAW/${tag}_p$i.log" 2>&1 & PIDS+=($!)
  done
  for i in "${PIDS[@]}"; do wait $i; done; PIDS=(); rm -rf "$B"
  echo "$tag done $((SECONDS - t0)) s"
}
group nomps_n1 1
export CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log
mps_lib_start
for n in 1 2 4 8; do group mps_n$n $n; done
