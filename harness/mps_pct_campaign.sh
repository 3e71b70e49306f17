#!/bin/bash
# One PyTorch process as an MPS client at 100, 50 and 25% active threads, kernel by kernel
# (hqsim issue 10: how a thread limit slows each kernel); one device call.
#   harness/mps_pct_campaign.sh OUTDIR [--dry]   -> OUTDIR/mpspct.tar.gz
# Kineto traces (torch_graphs.py --profile-all, graph mode) of the encoder (b1, b8) and the
# decoder (b1, b16): without MPS, then inside an MPS client at 100, 50, 25%, then without MPS
# again (drift); then ncu (no MPS) of one request of each: issue slots busy, achieved
# occupancy, SM throughput per kernel. An MPS daemon with pipe/log under /tmp/pctmps is
# started and always quit here.
# Env: ONLY (torch_graphs.py --only, default encoder,decoder), PROFS (the settings profiled,
# default "nomps mps100 mps50 mps25 nomps_again"), NCU_CFGS (";"-separated "model batch" pairs
# for ncu, default the four above; "" for none). E.g. resnet50 at 100/50/25% without ncu:
#   ONLY=cnn PROFS="nomps mps100 mps50 mps25" NCU_CFGS= harness/mps_pct_campaign.sh OUTDIR
set -u
OUTDIR=${1:?outdir}; DRY=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
RAW=/tmp/pctraw; rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR"
MPSDIR=/tmp/pctmps
PY=python3; NCU=ncu
[ "$DRY" = --dry ] && { PY="echo python3"; NCU="echo ncu"; }
MPSON=0
mps_start() {
  [ "$DRY" = --dry ] && { echo mps start; MPSON=1; return 0; }
  mkdir -p $MPSDIR/pipe $MPSDIR/log
  CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log nvidia-cuda-mps-control -d && sleep 1 && MPSON=1
}
mps_stop() {
  [ $MPSON = 1 ] || return 0
  MPSON=0
  [ "$DRY" = --dry ] && { echo mps stop; return 0; }
  echo quit | CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log timeout 20 nvidia-cuda-mps-control >/dev/null 2>&1
  sleep 1
}
finish() {
  mps_stop
  date -u >> "$RAW/info.txt"
  tar czf "$OUTDIR/mpspct.tar.gz" -C "$RAW" . 2>/dev/null
  ls -la "$OUTDIR"
}
trap finish EXIT
trap 'exit 143' TERM INT
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)"
  ncu --version | tail -1
  nproc
} > "$RAW/info.txt" 2>&1
cat "$RAW/info.txt"
prof() { # tag [env...]
  local tag=$1 t0=$SECONDS; shift
  env "$@" timeout 120 $PY "$HERE/torch_graphs.py" --profile-all "$RAW/$tag" --only ${ONLY:-encoder,decoder} \
    --modes graph --nprof 16 > "$RAW/$tag.log" 2>&1
  echo "prof $tag rc=$? $((SECONDS - t0))s"
}
M=(CUDA_MPS_PIPE_DIRECTORY=$MPSDIR/pipe CUDA_MPS_LOG_DIRECTORY=$MPSDIR/log)
for p in ${PROFS:-nomps mps100 mps50 mps25 nomps_again}; do
  case $p in
    nomps*) mps_stop; prof "$p";;
    mps*) [ $MPSON = 1 ] || { mps_start; echo "mps start rc=$?"; }
          pct=${p#mps}; prof "$p" "${M[@]}" $([ "$pct" != 100 ] && echo CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$pct);;
  esac
done
mps_stop
IFS=';' read -r -a NCFG <<< "${NCU_CFGS-encoder 1;encoder 8;decoder 16;decoder 1}"
for cfg in "${NCFG[@]}"; do
  set -- $cfg; t0=$SECONDS
  [ $SECONDS -gt ${BUDGET:-420} ] && { echo "ncu $1 $2 skipped (time)"; continue; }
  timeout 100 $NCU --csv --page details --section SpeedOfLight --section LaunchStats --section Occupancy \
    --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --clock-control none --profile-from-start off --log-file "$RAW/ncu_${1}_b$2.csv" \
    $PY "$HERE/torch_graphs.py" --ncu-one --model $1 --batch $2 --mode graph --warmup 5 \
    > "$RAW/ncu_${1}_b$2.log" 2>&1
  echo "ncu $1 b$2 rc=$? $((SECONDS - t0))s"
done
