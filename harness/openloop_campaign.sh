#!/bin/bash
# Closed- and open-loop serving of PyTorch models in N processes on one GPU (the H100's
# openloop/ and, through harness/serving_campaign.sh, the H200's), without MPS, with MPS and
# with MPS thread percentages (hqsim issue 10, items 4-5); one device call.
#   harness/openloop_campaign.sh OUTDIR [--mock]   -> OUTDIR/openloop.tar.gz
# Env: DUR (s per phase, 0.5), BUDGET (s: a group that would start later is skipped, 470),
# PCTS (the thread percentages run at N = 1 and 4, graph configurations only; "50 25"),
# GROUPS_RUN (the groups instead, e.g. "nomps:1 mps:4 mps25:1"), CONFIGS (those of the nomps and
# mps groups, default every graph and eager one; the thread-percentage groups run the graphs),
# RAW (the working folder, /tmp/olraw; emptied first).
# Each group starts N copies of harness/openloop.py together (they build and warm every
# configuration, then run each phase after a file barrier).  An MPS daemon with pipe/log
# under /tmp/olmps is started for the MPS groups and always quit here.
set -u
OUTDIR=${1:?outdir}; MOCK=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=${RAW:-/tmp/olraw}; rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR"
MPSDIR=/tmp/olmps
GRAPH=cnn:1:graph,cnn:8:graph,encoder:1:graph,encoder:8:graph,decoder:1:graph,decoder:16:graph
EAGER=cnn:1:eager,cnn:8:eager,encoder:1:eager,encoder:8:eager,decoder:1:eager,decoder:16:eager
DUR=${DUR:-0.5}
MPSON=0
mps_env() { echo "CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log"; }
mps_start() {
  [ -n "$MOCK" ] && { echo mps start; MPSON=1; return 0; }
  mkdir -p $MPSDIR/pipe $MPSDIR/log
  env $(mps_env) nvidia-cuda-mps-control -d && sleep 1 && MPSON=1
}
mps_stop() {
  [ $MPSON = 1 ] || return 0
  MPSON=0
  [ -n "$MOCK" ] && { echo mps stop; return 0; }
  echo quit | env $(mps_env) timeout 20 nvidia-cuda-mps-control >/dev/null 2>&1
  sleep 1
}
finish() {
  mps_stop
  date -u >> "$RAW/info.txt"
  tar czf "$OUTDIR/openloop.tar.gz" -C "$RAW" . 2>/dev/null
  ls -la "$OUTDIR"
}
trap finish EXIT
trap 'exit 143' TERM INT
# group TAG N PCT CONFIGS: N processes (PCT: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE or -)
group() {
  local tag=$1 n=$2 pct=$3 cfgs=$4 t0=$SECONDS
  [ $SECONDS -gt ${BUDGET:-470} ] && { echo "group $tag skipped (time)"; return; }
  local B=$RAW/bar_$tag; rm -rf "$B"; mkdir -p "$B"
  local pids=() i
  for i in $(seq 0 $((n - 1))); do
    local E=()
    [ $MPSON = 1 ] && E=(CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log)
    [ "$pct" != - ] && E+=(CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$pct)
    env "${E[@]}" timeout 150 python3 "$HERE/openloop.py" --configs "$cfgs" --n $n --rank $i \
      --barrier "$B" --out "$RAW/${tag}_p$i" --dur $DUR $MOCK > "$RAW/${tag}_p$i.log" 2>&1 &
    pids+=($!)
  done
  local rc=0
  for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  rm -rf "$B"
  echo "group $tag n=$n pct=$pct rc=$rc $((SECONDS - t0))s"
}
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv
  nvcc --version | tail -2
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
  python3 -c "import torchvision; print('torchvision', torchvision.__version__)"
  nproc; lscpu | grep -E 'Model name|^CPU\(s\)'
} > "$RAW/info.txt" 2>&1
cat "$RAW/info.txt"
# the groups in turn, SHARING:N (nomps, mps, mps<pct>); the daemon starts at the first MPS group
RUN="nomps:1 nomps:2 nomps:4 nomps:8 mps:1 mps:2 mps:4 mps:8"
for pct in ${PCTS-50 25}; do RUN="$RUN mps$pct:1 mps$pct:4"; done
for g in ${GROUPS_RUN:-$RUN}; do
  share=${g%%:*}; n=${g#*:}
  if [ "$share" = nomps ]; then
    mps_stop
  elif [ $MPSON = 0 ]; then
    mps_start; echo "mps start rc=$?"
  fi
  case $share in
    nomps|mps) group ${share}_n$n $n - "${CONFIGS:-$GRAPH,$EAGER}";;
    mps*) group ${share}_n$n $n ${share#mps} "$GRAPH";;
  esac
done
mps_stop
