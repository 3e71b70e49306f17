#!/bin/bash
# Nsight Compute of one request of torch_graphs.py configurations, without MPS, turned into
# one ncu record per kernel of each one's Kineto trace (harness/ncu_request.py); one device
# call (hqsim issue 10: the resnet50 graphs' kernels, as mps_pct_campaign.sh did the
# encoders' and decoders').
#   harness/ncu_campaign.sh OUTDIR "cnn 1 graph" "cnn 8 graph" ... [--dry]
# -> OUTDIR/ncu/<model>_b<B>_<mode>.csv.gz (for openloop/ncu/), OUTDIR/ncuraw.tar.gz (the
# raw ncu CSVs and logs), OUTDIR/info.txt.  Same ncu sections and options as
# mps_pct_campaign.sh; --clock-control none (the card is left as found).
# Env: BUDGET (s: a configuration that would start later is skipped, 300), NCU_TIMEOUT (s per
# configuration, 150), NCU_SECTIONS (the ncu sections, default the six above), TRACES (the Kineto traces the records are matched to, default the H100's
# launch/kineto/; harness/serving_campaign.sh gives the ones it has just recorded).
set -u
OUTDIR=${1:?outdir}; shift
DRY=; [ "${!#}" = --dry ] && DRY=1
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(dirname "$HERE")
RAW=/tmp/ncuraw; rm -rf "$RAW"; mkdir -p "$RAW" "$OUTDIR/ncu"
PY=python3; NCU=ncu
# NCU_SECTIONS: fewer sections, fewer replay passes; ncu_request.py reads SpeedOfLight (SM and DRAM
# throughput), LaunchStats (registers, shared-memory configuration), ComputeWorkloadAnalysis (issue slots)
SECTIONS=
for s in ${NCU_SECTIONS:-SpeedOfLight LaunchStats Occupancy SchedulerStats ComputeWorkloadAnalysis MemoryWorkloadAnalysis}; do
  SECTIONS="$SECTIONS --section $s"
done
[ -n "$DRY" ] && { PY="echo python3"; NCU="echo ncu"; }
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv
  python3 -c "import torch, torchvision; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'torchvision', torchvision.__version__)"
  ncu --version | tail -1
  nproc
} > "$OUTDIR/info.txt" 2>&1
cat "$OUTDIR/info.txt"
for cfg in "$@"; do
  [ "$cfg" = --dry ] && continue
  set -- $cfg; tag=${1}_b${2}_$3; t0=$SECONDS
  [ $SECONDS -gt ${BUDGET:-300} ] && { echo "ncu $tag skipped (time)"; continue; }
  timeout ${NCU_TIMEOUT:-150} $NCU --csv --page details $SECTIONS --clock-control none --profile-from-start off \
    --log-file "$RAW/ncu_$tag.csv" \
    $PY "$HERE/torch_graphs.py" --ncu-one --model $1 --batch $2 --mode $3 --warmup 5 > "$RAW/ncu_$tag.log" 2>&1
  echo "ncu $tag rc=$? $((SECONDS - t0))s"
  [ -n "$DRY" ] && continue
  python3 "$HERE/ncu_request.py" "$RAW/ncu_$tag.csv" "${TRACES:-$ROOT/traces/measured/h100/launch/kineto}/$tag.json.gz" \
    "$OUTDIR/ncu/$tag.csv.gz" 2>&1 | tee -a "$RAW/ncu_request.log"
done
date -u >> "$OUTDIR/info.txt"
tar czf "$OUTDIR/ncuraw.tar.gz" -C "$RAW" . 2>/dev/null
ls -la "$OUTDIR" "$OUTDIR/ncu"
